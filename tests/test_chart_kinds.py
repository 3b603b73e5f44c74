"""The chart kinds' and export formats' registries (issue 22): a kind, or a format, is one registered class, and
the Charts tab, the export dialog, `gemmviz export` (its choices, help and suffix check) and export_chart list
and dispatch through them. A throwaway kind and format are registered, seen everywhere, used, and removed."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402
from PySide6.QtWidgets import QFileDialog  # noqa: E402

from gemmviz.cli import main  # noqa: E402
from gemmviz.cli.main import build_parser  # noqa: E402
from gemmviz.core import chart_kinds, export_formats  # noqa: E402
from gemmviz.core.chart_kinds import CHART_KINDS, HARDWARE_KINDS, ChartKind, ChartView, NothingToDraw  # noqa: E402
from gemmviz.core.export_formats import ExportFormat  # noqa: E402
from gemmviz.core.paths import asset_path  # noqa: E402
from gemmviz.ui.charts import kinds as ui_kinds  # noqa: E402
from gemmviz.ui.export import exporters  # noqa: E402
from gemmviz.ui.theme import LIGHT  # noqa: E402

SESSION = str(asset_path("sessions", "h200-2026-12-01.json"))
SHIPPED = ["time", "gflops", "speedup", "roofline", "dashboard", "traffic", "sm-trace"]


def _registries():
    return [k.name for k in chart_kinds.kinds()], [f.name for f in export_formats.formats(export_formats.CHART)]


@pytest.fixture
def throwaway():
    """A kind (a panel of the Charts tab too) and a chart format, each one class; removed afterwards."""
    before = _registries()
    drawn, written = [], []

    @chart_kinds.register
    class Best(ChartKind):
        name = "best"
        label = "best kernel"
        description = "the fastest series at each size"
        panel = "best"

        @classmethod
        def check(cls, results, view):
            super().check(results, view)
            if not any(r.backend == "cuda" for r in results):
                raise NothingToDraw("nothing to chart: the best kernel needs GPU results")

        @classmethod
        def render(cls, results, theme, ceilings, view):
            from gemmviz.ui.charts.plots import GflopsChart

            drawn.append((len(results), view))
            chart = GflopsChart(theme)
            chart.set_results(results)
            return chart

        @classmethod
        def make_panel(cls, theme):
            from gemmviz.ui.charts.panels import ChartPanel
            from gemmviz.ui.charts.plots import GflopsChart

            return ChartPanel(GflopsChart(theme))

    @export_formats.register
    class Bmp(export_formats.ExportFormat):
        name = "bmp"
        target = export_formats.CHART
        suffix = ".bmp"
        title = "BMP image"

        @staticmethod
        def write(widget, target, width, height, theme, footer):
            image = exporters.render_widget(widget, width, height, theme.background, footer, theme)
            assert image.save(str(target), "BMP")
            written.append(target)

    try:
        yield Best, Bmp, drawn, written
    finally:
        chart_kinds.unregister(Best)
        export_formats.unregister(Bmp)
    assert _registries() == before


def test_the_shipped_kinds_are_listed_in_order_and_each_has_its_drawing():
    assert list(CHART_KINDS) == SHIPPED == [k.name for k in ui_kinds.kinds()]
    assert list(HARDWARE_KINDS) == ["traffic", "sm-trace"] and HARDWARE_KINDS["traffic"][0] == "counters"
    assert [k.panel for k in ui_kinds.panels()] == ["time", "GFLOP/s", "speedup"]
    for kind in ui_kinds.kinds():  # the ui's drawing replaced core's description in its place
        assert kind.__module__.startswith("gemmviz.ui.charts.kinds.") and kind.render is not ChartKind.render
        assert kind.__mro__[1].__module__ == "gemmviz.core.chart_kinds" and kind.description == CHART_KINDS[kind.name]
    with pytest.raises(KeyError, match="unknown chart 'pie'; choose one of time, gflops"):
        chart_kinds.get("pie")
    for target in export_formats.TARGETS:  # and every format its writer, from ui/export/formats/
        for fmt in export_formats.formats(target):
            assert fmt.__module__.startswith("gemmviz.ui.export.formats.") and fmt.write is not ExportFormat.write


def test_clashes_and_incomplete_kinds_are_refused():
    with pytest.raises(ValueError, match="registered already"):
        chart_kinds.register(type("Other", (ChartKind,), {"name": "time", "label": "t", "description": "d"}))
    with pytest.raises(TypeError, match="needs description"):
        chart_kinds.register(type("Bad", (ChartKind,), {"name": "x", "label": "x"}))
    with pytest.raises(TypeError, match="needs is"):
        chart_kinds.register(
            type("Bad", (ChartKind,), {"name": "x", "label": "x", "description": "d", "needs": ("x",)})
        )
    assert list(CHART_KINDS) == SHIPPED


def test_a_new_kind_and_format_are_listed_by_the_cli_and_written_by_it(throwaway, tmp_path, capsys):
    best, bmp, drawn, written = throwaway
    assert list(CHART_KINDS)[-1] == "best" and ".bmp" in export_formats.suffixes(export_formats.CHART)
    export = build_parser()._subparsers._group_actions[0].choices["export"]
    chart = next(a for a in export._actions if "--chart" in a.option_strings)
    output = next(a for a in export._actions if "--output" in a.option_strings)
    assert chart.choices[-1] == "best" and "best: the fastest series at each size" in chart.help
    assert "out.bmp (BMP image)" in output.help
    out = tmp_path / "best.bmp"
    assert main(["export", SESSION, "--chart", "best", "--at", "1024", "--size", "640x360", "-o", str(out)]) == 0
    assert written == [out] and QImage(str(out)).size().width() == 640
    assert drawn[-1][1] == ChartView("gpu-naive", "1024x1024x1024", "")  # the CLI's view reaches the kind
    cpu = tmp_path / "cpu.json"
    assert main(["export", SESSION, "--chart", "best", "--variants", "cpu-naive", "-o", str(cpu.with_suffix(".bmp"))])
    assert "the best kernel needs GPU results" in capsys.readouterr().err  # the kind's own check


def test_a_new_kind_and_format_are_listed_by_the_dialog_and_the_tab(throwaway, qtbot, tmp_path, monkeypatch):
    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.export.dialog import ExportDialog
    from gemmviz.ui.window import MainWindow
    from tests.fakes import FakeGpuBackend

    best, bmp, drawn, written = throwaway
    w = MainWindow({"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)},
                   settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))  # fmt: skip
    qtbot.addWidget(w)
    qtbot.waitUntil(lambda: bool(w.workspace.sessions), timeout=20000)
    tab = w.charts_tab  # built after the kind was registered: its panel is there, after the shipped ones
    keys = [tab.show_combo.itemData(i) for i in range(tab.show_combo.count())]
    assert keys == ["all four", "time", "GFLOP/s", "speedup", "best", "table"]
    tab.show_combo.setCurrentIndex(keys.index("best"))
    tab.refresh()
    assert tab.panels["best"].chart.results and tab.time_chart.isHidden() and not tab.table.isVisibleTo(w)

    dialog = ExportDialog(w)
    qtbot.addWidget(dialog)
    names = {dialog.chart.itemData(i): dialog.chart.itemText(i) for i in range(dialog.chart.count())}
    assert list(names) == [*SHIPPED, "best"] and names["best"] == "best kernel"
    asked = []
    out = tmp_path / "chart.bmp"

    def save(parent, caption, name, filters):
        asked.append((name, filters))
        return str(out), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save)
    dialog.chart.setCurrentIndex(dialog.chart.findData("best"))
    dialog.size.setCurrentText("800x450")
    dialog._save()
    assert asked == [("best.png", "PNG image (*.png);;SVG drawing (*.svg);;BMP image (*.bmp)")]
    assert written == [out] and QImage(str(out)).width() == 800
    assert drawn[-1][1].source_of == w.workspace.source_of  # the window's view reaches the kind
    w.close()


def test_the_animation_dialog_lists_and_dispatches_through_the_formats(qtbot, tmp_path, monkeypatch):
    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.export.dialog import export_animation_dialog
    from gemmviz.ui.window import MainWindow
    from tests.fakes import FakeGpuBackend

    calls = []

    @export_formats.register
    class Webp(export_formats.ExportFormat):
        name = "webp"
        target = export_formats.ANIMATION
        suffix = ".webp"
        title = "WebP animation"

        @staticmethod
        def write(schedule, path, thread, width, height, steps_per_second, theme, progress=None):
            calls.append(("webp", path, steps_per_second))
            return 7

    w = MainWindow({"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)},
                   settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))  # fmt: skip
    qtbot.addWidget(w)
    try:
        asked, answers = [], [str(tmp_path / "t.webp"), str(tmp_path / "t.GIF"), str(tmp_path / "frames")]
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a: (asked.append(a[3]), (answers.pop(0), ""))[1])
        monkeypatch.setattr(exporters, "export_gif", lambda *a: calls.append(("gif", a[1], a[5])) or 5)
        monkeypatch.setattr(exporters, "export_frames", lambda *a: calls.append(("frames", a[1], a[6])) or 3)
        speed = w.tiling.speed_spin.value()
        for _ in range(3):
            export_animation_dialog(w)
        assert asked[0] == "Animated GIF (*.gif);;MP4 video (*.mp4);;PNG frames (folder) (*);;WebP animation (*.webp)"
        assert [c[0] for c in calls] == ["webp", "gif", "frames"] and all(c[2] == speed for c in calls)
    finally:
        export_formats.unregister(Webp)
        w.close()
    assert ".webp" not in export_formats.suffixes(export_formats.ANIMATION)


def test_export_chart_dispatches_by_kind_and_suffix_and_refuses_what_is_not_registered(tmp_path):
    from gemmviz.core.results import Session

    results = Session.load(SESSION).results
    with pytest.raises(exporters.ExportError, match="unknown chart 'best'"):
        exporters.export_chart("best", results, tmp_path / "x.png", 320, 180)
    with pytest.raises(exporters.ExportError, match=r"must end in"):
        exporters.export_chart("time", results, tmp_path / "x.bmp", 320, 180)
    assert list(tmp_path.iterdir()) == []
    view = ChartView("cublas", "4096x4096x4096", None)
    svg = exporters.export_chart("speedup", results, tmp_path / "s.svg", 320, 180, LIGHT, None, view)
    assert svg.read_text().startswith("<?xml")
