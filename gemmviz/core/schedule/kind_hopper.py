"""The Hopper kernel's schedule kind (kernels/wgmma_tf32.cu): the schedule of one thread block, step by step.

One producer thread and the consumer warpgroups run at the same time; the animation plays them as one
sequence in which the producer goes as far ahead as the ring lets it, which is what the kernel's barriers
allow: the producer waits on a stage's "empty" barrier, issues one TMA copy per tile into it (the stage's
"full" barrier counts the bytes), the consumers wait on "full", issue their wgmma over the stage and
arrive on "empty" when done with it. The ring fills (the first STAGES copies pass at once), runs steady
(each refill waits for a release) and drains (no refills; the producer waits for every stage before it
exits). Summed over every block the counters equal `hopper_model.wgmma_traffic` (tests check this). Its
steps interleave the producer and the consumers instead of walking K slice by slice, so it is a ScheduleKind of
its own (registered at the end), not a blocked_kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gemmviz.core.kernels.hopper_model import WGMMA_BK, wgmma_bn, wgmma_tiles
from gemmviz.core.kernels.model import ceil_div
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.messages import Message, define, msg, render
from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.schedule.kinds import Grid, ScheduleKind, register
from gemmviz.core.schedule.records import Counters, Region, Schedule, Step

# In the order they first appear; each has one `// gemmviz:step <kind>` anchor in the kernel.
HOPPER_KINDS = ("wait_empty", "tma", "wait_full", "wgmma", "release", "drain", "store")
# who takes each kind of step: the producer thread or the consumer warpgroups
HOPPER_ACTORS = {"wait_empty": "producer", "tma": "producer", "drain": "producer", "wait_full": "consumers",
                 "wgmma": "consumers", "release": "consumers", "store": "consumers"}  # fmt: skip
assert HOPPER_ACTORS.keys() == set(HOPPER_KINDS)
SLOT_STATES = ("empty", "loading", "full", "consuming")  # loading: TMA in flight; consuming: wgmma reads it
MAX_HOPPER_STEPS = 20_000


@dataclass(frozen=True)
class Slot:
    state: str  # one of SLOT_STATES
    k_step: int  # the k-step whose tiles it holds (-1: none)


@dataclass(frozen=True)
class HopperStep(Step):
    actor: str = ""  # "producer" (one thread) or "consumers" (the consumer warpgroups)
    stage: int = -1  # the ring slot this step acts on (-1: none)
    ring: tuple[Slot, ...] = ()  # every slot after this step
    full_phase: tuple[int, ...] = ()  # completed phases of each stage's "full" barrier (its parity is phase & 1)
    empty_phase: tuple[int, ...] = ()
    blocked: bool = False  # a wait that cannot pass yet: the actor sleeps until the barrier's phase completes


@dataclass
class HopperSchedule(Schedule):
    config: Mapping[str, int] = field(default_factory=dict)

    @property
    def stages(self) -> int:
        return self.config["STAGES"]

    @property
    def consumers(self) -> int:
        return self.config["CONSUMERS"]

    @property
    def cluster(self) -> int:
        return self.config["CLUSTER"]

    @property
    def k_steps(self) -> int:
        return ceil_div(self.run_problem.k, self.bk)

    @property
    def grid(self) -> tuple[int, int]:
        return wgmma_tiles(self.run_problem, self.config)

    @property
    def rank(self) -> int:
        """This block's rank in its cluster (blocks of a cluster are neighbours along N)."""
        return self.block[1] % self.cluster


def hopper_schedule(
    variant: str, problem: Problem, block: tuple[int, int] = (0, 0), config: Mapping[str, int] | None = None
) -> HopperSchedule:
    """The steps of block (by, bx) (the C tile at block row by, column bx) of the Hopper kernel, for `config`
    (the registry's by default; any configuration from its tuning space)."""
    v = VARIANTS[variant]
    c = dict(v.config if config is None else config)
    rp = v.run_problem(problem, c)
    bm, bn = c["BM"], wgmma_bn(c)
    k_steps = ceil_div(rp.k, WGMMA_BK)
    count = 5 * k_steps + 2
    if count > MAX_HOPPER_STEPS:
        raise ProblemError(
            f"K = {problem.k} gives {count:,} animation steps per block; the animation shows at most "
            f"{MAX_HOPPER_STEPS:,} (K up to {(MAX_HOPPER_STEPS - 2) // 5 * WGMMA_BK:,}). The model has no limit."
        )
    s = HopperSchedule(variant, problem, rp, bm, bn, WGMMA_BK, bm, 64, block, config=c)
    gy, gx = s.grid
    if not (0 <= block[0] < gy and 0 <= block[1] < gx):
        raise ProblemError(f"block ({block[0]}, {block[1]}) is outside the grid of {gy}×{gx} blocks")
    _Walk(s).run()
    return s


