"""The naive kernel's schedule kind (kernels/naive.cu): no shared memory, each thread reads its row of A and
column of B from global memory; steps group K in chunks of the block edge, so that it lines up with the tiled
kernel's."""

from __future__ import annotations

from gemmviz.core.kernels.model import ceil_div
from gemmviz.core.messages import define, msg
from gemmviz.core.schedule.block import Counters, Region, Schedule, StepBuilder, blocked_kind, square_shape, store_step
from gemmviz.core.schedule.kinds import register


def naive_steps(s: Schedule) -> None:
    """The naive kernel has no shared memory: every thread reads its row of A and column of B from
    global memory. Steps group k in chunks of the block edge so the two kernels line up."""
    p, t = s.run_problem, s.bm
    r0, r1 = s.rows
    c0, c1 = s.cols
    active = (r1 - r0) * (c1 - c0)  # threads outside the matrix return at once
    out = StepBuilder(s)
    chunks = ceil_div(p.k, t)
    for kt in range(chunks):
        k0, k1 = kt * t, min((kt + 1) * t, p.k)
        width = k1 - k0
        out.add(
            "read",
            msg("caption.naive.read", k0=k0, k1=k1 - 1, active=active, w=width, loads=2 * width * active),
            kt,
            Counters(global_loads=2 * width * active, fmas=width * active),
            k1,
            Region(r0, r1, k0, k1),
            Region(k0, k1, c0, c1),
        )
    store_step(out)


define(
    "caption.naive.read",
    en="k {k0:d}…{k1:d}: {active:d} threads each read {w:d} values of A and {w:d} of B ({loads:d} global loads, "
    "no reuse)",
    zh="k {k0:d}…{k1:d}：{active:d} 个线程各自从全局内存读取它那一行 A 的 {w:d} 个值和那一列 B 的 {w:d} 个值"
    "（{loads:d} 次读取，没有复用）",
)
register(blocked_kind("naive", ("read", "store"), naive_steps, square_shape, shared_memory=False, bounds_checked=True))
