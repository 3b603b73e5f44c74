"""Charts: one style per series everywhere, 1-2-5 log ticks, legends outside the plot with no text overlap
or clipping, roofline picking where points overlap, 4K = 1080p scaled 2x, the export footer, empty charts."""

import math

import numpy as np
import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QImage, QKeyEvent

from gemmviz.core.charts.kinds import ChartView
from gemmviz.core.charts.style import (
    check_registry_fits,
    ladder_series,
    registry_series,
    seed_series,
    style_of,
    style_table,
)
from gemmviz.core.hardware.roofline import load_ceilings
from gemmviz.core.paths import asset_path
from gemmviz.core.session.results import Result, Session
from gemmviz.ui.charts.axes import number_label, ticks_125
from gemmviz.ui.export.exporters import ExportError, export_chart, layout_offscreen, make_chart
from gemmviz.ui.theme import theme_for
from tests.checks.charts import all_four_scales_its_panels_with_the_view
from tests.overlap import plot_texts, problems

KINDS = ("time", "gflops", "speedup", "roofline")


@pytest.fixture(scope="module")
def h200():
    session = Session.load(asset_path("sessions", "h200-2026-12-01.json"))
    return session, load_ceilings(session.environment["backends"]["cuda"]["name"])


# ---- the style table -------------------------------------------------------------------------------
def test_every_registry_series_has_its_own_colour_and_marker():
    assert check_registry_fits()
    styles = [(style_of(s).colour, style_of(s).marker) for s in registry_series()]
    assert len(set(styles)) == len(styles)
    assert style_of("gpu-tiled (tile 16)").colour != style_of("gpu-doublebuffer").colour or (
        style_of("gpu-tiled (tile 16)").marker != style_of("gpu-doublebuffer").marker
    )
    assert len({style_of(s).colour for s in seed_series()}) == 4  # the seed's kernels: four distinct colours
    ladder = ladder_series()
    assert all(style_of(a).colour != style_of(b).colour for a, b in zip(ladder, ladder[1:]))


def test_a_second_session_keeps_colour_and_changes_dash():
    keys = [("", "cublas"), ("A (recorded)", "cublas"), ("A (recorded)", "unknown-kernel"), ("", "cpu-naive")]
    table = style_table(keys)
    assert table[("", "cublas")].colour == table[("A (recorded)", "cublas")].colour
    assert table[("", "cublas")].dash != table[("A (recorded)", "cublas")].dash
    triples = [(s.colour, s.marker, s.dash) for s in table.values()]
    assert len(set(triples)) == len(triples)


def test_style_does_not_depend_on_the_order_results_arrive(qapp):
    from gemmviz.ui.charts.plots import TimeChart

    results = [
        Result(v, p, n, n, n, "cuda", "fp32", True, samples_ms=[1.0])
        for v, p in (("gpu-tiled", {"tile": 16}), ("gpu-doublebuffer", {}), ("cpu-naive", {}))
        for n in (256, 512)
    ]
    colours = []
    for order in (results, results[::-1]):
        chart = TimeChart()
        chart.set_results(order)
        colours.append({name: items[-1].opts["brush"].color().name() for (_, name), items in chart._items.items()})
    assert colours[0] == colours[1]
    markers = {name: items[-1].opts["symbol"] for (_, name), items in chart._items.items()}
    assert len({(colours[0][n], markers[n]) for n in markers}) == 3


def test_same_colour_in_two_charts_and_an_export(qapp, h200):
    """Charts that draw the same series draw them in the same styles (a chart styles the series it draws
    together: a chart of other series may give one another colour)."""
    session, ceilings = h200
    theme = theme_for(False)
    gpu = [r for r in session.results if r.backend == "cuda"]  # what the roofline draws
    time_chart = make_chart("time", gpu, theme)
    roof = make_chart("roofline", gpu, theme, ceilings)
    time_brush = {name: items[-1].opts["brush"].color().name() for (_, name), items in time_chart._items.items()}
    roof_brush = {}
    for item in roof.getPlotItem().items:
        if type(item).__name__ == "ScatterPlotItem" and len(item.data) and item.data["data"][0] is not None:
            roof_brush[item.data["data"][0].result.series] = item.opts["brush"].color().name()
    common = set(time_brush) & set(roof_brush)
    assert len(common) >= 5 and all(time_brush[s] == roof_brush[s] for s in common)
    # the export draws through the same make_chart with a theme that differs only in pixel sizes
    from gemmviz.ui.export.exporters import device_theme

    big = make_chart("time", gpu, device_theme(theme, 3840, 2160))
    big_brush = {name: items[-1].opts["brush"].color().name() for (_, name), items in big._items.items()}
    assert big_brush == time_brush


