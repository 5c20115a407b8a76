"""Chapter "A real transformer", second scene: where MiniLM puts "apple" alone and in four sentences, measured
by its cosines to the fruit and tech centres in the model's full space (on a 2-D map first when there are more
than two meanings)."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    Arrow,
    Circle,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    Line,
    ManimColor,
    MoveToTarget,
    Rectangle,
    ReplacementTransform,
    Text,
    Transform,
    VGroup,
    VMobject,
    Write,
    config,
)

from attention_math.claims import alone_leaning, both_fall, context_decides, cosine_move
from scenes.kit import (
    BODY,
    CELL,
    FORMULA_LARGE,
    LABEL,
    TINY,
    TITLE,
    LessonScene,
    VectorPlane,
    caption,
    formula,
    nice_extent,
    notation,
    palette,
)
from scenes.kit.clearance import crosses
from scenes.kit.cosine_plane import CosinePlane
from scenes.kit.diagrams import ModelFlow
from scenes.kit.layout import MIDDLE, SUBTITLE_TOP, TOP, grow_within
from scenes.kit.meaning_map import MOVE_STYLE, WordMark, along, bowed_pairs, cluster_color, clusters_said, place_label
from scenes.kit.motion import give_way
from scenes.kit.shift_table import ShiftTable
from scenes.kit.tokens import stacked

SAME_WAY_DEGREES = 10.0  # two moves this close in direction: the later one is bent, else it runs along the first
MORAL_INDENT = 0.45  # the closing lines start under the sentences, not level with the plot's "closer to" label


def mark(point: np.ndarray, word: str, color: ManimColor, obstacles: list, away: np.ndarray | None = None) -> WordMark:
    """A word's dot and label at ``point``, the label clear of ``obstacles`` (which it then joins), on the side
    most along ``away`` if given."""
    word_mark = WordMark(word, point, color, font_size=LABEL - 2)
    place_label(word_mark.label, word_mark.dot, obstacles, away)
    obstacles += [word_mark.dot, word_mark.label]
    return word_mark


def strip_extent(points: np.ndarray, aspect: float) -> tuple[float, float, float, float]:
    """Axis ranges around ``points`` (with a margin), widened to ``aspect`` = width / height."""
    low, high = points.min(axis=0), points.max(axis=0)
    centre, half = (low + high) / 2, (high - low) / 2 * 1.3 + 0.1
    half = np.maximum(half, [half[1] * aspect, half[0] / aspect])
    return centre[0] - half[0], centre[0] + half[0], centre[1] - half[1], centre[1] + half[1]


def shaded(move: VGroup, opacity: float) -> MoveToTarget:
    """``move`` (a curved arrow and its mark) brought to ``opacity``, its arc still a line (never filled)."""
    move.generate_target()
    move.target.set_opacity(opacity)
    move.target[0].set_fill(opacity=0)
    move.target[0].get_tip().set_fill(opacity=opacity)
    return MoveToTarget(move)


class TraceRealShift(LessonScene):
    """ "apple" alone, then in each sentence, by its cosine similarities to each meaning's centre (on a 2-D map of
    MiniLM's space first when there are more than two meanings)."""

    def construct(self) -> None:
        rm = self.values.real_model
        title = self.show_title(f"The real shift: {rm.focus} in context")  # the example's word, not always apple
        self.obstacles: list = []
        if len(rm.cluster_words) == 2:  # two meanings: two cosines, measured in the full space, are the picture
            table = self.similarity_table(rm).scale(1.25).next_to(title, DOWN, buff=0.5).to_edge(RIGHT, buff=0.35)
            zoom = self.measure(rm, self.introduce_cosines(rm, table))
        else:  # more meanings: a 2-D map of the space first, zoomed in around the word
            honesty = self.projection_lines(rm, title)
            plane = self.overview_plane(rm, honesty)
            flow = self.state_projection(rm, honesty, plane)
            overview = self.show_overview(rm, plane, flow)
            table = self.similarity_table(rm).scale(1.25).next_to(honesty, DOWN, buff=0.4).to_edge(RIGHT, buff=0.35)
            self.show_alone(rm, overview, plane, table)
            zoom = self.zoom_in(rm, overview, plane)
        self.shown_moves: list[VGroup] = []
        for k in range(len(rm.sentences)):
            self.show_sentence(rm, k, zoom, table)
        alone_words = VGroup(
            *(caption(line, LABEL, palette.MUTED) for line in ("the centres: cluster words", "read alone, no sentence"))
        ).arrange(DOWN, buff=0.12, aligned_edge=LEFT)  # two short lines: a long sentence makes the table wide
        alone_words.next_to(table, DOWN, buff=0.5).align_to(table, LEFT)  # under the table: the plane takes the height
        cosines = [s.cosines for s in rm.sentences]
        fallen = both_fall(rm.focus, rm.alone.cosines, cosines)
        self.narrate(fallen.text)
        if fallen.holds:  # the sentences that fell away from every centre, pointed at as they are counted; why
            lit = [shaded(move, 1.0 if k in fallen.about else 0.35) for k, move in enumerate(self.shown_moves)]
            self.on_words("sentences", *lit)  # the ones counted lit, the others dim (an Indicate with them undid it)
            self.narrate(
                "Why: the centres come from words read alone; read inside a sentence, a word can point away from both."
            )
            self.play(FadeIn(alone_words, shift=UP * 0.1))
        decides = context_decides(rm.focus, rm.hidden_size, cosines)
        lines = ("its sentence decides", "which meaning it is closer to")
        if not decides.holds:  # every sentence left it nearest the same meaning: say so, not the general rule
            stays = list(rm.sentences[0].cosines)[decides.about[0]]
            lines = ("moved by each sentence,", f"yet closest to {stays} in all")
        moral = VGroup(
            caption(f"one word, “{rm.focus}”:", LABEL),
            VGroup(*(caption(line, LABEL) for line in lines)).arrange(DOWN, buff=0.12, aligned_edge=LEFT),
        ).arrange(DOWN, buff=0.12, aligned_edge=LEFT)
        self.narrate(decides.text)
        moral.move_to(alone_words, aligned_edge=UP + LEFT).shift(RIGHT * MORAL_INDENT)  # clear of the plot's labels
        every = [shaded(m, 1.0) for m in self.shown_moves]  # the moral is about every sentence: all of them alike
        self.play(*([FadeOut(alone_words)] if fallen.holds else []), FadeIn(moral[0]), *every)
        self.on_words("the context decides" if decides.holds else "though", FadeIn(moral[1]))  # as it is said
        self.wait(1.0)

    @staticmethod
    def tag(k: int) -> str:
        return chr(ord("A") + k)

    def similarity_table(self, rm: dict) -> ShiftTable:
        cases = [("●", f"{rm.focus} (alone)", rm.alone.cosines)]  # the plot's white dot, as its row marker
        cases += [(self.tag(k), s.text, s.cosines) for k, s in enumerate(rm.sentences)]
        return ShiftTable(cases, rm.focus)

    @staticmethod
    def projection_lines(rm: dict, title: Text) -> VGroup:
        lines = VGroup(
            notation(caption("a 2-D projection (PCA fitted on the cluster words)", CELL, palette.MUTED)),
            caption(f"of the {rm.hidden_size}-dimensional space of {rm.model}", CELL, palette.MUTED),
        ).arrange(DOWN, buff=0.08)
        return lines.next_to(title, DOWN, buff=0.15)

    @staticmethod
    def overview_plane(rm: dict, above: VGroup) -> VectorPlane:
        points = np.vstack([*rm.cluster_points.values(), rm.alone.point])
        plane = VectorPlane(nice_extent(points, margin=0.08), width=5.6, height=4.9)
        plane.next_to(above, DOWN, buff=0.3).to_edge(LEFT, buff=0.35)
        plane.axes.set_opacity(0.3)
        return plane

    def state_projection(self, rm: dict, lines: VGroup, plane: VectorPlane) -> VGroup:
        """The plane the words will be drawn on is there from the first frame; beside it, what is drawn on it:
        the word's vector after every layer, flattened to 2 numbers. Returns that picture, to be taken away."""
        flow = ModelFlow(rm.focus, rm.layers, rm.hidden_size)
        room = config.frame_width / 2 - 0.5 - plane.get_right()[0] - 0.6
        flow.scale(min(1.0, room / flow.width)).next_to(plane, RIGHT, buff=0.6)
        self.narrate(
            f"Where does a trained model put “{rm.focus}”? We take its vector after all {rm.layers} layers: "
            "attention, feed-forward and residual, all of them."
        )
        self.play(Create(plane), FadeIn(flow.token))
        self.on_words("We take", GrowArrow(flow.arrows[0]), FadeIn(flow.stack[0], lag_ratio=0.2), run_time=1.2)
        self.on_words("after all", FadeIn(flow.stack[1]), Indicate(flow.stack[0], color=palette.HIGHLIGHT))
        self.on_words("attention", GrowArrow(flow.arrows[1]), FadeIn(flow.vector))  # the vector all of them leave
        self.narrate(f"It has {rm.hidden_size} numbers; to draw it, we flatten it to 2.")
        self.play(Indicate(flow.vector[1], color=palette.HIGHLIGHT))
        self.on_words("we flatten", GrowArrow(flow.arrows[2]), FadeIn(flow.flat), FadeIn(lines))  # how, and from what
        return flow

    def show_overview(self, rm: dict, plane: VectorPlane, flow: VGroup) -> VGroup:
        overview = VGroup(plane)
        self.narrate(
            f"Each cluster word is read on its own: {clusters_said(list(rm.cluster_words))}. Rings mark each centre."
        )
        self.play(FadeOut(flow))  # its 2 numbers are what the plane now plots
        rings = {}
        for name in rm.cluster_words:
            rings[name] = Circle(radius=0.12, color=cluster_color(name), stroke_width=3)
            rings[name].move_to(plane.c2p(*rm.centroid_points[name]))
            self.obstacles.append(rings[name])
        for name, words in rm.cluster_words.items():
            color = cluster_color(name)
            marks = [
                mark(plane.c2p(*p), w, color, self.obstacles)
                for w, p in zip(words, rm.cluster_points[name], strict=True)
            ]
            centre = caption(f"{name} centre", TINY, color)
            place_label(centre, rings[name], self.obstacles)
            self.obstacles.append(centre)
            overview.add(*marks, rings[name], centre)
            self.play(LaggedStart(*map(FadeIn, marks), lag_ratio=0.2), FadeIn(rings[name]), FadeIn(centre))
        return overview

    def show_alone(self, rm: dict, overview: VGroup, plane: VectorPlane, table: ShiftTable) -> None:
        alone = mark(plane.c2p(*rm.alone.point), rm.focus, palette.TEXT, self.obstacles)
        overview.add(alone)
        self.narrate(  # defined before its numbers are read
            "To compare meanings, we use the cosine: the dot product over both lengths, 1 for the same direction."
        )
        self.play(FadeIn(table.title), FadeIn(table.header))
        self.narrate(alone_leaning(rm.focus, rm.alone.cosines).text)
        self.play(FadeIn(alone, scale=1.5), *table.reveal(0))

    def zoom_in(self, rm: dict, overview: VGroup, plane: VectorPlane) -> VGroup:
        points = np.vstack([rm.alone.point, *(s.point for s in rm.sentences)])
        extent = strip_extent(points, aspect=5.6 / 3.4)
        corners = [plane.c2p(x, y) for x, y in ((extent[0], extent[2]), (extent[1], extent[3]))]
        window = Rectangle(
            width=corners[1][0] - corners[0][0], height=corners[1][1] - corners[0][1], color=palette.TEXT
        )
        window.move_to((corners[0] + corners[1]) / 2)
        zoomed = VectorPlane(extent, width=5.6, height=3.4).move_to(plane).align_to(plane, LEFT)
        zoomed.axes.set_opacity(0.3)
        frame = Rectangle(width=zoomed.width, height=zoomed.height, color=palette.TEXT).move_to(zoomed)
        self.narrate("Its moves are small next to the spread of the cluster words: let us zoom in around it.")
        self.play(Create(window))
        self.play(FadeOut(overview), ReplacementTransform(window, frame), FadeIn(zoomed), run_time=1.2)
        self.obstacles = []
        self.point_of = lambda sentence: sentence.point
        pointers = VGroup(*(self.pointer(zoomed, rm, name) for name in rm.cluster_words))
        self.obstacles += [p[1] for p in pointers]
        alone = mark(zoomed.c2p(*rm.alone.point), f"{rm.focus} (alone)", palette.TEXT, self.obstacles)
        self.play(FadeIn(alone), FadeIn(pointers))
        return VGroup(zoomed, frame, alone, pointers)

    def introduce_cosines(self, rm: dict, table: ShiftTable) -> VGroup:
        """The word's vector after every layer, too long to draw; each meaning's words, whose average is its centre;
        the cosine, and the word alone measured by it. Returns what is on screen besides the table."""
        flow = ModelFlow(rm.focus, rm.layers, rm.hidden_size)
        parts = VGroup(  # what the voice names inside every layer, under the layers' count
            *(caption(line, LABEL, palette.MUTED) for line in ("each: attention,", "feed-forward, residual"))
        ).arrange(DOWN, buff=0.08)
        shown = VGroup(flow.token, flow.stack, flow.vector, *flow.arrows[:2])
        parts.next_to(flow.stack, DOWN, buff=0.2)
        shown.add(parts)
        grow_within(shown, 12.5, TOP - SUBTITLE_TOP - 0.6).move_to(MIDDLE * UP)  # the whole picture while alone
        self.narrate(
            f"Where does a trained model put “{rm.focus}”? We take its vector after all {rm.layers} layers: "
            "attention, feed-forward and residual, all of them."
        )
        self.play(FadeIn(VGroup(flow.token, flow.arrows[0], flow.stack)))  # the opening: the word into the model
        # colour only: grown, the boxes touched their label
        self.on_words("after all", Indicate(flow.stack[0], color=palette.HIGHLIGHT, scale_factor=1.0))
        self.on_words("attention, feed", FadeIn(parts))
        self.on_words("all of them", GrowArrow(flow.arrows[1]), FadeIn(flow.vector))  # the vector they all leave
        self.narrate(
            f"It has {rm.hidden_size} numbers: too many to draw, so we compare its direction with each meaning."
        )
        self.play(Indicate(flow.vector[1], color=palette.HIGHLIGHT))
        words = self.cluster_columns(rm)
        cosine = VGroup(
            formula(r"\cos(a, b) = \frac{a \cdot b}{|a|\,|b|}", size=FORMULA_LARGE),
            caption(f"a: the vector of “{rm.focus}”,  b: a centre", LABEL, palette.MUTED),
        ).arrange(DOWN, buff=0.2)
        left = VGroup(words, cosine).arrange(DOWN, buff=0.45)
        room = table.get_left()[0] + config.frame_width / 2 - 1.0  # the width left of the table
        grow_within(left, room, TOP - SUBTITLE_TOP - 0.4).move_to([table.get_left()[0] - 0.5 - room / 2, MIDDLE, 0])
        home, zoom = left.get_center(), min(12.0 / words.width, (TOP - SUBTITLE_TOP - 0.6) / words.height)
        left.scale(zoom)  # the words and their centres alone fill the frame, until the table needs its side
        left.shift(MIDDLE * UP - words.get_center())
        self.narrate(
            f"Each cluster word is read on its own: {clusters_said(list(rm.cluster_words))}. "
            "A meaning's centre is their average."
        )
        self.play(give_way(shown, LaggedStart(*(FadeIn(column) for column in words[0]), lag_ratio=0.4)), run_time=1.5)
        self.on_words("centre", FadeIn(words[1]), *(GrowArrow(arrow) for arrow in words[2]))
        self.narrate(  # defined before its numbers are read
            "To compare meanings, we use the cosine: the dot product over both lengths; the larger, the closer."
        )
        back = left.copy().scale(1 / zoom).move_to(home)  # the words to their corner; the cosine, not yet shown, below
        self.play(Transform(words, back[0]))
        cosine.scale(1 / zoom).move_to(back[1])
        self.play(Write(cosine))
        self.narrate(alone_leaning(rm.focus, rm.alone.cosines).text)
        self.play(FadeIn(table.title), FadeIn(table.header))  # the table with its first row: no empty heading
        self.play(*table.reveal(0))
        return left

    @staticmethod
    def cluster_columns(rm: dict) -> VGroup:
        """Each meaning's words in its colour, under its name; under them, their centre, with an arrow from them."""

        def column(name: str, words: list[str]) -> VGroup:
            lines = [caption(w, BODY, cluster_color(name)) for w in words]
            return VGroup(
                caption(name, TITLE, cluster_color(name)), stacked(lines, max(w.height for w in lines) + 0.15)
            )

        columns = VGroup(
            *(column(name, words).arrange(DOWN, buff=0.15) for name, words in rm.cluster_words.items())
        ).arrange(RIGHT, buff=1.2, aligned_edge=UP)
        centres = VGroup(  # under each column, its centre: one vector, the average of the words above
            *(
                VGroup(
                    Circle(radius=0.14, color=cluster_color(name), stroke_width=3),
                    caption(f"{name} centre", LABEL, cluster_color(name)),
                ).arrange(RIGHT, buff=0.15)
                for name in rm.cluster_words
            )
        )
        for centre, column in zip(centres, columns, strict=True):
            centre.next_to(column, DOWN, buff=0.5).match_x(column)
        centres.add(caption("each centre: the average of its words", LABEL, palette.MUTED).next_to(centres, DOWN))
        arrows = VGroup(
            *(
                Arrow(c.get_bottom(), k[0].get_top(), buff=0.1, color=palette.MUTED)
                for c, k in zip(columns, centres[:-1], strict=True)
            )
        )
        return VGroup(columns, centres, arrows)

    def measure(self, rm: dict, leaving: VGroup) -> VGroup:
        """The two cosines as a plane, in the place of ``leaving``: a move there is a move in the model's full space.
        The plane is as tall as the frame allows."""
        names = tuple(rm.cluster_words)
        self.point_of = lambda sentence: [sentence.cosines[n] for n in names]
        values = np.array([self.point_of(case) for case in (rm.alone, *rm.sentences)])
        pad = 0.15 * np.ptp(values) + 0.02
        cosines = CosinePlane(names, float(values.min() - pad), float(values.max() + pad), side=4.7)  # and its scale
        cosines.next_to(self.title, DOWN, buff=0.3).to_edge(LEFT, buff=0.6)
        self.narrate(f"Plot the two cosines: to {names[0]} across, to {names[1]} up.")
        axes = (Create(cosines.frame), FadeIn(cosines.ticks), FadeIn(cosines.x_label), FadeIn(cosines.y_label))
        self.play(give_way(leaving, *axes), run_time=1.5)
        self.narrate(f"Above the diagonal, '{rm.focus}' is closer to {names[1]}; below it, to {names[0]}.")
        self.play(Create(cosines.diagonal), FadeIn(cosines.sides), run_time=1.2)
        self.obstacles = [*cosines.sides, cosines.x_label, cosines.y_label, *along(cosines.diagonal)]
        start = np.array(self.point_of(rm.alone))
        moves = [np.array(self.point_of(s)) - start for s in rm.sentences]
        away = -np.append(sum(m / (np.linalg.norm(m) + 1e-9) for m in moves), 0)  # the label opposite the arrows
        ends = [cosines.c2p(*self.point_of(s)) for s in rm.sentences]  # the moves to come: the label keeps off them
        paths = [p for end in ends for p in along(Line(cosines.c2p(*start), end))]
        alone = mark(cosines.c2p(*start), f"{rm.focus} (alone)", palette.TEXT, [*self.obstacles, *paths], away)
        self.obstacles += [alone.dot, alone.label]
        self.play(FadeIn(alone))
        return VGroup(cosines, cosines.frame, alone)

    @staticmethod
    def pointer(zoomed: VectorPlane, rm: dict, name: str) -> VGroup:
        """An arrow in the zoomed map's top band pointing toward the cluster's centre, off the map."""
        centre, origin = rm.centroid_points[name], rm.alone.point
        direction = np.append((centre - origin) / np.linalg.norm(centre - origin), 0)
        side = zoomed.get_right() if direction[0] > 0 else zoomed.get_left()
        tip = side + UP * (zoomed.height / 2 - 0.3) - np.sign(direction[0]) * RIGHT * 0.15
        arrow = Arrow(tip - direction * 0.7, tip, buff=0, color=cluster_color(name), stroke_width=5)
        label = caption(f"toward {name}", TINY, cluster_color(name)).next_to(
            arrow, -np.sign(direction[0]) * RIGHT, buff=0.1
        )
        return VGroup(arrow, label)

    def move_arrow(self, start: np.ndarray, end: np.ndarray, color: ManimColor) -> tuple[VMobject, list[Animation]]:
        """A move, straight; where an earlier move runs the same way, the two bow (the earlier one redrawn), so they
        never read as one path through both dots, and clear of the labels. Returns the arrow and the redrawing."""
        for earlier in (m[0] for m in self.shown_moves):
            other, way = earlier.get_end() - earlier.get_start(), end - start
            cos = np.dot(way, other) / (np.linalg.norm(way) * np.linalg.norm(other) + 1e-9)
            if cos > np.cos(np.radians(SAME_WAY_DEGREES)):
                labels = [m for m in self.obstacles if isinstance(m, Text)]
                pairs = bowed_pairs(start, end, earlier, color)
                new, apart = next((pair for pair in pairs if not crosses(pair, labels)), pairs[0])
                shade = earlier.get_stroke_opacity()  # as dim as it is now
                apart.set_stroke(opacity=shade).get_tip().set_fill(opacity=shade).set_stroke(opacity=shade)
                return new, [Transform(earlier, apart)]
        return Arrow(start, end, buff=0, color=color, **MOVE_STYLE), []

    def show_sentence(self, rm: dict, k: int, zoom: VGroup, table: ShiftTable) -> None:
        sentence, zoomed, alone = rm.sentences[k], zoom[0], zoom[2]
        color = cluster_color(sentence.nearest)
        target = zoomed.c2p(*self.point_of(sentence))
        step = target - alone.dot.get_center()
        side = np.array([-step[1], step[0], 0.0])  # beside the tip, off the line: a later move may run along it
        moved = mark(target, self.tag(k), color, self.obstacles, away=side)
        start, end = alone.dot.get_center(), moved.dot.get_center()
        inward = (end - start) / (np.linalg.norm(end - start) + 1e-9) * 0.06  # clear of both dots
        move, apart = self.move_arrow(start + inward, end - inward, color)
        self.narrate(cosine_move(rm.focus, sentence.text, rm.alone.cosines, sentence.cosines).text)
        label, numbers, frame = table.reveal(k + 1)
        earlier = [shaded(m, 0.35) for m in self.shown_moves]  # the sentence being read stands out
        self.play(label, *earlier)
        self.play(Create(move), FadeIn(moved), numbers, frame, *apart, run_time=1.2)
        self.shown_moves.append(VGroup(move, moved))
