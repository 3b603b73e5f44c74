"""The main window's settings and closing: the geometry, splitter, control panel and run panel restored (each
value checked) and saved, the workers stopped, and a close that asks before unsaved live results are lost. A
part of MainWindow (ui/window/main.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget

from gemmviz.core import settings
from gemmviz.ui import settings_store, tabs
from gemmviz.ui.follow import unfollow_all
from gemmviz.ui.status import fit_screen
from gemmviz.ui.window.lesson import lesson_module

if TYPE_CHECKING:
    from PySide6.QtWidgets import QSplitter

    from gemmviz.ui.export.animation import AnimationExports
    from gemmviz.ui.recovery import Recovery
    from gemmviz.ui.run.controller import RunController
    from gemmviz.ui.run.panel import RunPanel
    from gemmviz.ui.tiling.widgets import PresenterKeys

    _Window = QMainWindow
else:
    _Window = object  # a mixin: MainWindow is the QMainWindow


class WindowSettings(_Window):
    """Restore, save, shut down, close."""

    if TYPE_CHECKING:  # the rest of the window this part uses (ui/window/main.py)
        settings: QSettings
        splitter: QSplitter
        run_panel: RunPanel
        controls_wanted: bool
        controller: RunController
        recovery: Recovery
        animation_exports: AnimationExports
        keys: PresenterKeys
        replay_after_lesson: bool
        _built_tabs: dict[str, QWidget]
        _set_aside: QWidget | None

        def set_controls_visible(self, on: bool, remember: bool = False) -> None: ...

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
        app = QApplication.instance()
        assert app is not None  # (a window needs one)
        app.removeEventFilter(self.keys)
        unfollow_all(self)  # no view of a closed window stays subscribed to the workspace
        if self._set_aside is not None:
            unfollow_all(self._set_aside)
        return self.controller.shutdown() if wait_ms is None else self.controller.shutdown(wait_ms)

    def closeEvent(self, event) -> None:
        if not self.recovery.confirm_close():  # unsaved live results: Save / Discard / Cancel
            return event.ignore()
        self.replay_after_lesson = False
        lesson_module().leave(self)  # a lesson's presenter window closes with the window
        self._save_settings()
        self.shutdown()  # cancels a run, waits at most 2 s for the worker, detaches one stuck in a native call
        self.recovery.remove()  # a clean exit: nothing to recover next time
        self.statusBar().clearMessage()  # stops its message timer: nothing of the window keeps ticking
        super().closeEvent(event)
