"""The kinds of animated schedule, as a registry keyed by the variant registry's `schedule_kind`: how a kind's
schedule of one thread block is made, its launch grid and highlightable threads, the size it is legible at and
the kinds of step it plays. No Qt: `core/schedule/block.py` answers for every kind through it, and each kind's
drawing is registered under the same name in `gemmviz/ui/tiling/render.py`'s registry.

A kind lives in a module of its own, `gemmviz/core/schedule/kind_NAME.py`, that calls
`register(ScheduleKind(...))` when imported. `schedule_kind(NAME)` and `kind_names()` import every such module
of the package first (the shipped naive, tiled, blocktile2d and hopper kinds are four of them), so a lookup
finds every shipped kind whatever was imported before; the prefix keeps the kinds apart from the package's
other modules (records.py is no kind called "records").
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.registry import Registry, import_prefixed
from gemmviz.core.schedule.records import Schedule

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
    # each thread stores its element of C under a bounds check: build takes bounds = "and" / "or" (schedule.BOUNDS)
    bounds_checked: bool = False


SCHEDULE_KINDS: Registry[str, ScheduleKind] = Registry("schedule kind")


def register(kind: ScheduleKind) -> ScheduleKind:
    return SCHEDULE_KINDS.add(kind)


def unregister(name: str) -> None:
    SCHEDULE_KINDS.remove(name)


MODULE_PREFIX = "kind_"  # gemmviz/core/schedule/kind_NAME.py registers kind NAME


@functools.cache
def load_shipped() -> tuple[str, ...]:
    """Import every `gemmviz/core/schedule/kind_*.py` module once (each registers its kind); their names."""
    import gemmviz.core.schedule

    return import_prefixed(gemmviz.core.schedule, MODULE_PREFIX)


def kind_names() -> tuple[str, ...]:
    """The names of the registered kinds, every shipped one among them."""
    load_shipped()
    return tuple(SCHEDULE_KINDS)


def schedule_kind(name: str) -> ScheduleKind:
    """The registered kind `name` (the shipped kinds loaded first)."""
    load_shipped()
    if name not in SCHEDULE_KINDS:
        raise ProblemError(f"no schedule kind {name!r} is registered (core/schedule/kinds.py)")
    return SCHEDULE_KINDS[name]
