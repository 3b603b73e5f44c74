"""Stream-K in gpu-wgmma-tf32 (kernels/wgmma_tf32.cu STREAMK=1): the launcher's plan, grid and workspace against a
pure-Python model of the kernel's schedule (hopper_model.streamk_pieces), and the kernel's fix-up of shared tiles
(workspace slots, arrival counters, last-to-arrive sums) replayed on the CPU in numpy. The GPU test at the end runs
the options themselves against float64 at odd shapes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gemmviz.backends.wgmma import WgmmaConfig, config_from_macros
from gemmviz.core.kernels.hopper_model import (
    PERSIST_SMS,
    SK_MIN_UNITS,
    WGMMA_BK,
    streamk_owner,
    streamk_pieces,
    streamk_plan,
    streamk_slot,
    streamk_start,
    wgmma_geometry,
)
from gemmviz.core.problem import Problem

# (cluster tiles, k-blocks per tile, workers at most): one wave and less, partial last waves, whole waves
CASES = list(
    itertools.product(
        (1, 2, 3, 31, 64, 65, 66, 96, 128, 131, 132, 133, 200, 256, 384, 1024), (1, 3, 4, 7, 32, 128), (66, 132)
    )
)


@pytest.mark.parametrize("tiles, kt, full", CASES)
def test_every_tile_and_k_block_is_computed_exactly_once(tiles, kt, full):
    workers, sk = streamk_plan(tiles, kt, full)
    assert 1 <= workers <= full and 0 <= sk <= tiles
    seen: dict[tuple[int, int], int] = {}
    units, dp = sk * kt, tiles - sk
    slots: set[int] = set()
    for w, pieces in enumerate(streamk_pieces(tiles, kt, workers, sk)):
        for cid, lo, hi in pieces:
            assert 0 <= cid < tiles and 0 <= lo < hi <= kt
            for kb in range(lo, hi):
                assert (cid, kb) not in seen, f"tile {cid} k-block {kb} twice"
                seen[(cid, kb)] = w
            if cid < dp:
                assert (lo, hi) == (0, kt) and cid % workers == w  # whole tiles in turn
                continue
            j = cid - dp
            assert streamk_owner(j * kt + lo, units, workers) == w  # the kernel's owner of the piece's first unit
            if (lo, hi) != (0, kt):  # a partial piece: a workspace slot of its own among 2 per worker
                slot = streamk_slot(w, j, units, workers, kt)
                assert slot not in slots and 2 * w <= slot < 2 * w + 2
                slots.add(slot)
    assert len(seen) == tiles * kt


@pytest.mark.parametrize("tiles, kt, full", CASES)
def test_the_plan_spares_the_busiest_worker_or_shares_nothing(tiles, kt, full):
    workers, sk = streamk_plan(tiles, kt, full)
    loads = [sum(hi - lo for _cid, lo, hi in ps) for ps in streamk_pieces(tiles, kt, workers, sk)]
    whole = -(-tiles // min(tiles, full)) * kt  # the busiest worker's k-blocks with whole tiles only
    if sk:
        assert max(loads) < whole and max(loads) - min(loads) <= kt  # balanced to within a tile
        assert sk * kt >= workers * min(SK_MIN_UNITS, kt) or tiles < full
    else:
        assert workers == min(tiles, full) and max(loads) == whole


def test_owner_and_start_agree():
    for units, workers in itertools.product((1, 5, 64, 1000, 7936), (1, 7, 66, 132)):
        for u in range(0, units, max(1, units // 97)):
            w = streamk_owner(u, units, workers)
            assert streamk_start(w, units, workers) <= u < streamk_start(w + 1, units, workers)


def _replay(a: np.ndarray, b: np.ndarray, bm: int, bn: int, workers: int, sk: int, order: list[int], rng) -> np.ndarray:
    """C as the kernel builds it: per worker its pieces; a partial piece writes its product to its workspace slot
    and counts in on its tile's counter; the last to arrive sums the pieces (two: own + other; more: every slot in
    worker order) and stores C. Workers advance in a random interleaving, one piece at a time."""
    m, k = a.shape
    n = b.shape[1]
    tm_n, tn_n = -(-m // bm), -(-n // bn)
    tiles, kt = tm_n * tn_n, -(-k // WGMMA_BK)
    units, dp = sk * kt, tiles - sk
    pieces = streamk_pieces(tiles, kt, workers, sk)
    c = np.full((m, n), np.nan, np.float64)
    ws: dict[int, np.ndarray] = {}
    count = [0] * max(sk, 1)
    pos = [0] * workers
    while any(pos[w] < len(pieces[w]) for w in range(workers)):
        w = rng.choice([w for w in range(workers) if pos[w] < len(pieces[w])])
        cid, lo, hi = pieces[w][pos[w]]
        pos[w] += 1
        tm, tn = divmod(order[cid], tn_n)
        rows, cols = slice(tm * bm, (tm + 1) * bm), slice(tn * bn, (tn + 1) * bn)
        ks = slice(lo * WGMMA_BK, hi * WGMMA_BK)
        acc = a[rows, ks] @ b[ks, cols]
        if (lo, hi) != (0, kt):
            j = cid - dp
            w_lo, w_hi = streamk_owner(j * kt, units, workers), streamk_owner(j * kt + kt - 1, units, workers)
            ws[streamk_slot(w, j, units, workers, kt)] = acc
            arrived, count[j] = count[j], count[j] + 1
            if arrived != w_hi - w_lo:
                continue
            count[j] = 0
            if w_hi - w_lo == 1:
                acc = acc + ws[streamk_slot(w_lo if w == w_hi else w_hi, j, units, workers, kt)]
            else:
                acc = sum(ws[streamk_slot(x, j, units, workers, kt)] for x in range(w_lo, w_hi + 1))
        assert np.isnan(c[rows, cols]).all(), "a tile stored twice"
        c[rows, cols] = acc
    assert count == [0] * max(sk, 1)  # every counter back to 0 for the next launch
    return c


# 100x90x300: 2 pieces per shared tile; 64x64x640 on 11 workers: 4 tiles of 20 k-blocks, 3 or 4 pieces each
FIXUP_CASES = [
    (100, 90, 300, 32, 32, 5),
    (64, 64, 640, 32, 32, 11),
    (33, 17, 650, 16, 8, 4),
    (130, 70, 200, 16, 16, 13),
]


@pytest.mark.parametrize("m, n, k, bm, bn, full", FIXUP_CASES)
def test_the_fixup_replayed_on_the_cpu_gives_a_times_b(m, n, k, bm, bn, full):
    rng = np.random.default_rng(m * n + k)
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    tiles = -(-m // bm) * -(-n // bn)
    workers, sk = streamk_plan(tiles, -(-k // WGMMA_BK), full)
    assert sk, "the case should share tiles out"
    if (m, n, k) == (64, 64, 640):  # the general path: every slot read back in worker order
        pieces = [p[0] for ps in streamk_pieces(tiles, 20, workers, sk) for p in ps]
        assert workers == 11 and all(pieces.count(t) >= 3 for t in range(4))
    order = list(rng.permutation(tiles))  # any tile order (grouped, Hilbert) is a permutation
    for _ in range(3):  # different arrival orders
        c = _replay(a, b, bm, bn, workers, sk, order, rng)
        np.testing.assert_allclose(c, a @ b, rtol=1e-12, atol=1e-9)


def test_launcher_grid_workspace_and_geometry_agree():
    for (m, n, k), cfg in [
        ((1024, 1024, 1024), WgmmaConfig(bm=128, stages=6, persist=1, streamk=1)),
        ((4096, 4096, 4096), WgmmaConfig(persist=1, streamk=1, cluster=2, order=1)),
        ((2048, 3072, 4096), WgmmaConfig(persist=1, streamk=1, cluster=2, order=1)),
        ((1001, 999, 1003), WgmmaConfig(bm=128, consumers=1, stages=8, persist=1, streamk=1, cluster=2)),
        ((33, 17, 65), WgmmaConfig(bm=128, stages=6, persist=1, streamk=1)),
    ]:
        workers, sk = cfg.streamk_plan(m, n, k)
        assert cfg.grid(m, n, k) == workers * cfg.cluster <= PERSIST_SMS
        macros = cfg.macros()
        assert config_from_macros(macros) == cfg and macros["STREAMK"] == 1
        assert wgmma_geometry(Problem(m, n, k), {}, macros)[0][0] == cfg.grid(m, n, k)
        # two slots per worker, one BM x BN float tile per block of the cluster; nothing when nothing is shared
        assert cfg.streamk_workspace_bytes(m, n, k) == (8 * workers * cfg.cluster * cfg.bm * cfg.bn if sk else 0)
    # 1024^3 in 128x128 tiles: 64 tiles of 32 k-blocks, each split in two (16 k-blocks a worker, as on 132 SMs)
    cfg = WgmmaConfig(bm=128, stages=6, persist=1, streamk=1)
    assert cfg.streamk_plan(1024, 1024, 1024) == (128, 64)
    assert {p[1:] for ps in streamk_pieces(64, 32, 128, 64) for p in ps} == {(0, 16), (16, 32)}
    # 257x383x200: 9 tiles of 7 k-blocks share out over 15 workers (an even split would leave 7 on the busiest)
    assert cfg.streamk_plan(257, 383, 200) == (15, 9)
    # 2048x3072x4096 in 256x128 pairs: 96 cluster tiles on 66 pairs, all shared out (187 k-blocks each, not 256)
    assert WgmmaConfig(persist=1, streamk=1, cluster=2).streamk_plan(2048, 3072, 4096) == (66, 96)
    with pytest.raises(ValueError):
        WgmmaConfig(streamk=1)  # stream-K needs the persistent grid


@pytest.mark.gpu
@pytest.mark.parametrize(
    "config",
    [
        {"BM": 128, "STAGES": 6, "PERSIST": 1, "STREAMK": 1},
        {"BM": 128, "STAGES": 6, "PERSIST": 1, "CLUSTER": 2, "STREAMK": 1},
        {"PERSIST": 1, "CLUSTER": 2, "ORDER": 1, "STREAMK": 1},
        {"BM": 128, "CONSUMERS": 1, "STAGES": 8, "PERSIST": 1, "CLUSTER": 2, "STREAMK": 1},
        {"BM": 128, "CONSUMERS": 1, "STAGES": 8},
    ],
    ids=["sk-128", "sk-128-x2", "sk-256-x2-hilbert", "sk-128x64-x2", "128x64"],
)
def test_streamk_options_against_float64_at_odd_shapes(config):
    """The round-4 options at shapes whose N or K is not a multiple of 4, ragged tiles, one and several pieces per
    shared tile, launched twice (the arrival counters must be back at 0 for the second launch)."""
    from gemmviz.core.kernels.variants import VARIANTS
    from gemmviz.core.measure.bench import BenchSettings
    from tests.gpu_runs import checked_runs

    base = {"BM": 256, "CONSUMERS": 2, "STAGES": 4, "GROUP_M": 8, "B_REGS": 1, "DEPTH": 1, "CLUSTER": 1, "SPLITS": 0}
    v = VARIANTS["gpu-wgmma-tf32"]
    settings = BenchSettings(warmup=1, repeats=1, seed=0, max_samples=1, max_time_s=0.001, timing="host", max_batch=1)
    shapes = (Problem(1001, 999, 1003), Problem(257, 383, 200), Problem(33, 17, 65), Problem(2500, 3001, 130))
    results = list(checked_runs(v, {**base, **config}, shapes, settings, seed=7, needs_cc=(9, 0)))
    assert len(results) == len(shapes)


def test_wgmma_fit_adds_streamk_only_when_switched_on(monkeypatch):
    from gemmviz.core.kernels import hopper_model
    from gemmviz.core.kernels.hopper_model import WGMMA, wgmma_fit

    sizes = [Problem(512, 512, 512), Problem(2048, 2048, 2048), Problem(4096, 4096, 4096), Problem(2048, 3072, 4096)]
    sizes.append(Problem(1024, 1024, 1024))
    assert all("STREAMK" not in wgmma_fit(p, WGMMA) for p in sizes)  # off: the shipped choice is unchanged
    monkeypatch.setattr(hopper_model, "STREAMK_FIT", True)
    small, one_wave, big, odd, narrow = (wgmma_fit(p, WGMMA) for p in sizes)
    assert (small["BM"], small["PERSIST"], small["STREAMK"]) == (128, 1, 1)  # 16 tiles over 132 SMs
    assert "STREAMK" not in one_wave  # 128 tiles on 132 SMs: nothing worth sharing out
    assert (narrow["CONSUMERS"], "STREAMK" in narrow) == (1, False)  # 1024³ in 128×64 tiles: 128 on 132 SMs too
    assert (big["BM"], big["CLUSTER"], big["ORDER"], big["STREAMK"]) == (256, 2, 1, 1)
    assert (odd["BM"], odd["CLUSTER"], "STREAMK" in odd) == (192, 2, False)  # 264 tiles: two whole waves
    assert "STREAMK" not in wgmma_fit(Problem(8192, 8192, 8192), {**WGMMA, "SPLITS": 2})  # split-K stays as named


def test_traffic_counts_the_stream_k_partials():
    from gemmviz.core.kernels.hopper_model import WGMMA, wgmma_traffic

    p = Problem(1024, 1024, 1024)
    plain = wgmma_traffic(p, {**WGMMA, "BM": 128, "STAGES": 6, "PERSIST": 1})
    sk = wgmma_traffic(p, {**WGMMA, "BM": 128, "STAGES": 6, "PERSIST": 1, "STREAMK": 1})
    tile = 128 * 128
    # 64 tiles split in two: 128 partial tiles written, 64 read back (the last piece adds the other's)
    assert sk.global_stores - plain.global_stores == 128 * tile
    assert sk.global_loads - plain.global_loads == 64 * tile
    assert "stream-K 64 tiles on 128 workers" in sk.model and sk.fmas_executed == plain.fmas_executed
