"""The reuse figure the tiling view shows (core/schedule/block.reuse_factor), walked over every block of odd shapes:
in-bounds loads used by in-bounds multiply-adds only, so never more than the block's edge (TILE), edge blocks
included, and never a dip mid-animation (issue 31)."""

import pytest

from gemmviz.core.kernels.model import ceil_div
from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import animated_variants, block_schedule, grid_and_threads, reuse_factor
from gemmviz.core.schedule.kinds import schedule_kind

ODD = (Problem(100, 70, 90), Problem(33, 17, 65), Problem(1, 1, 1))


def _tiles(variant: str) -> tuple[int | None, ...]:
    v = animated_variants()[variant]
    return tuple(v.param_choices[v.schedule_param]) if v.schedule_param else (None,)


def _cases():
    for variant in animated_variants():
        for tile in _tiles(variant):
            for problem in ODD:
                yield variant, tile, problem


def _in_bounds(s, by: int, bx: int) -> tuple[int, int]:
    p = s.problem
    return min((by + 1) * s.bm, p.m) - by * s.bm, min((bx + 1) * s.bn, p.n) - bx * s.bn


@pytest.mark.parametrize(("variant", "tile", "problem"), list(_cases()))
def test_reuse_never_passes_the_tile_at_any_block_nor_dips(variant, tile, problem):
    (gy, gx), _threads = grid_and_threads(variant, problem, tile)
    for by in range(gy):
        for bx in range(gx):
            s = block_schedule(variant, problem, tile, (by, bx))
            rows, cols = _in_bounds(s, by, bx)
            shared = schedule_kind(s.kind).shared_memory
            # each value of A in this block is used by its `cols` threads inside C, each of B by `rows`
            expected = 2 * rows * cols / (rows + cols) if shared else 1.0
            figures = [reuse_factor(s, st) for st in s.steps]
            assert figures[-1] == pytest.approx(expected), (variant, tile, problem, by, bx)
            assert figures[-1] <= max(s.bm, s.bn), (variant, tile, problem, by, bx, figures[-1])
            # before the first multiply-add there is no figure; after it, the same one at every step
            first = next(i for i, f in enumerate(figures) if f is not None)
            assert all(f is None for f in figures[:first])
            assert all(f == pytest.approx(expected) for f in figures[first:]), (variant, by, bx, figures)


@pytest.mark.parametrize("tile", [8, 16, 32])
def test_interior_block_reuse_is_tile_even_when_k_is_not_a_multiple(tile):
    # K = 90 is a multiple of none of the tiles: the zero-padded last k-tile does not raise the figure (17.07× before)
    p = Problem(4 * tile, 4 * tile, 90)
    s = block_schedule("gpu-tiled", p, tile, (1, 1))
    assert reuse_factor(s, s.steps[-1]) == tile
    assert ceil_div(p.k, tile) * tile != p.k
    naive = block_schedule("gpu-naive", p, tile, (1, 1))
    assert reuse_factor(naive, naive.steps[-1]) == 1


def test_edge_block_of_100x70x90_at_tile_32():
    # the demo of issue 31: 34×, 146×, 218× before; block (3, 2) holds 4 rows and 6 columns of C
    s = block_schedule("gpu-tiled", Problem(100, 70, 90), 32, (3, 2))
    assert reuse_factor(s, s.steps[-1]) == pytest.approx(2 * 4 * 6 / (4 + 6))
