"""Shipped sessions, replay without a GPU, overlays and comparisons."""

import pytest

from gemmviz.core.results import Session, compare_sources
from gemmviz.ui.window import default_replay_session, recorded_sessions


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
    a = Session.load(default_replay_session()).results
    b = Session.load(next(p for p in recorded_sessions() if "rtx4060" in p.name)).results
    for r in a:
        r.source = "H200"
    for r in b:
        r.source = "RTX 4060"
    others, rows = compare_sources(a + b, "RTX 4060")
    assert others == ["H200"]
    row = next(r for r in rows if r["series"] == "gpu-tiled (tile 16)" and r["size"] == "1024³")
    ms, times = row["others"]["H200"]
    assert row["reference_ms"] == 15 and times == pytest.approx(15 / ms)


def test_no_gpu_start_shows_the_replay(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.window import MainWindow
    from tests.fakes import FakeGpuBackend

    w = MainWindow({"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)},
                   QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))  # fmt: skip
    qtbot.addWidget(w)
    qtbot.waitUntil(lambda: bool(w.loaded), timeout=10000)
    qtbot.waitUntil(lambda: w.table.proxy.rowCount() > 0, timeout=10000)
    assert w.replay_banner.isVisibleTo(w) and w.replay_banner.text() == "Recorded on NVIDIA H200, 2026-11-30 — replay"
    assert "No CUDA GPU:" in w.device_label.text()
    assert any(r.variant == "cublas" and r.source.startswith("NVIDIA H200") for r in w.shown_results())
    assert not w.selected_variants() or all(v.startswith("cpu") for v in w.selected_variants())
    # overlay a published session: every chart carries both, each with its own legend entry
    w.open_session(next(p for p in recorded_sessions() if "rtx4060" in p.name))
    w.refresh()
    sources = {s for s, _ in w.time_chart._items}
    assert sources == {"NVIDIA H200, 2026-11-30 (recorded)", "RTX 4060, seed 000 (published)"}
    legend = [label.text for _, label in w.time_chart.legend.items]
    assert "RTX 4060, seed 000 (published)" in legend
    assert w.compare.table.rowCount() > 0
    w.close()