# ---- ticks --------------------------------------------------------------------------------------------
def test_log_ticks_fall_on_1_2_5():
    values = [round(10**v, 6) for v in ticks_125(math.log10(0.3), math.log10(60), 20)]
    assert values == [0.5, 1, 2, 5, 10, 20, 50]
    sparse = [round(10**v, 6) for v in ticks_125(-2, 6, 5)]
    assert all(math.log10(v) == round(math.log10(v)) for v in sparse) and 2 <= len(sparse) <= 5
    assert [number_label(x, "×") for x in (0.5, 2, 10, 2000)] == ["0.5×", "2×", "10×", "2,000×"]
    assert number_label(0.05) == "0.05"


def test_axis_labels_never_show_odd_values(qapp, h200):
    session, ceilings = h200
    for kind in KINDS:
        chart = make_chart(kind, session.results, theme_for(False), ceilings)
        layout_offscreen(chart, 1280, 720)
        for side in ("left", "bottom"):
            axis = chart.getPlotItem().getAxis(side)
            for text, _ in [t for t in plot_texts(chart, chart) if t[0]]:
                assert "0.398" not in text and "3.16" not in text
            if hasattr(axis, "suffix"):
                lo, hi = axis.range
                for v in axis.tickValues(lo, hi, 600)[0][1]:
                    mantissa = round(10**v / 10 ** math.floor(v + 1e-9), 6)
                    assert mantissa in (1, 2, 5), (kind, side, 10**v)
        chart.close()


# ---- layout: legends outside the plot, no overlap, nothing clipped -------------------------------------
@pytest.mark.parametrize("projector", [False, True])
@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize("kind", KINDS)
def test_no_text_overlaps_and_legend_is_outside_the_plot(qapp, h200, kind, size, projector):
    session, ceilings = h200
    chart = make_chart(kind, session.results, theme_for(projector), ceilings)
    layout_offscreen(chart, *size)
    texts = plot_texts(chart, chart)
    assert texts
    assert problems(texts, QRectF(0, 0, *size)) == []
    legend = chart.legend
    if legend.isVisible():
        assert len(legend.items) >= 4
        view = chart.getPlotItem().getViewBox().sceneBoundingRect()
        assert not legend.sceneBoundingRect().intersects(view)
        assert QRectF(0, 0, *size).contains(legend.sceneBoundingRect())
        labels = {label.text for _, label in legend.items}
        assert "gpu-naive (block 16)" in labels  # the seed's kernel is never lost
    chart.close()


@pytest.mark.parametrize("count", [4, 21])
def test_legend_fits_with_4_and_21_series(qapp, h200, count):
    session, _ = h200
    series = list(dict.fromkeys(r.series for r in session.results))[:count]
    results = [r for r in session.results if r.series in series]
    for projector in (False, True):
        chart = make_chart("time", results, theme_for(projector))
        layout_offscreen(chart, 1280, 720)
        assert [s for s in chart.legend.entry_series if s] == chart.legend.entry_series[: len(series)]
        assert len(chart.legend.entry_series[: len(series)]) == len(series)
        hollow = chart.legend.names[len(series) :]  # 1000³ beside 1024³, 2000×3000×1000: named
        assert hollow == [] or (len(hollow) == 1 and hollow[0].startswith("hollow: 1000³")), hollow
        assert problems(plot_texts(chart, chart), QRectF(0, 0, 1280, 720)) == []
        assert chart.legend.sceneBoundingRect().width() < 0.45 * 1280
        chart.close()


def test_legend_click_toggles_a_series_and_names_are_plain_text(qapp):
    from gemmviz.ui.charts.plots import TimeChart

    results = [Result("cpu-naive", {}, n, n, n, "cpu", "fp32", True, samples_ms=[1.0]) for n in (64, 128)]
    chart = TimeChart()
    chart.hidden_series = ["<b>evil</b>"]
    chart.set_results(results)
    layout_offscreen(chart, 800, 500)
    toggled = []
    chart.seriesToggled.connect(toggled.append)
    sample, label = chart.legend.items[0]
    chart.legend.mouseClickEvent(_Click(label.geometry().center()))
    assert toggled == ["cpu-naive"]
    assert chart.legend.items[1][1].text == "&lt;b&gt;evil&lt;/b&gt;"
    chart.close()


