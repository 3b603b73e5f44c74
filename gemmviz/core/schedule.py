"""The schedule one thread block executes: the steps the animation plays and the counters it shows.

The same arithmetic as `model.py`, walked step by step: summed over every block, the counters equal
the closed-form traffic model (tests check this for many sizes, including ragged edges).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gemmviz.core.model import ceil_div
from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.variants import VARIANTS

# Variants that have an animated schedule, and the parameter that sets their tile / block edge.
ANIMATED = {"gpu-tiled": "tile", "gpu-naive": "block"}
# A line of the kernel source that each kind of step corresponds to (searched as a substring).
SOURCE_MARKS = {
    "gpu-tiled": {"load": "load A tile", "sync": "sync: tiles ready", "compute": "compute from shared",
                  "sync2": "sync: tiles consumed", "store": "store C"},
    "gpu-naive": {"read": "2 global loads per FMA", "store": "1 global store"},
}  # fmt: skip


@dataclass(frozen=True)
class Counters:
    global_loads: int = 0
    shared_loads: int = 0
    shared_stores: int = 0
    fmas: int = 0
    global_stores: int = 0

    def __add__(self, other: Counters) -> Counters:
        return Counters(*(a + b for a, b in zip(self.astuple(), other.astuple(), strict=True)))

    def astuple(self) -> tuple[int, ...]:
        return (self.global_loads, self.shared_loads, self.shared_stores, self.fmas, self.global_stores)

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


@dataclass(frozen=True)
class Step:
    kind: str  # "load", "sync", "compute", "sync2", "store" (tiled); "read", "store" (naive)
    text: str  # one line for the UI
    k_tile: int  # which slice of K this step belongs to (-1 for the final store)
    a: Region | None  # the part of A touched from global memory (load/read), else None
    b: Region | None
    c: Region | None  # the part of C written (store)
    k_done: int  # how many values of k the partial sums include after this step
    delta: Counters
    total: Counters  # cumulative for this block, including this step


@dataclass
class Schedule:
    variant: str
    problem: Problem
    tile: int  # tile edge (tiled) or block edge (naive)
    block: tuple[int, int]  # (block_y, block_x)
    steps: list[Step] = field(default_factory=list)

    @property
    def grid(self) -> tuple[int, int]:
        return ceil_div(self.problem.m, self.tile), ceil_div(self.problem.n, self.tile)

    @property
    def rows(self) -> tuple[int, int]:
        by = self.block[0]
        return by * self.tile, min((by + 1) * self.tile, self.problem.m)

    @property
    def cols(self) -> tuple[int, int]:
        bx = self.block[1]
        return bx * self.tile, min((bx + 1) * self.tile, self.problem.n)

    @property
    def totals(self) -> Counters:
        return self.steps[-1].total if self.steps else Counters()


def _clip(r0: int, r1: int, c0: int, c1: int, rows: int, cols: int) -> Region:
    return Region(min(r0, rows), min(r1, rows), min(c0, cols), min(c1, cols))


def check_animation_input(variant: str, problem: Problem, tile: int) -> None:
    if variant not in ANIMATED:
        raise ProblemError(f"no animation for {variant}; animated variants: {', '.join(ANIMATED)}")
    key = ANIMATED[variant]
    choices = VARIANTS[variant].param_choices[key]
    if tile not in choices:
        raise ProblemError(f"{variant}: {key} {tile} is not supported (choose {', '.join(map(str, choices))})")


def block_schedule(variant: str, problem: Problem, tile: int, block: tuple[int, int] = (0, 0)) -> Schedule:
    """The ordered steps of thread block (by, bx) for the tiled or the naive kernel."""
    check_animation_input(variant, problem, tile)
    sched = Schedule(variant, problem, tile, block)
    gy, gx = sched.grid
    by, bx = block
    if not (0 <= by < gy and 0 <= bx < gx):
        raise ProblemError(f"block ({by}, {bx}) is outside the grid of {gy}×{gx} blocks")
    if variant == "gpu-tiled":
        _tiled_steps(sched)
    else:
        _naive_steps(sched)
    return sched


def _tiled_steps(s: Schedule) -> None:
    p, t = s.problem, s.tile
    r0, r1 = s.rows
    c0, c1 = s.cols
    threads = t * t
    total = Counters()
    steps = ceil_div(p.k, t)

    def add(kind, text, k_tile, delta, k_done, a=None, b=None, c=None):
        nonlocal total
        total = total + delta
        s.steps.append(Step(kind, text, k_tile, a, b, c, k_done, delta, total))

    for kt in range(steps):
        k0, k1 = kt * t, min((kt + 1) * t, p.k)
        a = _clip(r0, r0 + t, k0, k0 + t, p.m, p.k)
        b = _clip(k0, k0 + t, c0, c0 + t, p.k, p.n)
        loads = a.count + b.count
        padded = 2 * threads - loads
        pad_note = f", {padded} zero-padded" if padded else ""
        add("load", f"k-tile {kt + 1}/{steps}: load A[{r0}:{r1}, {k0}:{k1}] and B[{k0}:{k1}, {c0}:{c1}] "
            f"into shared memory ({loads} global loads{pad_note})", kt,
            Counters(global_loads=loads, shared_stores=2 * threads), k0, a, b)  # fmt: skip
        add("sync", "__syncthreads(): both tiles are in shared memory", kt, Counters(), k0)
        add("compute", f"each of {threads} threads does {t} multiply-adds from shared memory "
            f"(k = {k0}…{k0 + t - 1})", kt, Counters(shared_loads=2 * t * threads, fmas=t * threads), k1)  # fmt: skip
        add("sync2", "__syncthreads(): done with these tiles before they are overwritten", kt, Counters(), k1)
    c = Region(r0, r1, c0, c1)
    add("store", f"store the C tile [{r0}:{r1}, {c0}:{c1}] ({c.count} global stores)", -1,
        Counters(global_stores=c.count), p.k, c=c)  # fmt: skip


def _naive_steps(s: Schedule) -> None:
    """The naive kernel has no shared memory: every thread reads its row of A and column of B from
    global memory. Steps group k in chunks of the block edge so the two kernels line up."""
    p, t = s.problem, s.tile
    r0, r1 = s.rows
    c0, c1 = s.cols
    active = (r1 - r0) * (c1 - c0)  # threads outside the matrix return at once
    total = Counters()
    chunks = ceil_div(p.k, t)
    for kt in range(chunks):
        k0, k1 = kt * t, min((kt + 1) * t, p.k)
        width = k1 - k0
        delta = Counters(global_loads=2 * width * active, fmas=width * active)
        total = total + delta
        s.steps.append(Step(
            "read", f"k {k0}…{k1 - 1}: each of {active} threads reads {width} of its A row and {width} of its "
            f"B column from global memory ({2 * width * active} loads, no reuse)", kt,
            Region(r0, r1, k0, k1), Region(k0, k1, c0, c1), None, k1, delta, total,
        ))  # fmt: skip
    c = Region(r0, r1, c0, c1)
    total = total + Counters(global_stores=c.count)
    s.steps.append(Step("store", f"store C[{r0}:{r1}, {c0}:{c1}] ({c.count} global stores)", -1,
                        None, None, c, p.k, Counters(global_stores=c.count), total))  # fmt: skip


def grid_totals(variant: str, problem: Problem, tile: int) -> Counters:
    """Counters summed over every block of the grid, by walking each block's schedule."""
    gy, gx = ceil_div(problem.m, tile), ceil_div(problem.n, tile)
    total = Counters()
    for by in range(gy):
        for bx in range(gx):
            total = total + block_schedule(variant, problem, tile, (by, bx)).totals
    return total


def reuse_factor(c: Counters) -> float:
    """How many times each value loaded from global memory is used by a multiply-add (2 operands each)."""
    return 2 * c.fmas / c.global_loads if c.global_loads else 0.0