class _Walk:
    """The producer and the consumers of one block, advanced one step at a time (the producer first
    whenever its next step can happen)."""

    def __init__(self, s: HopperSchedule):
        self.s = s
        n = s.stages
        self.ring = [Slot("empty", -1)] * n
        self.full = [0] * n
        self.empty = [0] * n
        self.total = Counters()
        self.issued = 0  # k-steps whose TMA copies the producer has issued
        self.producer_waiting = False  # it has reached the empty-barrier wait of k-step `issued`
        self.consumed = 0  # k-steps whose wgmma the consumers have issued
        self.consumer_waiting = False  # they have passed the full-barrier wait of k-step `consumed`
        self.released = 0  # k-steps whose stage the consumers have released (in order)

    def add(
        self,
        kind: str,
        caption: Message,
        k_step: int,
        delta: Counters,
        stage: int = -1,
        blocked: bool = False,
        a: Region | None = None,
        b: Region | None = None,
        c: Region | None = None,
    ) -> None:
        """Append a step of `kind` (its actor from HOPPER_ACTORS, its text the English of `caption`) with the ring
        and barriers as they are now."""
        s = self.s
        self.total = self.total + delta
        k_done = min(self.consumed * s.bk, s.run_problem.k)
        s.steps.append(
            HopperStep(
                kind,
                render(caption, "en"),
                k_step,
                a,
                b,
                c,
                k_done,
                delta,
                self.total,
                HOPPER_ACTORS[kind],
                stage,
                tuple(self.ring),
                tuple(self.full),
                tuple(self.empty),
                blocked,
                caption=caption,
            )
        )

    def free(self, kb: int) -> bool:
        """Stage kb % STAGES may be refilled with k-step kb: its previous k-step has been released."""
        return kb < self.s.stages or self.released > kb - self.s.stages

    def run(self) -> None:
        s = self.s
        kt = s.k_steps
        drained = stored = False
        while not stored:
            if self.issued < kt and not self.producer_waiting:
                self.wait_empty()
            elif self.issued < kt and self.free(self.issued):
                self.tma()
            elif self.issued == kt and not drained:
                self.drain()
                drained = True
            elif self.released < self.consumed - s.config["DEPTH"] or (
                self.consumed == kt and self.released < kt and not self.consumer_waiting
            ):
                self.release()
            elif self.consumed < kt and not self.consumer_waiting:
                self.wait_full()
            elif self.consumed < kt:
                self.wgmma()
            else:
                self.store()
                stored = True

    def wait_empty(self) -> None:
        s, kb = self.s, self.issued
        st = kb % s.stages
        self.producer_waiting = True
        where = {"k": kb + 1, "n": s.k_steps, "st": st}
        if kb < s.stages:
            text = msg("caption.hopper.wait_empty.fresh", **where)
        elif self.free(kb):
            text = msg("caption.hopper.wait_empty.released", **where, done=kb - s.stages + 1)
        else:
            text = msg("caption.hopper.wait_empty.full", **where)
        self.add("wait_empty", text, kb, Counters(barrier_waits=1), st, blocked=not self.free(kb))

    def tma(self) -> None:
        s, kb = self.s, self.issued
        p, st = s.run_problem, kb % s.stages
        r0, c0 = s.block[0] * s.bm, s.block[1] * s.bn
        k0 = kb * s.bk
        part = s.bm // s.cluster  # with multicast each block of a cluster loads its share of the A tile
        a = _clip(r0 + s.rank * part, r0 + (s.rank + 1) * part, k0, k0 + s.bk, p.m, p.k)
        b = _clip(k0, k0 + s.bk, c0, c0 + s.bn, p.k, p.n)
        stage_bytes = 4 * s.bk * (s.bm + s.bn)
        zero = s.bk * (part + s.bn) - a.count - b.count
        text = msg(
            "caption.hopper.tma",
            st=st,
            bytes=stage_bytes,
            share="caption.hopper.half_a" if s.cluster > 1 else "caption.hopper.a_tile",
            a=f"{a.r0}:{a.r1}, {a.c0}:{a.c1}",
            b=f"{b.r0}:{b.r1}, {b.c0}:{b.c1}",
            zero=msg("caption.hopper.zero_filled", zero=zero) if zero else None,
        )
        self.ring[st] = Slot("loading", kb)
        self.issued += 1
        self.producer_waiting = False
        delta = Counters(global_loads=a.count + b.count, shared_stores=s.bk * (s.bm + s.bn))
        self.add("tma", text, kb, delta, st, a=a, b=b)

    def drain(self) -> None:
        s = self.s
        waiting = self.released < s.k_steps
        text = msg("caption.hopper.drain", n=s.k_steps)
        self.add("drain", text, -1, Counters(barrier_waits=s.stages), blocked=waiting)

    def wait_full(self) -> None:
        s, kb = self.s, self.consumed
        st = kb % s.stages
        assert kb < self.issued, "a stage consumed before its copy was issued"
        self.full[st] += 1  # the copies' bytes reached the count expect_tx set: the phase completes
        self.ring[st] = Slot("full", kb)
        self.consumer_waiting = True
        key = "caption.hopper.wait_full" if s.consumers > 1 else "caption.hopper.wait_full_one"
        text = msg(key, c=s.consumers, k=kb + 1, n=s.k_steps, st=st, par=(self.full[st] - 1) & 1)
        self.add("wait_full", text, kb, Counters(barrier_waits=s.consumers), st)

    def wgmma(self) -> None:
        s, kb = self.s, self.consumed
        st = kb % s.stages
        self.ring[st] = Slot("consuming", kb)
        self.consumer_waiting = False
        self.consumed += 1
        reads = s.bk * (s.consumers * s.bm + s.bn)
        text = msg(
            "caption.hopper.wgmma",
            g=s.bk // 8,
            shape=f"m64n{s.bm}k8",
            a=f"{s.bm}×{s.bk}",
            b=f"{s.bk}×64",
            st=st,
            fmas=s.bm * s.bn * s.bk,
        )
        self.add("wgmma", text, kb, Counters(shared_loads=reads, fmas=s.bm * s.bn * s.bk), st)

    def release(self) -> None:
        s, kb = self.s, self.released
        st = kb % s.stages
        self.ring[st] = Slot("empty", -1)
        self.empty[st] += 1
        self.released += 1
        warps = 4 * s.consumers * s.cluster
        late = "caption.hopper.late" if s.config["DEPTH"] else None
        text = msg("caption.hopper.release", k=kb + 1, w=warps, st=st, late=late)
        self.add("release", text, kb, Counters(), st)

    def store(self) -> None:
        s, p = self.s, self.s.run_problem
        r0, c0 = s.block[0] * s.bm, s.block[1] * s.bn
        c = _clip(r0, r0 + s.bm, c0, c0 + s.bn, p.m, p.n)
        text = msg("caption.hopper.store", c=f"{c.r0}:{c.r1}, {c.c0}:{c.c1}", n=c.count)
        self.add("store", text, -1, Counters(global_stores=c.count), c=c)


