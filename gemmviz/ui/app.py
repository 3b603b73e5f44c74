"""Start the desktop app: compose the backends, make the window, keep the garbage collector out of the way;
View ▸ Language rebuilds the window in the new language with the same workspace (switch_language)."""

from __future__ import annotations

import gc
import os
import sys
import time


def keep_gc_quiet(window) -> None:
    """A full garbage collection walks every tracked object while holding the GIL: with Qt and pyqtgraph
    loaded that is 50-100 ms of frozen window. Long-lived objects are moved out of its way now, after the
    worker's warm-up (numba's compiler) and after each run; reference counting still frees everything that is
    not in a cycle. Process-wide, so here."""
    gc.freeze()
    window.controller.warmedUp.connect(gc.freeze)
    window.controller.finished.connect(lambda *_: gc.freeze())


_current: list = []  # the app's window, replaced by switch_language; held here so it lives as long as the app


def current_window():
    return _current[0] if _current else None


def _adopt(window) -> None:
    """What the app does to its window once it is shown (at start and after a language switch)."""
    from gemmviz.ui import native_window

    keep_gc_quiet(window)
    native_window.watch(window)  # a native window destroyed from outside quits, as a closed one does
    _current[:] = [window]


def switch_language(old, lang: str):
    """Rebuild the window in `lang` ("en", "zh") keeping what the user has: the live results (saved or not, and
    the recovery file of unsaved ones), the loaded sessions, the hidden series, the probed environment, the
    projector and dark themes, the tab, the window's geometry. Every widget is made anew in the new language
    (no widget keeps an English string it was built with). Returns the new window, the old one when `lang` is
    already the window's, None while a run or a lesson is on (the caller says so)."""
    from PySide6.QtWidgets import QApplication

    from gemmviz.ui import i18n
    from gemmviz.ui.window import MainWindow

    if lang == i18n.language():
        return old
    if old.running or getattr(old, "lesson_view", None) is not None:
        return None
    app = QApplication.instance()
    projector, dark = old.projector_action.isChecked(), old.dark_action.isChecked()
    old._save_settings()  # geometry, splitter and run panel: the new window restores them from the settings
    old.shutdown()  # the worker ends (it owns the CUDA context); the new window starts its own
    font = app.font()
    font.setPointSize(old._base_font_pt)  # projector mode enlarged it: the new window must see the normal size
    app.setFont(font)
    i18n.install(app, lang)
    new = MainWindow(old.backends, settings=old.settings, load_recorded_without_gpu=False)
    ws, kept = new.workspace, old.workspace
    ws.add_live(*kept.live)
    ws.restore(kept.snapshot())
    ws.hidden = set(kept.hidden)
    if kept.environment:  # until the new worker's probe reports: the banner, the variants' availability
        new._on_environment(dict(kept.environment))
    new.last_run_settings, new.run_failures = old.last_run_settings, list(old.run_failures)
    new.recovery.ask, new.recovery.saved = old.recovery.ask, list(old.recovery.saved)
    new.files.show_replay_banner()
    new.controls_wanted = old.controls_wanted
    new.setGeometry(old.geometry())  # where the old one is, as it is (restoreGeometry clamps to the screen's size)
    if old.isFullScreen():
        new.showFullScreen()
    elif old.isMaximized():
        new.showMaximized()
    else:
        new.show()
    new.fullscreen_action.setChecked(new.isFullScreen())
    if projector or dark:  # once shown: before, hiding the control panel shrank the window by its width
        new.set_projector(projector, dark)
    new.refresh()
    new.tabs.setCurrentIndex(old.tabs.currentIndex())
    old.recovery.ask = False  # the results live on in the new window: closing the old one asks nothing
    old.close()  # removes the recovery file: the new window writes it again below if results are unsaved
    old.deleteLater()
    if new.recovery.unsaved:
        new.recovery.write()
    _adopt(new)
    return new


def run(projector: bool = False, argv: list[str] | None = None, lesson=None, lang: str | None = None) -> int:
    """The app; with `lesson` (a core.lessons.Lesson) it opens in lesson mode; `lang` (--lang) picks the window's
    language and is remembered (else the one remembered, else the system's), and a shipped lesson's language
    follows it where the lesson has that language."""
    import pyqtgraph as pg
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from gemmviz.backends import default_backends
    from gemmviz.core import settings
    from gemmviz.core.lessons import LessonError, find_lesson
    from gemmviz.ui import i18n, settings_store
    from gemmviz.ui.fonts import install_cjk_fallback
    from gemmviz.ui.run_controller import leave
    from gemmviz.ui.window import MainWindow

    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("gemmviz")
    app.setOrganizationName("gemmviz")
    install_cjk_fallback(app)  # Chinese text renders without a system CJK font
    pg.setConfigOptions(antialias=True)
    qs = settings_store.open_settings()
    if lang is not None:
        settings_store.write(qs, settings.LANGUAGE, lang)
    language = i18n.resolve_language(lang, qs)
    i18n.install(app, language)
    if lesson is not None and lesson.folder is None and lesson.lang != language:  # a shipped lesson: its other version
        try:
            lesson = find_lesson(lesson.name, language)
        except LessonError:
            pass  # the lesson has no version in this language: it stays as it is
    window = MainWindow(default_backends(), settings=qs)
    window.recovery.ask = True
    if projector:
        window.set_projector(True)
        window.showFullScreen()  # a classroom projector: the whole screen, F11 to leave
        window.fullscreen_action.setChecked(True)
    else:
        window.show()
    _adopt(window)
    QTimer.singleShot(0, window.recovery.offer)  # results of a session that crashed: restore them?
    if lesson is not None:
        QTimer.singleShot(0, lambda: window.start_lesson(lesson))
    if os.environ.get("GEMMVIZ_STARTUP_PROBE"):
        # benchmarks/startup_time.py: report when the first frame is on screen, then quit.
        def report():
            window.repaint()  # make sure the first frame has really been painted
            print(f"window-shown {time.monotonic():.6f}", flush=True)
            window.close()
            app.quit()

        QTimer.singleShot(0, report)
    return leave(app.exec())
