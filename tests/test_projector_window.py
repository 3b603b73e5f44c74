"""The window at 1280×720 in projector type (issue 31, item 5): Run stays on screen with the control panel open
and the window still fits; the roofline's explanation scrolls; Compare writes "hundreds of times slower" as
such; an exported chart's footer says each machine once and is never cut at its left; Export chart opens on the
chart shown; a live result's source cell says so."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QPoint, QRectF, QSettings
from PySide6.QtGui import QImage, QPainter

from gemmviz.backends.cpu import CpuBackend
from gemmviz.ui.charts.compare import ratio_text
from gemmviz.ui.export.dialog import ExportDialog, kind_on_screen
from gemmviz.ui.export.exporters import footer_text, paint_footer
from gemmviz.ui.theme import PROJECTOR_LIGHT
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend


@pytest.fixture
def window(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow({"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)}, settings=settings)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitUntil(lambda: bool(w.workspace.environment) and bool(w.workspace.sessions), timeout=10000)
    yield w
    w.set_projector(False)
    w.close()


def _widest(window) -> list[tuple[int, str]]:
    """The widgets whose minimum width is largest: which one holds the window wider than the screen."""
    from PySide6.QtWidgets import QWidget

    found = [
        (w.minimumSizeHint().width(), f"{type(w).__name__} {w.objectName()!r}") for w in window.findChildren(QWidget)
    ]
    return sorted(found, reverse=True)[:12]


def test_run_stays_on_screen_with_the_controls_open(window, qtbot):
    window.set_projector(True)
    window.set_controls_visible(True, remember=True)
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.run_panel.run_button.isVisible(), timeout=30_000)
    hint = window.minimumSizeHint()
    assert hint.width() <= 1280 and hint.height() <= 720, (hint, _widest(window))
    for button in (window.run_panel.run_button, window.run_panel.sweep_button):
        corner = button.mapTo(window, QPoint(button.width(), button.height()))
        assert window.rect().contains(corner), (button.text(), corner)
    tab = window.roofline_tab
    assert tab.explanation_scroll.widget() is tab.explanation  # a long page scrolls, never clipped


def test_compare_writes_slower_machines_as_times_slower(qapp):
    assert ratio_text(0.0032) == "312× slower" and ratio_text(0.5) == "2.00× slower"
    assert ratio_text(1.53) == "1.53×" and ratio_text(153.2) == "153×"


def test_the_footer_names_each_machine_once_and_is_never_cut_at_its_left(qapp):
    text = footer_text(
        [
            ("RTX 4060", "2024-05-01", "published"),
            ("RTX 4060", "2024-06-02", "published"),
            ("RTX 4060", "2024-05-01", "published"),
            ("NVIDIA H200", "2026-12-01", "replayed"),
        ]
    )
    assert text.count("RTX 4060") == 1 and "2024-05-01, 2024-06-02 published" in text
    image = QImage(480, 60, QImage.Format.Format_ARGB32)
    image.fill(0)
    drawn = []
    painter = QPainter(image)
    painter.drawText = lambda rect, flags, t: drawn.append((rect, t))
    paint_footer(painter, text, QRectF(0, 0, 480, 60), PROJECTOR_LIGHT)
    painter.end()
    ((_rect, shown),) = drawn
    assert shown.startswith("RTX 4060") and shown.endswith(text[-12:]) and "…" in shown


def test_export_opens_on_the_chart_shown(window):
    window.tabs.setCurrentWidget(window.roofline_tab)
    assert kind_on_screen(window) == "roofline"
    dialog = ExportDialog(window)
    assert dialog.chart.currentData() == "roofline"
    window.tabs.setCurrentWidget(window.charts_tab)
    combo = window.charts_tab.show_combo
    combo.setCurrentIndex(combo.findData("time"))
    assert ExportDialog(window).chart.currentData() == "time"


def test_a_live_results_source_cell_says_live(window):
    table = window.charts_tab.table
    results = window.workspace.shown()[:3]
    table.set_results(results, lambda _r: "")  # LIVE: this run's results have no session's label
    model = table.model_
    assert [model.cell(i, 0).text for i in range(model.rowCount())] == ["live (this machine)"] * len(results)
    assert model.cell(0, 1).text != "live (this machine)"  # the row's other cells are the result's


def test_the_main_charts_tick_256(window, qtbot):
    """The first size, 256 (a cube root: 255.99999999999991), is ticked: the ticks started at 128, and where
    every second power is taken (a narrow chart) 256 was left out; at the axis's end its label was hidden."""
    from gemmviz.ui.charts.axes import size_ticks

    assert [t for _v, t in size_ticks([255.99999999999991, 1024.0000000001, 8192], 3)[0]] == ["256", "1k", "4k"]
    window.set_projector(True)
    chart = window.charts_tab.gflops_chart
    qtbot.waitUntil(lambda: bool(chart.results) and not window.charts_tab.refresh_pending, timeout=20000)
    axis = chart.getPlotItem().getAxis("bottom")
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    assert "256" in [t for _rect, _flags, t in texts]
