"""The File menu's work: open, save and close sessions, export CSV, the recent-files list. Errors go to the
window's non-blocking dialog; nothing here touches a device (a saved session carries the probed environment).

What a file is and where it opens is one registry, `READERS`: each kind of file registers its suffixes, an
optional sniff of its first bytes (a check saved as a plain .json) and where it opens (the workspace, the Exercise
tab, lesson mode). File ▸ Open, a file dropped on the window and `gemmviz --open FILE` all go through `open_path`;
a new kind of file is one `register(FileKind(...))` below.
"""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from psygnal import EmitLoopError
from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from gemmviz.core import settings
from gemmviz.core.fileio import InputFileError, check_target, read_head, write_atomic
from gemmviz.core.registry import Registry
from gemmviz.core.session.results import SessionError, results_csv
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui import fonts, settings_store
from gemmviz.ui.text import tr

if TYPE_CHECKING:
    from gemmviz.ui.status import Banner

log = logging.getLogger("gemmviz")
SNIFF_BYTES = 4096  # how much of a file a sniff reads


@dataclass(frozen=True)
class FileKind:
    """A kind of file the window opens: `suffixes` (lower case, the longest match wins: ".check.json" before
    ".json"), `sniff` (its name in lower case and its first SNIFF_BYTES -> whether it is one, where kinds share a
    suffix), `title` (its
    words in the Open dialog's filter, in the window's language) and `open` (SessionFiles, path -> opened?)."""

    name: str
    suffixes: tuple[str, ...]
    title: Callable[[], str]
    open: Callable[[SessionFiles, Path], bool]
    sniff: Callable[[str, bytes], bool] | None = None


READERS: Registry[str, FileKind] = Registry("file kind")


def register(kind: FileKind) -> FileKind:
    READERS.add(kind)
    return kind


def _head(path: Path) -> bytes:
    """The first SNIFF_BYTES of a regular file; b"" for anything else (the reader says why when it opens it). Opened
    without blocking: a FIFO named x.json froze the window in open() on the UI thread, waiting for a writer."""
    try:
        return read_head(path, SNIFF_BYTES)
    except InputFileError:
        return b""


def reader_for(path: str | os.PathLike) -> FileKind | None:
    """The kind of file `path` is: of the kinds whose suffix it has (the longest suffix first), the first whose sniff
    takes its first bytes (a kind without a sniff takes any); None where no kind has its suffix."""
    name = os.fspath(path).lower()
    matching = [(len(suffix), kind) for kind in READERS.values() for suffix in kind.suffixes if name.endswith(suffix)]
    if not matching:
        return None
    head: bytes | None = None
    for _length, kind in sorted(matching, key=lambda lk: -lk[0]):
        if kind.sniff is None:
            return kind
        head = _head(Path(path)) if head is None else head
        if kind.sniff(name, head):
            return kind
    return None


def open_filter() -> str:
    """The Open dialog's filter: every kind, then each kind on its own, then any file."""
    patterns = {kind.name: " ".join("*" + suffix for suffix in kind.suffixes) for kind in READERS.values()}
    every = " ".join(dict.fromkeys(" ".join(patterns.values()).split()))
    lines = [tr("Every file gemmviz opens ({patterns})").format(patterns=every)]
    lines += [f"{kind.title()} ({patterns[kind.name]})" for kind in READERS.values()]
    return ";;".join([*lines, tr("All files (*)")])


def session_text(loaded) -> str:
    """What the window shows of a session as text: its label, GPU, series and notes (each distinct one once)."""
    texts = {loaded.label, loaded.gpu or ""}
    for r in loaded.results:
        texts.update((r.series, r.note or ""))
    return "\n".join(sorted(texts))


class FilesHost(Protocol):
    """What the File menu's work asks of the window (ui/window.MainWindow is one)."""

    workspace: Workspace
    settings: QSettings
    replay_banner: Banner

    def show_error(self, title: str, text: str, details: str = "") -> None: ...
    def show_status(self, text: str, ms: int) -> None: ...
    def show_device(self) -> None: ...  # the device line again (it names a recorded session replayed)
    def run_settings(self) -> dict: ...  # what the live results were measured with (a saved session's settings)
    def open_exercise_check(self, path: Path) -> bool: ...
    def open_lesson(self, path: str | Path) -> bool: ...
    def window(self) -> QWidget: ...  # the dialogs' parent


def replay_label(workspace: Workspace) -> str | None:
    """The recorded session replayed without a GPU, as its GPU and date ("NVIDIA H200, 2026-12-02"); None while
    none is open."""
    loaded = workspace.replay
    return None if loaded is None else loaded.label.removesuffix(" (recorded)")


def with_suffix(path: str, suffix: str) -> str:
    """A name typed without a suffix gets the file kind's (a save dialog that adds none); any other is kept, for
    check_target to refuse where it is not the kind's."""
    return path + suffix if path and not Path(path).suffix else path


