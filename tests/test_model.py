import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gemmviz.core.kernels.model import fills_under_half, ideal_traffic, naive_traffic, tiled_traffic
from gemmviz.core.problem import Problem


def test_naive_intensity_is_a_quarter():
    t = naive_traffic(Problem(1024, 1024, 1024))
    # 2K loads per 2K FLOPs plus one store per element: just under the seeds' 0.25
    assert t.intensity == pytest.approx(0.25, rel=1e-3)
    assert t.global_loads == 2 * 1024**3


def test_ideal_intensity_is_n_over_6():
    for n in (256, 1024, 4096):
        assert ideal_traffic(Problem(n, n, n)).intensity == pytest.approx(n / 6)


@pytest.mark.parametrize("tile", [8, 16, 32])
def test_tiled_square_loads_and_intensity(tile):
    n = 1024
    t = tiled_traffic(Problem(n, n, n), tile)
    assert t.global_loads == 2 * n**3 // tile
    loads_only_intensity = t.flops / (4 * t.global_loads)
    assert loads_only_intensity == pytest.approx(tile / 4)


def test_seed_000_read_count_for_1024_tile_16():
    # Seed 000: 2,147,483,648 naive reads vs 134,217,728 tiled reads (16x fewer).
    p = Problem(1024, 1024, 1024)
    assert naive_traffic(p).global_loads == 2_147_483_648
    assert tiled_traffic(p, 16).global_loads == 134_217_728


def brute_force_tiled_loads(m, n, k, tile):
    """Walk the tiled kernel's threads and count the guarded global loads it really issues."""
    loads = 0
    gx, gy, steps = -(-n // tile), -(-m // tile), -(-k // tile)
    ty, tx = np.meshgrid(np.arange(tile), np.arange(tile), indexing="ij")
    for by, bx, t in itertools.product(range(gy), range(gx), range(steps)):
        row, col = by * tile + ty, bx * tile + tx
        loads += np.count_nonzero((row < m) & (t * tile + tx < k))
        loads += np.count_nonzero((t * tile + ty < k) & (col < n))
    return loads


@settings(max_examples=60, deadline=None)
@given(
    m=st.integers(1, 70),
    n=st.integers(1, 70),
    k=st.integers(1, 70),
    tile=st.sampled_from([8, 16, 32]),
)
def test_tiled_formula_matches_the_kernel_for_every_size(m, n, k, tile):
    assert tiled_traffic(Problem(m, n, k), tile).global_loads == brute_force_tiled_loads(m, n, k, tile)


def test_fills_under_half_counts_the_tiles_of_the_problem_not_the_padded_one():
    # 1024^3 in 128x128 tiles: 64 tiles, under half of 132 SMs; 66 tiles is exactly half, not under it
    tiles = {"BM": 128, "BN": 128}
    assert fills_under_half(Problem(1024, 1024, 1024), tiles, 132)
    assert not fills_under_half(Problem(128 * 6, 128 * 11, 64), tiles, 132)  # 66 tiles
    assert fills_under_half(Problem(128 * 5 + 1, 128 * 10 - 1, 64), tiles, 132)  # 6 x 10 = 60 tiles, edges count
    assert not fills_under_half(Problem(128 * 6 + 1, 128 * 10 + 1, 64), tiles, 132)  # 7 x 11 = 77
    assert not fills_under_half(Problem(1024, 1024, 1024), {}, 132)  # no tiles: no verdict
