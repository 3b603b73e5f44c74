"""One way to write a file: atomically, with normal permissions, after checking the target."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class OutputError(OSError):
    """A file cannot be written there; the message names the user's path and what to do."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_target(path: str | os.PathLike, suffixes: tuple[str, ...] = ()) -> Path:
    """Refuse an output path before any work: wrong suffix, a directory, a missing or unwritable folder."""
    path = Path(path)
    if suffixes and path.suffix.lower() not in suffixes:
        raise OutputError(f"{path}: the file name must end in {' or '.join(suffixes)}")
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder; give a file name")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"cannot write {path}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"cannot write {path}: the folder {parent} is not writable")
    if path.exists() and not os.access(path, os.W_OK):
        raise OutputError(f"cannot write {path}: the file is read-only")
    return path


def write_atomic(path: str | os.PathLike, data: str | bytes, mode: int | None = None) -> None:
    """Write `data` to `path` through a temporary file in the same folder and a rename.

    The file gets the permissions a plain open() would give (0666 less the umask, 0644 usually), or `mode`.
    Errors name `path`, never the temporary file.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder; give a file name")
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        os.fchmod(fd, mode if mode is not None else 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
