"""The hardware views (issue 14) without a GPU, from tests/data/h200-counters-sample.json (a test fixture built
by tests/data/make_hardware_sample.py from the real H200 ncu CSV and block traces): SMs × time, model vs
measured traffic, the hierarchical roofline, their export kinds and their layout at 720p and 1080p."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage

from gemmviz.core.charts.explain import explain_counters, explain_trace
from gemmviz.core.charts.kinds import CHART_KINDS, ChartView, NoHardwareData, hardware_result
from gemmviz.core.hardware.roofline import Ceilings
from gemmviz.core.hardware.trace_drawing import trace_lanes
from gemmviz.core.session.results import Result, Session
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.export.exporters import ExportError, export_chart, layout_offscreen
from gemmviz.ui.hardware.tab import HardwareTab, LevelRooflineChart, level_ceilings
from gemmviz.ui.hardware.trace import SmTraceChart
from gemmviz.ui.hardware.traffic import NO_COUNTERS, TrafficChart, ticks_125
from gemmviz.ui.theme import LIGHT, PROJECTOR_LIGHT
from tests.overlap import plot_texts, problems, widget_texts

SAMPLE = Path(__file__).parent / "data" / "h200-counters-sample.json"
CEILINGS = Ceilings("NVIDIA H200", 4232.8, 66908.16, 51104.9, 421638.4)


@pytest.fixture(scope="module")
def session():
    return Session.load(SAMPLE)


def pick(session, kind, series, size):
    return hardware_result(kind, session.results, series, size)


def test_sample_is_a_fixture_with_counters_and_traces(session):
    assert all("test fixture" in r.note for r in session.results)
    assert sum(bool(r.counters) for r in session.results) == 2
    assert sum(bool(r.block_trace) for r in session.results) == 2


def test_kinds_in_the_one_list():
    assert {"traffic", "sm-trace"} <= set(CHART_KINDS)


def test_hardware_result_picks_and_refuses(session):
    assert pick(session, "sm-trace", "gpu-tiled (tile 32)", None).params == {"tile": 32}
    assert pick(session, "traffic", "gpu-naive", "1024x1024x1024").variant == "gpu-naive"
    plain = [dataclasses.replace(r, counters=None, block_trace=None) for r in session.results]
    with pytest.raises(NoHardwareData, match="gemmviz profile"):
        hardware_result("traffic", plain)
    with pytest.raises(NoHardwareData, match="gpu-tiled \\(tile 16\\) at 1000³"):
        hardware_result("sm-trace", session.results, "gpu-naive")


def test_sm_trace_uses_every_sm_and_every_block_once(qapp, session):
    r = pick(session, "sm-trace", "gpu-tiled (tile 16)", None)
    chart = SmTraceChart(LIGHT)
    chart.set_result(r, 132)
    assert chart.rows == 132
    assert chart.blocks == 63 * 63 == len(r.block_trace)  # ceil(1000 / 16)² blocks: the grid
    assert chart.summary.sms_used == 132 and chart.summary.blocks_per_sm_min == 30
    chart.set_time(chart.duration_us / 4)
    assert 0 < chart.landed() < chart.blocks
    chart.set_time(chart.duration_us)
    assert chart.landed() == chart.blocks
    # the tail is a share of the run's time, told apart from the title's share of SM-time
    assert chart.tail_label.textItem.toPlainText() == f"tail: {chart.summary.tail_pct:.1f}% of the run →"
    # beside the shaded tail, pointing at it, not printed over its hatching (seed000's slide at 720p)
    tail_from = chart.duration_us * (1 - chart.summary.tail_pct / 100)
    assert chart.tail_label.pos().x() == pytest.approx(tail_from) and chart.tail_label.anchor.x() == 1


def test_lanes_never_overlap_on_one_sm(session):
    r = pick(session, "sm-trace", "gpu-tiled (tile 32)", None)
    t, lane, wave = trace_lanes(r.block_trace)
    assert lane.max() + 1 == 2  # two 1024-thread blocks fit an SM at once
    for sm in np.unique(t[:, 1]):
        for slot in range(lane.max() + 1):
            rows = t[(t[:, 1] == sm) & (lane == slot)]
            assert (rows[1:, 2] >= rows[:-1, 3]).all()  # a lane holds one block at a time
    assert wave.max() == 3  # 7–8 blocks per SM over 2 lanes: waves 0..3


def test_traffic_chart_model_and_measured(qapp, session):
    chart = TrafficChart(LIGHT)
    chart.set_result(pick(session, "traffic", "gpu-tiled (tile 16)", None))
    dram, l2, l1, shared, conflicts = chart.measured_bytes()
    assert dram == 8_392_704 and l2 == 443_854_304 and l1 == 536_870_912
    assert shared == 50_379_561 * 128  # load wavefronts x 128 B
    assert conflicts > 0
    assert chart.bars[0][1] == pytest.approx(4 * (2 * 1024**3 / 16 + 1024**2))  # model: A, B per tile and C


def test_no_counters_says_so(qapp, session):
    chart = TrafficChart(LIGHT)
    chart.set_result(None)
    assert chart.getPlotItem().titleLabel.text == NO_COUNTERS and chart.bars == []
    traced_only = pick(session, "sm-trace", None, None)
    chart.set_result(traced_only)
    assert "no hardware counters" in chart.getPlotItem().titleLabel.text
    assert "no hardware counters" in explain_counters(traced_only)


def test_ticks_are_1_2_5():
    major, minor = ticks_125(6, 8)
    assert [label for _, label in major] == ["1 MB", "2 MB", "5 MB", "10 MB", "20 MB", "50 MB", "100 MB"]
    major, minor = ticks_125(6, 11)
    assert [label for _, label in major] == ["1 MB", "10 MB", "100 MB", "1 GB", "10 GB", "100 GB"]
    assert len(minor) == 10


def test_level_roofline_points_and_roofs(qapp, session):
    r = pick(session, "traffic", "gpu-tiled (tile 16)", None)
    chart = LevelRooflineChart(LIGHT)
    chart.set_result(r, CEILINGS)
    assert set(chart.points) == {"requested traffic", "DRAM", "L2", "L1", "shared"}
    assert chart.points["DRAM"][0] == pytest.approx(2 * 1024**3 / 8_392_704)
    assert chart.roofs == {"DRAM": 4232.8}  # no L2 / shared ceilings measured: only DRAM's roof
    with_levels = dataclasses.replace(CEILINGS, l2_gbs=8385.0, shared_gbs=32921.0)
    assert level_ceilings(with_levels) == {"DRAM": 4232.8, "L2": 8385.0, "L1": 32921.0, "shared": 32921.0}
    chart.set_result(r, with_levels)
    assert chart.roofs["L2"] == 8385.0


@pytest.mark.parametrize("kind", ["traffic", "sm-trace"])
def test_export_kinds_png_of_the_asked_size(qapp, tmp_path, session, kind):
    out = export_chart(kind, session.results, tmp_path / f"{kind}.png", 1280, 720)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 720)
    colours = {image.pixel(x, y) for x in range(0, 1280, 11) for y in range(0, 720, 11)}
    assert len(colours) > 5


def test_export_refuses_without_data(qapp, tmp_path, session):
    plain = [dataclasses.replace(r, counters=None, block_trace=None) for r in session.results]
    with pytest.raises(ExportError, match="block traces"):
        export_chart("sm-trace", plain, tmp_path / "x.png", 640, 360)
    assert not (tmp_path / "x.png").exists()


def test_roofline_export_is_per_level_for_one_measured_result_and_one_roofline_for_several(qapp, session):
    from gemmviz.ui.charts.roofline import RooflineChart
    from gemmviz.ui.export.exporters import make_chart

    measured = [r for r in session.results if r.counters]
    one = [r for r in measured if r.variant == "gpu-naive" and r.m == 1024][:1]
    chart = make_chart("roofline", one, LIGHT, CEILINGS)
    assert isinstance(chart, LevelRooflineChart) and chart.result is one[0]
    assert "Hierarchical roofline" in chart.getPlotItem().titleLabel.text
    at = make_chart("roofline", measured, LIGHT, CEILINGS, ChartView("gpu-naive", "1024x1024x1024", ""))
    assert isinstance(at, RooflineChart)  # every variant at 1024³: compared on one roofline
    assert isinstance(make_chart("roofline", measured, LIGHT, CEILINGS), RooflineChart)
    plain = [dataclasses.replace(r, counters=None) for r in one]
    assert isinstance(make_chart("roofline", plain, LIGHT, CEILINGS), RooflineChart)  # no counters: the model
    for c in (chart, at):
        c.deleteLater()


@pytest.mark.parametrize("make", ["traffic", "roofline"])
def test_hardware_legend_sits_outside_the_plot(qapp, session, make):
    chart = TrafficChart(LIGHT) if make == "traffic" else LevelRooflineChart(LIGHT)
    result = pick(session, "traffic", "gpu-tiled (tile 16)", None)
    chart.set_result(*((result,) if make == "traffic" else (result, CEILINGS)))
    layout_offscreen(chart, 1280, 720)
    try:
        legend = chart.legend.sceneBoundingRect()
        plot = chart.getPlotItem().getViewBox().sceneBoundingRect()
        assert len(chart.legend.items) >= 2 and legend.width() > 0
        assert not legend.intersects(plot) and legend.left() >= plot.right()
    finally:
        chart.hide()
        chart.deleteLater()


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize("make", ["trace", "traffic", "roofline"])
def test_no_text_overlap(qapp, session, size, make):
    width, height = size
    theme = PROJECTOR_LIGHT.scaled(min(width / 1920, height / 1080))
    if make == "trace":
        chart = SmTraceChart(theme)
        chart.set_result(pick(session, "sm-trace", "gpu-tiled (tile 32)", None), 132)
    elif make == "traffic":
        chart = TrafficChart(theme)
        chart.set_result(pick(session, "traffic", "gpu-tiled (tile 16)", None))
    else:
        chart = LevelRooflineChart(theme)
        chart.set_result(pick(session, "traffic", "gpu-tiled (tile 16)", None), CEILINGS)
    layout_offscreen(chart, width, height)
    try:
        texts = plot_texts(chart, chart)
        assert len(texts) > 5
        assert problems(texts, QRectF(0, 0, width, height)) == []
    finally:
        chart.hide()
        chart.deleteLater()


def test_tab_shows_the_sample_and_plays(qapp, session):
    ws = Workspace()
    ws.open(SAMPLE)
    tab = HardwareTab(ws, LIGHT)
    layout_offscreen(tab, 1280, 720)
    try:
        assert tab.result_combo.count() == 4
        assert tab.view_combo.currentIndex() == 0 and tab.current().block_trace  # SMs × time: a traced result
        assert "waves" in tab.text.toPlainText()
        tab.view_combo.setCurrentIndex(1)  # model vs measured: a result with counters
        assert tab.current().counters and "DRAM moved" in tab.text.toPlainText()
        tab.result_combo.setCurrentIndex(3)  # tile 32 at 1000³: traced only
        assert tab.stack.currentWidget() is tab.trace_chart and tab.trace_chart.blocks == 1024
        assert "waves" in tab.text.toPlainText()
        tab.toggle_play()
        assert tab.timer.isActive() and tab.slider.value() == 0
        tab._tick()
        assert 0 < tab.trace_chart.time_us < tab.trace_chart.duration_us
        tab.stop()
        assert not tab.timer.isActive()
        assert problems(widget_texts(tab), QRectF(0, 0, 1280, 720)) == []
    finally:
        tab.stop()
        tab.hide()
        tab.deleteLater()


def test_trace_sentence_numbers(session):
    text = explain_trace(pick(session, "sm-trace", "gpu-tiled (tile 32)", None), 132)
    assert "1,024 blocks ran on 132 SMs in 3.88 waves" in text and "12.3%" in text
    assert "no block trace" in explain_trace(Result("gpu-tiled", {"tile": 16}, 8, 8, 8, "cuda", "fp32", True))


RECORDED = Path(__file__).parent.parent / "assets" / "sessions" / "h200-2026-12-01.json"


@pytest.mark.parametrize("size", [(1280, 720), (1500, 900), (1920, 1080)], ids=["720p", "900p", "1080p"])
@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
def test_hardware_views_fit_their_pane(qapp, size, projector):
    """The recorded H200 session's tile-16 result at 1024³: each counters view, plot and legend, inside its pane
    (a projector's legend once made the plot wider than the pane and cut its entries off)."""
    from gemmviz.ui.theme import theme_for

    ws = Workspace()
    ws.open(RECORDED)
    tab = HardwareTab(ws, theme_for(projector))
    layout_offscreen(tab, *size)
    try:
        names = [tab.result_combo.itemText(i) for i in range(tab.result_combo.count())]
        tab.result_combo.setCurrentIndex(names.index("gpu-tiled (tile 16) at 1024³ (counters)"))
        for view in (1, 2):
            tab.view_combo.setCurrentIndex(view)
            layout_offscreen(tab, *size)
            chart = tab.stack.currentWidget()
            assert chart.width() <= tab.stack.width()
            assert chart.getPlotItem().geometry().width() <= chart.width() + 1
            texts = plot_texts(chart, chart)
            assert len(texts) > 5
            outside = [t for t in problems(texts, QRectF(chart.rect())) if t.startswith("outside")]
            assert outside == [], (view, outside)
    finally:
        tab.hide()
        tab.deleteLater()


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
def test_tab_opens_on_a_result_its_view_can_draw_and_the_trace_fits(qapp, size, projector):
    """The recorded session's first results (1024³) have counters but no block trace: SMs × time, the first
    view, opens on a traced result. Its time axis spans the whole run inside the pane, and so does the playhead."""
    from PySide6.QtCore import QPointF

    from gemmviz.ui.theme import theme_for

    ws = Workspace()
    ws.open(RECORDED)
    assert not ws.shown()[0].block_trace
    tab = HardwareTab(ws, theme_for(projector))
    layout_offscreen(tab, *size)
    try:
        chart = tab.trace_chart
        assert tab.view_combo.currentIndex() == 0 and tab.stack.currentWidget() is chart
        assert tab.current().block_trace and chart.blocks == len(tab.current().block_trace) > 0
        layout_offscreen(tab, *size)
        assert chart.ci.geometry().width() <= chart.width() + 1
        for plot in (chart.sms_plot, chart.resident_plot):
            (x0, x1), _ = plot.getViewBox().viewRange()
            assert x0 <= 0 and x1 >= chart.duration_us
            box = plot.getViewBox().sceneBoundingRect()
            assert box.right() <= chart.width() and box.bottom() <= chart.height()
            end = plot.getViewBox().mapViewToScene(QPointF(chart.duration_us, 0))
            assert end.x() <= box.right() + 1  # the playhead's last position is on screen
        outside = [t for t in problems(plot_texts(chart, chart), QRectF(chart.rect())) if t.startswith("outside")]
        assert outside == []
        tab.view_combo.setCurrentIndex(2)  # the hierarchical roofline: a result with counters
        assert tab.current().counters and tab.roofline_chart.points
        tab.view_combo.setCurrentIndex(0)
        assert tab.current().block_trace
    finally:
        tab.hide()
        tab.deleteLater()


SHIPPED = Path(__file__).resolve().parents[1] / "assets" / "sessions" / "h200-2026-12-01.json"


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_traffic_compares_two_kernels_measured_side_by_side(qapp, size):
    """Lesson step 8's chart: the naive and the tiled kernel's measured bytes per level, in their own colours,
    the tiled kernel's DRAM bytes as a multiple of the naive one's; every label inside and apart."""
    from gemmviz.core.charts.style import style_of
    from gemmviz.ui.hardware.traffic import compare_chart

    results = [r for r in Session.load(SHIPPED).results if r.series in ("gpu-naive (block 16)", "gpu-tiled (tile 16)")]
    width, height = size
    theme = PROJECTOR_LIGHT.scaled(min(width / 1920, height / 1080))
    chart = compare_chart(results, theme, "4096x4096x4096")
    layout_offscreen(chart, width, height)
    try:
        naive, tiled = chart.results
        assert (naive.variant, tiled.variant) == ("gpu-naive", "gpu-tiled")
        dram = chart.bars[0]
        assert dram[1] == pytest.approx(
            naive.counters["dram__bytes_read.sum"] + naive.counters["dram__bytes_write.sum"]
        )
        assert dram[2] == pytest.approx(
            tiled.counters["dram__bytes_read.sum"] + tiled.counters["dram__bytes_write.sum"]
        )
        ratio = chart.ratio_items[0].textItem.toPlainText()
        assert ratio == f"{dram[2] / dram[1]:.2f}×"
        assert style_of(naive.series).colour != style_of(tiled.series).colour
        texts = plot_texts(chart, chart)
        drawn = [t[0] for t in texts]
        assert naive.series in drawn and tiled.series in drawn, drawn
        assert problems(texts, QRectF(0, 0, width, height)) == []
        one = compare_chart([r for r in results if r.variant == "gpu-naive"], theme, "4096x4096x4096")
        assert one.results == [] and one.result.variant == "gpu-naive"  # one left: the model-vs-measured chart
        one.deleteLater()
    finally:
        chart.hide()
        chart.deleteLater()


def test_a_title_too_tall_for_the_chart_keeps_its_figures_line_only(qapp, session):
    """The Chinese Hardware tab at 720p: the SM chart's title took four lines and left the SMs 55 px. Where the
    title would take over a quarter of the chart, the statement line goes (the side panel's first sentence says
    it) and the figures' line stays."""
    from gemmviz.ui import i18n

    i18n.install(qapp, "zh")
    chart = SmTraceChart(PROJECTOR_LIGHT)  # the window's type at 720p in projector mode
    try:
        chart.set_result(pick(session, "sm-trace", "gpu-tiled (tile 16)", None), 132)
        layout_offscreen(chart, 770, 400)
        chart._fit_title()
        title = chart.sms_plot.titleLabel.item
        assert title.boundingRect().height() <= 0.25 * chart.height()  # four lines (42%) left the SMs 55 px
        assert "波" in title.toPlainText() and "最后一波" not in title.toPlainText()  # the figures' line only
        layout_offscreen(chart, 770, 900)  # where there is room the statement stays
        chart._fit_title()
        assert "最后一波" in chart.sms_plot.titleLabel.item.toPlainText()
    finally:
        i18n.install(qapp, "en")
        chart.deleteLater()


def test_the_hardware_tabs_sm_chart_at_720p_keeps_its_figures_line_only(qapp, session):
    """The English Hardware tab at 1280×720 in projector type: four lines of title (the figures, then the
    statement) left the 132 SMs about 110 px, in rows that blurred into stripes. Where the statement is not the
    chart's message (3% idle here), a title over QUIET_TITLE_SHARE of the chart drops it (the side panel says it);
    a last wave that leaves half the GPU idle keeps it (tests/test_last_wave_view.py)."""
    from gemmviz.ui.hardware.trace import QUIET_TITLE_SHARE

    chart = SmTraceChart(PROJECTOR_LIGHT)
    try:
        chart.set_result(pick(session, "sm-trace", "gpu-tiled (tile 16)", None), 132)
        layout_offscreen(chart, 740, 380)  # the tab's chart at 720p beside its side panel: the title in four lines
        chart._fit_title()
        title = chart.sms_plot.titleLabel.item
        assert title.boundingRect().height() <= QUIET_TITLE_SHARE * chart.height()
        assert "blocks" in title.toPlainText() and "SM-time idle" not in title.toPlainText()
    finally:
        chart.deleteLater()
