"""The main window: run panel, run controller and tabs over one workspace; menus, theme, files, settings."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QCoreApplication, QMetaObject, QMimeData, QSettings, Qt, QTimer, Signal, SignalInstance, Slot
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gemmviz.core import settings
from gemmviz.core.measure.bench import Job
from gemmviz.core.problem import ProblemError
from gemmviz.core.session.bounds import MAX_RESULTS
from gemmviz.core.session.results import Result
from gemmviz.core.session.workspace import Workspace, default_replay_session, recorded_sessions
from gemmviz.ui import about, i18n, settings_store, tabs
from gemmviz.ui.export.animation import AnimationExport, AnimationExports
from gemmviz.ui.files import SessionFiles
from gemmviz.ui.follow import WorkspaceFollower, unfollow_all
from gemmviz.ui.recovery import Recovery
from gemmviz.ui.run.controller import RunController, RunState
from gemmviz.ui.run.panel import RunPanel
from gemmviz.ui.status import Banner, RunProgress, Tabs, fit_screen
from gemmviz.ui.text import Words
from gemmviz.ui.theme import LIGHT, Theme, theme_for
from gemmviz.ui.tiling.view import PresenterKeys

if TYPE_CHECKING:  # imported where they are built (ui/tabs.py's factories), not before the first frame
    from gemmviz.ui.accesses.tab import AccessTab
    from gemmviz.ui.charts.compare import ComparePanel
    from gemmviz.ui.charts.tab import ChartsTab
    from gemmviz.ui.exercise.tab import ExerciseTab
    from gemmviz.ui.hardware.tab import HardwareTab
    from gemmviz.ui.lesson.mode import LessonHost, LessonMode, LessonView
    from gemmviz.ui.roofline.tab import RooflineTab
    from gemmviz.ui.tiling.view import TilingPanel

NO_GPU_STYLE = "background: #FFF4CE; color: #4A3B00; padding: 6px;"


def _export_dialog():
    """ui/export/dialog.py, imported when File ▸ Export is first chosen (its exporters load pyqtgraph)."""
    from gemmviz.ui.export import dialog

    return dialog


class _StandIn(QWidget):
    """A tab's place until it is built (ui/tabs.py: after the first frame, when opened, or again after a language
    switch). `initial`: held since the window was made; shown after the first frame (a lesson given at start
    ends, or the tab is chosen), it has the tabs the first frame did not show built on the next turn."""

    def __init__(self, window: MainWindow, name: str, initial: bool) -> None:
        super().__init__()
        self._window = window
        self.name = name
        self.initial = initial

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.initial and self._window.painted:
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


def _dropped_paths(mime: QMimeData) -> list[str]:
    """The local files in a drag whose kind the window opens (none where any is of no kind: the drop is refused)."""
    from gemmviz.ui.files import reader_for

    paths = [url.toLocalFile() for url in mime.urls() if url.isLocalFile()] if mime.hasUrls() else []
    return paths if paths and all(reader_for(p) is not None for p in paths) else []


def _app() -> QApplication:
    """The application (a window needs one)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    return app


def _menu_actions(widget: QWidget) -> Iterator[QAction]:
    for action in widget.actions():
        menu = action.menu()
        if isinstance(menu, QMenu):
            yield from _menu_actions(menu)
        elif not action.isSeparator():
            yield action


def _lesson():
    """ui/lesson/mode.py, imported when a lesson is first touched (it loads the lesson views and the tiling
    renderer: not needed for the window's first frame)."""
    from gemmviz.ui.lesson import mode

    return mode