class SessionFiles:
    def __init__(self, window: FilesHost, recent_menu: QMenu):
        self.window = window
        self.workspace = window.workspace
        self.settings = window.settings
        self.recent_menu = recent_menu
        self.refresh_recent_menu()

    def open_session_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window.window(), tr("Open session"), "", open_filter())
        if path:
            self.open_path(path)

    def open_path(self, path: str | os.PathLike) -> bool:
        """Open `path` where its kind opens (READERS): File ▸ Open, a dropped file, `gemmviz --open`. A file of no
        kind gets a dialog naming the kinds there are."""
        kind = reader_for(path)
        if kind is None:
            known = ", ".join(sorted({suffix for k in READERS.values() for suffix in k.suffixes}))  # each once
            self.window.show_error(
                tr("Cannot open the file"), tr("{path}: gemmviz opens {known} files").format(path=path, known=known)
            )
            return False
        return kind.open(self, Path(path))

    def open_session(self, path: str | os.PathLike, replay: bool = False) -> bool:
        """Open a session file, or a file of another kind where that kind opens (an exercise check: in the Exercise
        tab). A refused session gets a dialog with the reason (file and field), stays out of Open recent, and leaves
        the workspace and the charts as they were."""
        kind = reader_for(path)
        if kind is not None and kind.name != "session":
            return kind.open(self, Path(path))
        return self.open_session_file(path, replay)

    def open_session_file(self, path: str | os.PathLike, replay: bool = False) -> bool:
        """A session file into the workspace."""
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
            self.window.show_device()  # without a GPU, the device line names the replay

    def replay_words(self) -> str | None:
        """The replay banner's words in the language installed now; None while no recorded session is replayed."""
        label = replay_label(self.workspace)
        if label is None:
            return None
        return QCoreApplication.translate("SessionFiles", "Recorded on {0} — replay").format(label)

    def open_recent(self, path: str) -> bool:
        """An Open recent entry: one whose file has gone is dropped from the list, with a message."""
        if not os.path.isfile(path):  # gone, or put back as a folder or a FIFO: either way not what was opened
            self._set_recent([p for p in self._recent() if p != path])
            gone = not os.path.lexists(path)
            why = (
                tr("{path} no longer exists; removed from Open recent.")
                if gone
                else tr(
                    "{path} is no longer a regular file (a folder, a FIFO or a device now); removed from Open recent."
                )
            )
            self.window.show_error(tr("Cannot open session"), why.format(path=path))
            return False
        return self.open_session(path)

    def close_loaded(self) -> None:
        self.workspace.close_all()
        self.window.replay_banner.set_text("")
        self.window.show_device()

    def clear_live(self) -> None:
        self.workspace.clear_live()

    def save_session(self, path: str) -> bool:
        """Save this run's results with the environment the worker probed: no device call here."""
        if not self.workspace.live:
            self.window.show_error(tr("Nothing to save"), tr("There are no live results yet: run something first."))
            return False
        settings = self.window.run_settings()
        try:
            path = str(check_target(with_suffix(path, ".json"), (".json",)))  # never a lesson, a CSV, a .json.gz
            self.workspace.live_session(settings).save(path)
        except (OSError, ValueError) as exc:  # ValueError: the writer refused what its loader would (SessionError)
            self.window.show_error(tr("Cannot save session"), str(exc))
            return False
        self.add_recent(path)
        self.window.show_status(tr("Session saved to {path}").format(path=path), 5000)
        return True

    def export_csv_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window.window(), tr("Export CSV"), "results.csv", "CSV (*.csv)")
        if path:
            self.export_csv(path)

    def export_csv(self, path: str) -> bool:
        shown = self.workspace.shown()
        if not shown:
            self.window.show_error(tr("Nothing to export"), tr("There are no results to export yet."))
            return False
        try:
            write_atomic(check_target(with_suffix(path, ".csv"), (".csv",)), results_csv(shown))  # never a session
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
            action.triggered.connect(self._opener(p))
            self.recent_menu.addAction(action)
        self.recent_menu.setEnabled(bool(recent))

    def _opener(self, path: str) -> Callable[[], bool]:
        return lambda: self.open_recent(path)


def _is_check(name: str, head: bytes) -> bool:
    from gemmviz.core.exercise.record import FORMAT

    return name.endswith(".check.json") or FORMAT.encode() in head


# the kinds of file the window opens; a check saved as a plain .json is told from a session by its format line
register(
    FileKind(
        "check",
        (".check.json", ".json"),
        lambda: tr("Exercise checks"),
        lambda files, path: files.window.open_exercise_check(path),
        sniff=_is_check,
    )
)
register(
    FileKind(
        "session",
        (".json", ".json.gz"),
        lambda: tr("gemmviz sessions"),
        lambda files, path: files.open_session_file(path),
    )
)
register(FileKind("lesson", (".toml",), lambda: tr("Lessons"), lambda files, path: files.window.open_lesson(path)))
