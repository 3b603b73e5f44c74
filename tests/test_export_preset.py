"""Projector exports draw a preset, not every series of the session, and every legend reads in ladder order
(issue 35: `export --chart gflops --projector` drew all 23 series, its legend in marker order)."""

import pytest

from gemmviz.cli import main
from gemmviz.core.charts.style import ladder_order, seed_series
from gemmviz.core.kernels.variants import VARIANTS


@pytest.fixture
def drawn(monkeypatch):
    """The results each export would draw (the drawing itself is test_export's)."""
    from gemmviz.ui.export import exporters

    seen: list = []

    def export_chart(kind, results, path, *args, **kwargs):
        seen.append(sorted({r.series for r in results}))
        return path

    monkeypatch.setattr(exporters, "export_chart", export_chart)
    return seen


def test_a_projector_export_draws_the_seed_kernels_by_default(drawn, tmp_path):
    out = str(tmp_path / "g.png")
    assert main(["export", "h200-2026-12-02", "--chart", "gflops", "--projector", "-o", out]) == 0
    assert drawn[-1] == sorted(seed_series())
    assert main(["export", "h200-2026-12-02", "--chart", "gflops", "--projector", "--preset", "all", "-o", out]) == 0
    assert len(drawn[-1]) > 20
    assert main(["export", "h200-2026-12-02", "--chart", "gflops", "--preset", "ladder", "-o", out]) == 0
    assert len(drawn[-1]) == len(VARIANTS)
    assert main(["export", "h200-2026-12-02", "--chart", "gflops", "-o", out]) == 0  # a screen's export: all
    assert len(drawn[-1]) > 20
    assert main(["export", "h200-2026-12-02", "--projector", "--variants", "gpu-tiled", "-o", out]) == 0
    assert {s.split(" (")[0] for s in drawn[-1]} == {"gpu-tiled"}  # a choice of variants wins


def test_a_preset_the_session_lacks_is_refused(capsys, tmp_path):
    out = str(tmp_path / "g.png")
    code = main(["export", "h200-2026-12-02", "--variants", "cpu-blas", "--preset", "seed-kernels", "-o", out])
    assert code == 2 and "--preset seed-kernels: the session has none of its series" in capsys.readouterr().err


def test_legends_read_in_ladder_order():
    names = ["cublas", "gpu-tiled (tile 32)", "cpu-naive", "gpu-tiled (tile 16)", "gpu-naive (block 16)", "mine"]
    assert ladder_order(names) == [
        "cpu-naive",
        "gpu-naive (block 16)",
        "gpu-tiled (tile 16)",
        "gpu-tiled (tile 32)",
        "cublas",
        "mine",
    ]
    assert [s.split(" (")[0] for s in ladder_order(seed_series())] == [
        v for v in VARIANTS if v in {"cpu-naive", "gpu-naive", "gpu-tiled", "cublas"}
    ]
