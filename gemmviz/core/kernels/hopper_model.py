"""The Hopper kernel's (kernels/wgmma_tf32.cu) configuration, tuning space, launch shape and traffic model.

Kept apart from the registry so `variants.py` stays small; pure arithmetic, no driver. The launcher
(`gemmviz.backends.wgmma.WgmmaConfig`) holds the same defaults: a test checks they agree.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from gemmviz.core.kernels.model import Traffic, ceil_div
from gemmviz.core.problem import Problem

# The kernel's -D macros (defaults of WgmmaConfig); BK = 32 and BN = 64·CONSUMERS are fixed in the kernel.
WGMMA = {"BM": 256, "CONSUMERS": 2, "STAGES": 4, "GROUP_M": 8, "B_REGS": 1, "DEPTH": 1, "CLUSTER": 1, "SPLITS": 0}
WGMMA_BK = 32  # one 128-byte swizzle row of FP32
SMEM_LIMIT = 227 * 1024  # dynamic shared memory per block on sm_90
# TMA needs 16-byte row pitches (K for A, N for B). Nothing is padded by the engine: where K or N is not a
# multiple of 4, the launcher (backends/wgmma.py) copies that one operand into rows padded to 16 bytes inside the
# launch (kernels/wgmma_tf32.cu's pad_rows), and TMA reads the pad as zeros; C is stored as it stands.

WGMMA_EXPLANATION = (
    "Hopper's own machinery. One thread of a producer warpgroup copies whole tiles of A and B from global "
    "into shared memory with single TMA instructions (cp.async.bulk.tensor), into a ring of stages; each stage "
    "has a 'full' mbarrier (it counts the bytes the copy delivers) and an 'empty' one (the consumers arrive "
    "when they are done with it, and the producer waits on it before refilling the stage). Two consumer "
    "warpgroups issue warpgroup MMAs (wgmma, 64 rows by BM columns by 8 deep, asynchronous) straight from "
    "shared memory. TF32 wgmma wants both operands K-major, and B (row-major K×N) is not, so the kernel "
    "computes the transposed product Cᵀ = Bᵀ·Aᵀ: the B tile comes through registers, where no layout is "
    "required, and the A tile is read by the tensor cores from shared memory as it stands. Its tile shape follows the "
    "size: 256×128 tiles from 2048³ up, past one wave in persistent 2-block clusters along a Hilbert curve; 192×128 "
    "tiles, or 128×64 with one consumer warpgroup, where those fill the 132 SMs better; each result's note says which "
    "ran."
)


def wgmma_bn(c: Mapping[str, int]) -> int:
    return 64 * c["CONSUMERS"]


def wgmma_threads(c: Mapping[str, int]) -> int:
    """A producer warpgroup plus CONSUMERS consumer warpgroups."""
    return 128 * (c["CONSUMERS"] + 1)


def wgmma_smem_bytes(c: Mapping[str, int]) -> int:
    """STAGES stages of A and B tiles, 1024 bytes to align the swizzle, two 8-byte mbarriers per stage."""
    return c["STAGES"] * (c["BM"] + wgmma_bn(c)) * WGMMA_BK * 4 + 1024 + 16 * c["STAGES"]


def wgmma_tiles(p: Problem, c: Mapping[str, int]) -> tuple[int, int]:
    """(block rows, block columns) of the grid: whole clusters along N, so a cluster's last block may lie
    past N (it loads its share of A for its peer, computes zeros and stores nothing)."""
    cluster = c["CLUSTER"]
    return ceil_div(p.m, c["BM"]), ceil_div(p.n, wgmma_bn(c) * cluster) * cluster


# Split-K (SPLITS = slices of K per tile, each slice at least 4 K-blocks of 32): the kernel supports it, but on
# the H200 it was slower than no split at every size tried (benchmarks/wgmma_splitk.py, docs/benchmarks.md: 1024³ in
# 128×128 tiles 16.3 µs unsplit, 16.4 in 2 slices, 27.6 in 4), so SPLITS = 0 (auto) runs unsplit and a count
# is only used where a config names one. No split above 4096 block tiles (the kernel's counters, SPLITK_TILES).
SPLIT_SMS, SPLIT_MIN_KBLOCKS, SPLIT_TILES = 132, 4, 4096


def wgmma_splits(p: Problem, c: Mapping[str, int]) -> int:
    """Slices of K per tile of C: the config's SPLITS (at most one per 4 K-blocks), 1 when it is 0 (auto) or
    the grid is persistent."""
    if c.get("PERSIST"):
        return 1
    k_blocks = ceil_div(p.k, WGMMA_BK)
    rows, cols = wgmma_tiles(p, c)
    if rows * cols > SPLIT_TILES:
        return 1
    return max(1, min(int(c.get("SPLITS", 0)), k_blocks // SPLIT_MIN_KBLOCKS))


# Where 256-row tiles fill the last wave of 132 SMs under 80% (1024³: 32 tiles on 132 SMs; 2048×3072×4096:
# 192 tiles, 2 waves for 1.45 of work), 128-row tiles without clusters run instead (6 stages). Measured on the
# H200 (benchmarks/wgmma_splitk.py, docs/benchmarks.md, % of cuBLAS TF32, 256×128 pairs → 128×128): 1024³ 52% → 85%,
# 1000³ 54% → 89%, 2048×3072×4096 84% → 92%; at 2048³ (128 tiles) 256 rows stay ahead, 101% against 87%.
SMALL_BM, SMALL_STAGES, SMALL_CLUSTER, WAVE_FILL = 128, 6, 1, 0.8
# Two finer steps, each taken only where its tiles fill their waves at least WAVE_FILL and the step before did not
# (benchmarks/tf32_round3.py, docs/benchmarks.md "The TF32 rung: the leads timed", % of cuBLAS TF32 on an H100):
# - more than one wave: 192-row tiles (5 stages), persistent 2-block clusters in Hilbert order, where that grid fills
#   its waves at least 80% (2000×3000×1000 and 2048×3072×4096: 264 tiles, 2 whole waves): 88.9% → 99.2%, 86.2% → 100.6%;
# - under one wave of 128×128 tiles: 128×64 tiles (one consumer warpgroup, 8 stages), twice the tiles (1024³: 128
#   on 132 SMs): 1024³ 83.6% → 133.2%, 1000³ 91.9% → 101.5%.
MID_BM, MID_STAGES = 192, 5
NARROW_CONSUMERS, NARROW_STAGES = 1, 8


def wave_fill(tiles: int, sms: int = SPLIT_SMS) -> float:
    """The share of its waves' SM slots a grid of `tiles` blocks fills (1.0: whole waves)."""
    return tiles / (ceil_div(tiles, sms) * sms) if tiles > 0 else 0.0


