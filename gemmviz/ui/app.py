"""Start the desktop app: compose the backends, make the window, keep the garbage collector out of the way."""

from __future__ import annotations

import gc
import os
import signal
import socket
import sys
import threading
import time
from typing import TYPE_CHECKING

from gemmviz.core import interrupt

if TYPE_CHECKING:  # Qt and the window load when the app starts (run), not when this module is imported
    from PySide6.QtCore import QCoreApplication

    from gemmviz.ui.window import MainWindow

CHART_OPTIONS = {"antialias": True}  # pyqtgraph's, set before the window's first chart is made


def keep_gc_quiet(window) -> None:
    """A full garbage collection walks every tracked object while holding the GIL: with Qt and pyqtgraph
    loaded that is 50-100 ms of frozen window. Long-lived objects are moved out of its way now, after the
    worker's warm-up (numba's compiler) and after each run; reference counting still frees everything that is
    not in a cycle. Process-wide, so here."""
    gc.freeze()
    window.controller.warmedUp.connect(gc.freeze)
    window.controller.finished.connect(lambda *_: gc.freeze())


def _adopt(window) -> None:
    """What the app does to the window it shows."""
    from gemmviz.ui import native_window

    keep_gc_quiet(window)
    native_window.watch(window)  # a native window destroyed from outside quits, as a closed one does


def fill_screen(window) -> None:
    """Full screen on the window's screen. Full screen is a request to the window manager; with none (a kiosk
    session, Xvfb) or one that ignores it, the window kept the size it was restored with (1500×900 on a
    1920×1080 projector), so its geometry is set to the whole screen as well."""
    window.setGeometry(window.screen().geometry())
    window.showFullScreen()


