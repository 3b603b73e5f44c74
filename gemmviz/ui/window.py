"""The main window: run panel, run controller and tabs over one workspace; menus, theme, files, settings."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QMetaObject, QSettings, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gemmviz.core import settings
from gemmviz.core.measure.bench import Job
from gemmviz.core.problem import ProblemError
from gemmviz.core.session.bounds import MAX_RESULTS
from gemmviz.core.session.results import Result
from gemmviz.core.session.workspace import Workspace, default_replay_session, recorded_sessions
from gemmviz.ui import about, i18n, settings_store
from gemmviz.ui.export.animation import AnimationExport, AnimationExports
from gemmviz.ui.files import SessionFiles
from gemmviz.ui.follow import unfollow_all
from gemmviz.ui.lesson import mode as lesson
from gemmviz.ui.recovery import Recovery
from gemmviz.ui.run.controller import RunController, RunState
from gemmviz.ui.run.panel import RunPanel
from gemmviz.ui.status import Banner, RunProgress, fit_screen
from gemmviz.ui.theme import LIGHT, Theme, theme_for
from gemmviz.ui.tiling.view import PresenterKeys, TilingPanel

if TYPE_CHECKING:  # imported where they are built (_build_tabs, hardware_tab), not before the first frame
    from gemmviz.ui.accesses.tab import AccessTab
    from gemmviz.ui.charts.compare import ComparePanel
    from gemmviz.ui.charts.tab import ChartsTab
    from gemmviz.ui.exercise.tab import ExerciseTab
    from gemmviz.ui.hardware.tab import HardwareTab
    from gemmviz.ui.roofline.tab import RooflineTab

DEFERRED_TABS = frozenset({"charts_tab", "roofline_tab", "compare", "access_tab", "exercise_tab"})
NO_GPU_STYLE = "background: #FFF4CE; color: #4A3B00; padding: 6px;"


def _export_dialog():
    """ui/export/dialog.py, imported when File ▸ Export is first chosen (its exporters load pyqtgraph)."""
    from gemmviz.ui.export import dialog

    return dialog


class _StandIn(QWidget):
    """A tab's place until the tabs the first frame does not show are built: shown after the first frame (a lesson
    given at start ends, or the tab is chosen), it has them built on the next turn."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self._window = window

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._window.painted:
            _queue(self._window, "_build_tabs")


def _queue(window: MainWindow, slot: str) -> None:
    """The window's slot `slot` on the event loop's next turn, by name: a window closed and deleted before that
    drops the call, and nothing (a bound method held by a timer) keeps the window alive."""
    QMetaObject.invokeMethod(window, slot, Qt.ConnectionType.QueuedConnection)


def _set_checked(action: QAction, on: bool) -> None:
    """Check or uncheck without running the action's slot."""
    action.blockSignals(True)
    action.setChecked(on)
    action.blockSignals(False)