# Where the grid holds more tiles than SMs, a persistent grid (PERSIST=1: one block per SM, a static tile
# scheduler, the ring running on across tiles so the next tile loads while the last one is stored) with 2-block
# clusters (TMA multicast of A) runs instead, its 256-row tiles along a Hilbert curve (ORDER=1), its 128-row tiles
# in the grouped order. Measured on an H100 (benchmarks/tf32_round3.py, docs/benchmarks.md "The TF32 rung, round 3",
# % of cuBLAS TF32, old choice → this one): 8192³ 86.0% → 96.3%, 4096³ 92.0% → 95.9%, 2000×3000×1000 78.9% → 90.0%.
# Grids of one wave or less (1000³, 1024³, 2048³) keep their blocks: a persistent grid of one wave is the same grid.
PERSIST_SMS = 132  # blocks of a persistent grid: the SMs of an H100 SXM or H200 (whole clusters)

# Stream-K (STREAMK=1 with PERSIST=1, kernels/wgmma_tf32.cu; off unless a config names it, until measured): the
# tiles of the last, partial wave are shared out in k-blocks over every worker (a cluster of the persistent grid),
# so no SM idles at the end; the pieces of a shared tile meet in a workspace, the last to arrive sums them.
SK_MIN_UNITS = 4  # k-blocks a worker should get at least
SK_MIN_GAIN = 0.02  # share of the busiest worker's k-blocks stream-K must spare, else none
SK_TILES_MAX = 4096  # the kernel's tile counters (SPLITK_TILES), one per block tile shared out


