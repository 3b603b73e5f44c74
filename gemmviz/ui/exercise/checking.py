"""A check of the student's kernel in its own thread, and which exercise a file is: what the Exercise tab runs
(ui/exercise/tab.py) and how it tells a save that changed the kernel from one that did not."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from gemmviz.core.exercise.exercises import MAX_SOURCE_BYTES, Exercise, ExerciseError, guess_exercise
from gemmviz.core.fileio import InputFileError, read_regular
from gemmviz.ui.text import tr


class CheckWorker(QObject):
    """Runs one check in its own thread; results come back by signal."""

    progress = Signal(int, int, str)
    finished = Signal(object)  # the record
    failed = Signal(str)

    def __init__(self, path: Path, exercise: Exercise):
        super().__init__()
        self.path, self.exercise = path, exercise
        self.cancel = threading.Event()

    def run(self) -> None:
        from gemmviz.backends.exercise import Cancelled, CheckOptions, check_exercise

        try:
            record = check_exercise(
                self.path,
                self.exercise,
                CheckOptions(cancel=self.cancel),
                lambda i, n, what: self.progress.emit(i, n, what),
            )
        except Cancelled:
            self.failed.emit(tr("Check cancelled."))
        except ExerciseError as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # a bug must not end the thread silently: the tab says it and keeps working
            self.failed.emit(tr("The check failed: {0}").format(f"{type(exc).__name__}: {exc}"))
        else:
            self.finished.emit(record)


def content_hash(path: Path) -> str | None:
    """The file's content as a SHA-256; None where it is gone. A file the check would refuse (too large, a FIFO,
    unreadable) hashes by its size and time, so a change to it still gets one check that says why."""
    try:
        return hashlib.sha256(read_regular(path, MAX_SOURCE_BYTES)).hexdigest()
    except (OSError, InputFileError):
        try:
            st = path.stat()
        except OSError:
            return None
        return f"unread:{st.st_mode}:{st.st_size}:{st.st_mtime_ns}"


def exercise_of(path: Path, exercises: list[Exercise]) -> Exercise | None:
    """The exercise whose kernel the file defines, as the CLI picks it (its kernel's name, not the file's); None
    when it defines none of them or cannot be read."""
    try:
        source = read_regular(path, MAX_SOURCE_BYTES).decode("utf-8", errors="replace")
    except (OSError, InputFileError):
        return None
    shipped = guess_exercise(source)
    if shipped is None:
        return None
    return next((e for e in exercises if e.name == shipped.name), None)
