"""The window's tabs, in one registry: each tab registers its name, titles, place and factory here, and the window
builds its tab bar from it (ui/window/main.py). A tab is given what it needs when it is made (`TabContext`: the
workspace, the theme, the language, the run's state and a few window actions) and subscribes itself to what it
shows; the window holds no reference to a tab's insides and relays nothing to it.

A new tab is one `register(TabEntry(...))` below (its factory imports its module, so nothing of it loads before it
is built) and its titles in tools/zh_CN.py. `built` says when it is made:
- "start": with the window (the Tiling tab: the first frame may show it);
- "first_paint": after the window's first frame, or on the spot where something asks for it earlier;
- "opened": when it is first made current, or asked for (the Hardware tab: five charts and a trace).
`language` says what a language switch does to it: "rebuild" (let go, made again in the new language where it is,
with its choices carried by ui/keep.py) or "follows" (it subscribes to `TabContext.language_changed` when it is
made and sets its words in place).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from PySide6.QtCore import QCoreApplication, QObject, SignalInstance, Slot
from PySide6.QtWidgets import QWidget

from gemmviz.core.registry import Registry
from gemmviz.core.session.results import Result
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.follow import WorkspaceFollower
from gemmviz.ui.theme import Theme

if TYPE_CHECKING:
    from gemmviz.ui.run.panel import RunPanel

Built = Literal["start", "first_paint", "opened"]
Language = Literal["rebuild", "follows"]


@dataclass(frozen=True)
class TabContext:
    """What a tab is given when it is made: the model it shows and the window's few actions it may call."""

    workspace: Workspace
    theme: Theme
    lang: str
    run_panel: RunPanel
    run_state_changed: SignalInstance  # the run controller's stateChanged
    language_changed: SignalInstance  # the window's language, after a switch ("en", "zh")
    running: Callable[[], bool]
    show_animation: Callable[[Result], None]  # the Tiling tab, on this result
    measure_ceilings: Callable[[], None]
    show_status: Callable[[str, int], None]  # a line in the status bar, for that many ms
    open_session: Callable[[Path], bool]  # File ▸ Open of that file (its dialogs, Open recent, the banner)
    chart_options: dict[str, Any]


@dataclass(frozen=True)
class TabEntry:
    """One tab: `name` (its key), `title` and `short_title` (callables giving its words in the window's language;
    the short one is shown where the full titles do not fit the bar: 1280×720 in projector type with the control
    panel open),
    `order` (its place, left to right), `factory` (TabContext -> the tab), when it is `built`, what a language
    switch does to it, and its hooks (each optional): `apply_theme` (the window's theme changed: projector
    type), `refresh` (redraw for what the workspace does not hold: new ceilings); made again after a language
    switch, before its old self's choices are given back: `catch_up` (draw what the workspace holds, beyond its
    followers' redraw) and `explain` (say again what it said of the selection); `cancel` (a signal stops the app:
    every worker's cancel flag first), `stop` (the window closes:
    `wait_ms` None, or a signal stops it: every worker's cancel first)."""

    name: str
    title: Callable[[], str]
    order: int
    factory: Callable[[TabContext], QWidget]
    built: Built = "first_paint"
    language: Language = "rebuild"
    short_title: Callable[[], str] | None = None  # None: the title is short already
    apply_theme: Callable[[Any, Theme], None] | None = None
    refresh: Callable[[Any], None] | None = None
    catch_up: Callable[[Any, Workspace], None] | None = None
    explain: Callable[[Any, Workspace], None] | None = None
    cancel: Callable[[Any], None] | None = None
    stop: Callable[[Any, int | None], None] | None = None


TABS: Registry[str, TabEntry] = Registry("tab")


def register(entry: TabEntry) -> TabEntry:
    TABS.add(entry)
    return entry


def ordered() -> list[TabEntry]:
    """The registered tabs, left to right."""
    return sorted(TABS.values(), key=lambda e: e.order)


class _Wire(QObject):
    """A connection from a window signal to a tab that ends when the tab goes (it is the tab's child: Qt drops a
    connection whose receiver is deleted)."""

    def __init__(self, tab: QWidget, signal: SignalInstance, slot: Callable[..., None]) -> None:
        super().__init__(tab)
        self._slot = slot
        signal.connect(self.fire)

    @Slot(object)
    def fire(self, *args: object) -> None:
        self._slot(*args)


def _pyqtgraph_options(ctx: TabContext) -> None:
    """pyqtgraph's configuration, set before the first chart is made."""
    if ctx.chart_options:
        import pyqtgraph as pg

        pg.setConfigOptions(**ctx.chart_options)


# ---- the shipped tabs ------------------------------------------------------------------------------------------
def _charts(ctx: TabContext) -> QWidget:
    _pyqtgraph_options(ctx)
    from gemmviz.ui.charts.tab import ChartsTab

    tab = ChartsTab(ctx.workspace, ctx.theme)
    table = tab.table

    def select(*_args: object) -> None:  # the table's selection is the workspace's: the other views follow it
        rows = sorted({table.proxy.mapToSource(i).row() for i in table.selectionModel().selectedIndexes()})
        ctx.workspace.select([table.row_results[r] for r in rows if r < len(table.row_results)])

    def activated(index: Any) -> None:
        row = table.proxy.mapToSource(index).row()
        if 0 <= row < len(table.row_results):
            ctx.show_animation(table.row_results[row])

    table.doubleClicked.connect(activated)
    table.selectionModel().selectionChanged.connect(select)
    for chart in (tab.time_chart, tab.gflops_chart):
        chart.pointClicked.connect(ctx.show_animation)
    return tab


