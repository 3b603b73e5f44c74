"""The Charts, Roofline and Hardware views on a projector (issue 20, item 6): legends wrap long names rather than
cut them and keep the series drawn before hidden ones, log axes label every decade they have room for, the
export of a hardware chart draws the result the Hardware tab shows, and a CPU-only session's dashboard draws its
quarters with data and says why the roofline's is empty."""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("PySide6")

from PySide6.QtGui import QFont, QFontMetricsF

from gemmviz.cli.main import main
from gemmviz.core.charts import kinds as chart_kinds
from gemmviz.core.charts.kinds import ChartView, NoHardwareData, hardware_result
from gemmviz.core.session.results import Session
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.charts.axes import SeriesLegend, number_label, wrap_words
from gemmviz.ui.charts.plots import key_label
from gemmviz.ui.export.exporters import layout_offscreen
from gemmviz.ui.theme import PROJECTOR_LIGHT

RECORDED = Path(__file__).parent.parent / "assets" / "sessions" / "h200-2026-12-01.json"


def _metrics(pt: float = 20) -> QFontMetricsF:
    font = QFont()
    font.setPointSizeF(pt)
    return QFontMetricsF(font)


def test_a_long_name_wraps_at_its_parenthesis_and_words_never_cut(qapp):
    m = _metrics()
    assert wrap_words("gpu-naive (block 16)", m.horizontalAdvance, m.horizontalAdvance("gpu-naive (blo")) == [
        "gpu-naive",
        "(block 16)",
    ]
    lines = wrap_words("NVIDIA H200, 2026-12-01 (recorded)", m.horizontalAdvance, 250)
    assert " ".join(lines) == "NVIDIA H200, 2026-12-01 (recorded)" and len(lines) >= 2
    assert all(m.horizontalAdvance(line) <= 250 for line in lines)
    assert wrap_words("cublas", m.horizontalAdvance, 10) == ["cublas"]  # one word: its own line, whole


def test_a_narrow_legend_wraps_its_names_and_keeps_the_series_drawn(qapp):
    import pyqtgraph as pg

    legend = SeriesLegend()
    for name in ("cpu-naive", "gpu-naive (block 16)", "gpu-tiled (tile 16)", "cublas"):
        legend.add_entry(pg.PlotDataItem(pen="k"), name, series=name)
    for name in ("cpu-blas", "gpu-blocktile1d (BM 64)", "gpu-vectorize (BM 128)"):
        legend.add_entry(pg.PlotDataItem(pen="k"), name, series=name, hidden=True)
    legend.add_entry(pg.PlotDataItem(pen="k"), "NVIDIA H200, 2026-12-01 (recorded)")
    line_h = _metrics().height()
    legend.fit(20, line_h * 8.8, 260, min_factor=1.0)
    shown = [legend.names[i] for i in legend.shown()]
    labels = [legend.items[i][1].text for i in legend.shown()]
    assert not any("…" in text for text in labels)
    assert shown[:4] == ["cpu-naive", "gpu-naive (block 16)", "gpu-tiled (tile 16)", "cublas"]  # drawn first
    assert "<br>" in labels[1]  # "gpu-naive" / "(block 16)"
    assert legend.more.isVisible() and legend.maximumHeight() <= line_h * 8.8
    assert legend.maximumWidth() <= 260 + 1


def test_compact_numbers_and_sizes_as_the_app_writes_them():
    assert [number_label(x, compact=True) for x in (0.1, 5, 100, 1000, 20000, 1e6)] == [
        "0.1",
        "5",
        "100",
        "1k",
        "20k",
        "1M",
    ]
    assert key_label("8192x8192x8192") == "8192³" and key_label("2048x4096x3072") == "2048×4096×3072"
    results = Session.load(RECORDED).results
    with pytest.raises(NoHardwareData, match="no result of 100×100×100 has counters") as refused:
        hardware_result("traffic", results, size_key="100x100x100")
    assert "100x100" not in str(refused.value)