class _Click:
    def __init__(self, pos):
        self._pos, self.accepted = pos, False

    def pos(self):
        return self._pos

    def button(self):
        return Qt.MouseButton.LeftButton

    def accept(self):
        self.accepted = True


# ---- speedup ---------------------------------------------------------------------------------------------
def test_speedup_names_the_seed_baseline_and_an_empty_state_clears_the_bars(qapp, h200):
    from gemmviz.ui.charts.plots import SpeedupChart

    session, _ = h200
    chart = SpeedupChart()
    chart.set_results(session.results)
    assert chart.baseline == "gpu-naive"
    assert "vs GPU naive, block 16×16 (the seed's)" in chart.getPlotItem().titleLabel.text and chart.bars
    chart.set_view("cpu-naive", "8192x8192x8192")  # the recording has no CPU loop at 8192
    assert chart.bars == [] and "sizes with one" in chart.empty_reason
    assert not [i for i in chart.getPlotItem().items if type(i).__name__ == "BarGraphItem"]
    assert chart.getPlotItem().getAxis("left")._tickLevels == [[]]
    chart.close()


def test_charts_repaint_whole_so_that_no_fragment_of_a_former_layout_stays(qapp):
    """On an X display the first layout of the Charts tab left old ticks and points on screen until the tab
    was switched (pyqtgraph repaints only the regions it thinks changed): every chart repaints whole."""
    from pyqtgraph.Qt import QtWidgets

    from gemmviz.ui.charts.plots import GflopsChart, SpeedupChart, TimeChart
    from gemmviz.ui.charts.roofline import RooflineChart
    from gemmviz.ui.hardware.tab import LevelRooflineChart

    for cls in (TimeChart, GflopsChart, SpeedupChart, RooflineChart, LevelRooflineChart):
        chart = cls()
        assert chart.viewportUpdateMode() == QtWidgets.QGraphicsView.ViewportUpdateMode.FullViewportUpdate, cls
        chart.close()


def test_speedup_with_its_baseline_hidden_says_it_is_hidden(qapp, tmp_path):
    """Hiding the baseline's series (a legend click) leaves the speedup chart empty: it says that the baseline
    is hidden and how to show it, not that no size has one."""
    from gemmviz.core.session.workspace import Workspace
    from gemmviz.ui.charts.tab import ChartsTab
    from gemmviz.ui.theme import LIGHT

    ws = Workspace()
    ws.open(asset_path("sessions", "h200-2026-12-01.json"))
    tab = ChartsTab(ws, LIGHT)
    tab.refresh()
    chart = tab.speedup_chart
    assert chart.bars
    tab.toggle_series("gpu-naive (block 16)")
    tab.refresh()
    assert chart.bars == [] and "no size has one" not in chart.empty_reason
    assert chart.getPlotItem().titleLabel.text == "GPU naive, block 16×16 (the seed's) is hidden"
    assert "show gpu-naive (block 16) again" in chart.empty_reason
    tab.toggle_series("gpu-naive (block 16)")
    tab.refresh()
    assert chart.bars and chart.empty_reason == ""
    tab.stop()
    tab.close()


def test_changing_the_baseline_keeps_the_chosen_size(qapp, tmp_path):
    from gemmviz.core.session.workspace import Workspace
    from gemmviz.ui.charts.tab import ChartsTab
    from gemmviz.ui.theme import LIGHT

    ws = Workspace()
    ws.open(asset_path("sessions", "h200-2026-12-01.json"))
    tab = ChartsTab(ws, LIGHT)
    tab.refresh()
    combo = tab.panels["speedup"].size_combo
    combo.setCurrentIndex(0)
    chosen = combo.currentData()
    tab.baseline_combo.setCurrentIndex(tab.baseline_combo.findData("cublas"))
    assert combo.currentData() == chosen and tab.speedup_chart.size_key == chosen
    tab.apply_preset("seed kernels")
    assert {r.series for r in ws.shown()} <= set(seed_series()) and ws.shown()
    tab.apply_preset("all")
    assert not ws.hidden
    tab.toggle_series("cublas")
    assert "cublas" in ws.hidden and "cublas" in tab.time_chart.hidden_series
    tab.stop()
    tab.close()


