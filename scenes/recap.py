"""Chapter "Recap": the seven steps of a self-attention layer with their shapes (the quiz: ``quiz.py``)."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    Create,
    FadeIn,
    FadeOut,
    SurroundingRectangle,
    VGroup,
    Write,
)

from scenes.kit import (
    BODY,
    FORMULA,
    LEAD,
    SERIF,
    TITLE,
    LessonScene,
    caption,
    formula,
    notation,
    palette,
)
from scenes.kit.charts import block_grid
from scenes.kit.diagrams import JOINED, step_names
from scenes.kit.layout import GAP, SUBTITLE_TOP, fit_width
from scenes.kit.numbers import fmt, fmt_int

ROW_GAP = 0.42  # between the steps' rows, when the frame has room
BOX_BUFF = 0.15  # between the rows and the box drawn round them
BLOCK_LINE = 0.7  # kept below the rows: the full block's line (W_O, Add & Norm) under step 7


def sized(*dims: tuple[str, int]) -> str:
    """TeX of a shape in symbols and in the example's sizes: ``n \times d_k = 4 \times 2`` (with n = d_model,
    the sizes alone could not tell the scores' n × n from the input's n × d_model)."""
    return r" \times ".join(name for name, _ in dims) + " = " + shape(*(size for _, size in dims))


def shape(*dims: int) -> str:
    """TeX of a matrix shape from computed sizes: ``4 \\times 2``."""
    return r" \times ".join(fmt_int(d) for d in dims)


UNREAD = 0.4  # opacity of a step not yet explained: dim, yet 3.8:1 on the background (white text)
LEGEND_WIDTH = 13.0  # the sentence and the sizes on one line, inside the safe area
TITLE_GAP = 0.12  # between the title, the layer's formula (in the legend's place) and the first step
SHAPE_X, SHAPE_WIDTH, SHAPE_HEIGHT = 6.0, 1.4, 0.44  # the drawn shapes' column: centre, widest, tallest
SHAPE_GAP = 0.08  # between matrices drawn side by side (Q, K and V)


class RecapSteps(LessonScene):
    """The seven steps of the layer, each with its formula and the worked example's shapes."""

    def construct(self) -> None:
        we = self.values.worked_example
        T, d_model, d_k, h = we.T, we.d_model, we.d_k, we.h
        sqrt_d_k = we.heads[0].sqrt_d_k
        title = self.show_title()
        legend = self.legend(we.tokens, (("n", T), ("d_{model}", d_model), ("d_k", d_k), ("d_v", we.d_v), ("h", h)))
        legend.next_to(title, DOWN, buff=0.3)
        self.narrate("Seven steps turn the input into context-aware vectors. Follow the shapes of our example.")
        names = step_names(we.W_O is not None)
        head = palette.MUTED  # scores and weights: inside one head, no role colour of their own
        steps = [  # name, formula, shape (symbol and size per dimension), extra, the colours its shapes are drawn in
            (
                names[0],
                r"X",
                (("n", T), ("d_{model}", d_model)),
                "",
                (palette.TEXT,),
                "Each token enters as a row of X.",
            ),
            (
                names[1],
                r"X{\cdot}W_{Q},\ X{\cdot}W_{K},\ X{\cdot}W_{V}",  # all three, as the voice names them (a tight dot)
                (("n", T), ("d_k", d_k)),
                "",
                (palette.QUERY, palette.KEY, palette.VALUE),  # Q, K and V: three of this shape
                "Three learned matrices project X into queries, keys and values.",
            ),
            (
                names[2],
                r"QK^T",
                (("n", T), ("n", T)),
                "",
                (head,),
                "Every query meets every key: one score per pair of tokens.",
            ),
            (
                names[3],
                r"QK^T / \sqrt{d_k}",
                (("n", T), ("n", T)),
                rf"\ \ (\div {fmt(sqrt_d_k)})",
                (head,),
                "Dividing by √d_k keeps the scores in a healthy range.",
            ),
            (
                names[4],
                r"\mathrm{softmax}(\cdot)",
                (("n", T), ("n", T)),
                "",
                (head,),
                "Softmax turns each row into weights.",
            ),
            (
                names[5],
                r"\alpha V",
                (("n", T), ("d_v", we.d_v)),
                "",
                (palette.TEXT,),
                "Each output row is a weighted sum of the value vectors.",
            ),
            (
                names[6],
                JOINED + (r"\, W_{O}" if we.W_O is not None else ""),
                (("n", T), ("d_{model}", d_model)),
                "",
                (palette.TEXT,),
                f"The {fmt_int(h)} heads are joined"
                + (" and mixed by W_O" if we.W_O is not None else "")
                + ": one context-aware vector per token.",
            ),
        ]
        cell = self.cell_side([(dims, len(colours)) for _, _, dims, _, colours, _ in steps])
        rows = VGroup(
            *(
                self.step_row(i, name, rule, sized(*dims) + extra, self.drawn(dims, colours, cell))
                for i, (name, rule, dims, extra, colours, _) in enumerate(steps)
            )
        )

        rows.arrange(DOWN, buff=ROW_GAP, aligned_edge=LEFT).next_to(legend, DOWN, buff=0.5)
        if (overflow := SUBTITLE_TOP + GAP + BLOCK_LINE - rows.get_bottom()[1]) > 0:  # room below for the block's line
            gap = ROW_GAP - overflow / (len(rows) - 1)
            rows.arrange(DOWN, buff=gap, aligned_edge=LEFT).next_to(legend, DOWN, buff=0.5)
        self.align_columns(rows)
        self.play(FadeIn(legend), FadeIn(rows.set_opacity(UNREAD)), run_time=0.8)  # all seven, each lit when read
        for row, (*_, line) in zip(rows, steps, strict=True):
            self.narrate(line)
            self.play(row.animate.set_opacity(1), run_time=0.8)
        between = min(rows[i].get_bottom()[1] - rows[i + 1].get_top()[1] for i in (0, 5))  # the box's edges run there
        box = SurroundingRectangle(rows[1:6], color=palette.MUTED, buff=min(BOX_BUFF, between / 2))  # 2–6: one head
        output = formula(rf"\text{{output}} = {JOINED}\, W_{{O}}", size=FORMULA)
        if we.W_O is None:  # our example's row 7 has no W_O: say whose it is, in words
            output = VGroup(caption("full block:", BODY), output).arrange(RIGHT, buff=0.2)
        layer = VGroup(
            formula(r"Z = \mathrm{softmax}(QK^{T} / \sqrt{d_k})\, V", size=FORMULA),  # one line: it fits the gap larger
            output,
            formula(r"\mathrm{Norm}(X + \text{output})", size=FORMULA),
        )
        room = title.get_bottom()[1] - rows.get_top()[1] - 2 * TITLE_GAP  # the legend's place: its shapes are read
        fit_width(layer[0], 12).scale(min(1.0, room / layer[0].height))
        layer[0].next_to(title, DOWN, buff=TITLE_GAP).set_x(0)
        block = fit_width(VGroup(*layer[1:]).arrange(RIGHT, buff=0.8), 13)  # W_O and Add & Norm, under step 7
        block.next_to(rows, DOWN, buff=0.2).set_x(0)  # under step 7
        self.narrate("Softmax of QKᵀ over √d_k, times V: that is one head's output, Z.")
        self.play(Create(box), FadeOut(legend), run_time=0.8)  # the legend leaves before the formula takes its place
        self.play(Write(layer[0]), run_time=0.8)
        mixed = "Then W_O mixes" if we.W_O is not None else "In a full attention block, W_O then mixes"
        self.narrate(f"{mixed} the joined heads into the attention block's output.")
        self.play(Write(layer[1]), run_time=0.8)
        self.narrate("Add and Norm then adds X back and normalises each row.")
        self.play(Write(layer[2]), run_time=0.8)

    @staticmethod
    def legend(tokens: list[str], symbols: tuple[tuple[str, int], ...]) -> VGroup:
        """The example's tokens and sizes, the symbols the shapes and formulas below are made of."""
        sizes = formula(r",\quad ".join(f"{name} = {fmt_int(size)}" for name, size in symbols), size=TITLE)
        for keep in range(len(tokens), 0, -1):  # a long sentence keeps its start and its last word
            shown = tokens if keep >= len(tokens) - 1 else [*tokens[:keep], "…", tokens[-1]]
            legend = VGroup(caption(" ".join(shown), LEAD), sizes).arrange(RIGHT, buff=0.6)
            if legend.width <= LEGEND_WIDTH:
                break
        return legend

    @staticmethod
    def cell_side(shapes: list[tuple[tuple[tuple[str, int], ...], int]]) -> float:
        """One cell size for every step's drawn shapes (so the shapes compare), the largest that fits the column;
        ``shapes``: each step's dimensions and how many matrices of that shape it draws side by side."""
        tallest = max(dims[0][1] for dims, _ in shapes)
        return min(
            SHAPE_HEIGHT / tallest,
            *((SHAPE_WIDTH - (count - 1) * SHAPE_GAP) / (count * dims[1][1]) for dims, count in shapes),
        )

    @staticmethod
    def drawn(dims: tuple[tuple[str, int], ...], colours: tuple, cell: float) -> VGroup:
        """A step's matrices drawn as their cells, one per colour, side by side."""
        grids = (block_grid(dims[0][1], dims[1][1], cell, colour, 0.6) for colour in colours)
        return VGroup(*grids).arrange(RIGHT, buff=SHAPE_GAP)

    @staticmethod
    def step_row(index: int, name: str, rule: str, size: str, drawn: VGroup) -> VGroup:
        """The step's number, its name, its formula, the example's shapes there, and that shape drawn."""
        number = notation(caption(f"{index + 1}.", BODY, palette.MUTED, font=SERIF))
        label = caption(name, BODY, font=SERIF)
        tex = formula(rule, size=TITLE)
        dims = formula(size, size=TITLE)
        return VGroup(number, label, tex, dims, drawn.match_y(dims))

    @staticmethod
    def align_columns(rows: VGroup) -> None:
        """Line up number, name, formula and shape in four columns; the drawn shapes centred in a fifth."""
        starts = [-6.4, -5.9, -2.55, 1.35]  # the formulas start just past the longest name
        for row in rows:
            for part, x in zip(row, starts, strict=False):
                part.set_x(x, direction=LEFT)
            row[-1].set_x(SHAPE_X)
