"""The cp.async rung's (kernels/cpasync.cu) configuration, tuning space, launch shape (with split-K) and traffic
model, and the arguments of its registry entry.

Kept apart from the registry so `variants.py` stays small; pure arithmetic, no driver. The kernel's macros are
named as here: tests/test_cpasync_layout.py checks that they agree and emulates the kernel's indexing.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from gemmviz.core.kernels.model import Traffic, blocked_traffic, ceil_div, fills_under_half, padded
from gemmviz.core.problem import Problem

# 128x128 tiles of 256 threads, 8x8 per thread (warps of 4x8 lanes, 32x64 each), K-slices of 16, 3 stages.
CPASYNC = {"BM": 128, "BN": 128, "BK": 16, "WM": 32, "WN": 64, "TM": 8, "TN": 8, "STAGES": 3}
# Split-K: K is split while the tiles of C fill less than one round of resident blocks on the H200's 132 SMs,
# into at most 4 slices of at least 4 K-slices each. On other GPUs the result is the same and the split a guess.
SPLIT_K_SMS, SPLIT_K_MAX, SPLIT_K_MIN_TILES = 132, 4, 4
SPLIT_K_TILES = 4096  # the kernel's turn counters (SPLITK_TILES): no split above this many tiles
SM_SHARED_BYTES = 228 * 1024  # shared memory per SM on sm_90, 1 KiB of it reserved per block

EXPLANATION = (
    "Warp tiling with 128×128 block tiles and 8×8 per thread (two thirds of the L2 traffic of 64×128 tiles), "
    "fed by cp.async: the next K-slices copy straight into shared memory while this one multiplies, A lands "
    "transposed without bank conflicts, and small grids split K across blocks to fill the GPU."
)
RUNG = "cp.async pipeline, 128×128 tiles, no bank conflicts"


def threads(c: Mapping[str, int]) -> int:
    return (c["BM"] // c["WM"]) * (c["BN"] // c["WN"]) * 32


def smem_bytes(c: Mapping[str, int]) -> int:
    """STAGES K-slices of A (transposed, rows padded by 4 floats) and of B: dynamic shared memory."""
    return 4 * c["STAGES"] * c["BK"] * (c["BM"] + 4 + c["BN"])


def _register_blocks(c: Mapping[str, int]) -> int:
    """The kernel's MIN_BLOCKS (__launch_bounds__): 64 accumulators fit 128 registers, 128 fit 255."""
    return (512 if c["TM"] * c["TN"] <= 64 else 256) // threads(c)