class MainWindow(QMainWindow):
    """`after_first_paint` (the app's start, ui/app.py): what the first frame does not show waits until it is on
    screen; the frame comes without pyqtgraph (0.3-1 s to import), the tabs, the shipped lessons' parse and the
    worker's probe. The Charts, Roofline, Compare, Accesses and Exercise tabs are stand-ins of the same titles
    until then; the Lesson menu is there, filled then. Without it (tests, a language switch) all is built here.
    `chart_options`: pyqtgraph's configuration, set before the first chart is made."""

    charts_tab: ChartsTab  # these five: set by _build_tabs (see __getattr__)
    roofline_tab: RooflineTab
    compare: ComparePanel
    access_tab: AccessTab
    exercise_tab: ExerciseTab
    firstPainted = Signal()  # the window's first frame is on screen (benchmarks/startup_time.py waits for it)

    def __init__(
        self,
        backends: dict,
        settings: QSettings | None = None,
        theme: Theme = LIGHT,
        load_recorded_without_gpu: bool = True,
        after_first_paint: bool = False,
        chart_options: dict | None = None,
    ):
        super().__init__()
        self.backends = backends
        self.settings = settings if settings is not None else settings_store.open_settings()
        self.theme = theme
        self._built_theme = theme  # the theme the tabs are built in; set_projector restyles each when shown
        self.load_recorded_without_gpu = load_recorded_without_gpu
        self.chart_options = dict(chart_options or {})
        self.painted = False  # the first frame is on screen (paintEvent)
        self.workspace = Workspace()
        self.last_run_settings: dict | None = None
        self.run_failures: list[Result] = []
        self.last_error: QMessageBox | None = None
        self.last_error_text = ""
        self.applied_view = (False, False)  # (projector, dark) as drawn; the actions may be ahead of it
        self.tab_themes: dict[QWidget, Theme] = {}  # tab -> the theme it was last styled in (set_projector)
        self.projector_pending = QTimer(self)
        self.projector_pending.setSingleShot(True)
        self.projector_pending.setInterval(0)  # runs after the key events already queued
        self.projector_pending.timeout.connect(self._apply_queued_projector)
        self._base_font_pt = QApplication.instance().font().pointSize()
        self.controller = c = RunController(backends, self)
        self.recovery = Recovery(self)
        self.replay_after_lesson = False  # the recorded session is opened when the lesson on screen ends
        self.lesson_mode = lesson.LessonMode(self)  # the LessonView and presenter while a lesson is up
        self.animation_exports = AnimationExports()  # the animation export under way, or the last one
        self.controls_wanted = True  # the user's choice; projector and lesson mode hide the panel regardless
        self._deferred = after_first_paint  # the chart tabs, the lesson menu and the probe wait for the first frame
        self._lesson_menu_stand_in: QMenu | None = None
        self._build()
        self._build_menus()
        self._restore()
        c.stateChanged.connect(self._on_state)
        c.progress.connect(self._on_progress)
        c.result.connect(self._on_result)
        c.finished.connect(self._on_finished)
        c.environmentReady.connect(self._on_environment)
        c.ceilingsReady.connect(self._on_ceilings)
        if not after_first_paint:
            c.probe()
        self.validate()

    # ---- composition -----------------------------------------------------------------------------
    def _build(self) -> None:
        self.run_panel = RunPanel(self.workspace)
        scroll = QScrollArea()
        scroll.setWidget(self.run_panel)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(260)
        controls = QWidget()  # the panel scrolls; its Run, Sweep and Cancel stay below it, on screen
        controls_layout = QVBoxLayout(controls)
        controls_layout.setContentsMargins(0, 0, 0, 0)
        controls_layout.addWidget(scroll, 1)
        controls_layout.addWidget(self.run_panel.button_bar)
        self.controls = controls
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(4, 4, 4, 4)
        self.device_label = Banner()
        self.device_label.set_text(self.tr("Checking for a CUDA GPU…"))
        right_layout.addWidget(self.device_label)
        self.replay_banner = Banner("background: #E8F1FA; color: #003A63; padding: 4px;")
        self.replay_banner.setVisible(False)
        right_layout.addWidget(self.replay_banner)
        self.tabs = QTabWidget()
        right_layout.addWidget(self.tabs, 1)
        # Charts, Roofline, Compare (pyqtgraph's charts), Accesses and Exercise: built by _build_tabs (now, or after
        # the first frame: until then a stand-in of the same title holds each one's place)
        # (asked for before then, one is built on the spot: __getattr__)
        self._tabs_pending = True
        self._stand_ins: list[QWidget] = [_StandIn(self) for _ in range(5)]
        self.tiling = TilingPanel(self.theme)
        # counters, level roofline, SM trace: built when first opened or asked for (hardware_tab), not before the
        # first paint (its five charts and the shipped pipeline trace: 0.15 s of a 0.6 s start)
        self._hardware_tab: HardwareTab | None = None
        self._hardware_stand_in = QWidget()
        charts_stand_in, roofline_stand_in, compare_stand_in, access_stand_in, exercise_stand_in = self._stand_ins
        for tab, title in (
            (charts_stand_in, self.tr("Charts")),
            (roofline_stand_in, self.tr("Roofline")),
            (self._hardware_stand_in, self.tr("Hardware")),
            (self.tiling, self.tr("Tiling animation")),
            (compare_stand_in, self.tr("Compare sessions")),
            (access_stand_in, self.tr("Accesses")),
            (exercise_stand_in, self.tr("Exercise")),
        ):
            self.tabs.addTab(tab, title)
        self.splitter = QSplitter()
        self.splitter.addWidget(controls)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setCollapsible(1, False)
        self.setCentralWidget(self.splitter)
        self.progress = RunProgress(self.statusBar())

        p = self.run_panel
        p.changed.connect(self.validate)
        p.problemChosen.connect(lambda: self.tiling.follow(self.run_panel))
        p.run_button.clicked.connect(self.run_current)
        p.sweep_button.clicked.connect(self.run_sweep)
        p.cancel_button.clicked.connect(self.cancel)
        self.tab_themes = {self.tabs.widget(i): self.theme for i in range(self.tabs.count())}
        # each view follows the workspace itself (ui/follow.py): a tab made current redraws if it missed a change
        self.tabs.currentChanged.connect(lambda _i: self._on_current_tab())
        if not self._deferred:
            self._build_tabs()

    @Slot()
    def _build_tabs(self) -> None:
        """The Charts, Roofline, Compare, Accesses and Exercise tabs in their stand-ins' places (the current tab
        stays current)."""
        if not self._tabs_pending:
            return
        self._tabs_pending = False
        if self.chart_options:
            import pyqtgraph as pg

            pg.setConfigOptions(**self.chart_options)
        from gemmviz.ui.accesses.tab import AccessTab
        from gemmviz.ui.charts.compare import ComparePanel
        from gemmviz.ui.charts.tab import ChartsTab
        from gemmviz.ui.exercise.tab import ExerciseTab
        from gemmviz.ui.roofline.tab import RooflineTab

        theme = self._built_theme
        self.charts_tab, self.roofline_tab = ChartsTab(self.workspace, theme), RooflineTab(self.workspace, theme)
        self.compare = ComparePanel(self.workspace)
        # what the kernels really touched: coalescing, banks (issue 25); the records beside the session opened
        self.access_tab = AccessTab(theme, workspace=self.workspace)
        self.exercise_tab = ExerciseTab(i18n.language())  # write a kernel; checked in a child process (issue 24)
        self.exercise_tab.status_message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        built = (self.charts_tab, self.roofline_tab, self.compare, self.access_tab, self.exercise_tab)
        for stand_in, tab in zip(self._stand_ins, built):
            self._replace_tab(stand_in, tab, theme)
        self._stand_ins = []
        table = self.charts_tab.table
        table.doubleClicked.connect(self._on_table_activated)
        table.selectionModel().selectionChanged.connect(self._on_table_selection)
        for chart in (self.charts_tab.time_chart, self.charts_tab.gflops_chart):
            chart.pointClicked.connect(self.show_animation)
        self.roofline_tab.ceilings_button.clicked.connect(self.measure_ceilings)
        if self.workspace.environment or self.running:  # the probe answered first (a lesson given at start)
            self.roofline_tab.ceilings_button.setEnabled(self.workspace.gpu_available and not self.running)
        if self.tabs.currentWidget() in built:
            self._theme_current_tab()  # in the window's theme (projector mode), as a tab made current is

    def _replace_tab(self, stand_in: QWidget, tab: QWidget, theme: Theme) -> None:
        """`tab` takes `stand_in`'s place and title; the current tab stays current, nothing is told."""
        tabs, index = self.tabs, self.tabs.indexOf(stand_in)
        was_current = tabs.currentWidget() is stand_in
        tabs.blockSignals(True)  # the same tab stays current: nothing to tell the window
        try:
            tabs.insertTab(index, tab, tabs.tabText(index))  # before the stand-in, which moves to index + 1
            if was_current:
                tabs.setCurrentIndex(index)
            tabs.removeTab(index + 1)
        finally:
            tabs.blockSignals(False)
        self.tab_themes.pop(stand_in, None)
        self.tab_themes[tab] = theme  # restyled in the window's theme when it is shown
        stand_in.deleteLater()

    def __getattr__(self, name: str):
        """charts_tab, roofline_tab, compare, access_tab, exercise_tab asked for before the first frame's turn
        built them (a test, a language switch, a lesson that ends): built now, in their stand-ins' places."""
        if name in DEFERRED_TABS and self.__dict__.get("_tabs_pending"):
            self._build_tabs()
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def tabs_built(self) -> bool:
        """Whether the Charts, Roofline, Compare, Accesses and Exercise tabs are built (in the window's __dict__)."""
        return not self._tabs_pending

    @property
    def hardware_tab(self) -> HardwareTab:
        """The Hardware tab, built on first use: where it is opened, or where code asks for it (the export
        dialog's hardware kinds, a test). It takes the stand-in's place among the tabs, keeping the current tab."""
        if self._hardware_tab is None:
            from gemmviz.ui.hardware.tab import HardwareTab

            self._hardware_tab = tab = HardwareTab(self.workspace, self._built_theme)
            self._replace_tab(self._hardware_stand_in, tab, self._built_theme)
            self._hardware_stand_in = None
        return self._hardware_tab

    def _on_current_tab(self) -> None:
        if self._hardware_stand_in is not None and self.tabs.currentWidget() is self._hardware_stand_in:
            _ = self.hardware_tab  # opened for the first time: built now, in the stand-in's place
        elif self.tabs.currentWidget() in self._stand_ins:
            self._build_tabs()  # opened before the first frame's turn came: built now, in the stand-ins' places
        self._theme_current_tab()

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if not self.painted:
            self.painted = True
            _queue(self, "_after_first_paint")  # once this frame is out (its children paint after it)

    @Slot()
    def _after_first_paint(self) -> None:
        self.firstPainted.emit()
        if not self._deferred:
            return
        self._deferred = False
        if not self.lesson_mode.active:  # a lesson given at start: built when the tabs come back (_StandIn)
            self._build_tabs()
        self.fill_lesson_menu()
        self.controller.probe()

    def _build_menus(self) -> None:
        def action(text, slot=None, shortcut=None, checkable=False) -> QAction:
            a = QAction(text, self, checkable=checkable)
            if shortcut is not None:
                a.setShortcut(QKeySequence(shortcut))
            if slot is not None:
                a.triggered.connect(slot)
            return a

        file_menu = self.menuBar().addMenu(self.tr("&File"))
        self.files = files = SessionFiles(self, QMenu(self.tr("Open &recent"), self))
        self.open_action = action(self.tr("&Open session…"), files.open_session_dialog, QKeySequence.StandardKey.Open)
        self.save_action = action(self.tr("&Save session…"), self.recovery.save_dialog, QKeySequence.StandardKey.Save)
        self.csv_action = action(self.tr("Export results as &CSV…"), files.export_csv_dialog)
        file_menu.addMenu(files.recent_menu)
        self.recorded_menu = file_menu.addMenu(self.tr("Open recorded or published session"))
        for path in recorded_sessions():
            self.recorded_menu.addAction(action(path.name, lambda _=False, p=path: files.open_session(p)))
        self.export_action = action(
            self.tr("&Export chart…"), lambda: _export_dialog().ExportDialog(self).open(), "Ctrl+E"
        )
        self.export_anim_action = action(
            self.tr("Export &animation…"), lambda: _export_dialog().export_animation_dialog(self)
        )
        for a in (self.open_action, self.save_action, self.csv_action, self.export_action, self.export_anim_action):
            file_menu.addAction(a)
        file_menu.addSeparator()
        file_menu.addAction(action(self.tr("Close loaded sessions"), files.close_loaded))
        file_menu.addAction(action(self.tr("Clear live results"), files.clear_live))
        file_menu.addSeparator()
        file_menu.addAction(action(self.tr("&Quit"), self.close, QKeySequence.StandardKey.Quit))
        run_menu = self.menuBar().addMenu(self.tr("&Run"))
        self.run_action = action(self.tr("&Run"), self.run_current, "Ctrl+R")
        self.sweep_action = action(self.tr("&Sweep"), self.run_sweep, "Ctrl+Shift+R")
        self.cancel_action = action(self.tr("&Cancel"), self.cancel, "Esc")
        for a in (self.run_action, self.sweep_action, self.cancel_action):
            run_menu.addAction(a)
        self.view_menu = self.menuBar().addMenu(self.tr("&View"))
        self.projector_action = action(self.tr("&Projector mode (large fonts, thick lines)"), None, "Ctrl+P", True)
        self.controls_action = action(self.tr("&Control panel"), None, "Ctrl+B", True)
        self.controls_action.toggled.connect(lambda on: self.set_controls_visible(on, remember=True))
        self.dark_action = action(self.tr("&Dark theme"), None, None, True)
        self.fullscreen_action = action(self.tr("&Full screen"), None, "F11", True)
        self.projector_action.toggled.connect(self._queue_projector)
        self.dark_action.toggled.connect(self._queue_projector)
        self.fullscreen_action.toggled.connect(lambda on: self.showFullScreen() if on else self.showNormal())
        # the presenter keys (→ ← Space PgUp PgDn Home End) come through self.keys wherever the focus is
        t = self.tiling
        self.play_action = action(self.tr("Play / pause animation\tSpace"), t.toggle_play)
        self.step_back_action = action(self.tr("Step back\t←"), lambda: t.go(t.step - 1))
        self.step_forward_action = action(self.tr("Step forward\t→"), t.step_forward)
        self.keys = PresenterKeys(self, lambda key: self.tabs.currentWidget() is t and t.key(key))
        QApplication.instance().installEventFilter(self.keys)
        self.view_menu.addActions(
            [self.controls_action, self.projector_action, self.dark_action, self.fullscreen_action]
        )
        self.view_menu.addSeparator()
        self.view_menu.addActions([self.play_action, self.step_back_action, self.step_forward_action])
        if self._deferred:  # its place and title now, its entries (the shipped lessons, parsed) after the frame
            self._lesson_menu_stand_in = self.menuBar().addMenu(QCoreApplication.translate("Lesson", "&Lesson"))
        else:
            lesson.add_menu(self)
        self.language_menu = i18n.add_menu(self)  # View ▸ Language
        about.install(self)  # the window's title and icon, Help ▸ About

    def fill_lesson_menu(self) -> None:
        """The Lesson menu made (ui/lesson/mode.add_menu: it parses the shipped lessons) in its stand-in's place."""
        stand_in = self._lesson_menu_stand_in
        if stand_in is None:
            return
        self._lesson_menu_stand_in = None
        bar = self.menuBar()
        before = set(bar.actions())
        lesson.add_menu(self)  # appended to the bar: moved to where the stand-in is, which goes
        for added in [a for a in bar.actions() if a not in before]:
            bar.insertAction(stand_in.menuAction(), added)
        bar.removeAction(stand_in.menuAction())
        stand_in.deleteLater()

    # ---- running -----------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.controller.busy

    def validate(self, *_args) -> str | None:
        run_error, sweep_error = self.run_panel.validate(self.running)
        self.run_action.setEnabled(self.run_panel.run_button.isEnabled())
        self.sweep_action.setEnabled(self.run_panel.sweep_button.isEnabled())
        return run_error or sweep_error

    @Slot()
    def run_current(self) -> None:
        self._plan_and_start(lambda: [self.run_panel.current_problem()], "")

    @Slot()
    def run_sweep(self) -> None:
        self._plan_and_start(self.run_panel.sweep_problems, "Sweep: ")

    def _plan_and_start(self, problems, prefix: str) -> None:
        try:
            self.start(self.run_panel.plan(problems()))
        except ProblemError as exc:
            self.run_panel.message.setText(f"{prefix}{exc}")

    def start(self, jobs: list[Job]) -> None:
        """Run `jobs` in the worker; refused, with a dialog, where their results would take the live results past
        the MAX_RESULTS a session may hold (the recovery file and Save could not keep them)."""
        room = MAX_RESULTS - len(self.workspace.live)
        if len(jobs) > room:
            text = self.tr(
                "This run has {jobs} jobs, but the live results can take only {room} more: a session "
                "holds at most {limit} results. Save the live results and clear them (File > Clear live "
                "results), or run fewer jobs."
            ).format(jobs=f"{len(jobs):,}", room=f"{max(room, 0):,}", limit=f"{MAX_RESULTS:,}")
            self.run_panel.message.setText(text)
            self.show_error(self.tr("Too many results"), text)
            return
        settings = self.run_panel.bench_settings()
        if not self.controller.start(jobs, settings):
            return
        self.last_run_settings = asdict(settings)
        self.run_failures = []
        self.charts_tab.new_run()
        self.progress.start(len(jobs))
        self.statusBar().showMessage(self.tr("Running {0} job(s)…").format(len(jobs)))

    def remember_run_settings(self, run_settings: dict) -> None:
        """The settings the live results were measured with (a recovered session's): Save writes them."""
        self.last_run_settings = dict(run_settings)

    def take_over(self, old: MainWindow) -> None:
        """What a window rebuilt in another language keeps of the old one's own state (i18n.switch_language)."""
        self.last_run_settings, self.run_failures = old.last_run_settings, list(old.run_failures)
        self.controls_wanted = old.controls_wanted

    @Slot()
    def cancel(self) -> None:
        if self.controller.cancel():
            self.statusBar().showMessage(self.tr("Cancelling at the next launch boundary…"))

    def measure_ceilings(self) -> None:
        if not self.controller.measure_ceilings():
            self.statusBar().showMessage(self.tr("Wait for the run to finish before measuring ceilings"), 5000)
            return
        self.statusBar().showMessage(self.tr("Measuring this GPU's bandwidth and GEMM rates…"))

    @Slot(object)
    def _on_state(self, state: RunState) -> None:
        if self.tabs_built:  # (not built yet: it reads the state when it is)
            self.roofline_tab.ceilings_button.setEnabled(state is RunState.IDLE and self.workspace.gpu_available)
        if state is RunState.IDLE:
            self.progress.stop()
        self.validate()

    @Slot(int, int, str, float)
    def _on_progress(self, done: int, total: int, label: str, seconds_left: float) -> None:
        self.progress.update(done, total, seconds_left)
        if done < total:
            self.statusBar().showMessage(f"{done}/{total}: {label}")

    @Slot(object)
    def _on_result(self, result: Result) -> None:
        self.workspace.add_live(result)
        # start() leaves room for one result a job; should a run give more, it stops here, every result kept
        if len(self.workspace.live) > MAX_RESULTS and self.controller.cancel():
            self.show_error(
                self.tr("Run stopped"),
                self.tr(
                    "The live results passed the {limit} a session may "
                    "hold: the run stops here, every result kept. Save them, then clear them to run "
                    "more."
                ).format(limit=f"{MAX_RESULTS:,}"),
            )
        self.recovery.write()
        # Failures (compile error, failed launch) and memory refusals get a dialog; other refusals
        # (a slow CPU loop, an unsupported tile) are explained in the table without interrupting.
        if result.status == "failed" or (result.status == "refused" and "memory" in (result.error or "")):
            self.run_failures.append(result)

    @Slot(object, bool)
    def _on_finished(self, results: list, cancelled: bool) -> None:
        ok = sum(r.valid for r in results)
        done = (
            self.tr("Cancelled: {0} of {1} result(s) valid")
            if cancelled
            else self.tr("Done: {0} of {1} result(s) valid")
        )
        self.statusBar().showMessage(done.format(ok, len(results)), 10000)
        if self.run_failures:
            first = self.run_failures[0]
            details = "\n\n".join(f"{r.series} at {r.problem.label}:\n{r.error}" for r in self.run_failures)
            self.show_error(
                self.tr("A run failed"),
                self.tr("{0} job(s) failed; first: {1} at {2}.").format(
                    len(self.run_failures), first.series, first.problem.label
                ),
                details,
            )

    @Slot(object)
    def _on_ceilings(self, data) -> None:
        if isinstance(data, str):
            self.show_error(self.tr("Cannot measure the ceilings"), data)
            return
        self.statusBar().showMessage(
            self.tr("Ceilings of {0}: {1} GB/s, FP32 GEMM {2} GFLOP/s").format(
                data["device"], f"{data['bandwidth_gbs']:,.0f}", f"{data['fp32_gemm_gflops']:,.0f}"
            ),
            10000,
        )
        self.refresh()

    @Slot(object)
    def _on_environment(self, env: dict) -> None:
        ws = self.workspace
        ws.environment = env  # the run panel greys out what cannot run here (its own subscription)
        if self.tabs_built:  # (not built yet: it reads the environment when it is)
            self.roofline_tab.ceilings_button.setEnabled(ws.gpu_available and not self.running)
        self.device_label.set_text(i18n.device_banner(ws.device_gpu))
        self.device_label.set_style("" if ws.gpu_available else NO_GPU_STYLE)
        if not ws.gpu_available and self.load_recorded_without_gpu and not ws.sessions:
            if self.lesson_mode.active:
                # a lesson replays its own copy: the tabs behind it get theirs when it ends (opening and drawing
                # it froze the lesson's first slide for ~0.9 s)
                self.replay_after_lesson = True
            elif self.isVisible():
                # after the first paint: the window is on screen at once and the recorded session (0.25 s to pick
                # and read, 0.7 s to draw) fills it on the next turn of the event loop, not before it is seen
                QTimer.singleShot(0, self, self._open_replay_if_open)
            else:
                self.open_replay()
        self.validate()

    def _open_replay_if_open(self) -> None:
        if not self.charts_tab.stopped and not self.lesson_mode.active:  # closed, or a lesson came up meanwhile
            self.open_replay()
        elif self.lesson_mode.active:
            self.replay_after_lesson = True

    def open_replay(self) -> None:
        """Without a GPU: the recorded session, shown as a first start shows it."""
        self.replay_after_lesson = False
        path = default_replay_session()
        if path is None or self.workspace.sessions:
            return
        hidden = self.workspace.hidden
        # the first view's preset before the session is drawn: one draw of its 4 series, not all 23 then 4
        self.charts_tab.first_view(small=self.width() < 1600)
        if not self.files.open_session(path, replay=True):
            self.workspace.hidden = hidden

    # ---- views -------------------------------------------------------------------------------------
    def shown_results(self) -> list[Result]:
        return self.workspace.shown()

    def refresh(self) -> None:
        """Redraw the charts, the roofline and the comparison: for what the workspace does not hold (the theme,
        new ceilings). Changes of the workspace reach every view by its own subscription (ui/follow.py)."""
        self.charts_tab.refresh()
        self.roofline_tab.follower.refresh()
        self.compare.follower.refresh()

    def _on_table_selection(self, *_args) -> None:
        table = self.charts_tab.table
        rows = sorted({table.proxy.mapToSource(i).row() for i in table.selectionModel().selectedIndexes()})
        self.workspace.select([table.row_results[r] for r in rows if r < len(table.row_results)])

    def _on_table_activated(self, index) -> None:
        table = self.charts_tab.table
        row = table.proxy.mapToSource(index).row()
        if 0 <= row < len(table.row_results):
            self.show_animation(table.row_results[row])

    def show_animation(self, result: Result) -> None:
        self.tiling.show_result(result)
        self.tabs.setCurrentWidget(self.tiling)

    def set_projector(self, on: bool, dark: bool | None = None) -> None:
        """Projector mode: 20 pt fonts, 4 px lines, big symbols; light (default) or dark theme. Every choice is
        kept (the Charts tab's "show" included: "all four" scales its panels); only the tab on screen is
        restyled now, the others when they are opened (each restyle is a full redraw of its charts)."""
        self.projector_pending.stop()
        dark = self.dark_action.isChecked() if dark is None else dark
        for action, value in ((self.projector_action, on), (self.dark_action, dark)):
            _set_checked(action, value)
        self.applied_view = (on, dark)
        self.theme = theme_for(on, dark)
        self.set_controls_visible(self.controls_wanted and not on)
        self.tiling.set_theme(self.theme)
        font = QApplication.instance().font()
        font.setPointSize(self.theme.font_pt if on else self._base_font_pt)
        QApplication.instance().setFont(font)
        bg, fg = self.theme.background, self.theme.foreground
        self.setStyleSheet(f"QWidget {{ background: {bg}; color: {fg}; }}" if dark else "")
        saved = self.lesson_mode.saved_central  # the tabs and banners, set aside while a lesson is up
        for w in self.findChildren(QWidget) + (saved.findChildren(QWidget) + [saved] if saved is not None else []):
            if w.styleSheet():  # a widget with its own style sheet keeps its old font unless re-polished
                w.setStyleSheet(w.styleSheet())
        self._theme_current_tab()

    def _queue_projector(self) -> None:
        """Ctrl+P and the dark-theme toggle: applied once the key presses already queued are handled, so 20
        presses in a row restyle the window at most once or twice, not 20 times."""
        self.projector_pending.start()

    def _apply_queued_projector(self) -> None:
        wanted = (self.projector_action.isChecked(), self.dark_action.isChecked())
        if wanted != self.applied_view:
            self.set_projector(*wanted)

    def _theme_current_tab(self) -> None:
        """The tab on screen in the window's theme, if it was drawn in another (see set_projector)."""
        tab = self.tabs.currentWidget()
        if self.tab_themes.get(tab) == self.theme:
            return
        self.tab_themes[tab] = self.theme
        if tab is None:
            return
        built = self.tabs_built  # (a stand-in is styled when its tab takes its place)
        if built and tab is self.charts_tab:
            tab.apply_theme(self.theme)
        elif built and tab is self.roofline_tab:
            tab.chart.apply_theme(self.theme)
        elif tab is self._hardware_tab:
            tab.apply_theme(self.theme)
        elif built and tab is self.compare:
            tab.table.resizeColumnsToContents()  # for the new type
        elif built and tab is self.access_tab:
            tab.apply_theme(self.theme)
        elif built and tab is self.exercise_tab:
            tab.gap.apply_theme(self.theme)  # its waterfall (and its height); its text is the window's type

    def start_lesson(self, chosen) -> bool:
        """Lesson mode (ui/lesson/mode.py): the LessonView replaces the central widget."""
        self.fill_lesson_menu()  # its shortcuts join the window while the menu bar is hidden
        return lesson.start(self, chosen)

    leave_lesson = lesson.leave

    @property
    def lesson_view(self) -> lesson.LessonView | None:
        """The lesson on screen, if any (read-only: lesson_mode holds it)."""
        return self.lesson_mode.view

    @property
    def lesson_presenter(self):
        return self.lesson_mode.presenter

    @property
    def presenter_action(self) -> QAction | None:
        return self.lesson_mode.presenter_action

    @property
    def animation_export(self) -> AnimationExport | None:
        """The animation export under way, or the last one (read-only: animation_exports holds it)."""
        return self.animation_exports.current

    def set_controls_visible(self, on: bool, remember: bool = False) -> None:
        """The control panel (Ctrl+B); projector and lesson mode hide it, keeping the user's choice (`remember`)."""
        if remember:
            self.controls_wanted = on
        self.controls.setVisible(on)
        _set_checked(self.controls_action, on)

    def show_error(self, title: str, text: str, details: str = "") -> None:
        """A non-blocking dialog: the app keeps working while it is up."""
        parent = lesson.dialog_parent(self)  # during a lesson: on the presenter's screen, not the projector
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
        box.setTextFormat(Qt.TextFormat.PlainText)
        if details:
            box.setDetailedText(details)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_error = box
        self.last_error_text = f"{title}: {text}\n{details}".strip()
        box.open()

    # ---- settings and closing ----------------------------------------------------------------------
    def _restore(self) -> None:
        """Each value is checked (core/settings.py): a broken settings file gives defaults and log lines."""
        s = self.settings
        settings_store.report_unreadable(s)
        if not settings_store.restore_bytes(s, settings.GEOMETRY, self.restoreGeometry):
            self.resize(fit_screen(1500, 900))
        settings_store.restore_bytes(s, settings.SPLITTER, self.splitter.restoreState)
        self.set_controls_visible(settings_store.read(s, settings.CONTROLS), remember=True)
        self.run_panel.restore(s)

    def _save_settings(self) -> None:
        s = self.settings
        settings_store.write(s, settings.GEOMETRY, self.saveGeometry().data())
        settings_store.write(s, settings.SPLITTER, self.splitter.saveState().data())
        settings_store.write(s, settings.CONTROLS, self.controls_wanted)
        self.run_panel.save(s)
        s.sync()

    def open_exercise_check(self, path) -> bool:
        """File ▸ Open of FILE.check.json: the check in the Exercise tab."""
        self.tabs.setCurrentWidget(self.exercise_tab)
        try:
            return self.exercise_tab.open_check(Path(path))
        except MemoryError:  # the loaders keep a record within 1 GB; a machine short of that says so
            self.show_error(self.tr("Cannot open the check"), self.tr("{0}: not enough memory to open it").format(path))
            return False

    def shutdown(self) -> bool:
        """Stop redraws and the worker (cancel at the next launch boundary); wait for its thread to end."""
        if self.tabs_built:  # (not built yet: nothing of them to stop)
            self.charts_tab.stop()
        self.tiling.stop()
        if self.tabs_built:
            self.exercise_tab.shutdown()  # a running check's child is killed
        self.animation_exports.stop()  # an export under way: cancelled and joined (a refused close never gets here)
        QApplication.instance().removeEventFilter(self.keys)
        unfollow_all(self)  # no view of a closed window stays subscribed to the workspace
        if self.lesson_mode.saved_central is not None:
            unfollow_all(self.lesson_mode.saved_central)
        return self.controller.shutdown()

    def closeEvent(self, event) -> None:
        if not self.recovery.confirm_close():  # unsaved live results: Save / Discard / Cancel
            return event.ignore()
        self.replay_after_lesson = False
        lesson.leave(self)  # a lesson's presenter window closes with the window
        self._save_settings()
        self.shutdown()  # cancels a run, waits at most 2 s for the worker, detaches one stuck in a native call
        self.recovery.remove()  # a clean exit: nothing to recover next time
        self.statusBar().clearMessage()  # stops its message timer: nothing of the window keeps ticking
        super().closeEvent(event)
