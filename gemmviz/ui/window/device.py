"""The main window's device line and the recorded session: what the probe found, and, without a GPU, the
recorded session opened as a first start shows it (after a lesson given at start, when it ends). A part of
MainWindow (ui/window/main.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QTimer, Slot
from PySide6.QtWidgets import QMainWindow

from gemmviz.core.session.workspace import default_replay_session
from gemmviz.ui import i18n
from gemmviz.ui.files import replay_label

if TYPE_CHECKING:
    from gemmviz.core.session.workspace import Workspace
    from gemmviz.ui.charts.tab import ChartsTab
    from gemmviz.ui.files import SessionFiles
    from gemmviz.ui.lesson.mode import LessonMode
    from gemmviz.ui.status import Banner

    _Window = QMainWindow
else:
    _Window = object  # a mixin: MainWindow is the QMainWindow (its words: translate("MainWindow", …))

NO_GPU_STYLE = "background: #FFF4CE; color: #4A3B00; padding: 6px;"


class WindowDevice(_Window):
    """The probe's answer: the device banner, and the recorded session where there is no GPU."""

    if TYPE_CHECKING:  # the rest of the window this part uses (ui/window/main.py)
        workspace: Workspace
        lang: str
        device_label: Banner
        replay_banner: Banner
        files: SessionFiles
        load_recorded_without_gpu: bool
        replay_after_lesson: bool

        @property
        def charts_tab(self) -> ChartsTab: ...
        @property
        def lesson_mode(self) -> LessonMode: ...
        def validate(self, *_args) -> str | None: ...

    @Slot(object)
    def _on_environment(self, env: dict) -> None:
        ws = self.workspace
        ws.environment = env  # the run panel and the roofline's ceilings button follow it (their own subscriptions)
        self.show_device()
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

    def show_device(self) -> None:
        """The device line, and the replay banner folded into it where there is no GPU (one line, not two, above
        a 720p chart). Called when the probe answers and when a recorded session is opened or closed."""
        self.device_label.set_text(*self._device_words())
        self.replay_banner.set_folded(self._no_gpu())

    def _no_gpu(self) -> bool:
        return bool(self.workspace.environment) and not self.workspace.gpu_available

    def _device_words(self) -> tuple[str, str | None]:
        """The device line and its tooltip: what the probe found, in the window's language (before it answers:
        it is asked). Without a GPU, the recorded session replayed is named in the line."""
        ws = self.workspace
        if ws.environment:
            return i18n.device_banner(ws.device_gpu, self.lang, replay_label(ws))
        return QCoreApplication.translate("MainWindow", "Checking for a CUDA GPU…"), None

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