def blocks_per_sm(c: Mapping[str, int]) -> int:
    return max(1, min(_register_blocks(c), SM_SHARED_BYTES // (smem_bytes(c) + 1024)))


def reads_per_k(c: Mapping[str, int]) -> float:
    """Shared-memory reads per thread per k: TM values of A and TN of B (TM/4 + TN/4 LDS.128)."""
    return c["TM"] + c["TN"]


def splits(p: Problem, c: Mapping[str, int]) -> int:
    """How many slices of K each tile of C is split into (1: no split-K)."""
    tiles = ceil_div(p.m, c["BM"]) * ceil_div(p.n, c["BN"])
    slots = SPLIT_K_SMS * blocks_per_sm(c)
    if tiles >= slots or tiles > SPLIT_K_TILES:
        return 1
    return max(1, min(SPLIT_K_MAX, slots // tiles, ceil_div(p.k, c["BK"]) // SPLIT_K_MIN_TILES))


def geometry(
    p: Problem, _params: Mapping[str, int], c: Mapping[str, int]
) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """One block per tile of C and slice of K: grid.y holds the slices, M/BM rows of blocks apart (the kernel
    reads slice = blockIdx.y / (M/BM)), so every first slice is dispatched before any second."""
    return (ceil_div(p.n, c["BN"]), ceil_div(p.m, c["BM"]) * splits(p, c), 1), (threads(c), 1, 1)


def traffic(p: Problem, c: Mapping[str, int]) -> Traffic:
    """The block-tiled counts; every slice after the first of a split tile reads C and writes it once more."""
    t = blocked_traffic(p, c["BM"], c["BN"], c["BK"], threads(c), reads_per_k(c), "cp.async pipelined")
    extra = (splits(padded(p, (c["BM"], c["BN"], c["BK"])), c) - 1) * t.global_stores
    return replace(t, global_loads=t.global_loads + extra, global_stores=t.global_stores + extra)


def space() -> list[dict[str, int]]:
    """Configurations the kernel compiles and runs correctly with: tiles of 128x128 to 128x256, 8x8 or 8x16
    per thread, warps of 4x8 or 8x4 lanes, K-slices of 8 or 16, 2-4 stages, that fit their blocks per SM."""
    out = []
    grid = itertools.product((128, 256), (128, 256), (8, 16), (32, 64, 128), (32, 64, 128), (8, 16), (2, 3, 4))
    for bm, bn, bk, wm, wn, tn, stages in grid:
        c = {"BM": bm, "BN": bn, "BK": bk, "WM": wm, "WN": wn, "TM": 8, "TN": tn, "STAGES": stages}
        if bm * bn > 128 * 256 or bm % wm or bn % wn or wn % tn or (wm // 8) * (wn // tn) != 32:
            continue
        if max(wm // 8, wn // tn) > 8 or threads(c) not in (128, 256):
            continue
        warps = threads(c) // 32
        if warps % (bk // 8) or (bm * bk) % threads(c) or bm % (4 * warps // (bk // 8)):
            continue  # A: each warp copies 4 rows x 8 k, the warps cover the K-slice in whole rounds
        if (bk * bn // 4) % threads(c) or threads(c) % (bn // 4):
            continue  # B: whole rows of 16-byte chunks per round
        if (smem_bytes(c) + 1024) * _register_blocks(c) > SM_SHARED_BYTES:
            continue
        out.append(c)
    return out


# gpu-cpasync-any (kernels/cpasync_any.cu): the same kernel with its edges handled inside (zero-fill copies,
# bounds-checked stores), so nothing is padded, and a grouped block order (GROUP_M block rows of C per column).
ANY_CONFIG = {**CPASYNC, "GROUP_M": 8}
ANY_EXPLANATION = (
    "The cp.async warp-tiling kernel for any size, with no padded copies: copies that fall outside A or B"
    " are issued with a source size of 0 bytes (the shared tiles get zeros, no memory is read) and edge t"
    "iles store with bounds checks, while interior tiles run gpu-cpasync's code. K is split across blocks"
    " whenever that fills the last wave better: at 2048×3072×4096, 192 tiles of 128×256 on 132 SMs would "
    "leave the second of two waves half empty; split in two, 384 blocks fill three waves."
)
ANY_RUNG = "edges in the kernel (zero-fill copies), K split against wave quantisation"


def any_space() -> list[dict[str, int]]:
    """A small search around the H200's cp.async tuning: 128x128 (8x8 per thread) and 128x256 (8x16) tiles,
    3 or 4 stages, row-major (GROUP_M 1) or grouped (8) block order."""
    tiles = ({"BM": 128, "BN": 128, "WM": 32, "WN": 64, "TN": 8}, {"BM": 128, "BN": 256, "WM": 64, "WN": 64, "TN": 16})
    return [
        {**CPASYNC, **t, "STAGES": stages, "GROUP_M": group}
        for t in tiles
        for stages in (3, 4)
        for group in (1, 8)
        if (smem_bytes({**CPASYNC, **t, "STAGES": stages}) + 1024) * _register_blocks({**CPASYNC, **t})
        <= SM_SHARED_BYTES
    ]


SPLIT_PENALTY = 0.03  # per extra slice: its turn-ordered epilogue reads and writes C once more


def any_splits(p: Problem, c: Mapping[str, int]) -> int:
    """Slices of K per tile of C for gpu-cpasync-any, chosen against wave quantisation: the S in 1..4 (each
    slice at least 4 K-slices) that minimises waves(S) / S · (1 + 3% per extra slice), where waves(S) is
    ceil(tiles · S / (132 SMs x blocks per SM)). 2048x3072x4096 in 128x256 tiles: 192 tiles fill 1.45 waves
    of 132 (2 waves for 1.45 of work); split in 2, 384 blocks fill 2.9 waves (3). No split above 4096 tiles
    (the kernel's turn counters)."""
    tiles = ceil_div(p.m, c["BM"]) * ceil_div(p.n, c["BN"])
    if tiles > SPLIT_K_TILES:
        return 1
    slots = SPLIT_K_SMS * blocks_per_sm(c)
    most = max(1, min(SPLIT_K_MAX, ceil_div(p.k, c["BK"]) // SPLIT_K_MIN_TILES))

    def cost(s: int) -> float:
        return ceil_div(tiles * s, slots) / s * (1 + SPLIT_PENALTY * (s - 1))

    return min(range(1, most + 1), key=lambda s: (cost(s), s))


def any_geometry(
    p: Problem, _params: Mapping[str, int], c: Mapping[str, int]
) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """One block per tile of C (of the problem itself: nothing is padded) and slice of K (`any_splits`); with
    SCHED 1 or 2 (Stream-K) one block per slot of the H200's SMs (`streamk_blocks`)."""
    if c.get("SCHED", 0) >= 1:
        return (streamk_blocks(c), 1, 1), (threads(c), 1, 1)
    return (ceil_div(p.n, c["BN"]), ceil_div(p.m, c["BM"]) * any_splits(p, c), 1), (threads(c), 1, 1)


def any_traffic(p: Problem, c: Mapping[str, int]) -> Traffic:
    """Shared-memory traffic and FMAs as on the padded problem (the zero-filled tiles are stored and
    multiplied); global loads only of the matrices' own elements: each block column of C reads A's M x K,
    each block row reads B's K x N; split-K reads and writes C once more per slice after the first."""
    t = blocked_traffic(p, c["BM"], c["BN"], c["BK"], threads(c), reads_per_k(c), "cp.async, edges in the kernel")
    tiles_m, tiles_n = ceil_div(p.m, c["BM"]), ceil_div(p.n, c["BN"])
    extra = (any_splits(p, c) - 1) * p.m * p.n
    loads = tiles_n * p.m * p.k + tiles_m * p.k * p.n
    return replace(t, global_loads=loads + extra, global_stores=p.m * p.n + extra)


# Per size (benchmarks/fp32_round3.py; measured in docs/benchmarks.md "FP32 SIMT, round 3"):
# where the given tiles number fewer than half the SMs, 64x64 tiles (8x4 per thread, 4 blocks of 128 threads per
# SM) with split-K: 1000^3 at 86.6% of cuBLAS against 75.5% in 128x128, 1024^3 at 90.6% against 86.4%. Where
# 128x256 tiles would split a short K (at most 64 K-slices), Stream-K (SCHED=1): 2000x3000x1000 at 96.4% against
# 91.2%. Stream-K lost wherever K was long or the tiles were 128x128 (whose build spills), so it runs nowhere else.
SMALL_TILES = {"BM": 64, "BN": 64, "WM": 32, "WN": 32, "TM": 8, "TN": 4}
STREAMK_MAX_KTILES = 64


def any_fit(p: Problem, c: Mapping[str, int]) -> tuple[dict[str, int], str | None]:
    """gpu-cpasync-any's configuration at this size from the tuned or default one `c`, and why it changed."""
    tiles = ceil_div(p.m, c["BM"]) * ceil_div(p.n, c["BN"])
    if fills_under_half(p, c, SPLIT_K_SMS) and (c["BM"], c["BN"]) != (SMALL_TILES["BM"], SMALL_TILES["BN"]):
        small = {**c, **SMALL_TILES}
        why = f"64×64 tiles: {c['BM']}×{c['BN']} tiles ({tiles}) would fill under half of {SPLIT_K_SMS} SMs"
        return small, why
    if c["BN"] == 256 and any_splits(p, c) > 1 and ceil_div(p.k, c["BK"]) <= STREAMK_MAX_KTILES:
        g = streamk_blocks(c)
        why = (
            f"Stream-K on {g} blocks: {tiles} tiles would leave a wave part-empty, and split-K's turn-ordered adds "
            f"cost too much over {ceil_div(p.k, c['BK'])} K-slices"
        )
        return {**c, "SCHED": 1}, why
    return dict(c), None


# The registry entry's arguments after its name and title (variants._blocked), and what differs from a plain
# block-tiling kernel: split-K launches more blocks and moves C more than once. Keyword arguments of the
# Variant's fields, each of its own type:
ENTRY: dict[str, Any]
OWN: dict[str, Any]
ANY_ENTRY: dict[str, Any]
ANY_OWN: dict[str, Any]
ENTRY = {"explanation": EXPLANATION, "source": "cpasync.cu", "kernel_name": "gemm_cpasync", "config": CPASYNC,
         "threads": threads, "reads_per_k": reads_per_k, "model": "cp.async pipelined", "rung": RUNG,
         "tune_space": space, "dynamic_smem": smem_bytes}  # fmt: skip
OWN = {"geometry": geometry, "traffic": traffic, "occupancy": blocks_per_sm}
ANY_ENTRY = {**ENTRY, "explanation": ANY_EXPLANATION, "source": "cpasync_any.cu", "kernel_name": "gemm_cpasync_any",
             "config": ANY_CONFIG, "model": "cp.async, edges in the kernel", "rung": ANY_RUNG,
             "tune_space": any_space}  # fmt: skip
ANY_OWN = {"geometry": any_geometry, "traffic": any_traffic, "pads": False, "fit": any_fit, "occupancy": blocks_per_sm,
           "fit_values": {**{k: (v,) for k, v in SMALL_TILES.items()}, "SCHED": (0, 1)}}  # fmt: skip


# Stream-K (kernels/cpasync_any.cu with SCHED=1): the schedule of G blocks over T tiles of KT K-slices.
def streamk_blocks(c: Mapping[str, int]) -> int:
    """G: as many blocks as fit at once on the H200's 132 SMs (the kernel is right for any G; on fewer SMs a
    larger G only runs in more than one round)."""
    return SPLIT_K_SMS * blocks_per_sm(c)


def streamk_dp_tiles(tiles: int, g: int) -> int:
    """Tiles run data-parallel in whole waves of G (block c: c, c + G, ...): all of them when G divides T, else
    all but the last one or two waves' worth, whose K-slices are spread evenly over the G blocks."""
    return tiles if tiles % g == 0 else max(0, tiles // g - 1) * g


def streamk_block_of(x: int, total: int, g: int) -> int:
    """The block whose K-slice range holds slice x of the cut run (block c starts at floor(c·total / G))."""
    return ((x + 1) * g + total - 1) // total - 1


def streamk_segments(tiles: int, ktiles: int, g: int) -> list[list[tuple[int, int, int, int | None]]]:
    """Per block, in the order it runs them: (tile, first K-slice, end K-slice, workspace slot or None for a
    whole tile). A cut tile's blocks each park their partial in their slot (c for the first tile of block c's
    range, G' + c for its last, G' = min(G, cut K-slices)); the last to finish sums them in block order."""
    dp = streamk_dp_tiles(tiles, g)
    total = (tiles - dp) * ktiles
    gs = min(g, total)
    out: list[list[tuple[int, int, int, int | None]]] = []
    for c in range(g):
        segs: list[tuple[int, int, int, int | None]] = [(t, 0, ktiles, None) for t in range(c, dp, g)]
        it, end = (total * c // gs, total * (c + 1) // gs) if c < gs else (total, total)
        first = it // ktiles
        while it < end:
            rt, kt0 = divmod(it, ktiles)
            kt1 = min(ktiles, kt0 + end - it)
            whole = kt0 == 0 and kt1 == ktiles
            segs.append((dp + rt, kt0, kt1, None if whole else (c if rt == first else gs + c)))
            it += kt1 - kt0
        out.append(segs)
    return out