def run(
    projector: bool = False,
    argv: list[str] | None = None,
    lesson=None,
    lang: str | None = None,
    presenter: bool = False,
    files: list[str] | None = None,
) -> int:
    """The app; with `lesson` (a core.lesson.lessons.Lesson) it opens in lesson mode; `lang` (--lang) picks the window's
    language and is remembered (else the one remembered, else the system's), and a shipped lesson's language
    follows it where the lesson has that language. `presenter`: the lesson (seed000 if none) with the
    presenter's window, the slide full screen. `files` (--open): each opened where its kind opens (ui/files.READERS),
    once the window is on screen."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from gemmviz.backends import default_backends
    from gemmviz.core import settings
    from gemmviz.ui import i18n, settings_store
    from gemmviz.ui.fonts import install_cjk_fallback
    from gemmviz.ui.run.controller import leave
    from gemmviz.ui.window import MainWindow

    startup_mark("ui-imported")
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv if argv is not None else sys.argv[:1])
    stop = Stop(app)  # Ctrl+C and SIGTERM from here on: taken when the event loop runs
    app.setApplicationName("gemmviz")
    app.setOrganizationName("gemmviz")
    install_cjk_fallback(app)  # Chinese text renders without a system CJK font
    qs = settings_store.open_settings()
    if lang is not None:
        settings_store.write(qs, settings.LANGUAGE, lang)
    language = i18n.resolve_language(lang, qs)
    i18n.install(app, language)
    if lesson is not None and lesson.folder is None and lesson.lang != language:  # a shipped lesson: its other version
        from gemmviz.core.lesson.lessons import LessonError, find_lesson  # only here: not on the first frame's path

        try:
            lesson = find_lesson(lesson.name, language)
        except LessonError:
            pass  # the lesson has no version in this language: it stays as it is
    startup_mark("app-ready")
    # the first frame first: pyqtgraph, the chart tabs, the Lesson menu's entries and the GPU probe come after it
    window = MainWindow(
        default_backends(), settings=qs, after_first_paint=True, chart_options=CHART_OPTIONS, lang=language
    )
    startup_mark("window-built")
    window.recovery.ask = True
    if projector:
        window.set_projector(True)
        fill_screen(window)  # a classroom projector: the whole screen, F11 to leave
        window.fullscreen_action.setChecked(True)
    else:
        window.show()
    _adopt(window)
    QTimer.singleShot(0, window.recovery.offer)  # results of a session that crashed: restore them?
    if files:
        QTimer.singleShot(0, lambda: window.open_paths(list(files)))
    if presenter:
        from gemmviz.ui.lesson.mode import open_presenter

        def present() -> None:
            window.fill_lesson_menu()  # its Presenter view entry is what the presenter's window toggles
            open_presenter(window, lesson)

        QTimer.singleShot(0, present)
    elif lesson is not None:
        QTimer.singleShot(0, lambda: window.start_lesson(lesson))
    if os.environ.get("GEMMVIZ_STARTUP_PROBE"):
        startup_probe(app, window)
    stop.window = window
    try:
        code = app.exec()
    finally:
        stop.close()
    if stop.signum is not None:
        sys.stderr.flush()
        stop.announce(stop.signum)
    return leave(code)


SIGNAL_WAIT_MS = 500  # a signal's stop waits this long for a busy worker (a window's close: CLOSE_WAIT_MS)
GRACE_S = 1.5  # a signal's stop not over by then (the UI thread busy, a thread in a C call): the process ends


class Stop:
    """Ctrl+C and SIGTERM end the window within 2 s, every time (`timeout -s INT 12 gemmviz`, a session's logout).
    Qt's event loop runs no Python, so Python's handler would wait for the next event that does: the signal's
    number is written to a socket (signal.set_wakeup_fd) that a watcher thread reads; it passes the number on to
    a socket that a QSocketNotifier watches, and the loop quits with 128 + the signal, as after a window
    system's destroy: unsaved live results go to the recovery file (offered at the next start), every worker's
    cancel flag is set, and the workers are waited for at most SIGNAL_WAIT_MS (one still in a C extension is
    left: the process exits anyway). A signal that comes before the loop runs is taken when it starts.

    The UI thread may be busy when the signal comes (building the charts, a long native call): the watcher gives
    the orderly stop GRACE_S, then ends the process itself with the same line and status. Nothing is lost by
    that: the recovery file is rewritten after each result (MainWindow._on_result)."""

    def __init__(self, app: QCoreApplication) -> None:
        from PySide6.QtCore import QSocketNotifier

        self.app = app
        self.window: MainWindow | None = None
        self.signum: int | None = None
        self._lock = threading.Lock()
        self._announced = False
        self.reader, self.writer = socket.socketpair()  # the C handler writes the signal's number here
        self.relay_reader, self.relay_writer = socket.socketpair()  # the watcher passes it on to the loop
        for end in (self.writer, self.relay_reader, self.relay_writer):
            end.setblocking(False)
        self.previous_fd = signal.set_wakeup_fd(self.writer.fileno(), warn_on_full_buffer=False)
        self.previous = {s: signal.signal(s, _noted) for s in interrupt.SIGNALS}
        self.notifier = QSocketNotifier(self.relay_reader.fileno(), QSocketNotifier.Type.Read)
        self.notifier.activated.connect(self._woken)
        self.watcher = threading.Thread(target=self._watch, name="gemmviz-stop", daemon=True)
        self.watcher.start()

    def _watch(self) -> None:
        """The watcher thread: wait for a signal's byte (or the end of the socket: close()), hand it to the event
        loop, then give the orderly stop GRACE_S; the process ends here if it is still running then."""
        while True:
            try:
                data = self.reader.recv(64)
            except OSError:
                return  # closed
            if not data:
                return  # close(): the window ended without a signal
            signums = [b for b in data if b in interrupt.SIGNALS]
            if signums:
                break
        signum = signums[0]
        try:
            self.relay_writer.send(bytes([signum]))
        except OSError:
            pass  # closed meanwhile: the loop is over already
        time.sleep(GRACE_S)  # a deadline, not a wait for a condition: the process ends before it if all goes well
        self.announce(signum)
        os._exit(128 + signum)

    def _woken(self, *_args) -> None:
        try:
            data = self.relay_reader.recv(64)
        except OSError:
            return
        signums = [b for b in data if b in interrupt.SIGNALS]
        if not signums or self.signum is not None:
            return
        self.signum = signums[0]
        window = self.window
        if window is not None:
            if window.recovery.unsaved:
                window.recovery.write()
            window.shutdown(SIGNAL_WAIT_MS)  # every cancel flag set, then each worker waited for briefly
        self.app.exit(128 + self.signum)

    def announce(self, signum: int) -> None:
        """The signal's one line on stderr, said once (by the orderly stop or by the watcher, whichever is first)."""
        with self._lock:
            if self._announced:
                return
            self._announced = True
            line = f"gemmviz: {interrupt.MESSAGES.get(signal.Signals(signum), 'interrupted')}\n"
            try:
                os.write(2, line.encode())  # not through sys.stderr, whose lock another thread may hold
            except OSError:
                pass

    def close(self) -> None:
        self.notifier.setEnabled(False)
        signal.set_wakeup_fd(self.previous_fd)
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        if self.signum is None and self.watcher.is_alive():
            try:
                self.writer.shutdown(socket.SHUT_WR)  # the watcher's recv ends: no signal came
            except OSError:
                pass
            self.watcher.join()
        # after a signal the watcher keeps its deadline (a daemon: it ends with the process); its sockets stay open
        if self.signum is None:
            for end in (self.reader, self.writer, self.relay_reader, self.relay_writer):
                end.close()


def _noted(_signum, _frame) -> None:
    """The Python handler of a signal the window takes through its wakeup socket (Stop): nothing more to do."""


def startup_mark(step: str) -> None:
    """With GEMMVIZ_STARTUP_PROBE set (benchmarks/startup_time.py): `step` and the monotonic time on stdout."""
    if os.environ.get("GEMMVIZ_STARTUP_PROBE"):
        print(f"{step} {time.monotonic():.6f}", flush=True)


def startup_probe(app, window) -> None:
    """benchmarks/startup_time.py: print the monotonic time of each step of the start-up on stdout, then quit.
    `window-shown`: the first frame is on screen; `charts-built`: the chart tabs are made (pyqtgraph loaded: the
    turn after the first frame); `probed`: the worker has said what this machine has; `session-shown`: the
    window painted once it has answered the probe (without a GPU: with the recorded session it replays)."""
    from PySide6.QtCore import QTimer

    mark = startup_mark

    def shown() -> None:
        mark("window-shown")
        QTimer.singleShot(0, lambda: mark("charts-built"))  # runs once the turn that builds them is over

    def probed(_env) -> None:
        mark("probed")
        QTimer.singleShot(0, done)  # after the window's own answer (it queues the replayed session's opening)

    def done() -> None:
        window.repaint()
        mark("session-shown")
        window.close()
        app.quit()

    window.firstPainted.connect(shown)
    window.controller.environmentReady.connect(probed)
