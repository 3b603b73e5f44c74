"""Shipped sessions and comparisons, without Qt."""

import pytest

from gemmviz.core.results import Session, compare_sources
from gemmviz.core.workspace import Workspace, default_replay_session, recorded_sessions


def test_shipped_sessions_load_and_validate():
    paths = recorded_sessions()
    assert {p.name for p in paths} >= {"published-seed000-rtx4060.json", "published-seed001-a100.json"}
    for path in paths:
        s = Session.load(path)
        assert s.kind in ("measured", "published") and s.results
        for r in s.results:
            assert r.valid == (r.status == "ok")
            assert r.valid or r.error  # every invalid or refused row says why
            if s.kind == "published":
                assert "published" in (r.note or "")


def test_recorded_h200_session_has_every_variant_and_size():
    s = Session.load(default_replay_session())
    assert s.kind == "measured" and s.environment["backends"]["cuda"]["name"] == "NVIDIA H200"
    valid = [r for r in s.results if r.valid]
    from gemmviz.core.variants import VARIANTS

    assert {r.variant for r in valid} == set(VARIANTS)  # every variant of the registry was recorded
    assert {r.m for r in valid if r.variant == "gpu-tiled"} >= {256, 512, 1024, 2048, 4096, 8192}
    assert any((r.m, r.n, r.k) == (2048, 4096, 3072) for r in valid)
    assert {r.params.get("tile") for r in valid if r.variant == "gpu-tiled"} == {8, 16, 32}
    for r in valid:
        assert r.rel_error <= r.threshold and len(r.samples_ms) == r.repeats


def test_a_published_figure_above_the_peak_is_not_plotted():
    s = Session.load(next(p for p in recorded_sessions() if "a100" in p.name))
    cublas = next(r for r in s.results if r.variant == "cublas")
    assert not cublas.valid and cublas.gflops is None and "peak" in cublas.error


def test_compare_sources():
    ws = Workspace()
    h200 = ws.open(default_replay_session()).label
    rtx = ws.open(next(p for p in recorded_sessions() if "rtx4060" in p.name)).label
    assert (h200, rtx) == ("NVIDIA H200, 2026-11-30 (recorded)", "RTX 4060, seed 000 (published)")
    others, rows = compare_sources(ws.shown(), rtx, ws.source_of)
    assert others == [h200]
    row = next(r for r in rows if r["series"] == "gpu-tiled (tile 16)" and r["size"] == "1024³")
    ms, times = row["others"][h200]
    assert row["reference_ms"] == 15 and times == pytest.approx(15 / ms)
