"""What the frames of a probed scene show: the layout grid, the first frame and the still stretches.

``scenes.probe`` calls :func:`before` and :func:`after` around every step and keeps a
:class:`Frame` on each snapshot; the checks below read them (tests/scenes/test_scenes.py runs them
for every scene, without rendering).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from manim import Animation, Mobject, VMobject, Wait, config

from scenes.kit import layout
from scenes.kit.motion import flattened

Box = tuple[float, float, float, float]  # left, bottom, right, top

STILL = 0.5  # a hold longer than this counts as a still stretch
MAX_STILL = 10.0  # seconds: no clip holds one frame longer (about two sentences over one unchanged picture)
MIN_FIRST_CONTENT = 0.01  # share of the first frame's pixels that differ from the background
MIN_FIRST_FIGURE = 0.004  # ... of them not the title's: a title alone is not a first frame worth showing
MIN_FIGURE_SHARE = 0.2  # of the frame's area, for the figure at its largest
MIN_FILL = 0.5  # of the content area, covered by the figure's box for at least half of the clip's running time
MIN_FIGURE_REACH = 0.6  # of the safe width and of the content area's height, for the figure at its widest and tallest
BACKGROUND_TOLERANCE = 12  # of 255: a pixel this close to the background is background
TOLERANCE = 0.02  # scene units


@dataclass
class Frame:
    """The screen after one probed step."""

    start: float  # scene time when the step began
    end: float  # ... and when it ended
    still: bool  # a plain hold: nothing on screen changes
    figure: Box | None  # everything visible but the title, as one box
    opening: tuple[float, float] | None = None  # on the first step that takes time: content shares at its start
    updating: tuple[str, ...] = ()  # on-screen mobjects with updaters: manim redraws them and all after them
    flashes: tuple[str, ...] = ()  # removing animations of mobjects not on screen: manim shows them again first


def _visible(mobject: Mobject) -> list[Mobject]:
    """The members of ``mobject``'s family that draw something."""
    return [
        m
        for m in mobject.get_family()
        if isinstance(m, VMobject)  # not a ValueTracker, whose points hold its value
        and m.has_points()
        and (m.get_fill_opacity() > 0.01 or m.get_stroke_opacity() > 0.01 and m.get_stroke_width() > 0)
    ]


def _leaves(scene: Any) -> list[Mobject]:
    """Every visible mobject with points on screen, but the scene's title."""
    title_mobject = getattr(scene, "title", None)
    title = {id(m) for m in title_mobject.get_family()} if title_mobject is not None else set()
    return [m for top in scene.mobjects for m in _visible(top) if id(m) not in title]


def _box(mobjects: Sequence[Mobject]) -> Box | None:
    if not mobjects:
        return None
    points = np.concatenate([m.points for m in mobjects])
    (left, bottom), (right, top) = points[:, :2].min(axis=0), points[:, :2].max(axis=0)
    return float(left), float(bottom), float(right), float(top)


def content_share(scene: Any, mobjects: Sequence[Mobject]) -> float:
    """Share of the pixels of a frame of ``mobjects`` that are not background (drawn, even in a dry run)."""
    camera = scene.renderer.camera
    camera.reset()
    camera.capture_mobjects(mobjects)
    pixels = camera.pixel_array[:, :, :3].astype(int)
    background = np.array(camera.background_color.to_int_rgb())
    return float((np.abs(pixels - background).max(axis=2) > BACKGROUND_TOLERANCE).mean())


def before(scene: Any) -> tuple[float, float] | None:
    """Before a step, while no time has passed (the first frame, if the step takes time): the share of content
    pixels, and that share without the title."""
    if scene.time:
        return None
    title = getattr(scene, "title", None)
    return content_share(scene, scene.mobjects), content_share(scene, [m for m in scene.mobjects if m is not title])


def flashes(scene: Any, args: Sequence[Any]) -> tuple[str, ...]:
    """Before a play: its removing animations (FadeOut, Uncreate…) of visible parts that are no longer on
    screen. manim adds such a mobject back for the animation, so what was gone flashes up and fades again."""
    on_screen = {id(m) for m in scene.get_mobject_family_members()}
    found = []
    for animation in (a for a in flattened(args) if isinstance(a, Animation)):
        gone = [m for m in _visible(animation.mobject) if id(m) not in on_screen]
        if animation.remover and gone:
            found.append(f"{type(animation).__name__} of {len(gone)} absent {type(gone[0]).__name__}")
    return tuple(found)


def after(
    scene: Any, call: str, args: Sequence[Any], start: float, first: tuple[float, float] | None, flashed=()
) -> Frame:
    """After a step: its span, whether it held still, and where things are."""
    still = call == "play" and all(isinstance(a, Wait) for a in args) and not scene.should_update_mobjects()
    opening = first if start == 0 and scene.time > 0 else None
    updating = tuple(type(m).__name__ for m in scene.get_mobject_family_members() if m.updaters)
    return Frame(start, scene.time, still, _box(_leaves(scene)), opening, updating, tuple(flashed))


# --- checks ----------------------------------------------------------------------------


def plays(frames: Sequence[Frame | None]) -> list[Frame]:
    """The frames of the play steps, in order (a wait is also recorded through the play it makes)."""
    return [f for f in frames if f is not None]


def stills(frames: Sequence[Frame]) -> list[float]:
    """The length of every still stretch: consecutive holds merged."""
    out, run = [], 0.0
    for f in frames:
        if f.still:
            run += f.end - f.start
        elif f.end > f.start:
            out.append(run)
            run = 0.0
    return [s for s in [*out, run] if s > 0]