# ---- roofline picking ------------------------------------------------------------------------------------
def test_roofline_picks_the_nearest_of_overlapping_points_and_cycles(qapp, h200):
    session, ceilings = h200
    chart = make_chart("roofline", session.results, theme_for(True), ceilings)
    layout_offscreen(chart, 1280, 720)
    picked = []
    chart.pointClicked.connect(picked.append)
    vb = chart.getPlotItem().getViewBox()
    x, y = chart._xy[0]
    at = vb.mapViewToScene(QPointF(float(x), float(y)))
    first = chart.pick(at + QPointF(1, 1))
    assert first is not None and picked[-1] is first and len(chart.candidates) >= 2
    ring = chart._ring.getData()
    assert np.allclose([ring[0][0], ring[1][0]], chart._xy[chart.selected])
    seen = {chart.selected}
    for _ in range(len(chart.candidates) - 1):
        chart.event(QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Tab, Qt.KeyboardModifier.NoModifier))
        seen.add(chart.selected)
    assert seen == set(chart.candidates)
    chart.event(QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_N, Qt.KeyboardModifier.NoModifier))
    assert chart.selected == chart.candidates[0]  # wraps round
    chart.close()


@pytest.mark.parametrize("projector", [False, True])
def test_roofline_click_on_a_markers_centre_selects_it(qapp, h200, projector):
    """A real mouse click exactly on a dot selects it (pyqtgraph's scatter accepts that click first), so does
    one inside its drawn marker plus a few pixels; a click well clear of every marker selects nothing."""
    from pyqtgraph.Qt import QtTest
    from PySide6.QtCore import QPoint

    session, ceilings = h200
    chart = make_chart("roofline", session.results, theme_for(projector), ceilings)
    layout_offscreen(chart, 1280, 720)
    screen = chart._screen_xy()
    # the dot with the most room around it, so that the nearest one is the one clicked
    dist = np.hypot(screen[:, None, 0] - screen[None, :, 0], screen[:, None, 1] - screen[None, :, 1])
    np.fill_diagonal(dist, np.inf)
    i = int(np.argmax(dist.min(axis=1)))
    centre = chart.mapFromScene(QPointF(*screen[i]))
    radius = chart.theme.symbol_px / 2
    assert chart.pick_radius() >= radius + 3

    def click(offset: int) -> int | None:
        chart.select(None)
        QtTest.QTest.mouseClick(chart.viewport(), Qt.MouseButton.LeftButton, pos=centre + QPoint(offset, 0))
        return chart.selected

    assert click(0) == i
    assert click(round(radius) + 2) == i
    if dist[i].min() > 2 * chart.pick_radius() + 12:
        assert click(round(chart.pick_radius()) + 6) is None
    chart.close()


def _inside(xy: np.ndarray, rect) -> np.ndarray:
    """The points inside `rect`, edges included (the check made plainly, apart from the chart's own)."""
    return (
        (xy[:, 0] >= rect.left()) & (xy[:, 0] <= rect.right()) & (xy[:, 1] >= rect.top()) & (xy[:, 1] <= rect.bottom())
    )


@pytest.mark.parametrize("projector", [False, True])
@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_roofline_note_and_bandwidth_label_cross_no_roof_line(qapp, h200, projector, size):
    from gemmviz.ui.charts.roofline import _dense

    session, ceilings = h200
    chart = make_chart("roofline", session.results, theme_for(projector), ceilings)
    layout_offscreen(chart, *size)
    vb = chart.getPlotItem().getViewBox()
    roofs = [
        _dense(np.array([[p.x(), p.y()] for p in (vb.mapViewToScene(QPointF(*xy)) for xy in r)]), 1.0)
        for r in chart._roofs
    ]
    assert len(roofs) == 3
    for item in (chart.above_roof_note, chart.bandwidth_label):
        rect = item.textItem.mapRectToScene(item.textItem.boundingRect())
        assert vb.sceneBoundingRect().contains(rect), item.toPlainText()
        assert not any(_inside(r, rect).any() for r in roofs), item.toPlainText()
    texts = plot_texts(chart, chart)
    note = next(r for t, r in texts if t == chart.above_roof_note.toPlainText())
    assert not [t for t, r in texts if t != chart.above_roof_note.toPlainText() and r.intersects(note)]
    chart.close()


def test_roofline_notes_a_point_above_the_roof_and_highlights(qapp, h200):
    from gemmviz.ui.charts.roofline import ABOVE_ROOF_NOTE, NOTE_LINES

    session, ceilings = h200
    chart = make_chart("roofline", session.results, theme_for(False), ceilings)
    assert any(p.pct_of_roof and p.pct_of_roof > 100 for p in chart.points)
    assert chart.above_roof_note is not None and chart.above_roof_note.toPlainText() == NOTE_LINES
    assert NOTE_LINES.replace("\n", " ") == ABOVE_ROOF_NOTE
    chart.set_highlight(["gpu-naive (block 16)"])
    faded = [i for i in chart.getPlotItem().items if type(i).__name__ == "ScatterPlotItem" and i.opacity() < 1]
    assert faded
    chart.close()


