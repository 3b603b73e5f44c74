"""The File menu's work: open, save and close sessions, export CSV, the recent-files list. Errors go to the
window's non-blocking dialog; nothing here touches a device (a saved session carries the probed environment)."""

from __future__ import annotations

import gc
import logging
import os
from dataclasses import asdict

from psygnal import EmitLoopError
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu

from gemmviz.core import settings
from gemmviz.core.fileio import write_atomic
from gemmviz.core.session.results import SessionError, results_csv
from gemmviz.ui import fonts, settings_store
from gemmviz.ui.text import tr

log = logging.getLogger("gemmviz")


def session_text(loaded) -> str:
    """What the window shows of a session as text: its label, GPU, series and notes (each distinct one once)."""
    texts = {loaded.label, loaded.gpu or ""}
    for r in loaded.results:
        texts.update((r.series, r.note or ""))
    return "\n".join(sorted(texts))


class SessionFiles:
    def __init__(self, window, recent_menu: QMenu):
        self.window = window
        self.workspace = window.workspace
        self.settings = window.settings
        self.recent_menu = recent_menu
        self.refresh_recent_menu()

    def open_session_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window,
            tr("Open session"),
            "",
            tr("gemmviz sessions and exercise checks (*.json *.json.gz);;All files (*)"),
        )
        if path:
            self.open_session(path)

    def open_session(self, path: str | os.PathLike, replay: bool = False) -> bool:
        """Open a session file. A refused file gets a dialog with the reason (file and field), stays out of Open
        recent, and leaves the workspace and the charts as they were. An exercise check (FILE.check.json, from
        `gemmviz exercise check`) opens in the Exercise tab instead."""
        if str(path).endswith(".check.json"):
            return self.window.open_exercise_check(path)
        before = self.workspace.snapshot()
        try:
            loaded = self.workspace.open(path, replay=replay)  # the views redraw on its events
        except SessionError as exc:
            self.window.show_error(tr("Cannot open session"), str(exc))
            return False
        except MemoryError:  # the loaders' limits keep a file within 1 GB; a machine short of that says so
            self.workspace.restore(before)
            self.window.show_error(tr("Cannot open session"), tr("{0}: not enough memory to open it").format(path))
            return False
        except EmitLoopError as exc:  # a checked file must draw; if it does not, put back what was there and say so
            log.exception("showing %s failed", path)
            self.workspace.restore(before)
            cause = exc.__cause__ or exc
            self.window.show_error(tr("Cannot show session"), f"{path}: {type(cause).__name__}: {cause}")
            return False
        if loaded.replay:
            self.show_replay_banner()
        self.add_recent(str(path))
        fonts.warn_missing(self.window.show_status, session_text(loaded), str(path))  # never silent boxes
        # A session's objects live as long as it is open: out of the collector's way, as the app puts everything
        # after a run (ui/app.py). A million-row block trace is a million lists a full collection walked (150 ms).
        gc.freeze()
        return True

    def show_replay_banner(self) -> None:
        """The banner over the tabs while a recorded session is replayed (none is: nothing changes)."""
        text = self.replay_words()
        if text is not None:
            self.window.replay_banner.set_text(text)

    def replay_words(self) -> str | None:
        """The replay banner's words in the language installed now; None while no recorded session is replayed."""
        loaded = self.workspace.replay
        if loaded is None:
            return None
        text = QCoreApplication.translate("SessionFiles", "Recorded on {0} — replay")
        return text.format(loaded.label.removesuffix(" (recorded)"))

    def open_recent(self, path: str) -> bool:
        """An Open recent entry: one whose file has gone is dropped from the list, with a message."""
        if not os.path.isfile(path):
            self._set_recent([p for p in self._recent() if p != path])
            self.window.show_error(
                tr("Cannot open session"), tr("{path} no longer exists; removed from Open recent.").format(path=path)
            )
            return False
        return self.open_session(path)

    def close_loaded(self) -> None:
        self.workspace.close_all()
        self.window.replay_banner.setVisible(False)

    def clear_live(self) -> None:
        self.workspace.clear_live()

    def save_session(self, path: str) -> bool:
        """Save this run's results with the environment the worker probed: no device call here."""
        if not self.workspace.live:
            self.window.show_error(tr("Nothing to save"), tr("There are no live results yet: run something first."))
            return False
        settings = self.window.last_run_settings or asdict(self.window.run_panel.bench_settings())
        try:
            self.workspace.live_session(settings).save(path)
        except (OSError, ValueError) as exc:  # ValueError: the writer refused what its loader would (SessionError)
            self.window.show_error(tr("Cannot save session"), str(exc))
            return False
        self.add_recent(path)
        self.window.statusBar().showMessage(tr("Session saved to {path}").format(path=path), 5000)
        return True

    def export_csv_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, tr("Export CSV"), "results.csv", "CSV (*.csv)")
        if path:
            self.export_csv(path)

    def export_csv(self, path: str) -> bool:
        shown = self.workspace.shown()
        if not shown:
            self.window.show_error(tr("Nothing to export"), tr("There are no results to export yet."))
            return False
        try:
            write_atomic(path, results_csv(shown))
        except OSError as exc:
            self.window.show_error(tr("Cannot export CSV"), str(exc))
            return False
        return True

    def _recent(self) -> list[str]:
        recent = settings_store.read(self.settings, settings.RECENT)
        return [str(path) for path in recent] if isinstance(recent, list) else []

    def _set_recent(self, paths: list[str]) -> None:
        settings_store.write(self.settings, settings.RECENT, paths[: settings.MAX_RECENT])
        self.refresh_recent_menu()

    def add_recent(self, path: str) -> None:
        self._set_recent([path, *(p for p in self._recent() if p != path)])

    def refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self._recent()
        for p in recent:
            action = QAction(p, self.recent_menu)
            action.triggered.connect(lambda _=False, p=p: self.open_recent(p))
            self.recent_menu.addAction(action)
        self.recent_menu.setEnabled(bool(recent))
