"""gpu-cpasync-any's Stream-K schedule (kernels/cpasync_any.cu, SCHED=1) without a GPU: the kernel's range,
slot and block-of arithmetic (cpasync_model.streamk_*), checked for coverage and a race-free reduction, and its
sum emulated in float32 so that whichever block of a cut tile finishes last, C is the same to the bit."""

import itertools
import re

import numpy as np
import pytest

from gemmviz.core import paths
from gemmviz.core.kernels.cpasync_model import streamk_block_of, streamk_dp_tiles, streamk_segments

CASES = list(itertools.product([1, 3, 7, 64, 128, 192, 512], [1, 5, 16, 63, 64, 256], [1, 5, 132, 264, 528]))


@pytest.mark.parametrize(("tiles", "ktiles", "g"), CASES[:: max(1, len(CASES) // 20)])
def test_every_k_slice_of_every_tile_once_and_slots_never_shared(tiles, ktiles, g):
    segs = streamk_segments(tiles, ktiles, g)
    seen: dict[tuple[int, int], int] = {}
    slots: dict[int, tuple[int, int]] = {}
    for c, block in enumerate(segs):
        for tile, kt0, kt1, slot in block:
            for k in range(kt0, kt1):
                seen[tile, k] = seen.get((tile, k), 0) + 1
            if slot is not None:
                assert slot not in slots, "two partial tiles in one workspace slot"
                slots[slot] = (tile, c)
    assert seen == {(t, k): 1 for t in range(tiles) for k in range(ktiles)}
    # the blocks that cut a tile are consecutive, and the block-of arithmetic names exactly them
    dp = streamk_dp_tiles(tiles, g)
    total = (tiles - dp) * ktiles
    for tile in {t for t, _c in slots.values()}:
        cutters = sorted(c for t, c in slots.values() if t == tile)
        rt = tile - dp
        lo, hi = (
            streamk_block_of(rt * ktiles, total, min(g, total)),
            streamk_block_of((rt + 1) * ktiles - 1, total, min(g, total)),
        )
        assert cutters == list(range(lo, hi + 1))
    assert len(slots) <= 2 * g  # the kernel's workspace holds 2 G tiles


def test_even_share_of_k_slices():
    """Every block does the same work to one K-slice: 64 tiles of 64 K-slices (1024^3 in 128x128) on 264."""
    work = [sum(kt1 - kt0 for _t, kt0, kt1, _s in b) for b in streamk_segments(64, 64, 264)]
    assert max(work) - min(work) <= 1 and sum(work) == 64 * 64


def test_cut_tiles_sum_to_the_product():
    """Each block's partial over its K-slices, parked and summed in block order (the kernel's ws_add loop, run
    by whichever block of the tile finishes last, so the sum's order never depends on timing), is A B."""
    rng = np.random.default_rng(1)
    tiles, ktiles, g, bk = 3, 10, 7, 4
    a = rng.standard_normal((tiles, 8, ktiles * bk), dtype=np.float32)
    b = rng.standard_normal((ktiles * bk, 8), dtype=np.float32)
    c_out = np.full((tiles, 8, 8), np.nan, np.float32)
    parked: dict[int, dict[int, np.ndarray]] = {}
    for c, block in enumerate(streamk_segments(tiles, ktiles, g)):
        for tile, kt0, kt1, slot in block:
            part = np.zeros((8, 8), np.float32)
            for k in range(kt0 * bk, kt1 * bk):
                part += np.outer(a[tile, :, k], b[k])
            if slot is None:
                c_out[tile] = part
            else:
                parked.setdefault(tile, {})[c] = part
    for tile, parts in parked.items():
        acc = np.zeros((8, 8), np.float32)
        for c in sorted(parts):
            acc += parts[c]
        c_out[tile] = acc
    ref = np.einsum("tmk,kn->tmn", a.astype(np.float64), b.astype(np.float64))
    assert len(parked) == tiles  # 30 K-slices on 7 blocks: every tile is cut
    assert np.allclose(c_out, ref, rtol=1e-4, atol=1e-3)


def test_kernel_source_has_the_same_arithmetic():
    """The model's formulas are the kernel's (a change to one must change the other)."""
    src = paths.kernel_source("cpasync_any.cu")
    assert "tiles % G == 0 ? tiles : max(0, tiles / G - 1) * G" in src
    assert "((x + 1LL) * G + total - 1) / total) - 1" in src
    assert re.search(r"slot = rt == first_tile \? c : Gs \+ c", src)
    assert "ws_add(rt == b_first ? b : Gs + b, acc)" in src


H200_TUNED = {"BM": 128, "BN": 256, "BK": 16, "WM": 64, "WN": 64, "TM": 8, "TN": 16, "STAGES": 3, "GROUP_M": 8}


@pytest.mark.parametrize(
    ("shape", "config", "expect"),
    [
        ((1000, 1000, 1000), "default", "64x64"),  # 64 tiles of 128x128: under half of 132 SMs
        ((1024, 1024, 1024), "tuned", "64x64"),
        ((33, 17, 65), "default", "64x64"),
        ((2000, 3000, 1000), "tuned", "streamk"),  # 192 tiles split in 2, 63 K-slices
        ((2000, 3000, 1000), "default", None),  # 128x128 Stream-K spills and lost: the turns stay
        ((2048, 3072, 4096), "tuned", None),  # 256 K-slices: split-K by turns measured faster
        ((2048, 2048, 2048), "tuned", None),
        ((8192, 8192, 8192), "tuned", None),
    ],
)
def test_the_size_picks_small_tiles_or_stream_k(shape, config, expect):
    from gemmviz.core.kernels.variants import VARIANTS
    from gemmviz.core.problem import Problem

    v = VARIANTS["gpu-cpasync-any"]
    given = dict(v.config) if config == "default" else H200_TUNED
    fitted, why = v.fit(Problem(*shape), given)
    grid, block = v.geometry(Problem(*shape), {}, fitted)
    if expect is None:
        assert fitted == given and why is None
    elif expect == "64x64":
        assert (fitted["BM"], fitted["BN"], block[0]) == (64, 64, 128) and "64×64" in why
    else:
        assert fitted["SCHED"] == 1 and grid == (132, 1, 1) and "Stream-K" in why