def test_roofline_explanation_fits_without_scrolling_in_projector_mode(qapp, h200):
    from gemmviz.core.session.workspace import Workspace
    from gemmviz.ui.roofline.tab import RooflineTab

    ws = Workspace()
    ws.open(asset_path("sessions", "h200-2026-12-01.json"))
    theme = theme_for(True)
    tab = RooflineTab(ws, theme)
    font = tab.font()
    font.setPointSize(theme.font_pt)
    tab.setFont(font)
    tab.refresh()
    naive = next(r for r in ws.shown() if r.variant == "gpu-naive" and r.valid)
    tab.explain(naive)
    layout_offscreen(tab, 1920, 900)  # 1080p less the window's menu, banner and tab bar
    label = tab.explanation
    for page in range(len(tab.pages)):
        tab.show_page(page)
        assert label.heightForWidth(label.width()) <= label.height(), page
    assert "584%" in tab.text() or "%" in tab.text()
    assert tab.chart.legend.isVisible() and len(tab.chart.legend.items) > 3
    tab.close()


# ---- exports -------------------------------------------------------------------------------------------
def _pixels(path, size=None) -> np.ndarray:
    image = QImage(str(path))
    if size:
        image = image.scaled(*size, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation)
    image = image.convertToFormat(QImage.Format.Format_Grayscale8)
    w, h = image.width(), image.height()
    return np.frombuffer(image.constBits(), np.uint8).reshape(h, image.bytesPerLine())[:, :w].astype(float)


@pytest.mark.parametrize("kind", ["time", "roofline"])
def test_4k_is_the_1080p_layout_scaled_2x(qapp, h200, tmp_path, kind):
    session, ceilings = h200
    hd = export_chart(kind, session.results, tmp_path / "hd.png", 1920, 1080, theme_for(True), ceilings)
    uhd = export_chart(kind, session.results, tmp_path / "uhd.png", 3840, 2160, theme_for(True), ceilings)
    a, b = _pixels(hd), _pixels(uhd, (1920, 1080))
    assert np.abs(a - b).mean() < 4.0
    # text and lines in the same places: the ink per row and per column agrees
    for axis in (0, 1):
        pa, pb = (255 - a).sum(axis=axis), (255 - b).sum(axis=axis)
        assert np.corrcoef(pa, pb)[0, 1] > 0.9


def test_every_export_has_a_footer(qapp, h200, tmp_path):
    from gemmviz.core.session.workspace import Workspace
    from gemmviz.ui.export.exporters import footer_text, workspace_footer

    ws = Workspace()
    loaded = ws.open(asset_path("sessions", "h200-2026-12-01.json"), replay=True)
    footer = workspace_footer(ws, ws.shown())
    assert footer.startswith("NVIDIA H200 2026-12-01 replayed") and "gemmviz " in footer
    assert footer_text([]).startswith("gemmviz ")
    plain = export_chart("time", loaded.results, tmp_path / "a.png", 1280, 720)
    with_footer = export_chart("time", loaded.results, tmp_path / "b.png", 1280, 720, footer=footer)
    bottom = _pixels(with_footer)[-30:]
    assert (bottom < 128).sum() > (_pixels(plain)[-30:] < 128).sum() > 0  # a longer footer, more ink
    svg = export_chart("time", loaded.results, tmp_path / "c.svg", 1280, 720, footer=footer).read_text()
    assert "NVIDIA H200 2026-12-01 replayed" in svg


def test_an_empty_chart_is_refused_naming_the_sizes_with_data(qapp, h200, tmp_path):
    session, ceilings = h200
    with pytest.raises(
        ExportError, match="no CPU loop result at 8192×8192×8192; sizes with one: 256³, 512³, 1024³, 2048³, 4096³"
    ):
        export_chart(
            "speedup", session.results, tmp_path / "s.png", 640, 360, view=ChartView("cpu-naive", "8192x8192x8192", "")
        )
    cpu_only = [r for r in session.results if r.backend == "cpu"]
    with pytest.raises(ExportError, match="roofline needs GPU results"):
        export_chart("roofline", cpu_only, tmp_path / "r.png", 640, 360, ceilings=ceilings)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["time", "gflops", "roofline"])
