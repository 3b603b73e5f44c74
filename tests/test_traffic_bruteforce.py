"""Brute-force counts of the block-tiling kernels' memory traffic against the closed-form model.

Each walk follows one kernel's own loops and index arithmetic (kernels/*.cu), every thread of every block
(warp by warp, lane by lane for the tensor-core kernels), over a small grid and several K-slices. It counts
global loads, shared-memory stores and reads, multiply-adds and global stores, and checks on the way that
each tile is staged exactly once, that every staged value is read, and that every element of C is written
exactly once. The counts must equal `Variant.traffic_model` for the registry's configuration and for
configurations from each kernel's tuning space.
"""

from dataclasses import dataclass

import numpy as np
import pytest

from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.problem import Problem


@dataclass
class Tally:
    global_loads: int = 0
    shared_stores: int = 0
    shared_loads: int = 0  # elements read from shared memory
    shared_load_ops: int = 0  # float4 kernels: shared-memory read instructions (a float4 read is one)
    fmas: int = 0
    global_stores: int = 0


class Walk:
    """What one kernel does to shared and global memory, recorded for one problem `q` (already padded)."""

    def __init__(self, q: Problem, bm: int, bn: int, bk: int):
        self.q, self.bm, self.bn, self.bk = q, bm, bn, bk
        self.t = Tally()
        self.c_hits = np.zeros((q.m, q.n), np.int64)

    def blocks(self):
        for by in range(self.q.m // self.bm):
            for bx in range(self.q.n // self.bn):
                yield by, bx

    def k_tiles(self) -> int:
        return self.q.k // self.bk

    def new_tile(self) -> None:
        """Start a K-slice: empty shared tiles, nothing read yet."""
        self.a_staged = np.zeros((self.bm, self.bk), np.int64)
        self.b_staged = np.zeros((self.bk, self.bn), np.int64)
        self.a_read = np.zeros((self.bm, self.bk), np.int64)
        self.b_read = np.zeros((self.bk, self.bn), np.int64)

    def stage_a(self, rows, cols) -> None:
        """Global A (block's rows, this slice's columns) -> shared As, one element per (row, col)."""
        np.add.at(self.a_staged, (rows, cols), 1)
        self.t.global_loads += np.size(rows)
        self.t.shared_stores += np.size(rows)

    def stage_b(self, rows, cols) -> None:
        np.add.at(self.b_staged, (rows, cols), 1)
        self.t.global_loads += np.size(rows)
        self.t.shared_stores += np.size(rows)

    def read_a(self, rows, cols, ops: int = 0) -> None:
        np.add.at(self.a_read, (rows, cols), 1)
        self.t.shared_loads += np.size(rows)
        self.t.shared_load_ops += ops

    def read_b(self, rows, cols, ops: int = 0) -> None:
        np.add.at(self.b_read, (rows, cols), 1)
        self.t.shared_loads += np.size(rows)
        self.t.shared_load_ops += ops

    def end_tile(self) -> None:
        assert (self.a_staged == 1).all() and (self.b_staged == 1).all(), "a tile element staged twice or never"
        assert (self.a_read > 0).all() and (self.b_read > 0).all(), "a staged value is never read"

    def store(self, rows, cols) -> None:
        np.add.at(self.c_hits, (rows, cols), 1)
        self.t.global_stores += np.size(rows)

    def done(self) -> Tally:
        assert (self.c_hits == 1).all(), "an element of C written twice or never"
        return self.t


def walk_blocktile1d(c, q: Problem) -> Tally:
    bm, bn, bk, tm = c["BM"], c["BN"], c["BK"], c["TM"]
    tid = np.arange(bm * bn // tm)
    thread_col, thread_row = tid % bn, tid // bn
    w = Walk(q, bm, bn, bk)
    for by, bx in w.blocks():
        for _ in range(w.k_tiles()):
            w.new_tile()
            w.stage_a(tid // bk, tid % bk)
            w.stage_b(tid // bn, tid % bn)
            for dot in range(bk):
                w.read_b(np.full_like(tid, dot), thread_col)
                for r in range(tm):
                    w.read_a(thread_row * tm + r, np.full_like(tid, dot))
                    w.t.fmas += tid.size
            w.end_tile()
        for r in range(tm):
            w.store(by * bm + thread_row * tm + r, bx * bn + thread_col)
    return w.done()


def walk_blocktile2d(c, q: Problem) -> Tally:
    bm, bn, bk, tm, tn = c["BM"], c["BN"], c["BK"], c["TM"], c["TN"]
    threads = bm * bn // (tm * tn)
    tid = np.arange(threads)
    thread_col, thread_row = tid % (bn // tn), tid // (bn // tn)
    w = Walk(q, bm, bn, bk)
    for by, bx in w.blocks():
        for _ in range(w.k_tiles()):
            w.new_tile()
            for off in range(0, bm, threads // bk):
                w.stage_a(tid // bk + off, tid % bk)
            for off in range(0, bk, threads // bn):
                w.stage_b(tid // bn + off, tid % bn)
            for dot in range(bk):
                k = np.full_like(tid, dot)
                for i in range(tm):
                    w.read_a(thread_row * tm + i, k)
                for i in range(tn):
                    w.read_b(k, thread_col * tn + i)
                w.t.fmas += threads * tm * tn
            w.end_tile()
        for m in range(tm):
            for n in range(tn):
                w.store(by * bm + thread_row * tm + m, bx * bn + thread_col * tn + n)
    return w.done()


def walk_vectorize(c, q: Problem) -> Tally:
    """float4 loads and stores, A transposed in shared memory (the walk records logical (m, k) positions)."""
    bm, bn, bk, tm, tn = c["BM"], c["BN"], c["BK"], c["TM"], c["TN"]
    threads = bm * bn // (tm * tn)
    tid = np.arange(threads)
    thread_col, thread_row = tid % (bn // tn), tid // (bn // tn)
    row_a, col_a = tid // (bk // 4), tid % (bk // 4)
    row_b, col_b = tid // (bn // 4), tid % (bn // 4)
    stride_a, stride_b = threads * 4 // bk, threads // (bn // 4)
    w = Walk(q, bm, bn, bk)
    for by, bx in w.blocks():
        for _ in range(w.k_tiles()):  # fetch + stash, then compute (the double buffer reorders, not recounts)
            w.new_tile()
            for i in range(bm // stride_a):
                for j in range(4):
                    w.stage_a(row_a + i * stride_a, col_a * 4 + j)
            for i in range(bk // stride_b):
                for j in range(4):
                    w.stage_b(row_b + i * stride_b, col_b * 4 + j)
            for dot in range(bk):
                k = np.full_like(tid, dot)
                for i in range(0, tm, 4):
                    for j in range(4):
                        w.read_a(thread_row * tm + i + j, k, ops=threads if j == 0 else 0)
                for i in range(0, tn, 4):
                    for j in range(4):
                        w.read_b(k, thread_col * tn + i + j, ops=threads if j == 0 else 0)
                w.t.fmas += threads * tm * tn
            w.end_tile()
        for m in range(tm):
            for n in range(tn):
                w.store(by * bm + thread_row * tm + m, bx * bn + thread_col * tn + n)
    return w.done()


def walk_warptile(c, q: Problem) -> Tally:
    bm, bn, bk, wm_, wn_, wniter, tm, tn = (c[x] for x in ("BM", "BN", "BK", "WM", "WN", "WNITER", "TM", "TN"))
    threads = (bm // wm_) * (bn // wn_) * 32
    wmiter = wm_ * wn_ // (32 * tm * tn * wniter)
    wsubm, wsubn = wm_ // wmiter, wn_ // wniter
    tid = np.arange(threads)
    warp, lane = tid // 32, tid % 32
    warp_col, warp_row = warp % (bn // wn_), warp // (bn // wn_)
    col_in_warp, row_in_warp = lane % (wsubn // tn), lane // (wsubn // tn)
    row_a, col_a = tid // (bk // 4), tid % (bk // 4)
    row_b, col_b = tid // (bn // 4), tid % (bn // 4)
    stride_a, stride_b = threads * 4 // bk, threads // (bn // 4)
    w = Walk(q, bm, bn, bk)
    for by, bx in w.blocks():
        for _ in range(w.k_tiles()):
            w.new_tile()
            off = 0
            while off + stride_a <= bm:
                for j in range(4):
                    w.stage_a(row_a + off, col_a * 4 + j)
                off += stride_a
            off = 0
            while off + stride_b <= bk:
                for j in range(4):
                    w.stage_b(row_b + off, col_b * 4 + j)
                off += stride_b
            for dot in range(bk):
                k = np.full_like(tid, dot)
                for wm in range(wmiter):
                    for i in range(tm):
                        w.read_a(warp_row * wm_ + wm * wsubm + row_in_warp * tm + i, k)
                for wn in range(wniter):
                    for i in range(tn):
                        w.read_b(k, warp_col * wn_ + wn * wsubn + col_in_warp * tn + i)
                w.t.fmas += threads * wmiter * wniter * tm * tn
            w.end_tile()
        for wm in range(wmiter):
            for wn in range(wniter):
                for m in range(tm):
                    for n in range(tn):
                        w.store(
                            by * bm + warp_row * wm_ + wm * wsubm + row_in_warp * tm + m,
                            bx * bn + warp_col * wn_ + wn * wsubn + col_in_warp * tn + n,
                        )
    return w.done()


def walk_cpasync(c, q: Problem) -> Tally:
    """cp.async copies (A: 4 bytes, transposed; B: 16 bytes), LDS.128 fragments, 4x4 sub-tiles per lane."""
    bm, bn, bk, wm_, wn_, tm, tn = (c[x] for x in ("BM", "BN", "BK", "WM", "WN", "TM", "TN"))
    threads = (bm // wm_) * (bn // wn_) * 32
    tid = np.arange(threads)
    warp, lane = tid // 32, tid % 32
    lr, lc, kh = wm_ // tm, wn_ // tn, bk // 8
    wm0, wn0 = (warp // (bn // wn_)) * wm_, (warp % (bn // wn_)) * wn_
    tr, tc = lane // lc, lane % lc
    am, ak = 4 * (warp // kh) + (lane // 8) % 4, 8 * (warp % kh) + lane % 8
    br, bc = tid // (bn // 4), 4 * (tid % (bn // 4))
    rows = [wm0 + tr * 4 + (i // 4) * lr * 4 + i % 4 for i in range(tm)]
    cols = [wn0 + tc * 4 + (j // 4) * lc * 4 + j % 4 for j in range(tn)]
    w = Walk(q, bm, bn, bk)
    assert VARIANTS["gpu-cpasync"].geometry(q, {}, c)[0][1] == q.m // bm, "split-K: the walk counts one slice"
    for by, bx in w.blocks():
        for _ in range(w.k_tiles()):
            w.new_tile()
            for j in range(bm * bk // threads):
                w.stage_a(am + j * (4 * threads // 32 // kh), ak)
            for j in range(bk * bn // 4 // threads):
                for x in range(4):
                    w.stage_b(br + j * (threads // (bn // 4)), bc + x)
            for kk in range(bk):
                k = np.full_like(tid, kk)
                for r in rows:
                    w.read_a(r, k)
                for col in cols:
                    w.read_b(k, col)
                w.t.fmas += threads * tm * tn
            w.end_tile()
        for r in rows:
            for col in cols:
                w.store(by * bm + r, bx * bn + col)
    return w.done()


def _pipelined_loads(w: Walk, c) -> None:
    """The cp.async loads of one K-slice: 16-byte chunks (the threads share them out, chunk i to thread i % THREADS)."""
    bm, bn, bk = c["BM"], c["BN"], c["BK"]
    chunks = np.arange(bm * bk // 4)
    for j in range(4):
        w.stage_a(chunks // (bk // 4), (chunks % (bk // 4)) * 4 + j)
    chunks = np.arange(bk * bn // 4)
    for j in range(4):
        w.stage_b(chunks // (bn // 4), (chunks % (bn // 4)) * 4 + j)


def _pipeline_order(k_tiles: int, stages: int) -> list[tuple[str, int]]:
    """The kernel's prologue and main loop as ("load", tile) / ("compute", tile) events."""
    events = [("load", s) for s in range(stages - 1) if s < k_tiles]
    for kt in range(k_tiles):
        if kt + stages - 1 < k_tiles:
            events.append(("load", kt + stages - 1))
        events.append(("compute", kt))
    return events


def _walk_tensor_core(c, q: Problem, warp_reads) -> Tally:
    """WMMA and mma.sync share the block structure: WARPS_M x WARPS_N warps, a STAGES-deep pipeline."""
    bm, bn, bk = c["BM"], c["BN"], c["BK"]
    threads = c["WARPS_M"] * c["WARPS_N"] * 32
    w = Walk(q, bm, bn, bk)
    for by, bx in w.blocks():
        loaded: set[int] = set()
        for kind, kt in _pipeline_order(w.k_tiles(), c["STAGES"]):
            if kind == "load":
                assert kt not in loaded, "a K-slice loaded twice"
                loaded.add(kt)
                continue
            assert kt in loaded, "a K-slice computed before its load was issued"
            w.new_tile()
            _pipelined_loads(w, c)
            for warp in range(threads // 32):
                warp_reads(w, c, warp // c["WARPS_N"], warp % c["WARPS_N"])
            w.end_tile()
        assert loaded == set(range(w.k_tiles()))
        for warp in range(threads // 32):
            warp_stores(w, c, by, bx, warp // c["WARPS_N"], warp % c["WARPS_N"])
    return w.done()


def wmma_reads(w: Walk, c, wr: int, wc: int) -> None:
    """Per k8 step, FM fragments of A (16x8) and FN of B (8x16), loaded by the whole warp."""
    wtm, wtn = c["BM"] // c["WARPS_M"], c["BN"] // c["WARPS_N"]
    rows16, cols8 = np.meshgrid(np.arange(16), np.arange(8), indexing="ij")
    for kk in range(0, c["BK"], 8):
        for i in range(wtm // 16):
            w.read_a((wr * wtm + i * 16 + rows16).ravel(), (kk + cols8).ravel())
        for j in range(wtn // 16):
            w.read_b((kk + cols8.T).ravel(), (wc * wtn + j * 16 + rows16.T).ravel())
        w.t.fmas += (wtm // 16) * (wtn // 16) * 16 * 16 * 8


def mma_reads(w: Walk, c, wr: int, wc: int) -> None:
    """Per k8 step, one ldmatrix.x4 per A fragment (each lane a row of 4 floats) and two 32-bit loads per lane
    per B fragment, with the kernel's lane arithmetic."""
    wtm, wtn = c["BM"] // c["WARPS_M"], c["BN"] // c["WARPS_N"]
    lane = np.arange(32)
    g, t = lane >> 2, lane & 3
    a_row, a_col = (lane & 7) + ((lane >> 3) & 1) * 8, (lane >> 4) * 4
    for kk in range(0, c["BK"], 8):
        for i in range(wtm // 16):
            rows = np.repeat(wr * wtm + i * 16 + a_row, 4)
            cols = (kk + a_col[:, None] + np.arange(4)).ravel()
            fragment = np.zeros((16, 8), np.int64)
            np.add.at(fragment, (rows - wr * wtm - i * 16, cols - kk), 1)
            assert (fragment == 1).all(), "ldmatrix.x4 covers the 16x8 A fragment exactly once"
            w.read_a(rows, cols)
        for j in range(wtn // 8):
            rows = np.concatenate([kk + t, kk + t + 4])
            cols = np.concatenate([wc * wtn + j * 8 + g] * 2)
            fragment = np.zeros((8, 8), np.int64)
            np.add.at(fragment, (rows - kk, cols - wc * wtn - j * 8), 1)
            assert (fragment == 1).all(), "the two loads per lane cover the 8x8 B fragment exactly once"
            w.read_b(rows, cols)
        w.t.fmas += (wtm // 16) * (wtn // 8) * 16 * 8 * 8


def warp_stores(w: Walk, c, by: int, bx: int, wr: int, wc: int) -> None:
    """Both tensor-core kernels store the warp's whole (BM/WARPS_M) x (BN/WARPS_N) tile of C once."""
    wtm, wtn = c["BM"] // c["WARPS_M"], c["BN"] // c["WARPS_N"]
    rows, cols = np.meshgrid(np.arange(wtm), np.arange(wtn), indexing="ij")
    w.store((by * c["BM"] + wr * wtm + rows).ravel(), (bx * c["BN"] + wc * wtn + cols).ravel())


WALKS = {
    "gpu-blocktile1d": walk_blocktile1d,
    "gpu-blocktile2d": walk_blocktile2d,
    "gpu-vectorize": walk_vectorize,
    "gpu-doublebuffer": walk_vectorize,
    "gpu-warptile": walk_warptile,
    "gpu-cpasync": walk_cpasync,
    "gpu-wmma-tf32": lambda c, q: _walk_tensor_core(c, q, wmma_reads),
    "gpu-mma-tf32": lambda c, q: _walk_tensor_core(c, q, mma_reads),
}


def _configs(name: str) -> list[dict]:
    """The registry's configuration and a few small ones from the tuning space (first, middle, last)."""
    v = VARIANTS[name]
    out = [dict(v.config)]
    if v.tune_space:
        small = [c for c in v.tune_space() if c["BM"] * c["BN"] <= 128 * 128]
        out += [small[0], small[len(small) // 2], small[-1]]
    return out


CASES = [(name, c) for name in WALKS for c in _configs(name)]


def test_every_padded_kernel_has_a_walk():
    assert set(WALKS) == {name for name, v in VARIANTS.items() if v.pads}


@pytest.mark.parametrize("name, config", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_walk_of_the_kernel_matches_its_traffic_model(name, config):
    v = VARIANTS[name]
    problem = Problem(config["BM"] + 3, 2 * config["BN"] - 5, 2 * config["BK"] + 1)  # ragged: padded to 2x2x3
    q = v.run_problem(problem, config)
    assert (q.m // config["BM"], q.n // config["BN"], q.k // config["BK"]) == (2, 2, 3)
    walked = WALKS[name](config, q)
    model = v.traffic_model(problem, config=config)
    # The float4 kernels' model counts shared-memory read instructions (one per float4), the others elements.
    reads = walked.shared_load_ops if name in ("gpu-vectorize", "gpu-doublebuffer") else walked.shared_loads
    if name in ("gpu-vectorize", "gpu-doublebuffer"):
        assert walked.shared_loads == 4 * walked.shared_load_ops
    assert (walked.global_loads, walked.shared_stores, reads, walked.fmas, walked.global_stores) == (
        model.global_loads,
        model.shared_stores,
        model.shared_loads,
        model.fmas_executed,
        model.global_stores,
    )


def test_mma_store_lane_layout_covers_each_tile_once():
    """mma's store: lane (g, t) writes rows g and g+8, columns 2t and 2t+1 of each m16n8 tile."""
    lane = np.arange(32)
    g, t = lane >> 2, lane & 3
    tile = np.zeros((16, 8), np.int64)
    for row in (g, g + 8):
        for col in (2 * t, 2 * t + 1):
            np.add.at(tile, (row, col), 1)
    assert (tile == 1).all()
