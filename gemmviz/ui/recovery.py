"""Nothing lost on close or crash: a recovery file of the live results, written after each result and deleted on
a clean exit, offered at the next start; and the Save / Discard / Cancel question when the window closes with
live results that were never saved."""

from __future__ import annotations

import json
import logging
import os
import stat
import time
from dataclasses import asdict
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from gemmviz.core import fileio, paths
from gemmviz.core.session.results import Session, SessionError
from gemmviz.ui.text import tr

RECOVERY_NAME = "recovery.json"
log = logging.getLogger("gemmviz")


def recovery_path() -> Path:
    return paths.config_dir() / RECOVERY_NAME


def set_aside(path: Path) -> str:
    """Rename a recovery file gemmviz cannot read (cut short, a newer schema, not a regular file) to
    recovery-unreadable-<time>.json beside it, never delete it: it may hold results a newer gemmviz can read.
    Returns what was done, for the message."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        aside = path.with_name(f"{path.stem}-unreadable-{stamp}{f'-{n}' if n else ''}{path.suffix}")
        if os.path.lexists(aside):
            continue
        try:
            os.rename(path, aside)  # a link is renamed, never what it points to
        except OSError as exc:
            return f"it could not be set aside ({exc.strerror or exc}) and is left as it is"
        return f"it was set aside as {aside}"
    return "it is left as it is (too many set aside already)"


class Recovery:
    """Tracks whether the window's live results are saved, keeps the recovery file, asks before losing them."""

    def __init__(self, window):
        self.window = window
        # Ask before losing unsaved results: on in the app (ui/app.py); off for windows that scripts and tests
        # build and close themselves, where a modal question would wait for nobody.
        self.ask = False
        self.saved: list = []  # the live results as they were when last saved (or restored, or discarded)
        self.last_error = ""  # why the recovery file could not be written or read, for the status bar and tests

    @property
    def workspace(self):
        return self.window.workspace

    @property
    def unsaved(self) -> bool:
        return bool(self.workspace.live) and self.workspace.live != self.saved

    def _settings(self) -> dict:
        w = self.window
        return w.last_run_settings or asdict(w.run_panel.bench_settings())

    # ---- the file -------------------------------------------------------------------------------------
    def write(self) -> None:
        """After each result: the live results as a valid session file, replaced atomically."""
        if not self.unsaved:
            self.remove()
            return
        try:
            data = json.dumps(self.workspace.live_session(self._settings()).to_dict(), allow_nan=False)
            recovery_path().parent.mkdir(parents=True, exist_ok=True)
            fileio.write_atomic(recovery_path(), data)
        except (OSError, ValueError) as exc:  # a full disk must not stop the run
            self.last_error = f"cannot write the recovery file {recovery_path()}: {exc}"
            self.window.statusBar().showMessage(self.last_error, 10000)

    def remove(self) -> None:
        """Delete the recovery file: only a regular file gemmviz wrote (anything else there is not ours)."""
        path = recovery_path()
        try:
            if stat.S_ISREG(os.lstat(path).st_mode):
                path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            self.last_error = f"cannot remove the recovery file {path}: {exc.strerror or exc}"

    def pending(self) -> Session | None:
        """The session left by a run that ended unexpectedly, if any. It is read by the session loader, so with
        a session's file rules and bounds (core/session/bounds.py: SM ids, times, counters, params, at most
        MAX_RESULTS results); a file that breaks one is set aside, its field named in last_error."""
        path = recovery_path()
        if not os.path.lexists(path):
            return None
        try:
            session = Session.load(path)
        except (OSError, SessionError) as exc:
            self.last_error = f"the recovery file could not be read: {exc}; {set_aside(path)}"
            log.warning("recovery: %s", self.last_error)
            return None
        return session if session.results else None

    def offer(self) -> int:
        """At start-up: ask to restore the results of the last session; returns how many were restored."""
        self.last_error = ""
        session = self.pending()
        if session is None:
            if self.last_error:  # an unreadable or out-of-bounds file was set aside: say why and where
                self.window.statusBar().showMessage(self.last_error, 30000)
                self.window.show_error(tr("Recovery file refused"), self.last_error)  # non-blocking
            return 0
        n = len(session.results)
        answer = QMessageBox.question(
            self.window,
            tr("Restore results?"),
            (
                tr("Restore {n} result from the last session that ended unexpectedly?")
                if n == 1
                else tr("Restore {n} results from the last session that ended unexpectedly?")
            ).format(n=n),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes,
        )
        if answer != QMessageBox.StandardButton.Yes:
            self.remove()
            return 0
        self.workspace.add_live(*session.results)  # one event for all of them
        if session.settings:
            self.window.remember_run_settings(session.settings)
        self.write()  # still unsaved: kept until saved, discarded or the app closes cleanly
        return n

    # ---- saving and closing ---------------------------------------------------------------------------
    def save_dialog(self) -> bool:
        path, _ = QFileDialog.getSaveFileName(
            self.window, tr("Save session"), "session.json", tr("gemmviz sessions (*.json)")
        )
        if not path or not self.window.files.save_session(path):
            return False
        self.saved = list(self.workspace.live)
        self.remove()
        return True

    def confirm_close(self) -> bool:
        """True if the window may close: nothing unsaved, or the user saved or discarded it."""
        if not self.unsaved or not self.ask:
            return True
        n = len(self.workspace.live)
        box = QMessageBox.question(
            self.window,
            tr("Save results?"),
            (
                tr("{n} live result not saved. Save them before closing?")
                if n == 1
                else tr("{n} live results not saved. Save them before closing?")
            ).format(n=n),
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if box == QMessageBox.StandardButton.Save:
            return self.save_dialog()
        if box == QMessageBox.StandardButton.Discard:
            self.saved = list(self.workspace.live)
            self.remove()
            return True
        return False
