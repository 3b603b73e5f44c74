"""The schedule one thread block executes: the steps the animation plays and the counters it shows.

Which schedule a kernel runs comes from the variant registry (`schedule_kind`, `schedule_param`), the kind
from the registry of schedule kinds (core/schedule/kinds.py); which line of its source each kind of step is,
from the kernel's own `// gemmviz:step <kind>` anchors. Each kind is a module of its own,
core/schedule/kind_NAME.py; the block-tiled ones (naive, tiled, blocktile2d) are made with the helpers here
(`blocked_kind`, `square_shape`, `config_shape`, `StepBuilder`, `tiled_steps`), which a new kind may use too.
The same arithmetic as `model.py`, walked step by step: summed over every block, the counters equal the
closed-form traffic model (tests check this for many sizes, ragged edges included).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from gemmviz.core.kernels.model import ceil_div
from gemmviz.core.kernels.variants import VARIANTS, Variant
from gemmviz.core.messages import define, msg, render
from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.schedule.kinds import Block, Grid, ScheduleKind, kind_names, schedule_kind
from gemmviz.core.schedule.records import Counters, Region, Schedule, Step, WrongWrite

__all__ = [
    "Counters",
    "Region",
    "Schedule",
    "Step",
    "StepBuilder",
    "WrongWrite",
    "block_schedule",
    "blocked_kind",
    "check_bounds",
    "clip",
    "config_shape",
    "grid_totals",
    "reuse_factor",
    "square_shape",
    "store_step",
    "tiled_steps",
    "wrong_writes",
]


def animated_variants() -> dict[str, Variant]:
    """The variants that have an animated schedule, in registry order."""
    return {name: v for name, v in VARIANTS.items() if v.schedule_kind}


def clip(r0: int, r1: int, c0: int, c1: int, rows: int, cols: int) -> Region:
    """Rows r0:r1 and columns c0:c1 cut to a rows × cols matrix (a tile at its edge is partly outside)."""
    return Region(min(r0, rows), min(r1, rows), min(c0, cols), min(c1, cols))


def _variant(variant: str) -> Variant:
    animated = animated_variants()
    if variant not in animated:
        raise ProblemError(f"no animation for {variant}; animated variants: {', '.join(animated)}")
    return animated[variant]


def kind_of(variant: str) -> ScheduleKind:
    """The registered schedule kind of an animated variant (core/schedule/kinds.py)."""
    return _kind(_variant(variant))


def _kind(v: Variant) -> ScheduleKind:
    if not v.schedule_kind:
        raise ProblemError(f"no animation for {v.name}: it names no schedule kind")
    return schedule_kind(v.schedule_kind)


class _StepKinds(Mapping):
    """The kinds of step each registered schedule plays (the kernels' `// gemmviz:step KIND` anchors)."""

    def __getitem__(self, name: str) -> tuple[str, ...]:
        return schedule_kind(name).step_kinds

    def __iter__(self):
        return iter(kind_names())

    def __len__(self) -> int:
        return len(kind_names())


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


BOUNDS = ("and", "or")  # the store's bounds check: row < M && col < N (gemmviz's kernels), row < M || col < N


def check_bounds(variant: str, bounds: str) -> None:
    """A bounds check the variant's animation can show (ProblemError naming the choices otherwise): "or" only
    for a kernel whose threads each store their element of C under a bounds check (the naive and tiled ones)."""
    if bounds not in BOUNDS:
        raise ProblemError(f'bounds must be "and" (row < M && col < N) or "or" (row < M || col < N), got {bounds!r}')
    if bounds != "and" and not kind_of(variant).bounds_checked:
        checked = [name for name, v in animated_variants().items() if _kind(v).bounds_checked]
        raise ProblemError(
            f"{variant}: bounds = {bounds!r} is only for a kernel whose threads each store their element of C "
            f"under a bounds check ({', '.join(checked)})"
        )


def block_schedule(
    variant: str, problem: Problem, tile: int | None = None, block: tuple[int, int] = (0, 0), bounds: str = "and"
) -> Schedule:
    """The ordered steps of thread block (by, bx) of the variant's kernel; `bounds` "or" stores C under the
    seed's `row < M || col < N` (its store step lists the wrong writes)."""
    check_bounds(variant, bounds)
    build = kind_of(variant).build
    if bounds != "and":  # a bounds-checked kind's build takes `bounds` (check_bounds saw to it); others need not
        build_checked: Callable[..., Schedule] = build
        return build_checked(variant, problem, tile, block, bounds=bounds)
    return build(variant, problem, tile, block)


# ---- the block-tiled kinds: naive, tiled, block tiling -----------------------------------------------------
Shape = tuple[Problem, int, int, int, int, int]  # the problem the kernel runs, BM, BN, BK, TM, TN
ShapeOf = Callable[[str, Problem, int | None], Shape]


def square_shape(variant: str, problem: Problem, tile: int | None) -> Shape:
    """A `shape_of` for blocked_kind: a square tile (or block) of edge `tile` (the variant's schedule_param, checked
    against its choices), one element of C per thread, on the problem as given."""
    check_animation_input(variant, problem, tile)
    if tile is None:
        raise ProblemError(f"{variant}: a square schedule needs its tile edge (the variant names no schedule_param)")
    return problem, tile, tile, tile, 1, 1


def config_shape(variant: str, problem: Problem, tile: int | None) -> Shape:
    """A `shape_of` for blocked_kind: the block tile of the variant's configuration (BM, BN, BK, TM, TN), on the
    zero-padded problem the kernel runs."""
    check_animation_input(variant, problem, tile)
    v = VARIANTS[variant]
    c = v.config
    return v.run_problem(problem), c["BM"], c["BN"], c["BK"], c["TM"], c["TN"]


def blocked_kind(
    name: str, step_kinds: tuple[str, ...], steps_of: Callable[[Schedule], None], shape_of: ShapeOf, **options
) -> ScheduleKind:
    """A kind whose block walks K in slices of BK, one step of each of `step_kinds` per slice but the last kind
    (the store), which comes once; `steps_of` appends the steps to the schedule, `shape_of` gives the problem the
    kernel runs and its BM, BN, BK, TM, TN (square_shape, config_shape); `options` are ScheduleKind's (glides,
    shared_memory). Its grid, legible size and the check of a schedule's length follow from these."""
    per_slice = len(step_kinds) - 1  # steps per slice of K: every kind but the final store

    def grid(variant: str, problem: Problem, tile: int | None) -> Grid:
        rp, bm, bn, _bk, tm, tn = shape_of(variant, problem, tile)
        return (ceil_div(rp.m, bm), ceil_div(rp.n, bn)), (bm // tm, bn // tn)

    def legible(variant: str, tile: int | None) -> Problem:
        """A grid of 4 × 4 blocks (2 × 2 where a block is larger than 32 × 32) and 4 steps along K."""
        _rp, bm, bn, bk, _tm, _tn = shape_of(variant, Problem(1, 1, 1), tile)
        blocks = 4 if max(bm, bn) <= 32 else 2
        return Problem(blocks * bm, blocks * bn, 4 * bk)

    def build(variant: str, problem: Problem, tile: int | None, block: Block, bounds: str = "and") -> Schedule:
        rp, bm, bn, bk, tm, tn = shape_of(variant, problem, tile)
        steps = ceil_div(rp.k, bk) * per_slice + 1  # + the final store
        if steps > MAX_STEPS:
            raise ProblemError(
                f"K = {problem.k} gives {steps:,} animation steps per block; the animation shows at most "
                f"{MAX_STEPS:,} (K up to {(MAX_STEPS - 1) // per_slice * bk:,} with this tile). The model (gemmviz model) has no limit."
            )
        sched = Schedule(variant, problem, rp, bm, bn, bk, tm, tn, block, bounds=bounds)
        gy, gx = sched.grid
        if not (0 <= block[0] < gy and 0 <= block[1] < gx):
            raise ProblemError(f"block ({block[0]}, {block[1]}) is outside the grid of {gy}×{gx} blocks")
        steps_of(sched)
        return sched

    return ScheduleKind(name, step_kinds, build, grid, legible, **options)


TILED_STEPS = ("load", "sync", "compute", "sync2", "store")  # the tiled kernel's kinds of step, in order


class StepBuilder:
    """Appends a kind's steps to a schedule, each with its counters' running total (a `steps_of`'s tool)."""

    def __init__(self, s: Schedule):
        self.s = s
        self.total = Counters()

    def add(self, kind, caption, k_tile, delta, k_done, a=None, b=None, c=None, wrong=()) -> None:
        """A step of `kind` (captioned by the message `caption`, its `text` the English; a plain text is shown as
        it is in every language) on k-tile `k_tile` (-1:
        none), adding `delta` to the counters, with `k_done` of K summed after it, the regions of A, B and C it
        touches (None: none) and the wrong writes of a store (bounds "or")."""
        self.total = self.total + delta
        text, caption = (caption, None) if isinstance(caption, str) else (render(caption, "en"), caption)
        step = Step(kind, text, k_tile, a, b, c, k_done, delta, self.total, wrong=tuple(wrong), caption=caption)
        self.s.steps.append(step)


def tiled_steps(s: Schedule) -> None:
    """The tiled kernel's steps (a `steps_of` for blocked_kind with TILED_STEPS and square_shape): per tile of K,
    the block loads a TILE × TILE tile of A and of B into shared memory (zero-padded outside the matrix), syncs,
    each thread does TILE multiply-adds from shared memory, syncs again; then each thread stores its C."""
    p, t = s.run_problem, s.bm
    r0, r1 = s.rows
    c0, c1 = s.cols
    threads = t * t
    steps = ceil_div(p.k, t)
    out = StepBuilder(s)
    for kt in range(steps):
        k0, k1 = kt * t, min((kt + 1) * t, p.k)
        a = clip(r0, r0 + t, k0, k0 + t, p.m, p.k)
        b = clip(k0, k0 + t, c0, c0 + t, p.k, p.n)
        loads = a.count + b.count
        padded = 2 * threads - loads
        where = {"i": kt + 1, "n": steps, "a": f"{r0}:{r1}, {k0}:{k1}", "b": f"{k0}:{k1}, {c0}:{c1}", "loads": loads}
        out.add(
            "load",
            msg("caption.tiled.load_padded", **where, pad=padded) if padded else msg("caption.tiled.load", **where),
            kt,
            Counters(global_loads=loads, shared_stores=2 * threads),
            k0,
            a,
            b,
        )
        out.add("sync", msg("caption.sync"), kt, Counters(), k0)
        out.add(
            "compute",
            msg("caption.tiled.compute", threads=threads, t=t, k0=k0, k1=k0 + t - 1),
            kt,
            Counters(shared_loads=2 * t * threads, fmas=t * threads),
            k1,
        )
        out.add("sync2", msg("caption.sync2"), kt, Counters(), k1)
    store_step(out, whole_tile=True)


def wrong_writes(s: Schedule) -> tuple[WrongWrite, ...]:
    """The writes of the block's threads outside C that its bounds check lets through, row by row: none under
    "and"; under "or" (`row < M || col < N`) each thread with row ≥ M or col ≥ N but not both, which writes
    C[row * N + col]: inside C's array (another cell of C overwritten) while that index is below M * N, else
    past its end. One element per thread (the naive and tiled kernels)."""
    if s.bounds != "or":
        return ()
    p = s.run_problem
    by, bx = s.block
    rows = range(by * s.bm, (by + 1) * s.bm)
    cols = range(bx * s.bn, (bx + 1) * s.bn)
    return tuple(
        WrongWrite(r, c, r * p.n + c) for r in rows for c in cols if (r < p.m or c < p.n) and not (r < p.m and c < p.n)
    )


def store_step(out: StepBuilder, whole_tile: bool = False) -> None:
    """The final store of the block's C ("the C tile" where `whole_tile`, else its elements): one global store
    per thread inside C, and under bounds "or" the wrong writes too, counted and captioned (how many overwrite
    C's cells, how many land past it)."""
    s, p = out.s, out.s.run_problem
    (r0, r1), (c0, c1) = s.rows, s.cols
    c = Region(r0, r1, c0, c1)
    wrong = wrong_writes(s)
    key = "caption.store_tile" if whole_tile else "caption.store"
    caption = msg(key, c=f"{r0}:{r1}, {c0}:{c1}", n=c.count)
    if s.bounds == "or":
        inside = sum(1 for w in wrong if w.offset < p.m * p.n)
        caption = msg(key + ".or", c=f"{r0}:{r1}, {c0}:{c1}", n=c.count, w=len(wrong), i=inside, o=len(wrong) - inside)
    out.add("store", caption, -1, Counters(global_stores=c.count + len(wrong)), p.k, c=c, wrong=wrong)


# the captions of the steps above, per language ({n:d}: a count as the English always wrote it, without separators)
define(
    "caption.tiled.load",
    en="k-tile {i}/{n}: load A[{a}] and B[{b}] into shared memory ({loads:d} global loads)",
    zh="第 {i}/{n} 个 K 分块：把 A[{a}] 和 B[{b}] 载入共享内存（{loads:d} 次全局内存读取）",
)
define(
    "caption.tiled.load_padded",
    en="k-tile {i}/{n}: load A[{a}] and B[{b}] into shared memory ({loads:d} global loads, {pad:d} zero-padded)",
    zh="第 {i}/{n} 个 K 分块：把 A[{a}] 和 B[{b}] 载入共享内存（{loads:d} 次全局内存读取，{pad:d} 个补零）",
)
define(
    "caption.sync",
    en="__syncthreads(): both tiles are in shared memory",
    zh="__syncthreads()：两个分块都已在共享内存中",
)
define(
    "caption.sync2",
    en="__syncthreads(): done with these tiles before they are overwritten",
    zh="__syncthreads()：先用完这两个分块，再覆盖它们",
)
define(
    "caption.tiled.compute",
    en="each of {threads:d} threads does {t:d} multiply-adds from shared memory (k = {k0:d}…{k1:d})",
    zh="{threads:d} 个线程各自用共享内存中的数据做 {t:d} 次乘加（k = {k0:d}…{k1:d}）",
)
define(
    "caption.store_tile",
    en="store the C tile [{c}] ({n:d} global stores)",
    zh="写回 C 的分块 [{c}]（{n:d} 次全局内存写入）",
)
define("caption.store", en="store C[{c}] ({n:d} global stores)", zh="写回 C[{c}]（{n:d} 次全局内存写入）")
define(
    "caption.store_tile.or",
    en="store the C tile [{c}] under row < M || col < N: {n:d} right, {w:d} wrong writes ({i:d} over other cells of "
    "C, {o:d} past its end)",
    zh="在 row < M || col < N 条件下写回 C 的分块 [{c}]：{n:d} 次正确写入，{w:d} 次错误写入（{i:d} 次覆盖 C 的其他元素，"
    "{o:d} 次写到 C 的末尾之外）",
)
define(
    "caption.store.or",
    en="store C[{c}] under row < M || col < N: {n:d} right, {w:d} wrong writes ({i:d} over other cells of C, {o:d} "
    "past its end)",
    zh="在 row < M || col < N 条件下写回 C[{c}]：{n:d} 次正确写入，{w:d} 次错误写入（{i:d} 次覆盖 C 的其他元素，"
    "{o:d} 次写到 C 的末尾之外）",
)


def grid_totals(variant: str, problem: Problem, tile: int | None = None) -> Counters:
    """Counters summed over every block of the grid, by walking each block's schedule."""
    first = block_schedule(variant, problem, tile)
    gy, gx = first.grid
    total = Counters()
    for by in range(gy):
        for bx in range(gx):
            total = total + block_schedule(variant, problem, tile, (by, bx)).totals
    return total


def reuse_factor(s: Schedule, step: Step) -> float | None:
    """How many times, on average, each value this block loaded from inside A and B has been used by a multiply-add
    of a thread inside C, after `step`; None before any such multiply-add. Only loads already used count (a tile
    just loaded waits for its compute step), and neither zero padding nor the multiply-adds of threads outside C
    (which run, on zeros, and which the counters' `fmas` include) count: so it never passes the block's edge
    (TILE for the tiled kernel), at an edge block either.

    In-bounds, the block covers R rows and C columns of C and has summed k_used values of k: R·C·k_used
    multiply-adds, 2 operands each. A kernel staging tiles in shared memory loads each value once per block:
    R·k_used of A and k_used·C of B, so each is used 2·R·C / (R + C) times (TILE inside, less at an edge);
    the naive kernel's threads load their own operands, 2 per multiply-add, each used once."""
    p = s.problem
    r0, c0 = s.block[0] * s.bm, s.block[1] * s.bn
    rows = max(0, min(r0 + s.bm, p.m) - r0)
    cols = max(0, min(c0 + s.bn, p.n) - c0)
    k_used = min(step.k_done, p.k)
    uses = 2 * rows * cols * k_used
    if not uses:
        return None
    loads = (rows + cols) * k_used if schedule_kind(s.kind).shared_memory else uses
    return uses / loads
