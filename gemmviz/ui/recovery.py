"""Nothing lost on close or crash: a recovery file of the live results, written after each result and deleted on
a clean exit, offered at the next start; and the Save / Discard / Cancel question when the window closes with
live results that were never saved."""

from __future__ import annotations

import itertools
import json
import logging
import os
import re
import stat
import time
from dataclasses import asdict, replace
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

try:
    import fcntl
except ImportError:  # (Windows: no lock; every recovery file is offered, as before)
    fcntl = None  # type: ignore[assignment]  # the module or None: every use checks for None first

from gemmviz.core import fileio, paths
from gemmviz.core.session.bounds import MAX_RESULTS
from gemmviz.core.session.results import Session, SessionError
from gemmviz.ui.text import tr

RECOVERY_NAME = "recovery.json"  # an earlier gemmviz's one file for every window (still offered, never written)
OWN_NAME = re.compile(r"recovery-(\d+-\d+)\.json")  # a window's own: recovery-PID-N.json, its lock beside it
log = logging.getLogger("gemmviz")
_windows = itertools.count(1)


def recovery_path() -> Path:
    return paths.config_dir() / RECOVERY_NAME


def _lock_of(path: Path) -> Path:
    return path.with_name(f".{path.stem}.lock")


def _held_elsewhere(path: Path) -> bool:
    """Whether the window that writes `path` is still open (in this process or another): its lock is held. A
    crash releases it with the process; a file with no lock beside it is an orphan."""
    if fcntl is None:
        return False
    try:
        fd = os.open(_lock_of(path), os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # (a lock taken here is released with it)
    return False


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
    """Tracks whether the window's live results are saved, keeps the recovery file, asks before losing them.

    Each window writes a file of its own (recovery-PID-N.json) and holds a lock beside it while it is open: two
    windows shared one file, so the second offered the first's unsaved results as a crash's, wrote over them,
    and deleted them as it closed. At start only the files whose window is gone are offered."""

    def __init__(self, window):
        self.window = window
        self.path = paths.config_dir() / f"recovery-{os.getpid()}-{next(_windows)}.json"
        self._lock_fd: int | None = None
        self._orphans: list[Path] = []  # the files pending() read, removed once restored or declined
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
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._claim()
            fileio.write_atomic(self.path, data)
        except (OSError, ValueError) as exc:  # a full disk must not stop the run
            self.last_error = f"cannot write the recovery file {self.path}: {exc}"
            self.window.statusBar().showMessage(self.last_error, 10000)

    def _claim(self) -> None:
        """Hold this window's lock while its file may exist: another window's start leaves the file alone."""
        if self._lock_fd is not None or fcntl is None:
            return
        fd = os.open(_lock_of(self.path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise
        self._lock_fd = fd

    def release(self) -> None:
        """Give up the lock (the window closes; a test's stand-in for a crash, which releases it with the process)."""
        if self._lock_fd is not None:
            _remove_regular(_lock_of(self.path))
            os.close(self._lock_fd)
            self._lock_fd = None

    def remove(self) -> None:
        """Delete this window's recovery file: only a regular file gemmviz wrote (anything else there is not ours)."""
        problem = _remove_regular(self.path)
        if problem:
            self.last_error = f"cannot remove the recovery file {self.path}: {problem}"
        self.release()

    def pending(self) -> Session | None:
        """The results left by windows that ended unexpectedly, if any: every recovery file whose window is gone
        (its lock free), an earlier gemmviz's recovery.json included, as one session. Each is read by the session
        loader, so with a session's file rules and bounds (core/session/bounds.py: SM ids, times, counters,
        params, at most MAX_RESULTS results); a file that breaks one is set aside, its field named in last_error."""
        folder = paths.config_dir()
        try:
            names = sorted(p.name for p in folder.iterdir() if OWN_NAME.fullmatch(p.name))
        except OSError:
            names = []
        candidates = [recovery_path()] + [folder / name for name in names]
        found = [p for p in candidates if os.path.lexists(p) and p != self.path and not _held_elsewhere(p)]
        sessions: list[Session] = []
        self._orphans = []
        for path in found:
            try:
                session = Session.load(path)
            except (OSError, SessionError) as exc:
                self.last_error = f"the recovery file could not be read: {exc}; {set_aside(path)}"
                log.warning("recovery: %s", self.last_error)
                continue
            self._orphans.append(path)
            if session.results:
                sessions.append(session)
        if not sessions:
            return None
        first = sessions[0]
        merged = [r for s in sessions for r in s.results][:MAX_RESULTS]  # a session's bound, as each file's
        return replace(first, results=merged) if len(sessions) > 1 else first

    def _forget_orphans(self) -> None:
        for path in self._orphans:
            _remove_regular(path)
            if OWN_NAME.fullmatch(path.name):
                _remove_regular(_lock_of(path))
        self._orphans = []

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
            self._forget_orphans()
            return 0
        self._forget_orphans()  # restored: this window's own file holds them from now on
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


def _remove_regular(path: Path) -> str:
    """Remove `path` if it is a regular file (anything else there is not ours); "" or why it could not be."""
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        return str(exc.strerror or exc)
    return ""
