"""The chart kinds' and export formats' registries (issue 22): a kind, or a format, is one registered class, and
the Charts tab, the export dialog, `gemmviz export` (its choices, help and suffix check), lessons and export_chart
list and dispatch through them. A throwaway kind and format are registered, seen everywhere, used, and removed.
The tests hold the registries to what they were before, not to the shipped lists, so that a kind or a format
added as CONTRIBUTING.md says breaks none of them."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QSettings
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog

from gemmviz.cli import main
from gemmviz.cli.main import build_parser
from gemmviz.core import export_formats
from gemmviz.core.charts import kinds as chart_kinds
from gemmviz.core.charts.kinds import (
    CHART_KINDS,
    DEFAULT_BASELINE,
    HARDWARE_KINDS,
    ChartKind,
    ChartView,
    NothingToDraw,
)
from gemmviz.core.export_formats import ANIMATION, CHART, ExportFormat
from gemmviz.core.lesson import views as lesson_views
from gemmviz.core.paths import asset_path
from gemmviz.core.session.results import Result, Session
from gemmviz.ui.charts import kinds as ui_kinds
from gemmviz.ui.export import exporters
from gemmviz.ui.theme import LIGHT

SESSION = str(asset_path("sessions", "h200-2026-12-01.json"))
SHIPPED = ["time", "gflops", "speedup", "roofline", "dashboard", "traffic", "sm-trace"]
KIND, SUFFIX = "zz-test-kind", ".zzt"  # the throwaways' names: no kind or format will ever be called so


def _registries():
    return [k.name for k in chart_kinds.kinds()], [f.name for f in export_formats.formats(CHART)]


@pytest.fixture
def throwaway():
    """A kind (a panel of the Charts tab too) and a chart format, each one class; removed afterwards."""
    before = _registries()
    drawn, written = [], []

    @chart_kinds.register
    class ZzKind(ChartKind):
        name = KIND
        label = "zz test kernel"
        description = "the zz test chart"
        tab_label = "zz test"

        @classmethod
        def check(cls, results, view):
            super().check(results, view)
            if not any(r.backend == "cuda" for r in results):
                raise NothingToDraw("nothing to chart: the zz test chart needs GPU results")

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
    class ZzFormat(export_formats.ExportFormat):
        name = "zz-test-format"
        target = CHART
        suffix = SUFFIX
        title = "ZZ test image"

        @staticmethod
        def write(widget, target, width, height, theme, footer):
            image = exporters.render_widget(widget, width, height, theme.background, footer, theme)
            assert image.save(str(target), "BMP")
            written.append(target)

    try:
        yield ZzKind, ZzFormat, drawn, written
    finally:
        chart_kinds.unregister(ZzKind)
        export_formats.unregister(ZzFormat)
    assert _registries() == before


def test_the_shipped_kinds_come_first_in_order_and_each_has_its_drawing():
    assert list(CHART_KINDS)[: len(SHIPPED)] == SHIPPED and list(CHART_KINDS) == [k.name for k in ui_kinds.kinds()]
    assert list(HARDWARE_KINDS)[:2] == ["traffic", "sm-trace"] and HARDWARE_KINDS["traffic"][0] == "counters"
    tab = [(k.name, k.tab_label) for k in ui_kinds.panels()]
    assert tab[:3] == [("time", "time"), ("gflops", "GFLOP/s"), ("speedup", "speedup")]
    assert chart_kinds.get("dashboard").quarters == ("time", "gflops", "speedup", "roofline")
    assert lesson_views.step_charts()[:5] == ("time", "gflops", "speedup", "traffic", "sm-trace")  # no dashboard
    assert lesson_views.hardware_charts()[:2] == ("traffic", "sm-trace")  # nor roofline: a view of its own
    for kind in ui_kinds.kinds():  # the ui's drawing replaced core's description in its place
        assert kind.__module__.startswith("gemmviz.ui.charts.kinds.") and kind.render is not ChartKind.render
        if kind.name in SHIPPED:
            assert kind.__mro__[1].__module__ == "gemmviz.core.charts.kinds"
            assert kind.description == CHART_KINDS[kind.name]
    with pytest.raises(KeyError, match="unknown chart 'zz-no-such-kind'; choose one of time, gflops"):
        chart_kinds.get("zz-no-such-kind")
    for target in export_formats.TARGETS:  # and every format its writer, from ui/export/formats/
        for fmt in export_formats.formats(target):
            assert fmt.__module__.startswith("gemmviz.ui.export.formats.") and fmt.write is not ExportFormat.write


def _kind(**attrs):
    return type("Bad", (ChartKind,), {"name": "zz-bad", "label": "x", "description": "d", **attrs})


def test_clashes_and_incomplete_kinds_are_refused():
    before = list(CHART_KINDS)
    with pytest.raises(ValueError, match="registered already"):
        chart_kinds.register(_kind(name="time"))
    with pytest.raises(TypeError, match="needs description"):
        chart_kinds.register(type("Bad", (ChartKind,), {"name": "zz-bad", "label": "x"}))
    with pytest.raises(TypeError, match="needs is"):
        chart_kinds.register(_kind(needs=("x",)))
    for label in ("", 3):
        with pytest.raises(TypeError, match="tab_label is its name in the Charts tab"):
            chart_kinds.register(_kind(tab_label=label))
    with pytest.raises(ValueError, match="the Charts tab shows gflops as 'GFLOP/s' already"):
        chart_kinds.register(_kind(tab_label="GFLOP/s"))
    assert list(CHART_KINDS) == before


def test_a_kind_registered_after_the_lessons_loaded_is_checked_as_registered_when_a_step_is(throwaway):
    common = lesson_views.CommonFields(series=(None,), sizes=(1024,))
    chart, hardware = lesson_views.lesson_view("chart"), lesson_views.lesson_view("hardware")
    assert chart.check({"chart": KIND}, common)["chart"] == KIND
    with pytest.raises(lesson_views.StepProblem, match="chart must be one of"):
        chart.check({"chart": "dashboard"}, common)

    @chart_kinds.register
    class ZzCounters(ChartKind):
        name, label, description, needs = "zz-test-counters", "x", "d", ("counters", "run gemmviz profile")

    @chart_kinds.register
    class ZzHidden(ChartKind):
        name, label, description, in_lessons = "zz-test-hidden", "x", "d", False

    try:
        assert hardware.check({"chart": ZzCounters.name}, common) == {"chart": ZzCounters.name}
        with pytest.raises(lesson_views.StepProblem, match="a hardware step needs chart = one of"):
            hardware.check({"chart": KIND}, common)  # not a chart of one result
        with pytest.raises(lesson_views.StepProblem, match="chart must be one of"):
            chart.check({"chart": ZzHidden.name}, common)
    finally:
        chart_kinds.unregister(ZzCounters)
        chart_kinds.unregister(ZzHidden)
    with pytest.raises(lesson_views.StepProblem, match="a hardware step needs chart = one of"):
        hardware.check({"chart": ZzCounters.name}, common)  # unregistered: refused again


def _result(variant, params, n, backend="cuda"):
    return Result(variant, params, n, n, n, backend, "fp32", True, samples_ms=[1.0, 1.1])


def test_the_dashboard_checks_each_of_its_quarters():
    results = [_result("gpu-naive", {"block": 16}, n) for n in (64, 128)] + [_result("cublas", {}, 128)]
    dashboard = chart_kinds.get("dashboard")
    dashboard.check(results, ChartView("cublas", "128x128x128", ""))
    with pytest.raises(NothingToDraw, match="no cuBLAS FP32 result at 64×64×64; sizes with one: 128³"):
        dashboard.check(results, ChartView("cublas", "64x64x64", ""))  # its speedup quarter's check
    cpu_only = [_result("cpu-naive", {}, 64, "cpu")]
    dashboard.check(cpu_only, ChartView("cpu-naive"))  # drawn: its roofline quarter says why it is empty
    assert "the roofline needs GPU results" in dashboard.empty_reason("roofline", cpu_only, ChartView("cpu-naive"))
    with pytest.raises(NothingToDraw, match="no GPU naive.* at any size; baselines with results: cublas"):
        chart_kinds.get("speedup").check(results[2:], ChartView())  # the default baseline, DEFAULT_BASELINE


def test_a_new_kind_and_format_are_listed_by_the_cli_and_written_by_it(throwaway, tmp_path, capsys):
    kind, fmt, drawn, written = throwaway
    assert list(CHART_KINDS)[-1] == KIND and export_formats.suffixes(CHART)[-1] == SUFFIX
    export = build_parser()._subparsers._group_actions[0].choices["export"]
    chart = next(a for a in export._actions if "--chart" in a.option_strings)
    output = next(a for a in export._actions if "--output" in a.option_strings)
    assert chart.choices[-1] == KIND and f"{KIND}: the zz test chart" in chart.help
    assert f"out{SUFFIX} (ZZ test image)" in output.help
    out = tmp_path / f"chart{SUFFIX}"
    assert main(["export", SESSION, "--chart", KIND, "--at", "1024", "--size", "640x360", "-o", str(out)]) == 0
    assert written == [out] and QImage(str(out)).size().width() == 640
    assert drawn[-1][1] == ChartView(DEFAULT_BASELINE, "1024x1024x1024", "")  # the CLI's view reaches the kind
    cpu = tmp_path / f"cpu{SUFFIX}"
    assert main(["export", SESSION, "--chart", KIND, "--variants", "cpu-naive", "-o", str(cpu)]) == 2
    assert "the zz test chart needs GPU results" in capsys.readouterr().err  # the kind's own check, before Qt
    assert not cpu.exists()


def test_a_new_kind_and_format_are_listed_by_the_dialog_and_the_tab(throwaway, qtbot, tmp_path, monkeypatch):
    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.export.dialog import ExportDialog
    from gemmviz.ui.window import MainWindow
    from tests.fakes import FakeGpuBackend

    kind, fmt, drawn, written = throwaway
    w = MainWindow(
        {"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)},
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
    )
    qtbot.addWidget(w)
    qtbot.waitUntil(lambda: bool(w.workspace.sessions), timeout=20000)
    tab = w.charts_tab  # built after the kind was registered: its panel is there, after the others, by its name
    keys = [tab.show_combo.itemData(i) for i in range(tab.show_combo.count())]
    assert keys == ["all four", *(k.name for k in ui_kinds.panels()), "table"] and keys[-2] == KIND
    assert tab.show_combo.itemText(keys.index(KIND)) == "zz test" and tab.show_combo.itemText(2) == "GFLOP/s"
    tab.show_combo.setCurrentIndex(keys.index(KIND))
    tab.refresh()
    assert tab.panels[KIND].chart.results and tab.time_chart.isHidden() and not tab.table.isVisibleTo(w)

    dialog = ExportDialog(w)
    qtbot.addWidget(dialog)
    names = {dialog.chart.itemData(i): dialog.chart.itemText(i) for i in range(dialog.chart.count())}
    assert list(names) == [k.name for k in ui_kinds.kinds()] and names[KIND] == "zz test kernel"
    asked = []
    out = tmp_path / f"chart{SUFFIX}"

    def save(parent, caption, name, filters):
        asked.append((name, filters))
        return str(out), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save)
    dialog.chart.setCurrentIndex(dialog.chart.findData(KIND))
    dialog.size_combo.setCurrentText("800x450")
    dialog._save()
    assert asked == [(f"{KIND}.png", export_formats.file_filter(CHART))]
    assert asked[0][1].endswith(f";;ZZ test image (*{SUFFIX})")
    assert written == [out] and QImage(str(out)).width() == 800
    assert drawn[-1][1].source_of == w.workspace.source_of  # the window's view reaches the kind
    w.close()


def test_the_animation_dialog_lists_and_dispatches_through_the_formats(qtbot, tmp_path, monkeypatch):
    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.export.dialog import export_animation_dialog
    from gemmviz.ui.window import MainWindow
    from tests.fakes import FakeGpuBackend

    calls = []
    before = export_formats.formats(ANIMATION)

    @export_formats.register
    class ZzAnimation(export_formats.ExportFormat):
        name = "zz-test-animation"
        target = ANIMATION
        suffix = ".zzv"
        title = "ZZ test animation"

        @staticmethod
        def write(schedule, path, thread, width, height, steps_per_second, theme, progress=None):
            calls.append(("zz", path, steps_per_second))
            return 7

    w = MainWindow(
        {"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)},
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
    )
    qtbot.addWidget(w)
    try:
        asked, answers = [], [str(tmp_path / "t.zzv"), str(tmp_path / "t.GIF"), str(tmp_path / "frames")]
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a: (asked.append(a[3]), (answers.pop(0), ""))[1])
        monkeypatch.setattr(exporters, "export_gif", lambda *a: calls.append(("gif", a[1], a[5])) or 5)
        monkeypatch.setattr(exporters, "export_frames", lambda *a: calls.append(("frames", a[1], a[6])) or 3)
        speed = w.tiling.speed_spin.value()
        for _ in range(3):
            export_animation_dialog(w)
            qtbot.waitUntil(lambda: not w.animation_export.running)  # the export runs in a worker
        assert asked[0] == export_formats.file_filter(ANIMATION) and asked[0].endswith(";;ZZ test animation (*.zzv)")
        assert [c[0] for c in calls] == ["zz", "gif", "frames"] and all(c[2] == speed for c in calls)
    finally:
        export_formats.unregister(ZzAnimation)
        w.close()
    assert export_formats.formats(ANIMATION) == before


def test_export_chart_dispatches_by_kind_and_suffix_and_refuses_what_is_not_registered(tmp_path):
    results = Session.load(SESSION).results
    with pytest.raises(exporters.ExportError, match="unknown chart 'zz-no-such-kind'"):
        exporters.export_chart("zz-no-such-kind", results, tmp_path / "x.png", 320, 180)
    with pytest.raises(exporters.ExportError, match=r"must end in"):
        exporters.export_chart("time", results, tmp_path / "x.zzq", 320, 180)
    assert list(tmp_path.iterdir()) == []
    view = ChartView("cublas", "4096x4096x4096", None)
    svg = exporters.export_chart("speedup", results, tmp_path / "s.svg", 320, 180, LIGHT, None, view)
    assert svg.read_text().startswith("<?xml")


def test_no_chart_offers_pyqtgraphs_context_menu(qapp):
    """Its Plot Options would put log axes on values already in log10, and its Export skips the footer: every
    shipped kind's chart (the dashboard's quarters too) has no context menu (charts/base.py: NO_MENU)."""
    import pyqtgraph as pg

    session = Session.load(asset_path("sessions", "h200-2026-12-01.json"))
    from gemmviz.core.hardware.roofline import load_ceilings

    ceilings = load_ceilings(session.environment["backends"]["cuda"]["name"])
    checked = set()
    for kind in chart_kinds.kinds():
        widget = exporters.make_chart(kind.name, session.results, LIGHT, ceilings)
        views = [widget] if isinstance(widget, pg.GraphicsView) else widget.findChildren(pg.GraphicsView)
        for plot in [i for v in views for i in v.scene().items() if isinstance(i, pg.PlotItem)]:
            assert not plot.menuEnabled() and plot.getViewBox().menu is None, kind.name
            checked.add(kind.name)
        widget.deleteLater()
    assert {"time", "gflops", "speedup", "roofline", "dashboard", "traffic", "sm-trace"} <= checked  # gap: a painter
