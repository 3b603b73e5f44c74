"""The 2D block-tiling kernel's schedule kind (kernels/blocktile2d.cu): its block tile from the variant's configuration, on the
zero-padded problem it runs, each thread a TM × TN tile of C in registers."""

from __future__ import annotations

from gemmviz.core.schedule import TILED_STEPS, Counters, Region, Schedule, StepBuilder, blocked_kind, config_shape
from gemmviz.core.schedule_kinds import register


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
    pad = "" if p == s.problem else f" (run zero-padded: {p.m}×{p.n}×{p.k})"
    # the tiles' shapes, unless the note on padding needs their room in the caption's two lines
    shape_a, shape_b = ("", "") if pad else (f" ({s.bm}×{s.bk})", f" ({s.bk}×{s.bn})")
    for kt in range(steps):
        k0, k1 = kt * s.bk, (kt + 1) * s.bk
        a, b = Region(r0, r1, k0, k1), Region(k0, k1, c0, c1)
        loads = a.count + b.count
        out.add(
            "load",
            f"k-tile {kt + 1}/{steps}: load A[{r0}:{r1}, {k0}:{k1}]{shape_a} and B[{k0}:{k1}, {c0}:{c1}]{shape_b} "
            f"into shared memory: {loads // threads} values per thread{pad}",
            kt,
            Counters(global_loads=loads, shared_stores=loads),
            k0,
            a,
            b,
        )
        out.add("sync", "__syncthreads(): both tiles are in shared memory", kt, Counters(), k0)
        reads = threads * s.bk * (s.tm + s.tn)
        fmas = threads * s.bk * s.tm * s.tn
        out.add(
            "compute",
            f"for each of {s.bk} k: every thread copies {s.tm} values of A and {s.tn} of B from shared "
            f"memory into registers and does {s.tm}×{s.tn} = {s.tm * s.tn} multiply-adds from registers",
            kt,
            Counters(shared_loads=reads, fmas=fmas),
            k1,
        )
        out.add("sync2", "__syncthreads(): done with these tiles before they are overwritten", kt, Counters(), k1)
    c = Region(r0, r1, c0, c1)
    out.add(
        "store",
        f"each thread stores its {s.tm}×{s.tn} register tile: C[{r0}:{r1}, {c0}:{c1}] ({c.count} global stores)",
        -1,
        Counters(global_stores=c.count),
        p.k,
        c=c,
    )


register(blocked_kind("blocktile2d", TILED_STEPS, blocktile2d_steps, config_shape, glides=("load",)))
