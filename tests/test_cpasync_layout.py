"""kernels/cpasync.cu without a GPU: its index arithmetic, transcribed line by line, run on the CPU.

The emulation follows every thread of every block through the kernel's cp.async copies (flat pointers as the
kernel forms them), its STAGES-deep pipeline (a copy lands at any time between its issue and the
cp.async.wait_group that covers it), its LDS.128 fragment reads, its split-K turn counters and its float4
stores, and checks that C = A B for ragged sizes (the engine's zero-padding included), that no read can see a
copy still in flight or a stage another copy is refilling, and that each store and read pattern is free of
shared-memory bank conflicts and uses whole 32-byte sectors of global memory.

Bank model: shared memory has 32 banks of 4 bytes; a warp's request needs as many wavefronts as the largest
number of distinct words it touches in one bank (lanes reading the same word share it). Conflict-free means
that number is the least possible, ceil(distinct words / 32).
"""

import math
import re

import numpy as np
import pytest

from gemmviz.core.kernels.cpasync_model import SPLIT_K_TILES, smem_bytes, space, splits
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.problem import Problem

V = VARIANTS["gpu-cpasync"]


class Kernel:
    """One configuration's macros and per-thread indices, named and computed as in kernels/cpasync.cu."""

    def __init__(self, c: dict):
        self.c = c
        bm, bn, bk, wm, wn, tm, tn = (c[x] for x in ("BM", "BN", "BK", "WM", "WN", "TM", "TN"))
        self.bm, self.bn, self.bk, self.tm, self.tn, self.stages = bm, bn, bk, tm, tn, c["STAGES"]
        self.threads = (bm // wm) * (bn // wn) * 32
        warps = self.threads // 32
        self.lr, self.lc, self.ms, self.ns = wm // tm, wn // tn, tm // 4, tn // 4
        self.as_ld = bm + 4
        self.a_stage, self.b_stage = bk * self.as_ld, bk * bn
        self.a_copies, self.b_copies = bm * bk // self.threads, bk * bn // 4 // self.threads
        kh = bk // 8
        self.a_row_step, self.b_row_step = 4 * warps // kh, self.threads // (bn // 4)
        assert self.a_copies * self.a_row_step == bm and self.b_copies * self.b_row_step == bk
        tid = np.arange(self.threads)
        warp, lane = tid // 32, tid % 32
        self.wm0, self.wn0 = (warp // (bn // wn)) * wm, (warp % (bn // wn)) * wn
        self.tr, self.tc = lane // self.lc, lane % self.lc
        self.am, self.ak = 4 * (warp // kh) + (lane // 8) % 4, 8 * (warp % kh) + lane % 8
        self.br, self.bc = tid // (bn // 4), 4 * (tid % (bn // 4))
        j = np.arange(self.a_copies)[:, None]
        self.a_words = self.ak * self.as_ld + self.am + j * self.a_row_step  # [copy, thread], in a stage of As
        j = np.arange(self.b_copies)[:, None, None]
        q = np.arange(4)[None, None, :]
        self.b_words = (self.br * bn + self.bc)[None, :, None] + j * self.b_row_step * bn + q  # [copy, thread, 4]
        # Fragment reads [k, register, thread]: a[4s + q] = As[kk][wm0 + tr*4 + s*LR*4 + q], likewise b.
        kk = np.arange(bk)[:, None, None]
        reg = np.arange(tm)[None, :, None]
        self.a_frag = kk * self.as_ld + (self.wm0 + self.tr * 4)[None, None, :] + (reg // 4) * self.lr * 4 + reg % 4
        reg = np.arange(tn)[None, :, None]
        self.b_frag = kk * bn + (self.wn0 + self.tc * 4)[None, None, :] + (reg // 4) * self.lc * 4 + reg % 4
        # The rows and columns of the block tile each accumulator is stored to (the epilogue's Cw arithmetic).
        reg = np.arange(tm)[:, None]
        self.acc_rows = (self.wm0 + self.tr * 4)[None, :] + (reg // 4) * self.lr * 4 + reg % 4  # [TM, thread]
        reg = np.arange(tn)[:, None]
        self.acc_cols = (self.wn0 + self.tc * 4)[None, :] + (reg // 4) * self.lc * 4 + reg % 4  # [TN, thread]

    @property
    def smem_words(self) -> int:
        return self.stages * (self.a_stage + self.b_stage)


def _configs() -> list[dict]:
    """The registry's configuration and, for each warp layout of the tuning space, its shortest K-slice with the
    shallowest pipeline and its longest with the deepest."""
    out = [dict(V.config)]
    for c in space():
        if (c["BK"], c["STAGES"]) in ((8, 2), (16, 4)) and c not in out:
            out.append(c)
    return out


CONFIGS = _configs()
IDS = ["-".join(f"{k}{v}" for k, v in c.items()) for c in CONFIGS]


def _distinct(values: np.ndarray) -> np.ndarray:
    """np.unique(values): the sorted distinct values, by a sort (np.unique hashes, 25 us a call on these small
    arrays, called 100,000 times here)."""
    s = np.sort(values, axis=None)
    return s[np.concatenate(([True], s[1:] != s[:-1]))] if s.size else s


def _wavefronts(words: np.ndarray) -> tuple[int, int]:
    """(wavefronts a warp request needs, the least it could need) for the words its 32 lanes touch."""
    distinct = _distinct(words)
    return int(np.bincount(distinct % 32, minlength=32).max()), math.ceil(distinct.size / 32)


def _sector_use(byte_addresses: np.ndarray, width: int) -> float:
    """Bytes a warp request uses over the bytes of the 32-byte sectors it touches."""
    touched = _distinct((byte_addresses[:, None] + np.arange(width)[None, :]).ravel() // 32)
    return _distinct(byte_addresses).size * width / (32 * touched.size)


def test_the_registry_describes_the_kernel_source():
    src = V.source_text()
    assert f"#define SPLITK_TILES {SPLIT_K_TILES} " in src  # the host splits K only where the counters reach
    assert "#define MIN_BLOCKS ((TM * TN <= 64 ? 512 : 256) / THREADS)" in src  # cpasync_model._register_blocks
    for macro, value in V.config.items():
        assert re.search(rf"#ifndef {macro}\n#define {macro} {value}\n#endif", src), macro  # defaults agree
    assert V.config in space() and 20 <= len(space()) <= 60  # a tuning run of a minute or two
    for c in space():
        k = Kernel(c)
        assert smem_bytes(c) == 4 * k.smem_words


@pytest.mark.parametrize("config", space(), ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_copies_and_reads_have_no_bank_conflicts_and_whole_sectors(config):
    k = Kernel(config)
    for stage in range(k.stages):
        a_base, b_base = stage * k.a_stage, k.stages * k.a_stage + stage * k.b_stage
        for w in range(k.threads // 32):
            lanes = slice(32 * w, 32 * w + 32)
            for j in range(k.a_copies):  # 4-byte copies of A into the transposed tile
                need, least = _wavefronts(a_base + k.a_words[j, lanes])
                assert need == least == 1, ("A copy", w, j)
            for j in range(k.b_copies):  # 16-byte copies of B
                words = b_base + k.b_words[j, lanes]
                assert (words[:, 0] % 4 == 0).all()  # 16-byte aligned
                need, least = _wavefronts(words)
                assert need == least, ("B copy", w, j)
            for kk in range(k.bk):  # LDS.128 fragment reads
                for s in range(k.ms):
                    words = a_base + k.a_frag[kk, 4 * s : 4 * s + 4, lanes].T
                    assert (words[:, 0] % 4 == 0).all() and _wavefronts(words) == (1, 1), ("A read", w, kk, s)
                for s in range(k.ns):
                    words = b_base + k.b_frag[kk, 4 * s : 4 * s + 4, lanes].T
                    assert (words[:, 0] % 4 == 0).all() and _wavefronts(words) == (1, 1), ("B read", w, kk, s)
    # Global side, for a K and N the engine's padding gives (multiples of BK and BN): whole sectors.
    big_k, big_n = 3 * k.bk, 2 * k.bn
    for w in range(k.threads // 32):
        lanes = slice(32 * w, 32 * w + 32)
        for j in range(k.a_copies):
            flat = (k.am[lanes] + j * k.a_row_step) * big_k + k.bk + k.ak[lanes]
            assert _sector_use(4 * flat, 4) == 1.0
        for j in range(k.b_copies):
            flat = (k.br[lanes] + j * k.b_row_step) * big_n + k.bn + k.bc[lanes]
            assert _sector_use(4 * flat, 16) == 1.0
        for r in range(0, k.tm, 4):
            for q in range(4):
                for s in range(0, k.tn, 4):
                    flat = k.acc_rows[r + q, lanes] * big_n + k.acc_cols[s, lanes]
                    assert _sector_use(4 * flat, 16) == 1.0


def _emulate(config: dict, problem: Problem, rng, order: str = "dispatch") -> tuple[np.ndarray, np.ndarray]:
    """C from the emulated kernel on the zero-padded inputs, and the float64 product of the unpadded ones."""
    k = Kernel(config)
    q = V.run_problem(problem, config)
    a = rng.standard_normal((problem.m, problem.k))
    b = rng.standard_normal((problem.k, problem.n))
    A, B = np.zeros((q.m, q.k)), np.zeros((q.k, q.n))
    A[: problem.m, : problem.k], B[: problem.k, : problem.n] = a, b
    A, B = A.ravel(), B.ravel()
    C = np.full(q.m * q.n, np.nan)  # poisoned: every element must be written
    M, N, K = q.m, q.n, q.k
    grid, block = V.geometry(q, {}, config)
    assert block == (k.threads, 1, 1) and grid[2] == 1
    tiles_m = M // k.bm
    slices = grid[1] // tiles_m
    assert grid[1] == tiles_m * slices and slices == splits(q, config)
    ktiles = K // k.bk
    turn = np.zeros(SPLIT_K_TILES, np.int64)
    blocks = [(x, y) for y in range(grid[1]) for x in range(grid[0])]  # linear order: all of slice 0 first
    if order == "shuffled":
        blocks = [blocks[i] for i in rng.permutation(len(blocks))]
    written = np.zeros(M * N, np.int64)
    while blocks:  # a block whose turn has not come waits while the others run
        waiting = []
        for bx, yb in blocks:
            by, sl = yb % tiles_m, yb // tiles_m
            tile = by * grid[0] + bx
            if sl > 0 and turn[tile] != sl:
                waiting.append((bx, yb))
                continue
            acc = _block(k, A, B, M, N, K, bx, by, ktiles * sl // slices, ktiles * (sl + 1) // slices)
            cw = (by * k.bm + k.wm0 + k.tr * 4) * N + bx * k.bn + k.wn0 + k.tc * 4
            for si in range(k.ms):
                for i in range(4):
                    for sj in range(k.ns):
                        dst = (cw + (si * k.lr * 4 + i) * N + sj * k.lc * 4)[:, None] + np.arange(4)
                        v = acc[:, 4 * si + i, 4 * sj : 4 * sj + 4]
                        C[dst] = C[dst] + v if sl > 0 else v
                        if sl == slices - 1:
                            np.add.at(written, dst.ravel(), 1)
            if slices > 1:
                turn[tile] = 0 if sl + 1 == slices else sl + 1
        assert len(waiting) < len(blocks), "no block can go on: the turns deadlock"
        blocks = waiting
    assert (turn == 0).all(), "a turn counter left set for the next launch"
    assert (written == 1).all(), "an element of C written by no last slice or by two"
    return C.reshape(M, N)[: problem.m, : problem.n], a @ b


def _block(k: Kernel, A, B, M, N, K, bx, by, kt0, kt1) -> np.ndarray:
    """One block's accumulators [thread, TM, TN] over K-slices [kt0, kt1), through the cp.async pipeline."""
    smem = np.full(k.smem_words, np.nan)
    tag = np.full(k.smem_words, -1)  # which K-slice a shared word holds
    ntiles = kt1 - kt0
    ag = (by * k.bm + k.am) * K + kt0 * k.bk + k.ak  # the kernel's Ag, Bg (flat element offsets, per thread)
    bg = (kt0 * k.bk + k.br) * N + bx * k.bn + k.bc
    pending: list[tuple[np.ndarray, np.ndarray, int]] = []  # committed, not waited for: (words, values, K-slice)
    issued = [kt0]  # the K-slice the next load_tile fetches

    def load_tile(stage: int) -> tuple[np.ndarray, np.ndarray]:
        nonlocal ag, bg
        a_src = ag[None, :] + np.arange(k.a_copies)[:, None] * k.a_row_step * K
        a_dst = stage * k.a_stage + k.a_words
        b_src = bg[None, :, None] + np.arange(k.b_copies)[:, None, None] * k.b_row_step * N + np.arange(4)
        b_dst = k.stages * k.a_stage + stage * k.b_stage + k.b_words
        ag, bg = ag + k.bk, bg + k.bk * N
        words = np.concatenate([a_dst.ravel(), b_dst.ravel()])
        assert _distinct(words).size == words.size, "two copies to one shared word"
        return words, np.concatenate([A[a_src.ravel()], B[b_src.ravel()]])

    def commit(group) -> None:
        pending.append((*group, issued[0]) if group else (np.zeros(0, int), np.zeros(0), -1))
        if group:
            issued[0] += 1

    def wait_group(allowed: int) -> None:  # cp.async.wait_group: all but the newest `allowed` groups land
        while len(pending) > allowed:
            words, values, kt = pending.pop(0)
            smem[words], tag[words] = values, kt

    acc = np.zeros((k.threads, k.tm, k.tn))
    for s in range(k.stages - 1):
        commit(load_tile(s) if s < ntiles else None)
    read_stage, write_stage = 0, k.stages - 1
    for t in range(ntiles):
        wait_group(k.stages - 2)
        commit(load_tile(write_stage) if t + k.stages - 1 < ntiles else None)
        a_words = read_stage * k.a_stage + k.a_frag
        b_words = k.stages * k.a_stage + read_stage * k.b_stage + k.b_frag
        read = np.concatenate([a_words.ravel(), b_words.ravel()])
        assert (tag[read] == kt0 + t).all(), "a fragment read sees another K-slice or a copy still in flight"
        being_read = np.zeros(k.smem_words, bool)
        being_read[read] = True  # np.isin(words, read), as a lookup
        for words, _, _ in pending:  # copies in flight may land at any time during these reads
            assert not being_read[words].any(), "a copy in flight refills the stage being read"
        acc += np.einsum("krt,kst->trs", smem[a_words], smem[b_words])
        read_stage = 0 if read_stage + 1 == k.stages else read_stage + 1
        write_stage = 0 if write_stage + 1 == k.stages else write_stage + 1
    return acc


SHAPES = [Problem(1, 1, 1), Problem(33, 17, 65), Problem(257, 383, 200)]


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_emulated_kernel_computes_the_product(config):
    rng = np.random.default_rng(19)
    for shape in SHAPES:
        got, expected = _emulate(config, shape, rng)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=str(shape))


def test_split_k_sums_in_slice_order_whatever_order_blocks_run():
    config = dict(V.config)
    q = Problem(257, 383, 200)
    assert splits(V.run_problem(q, config), config) == 3
    first, expected = _emulate(config, q, np.random.default_rng(3))
    again, _ = _emulate(config, q, np.random.default_rng(3), order="shuffled")
    assert np.array_equal(first, again)  # the same sums in the same order: bit for bit
    np.testing.assert_allclose(first, expected, rtol=1e-12, atol=1e-12)


def test_split_k_only_where_tiles_are_few():
    c = dict(V.config)
    cases = {1024: 4, 2048: 1, 4096: 1, 8192: 1}
    for size, slices in cases.items():
        assert splits(Problem(size, size, size), c) == slices, size
    assert splits(Problem(2048, 4096, 3072), c) == 1
    assert splits(Problem(128, 128, 48), c) == 1  # 3 K-slices: too short to split
    for c in space():
        for p in (Problem(1024, 1024, 1024), Problem(384, 384, 208), Problem(128, 128, 4096)):
            s = splits(p, c)
            ktiles = p.k // c["BK"]
            assert 1 <= s <= 4 and (s == 1 or ktiles // s >= 4)  # every slice has K-slices to do
            grid, _ = V.geometry(p, {}, c)
            assert s == 1 or grid[0] * grid[1] // s <= SPLIT_K_TILES
