"""The schedule one thread block executes: the steps the animation plays and the counters it shows.

Which schedule a kernel runs comes from the variant registry (`schedule_kind`, `schedule_param`), the kind
from the registry of schedule kinds (core/schedule_kinds.py); which line of its source each kind of step is,
from the kernel's own `// gemmviz:step <kind>` anchors. The naive, tiled and block-tiling kinds are made
here, the Hopper kernel's in core/schedule_hopper.py. The same arithmetic as `model.py`, walked step by step:
summed over every block, the counters equal the closed-form traffic model (tests check this for many sizes,
ragged edges included).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from gemmviz.core.hopper_model import WGMMA_BK, wgmma_bn, wgmma_tiles
from gemmviz.core.model import ceil_div
from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.schedule_hopper import HOPPER_KINDS, hopper_schedule
from gemmviz.core.schedule_kinds import SCHEDULE_KINDS, Block, Grid, ScheduleKind, register, schedule_kind
from gemmviz.core.schedule_types import Counters, Region, Schedule, Step
from gemmviz.core.variants import VARIANTS, Variant

__all__ = ["Counters", "Region", "Schedule", "Step", "block_schedule", "grid_totals", "reuse_factor"]


def animated_variants() -> dict[str, Variant]:
    """The variants that have an animated schedule, in registry order."""
    return {name: v for name, v in VARIANTS.items() if v.schedule_kind}


def _clip(r0: int, r1: int, c0: int, c1: int, rows: int, cols: int) -> Region:
    return Region(min(r0, rows), min(r1, rows), min(c0, cols), min(c1, cols))


def _variant(variant: str) -> Variant:
    animated = animated_variants()
    if variant not in animated:
        raise ProblemError(f"no animation for {variant}; animated variants: {', '.join(animated)}")
    return animated[variant]


def kind_of(variant: str) -> ScheduleKind:
    """The registered schedule kind of an animated variant (core/schedule_kinds.py)."""
    return schedule_kind(_variant(variant).schedule_kind)


class _StepKinds(Mapping):
    """The kinds of step each registered schedule plays (the kernels' `// gemmviz:step KIND` anchors)."""

    def __getitem__(self, name: str) -> tuple[str, ...]:
        return schedule_kind(name).step_kinds

    def __iter__(self):
        return iter(SCHEDULE_KINDS)

    def __len__(self) -> int:
        return len(SCHEDULE_KINDS)


STEP_KINDS: Mapping[str, tuple[str, ...]] = _StepKinds()


def check_animation_input(variant: str, problem: Problem, tile: int | None) -> None:
    v = _variant(variant)
    if v.schedule_param:
        choices = v.param_choices[v.schedule_param]
        if tile not in choices:
            raise ProblemError(
                f"{variant}: {v.schedule_param} {tile} is not supported (choose {', '.join(map(str, choices))})"
            )


def grid_and_threads(variant: str, problem: Problem, tile: int | None) -> tuple[tuple[int, int], tuple[int, int]]:
    """(block rows, block columns) of the launch grid and (rows, columns) of the threads the animation can
    highlight in a block: what the view's block and thread choices range over, without building a schedule."""
    return kind_of(variant).grid(variant, problem, tile)


def legible_problem(variant: str, tile: int | None) -> Problem:
    """A size whose animation reads from the back of a room, whatever size is benchmarked."""
    return kind_of(variant).legible(variant, tile)


MAX_STEPS = 20_000  # an animation longer than this is no longer something to watch


def block_schedule(
    variant: str, problem: Problem, tile: int | None = None, block: tuple[int, int] = (0, 0)
) -> Schedule:
    """The ordered steps of thread block (by, bx) of the variant's kernel."""
    return kind_of(variant).build(variant, problem, tile, block)


# ---- the block-tiled kinds: naive, tiled, block tiling -----------------------------------------------------
Shape = tuple[Problem, int, int, int, int, int]  # the problem the kernel runs, BM, BN, BK, TM, TN
ShapeOf = Callable[[str, Problem, int | None], Shape]


def _square_shape(variant: str, problem: Problem, tile: int | None) -> Shape:
    """A square tile (or block) of `tile`, one element of C per thread."""
    check_animation_input(variant, problem, tile)
    return problem, tile, tile, tile, 1, 1


def _config_shape(variant: str, problem: Problem, tile: int | None) -> Shape:
    """The block tile of the variant's configuration, on the zero-padded problem the kernel runs."""
    check_animation_input(variant, problem, tile)
    v = VARIANTS[variant]
    c = v.config
    return v.run_problem(problem), c["BM"], c["BN"], c["BK"], c["TM"], c["TN"]


def blocked_kind(name: str, step_kinds: tuple[str, ...], steps_of: Callable[[Schedule], None], shape_of: ShapeOf,
                 **options) -> ScheduleKind:  # fmt: skip
    """A kind whose block walks K in slices of BK, one step of each of `step_kinds` per slice but the last kind
    (the store), which comes once; `steps_of` appends the steps to the schedule."""

    def grid(variant: str, problem: Problem, tile: int | None) -> Grid:
        rp, bm, bn, _bk, tm, tn = shape_of(variant, problem, tile)
        return (ceil_div(rp.m, bm), ceil_div(rp.n, bn)), (bm // tm, bn // tn)

    def legible(variant: str, tile: int | None) -> Problem:
        """A grid of 4 × 4 blocks (2 × 2 where a block is larger than 32 × 32) and 4 steps along K."""
        _rp, bm, bn, bk, _tm, _tn = shape_of(variant, Problem(1, 1, 1), tile)
        blocks = 4 if max(bm, bn) <= 32 else 2
        return Problem(blocks * bm, blocks * bn, 4 * bk)

    def build(variant: str, problem: Problem, tile: int | None, block: Block) -> Schedule:
        rp, bm, bn, bk, tm, tn = shape_of(variant, problem, tile)
        steps = ceil_div(rp.k, bk) * (len(step_kinds) - 1) + 1  # + the final store
        if steps > MAX_STEPS:
            raise ProblemError(
                f"K = {problem.k} gives {steps:,} animation steps per block; the animation shows at most "
                f"{MAX_STEPS:,} (K up to {(MAX_STEPS - 1) // 4 * bk:,} with this tile). The model (gemmviz model) has no limit."
            )
        sched = Schedule(variant, problem, rp, bm, bn, bk, tm, tn, block)
        gy, gx = sched.grid
        if not (0 <= block[0] < gy and 0 <= block[1] < gx):
            raise ProblemError(f"block ({block[0]}, {block[1]}) is outside the grid of {gy}×{gx} blocks")
        steps_of(sched)
        return sched

    return ScheduleKind(name, step_kinds, build, grid, legible, **options)


class _Builder:
    def __init__(self, s: Schedule):
        self.s = s
        self.total = Counters()

    def add(self, kind, text, k_tile, delta, k_done, a=None, b=None, c=None) -> None:
        self.total = self.total + delta
        self.s.steps.append(Step(kind, text, k_tile, a, b, c, k_done, delta, self.total))


def _tiled_steps(s: Schedule) -> None:
    p, t = s.run_problem, s.bm
    r0, r1 = s.rows
    c0, c1 = s.cols
    threads = t * t
    steps = ceil_div(p.k, t)
    out = _Builder(s)
    for kt in range(steps):
        k0, k1 = kt * t, min((kt + 1) * t, p.k)
        a = _clip(r0, r0 + t, k0, k0 + t, p.m, p.k)
        b = _clip(k0, k0 + t, c0, c0 + t, p.k, p.n)
        loads = a.count + b.count
        padded = 2 * threads - loads
        pad_note = f", {padded} zero-padded" if padded else ""
        out.add("load", f"k-tile {kt + 1}/{steps}: load A[{r0}:{r1}, {k0}:{k1}] and B[{k0}:{k1}, {c0}:{c1}] "
                f"into shared memory ({loads} global loads{pad_note})", kt,
                Counters(global_loads=loads, shared_stores=2 * threads), k0, a, b)  # fmt: skip
        out.add("sync", "__syncthreads(): both tiles are in shared memory", kt, Counters(), k0)
        out.add("compute", f"each of {threads} threads does {t} multiply-adds from shared memory "
                f"(k = {k0}…{k0 + t - 1})", kt, Counters(shared_loads=2 * t * threads, fmas=t * threads), k1)  # fmt: skip
        out.add("sync2", "__syncthreads(): done with these tiles before they are overwritten", kt, Counters(), k1)
    c = Region(r0, r1, c0, c1)
    out.add("store", f"store the C tile [{r0}:{r1}, {c0}:{c1}] ({c.count} global stores)", -1,
            Counters(global_stores=c.count), p.k, c=c)  # fmt: skip


def _blocktile2d_steps(s: Schedule) -> None:
    """2D block tiling: BM x BK and BK x BN tiles in shared memory; each thread keeps a TM x TN tile of C
    in registers and, for every k, reads TM values of A and TN of B from shared memory into registers."""
    p = s.run_problem
    r0, r1 = s.rows
    c0, c1 = s.cols
    ty, tx = s.thread_dims
    threads = ty * tx
    steps = p.k // s.bk
    out = _Builder(s)
    pad = "" if p == s.problem else f" (the kernel runs the zero-padded {p.m}×{p.n}×{p.k})"
    for kt in range(steps):
        k0, k1 = kt * s.bk, (kt + 1) * s.bk
        a, b = Region(r0, r1, k0, k1), Region(k0, k1, c0, c1)
        loads = a.count + b.count
        out.add("load", f"k-tile {kt + 1}/{steps}: load A[{r0}:{r1}, {k0}:{k1}] ({s.bm}×{s.bk}) and B[{k0}:{k1}, {c0}:{c1}] "
                f"({s.bk}×{s.bn}) into shared memory: {loads // threads} values per thread{pad}", kt,
                Counters(global_loads=loads, shared_stores=loads), k0, a, b)  # fmt: skip
        out.add("sync", "__syncthreads(): both tiles are in shared memory", kt, Counters(), k0)
        reads = threads * s.bk * (s.tm + s.tn)
        fmas = threads * s.bk * s.tm * s.tn
        out.add("compute", f"for each of {s.bk} k: every thread copies {s.tm} values of A and {s.tn} of B from shared "
                f"memory into registers and does {s.tm}×{s.tn} = {s.tm * s.tn} multiply-adds from registers", kt,
                Counters(shared_loads=reads, fmas=fmas), k1)  # fmt: skip
        out.add("sync2", "__syncthreads(): done with these tiles before they are overwritten", kt, Counters(), k1)
    c = Region(r0, r1, c0, c1)
    out.add("store", f"each thread stores its {s.tm}×{s.tn} register tile: C[{r0}:{r1}, {c0}:{c1}] "
            f"({c.count} global stores)", -1, Counters(global_stores=c.count), p.k, c=c)  # fmt: skip


def _naive_steps(s: Schedule) -> None:
    """The naive kernel has no shared memory: every thread reads its row of A and column of B from
    global memory. Steps group k in chunks of the block edge so the two kernels line up."""
    p, t = s.run_problem, s.bm
    r0, r1 = s.rows
    c0, c1 = s.cols
    active = (r1 - r0) * (c1 - c0)  # threads outside the matrix return at once
    out = _Builder(s)
    chunks = ceil_div(p.k, t)
    for kt in range(chunks):
        k0, k1 = kt * t, min((kt + 1) * t, p.k)
        width = k1 - k0
        out.add("read", f"k {k0}…{k1 - 1}: each of {active} threads reads {width} of its A row and {width} of its "
                f"B column from global memory ({2 * width * active} loads, no reuse)", kt,
                Counters(global_loads=2 * width * active, fmas=width * active), k1,
                Region(r0, r1, k0, k1), Region(k0, k1, c0, c1))  # fmt: skip
    c = Region(r0, r1, c0, c1)
    out.add("store", f"store C[{r0}:{r1}, {c0}:{c1}] ({c.count} global stores)", -1,
            Counters(global_stores=c.count), p.k, c=c)  # fmt: skip


def grid_totals(variant: str, problem: Problem, tile: int | None = None) -> Counters:
    """Counters summed over every block of the grid, by walking each block's schedule."""
    first = block_schedule(variant, problem, tile)
    gy, gx = first.grid
    total = Counters()
    for by in range(gy):
        for bx in range(gx):
            total = total + block_schedule(variant, problem, tile, (by, bx)).totals
    return total


def reuse_factor(c: Counters) -> float:
    """How many times each value loaded from global memory is used by a multiply-add (2 operands each)."""
    return 2 * c.fmas / c.global_loads if c.global_loads else 0.0


# ---- the Hopper kernel's kind (its schedule: core/schedule_hopper.py) -----------------------------------------
def _hopper_grid(variant: str, problem: Problem, _tile: int | None) -> Grid:
    """Its consumers are warpgroups issuing wgmma together: no thread of its own is highlighted."""
    v = VARIANTS[variant]
    return wgmma_tiles(v.run_problem(problem, v.config), v.config), (1, 1)


def _hopper_legible(variant: str, _tile: int | None) -> Problem:
    """2 block rows, a square C (whole clusters along N) and twice its ring of stages along K, so that the
    ring fills, runs and drains."""
    c = VARIANTS[variant].config
    m, cluster_n = 2 * c["BM"], wgmma_bn(c) * c["CLUSTER"]
    return Problem(m, -(-m // cluster_n) * cluster_n, 2 * c["STAGES"] * WGMMA_BK)


TILED_STEPS = ("load", "sync", "compute", "sync2", "store")
for _kind in (
    blocked_kind("naive", ("read", "store"), _naive_steps, _square_shape, shared_memory=False),
    blocked_kind("tiled", TILED_STEPS, _tiled_steps, _square_shape, glides=("load",)),
    blocked_kind("blocktile2d", TILED_STEPS, _blocktile2d_steps, _config_shape, glides=("load",)),
    # producer and consumers interleaved (core/schedule_hopper.py), not per K-slice
    ScheduleKind("hopper", HOPPER_KINDS, lambda v, p, _t, b: hopper_schedule(v, p, b), _hopper_grid, _hopper_legible),
):
    register(_kind)
