"""How a lesson scene opens on its figure and gives time to read a new one.

:class:`~scenes.kit.base.LessonScene` uses these helpers: the animations that build the opening
figure are shown at once (so the first frame, the thumbnail and the slide posters show content), and
a new figure earns a quiet hold after the sentence that brought it in.
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
    FadeOut,
    GrowFromCenter,
    GrowFromPoint,
    LaggedStart,
    Mobject,
    Transform,
)

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


def introduces_figure(args: Iterable[Any], on_screen: Sequence[Mobject]) -> bool:
    """Whether a ``play`` brings in a figure the viewer needs time to read: a mobject marked
    ``reading_hold`` (a matrix, heatmap, chart, plane, map, or a part such as a matrix's frame) that
    was not on screen before."""
    shown = {id(m) for top in on_screen for m in top.get_family()}
    for mob in _animated(args):
        if id(mob) not in shown and any(getattr(m, "reading_hold", False) for m in mob.get_family()):
            return True
    return False


def flattened(args: Iterable[Any]) -> list[Any]:
    """The arguments of a ``play`` call with every animation group opened: the single animations (and builders)."""
    return [leaf for arg in args for leaf in (flattened(arg.animations) if isinstance(arg, AnimationGroup) else [arg])]


def _animated(args: Iterable[Any]) -> list[Mobject]:
    """The mobjects a ``play`` call animates (a transform's target too)."""
    out: list[Mobject] = []
    for arg in flattened(args):
        if isinstance(arg, Transform):
            out += [arg.mobject, arg.target_mobject]
        elif isinstance(getattr(arg, "mobject", None), Mobject):
            out.append(arg.mobject)
    return out


HANDOVER = 0.8  # share of the outgoing fade done before the next picture starts to come in


def give_way(leaving: Mobject, *arriving: Animation) -> Animation:
    """The picture on screen fades out and the next comes in as it goes: never an empty frame between them, and
    never both at full strength (text printed on text)."""
    return LaggedStart(FadeOut(leaving), AnimationGroup(*arriving), lag_ratio=HANDOVER)
