"""Checks over the projector export's presets (`gemmviz export --preset`), over the registry as it is now."""

from gemmviz.cli import main
from gemmviz.core.charts.style import seed_series
from tests.checks.sessions import recorded_variants


def spy_on_exports(monkeypatch) -> list:
    """The series each export will draw (sorted), one list per export; the drawing itself is test_export's."""
    from gemmviz.ui.export import exporters

    seen: list = []

    def export_chart(kind, results, path, *args, **kwargs):
        seen.append(sorted({r.series for r in results}))
        return path

    monkeypatch.setattr(exporters, "export_chart", export_chart)
    return seen


def presets_draw_what_they_name(drawn: list, tmp_path) -> None:
    """Seed kernels on a projector by default, all on a screen, the ladder one series per recorded variant (a
    variant in NOT_RECORDED is not in the shipped session), a choice of variants over any preset."""
    out = str(tmp_path / "g.png")
    assert main(["export", "h200-2026-12-02", "--chart", "gflops", "--projector", "-o", out]) == 0
    assert drawn[-1] == sorted(seed_series())
    assert main(["export", "h200-2026-12-02", "--chart", "gflops", "--projector", "--preset", "all", "-o", out]) == 0
    assert len(drawn[-1]) > 20
    assert main(["export", "h200-2026-12-02", "--chart", "gflops", "--preset", "ladder", "-o", out]) == 0
    assert {s.split(" (")[0] for s in drawn[-1]} == recorded_variants() and len(drawn[-1]) == len(recorded_variants())
    assert main(["export", "h200-2026-12-02", "--chart", "gflops", "-o", out]) == 0  # a screen's export: all
    assert len(drawn[-1]) > 20
    assert main(["export", "h200-2026-12-02", "--projector", "--variants", "gpu-tiled", "-o", out]) == 0
    assert {s.split(" (")[0] for s in drawn[-1]} == {"gpu-tiled"}  # a choice of variants wins
