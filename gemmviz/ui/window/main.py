"""The main window: run panel, run controller and tabs over one workspace (the tabs of ui/tabs.py's registry,
built when first needed), its menus, theme and look. Its other parts are the mixins of this package's other
modules (see its __init__)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QSettings, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence
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

from gemmviz.core.session.results import Result
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui import about, i18n, settings_store, tabs
from gemmviz.ui.export.animation import AnimationExport, AnimationExports
from gemmviz.ui.recovery import Recovery
from gemmviz.ui.run.controller import RunController
from gemmviz.ui.run.panel import RunPanel
from gemmviz.ui.status import Banner, RunProgress, Tabs
from gemmviz.ui.text import Words
from gemmviz.ui.theme import LIGHT, Theme, theme_for
from gemmviz.ui.tiling.widgets import PresenterKeys
from gemmviz.ui.window.device import WindowDevice
from gemmviz.ui.window.files import WindowFiles
from gemmviz.ui.window.language import WindowLanguage
from gemmviz.ui.window.lesson import WindowLesson, lesson_module
from gemmviz.ui.window.run import WindowRun
from gemmviz.ui.window.settings import WindowSettings
from gemmviz.ui.window.tabs import StandIn, WindowTabs, queue_slot

if TYPE_CHECKING:  # imported where they are built (ui/tabs.py's factories), not before the first frame
    from gemmviz.ui.lesson.mode import LessonHost, LessonMode


def _set_checked(action: QAction, on: bool) -> None:
    """Check or uncheck without running the action's slot."""
    action.blockSignals(True)
    action.setChecked(on)
    action.blockSignals(False)


def _app() -> QApplication:
    """The application (a window needs one)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    return app


class MainWindow(
    WindowTabs, WindowRun, WindowDevice, WindowLesson, WindowFiles, WindowSettings, WindowLanguage, QMainWindow
):
    """The window; each base before QMainWindow is one part of it, in its own module of this package (runs, the
    device line, lesson mode's host, files, settings and closing, the language). `after_first_paint` (the app's
    start, ui/app.py): what the first frame does not show waits until it is on
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
        # while several files open at once (--open a --open b, a drop of many): their errors, for one dialog
        self.error_batch: list[tuple[str, str, str]] | None = None
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
        self.device_label.set_text(self.tr("Checking for a CUDA GPU…"))  # (retranslate: show_device)
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
        self._stand_ins: dict[str, StandIn] = {}
        self.tab_context = self._tab_context()
        for entry in tabs.ordered():
            tab: QWidget
            if entry.built == "start":
                tab = self._built_tabs[entry.name] = entry.factory(self.tab_context)
            else:
                tab = self._stand_ins[entry.name] = StandIn(self, entry.name, initial=True)
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
            open_session=lambda path: self.files.open_session(path),
            chart_options=self.chart_options,
        )

    # the tabs the window itself and code outside it (the export dialog, the tests) ask for by name

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if not self.painted:
            self.painted = True
            queue_slot(self, "_after_first_paint")  # once this frame is out (its children paint after it)

    @Slot()
    def _after_first_paint(self) -> None:
        self.firstPainted.emit()
        if not self._deferred:
            return
        self._deferred = False
        if not self.lesson_mode.active:  # a lesson given at start: built when the tabs come back (StandIn)
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
            lesson_module().add_menu(self)
        self.language_menu = i18n.add_menu(self)  # View ▸ Language
        about.install(self, self.words)  # the window's title and icon, Help ▸ About

    # ---- views -------------------------------------------------------------------------------------
    def shown_results(self) -> list[Result]:
        return self.workspace.shown()

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

    # ---- the control panel, the animation export, error dialogs ---------------------------------------------
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
        """A non-blocking dialog: the app keeps working while it is up. While a batch of files opens
        (error_batch), the error waits for the batch's one dialog."""
        if self.error_batch is not None:
            self.error_batch.append((title, text, details))
            return
        parent = lesson_module().dialog_parent(self)  # during a lesson: on the presenter's screen, not the projector
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
        box.setTextFormat(Qt.TextFormat.PlainText)
        if details:
            box.setDetailedText(details)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_error = box
        self.last_error_text = f"{title}: {text}\n{details}".strip()
        box.open()


if TYPE_CHECKING:

    def _a_lesson_host(window: MainWindow) -> LessonHost:
        return window  # (mypy holds MainWindow to the interface lesson mode is given: ui/lesson/mode.LessonHost)
