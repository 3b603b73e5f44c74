"""gpu-cpasync-any's partial barriers (kernels/cpasync_any.cu, PBAR=1; issue 48, technique 5) without a GPU.

With PBAR=1 the block-wide barrier of each K-slice becomes a named barrier over the warps of one warp row and
one over the warps of one warp column, so the copies are re-partitioned: the kernel's copy_map, transcribed here,
must make each row group copy exactly the rows of A its warps read, and each column group exactly the columns
of B its warps read. Then every writer and every reader of a region of a stage belong to the one group whose
barrier guards that region, and the block-wide argument (wait for your own copies, then the barrier; refill
only the stage everyone in the group has finished reading) holds inside each group. Checked for every stage
word: written once per K-slice, by a thread of the right group, read only by warps of that group; and the
copies stay free of shared-memory bank conflicts and use whole 32-byte sectors of global memory.
"""

import math
import re

import numpy as np
import pytest

from gemmviz.core import paths

CONFIGS = {  # BMxBN/BK: the warp and thread tiles fp32_round3.py names (8 warps; 4 for 64x64)
    "128x256": {"BM": 128, "BN": 256, "BK": 16, "WM": 64, "WN": 64, "TM": 8, "TN": 16},
    "128x256-bk32": {"BM": 128, "BN": 256, "BK": 32, "WM": 64, "WN": 64, "TM": 8, "TN": 16},
    "128x128": {"BM": 128, "BN": 128, "BK": 16, "WM": 32, "WN": 64, "TM": 8, "TN": 8},
    "64x128": {"BM": 64, "BN": 128, "BK": 16, "WM": 32, "WN": 64, "TM": 8, "TN": 8},
    "64x64": {"BM": 64, "BN": 64, "BK": 16, "WM": 32, "WN": 32, "TM": 8, "TN": 4},
}


