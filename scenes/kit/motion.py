"""How a lesson scene opens on its figure and keeps moving while it speaks.

:class:`~scenes.kit.base.LessonScene` uses these helpers: the animations that build the opening
figure are shown at once (so the first frame, the thumbnail and the slide posters show content), and
a hold during a sentence traces a light around what the sentence is about instead of freezing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from manim import (
    Animation,
    AnimationGroup,
    Create,
    DrawBorderThenFill,
    FadeIn,
    Group,
    GrowFromCenter,
    GrowFromPoint,
    Mobject,
    ShowPassingFlash,
    Succession,
    SurroundingRectangle,
    Transform,
    Wait,
    config,
)

from . import palette

LAP = 2.5  # seconds for the highlight to travel once around the focus
TRAIL = 0.35  # share of the outline lit at once
HIGHLIGHT_WIDTH = 6.0  # stroke width: thick enough to read at 480p
LIGHT_Z = 100  # the highlight's layer, above any a scene uses (the meaning map's labels: 1)

_BUILDERS = (FadeIn, Create, DrawBorderThenFill, GrowFromPoint, GrowFromCenter)


def builds(animation: Any) -> bool:
    """True for an animation that only brings a mobject in (a fade, a drawing, a growth), or a group of them."""
    if isinstance(animation, AnimationGroup):
        return all(builds(a) for a in animation.animations)
    return isinstance(animation, _BUILDERS)


def built(animation: Animation) -> list[Mobject]:
    """The mobjects a building animation leaves on screen, in their final state."""
    if isinstance(animation, AnimationGroup):
        return [m for a in animation.animations for m in built(a)]
    return [animation.mobject]  # type: ignore[list-item]  # Cairo mobjects here, never OpenGL ones


def moved(args: Iterable[Any]) -> list[Mobject]:
    """The mobjects a ``play`` call leaves changed on screen (not waits, not what it removes)."""
    out: list[Mobject] = []
    for arg in args:
        if isinstance(arg, AnimationGroup):
            out += moved(arg.animations)
        elif isinstance(arg, Wait) or getattr(arg, "remover", False):
            continue
        elif isinstance(arg, Transform) and arg.replace_mobject_with_target_in_scene:
            out.append(arg.target_mobject)
        elif isinstance(getattr(arg, "mobject", None), Mobject):
            out.append(arg.mobject)
    return out


def highlight(focus: Sequence[Mobject], seconds: float) -> Animation:
    """A light that travels around ``focus`` for ``seconds``: once every :data:`LAP` seconds or so."""
    frame = SurroundingRectangle(Group(*focus), buff=0.12, color=palette.MUTED, stroke_width=HIGHLIGHT_WIDTH)
    laps = max(1, round(seconds / LAP))
    # the light has gone by the last frame (a flash's last frame keeps a sliver, and thumbnails are last frames)
    dark = min(1 / config.frame_rate, seconds / 2)
    lap = (seconds - dark) / laps
    # on top of every layer: manim redraws, in every frame, each mobject that sorts after a moving one
    frame.set_z_index(LIGHT_Z)
    flashes = [ShowPassingFlash(frame.copy(), time_width=TRAIL, run_time=lap) for _ in range(laps)]
    light = Succession(*flashes, Wait(run_time=dark))
    light.mobject.set_z_index(LIGHT_Z)  # the group of the pause at the end, added to the scene too
    return light
