"""The file rules of lesson files, the same as session files': a lesson is read only from a regular file of
at most MAX_FILE_BYTES (a FIFO is refused rather than waited on, /dev/zero refused rather than read), and the
session it replays is a shipped session or a file inside the lesson's own folder, never a path elsewhere."""

from __future__ import annotations

import os
from pathlib import Path

from gemmviz.core.fileio import FileFormatError, InputFileError, read_regular
from gemmviz.core.paths import asset_files, asset_path
from gemmviz.core.session.results import CONTROL_IN_NAMES

MAX_FILE_BYTES = 256 * 1024
MAX_NAME_CHARS = 120  # a session's file name, as a title


class LessonError(FileFormatError):
    """A lesson file that cannot be used; the message names the file, the line and what to change."""


def read_lesson_file(path: str | Path, where: str) -> str:
    """The text of a lesson file, with the session loader's file rules: a regular file (a FIFO is refused,
    not waited on; /dev/zero is refused, not read), at most MAX_FILE_BYTES, UTF-8."""
    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except InputFileError as exc:
        message = str(exc)
        if "limit" in message:
            message = f"the file is larger than {MAX_FILE_BYTES // 1024} KiB; is it a lesson?"
        elif message.startswith("cannot read: "):
            message = "cannot read it: " + message.removeprefix("cannot read: ")
        raise LessonError(f"{where}: {message}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise LessonError(f"{where}: not a text file (UTF-8)") from None


def session_problem(session: str) -> str | None:
    """Why a lesson's `session` cannot be a name: a shipped session's file name (or name without .json), or a
    relative path inside the lesson's folder. Absolute paths, '..' and control characters are refused."""
    if CONTROL_IN_NAMES.search(session) or len(session) > MAX_NAME_CHARS:
        return "session is a file name: one short line, no control characters"
    if "\\" in session or Path(session).is_absolute() or session.startswith("~"):
        return (
            f"session {session!r} must be a shipped session's name ({', '.join(shipped_session_names())}) "
            "or a file in the lesson's folder, not a path elsewhere"
        )
    if ".." in Path(session).parts:
        return f"session {session!r} must be inside the lesson's folder ('..' leaves it)"
    return None


def shipped_session_names() -> list[str]:
    """The shipped sessions' file names (assets/sessions; not the gap metrics and pipeline traces beside them)."""
    from gemmviz.core.session.recorded import RECORD_SUFFIXES

    return [f.name for f in asset_files("sessions", "") if not f.name.endswith(RECORD_SUFFIXES)]


def shipped_session(name: str) -> str | None:
    """The file name of the shipped session `name` names (its file name, or that without .json / .json.gz)."""
    for f in shipped_session_names():
        if name in (f, f.removesuffix(".gz").removesuffix(".json")):
            return f
    return None


def lesson_session_path(name: str, where: str, folder: str | None) -> Path:
    """The file a lesson's `session` names (the lesson at `where`, in `folder`, None for a shipped one): a
    shipped session, else a file inside the lesson's folder (links followed, and still inside it).
    LessonError otherwise: a lesson never reads a file elsewhere."""
    problem = session_problem(name)
    if problem:
        raise LessonError(f"{where}: {problem}")
    shipped = shipped_session(name)
    if shipped is not None:
        return asset_path("sessions", shipped)
    if folder is None:
        raise LessonError(f"{where}: session {name!r} is not a shipped session ({', '.join(shipped_session_names())})")
    inside = os.path.realpath(folder)
    real = os.path.realpath(os.path.join(inside, name))
    if os.path.commonpath([inside, real]) != inside:
        raise LessonError(f"{where}: session {name!r} leads outside the lesson's folder (to {real})")
    if not os.path.exists(real):
        raise LessonError(
            f"{where}: session {name!r} is neither a shipped session "
            f"({', '.join(shipped_session_names())}) nor a file in {folder}"
        )
    return Path(real)