class PbarKernel:
    """One configuration's copy_map (PBAR 1 branch) and fragment reads, as kernels/cpasync_any.cu computes them."""

    def __init__(self, c: dict):
        bm, bn, bk, wm, wn, tm, tn = (c[k] for k in ("BM", "BN", "BK", "WM", "WN", "TM", "TN"))
        self.bm, self.bn, self.bk, self.wm, self.wn = bm, bn, bk, wm, wn
        self.warps_m, self.warps_n = bm // wm, bn // wn
        self.threads = self.warps_m * self.warps_n * 32
        kh = bk // 8
        self.as_ld = bm + 4
        self.a_copies, self.b_copies = bm * bk // self.threads, bk * bn // 4 // self.threads
        self.a_step, self.b_step = 4 * self.warps_n // kh, self.warps_m * 32 // (wn // 4)  # A_STEP, B_STEP
        assert self.warps_n % kh == 0 and self.a_copies * self.a_step == wm  # the kernel's static_asserts
        assert (self.warps_m * 32) % (wn // 4) == 0 and self.b_copies * self.b_step == bk
        tid = np.arange(self.threads)
        warp, lane = tid // 32, tid % 32
        self.wr, self.wc = warp // self.warps_n, warp % self.warps_n
        ct = self.wr * 32 + lane
        # copy_map(), PBAR 1
        self.am = self.wr * wm + 4 * (self.wc // kh) + (lane // 8) % 4
        self.ak = 8 * (self.wc % kh) + lane % 8
        self.br, self.bc = ct // (wn // 4), self.wc * wn + 4 * (ct % (wn // 4))
        j = np.arange(self.a_copies)[:, None]
        self.a_rows = self.am[None, :] + j * self.a_step  # [copy, thread]: As[ak][row]
        self.a_k = np.broadcast_to(self.ak, self.a_rows.shape)
        j = np.arange(self.b_copies)[:, None]
        self.b_rows = self.br[None, :] + j * self.b_step  # [copy, thread]: Bs[row][bc .. bc + 3]
        self.b_cols = np.broadcast_to(self.bc, self.b_rows.shape)
        # fragment reads (multiply_tile / cpasync_core.cuh): rows wm0 + tr*4 + s*LR*4 + q, cols wn0 + tc*4 + ...
        lr, lc = wm // tm, wn // tn
        tr, tc = lane // lc, lane % lc
        reg = np.arange(tm)[:, None]
        self.read_rows = (self.wr * wm + tr * 4)[None, :] + (reg // 4) * lr * 4 + reg % 4  # [TM, thread]
        reg = np.arange(tn)[:, None]
        self.read_cols = (self.wc * wn + tc * 4)[None, :] + (reg // 4) * lc * 4 + reg % 4  # [TN, thread]


@pytest.mark.parametrize("name", list(CONFIGS))
def test_each_group_copies_exactly_what_its_warps_read(name):
    k = PbarKernel(CONFIGS[name])
    # every word of a stage written once per K-slice
    a_words = (k.a_k * k.as_ld + k.a_rows).ravel()
    assert np.array_equal(np.sort(a_words), np.sort((np.arange(k.bk)[:, None] * k.as_ld + np.arange(k.bm)).ravel()))
    b_words = ((k.b_rows * k.bn + k.b_cols)[..., None] + np.arange(4)).ravel()
    assert np.array_equal(np.sort(b_words), np.arange(k.bk * k.bn))
    # A's rows r*WM.. only by row group r (its writers), B's columns c*WN.. only by column group c
    assert (k.a_rows // k.wm == k.wr[None, :]).all()
    assert (k.b_cols // k.wn == k.wc[None, :]).all()
    # ... and read only by the warps of that same group
    assert (k.read_rows // k.wm == k.wr[None, :]).all()
    assert (k.read_cols // k.wn == k.wc[None, :]).all()
    # so each warp reads all of its group's region, nothing outside: rows [wr*WM, +WM), columns [wc*WN, +WN)
    for w in range(k.threads // 32):
        lanes = slice(32 * w, 32 * w + 32)
        assert set(np.unique(k.read_rows[:, lanes])) == set(range(k.wr[32 * w] * k.wm, (k.wr[32 * w] + 1) * k.wm))
        assert set(np.unique(k.read_cols[:, lanes])) == set(range(k.wc[32 * w] * k.wn, (k.wc[32 * w] + 1) * k.wn))
    # the groups' sizes are the named barriers' thread counts, and the ids fit the 16 a block has
    assert np.bincount(k.wr).tolist() == [k.warps_n * 32] * k.warps_m
    assert np.bincount(k.wc).tolist() == [k.warps_m * 32] * k.warps_n
    assert 1 + k.warps_m + k.warps_n <= 16


def _wavefronts(words: np.ndarray) -> tuple[int, int]:
    distinct = np.unique(words)
    return int(np.bincount(distinct % 32, minlength=32).max()), math.ceil(distinct.size / 32)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_regrouped_copies_have_no_bank_conflicts_and_whole_sectors(name):
    k = PbarKernel(CONFIGS[name])
    n_k = 4096  # a row length of A and B (floats) for the global addresses
    for w in range(k.threads // 32):
        lanes = slice(32 * w, 32 * w + 32)
        for j in range(k.a_copies):  # 4-byte copies of A into the transposed tile
            got, least = _wavefronts(k.a_k[j, lanes] * k.as_ld + k.a_rows[j, lanes])
            assert got == least, f"{name}: A store, warp {w}, copy {j}: {got} wavefronts"
            addr = 4 * (k.a_rows[j, lanes] * n_k + k.a_k[j, lanes])
            sectors = np.unique(addr // 32).size
            assert sectors * 32 == 4 * 32, f"{name}: A load, warp {w}: {sectors} sectors for 128 bytes"
        for j in range(k.b_copies):  # 16-byte copies of B
            words = ((k.b_rows[j, lanes] * k.bn + k.b_cols[j, lanes])[:, None] + np.arange(4)).ravel()
            got, least = _wavefronts(words)
            assert got == least, f"{name}: B store, warp {w}, copy {j}: {got} wavefronts"
            addr = 4 * (k.b_rows[j, lanes] * n_k + k.b_cols[j, lanes])
            assert np.unique(addr // 32).size * 32 == 16 * 32, f"{name}: B load, warp {w}: partial sectors"


def test_kernel_source_has_the_transcribed_arithmetic():
    """The formulas above are the kernel's (a change to one must change the other)."""
    src = paths.kernel_source("cpasync_any.cu")
    assert "#define A_STEP (4 * WARPS_N / KH)" in src
    assert "#define B_STEP (WARPS_M * 32 / (WN / 4))" in src
    assert "ct = wr * 32 + lane" in src
    assert "c.am = wr * WM + 4 * (wc / KH) + (lane / 8) % 4, c.ak = 8 * (wc % KH) + lane % 8;" in src
    assert "c.br = ct / (WN / 4), c.bc = wc * WN + 4 * (ct % (WN / 4));" in src
    # the two named barriers: row group (id 1 + row, WARPS_N warps), column group (id 1 + WARPS_M + column)
    assert re.search(r'bar\.sync %0, %1;\\n" ::"r"\(1 \+ warp / WARPS_N\), "n"\(WARPS_N \* 32\)', src)
    assert re.search(r'bar\.sync %0, %1;\\n" ::"r"\(1 \+ WARPS_M \+ warp % WARPS_N\), "n"\(WARPS_M \* 32\)', src)
    # the K loop's barrier is stage_barrier() in every FRAG_DB branch: no block-wide one left between the stages
    loop = src[src.index("int read_stage = 0, write_stage") : src.index("// Store acc")]
    assert "__syncthreads" not in loop and loop.count("stage_barrier();") == 3