def streamk_plan(tiles: int, kt: int, full: int) -> tuple[int, int]:
    """(workers, shared-out tiles) of a stream-K grid of `tiles` cluster tiles of `kt` k-blocks on at most `full`
    workers. Under one wave, every tile is shared out over as many workers as give each SK_MIN_UNITS k-blocks, or
    split evenly over fewer where the busiest worker is no busier;
    past it, the partial last wave (tiles mod workers), plus one whole wave more where the partial one would give
    each worker under half a tile (so each shared tile has at most 2 or 3 pieces); none if the waves are whole or
    sharing would spare the busiest worker under SK_MIN_GAIN of its k-blocks (2048³ in 256-row tiles: 128 on 132)."""
    if kt <= 0 or tiles <= 0:
        return max(1, min(tiles, full)), 0
    if tiles < full:
        workers, sk = min(full, max(tiles, tiles * kt // SK_MIN_UNITS)), tiles
        # Each tile split evenly over `split` workers (split-K in effect: exactly `split` pieces per tile, two taking
        # the kernel's cheaper sum) where that leaves the busiest worker no busier: 1024³ in 128×128 tiles runs on
        # 128 SMs, 16 k-blocks each, as on 132 (16 for some), without tiles of three pieces.
        split = max(1, min(full // tiles, kt // SK_MIN_UNITS))
        if ceil_div(tiles * kt, tiles * split) <= ceil_div(tiles * kt, workers):
            workers = tiles * split
    else:
        r = tiles % full
        if 2 * r < full and tiles >= full + r:
            r += full
        workers, sk = full, r if r and r * kt >= full * SK_MIN_UNITS else 0
    # Not worth the partial tiles where the busiest worker would be spared under SK_MIN_GAIN of its k-blocks.
    if sk and ceil_div(tiles * kt, workers) > (1 - SK_MIN_GAIN) * ceil_div(tiles, min(tiles, full)) * kt:
        return min(tiles, full), 0
    return workers, sk


def streamk_start(w: int, units: int, workers: int) -> int:
    """First unit (k-block of the shared-out tiles, tile-major) of worker w's range; the kernel's sk_start."""
    return w * units // workers


def streamk_owner(u: int, units: int, workers: int) -> int:
    """The worker whose range holds unit u (the largest w with streamk_start(w) <= u); the kernel's sk_owner."""
    return ((u + 1) * workers + units - 1) // units - 1


def streamk_slot(w: int, j: int, units: int, workers: int, kt: int) -> int:
    """Workspace slot of worker w's piece of shared-out tile j: 2w where w's range starts, else 2w + 1."""
    return 2 * w + (0 if j == streamk_start(w, units, workers) // kt else 1)


def streamk_pieces(tiles: int, kt: int, workers: int, sk: int) -> list[list[tuple[int, int, int]]]:
    """Per worker, the pieces (tile, first k-block, end k-block) it computes in order, as the kernel walks them:
    tiles w, w + workers, ... below tiles − sk whole, then its range of the shared-out tiles' k-blocks."""
    dp = tiles - sk
    units = sk * kt
    out: list[list[tuple[int, int, int]]] = []
    for w in range(workers):
        pieces = [(cid, 0, kt) for cid in range(w, dp, workers)]
        u, u1 = streamk_start(w, units, workers), streamk_start(w + 1, units, workers)
        while u < u1:
            lo = u % kt
            hi = min(kt, lo + u1 - u)
            pieces.append((dp + u // kt, lo, hi))
            u += hi - lo
        out.append(pieces)
    return out


# Stream-K in the registry's choice: off until a recorded run measures it faster (docs/benchmarks.md, "The TF32
# rung: stream-K of the last wave"); when on, wgmma_fit shares out the partial last wave (streamk_plan) of the
# configuration it chose, keeping its tiles, cluster and order.
STREAMK_FIT = False
# The values wgmma_fit may give, per key, beside the tuning space's: a session holding a result run with them is
# read back (core/session/bounds checks every key of a result's config against these)
WGMMA_FIT_VALUES = {"BM": (SMALL_BM, MID_BM), "STAGES": (SMALL_STAGES, MID_STAGES, NARROW_STAGES),
                    "CONSUMERS": (NARROW_CONSUMERS,), "CLUSTER": (SMALL_CLUSTER, 2), "PERSIST": (0, 1),
                    "ORDER": (0, 1), "STREAMK": (0, 1)}  # fmt: skip


def _tiles(p: Problem, c: Mapping[str, int]) -> int:
    """The tiles of C in c's tile shape (no cluster padding)."""
    rows, cols = wgmma_tiles(p, {**c, "CLUSTER": 1})
    return rows * cols


def wgmma_fit(p: Problem, c: Mapping[str, int]) -> dict[str, int]:
    """The configuration to run at p: c where its tiles fill their waves of 132 SMs at least 80%; else 192-row tiles
    (5 stages) where there are more of them than SMs and their persistent grid of 2-block clusters fills its waves
    at least 80%; else 128-row tiles (6 stages, no cluster), or 128×64 (one consumer, 8 stages) where 128×128 tiles
    fill under 80% of one wave and 128×64 fill it. Then, where the tiles outnumber the SMs, persistent, in 2-block
    clusters (Hilbert order for 192 and 256 rows); a grid of one wave or less keeps its blocks. With STREAMK_FIT
    (off), stream-K where streamk_plan shares tiles out."""
    out = dict(c)
    rows, cols = wgmma_tiles(p, c)
    if c["BM"] > SMALL_BM and wave_fill(rows * cols) < WAVE_FILL:
        mid = {**out, "BM": MID_BM, "STAGES": MID_STAGES, "CLUSTER": SMALL_CLUSTER}
        small = {**out, "BM": SMALL_BM, "STAGES": SMALL_STAGES, "CLUSTER": SMALL_CLUSTER}
        narrow = {**small, "CONSUMERS": NARROW_CONSUMERS, "STAGES": NARROW_STAGES}
        mid_rows, mid_cols = wgmma_tiles(p, {**mid, "CLUSTER": 2})  # as it runs: persistent, 2-block clusters
        persists = _tiles(p, mid) > PERSIST_SMS and not c.get("SPLITS") and "PERSIST" not in c
        small_tiles, narrow_tiles = _tiles(p, small), _tiles(p, narrow)
        if c["BM"] > MID_BM and persists and wave_fill(mid_rows * mid_cols) >= WAVE_FILL:
            out = mid
        elif small_tiles < SPLIT_SMS * WAVE_FILL and narrow_tiles <= SPLIT_SMS and wave_fill(narrow_tiles) >= WAVE_FILL:
            out = narrow
        else:
            out = small
    # persistent only past one wave of real tiles: a cluster's padding column must not push a one-wave grid into two
    if not c.get("SPLITS") and "PERSIST" not in c and _tiles(p, out) > PERSIST_SMS:
        out.update(CLUSTER=2, PERSIST=1, ORDER=int(out["BM"] > SMALL_BM))  # Hilbert measured with 192/256 rows
    if STREAMK_FIT and not c.get("SPLITS") and "STREAMK" not in c:
        rows, cols = wgmma_tiles(p, out)
        cluster = out["CLUSTER"]
        _workers, sk = streamk_plan(rows * cols // cluster, ceil_div(p.k, WGMMA_BK), PERSIST_SMS // cluster)
        if sk:  # a partial last wave (or a grid under one wave) whose k-blocks are worth sharing out
            out.update(PERSIST=1, STREAMK=1)
    return out


def wgmma_fit_note(p: Problem, unfitted: Mapping[str, int], fitted: Mapping[str, int]) -> str:
    """What wgmma_fit changed at p and why, in words a result's note carries ("" where it changed nothing)."""
    notes = []
    if (fitted["BM"], fitted["CONSUMERS"]) != (unfitted["BM"], unfitted["CONSUMERS"]):
        tile = f"{fitted['BM']}×{wgmma_bn(fitted)}"
        why = f"{tile} tiles: {unfitted['BM']}-row tiles would fill their last wave of SMs under 80% here"
        if fitted["BM"] == MID_BM:
            why += ", 192-row ones fill their waves at least 80%"
        elif _tiles(p, fitted) > _tiles(p, unfitted):
            why += f", {_tiles(p, fitted)} smaller tiles keep more SMs busy than {_tiles(p, unfitted)}"
        notes.append(why)
    if fitted.get("PERSIST"):
        order = ", Hilbert order" if fitted.get("ORDER") else ""
        notes.append(f"persistent, 2-block clusters{order}: more tiles than SMs")
    return "".join(f" ({n})" for n in notes)


def wgmma_geometry(
    p: Problem, _params: Mapping[str, int], c: Mapping[str, int]
) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """A 1-D grid (the kernel walks the tiles in grouped or Hilbert order itself), one block per tile and slice
    of K; persistent (PERSIST=1): one block per SM (PERSIST_SMS, whole clusters), fewer where there are fewer tiles;
    stream-K (STREAMK=1): streamk_plan's workers."""
    rows, cols = wgmma_tiles(p, c)
    if c.get("PERSIST") and c.get("STREAMK"):
        workers, _sk = streamk_plan(rows * cols // c["CLUSTER"], ceil_div(p.k, WGMMA_BK), PERSIST_SMS // c["CLUSTER"])
        return (workers * c["CLUSTER"], 1, 1), (wgmma_threads(c), 1, 1)
    if c.get("PERSIST"):
        return (min(rows * cols, PERSIST_SMS // c["CLUSTER"] * c["CLUSTER"]), 1, 1), (wgmma_threads(c), 1, 1)
    return (rows * cols * wgmma_splits(p, c), 1, 1), (wgmma_threads(c), 1, 1)


def wgmma_space() -> list[dict[str, int]]:
    """BM 128/192/256 with as many stages as fit (up to 6), grouped order, multicast pairs, wgmma depth."""
    out = []
    grid = itertools.product((128, 192, 256), range(2, 7), (4, 8, 16), (1, 2), (0, 1))
    for bm, stages, group_m, cluster, depth in grid:
        c = {
            "BM": bm,
            "CONSUMERS": 2,
            "STAGES": stages,
            "GROUP_M": group_m,
            "B_REGS": 1,
            "DEPTH": depth,
            "CLUSTER": cluster,
            "SPLITS": 0,
        }
        if wgmma_smem_bytes(c) <= SMEM_LIMIT:
            out.append(c)
    return out


def wgmma_traffic(p: Problem, c: Mapping[str, int]) -> Traffic:
    """Counts in elements, of the GEMM kernel on the problem as given (no padding; where K or N is not a multiple
    of 4, the launcher's row-pitch copy of A or B, a separate kernel, reads and writes that operand once more).

    Global loads: what TMA reads inside the matrices (out-of-range parts of a box are zero-filled on chip,
    not read). Each cluster column loads each row band of A once (CLUSTER blocks share it by multicast);
    each block loads its BN columns of B. Shared stores: whole boxes, STAGE bytes per block per k-step.
    Shared loads: per k-step each consumer warpgroup's wgmma reads the whole BM×32 A tile through its
    descriptor, and the consumers together read the 32×BN B tile once (fragments into registers).
    Multiply-adds: the tensor cores compute whole BM×BN×32 tiles, zeros included. Split-K: each slice writes
    its partial tile to the workspace and the last one reads them back (counted as global stores and loads);
    stream-K likewise for the pieces of each shared tile."""
    q = p
    bm, bn, cluster = c["BM"], wgmma_bn(c), c["CLUSTER"]
    rows, cols = wgmma_tiles(q, c)
    k_steps = ceil_div(q.k, WGMMA_BK)
    blocks = rows * cols
    splits = wgmma_splits(q, c)
    partials = 0 if splits == 1 else blocks * bm * bn * splits
    read_back = max(0, partials - blocks * bm * bn)
    model = f"wgmma + TMA (BM={bm}, BN={bn}, {c['STAGES']} stages, cluster {cluster}, split-K {splits})"
    if c.get("PERSIST") and c.get("STREAMK"):
        # Stream-K: every piece of a shared tile writes its partial tile; the last reads back the others (two
        # pieces) or all of them (more), counted per block of the cluster.
        workers, sk = streamk_plan(blocks // cluster, k_steps, PERSIST_SMS // cluster)
        pieces: dict[int, int] = {}
        for ps in streamk_pieces(blocks // cluster, k_steps, workers, sk):
            for cid, lo, hi in ps:
                if hi - lo != k_steps:
                    pieces[cid] = pieces.get(cid, 0) + 1
        tile = cluster * bm * bn
        partials = sum(pieces.values()) * tile
        read_back = sum((1 if x == 2 else x) for x in pieces.values()) * tile
        model = model.replace(")", f", stream-K {sk} tiles on {workers} workers)")
    return Traffic(
        model=model,
        global_loads=(cols // cluster) * q.m * q.k + rows * q.k * q.n + read_back,
        global_stores=q.m * q.n + partials,
        shared_loads=blocks * k_steps * WGMMA_BK * (c["CONSUMERS"] * bm + bn),
        shared_stores=blocks * k_steps * WGMMA_BK * (bm + bn),
        fmas_executed=blocks * k_steps * WGMMA_BK * bm * bn,
        flops=p.flops,
    )