def test_the_roofline_labels_every_decade_of_intensity_at_720p(qapp):
    from gemmviz.core.hardware.roofline import load_ceilings
    from gemmviz.ui.charts.roofline import RooflineChart

    ws = Workspace()
    ws.open(RECORDED)
    chart = RooflineChart(PROJECTOR_LIGHT)
    gpu = ws.roofline_gpu(ws.shown())
    chart.ceilings = load_ceilings(gpu)
    chart.set_results([r for r in ws.shown() if r.backend == "cuda"])
    layout_offscreen(chart, 880, 490)
    try:
        axis = chart.getPlotItem().getAxis("bottom")
        (major, values), _minor = axis.tickValues(*axis.range, axis.width())
        labels = axis.tickStrings(values, 1, major)
        assert labels[:5] == ["0.1", "1", "10", "100", "1k"], labels  # 1-2-5 values: every decade, not 1 and 100
        names = chart.legend.names
        assert "FP32 peak" in names and "cuBLAS FP32" in names
        assert not any("…" in label.text for _, label in chart.legend.items)
    finally:
        chart.deleteLater()


def test_exporting_a_hardware_chart_draws_the_result_the_hardware_tab_shows(qapp, monkeypatch, tmp_path):
    from gemmviz.ui.export import dialog

    ws = Workspace()
    ws.open(RECORDED)
    picked = next(r for r in ws.shown() if r.counters and r.problem.key != "8192x8192x8192")
    calls = []
    monkeypatch.setattr(dialog, "export_chart", lambda *args: calls.append(args))
    status = SimpleNamespace(showMessage=lambda *a: None)
    window = SimpleNamespace(
        workspace=ws,
        lang="en",
        theme=PROJECTOR_LIGHT,
        roofline_tab=SimpleNamespace(chart=SimpleNamespace(results=[])),
        charts_tab=SimpleNamespace(chart_view=lambda: ChartView("gpu-naive", "8192x8192x8192", "", ws.source_of)),
        hardware_tab=SimpleNamespace(current=lambda: picked),
        statusBar=lambda: status,
        show_error=lambda *a: pytest.fail(f"refused: {a}"),
    )
    assert dialog.export_chart_of(window, "traffic", str(tmp_path / "t.png"), 1920, 1080)
    kind, shown, *_rest, view, _footer = calls[-1]
    assert kind == "traffic" and shown == [picked] and view.size_key == picked.problem.key
    assert dialog.export_chart_of(window, "time", str(tmp_path / "s.png"), 1920, 1080)
    assert calls[-1][-2].size_key == "8192x8192x8192"  # the other kinds keep the Charts tab's view


@pytest.fixture
def cpu_session(tmp_path):
    data = json.loads(RECORDED.read_text())
    data["results"] = [r for r in data["results"] if r.get("backend") == "cpu"]
    assert data["results"]
    path = tmp_path / "cpu.json"
    path.write_text(json.dumps(data))
    return path


def test_a_cpu_only_dashboard_draws_its_quarters_and_says_why_the_roofline_is_empty(qapp, cpu_session, tmp_path):
    import pyqtgraph as pg

    from gemmviz.ui.charts import kinds
    from gemmviz.ui.charts.kinds.dashboard import NO_GPU_ROOFLINE

    results = Session.load(cpu_session).results
    view = ChartView("cpu-naive")
    dashboard = kinds.get("dashboard")
    dashboard.check(results, view)  # no longer refused
    assert "needs GPU results" in dashboard.empty_reason("roofline", results, view)
    assert dashboard.empty_reason("time", results, view) == ""
    widget = dashboard.render(results, PROJECTOR_LIGHT, None, view)
    try:
        views = widget.findChildren(pg.GraphicsView)
        assert len(views) == 4
        empty = [v for v in views if v.objectName() == "empty-roofline"]
        assert len(empty) == 1 and empty[0].note.toPlainText() == NO_GPU_ROOFLINE
    finally:
        widget.deleteLater()
    with pytest.raises(chart_kinds.NothingToDraw, match="the roofline needs GPU results"):
        chart_kinds.get("roofline").check(results, view)  # the roofline alone is still refused

    out = tmp_path / "dash.png"
    assert main(["export", str(cpu_session), "--chart", "dashboard", "-o", str(out)]) == 0
    assert out.stat().st_size > 10_000
    assert main(["export", str(cpu_session), "--chart", "roofline", "-o", str(tmp_path / "r.png")]) == 2
    assert not (tmp_path / "r.png").exists()