@pytest.mark.parametrize("scale", [2 / 3, 1.0], ids=["720p", "1080p"])
def test_projector_lines_markers_and_legend_text_are_legible(qapp, h200, kind, scale):
    """Projector mode, also scaled down to a 720p slide: lines at least 3 px, markers at least 10 px, and the
    legend's text never smaller than the axes' (it elides or sums up entries instead)."""
    from gemmviz.ui.charts.base import PROJECTOR_MIN_LINE_PX, PROJECTOR_MIN_SYMBOL_PX
    from gemmviz.ui.theme import PROJECTOR_LIGHT

    session, ceilings = h200
    theme = PROJECTOR_LIGHT.scaled(scale)
    chart = make_chart(kind, session.results, theme, ceilings)
    layout_offscreen(chart, round(1920 * scale), round(1080 * scale))
    items = chart.getPlotItem().items
    lines = [i for i in items if type(i).__name__ == "PlotCurveItem" and i is not getattr(chart, "_leader", None)]
    pens = [i.opts["pen"] for i in lines if i.opts.get("pen") is not None]  # data and roofs: not the note's leader
    scatters = [i for i in items if type(i).__name__ == "ScatterPlotItem"]
    assert pens and scatters
    assert min(pg_pen.widthF() for pg_pen in map(_pen, pens)) >= PROJECTOR_MIN_LINE_PX
    assert min(s.opts["size"] for s in scatters) >= PROJECTOR_MIN_SYMBOL_PX
    axis_pt = chart.getPlotItem().getAxis("bottom").style["tickFont"].pointSizeF()
    legend_pt = float(chart.legend.opts["labelTextSize"].removesuffix("pt"))
    assert legend_pt >= axis_pt and chart.legend.isVisible()
    chart.close()


def _pen(pen):
    import pyqtgraph as pg

    return pg.mkPen(pen)


@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
def test_all_four_scales_its_panels_with_the_view(qtbot, projector):
    all_four_scales_its_panels_with_the_view(qtbot, projector)


def test_speedup_bars_too_many_for_legible_names_keep_both_ends_and_say_what_is_between(qapp, qtbot, h200):
    """25 series in a quarter of a 720p projector screen drew names of 11 px; the chart keeps names at the
    projector floor (16 px) and draws the fastest and the slowest bars around one row naming how many it leaves
    out and their range. Every figure stays in `bars` (and the table); a taller chart draws them all again."""
    from gemmviz.ui.charts.plots import MIN_BAR_SHARE, SpeedupChart
    from gemmviz.ui.theme import PROJECTOR_LIGHT

    session, _ = h200
    chart = SpeedupChart(PROJECTOR_LIGHT)
    chart.resize(620, 420)
    chart.show()  # laid out: the rows' room is the plot's own height, as in the window
    chart.set_results(session.results)
    chart.set_view("gpu-naive", "8192x8192x8192")
    qtbot.waitUntil(lambda: chart.fit_rows is not None)  # laid out, and fitted to the plot's height
    n = len(chart.bars)
    assert n >= 20
    rows = chart.rows
    assert chart.fit_rows == len(rows) < n
    gap = [label for label, x in rows if x is None]
    assert len(gap) == 1
    head = rows.index((gap[0], None))
    left_out = chart.bars[head : n - (len(rows) - 1 - head)]
    assert rows[:head] == chart.bars[:head] and rows[head + 1 :] == chart.bars[n - len(rows) + head + 1 :]
    assert gap[0].startswith(f"⋯ {len(left_out)} more, ")  # and their range, slowest to fastest
    font = chart.getPlotItem().getAxis("left").style["tickFont"]
    assert font.pointSizeF() >= MIN_BAR_SHARE * PROJECTOR_LIGHT.font_pt - 0.01
    row_px = chart.getPlotItem().getViewBox().height() / (len(rows) + 0.4)
    assert row_px >= MIN_BAR_SHARE * PROJECTOR_LIGHT.font_pt * 96 / 72 / 0.75 - 0.5  # rows as tall as the names need
    bars = [i for i in chart.getPlotItem().items if type(i).__name__ == "BarGraphItem"]
    assert len(bars) == 1 and len(bars[0].opts["y"]) == len(rows) - 1
    chart.resize(620, 1400)
    qtbot.waitUntil(lambda: chart.fit_rows is None)
    assert chart.rows == chart.bars
    chart.close()
