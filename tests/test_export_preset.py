"""Projector exports draw a preset, not every series of the session, and every legend reads in ladder order
(issue 35: `export --chart gflops --projector` drew all 23 series, its legend in marker order)."""

import pytest

from gemmviz.cli import main
from gemmviz.core.charts.style import ladder_order, seed_series
from gemmviz.core.kernels.variants import VARIANTS
from tests.checks.presets import presets_draw_what_they_name, spy_on_exports


@pytest.fixture
def drawn(monkeypatch):
    return spy_on_exports(monkeypatch)


def test_a_projector_export_draws_the_seed_kernels_by_default(drawn, tmp_path):
    presets_draw_what_they_name(drawn, tmp_path)


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
