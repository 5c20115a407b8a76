"""The meaning map: words as points on a 2-D plane, clusters as coloured regions, a word pulled by context."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from manim import (
    DL,
    DOWN,
    DR,
    LEFT,
    ORIGIN,
    RIGHT,
    TAU,
    UL,
    UP,
    UR,
    Circle,
    CurvedArrow,
    DashedLine,
    Dot,
    ManimColor,
    Mobject,
    Rectangle,
    VGroup,
    VMobject,
)

from . import palette
from .numbers import Number
from .tokens import TokenLabel
from .vectors import VectorPlane, nice_extent

CLUSTER_COLORS = {"fruit": palette.FRUIT, "tech": palette.TECH}
COLOUR_WORDS = {"fruit": "pink", "tech": "violet"}  # how the narration names them


def clusters_said(names: Sequence[str]) -> str:
    """The clusters as the narration names them: with their colours where they have their own."""
    if all(name in COLOUR_WORDS for name in names):
        return ", ".join(f"{name} in {COLOUR_WORDS[name]}" for name in names)
    return " and ".join(f"the {name} words" for name in names)


LABEL_DIRECTIONS = (DOWN, UP, RIGHT, LEFT, DR, UR, DL, UL)
REGION_MARGIN = 0.45  # how far a cluster's region reaches beyond its farthest word
NUMBER_SCALE = 1.0  # numbers are set in the labels' font now (was 1.25 for TeX digits)
RING = 0.17  # radius of a cluster's centre ring
DOT_ROOM = 3.0  # a label keeps this many dot radii from another word's dot centre ("cherry • grape" read as one)
MOVE_STYLE = {"stroke_width": 3, "tip_length": 0.15}  # an arrow from a word's place to where it moved


def cluster_color(name: str) -> ManimColor:
    """The role colour of a cluster (fruit pink, tech violet; any other cluster muted)."""
    return CLUSTER_COLORS.get(name, palette.MUTED)


def overlaps(a: Mobject, b: Mobject, gap: float = 0.04) -> bool:
    """Whether the bounding boxes of ``a`` and ``b`` come closer than ``gap``."""
    (al, ab), (ar, at) = a.get_corner(DL)[:2], a.get_corner(UR)[:2]
    (bl, bb), (br, bt) = b.get_corner(DL)[:2], b.get_corner(UR)[:2]
    return al < br + gap and bl < ar + gap and ab < bt + gap and bb < at + gap


def along(line: Mobject, step: float = 0.1) -> list[Mobject]:
    """Points every ``step`` along a straight ``line``, as obstacles: a slanted line's bounding box would block
    the whole square it spans, the points only the line."""
    start, end = line.get_start(), line.get_end()
    count = max(2, int(np.linalg.norm(end - start) / step) + 1)
    return [Dot(start + t * (end - start), radius=step / 2) for t in np.linspace(0, 1, count)]  # they tile it


def place_label(label: Mobject, dot: Mobject, obstacles: Iterable[Mobject], away: np.ndarray | None = None) -> Mobject:
    """Put ``label`` beside ``dot`` on the first side where it touches none of ``obstacles``.

    Sides are tried in a fixed order, or, given a direction ``away``, the sides most along it first.
    """
    obstacles = list(obstacles)
    sides = LABEL_DIRECTIONS
    if away is not None:
        sides = sorted(sides, key=lambda d: -float(np.dot(d, away)) / np.linalg.norm(d))
    # then a long label slid off centre: above or below running to one side, beside raised or lowered by half
    slid = [(d, edge, 0) for d in (UP, DOWN) for edge in (LEFT, RIGHT)] + [
        (d, ORIGIN, lift) for d in (LEFT, RIGHT) for lift in (1, -1)
    ]
    candidates = [*((d, ORIGIN, 0) for d in sides), *slid]

    def put(place: tuple[np.ndarray, np.ndarray, int]) -> Mobject:
        direction, edge, lift = place
        return label.next_to(dot, direction, buff=0.08, aligned_edge=edge).shift(lift * label.height / 2 * UP)

    touching = []
    for place in candidates:  # the first clear place; where none is, the one touching the fewest
        put(place)
        touching.append(sum(overlaps(label, other) for other in obstacles))
        if not touching[-1]:
            return label
    return put(candidates[int(np.argmin(touching))])


def place_clear(
    label: Mobject, dot: Mobject, taken: list[Mobject], wished: Iterable[Mobject], away: np.ndarray | None
) -> Mobject:
    """``label`` beside ``dot`` clear of ``taken`` and of the ``wished`` obstacles where a side is, else clear of
    ``taken`` alone (the wished ones give way first)."""
    for obstacles in ([*taken, *wished], taken):
        place_label(label, dot, obstacles, away)
        if not any(overlaps(label, other) for other in obstacles):
            break
    return label


class WordMark(VGroup):
    """A word on the map: a dot and its label (token font)."""

    def __init__(self, word: str, point: np.ndarray, color: ManimColor, font_size: float = 22) -> None:
        self.dot = Dot(point, radius=0.07, color=color)
        self.label = TokenLabel(word, font_size=font_size, color=color).set_z_index(1)
        self.placed = False
        super().__init__(self.dot, self.label)


class MeaningMap(VGroup):
    """Words at their 2-D positions, each cluster a tinted region with its centroid ringed.

    Only the cluster words are drawn at first; :meth:`mark` adds any other word
    (the focus word, a sentence's context words) with a label that avoids the others.

    Parameters
    ----------
    words
        Every word's 2-D position (``semantic_shift.words``).
    clusters
        Cluster name → its words.
    centroids
        Cluster name → its computed centre.
    width, height
        Room on screen; the plane keeps one unit equal on both axes.

    Examples
    --------
    >>> m = MeaningMap({"a": np.array([0, 1]), "b": np.array([1, 0])}, {"x": ["a", "b"]}, {"x": np.array([.5, .5])})
    >>> sorted(m.regions)
    ['x']
    """

    reading_hold = True  # a new one earns a quiet hold to read it (LessonScene.hold_to_read)

    def __init__(
        self,
        words: Mapping[str, np.ndarray],
        clusters: Mapping[str, Sequence[str]],
        centroids: Mapping[str, np.ndarray],
        width: float = 8.0,
        height: float = 5.5,
        font_size: float = 22,
    ) -> None:
        super().__init__()
        self.words = {w: np.asarray(p, dtype=float) for w, p in words.items()}
        self.font_size = font_size
        self.plane = VectorPlane(nice_extent(np.array(list(self.words.values()))), width=width, height=height)
        self.plane.axes.set_opacity(0.3)
        self.regions: dict[str, VGroup] = {}
        self.marks: dict[str, WordMark] = {}
        self.add(self.plane)
        for name, members in clusters.items():
            self.regions[name] = self._region(name, members, centroids[name])
            self.add(self.regions[name])
        self.cluster_marks = {
            name: VGroup(*(self._register(word, cluster_color(name)) for word in members))
            for name, members in clusters.items()
        }
        for mark in list(self.marks.values()):
            self._place(mark)
        self.add(*self.cluster_marks.values())

    def point(self, xy: Sequence[float]) -> np.ndarray:
        """Screen position of map coordinates ``xy``."""
        return self.plane.c2p(*xy)

    def _region(self, name: str, members: Sequence[str], centre: np.ndarray) -> VGroup:
        """A tinted disc around the cluster, its name above it, and a ring on its centroid."""
        color = cluster_color(name)
        reach = max(np.linalg.norm(self.point(self.words[w]) - self.point(centre)) for w in members)
        disc = Circle(radius=reach + REGION_MARGIN, color=color, stroke_width=2, stroke_opacity=0.5)
        disc.set_fill(color, opacity=0.12).move_to(self.point(centre))
        # on top of the dots, and wider than one: a word near the centre (laptop, 0.1 away) must not hide it
        ring = Circle(radius=RING, color=color, stroke_width=3).move_to(self.point(centre)).set_z_index(1)
        title = TokenLabel(name, font_size=self.font_size + 4, color=color).next_to(disc, UP, buff=0.08)
        region = VGroup(disc, ring, title)
        region.disc, region.centre, region.title = disc, ring, title
        return region

    def obstacles(self, exclude: WordMark | None = None) -> list[Mobject]:
        """Everything a label must not touch: centre rings, region names, the axes, every dot, the labels placed so
        far."""
        found = [r.centre.copy().scale(1.4) for r in self.regions.values()]  # a ring and a margin: labels keep off
        found += [r.title for r in self.regions.values()]
        found += [self.plane.x_axis, self.plane.y_axis]  # a word on an axis ("apple" at x = 0) labelled beside it
        for mark in self.marks.values():
            if mark is not exclude:  # another word's dot with room round it: a label beside it would read as its
                room = mark.dot.copy().scale(DOT_ROOM)
                found += [room, mark.label] if mark.placed else [room]
        return found

    def _register(self, word: str, color: ManimColor, at: Sequence[float] | None = None) -> WordMark:
        mark = WordMark(word, self.point(self.words[word] if at is None else at), color, self.font_size)
        self.marks[word] = mark
        return mark

    def _place(self, mark: WordMark, away: np.ndarray | None = None, keep_off: Iterable[Mobject] = ()) -> None:
        place_clear(mark.label, mark.dot, self.obstacles(exclude=mark), keep_off, away)
        mark.placed = True

    def arrival(self, word: str, xy: Sequence[float]) -> Mobject:
        """The room ``word`` will take at map point ``xy`` (its dot, a label's width all round): for labels placed
        before it walks there to keep off."""
        label = self.marks[word].label
        return Rectangle(width=2 * label.width + 0.3, height=2 * label.height + 0.3).move_to(self.point(xy))

    def mark(
        self,
        word: str,
        color: ManimColor = palette.MUTED,
        at: Sequence[float] | None = None,
        away_from: Sequence[float] | None = None,
        keep_off: Iterable[Mobject] = (),
    ) -> WordMark:
        """A word's dot and label at its position (or ``at``); not yet added.

        The label keeps clear of the others and of ``keep_off``, on the side facing away from ``away_from`` when
        given (where an arrow from there would not cross it).
        """
        mark = self._register(word, color, at)
        away = None
        if away_from is not None:
            away = mark.dot.get_center() - self.point(away_from)
        self._place(mark, away, keep_off)
        return mark

    def moved(
        self, word: str, xy: Sequence[float], away: np.ndarray | None = None, avoid: Iterable[Mobject] = ()
    ) -> WordMark:
        """A copy of ``word``'s mark at map point ``xy``, its label re-placed there (Transform the mark into it), on
        the side most along ``away`` if given, clear of ``avoid`` too (a trail drawn on the map)."""
        mark = self.marks[word]
        target = mark.copy()
        target.shift(self.point(xy) - mark.dot.get_center())
        place_clear(target.label, target.dot, self.obstacles(exclude=mark), avoid, away)  # the trail gives way first
        return target

    def forget(self, word: str) -> WordMark:
        """Stop avoiding ``word``'s label (before fading it out); returns its mark."""
        return self.marks.pop(word)

    def distance_lines(self, xy: Sequence[float], distances: Mapping[str, float]) -> VGroup:
        """Dashed lines from ``xy`` to each centroid, each with its computed length beside it."""
        group = VGroup()
        for name, region in self.regions.items():
            start, centre = self.point(xy), region.centre.get_center()
            end = centre - RING * (centre - start) / np.linalg.norm(centre - start)  # to the ring, not through it
            line = DashedLine(start, end, color=cluster_color(name), stroke_width=2)
            number = Number(distances[name], num_decimal_places=2, font_size=self.font_size, color=cluster_color(name))
            taken = self.obstacles()
            for t in (0.5, 0.4, 0.6, 0.3, 0.7, 0.5):  # above the line, where no word or label is (else its middle)
                number.next_to(start + t * (end - start), UP, buff=0.15)
                if not any(overlaps(number, other) for other in taken):
                    break
            group.add(VGroup(line, number))
        return group


def bowed_pairs(
    start: np.ndarray, end: np.ndarray, earlier: VMobject, color: ManimColor
) -> list[tuple[VMobject, VMobject]]:
    """Ways to draw a move running the same way as ``earlier``, each as (the move, ``earlier`` redrawn): bowed apart;
    else both bowed to one side, the longer one farther out (nested, so they never cross), on either side."""
    ends = earlier.get_start(), earlier.get_end()
    other, way = ends[1] - ends[0], end - start
    turn = other[0] * way[1] - other[1] * way[0]  # which side of the earlier move this one lies
    bend = TAU / 12 * (1 if turn >= 0 else -1)
    longer = np.linalg.norm(way) > np.linalg.norm(other)

    def pair(new_bend: float, old_bend: float) -> tuple[VMobject, VMobject]:
        move = CurvedArrow(start, end, angle=new_bend, color=color, **MOVE_STYLE)
        return move, CurvedArrow(*ends, angle=old_bend, color=earlier.get_color(), **MOVE_STYLE)

    nested = [(side * (2 if longer else 1), side * (1 if longer else 2)) for side in (bend, -bend)]
    return [pair(bend, -bend), *(pair(*bends) for bends in nested)]