# the steps' captions, per language
define(
    "caption.hopper.wait_empty.fresh",
    en="producer thread, k-step {k}/{n}: waits on empty[{st}] — a fresh barrier passes at once (the ring is filling)",
    zh="生产者线程，第 {k}/{n} 个 K 步：等待 empty[{st}] — 新的屏障立即通过（环形缓冲正在填充）",
)
define(
    "caption.hopper.wait_empty.released",
    en="producer thread, k-step {k}/{n}: waits on empty[{st}] — already released by the consumers (k-step {done} is "
    "done), passes",
    zh="生产者线程，第 {k}/{n} 个 K 步：等待 empty[{st}] — 消费者已经释放了它（第 {done} 个 K 步已完成），通过",
)
define(
    "caption.hopper.wait_empty.full",
    en="producer thread, k-step {k}/{n}: waits on empty[{st}] — the ring is full, it sleeps until the consumers "
    "release stage {st}",
    zh="生产者线程，第 {k}/{n} 个 K 步：等待 empty[{st}] — 环形缓冲已满，它休眠到消费者释放第 {st} 级",
)
define(
    "caption.hopper.tma",
    en="producer thread: expect_tx(full[{st}], {bytes:,} bytes), then one TMA copy each for {share:msg} A[{a}] and "
    "the B tile B[{b}] into stage {st}: whole tiles, no other thread helps{zero:msg}",
    zh="生产者线程：expect_tx(full[{st}], {bytes:,} 字节)，然后各用一次 TMA 拷贝把{share:msg} A[{a}] 和 B 分块 B[{b}] "
    "送入第 {st} 级：整块搬运，不需要其他线程帮忙{zero:msg}",
)
define("caption.hopper.a_tile", en="the A tile", zh=" A 分块")
define(
    "caption.hopper.half_a",
    en="its half of the A tile (multicast to both blocks of the cluster)",
    zh="它那一半的 A 分块（多播给 cluster 中的两个线程块）",
)
define(
    "caption.hopper.zero_filled",
    en=" ({zero:,} values outside the matrix: zero-filled)",
    zh="（{zero:,} 个值在矩阵之外：补零）",
)
define(
    "caption.hopper.drain",
    en="producer thread: all {n} k-steps issued; it waits on the empty barrier of every stage (the ring drains) so "
    "that no consumer arrives on a finished block, then exits",
    zh="生产者线程：{n} 个 K 步都已发出；它等待每一级的 empty[] 屏障（环形缓冲排空），以免有消费者到达一个已结束的"
    "线程块，然后退出",
)
define(
    "caption.hopper.wait_full",
    en="{c} consumer warpgroups, k-step {k}/{n}: wait on full[{st}] (parity {par}) — the TMA bytes have all landed, "
    "the stage is full",
    zh="{c} 个消费者 warpgroup，第 {k}/{n} 个 K 步：等待 full[{st}]（奇偶位 {par}）— TMA 的字节已全部到达，这一级已满",
)
define(
    "caption.hopper.wait_full_one",
    en="the consumer warpgroup, k-step {k}/{n}: wait on full[{st}] (parity {par}) — the TMA bytes have all landed, "
    "the stage is full",
    zh="消费者 warpgroup，第 {k}/{n} 个 K 步：等待 full[{st}]（奇偶位 {par}）— TMA 的字节已全部到达，这一级已满",
)
define(
    "caption.hopper.wgmma",
    en="each consumer warpgroup loads its {b} slice of the B tile into registers and issues {g} wgmma {shape} "
    "reading the whole {a} A tile from stage {st}: Cᵀ += Bᵀ·Aᵀ on the tensor cores, {fmas:,} multiply-adds",
    zh="每个消费者 warpgroup 把 B 分块中它的 {b} 一片载入寄存器，并发出 {g} 条 wgmma {shape}，从第 {st} 级读取整个 "
    "{a} 的 A 分块：在张量核心上计算 Cᵀ += Bᵀ·Aᵀ，共 {fmas:,} 次乘加",
)
define(
    "caption.hopper.release",
    en="consumers: k-step {k}'s wgmma are complete; each of the {w} consumer warps arrives on empty[{st}] — stage "
    "{st} may be refilled{late:msg}",
    zh="消费者：第 {k} 个 K 步的 wgmma 已完成；{w} 个消费者线程束各自到达 empty[{st}] — 第 {st} 级可以重新填充{late:msg}",
)
define(
    "caption.hopper.late",
    en=" (one wgmma group was kept in flight, so the release trails by a step)",
    zh="（有一组 wgmma 保持在执行中，所以释放晚一步）",
)
define(
    "caption.hopper.store",
    en="epilogue: each consumer thread stores its accumulators (read back transposed: wgmma rows are columns of C) "
    "to C[{c}], bounds-checked ({n:,} global stores)",
    zh="收尾：每个消费者线程把它的累加器写回 C[{c}]（转置读回：wgmma 的行是 C 的列），并做边界检查（{n:,} 次全局内存写入）",
)


def _clip(r0: int, r1: int, c0: int, c1: int, rows: int, cols: int) -> Region:
    return Region(min(r0, rows), min(r1, rows), min(c0, cols), min(c1, cols))


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


def _hopper_build(variant: str, problem: Problem, _tile: int | None, block: tuple[int, int]) -> HopperSchedule:
    return hopper_schedule(variant, problem, block)


register(ScheduleKind("hopper", HOPPER_KINDS, _hopper_build, _hopper_grid, _hopper_legible))