class MainWindow(QMainWindow):
    """`after_first_paint` (the app's start, ui/app.py): what the first frame does not show waits until it is on
    screen; the frame comes without pyqtgraph (0.3-1 s to import), the tabs, the shipped lessons' parse and the
    worker's probe. The Charts, Roofline, Compare, Accesses and Exercise tabs are stand-ins of the same titles
    until then; the Lesson menu is there, filled then. Without it (tests, a language switch) all is built here.
    `chart_options`: pyqtgraph's configuration, set before the first chart is made."""

    languageChanged = Signal(str)  # after set_language: the tabs that follow it set their words (ui/tabs.py)
    firstPainted = Signal()  # the window's first frame is on screen (benchmarks/startup_time.py waits for it)

    def __init__(
        self,
        backends: dict,
        settings: QSettings | None = None,
        theme: Theme = LIGHT,
        load_recorded_without_gpu: bool = True,
        after_first_paint: bool = False,
        chart_options: dict | None = None,
        lang: str | None = None,
    ):
        super().__init__()
        self.lang = lang or i18n.language()  # the window's language ("en", "zh"): set_language changes it
        self.words = Words()  # the window's own words (menus, tab titles), set again by retranslate
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
        self._base_font_pt = _app().font().pointSize()
        self.controller = c = RunController(backends, self)
        self.recovery = Recovery(self)
        self.replay_after_lesson = False  # the recorded session is opened when the lesson on screen ends
        self._lesson_mode: LessonMode | None = None  # made when first asked for (lesson_mode)
        self._set_aside: QWidget | None = None  # the tabs and banners, while a lesson is in their place
        self.animation_exports = AnimationExports()  # the animation export under way, or the last one
        self.controls_wanted = True  # the user's choice; projector and lesson mode hide the panel regardless
        self._deferred = after_first_paint  # the chart tabs, the lesson menu and the probe wait for the first frame
        self._lesson_menu_stand_in: QMenu | None = None
        self._build()
        self._build_menus()
        self.setAcceptDrops(True)  # a session, a check or a lesson dropped on the window opens where it belongs
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
        self.device_label.set_text(self.tr("Checking for a CUDA GPU…"))  # (retranslate: _show_device)
        right_layout.addWidget(self.device_label)
        self.replay_banner = Banner("background: #E8F1FA; color: #003A63; padding: 4px;")
        self.replay_banner.setVisible(False)
        right_layout.addWidget(self.replay_banner)
        self.tabs = Tabs()
        # the tabs scroll sideways where a tab needs more width than the window leaves them (1280×720 in projector
        # type with the control panel open: the Hardware, Tiling and Accesses tabs made the window 1,320 to 1,440
        # px wide, its right part off the screen) instead of pushing the window past the screen's edge; the
        # banners above them stay whole, elided to the width shown
        self.tabs_scroll = QScrollArea()
        self.tabs_scroll.setWidget(self.tabs)
        self.tabs_scroll.setWidgetResizable(True)
        self.tabs_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.tabs.show_in(self.tabs_scroll.viewport())
        # the width the tab shown needs (Tabs.minimumSizeHint): the pane scrolls for it, and for it only
        self.tabs.currentChanged.connect(lambda _i: self.tabs_scroll.setWidgetResizable(True))
        right_layout.addWidget(self.tabs_scroll, 1)
        # the tabs of ui/tabs.py's registry, in its order: those built "start" now, the others stand-ins of the same
        # titles until they are built (after the first frame, when opened, or where something asks for one: tab())
        self._kept: dict = {}  # a tab's choices, taken when it was let go in a language switch, until it is made again
        self._built_tabs: dict[str, QWidget] = {}
        self._stand_ins: dict[str, _StandIn] = {}
        self.tab_context = self._tab_context()
        for entry in tabs.ordered():
            tab: QWidget
            if entry.built == "start":
                tab = self._built_tabs[entry.name] = entry.factory(self.tab_context)
            else:
                tab = self._stand_ins[entry.name] = _StandIn(self, entry.name, initial=True)
            self.tabs.add_titled(tab, entry.title, entry.short_title)
        self.splitter = QSplitter()
        self.splitter.addWidget(controls)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setCollapsible(1, False)
        self.setCentralWidget(self.splitter)
        self.progress = RunProgress(self.statusBar())

        p = self.run_panel
        p.changed.connect(self.validate)
        p.run_button.clicked.connect(self.run_current)
        p.sweep_button.clicked.connect(self.run_sweep)
        p.cancel_button.clicked.connect(self.cancel)
        self.tab_themes = {page: self.theme for page in [*self._built_tabs.values(), *self._stand_ins.values()]}
        # each view follows the workspace itself (ui/follow.py): a tab made current redraws if it missed a change
        self.tabs.currentChanged.connect(lambda _i: self._on_current_tab())
        if not self._deferred:
            self._build_tabs()

    def _tab_context(self) -> tabs.TabContext:
        """What each tab is given when it is made (ui/tabs.py): the workspace, the look, the language, the run's
        state and the window's few actions a tab may call."""
        return tabs.TabContext(
            workspace=self.workspace,
            theme=self._built_theme,
            lang=self.lang,
            run_panel=self.run_panel,
            run_state_changed=self.controller.stateChanged,
            language_changed=self.languageChanged,
            running=lambda: self.running,
            show_animation=self.show_animation,
            measure_ceilings=self.measure_ceilings,
            show_status=lambda text, ms: self.statusBar().showMessage(text, ms),
            chart_options=self.chart_options,
        )

    @Slot()
    def _build_tabs(self) -> None:
        """The tabs still standing in that are built after the first frame (ui/tabs.py's "first_paint") built in
        their places; the current tab stays current."""
        for name in [n for n in self._stand_ins if tabs.TABS[n].built == "first_paint"]:
            self._build_tab(name)

    def _build_tab(self, name: str) -> QWidget:
        """The tab `name` (built already, or made now in its stand-in's place); a tab made again in another
        language (retranslate) draws what the workspace holds and is given its old self's choices."""
        stand_in = self._stand_ins.pop(name, None)
        if stand_in is None:
            return self._built_tabs[name]
        entry = tabs.TABS[name]
        context = self.tab_context
        tab = self._built_tabs[name] = entry.factory(context)
        self._replace_tab(stand_in, tab, context.theme)
        self._given_back(entry, tab)
        if self.tabs.currentWidget() is tab:
            self._theme_current_tab()  # in the window's theme (projector mode), as a tab made current is
        return tab

    def tab(self, name: str) -> QWidget:
        """The tab `name` of ui/tabs.py's registry, built now if it is not yet (in its stand-in's place; asked for
        before the first frame's turn: with every tab that turn would build)."""
        stand_in = self._stand_ins.get(name)
        if stand_in is not None and stand_in.initial and tabs.TABS[name].built == "first_paint":
            self._build_tabs()
        return self._build_tab(name)

    def built_tab(self, name: str) -> QWidget | None:
        """The tab `name` if it is built now (asking for it through tab() would build it)."""
        return self._built_tabs.get(name)

    def _given_back(self, entry: tabs.TabEntry, tab: QWidget) -> None:
        """A tab made again in another language: it draws what the workspace holds, then takes the choices and
        selections its old self had (ui/keep.py)."""
        kept = self._kept.pop(entry.name, None)
        if kept is None:
            return
        from gemmviz.ui import keep

        if entry.catch_up is not None:
            entry.catch_up(tab, self.workspace)
        for follower in tab.findChildren(WorkspaceFollower):
            follower.refresh()
        if entry.explain is not None:
            entry.explain(tab, self.workspace)
        keep.restore(tab, kept)
        keep.restore(tab, kept)  # again: a choice made above can fill another's menu (the chart shown, its size)

    def _replace_tab(self, old: QWidget, tab: QWidget, theme: Theme) -> None:
        """`tab` takes `old`'s place and titles; the current tab stays current, nothing is told."""
        self.tabs.replace(old, tab)
        self.tab_themes.pop(old, None)
        self.tab_themes[tab] = theme  # restyled in the window's theme when it is shown
        if isinstance(old, _StandIn):
            old.deleteLater()

    # the tabs the window itself and code outside it (the export dialog, the tests) ask for by name
    @property
    def charts_tab(self) -> ChartsTab:
        return cast("ChartsTab", self.tab("charts"))

    @property
    def roofline_tab(self) -> RooflineTab:
        return cast("RooflineTab", self.tab("roofline"))

    @property
    def hardware_tab(self) -> HardwareTab:
        """The Hardware tab, built on first use: where it is opened, or where code asks for it (the export
        dialog's hardware kinds, a test)."""
        return cast("HardwareTab", self.tab("hardware"))

    @property
    def tiling(self) -> TilingPanel:
        return cast("TilingPanel", self.tab("tiling"))

    @property
    def compare(self) -> ComparePanel:
        return cast("ComparePanel", self.tab("compare"))

    @property
    def access_tab(self) -> AccessTab:
        return cast("AccessTab", self.tab("accesses"))

    @property
    def exercise_tab(self) -> ExerciseTab:
        return cast("ExerciseTab", self.tab("exercise"))

    @property
    def tabs_built(self) -> bool:
        """Whether every tab built after the first frame ("first_paint" in ui/tabs.py) is built."""
        return not any(tabs.TABS[n].built == "first_paint" for n in self._stand_ins)

    def _on_current_tab(self) -> None:
        current = self.tabs.currentWidget()
        if isinstance(current, _StandIn):  # opened for the first time, or again after a language switch
            self.tab(current.name)
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

    def _action(self, text, slot=None, shortcut=None, checkable=False) -> QAction:
        """A menu action; `text`: a name, or a callable giving its words (set again by retranslate)."""
        a = QAction(self, checkable=checkable)
        if callable(text):
            self.words.bind(a.setText, text)
        else:
            a.setText(text)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if slot is not None:
            a.triggered.connect(slot)
        return a

    def _build_file_menu(self) -> None:
        action, words = self._action, self.words
        file_menu = self.menuBar().addMenu("")
        words.bind(file_menu.setTitle, lambda: self.tr("&File"))
        self.files = files = SessionFiles(self, QMenu(self))
        words.bind(files.recent_menu.setTitle, lambda: self.tr("Open &recent"))
        self.open_action = action(
            lambda: self.tr("&Open session…"), files.open_session_dialog, QKeySequence.StandardKey.Open
        )
        self.save_action = action(
            lambda: self.tr("&Save session…"), self.recovery.save_dialog, QKeySequence.StandardKey.Save
        )
        self.csv_action = action(lambda: self.tr("Export results as &CSV…"), files.export_csv_dialog)
        file_menu.addMenu(files.recent_menu)
        self.recorded_menu = file_menu.addMenu("")
        words.bind(self.recorded_menu.setTitle, lambda: self.tr("Open recorded or published session"))
        for path in recorded_sessions():
            self.recorded_menu.addAction(action(path.name, lambda _=False, p=path: files.open_session(p)))
        self.export_action = action(
            lambda: self.tr("&Export chart…"), lambda: _export_dialog().ExportDialog(self).open(), "Ctrl+E"
        )
        self.export_anim_action = action(
            lambda: self.tr("Export &animation…"), lambda: _export_dialog().export_animation_dialog(self)
        )
        for a in (self.open_action, self.save_action, self.csv_action, self.export_action, self.export_anim_action):
            file_menu.addAction(a)
        file_menu.addSeparator()
        file_menu.addAction(action(lambda: self.tr("Close loaded sessions"), files.close_loaded))
        file_menu.addAction(action(lambda: self.tr("Clear live results"), files.clear_live))
        file_menu.addSeparator()
        file_menu.addAction(action(lambda: self.tr("&Quit"), self.close, QKeySequence.StandardKey.Quit))

    def _build_menus(self) -> None:
        action, words = self._action, self.words
        self._build_file_menu()
        run_menu = self.menuBar().addMenu("")
        words.bind(run_menu.setTitle, lambda: self.tr("&Run"))
        self.run_action = action(lambda: self.tr("&Run"), self.run_current, "Ctrl+R")
        self.sweep_action = action(lambda: self.tr("&Sweep"), self.run_sweep, "Ctrl+Shift+R")
        self.cancel_action = action(lambda: self.tr("&Cancel"), self.cancel, "Esc")
        for a in (self.run_action, self.sweep_action, self.cancel_action):
            run_menu.addAction(a)
        self.view_menu = self.menuBar().addMenu("")
        words.bind(self.view_menu.setTitle, lambda: self.tr("&View"))
        self.projector_action = action(
            lambda: self.tr("&Projector mode (large fonts, thick lines)"), None, "Ctrl+P", True
        )
        self.controls_action = action(lambda: self.tr("&Control panel"), None, "Ctrl+B", True)
        self.controls_action.toggled.connect(lambda on: self.set_controls_visible(on, remember=True))
        self.dark_action = action(lambda: self.tr("&Dark theme"), None, None, True)
        self.fullscreen_action = action(lambda: self.tr("&Full screen"), None, "F11", True)
        self.projector_action.toggled.connect(self._queue_projector)
        self.dark_action.toggled.connect(self._queue_projector)
        self.fullscreen_action.toggled.connect(lambda on: self.showFullScreen() if on else self.showNormal())
        # the presenter keys (→ ← Space PgUp PgDn Home End) come through self.keys wherever the focus is
        t = self.tiling
        self.play_action = action(lambda: self.tr("Play / pause animation\tSpace"), t.toggle_play)
        self.step_back_action = action(lambda: self.tr("Step back\t←"), lambda: t.go(t.step - 1))
        self.step_forward_action = action(lambda: self.tr("Step forward\t→"), t.step_forward)
        self.keys = PresenterKeys(self, lambda key: self.tabs.currentWidget() is t and t.key(key))
        _app().installEventFilter(self.keys)
        self.view_menu.addActions(
            [self.controls_action, self.projector_action, self.dark_action, self.fullscreen_action]
        )
        self.view_menu.addSeparator()
        self.view_menu.addActions([self.play_action, self.step_back_action, self.step_forward_action])
        if self._deferred:  # its place and title now, its entries (the shipped lessons, parsed) after the frame
            self._lesson_menu_stand_in = self.menuBar().addMenu("")
            words.bind(self._lesson_menu_stand_in.setTitle, lambda: QCoreApplication.translate("Lesson", "&Lesson"))
        else:
            _lesson().add_menu(self)
        self.language_menu = i18n.add_menu(self)  # View ▸ Language
        about.install(self, self.words)  # the window's title and icon, Help ▸ About

    # ---- language ------------------------------------------------------------------------------------
    def set_language(self, lang: str) -> None:
        """Speak `lang` ("en", "zh") from now on, in place: its catalogue is installed (Qt sends each widget a
        LanguageChange) and every part of the window sets its words again (retranslate). The window stays where
        and as it is (screen, geometry, full screen), and so do a run, a lesson and its presenter's window, the
        open files and sessions, the Exercise tab's kernel and check, and each tab's choices and selections."""
        lang = lang if lang in i18n.NAMES else "en"
        if lang == self.lang:
            return
        self.lang = lang
        app = QApplication.instance()
        assert app is not None  # (a window needs one)
        i18n.install(app, lang)
        self.retranslate()

    def retranslate(self) -> None:
        """Every word of the window again, in self.lang: the menus and tab titles (self.words), the banners, the
        control panel and the tiling tab in place; the Exercise tab in place (its kernel, check and running
        check go on); the chart tabs (Charts, Roofline, Compare, Accesses, Hardware) built again where they are,
        with their choices and selections (ui/keep.py); the lesson on screen in its version of this language."""
        self.words.retranslate()
        self.device_label.retranslate(self._device_words())
        replay = self.files.replay_words()
        self.replay_banner.retranslate(replay if replay is not None else self.replay_banner.text())
        self.run_panel.retranslate()
        self.tabs.retranslate_titles()
        self.tab_context = self._tab_context()  # the tabs made from now on: in this language
        self.languageChanged.emit(self.lang)  # the tabs that follow it: in place (the tiling and Exercise tabs)
        self._rebuild_tabs()
        _lesson().speak(self, self.lang)
        self.validate()

    def _rebuild_tabs(self) -> None:
        """The tabs whose language is "rebuild" (ui/tabs.py: the chart tabs) let go and made again in the window's
        language where they were: the one on screen now, the others when they are next shown or asked for; each is
        given the choices and selections its old self had (ui/keep.py). The current tab stays current."""
        from gemmviz.ui import keep

        for name, tab in list(self._built_tabs.items()):
            entry = tabs.TABS[name]
            if entry.language != "rebuild":
                continue
            self._kept[name] = keep.capture(tab)
            stand_in = self._stand_ins[name] = _StandIn(self, name, initial=False)  # made again when shown or asked
            self._replace_tab(tab, stand_in, self._built_theme)
            del self._built_tabs[name]
            unfollow_all(tab)
            if entry.stop is not None:
                entry.stop(tab, None)
            tab.hide()
            tab.setParent(None)  # out of the window at once
            tab.deleteLater()
        self._on_current_tab()

    def fill_lesson_menu(self) -> None:
        """The Lesson menu made (ui/lesson/mode.add_menu: it parses the shipped lessons) in its stand-in's place."""
        stand_in = self._lesson_menu_stand_in
        if stand_in is None:
            return
        self._lesson_menu_stand_in = None
        bar = self.menuBar()
        before = set(bar.actions())
        _lesson().add_menu(self)  # appended to the bar: moved to where the stand-in is, which goes
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

    def run_settings(self) -> dict:
        """What the live results were measured with: the last run's settings, else the panel's (Save writes them)."""
        return self.last_run_settings or asdict(self.run_panel.bench_settings())

    def remember_run_settings(self, run_settings: dict) -> None:
        """The settings the live results were measured with (a recovered session's): Save writes them."""
        self.last_run_settings = dict(run_settings)

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
        ws.environment = env  # the run panel and the roofline's ceilings button follow it (their own subscriptions)
        self._show_device()
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

    def _show_device(self) -> None:
        self.device_label.set_text(self._device_words())

    def _device_words(self) -> str:
        """The device line: what the probe found, in the window's language (before it answers: it is asked)."""
        ws = self.workspace
        if ws.environment:
            return i18n.device_banner(ws.device_gpu, self.lang)
        return self.tr("Checking for a CUDA GPU…")

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
        """Redraw the tabs built (those with a `refresh` in ui/tabs.py: the charts, the roofline, the comparison)
        for what the workspace does not hold (the theme, new ceilings). Changes of the workspace reach every view
        by its own subscription (ui/follow.py)."""
        for name, tab in list(self._built_tabs.items()):
            entry = tabs.TABS[name]
            if entry.refresh is not None:
                entry.refresh(tab)

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
        for name, tab in self._built_tabs.items():  # the tabs made with the window: now, shown or not
            entry = tabs.TABS[name]
            if entry.built == "start" and entry.apply_theme is not None:
                entry.apply_theme(tab, self.theme)
                self.tab_themes[tab] = self.theme
        font = _app().font()
        font.setPointSize(self.theme.font_pt if on else self._base_font_pt)
        _app().setFont(font)
        bg, fg = self.theme.background, self.theme.foreground
        self.setStyleSheet(f"QWidget {{ background: {bg}; color: {fg}; }}" if dark else "")
        saved = self._set_aside  # the tabs and banners, set aside while a lesson is up
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
        name = next((n for n, t in self._built_tabs.items() if t is tab), None)
        entry = tabs.TABS.get(name) if name is not None else None  # (a stand-in is styled when its tab replaces it)
        if entry is not None and entry.apply_theme is not None:
            entry.apply_theme(tab, self.theme)

    # ---- lesson mode's side (ui/lesson/mode.LessonHost: all that a lesson asks of the window) -------------------
    def add_menu(self) -> QMenu:
        return self.menuBar().addMenu("")

    def show_status(self, text: str, ms: int) -> None:
        self.statusBar().showMessage(text, ms)

    def look(self) -> tuple[bool, bool]:
        return self.projector_action.isChecked(), self.dark_action.isChecked()

    def look_actions(self) -> tuple[QAction, QAction]:
        return self.projector_action, self.dark_action

    def run_jobs(self, jobs: list[Job]) -> bool:
        """Run `jobs` (a lesson's run step); whether they started."""
        self.start(jobs)
        return self.controller.busy

    @property
    def run_progress(self) -> SignalInstance:
        return self.controller.progress

    def show_lesson(self, view: QWidget) -> None:
        """`view` in the place of the tabs and banners (set aside until hide_lesson), the slide alone: no menu bar
        (its grey band at 720p) and no status bar; the menus' shortcuts (Ctrl+P, F11, Ctrl+Q …) stay, their
        actions on the window itself while the bar is hidden."""
        self._set_aside = self.takeCentralWidget()
        self._hide_bars(True)
        self.setCentralWidget(view)

    def hide_lesson(self) -> None:
        """The tabs and banners back in the lesson's place (the lesson's view is its mode's to delete)."""
        self.takeCentralWidget()  # the lesson's view: its mode hides and deletes it
        if self._set_aside is not None:
            self.setCentralWidget(self._set_aside)
        self._set_aside = None
        self._hide_bars(False)

    def lesson_ended(self, projected: bool) -> None:
        """The recorded session a lesson kept waiting is opened now. `projected`: the window was the room's screen,
        so the no-GPU and replay notices were the teacher's news, not the class's: hidden as their ✕ hides them
        (each comes back when its text changes); after a lesson in the window alone they are as before."""
        if self.replay_after_lesson:
            self.open_replay()
        if projected:
            for banner in (self.device_label, self.replay_banner):
                banner.dismiss()

    def _hide_bars(self, hidden: bool) -> None:
        actions = [a for a in _menu_actions(self.menuBar()) if not a.shortcut().isEmpty()]
        for action in actions:
            if hidden:
                self.addAction(action)
            else:
                self.removeAction(action)
        self.menuBar().setVisible(not hidden)
        self.statusBar().setVisible(not hidden)

    def start_lesson(self, chosen) -> bool:
        """Lesson mode (ui/lesson/mode.py): the LessonView replaces the central widget."""
        self.fill_lesson_menu()  # its shortcuts join the window while the menu bar is hidden
        return _lesson().start(self, chosen)

    def leave_lesson(self) -> None:
        """Back to the normal window, as it was (ui/lesson/mode.leave)."""
        _lesson().leave(self)

    @property
    def lesson_mode(self) -> LessonMode:
        """The LessonView and presenter while a lesson is up (ui/lesson/mode.LessonMode), made when first asked
        for: ui/lesson/mode.py and the lesson views it imports load after the first frame, not before it."""
        mode = self.__dict__.get("_lesson_mode")
        if mode is None:
            mode = self._lesson_mode = _lesson().LessonMode(self)
        return mode

    @property
    def lesson_view(self) -> LessonView | None:
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
        parent = _lesson().dialog_parent(self)  # during a lesson: on the presenter's screen, not the projector
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
        self.set_controls_visible(bool(settings_store.read(s, settings.CONTROLS)), remember=True)
        self.run_panel.restore(s)

    def _save_settings(self) -> None:
        s = self.settings
        settings_store.write(s, settings.GEOMETRY, self.saveGeometry().data())
        settings_store.write(s, settings.SPLITTER, self.splitter.saveState().data())
        settings_store.write(s, settings.CONTROLS, self.controls_wanted)
        self.run_panel.save(s)
        s.sync()

    def open_lesson(self, path: str | Path) -> bool:
        """A lesson file (File ▸ Open, a dropped .toml, `gemmviz --open`): given in lesson mode."""
        self.fill_lesson_menu()  # its shortcuts join the window while the menu bar is hidden
        return bool(_lesson().open_lesson(self, str(path)))

    def open_paths(self, paths: list[str]) -> bool:
        """Each file where its kind opens (ui/files.READERS); whether every one opened."""
        return all([self.files.open_path(path) for path in paths])

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """A file of a kind the window opens (ui/files.READERS) may be dropped on it."""
        if _dropped_paths(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = _dropped_paths(event.mimeData())
        if paths:
            event.acceptProposedAction()
            self.open_paths(paths)

    def open_exercise_check(self, path) -> bool:
        """File ▸ Open of FILE.check.json: the check in the Exercise tab."""
        self.tabs.setCurrentWidget(self.exercise_tab)
        try:
            return self.exercise_tab.open_check(Path(path))
        except MemoryError:  # the loaders keep a record within 1 GB; a machine short of that says so
            self.show_error(self.tr("Cannot open the check"), self.tr("{0}: not enough memory to open it").format(path))
            return False

    def shutdown(self, wait_ms: int | None = None) -> bool:
        """Stop redraws and the workers (cancel at the next launch boundary); wait for their threads to end.
        `wait_ms` (a signal's stop, ui/app.Stop): every worker's cancel flag is set first, then each is waited for
        at most that long and left behind if still busy (ui/worker.leave ends the process then); None: a close,
        which waits for the run's worker at most CLOSE_WAIT_MS and for a check or an export until they end."""
        built = [(tabs.TABS[name], tab) for name, tab in self._built_tabs.items()]  # (not built: nothing to stop)
        if wait_ms is not None:  # all of them stop at once, not one after another
            self.controller.runner.cancel()
            for entry, tab in built:
                if entry.cancel is not None:
                    entry.cancel(tab)
            self.animation_exports.cancel_now()
        for entry, tab in sorted(built, key=lambda et: et[0].order):
            if entry.stop is not None:
                entry.stop(tab, wait_ms)  # the charts' redraws, the animation, a running check's child (killed)
        self.animation_exports.stop(wait_ms)  # an export under way: cancelled and joined (not after a refused close)
        _app().removeEventFilter(self.keys)
        unfollow_all(self)  # no view of a closed window stays subscribed to the workspace
        if self._set_aside is not None:
            unfollow_all(self._set_aside)
        return self.controller.shutdown() if wait_ms is None else self.controller.shutdown(wait_ms)

    def closeEvent(self, event) -> None:
        if not self.recovery.confirm_close():  # unsaved live results: Save / Discard / Cancel
            return event.ignore()
        self.replay_after_lesson = False
        _lesson().leave(self)  # a lesson's presenter window closes with the window
        self._save_settings()
        self.shutdown()  # cancels a run, waits at most 2 s for the worker, detaches one stuck in a native call
        self.recovery.remove()  # a clean exit: nothing to recover next time
        self.statusBar().clearMessage()  # stops its message timer: nothing of the window keeps ticking
        super().closeEvent(event)


if TYPE_CHECKING:

    def _a_lesson_host(window: MainWindow) -> LessonHost:
        return window  # (mypy holds MainWindow to the interface lesson mode is given: ui/lesson/mode.LessonHost)
