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
    assert loop.count("stage_barrier(barriers++);") == 3
    assert "__syncthreads" not in loop.replace("    __syncthreads();\n#endif\n#if FRAG_DB == 2", "")  # (PBAR 2's init)
    # PBAR 2: each thread arrives at both mbarriers before it waits on either, on the slice's phase parity
    assert re.search(
        r"arrive[^\n]*\(row\)[^$]*arrive[^\n]*\(col\)[^$]*mbarrier_wait\(row, n & 1\);\s*"
        r"(//[^\n]*)?\s*mbarrier_wait\(col, n & 1\);",
        src,
    )
    assert '"r"(tid < WARPS_M ? WARPS_N * 32 : WARPS_M * 32)' in src  # expected arrivals: the group's threads


class Hazard(AssertionError):
    pass


def _regions(k: PbarKernel, pbar: bool) -> dict[int, set]:
    """The regions of a stage each warp copies a part of: ("A", row group) and ("B", column group)."""
    tid = np.arange(k.threads)
    if pbar:
        a_rows, b_cols = k.a_rows, k.b_cols
    else:  # the shipped copy map (block-wide barrier): rows and columns spread over the whole tile
        kh, warps = k.bk // 8, k.threads // 32
        am = 4 * (tid // 32 // kh) + (tid % 32 // 8) % 4
        a_rows = am[None, :] + np.arange(k.a_copies)[:, None] * (4 * warps // kh)
        b_cols = np.broadcast_to(4 * (tid % (k.bn // 4)), (k.b_copies, k.threads))
    out = {}
    for w in range(k.threads // 32):
        lanes = slice(32 * w, 32 * w + 32)
        out[w] = {("A", int(r)) for r in np.unique(a_rows[:, lanes] // k.wm)}
        out[w] |= {("B", int(c)) for c in np.unique(b_cols[:, lanes] // k.wn)}
    return out


def _simulate(k: PbarKernel, writes, barriers, both: bool, frag_db: int, stages: int, slices: int, rng) -> bool:
    """Run the K loop's protocol (cp.async issue, wait_group, barriers, fragment reads) for every warp under a random
    interleaving, each copy landing at a random moment between its issue and the wait that covers it (often at
    once). `barriers(w)`: the groups warp w syncs with each slice, in order; `both`: arrive at all, then wait for
    all (PBAR 2's mbarriers), else one after the other (bar.sync: PBAR 0 and 1). Raises Hazard if a warp reads a
    part of a stage that does not hold the slice it multiplies (a read before the copy landed, or after the next
    slice's copy overwrote it); AssertionError on a deadlock. Returns whether some warp got past a slice's barriers
    before every warp had arrived at them (what a barrier over part of the block is for)."""
    warps, wn = k.threads // 32, k.warps_n
    reads = {w: {("A", w // wn), ("B", w % wn)} for w in range(warps)}
    members: dict = {}
    for w in range(warps):
        for g in barriers(w):
            members.setdefault(g, set()).add(w)
    arrived, gen = dict.fromkeys(members, 0), dict.fromkeys(members, 0)
    at_slice = dict.fromkeys(range(warps), -1)  # the last slice whose barriers each warp has arrived at
    content: dict = {}
    inflight: list = []
    ran_ahead = False

    def land(copy):
        inflight.remove(copy)
        w, t = copy
        for region in writes[w]:
            content[t % stages, region, w] = t

    def issue(w, t):
        if t < slices:
            inflight.append((w, t))
            if rng.random() < 0.5:
                land((w, t))

    def wait(w, t):  # cp.async.wait_group: this warp's copies of slices <= t have landed
        for copy in [c for c in inflight if c[0] == w and c[1] <= t]:
            land(copy)

    def read(w, t):
        for region in reads[w]:
            for v in range(warps):
                if region in writes[v] and content.get((t % stages, region, v)) != t:
                    got = content.get((t % stages, region, v))
                    raise Hazard(f"warp {w} reads slice {t} of {region}, warp {v}'s part holds {got}")

    def arrive(g):
        arrived[g] += 1
        if arrived[g] == len(members[g]):
            arrived[g], gen[g] = 0, gen[g] + 1

    def barrier(w, t):
        nonlocal ran_ahead
        at_slice[w] = t
        groups = barriers(w)
        if both:
            mine = {g: gen[g] for g in groups}
            for g in groups:
                arrive(g)
            while any(gen[g] == mine[g] for g in groups):
                yield "blocked"
        else:
            for g in groups:
                mine = gen[g]
                arrive(g)
                while gen[g] == mine:
                    yield "blocked"
        ran_ahead |= min(at_slice.values()) < t

    def program(w, steps=3):  # a slice's fragment reads in `steps` parts
        for s in range(stages - 1):
            issue(w, s)
        if frag_db == 2:
            wait(w, 0)
            yield from barrier(w, 0)
            issue(w, stages - 1)
            read(w, 0)
            for t in range(slices):
                for _ in range(steps - 1):
                    read(w, t)
                    yield "ran"
                if t + 1 < slices:  # the barrier in the slice's last k, after its reads, before its FMAs
                    wait(w, t + 1)
                    yield from barrier(w, t + 1)
                    issue(w, t + stages)
                    read(w, t + 1)
                yield "ran"
        else:
            for t in range(slices):
                wait(w, t)
                yield from barrier(w, t)
                issue(w, t + stages - 1)
                for _ in range(steps):
                    read(w, t)
                    yield "ran"

    live = {w: program(w) for w in range(warps)}
    stuck = 0
    while live:
        if inflight and rng.random() < 0.3:
            land(inflight[rng.integers(len(inflight))])
        w = list(live)[rng.integers(len(live))]
        try:
            stuck = stuck + 1 if next(live[w]) == "blocked" else 0
        except StopIteration:
            del live[w]
            stuck = 0
        assert stuck < 10_000, "deadlock: every warp waits at a barrier"
    return ran_ahead


def _row_and_column(k: PbarKernel):
    return lambda w: [("row", w // k.warps_n), ("col", w % k.warps_n)]


def _block(w):
    return [("all", 0)]


@pytest.mark.parametrize("name", ["128x256", "128x128", "64x64"])
@pytest.mark.parametrize("frag_db", [1, 2])
def test_the_k_loop_with_partial_barriers_never_reads_a_stage_in_flight(name, frag_db):
    k = PbarKernel(CONFIGS[name])
    rng = np.random.default_rng(48)
    ahead = {1: False, 2: False, 0: False}
    for stages in (2, 3, 4):
        for _ in range(25):
            ahead[1] |= _simulate(k, _regions(k, True), _row_and_column(k), False, frag_db, stages, 5, rng)
            ahead[2] |= _simulate(k, _regions(k, True), _row_and_column(k), True, frag_db, stages, 5, rng)
            ahead[0] |= _simulate(k, _regions(k, False), _block, False, frag_db, stages, 5, rng)  # as shipped
    # PBAR 2 lets a warp past a slice's barriers before the warps outside its row and column arrive; PBAR 1's
    # pair (row, then column) never does: it waits for everyone, as the block-wide barrier does
    assert ahead == {0: False, 1: False, 2: True}


@pytest.mark.parametrize(
    "broken",
    ["the shipped copy map under PBAR 2", "the row barrier only", "the column barrier only"],
)
def test_the_simulation_catches_a_wrong_partition_or_a_missing_barrier(broken):
    """The model above is not vacuous: each of these breaks the protocol and is caught."""
    k = PbarKernel(CONFIGS["128x256"])
    writes, barriers = _regions(k, True), _row_and_column(k)
    if broken == "the shipped copy map under PBAR 2":
        writes = _regions(k, False)
    elif broken == "the row barrier only":
        barriers = lambda w: [("row", w // k.warps_n)]  # noqa: E731
    else:
        barriers = lambda w: [("col", w % k.warps_n)]  # noqa: E731
    rng = np.random.default_rng(1)
    with pytest.raises(Hazard):
        for _ in range(200):
            _simulate(k, writes, barriers, True, 2, 3, 5, rng)


def test_the_named_barrier_pair_is_as_strong_as_a_block_barrier():
    """PBAR 1's bar.sync over the row, then over the column, is safe even with the shipped copy map (each warp's
    copies spread over every row and column group): the column barrier waits for a warp of each other row to have
    passed its row barrier. So it cannot absorb skew between warps that a block-wide barrier would not."""
    k = PbarKernel(CONFIGS["128x256"])
    rng = np.random.default_rng(2)
    for _ in range(100):
        assert not _simulate(k, _regions(k, False), _row_and_column(k), False, 2, 3, 5, rng)