def _roofline(ctx: TabContext) -> QWidget:
    _pyqtgraph_options(ctx)
    from gemmviz.ui.roofline.tab import RooflineTab

    tab = RooflineTab(ctx.workspace, ctx.theme, lang=ctx.lang)
    button = tab.ceilings_button
    button.clicked.connect(ctx.measure_ceilings)

    def enable(*_args: object) -> None:  # measurable with a GPU, between runs
        button.setEnabled(ctx.workspace.gpu_available and not ctx.running())

    follower = WorkspaceFollower(tab, ctx.workspace)
    follower.connect(ctx.workspace.events.environment_changed, enable)
    _Wire(tab, ctx.run_state_changed, enable)
    if ctx.workspace.environment or ctx.running():  # the probe answered first (a lesson given at start)
        enable()
    return tab


def _hardware(ctx: TabContext) -> QWidget:
    _pyqtgraph_options(ctx)
    from gemmviz.ui.hardware.tab import HardwareTab

    return HardwareTab(ctx.workspace, ctx.theme, lang=ctx.lang)


def _tiling(ctx: TabContext) -> QWidget:
    from gemmviz.ui.tiling.view import TilingPanel

    tab = TilingPanel(ctx.theme, lang=ctx.lang)
    panel = ctx.run_panel
    panel.problemChosen.connect(lambda: tab.follow(panel))
    _Wire(tab, ctx.language_changed, tab.set_language)  # its words and its frame's in place, the frame kept
    return tab


def _compare(ctx: TabContext) -> QWidget:
    _pyqtgraph_options(ctx)
    from gemmviz.ui.charts.compare import ComparePanel

    return ComparePanel(ctx.workspace, open_session=ctx.open_session)


def _accesses(ctx: TabContext) -> QWidget:
    _pyqtgraph_options(ctx)
    from gemmviz.ui.accesses.tab import AccessTab

    return AccessTab(ctx.theme, workspace=ctx.workspace)  # what the kernels really touched: coalescing, banks


def _exercise(ctx: TabContext) -> QWidget:
    from gemmviz.ui.exercise.tab import ExerciseTab

    tab = ExerciseTab(ctx.lang)  # write a kernel; checked in a child process
    tab.status_message.connect(lambda text: ctx.show_status(text, 8000))
    _Wire(tab, ctx.language_changed, tab.set_language)  # in place: its kernel and check (a running one goes on)
    return tab


def _refresh_followers(tab: QWidget) -> None:
    for follower in tab.findChildren(WorkspaceFollower):
        follower.refresh()


def _catch_up_charts(tab: Any, _workspace: Workspace) -> None:
    tab.refresh()  # the table, with the rows to select (its follower has no redraw of its own)
    tab._catch_up(list(tab.panels))  # every panel, so each one's menus have the items to choose again


def _explain_selection(tab: Any, workspace: Workspace) -> None:
    if workspace.selection:
        tab.explain_selection(workspace.selection)


def _theme_of_chart(tab: Any, theme: Theme) -> None:
    tab.chart.apply_theme(theme)


def _theme_of_gap(tab: Any, theme: Theme) -> None:
    tab.gap.apply_theme(theme)  # its waterfall (and its height); its text is the window's type


def _apply_theme(tab: Any, theme: Theme) -> None:
    tab.apply_theme(theme)


# the first paint needs none of these: each factory imports its tab's module
for _entry in (
    TabEntry(
        "charts",
        lambda: QCoreApplication.translate("MainWindow", "Charts"),
        10,
        _charts,
        apply_theme=_apply_theme,
        refresh=lambda tab: tab.refresh(),
        catch_up=_catch_up_charts,
        stop=lambda tab, _wait_ms: tab.stop(),
    ),
    TabEntry(
        "roofline",
        lambda: QCoreApplication.translate("MainWindow", "Roofline"),
        20,
        _roofline,
        apply_theme=_theme_of_chart,
        refresh=_refresh_followers,
        explain=_explain_selection,
    ),
    TabEntry(
        "hardware",
        lambda: QCoreApplication.translate("MainWindow", "Hardware"),
        30,
        _hardware,
        "opened",
        apply_theme=_apply_theme,
    ),
    TabEntry(
        "tiling",
        lambda: QCoreApplication.translate("MainWindow", "Tiling animation"),
        40,
        _tiling,
        "start",
        "follows",
        short_title=lambda: QCoreApplication.translate("MainWindow", "Tiling"),
        apply_theme=lambda tab, theme: tab.set_theme(theme),
        stop=lambda tab, _wait_ms: tab.stop(),
    ),
    TabEntry(
        "compare",
        lambda: QCoreApplication.translate("MainWindow", "Compare sessions"),
        50,
        _compare,
        short_title=lambda: QCoreApplication.translate("MainWindow", "Compare"),
        apply_theme=_apply_theme,
        refresh=_refresh_followers,
    ),
    TabEntry(
        "accesses",
        lambda: QCoreApplication.translate("MainWindow", "Accesses"),
        60,
        _accesses,
        apply_theme=_apply_theme,
    ),
    TabEntry(
        "exercise",
        lambda: QCoreApplication.translate("MainWindow", "Exercise"),
        70,
        _exercise,
        language="follows",
        apply_theme=_theme_of_gap,
        cancel=lambda tab: tab.cancel_now(),
        stop=lambda tab, wait_ms: tab.shutdown(wait_ms),
    ),
):
    register(_entry)
