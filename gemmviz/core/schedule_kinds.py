"""The kinds of animated schedule, as a registry keyed by the variant registry's `schedule_kind`: how a kind's
schedule of one thread block is made, its launch grid and highlightable threads, the size it is legible at and
the kinds of step it plays. No Qt: `core/schedule.py` answers for every kind through it, and each kind's
drawing is registered under the same name in `gemmviz/ui/tiling/render.py`'s registry.

A kind lives in a module of its own, `gemmviz/core/schedule_NAME.py`, that calls `register(ScheduleKind(...))`
when imported; `schedule_kind(NAME)` imports it the first time a variant names it (the shipped naive, tiled
and block-tiling kinds are registered by core/schedule.py itself).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.schedule_types import Schedule

Block = tuple[int, int]
Grid = tuple[tuple[int, int], tuple[int, int]]  # (block rows, block columns), (thread rows, thread columns)


@dataclass(frozen=True)
class ScheduleKind:
    name: str
    step_kinds: tuple[str, ...]  # in order; the kernel has one `// gemmviz:step KIND` anchor for each
    build: Callable[[str, Problem, int | None, Block], Schedule]  # (variant, problem, tile, block) -> its steps
    grid: Callable[[str, Problem, int | None], Grid]  # the launch grid and the threads a view can highlight
    legible: Callable[[str, int | None], Problem]  # a size whose animation reads from the back of a room
    glides: tuple[str, ...] = ()  # the kinds of step whose tiles glide into shared memory when stepped onto
    shared_memory: bool = True  # False: the kernel reads global memory only (its shared tiles stay empty)


SCHEDULE_KINDS: dict[str, ScheduleKind] = {}


def register(kind: ScheduleKind) -> ScheduleKind:
    if kind.name in SCHEDULE_KINDS:
        raise ValueError(f"schedule kind {kind.name!r} is registered twice")
    SCHEDULE_KINDS[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    SCHEDULE_KINDS.pop(name, None)


def schedule_kind(name: str) -> ScheduleKind:
    """The registered kind `name`, its module (core/schedule_NAME.py) imported on first use."""
    module = f"gemmviz.core.schedule_{name}"
    if name not in SCHEDULE_KINDS:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
    if name not in SCHEDULE_KINDS:
        raise ProblemError(f"no schedule kind {name!r} is registered (core/schedule_kinds.py)")
    return SCHEDULE_KINDS[name]