def still_summary(frames: Sequence[Frame]) -> tuple[float, float, float]:
    """Longest still, the share of the running time in stills longer than :data:`STILL`, and the duration."""
    lengths, duration = stills(frames), max((f.end for f in frames), default=0.0)
    long = sum(s for s in lengths if s > STILL)
    return max(lengths, default=0.0), (long / duration if duration else 0.0), duration


def motion_problems(frames: Sequence[Frame]) -> list[str]:
    """Holds are real now (nothing decorative moves), and a viewer needs them to read: only an unchanged
    picture under more than about two sentences is a problem."""
    longest, _, _ = still_summary(frames)
    return [f"a still stretch of {longest:.1f} s (at most {MAX_STILL:g} s)"] if longest > MAX_STILL else []


def first_frame_problems(frames: Sequence[Frame]) -> list[str]:
    """The first frame must show the title and the figure, not an empty background."""
    first = next((f.opening for f in frames if f.opening is not None), None)
    if first is None:
        return ["no step takes time: the clip has no first frame"]
    share, figure = first
    problems = []
    if share < MIN_FIRST_CONTENT:
        problems.append(f"the first frame is {share:.1%} content (at least {MIN_FIRST_CONTENT:.0%})")
    if figure < MIN_FIRST_FIGURE:
        problems.append(f"the first frame shows {figure:.1%} besides the title (at least {MIN_FIRST_FIGURE:.1%})")
    return problems


def grid_problems(frames: Sequence[Frame]) -> list[str]:
    """The figure inside the safe area and, at its largest, a fair share of the frame; the subtitle band clear."""
    edge_x, edge_y = config.frame_width / 2 - layout.SAFE_MARGIN, config.frame_height / 2 - layout.SAFE_MARGIN
    boxes = [f.figure for f in frames if f.figure is not None]
    problems = []
    if wide := next((b for b in boxes if b[0] < -edge_x - TOLERANCE or b[2] > edge_x + TOLERANCE), None):
        problems.append(f"the figure {_rounded(wide)} leaves the safe area at the side")
    if high := next((b for b in boxes if b[3] > edge_y + TOLERANCE), None):
        problems.append(f"the figure {_rounded(high)} reaches into the title's margin")
    if low := next((b for b in boxes if b[1] < layout.SUBTITLE_TOP - TOLERANCE), None):
        problems.append(f"the figure {_rounded(low)} reaches below y = {layout.SUBTITLE_TOP}, into the subtitle band")
    area = config.frame_width * config.frame_height
    largest = max(((b[2] - b[0]) * (b[3] - b[1]) for b in boxes), default=0.0) / area
    if largest < MIN_FIGURE_SHARE:
        problems.append(f"the figure fills at most {largest:.0%} of the frame (at least {MIN_FIGURE_SHARE:.0%})")
    return problems + reach_problems(boxes)


def fill_over_time(frames: Sequence[Frame]) -> float:
    """The share of the content area (safe width, title to subtitle band) that the figure's box covers,
    as a median over the clip's running time: what a viewer sees most of the time, not at the widest moment."""
    area = (config.frame_width - 2 * layout.SAFE_MARGIN) * (layout.TOP - layout.SUBTITLE_TOP)
    spans = [(f.end - f.start, (b[2] - b[0]) * (b[3] - b[1]) / area if (b := f.figure) else 0.0) for f in frames]
    spans = sorted((share, time) for time, share in spans if time > 0)
    total, elapsed = sum(t for _, t in spans), 0.0
    for share, time in spans:
        elapsed += time
        if elapsed >= total / 2:
            return min(share, 1.0)
    return 0.0


def fill_problems(frames: Sequence[Frame]) -> list[str]:
    """The figure fills at least half the content area for most of the clip, not only at its widest moment."""
    share = fill_over_time(frames)
    if share >= MIN_FILL:
        return []
    return [f"half the time, the figure fills {share:.0%} of the content area or less (at least {MIN_FILL:.0%})"]


def reach_problems(boxes: Sequence[Box]) -> list[str]:
    """Small content in a large frame: the figure, at its widest and at its tallest, must reach across
    most of the safe width and down most of the content area (title to subtitle band)."""
    width = max((b[2] - b[0] for b in boxes), default=0.0) / (config.frame_width - 2 * layout.SAFE_MARGIN)
    height = max((b[3] - b[1] for b in boxes), default=0.0) / (layout.TOP - layout.SUBTITLE_TOP)
    return [
        f"the figure spans at most {share:.0%} of the {extent} (at least {MIN_FIGURE_REACH:.0%})"
        for share, extent in ((width, "safe width"), (height, "content area's height"))
        if share < MIN_FIGURE_REACH
    ]


def _rounded(box: Box) -> tuple[float, ...]:
    return tuple(round(v, 2) for v in box)


def flash_problems(frames: Sequence[Frame]) -> list[str]:
    """Nothing already gone is faded out again (it would flash up for the fade)."""
    return [f"{what} at {f.start:.1f} s" for f in frames for what in f.flashes]


def redraw_problems(frames: Sequence[Frame]) -> list[str]:
    """A mobject left with an updater keeps itself and everything drawn after it out of manim's static
    background: every later frame, holds included, is drawn in full. Scenes move things with animations."""
    return sorted({f"{name} keeps an updater after {f.start:.1f} s" for f in frames for name in f.updating[:1]})
