"""The 2D block-tiling kernel's schedule kind (kernels/blocktile2d.cu): its block tile from the variant's configuration, on the
zero-padded problem it runs, each thread a TM × TN tile of C in registers."""

from __future__ import annotations

from gemmviz.core.messages import define, msg
from gemmviz.core.schedule.block import TILED_STEPS, Counters, Region, Schedule, StepBuilder, blocked_kind, config_shape
from gemmviz.core.schedule.kinds import register


def blocktile2d_steps(s: Schedule) -> None:
    """2D block tiling: BM x BK and BK x BN tiles in shared memory; each thread keeps a TM x TN tile of C
    in registers and, for every k, reads TM values of A and TN of B from shared memory into registers."""
    p = s.run_problem
    r0, r1 = s.rows
    c0, c1 = s.cols
    ty, tx = s.thread_dims
    threads = ty * tx
    steps = p.k // s.bk
    out = StepBuilder(s)
    padded = p != s.problem  # then the note on padding takes the room of the tiles' shapes in the caption's two lines
    for kt in range(steps):
        k0, k1 = kt * s.bk, (kt + 1) * s.bk
        a, b = Region(r0, r1, k0, k1), Region(k0, k1, c0, c1)
        loads = a.count + b.count
        where = {"i": kt + 1, "n": steps, "a": f"{r0}:{r1}, {k0}:{k1}", "b": f"{k0}:{k1}, {c0}:{c1}"}
        where["per"] = loads // threads
        out.add(
            "load",
            msg("caption.blocktile2d.load_padded", **where, padded=[p.m, p.n, p.k])
            if padded
            else msg("caption.blocktile2d.load", **where, ash=[s.bm, s.bk], bsh=[s.bk, s.bn]),
            kt,
            Counters(global_loads=loads, shared_stores=loads),
            k0,
            a,
            b,
        )
        out.add("sync", msg("caption.sync"), kt, Counters(), k0)
        reads = threads * s.bk * (s.tm + s.tn)
        fmas = threads * s.bk * s.tm * s.tn
        out.add(
            "compute",
            msg("caption.blocktile2d.compute", bk=s.bk, tm=s.tm, tn=s.tn, prod=f"{s.tm}×{s.tn} = {s.tm * s.tn}"),
            kt,
            Counters(shared_loads=reads, fmas=fmas),
            k1,
        )
        out.add("sync2", msg("caption.sync2"), kt, Counters(), k1)
    c = Region(r0, r1, c0, c1)
    out.add(
        "store",
        msg("caption.blocktile2d.store", tile=[s.tm, s.tn], c=f"{r0}:{r1}, {c0}:{c1}", n=c.count),
        -1,
        Counters(global_stores=c.count),
        p.k,
        c=c,
    )


define(
    "caption.blocktile2d.load",
    en="k-tile {i}/{n}: load A[{a}] ({ash}) and B[{b}] ({bsh}) into shared memory: {per:d} values per thread",
    zh="第 {i}/{n} 个 K 分块：把 A[{a}]（{ash}）和 B[{b}]（{bsh}）载入共享内存：每个线程 {per:d} 个值",
)
define(
    "caption.blocktile2d.load_padded",
    en="k-tile {i}/{n}: load A[{a}] and B[{b}] into shared memory: {per:d} values per thread (run zero-padded: "
    "{padded})",
    zh="第 {i}/{n} 个 K 分块：把 A[{a}] 和 B[{b}] 载入共享内存：每个线程 {per:d} 个值（补零后运行：{padded}）",
)
define(
    "caption.blocktile2d.compute",
    en="for each of {bk:d} k: every thread copies {tm:d} values of A and {tn:d} of B from shared memory into "
    "registers and does {prod} multiply-adds from registers",
    zh="对 {bk:d} 个 k 中的每一个：每个线程把 A 的 {tm:d} 个值和 B 的 {tn:d} 个值从共享内存拷进寄存器，再用寄存器做 "
    "{prod} 次乘加",
)
define(
    "caption.blocktile2d.store",
    en="each thread stores its {tile} register tile: C[{c}] ({n:d} global stores)",
    zh="每个线程写回它 {tile} 的寄存器分块：C[{c}]（{n:d} 次全局内存写入）",
)


register(blocked_kind("blocktile2d", TILED_STEPS, blocktile2d_steps, config_shape, glides=("load",)))
