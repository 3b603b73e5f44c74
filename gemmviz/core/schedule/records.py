"""The records of an animation schedule (counters, regions, steps, the schedule of one block), shared by
`schedule.py` and the kinds (`kind_*.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from gemmviz.core.kernels.model import ceil_div
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.problem import Problem


@dataclass(frozen=True)
class Counters:
    global_loads: int = 0
    shared_loads: int = 0
    shared_stores: int = 0
    fmas: int = 0
    global_stores: int = 0
    barrier_waits: int = 0  # mbarrier waits (Hopper kernel): by the producer thread and by each consumer warpgroup

    def __add__(self, other: Counters) -> Counters:
        return Counters(*(a + b for a, b in zip(self.astuple(), other.astuple(), strict=True)))

    def astuple(self) -> tuple[int, ...]:
        return (
            self.global_loads,
            self.shared_loads,
            self.shared_stores,
            self.fmas,
            self.global_stores,
            self.barrier_waits,
        )

    @property
    def global_bytes(self) -> int:
        return 4 * (self.global_loads + self.global_stores)


@dataclass(frozen=True)
class Region:
    """Rows [r0, r1) and columns [c0, c1) of a matrix (clipped to the matrix; may be empty)."""

    r0: int
    r1: int
    c0: int
    c1: int

    @property
    def count(self) -> int:
        return max(0, self.r1 - self.r0) * max(0, self.c1 - self.c0)


class WrongWrite(NamedTuple):
    """A store a bounds check lets through for a thread outside C (the seed's `row < M || col < N`): the
    thread's (row, col) and where in C's row-major array it writes, row * N + col (at or past M * N: past C's end)."""

    row: int
    col: int
    offset: int


@dataclass(frozen=True)
class Step:
    kind: str  # "load", "sync", "compute", "sync2", "store" (tiled kernels); "read", "store" (naive)
    text: str  # one line for the UI
    k_tile: int  # which slice of K this step belongs to (-1 for the final store)
    a: Region | None  # the part of A touched from global memory (load/read), else None
    b: Region | None
    c: Region | None  # the part of C written (store)
    k_done: int  # how many values of k the partial sums include after this step
    delta: Counters
    total: Counters  # cumulative for this block, including this step
    # the store's writes of threads outside C (bounds = "or"), row by row; keyword-only: a subclass's fields
    # (HopperStep's) stay positional after `total`
    wrong: tuple[WrongWrite, ...] = field(default=(), kw_only=True)
    # `text` as a message (core/messages.py), so a view can say it in its reader's language; None: text as it is
    caption: dict | None = field(default=None, kw_only=True, compare=False)


@dataclass
class Schedule:
    variant: str
    problem: Problem  # as asked
    run_problem: Problem  # what the kernel runs (zero-padded for kernels that need multiples)
    bm: int  # block tile: rows of C
    bn: int  # columns of C
    bk: int  # K-slice per step
    tm: int  # results per thread: rows
    tn: int  # columns
    block: tuple[int, int]  # (block_y, block_x)
    steps: list[Step] = field(default_factory=list)
    # the store's bounds check: "and" (row < M && col < N), "or" (the seed's bug); keyword-only, as Step.wrong
    bounds: str = field(default="and", kw_only=True)

    @property
    def kind(self) -> str:
        kind = VARIANTS[self.variant].schedule_kind
        if kind is None:  # a schedule is built only for an animated variant
            raise ValueError(f"{self.variant} names no schedule kind")
        return kind

    @property
    def tile(self) -> int:
        """The tile (tiled) or block (naive) edge; the block tile's rows for block tiling."""
        return self.bm

    @property
    def grid(self) -> tuple[int, int]:
        return ceil_div(self.run_problem.m, self.bm), ceil_div(self.run_problem.n, self.bn)

    @property
    def thread_dims(self) -> tuple[int, int]:
        return self.bm // self.tm, self.bn // self.tn

    @property
    def rows(self) -> tuple[int, int]:
        by = self.block[0]
        return by * self.bm, min((by + 1) * self.bm, self.run_problem.m)

    @property
    def cols(self) -> tuple[int, int]:
        bx = self.block[1]
        return bx * self.bn, min((bx + 1) * self.bn, self.run_problem.n)

    @property
    def totals(self) -> Counters:
        return self.steps[-1].total if self.steps else Counters()
