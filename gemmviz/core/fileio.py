"""The one writer of every output (session, CSV, chart, animation, slides, caches, the recovery file).

An output is a regular file or nothing: a device node, a FIFO, a socket or a folder is refused, and a
symbolic link is followed to the regular file it names (written there, the link kept) or refused. A target is
checked before any work by creating a file beside it (a permission test alone is not enough: root passes it
for /proc). Writes go to a temporary file in the same folder, flushed to disk, then renamed over the target,
so a failed write leaves the previous file intact. A lock file beside the target (`.NAME.lock`) keeps a second
gemmviz from writing the same file at the same time.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; everything else still holds
    fcntl = None


class OutputError(OSError):
    """A file cannot be written there; the message names the user's path and what to do."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def real_target(path: str | os.PathLike) -> Path:
    """The file a write to `path` lands in: `path` itself, or the regular file its symbolic links lead to.

    Refuses (OutputError) an empty name, a folder, anything that is not a regular file, a link to nothing
    and a loop of links."""
    if str(path) == "":
        raise OutputError("an empty file name: give the file to write")
    path = Path(path)
    real = path
    if path.is_symlink():
        try:
            real = path.resolve(strict=True)
        except FileNotFoundError:
            raise OutputError(
                f"cannot write {path}: it is a symbolic link to {os.readlink(path)}, which does not exist"
            ) from None
        except (RuntimeError, OSError):  # Python < 3.13 says RuntimeError for a loop, 3.13 OSError(ELOOP)
            raise OutputError(f"cannot write {path}: a loop of symbolic links") from None
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return real
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_why(exc)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(f"cannot write {path}: it is a folder; give a file name")
    if not stat.S_ISREG(st.st_mode):
        what = (
            "a device"
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
            else "a FIFO (named pipe)"
            if stat.S_ISFIFO(st.st_mode)
            else "a socket"
            if stat.S_ISSOCK(st.st_mode)
            else "a special file"
        )
        raise OutputError(f"cannot write {path}: it is {what}, not a regular file")
    return real


def _folder(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def check_target(path: str | os.PathLike, suffixes: tuple[str, ...] = ()) -> Path:
    """Refuse an output path before any work: an empty name, a wrong suffix, anything but a regular file (or a
    link to one), a missing or unwritable folder, a read-only file, a file another gemmviz is writing.
    Writability is tested by creating (and removing) a file in the target's folder. Returns `path`."""
    if str(path) == "":
        raise OutputError("an empty file name: give the file to write")
    path = Path(path)
    if suffixes and path.suffix.lower() not in suffixes:
        raise OutputError(f"{path}: the file name must end in {' or '.join(suffixes)}")
    real = real_target(path)
    parent = _folder(real)
    if not parent.is_dir():
        raise OutputError(f"cannot write {path}: the folder {_folder(path)} does not exist")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"cannot write {path}: the folder {_folder(path)} is not writable")
    if real.exists() and not os.access(real, os.W_OK):
        raise OutputError(f"cannot write {path}: the file is read-only")
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix=f".{real.name}.", suffix=".probe")
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_why(exc)}") from None
    os.close(fd)
    os.unlink(probe)
    if _lock_holder(real) is None and fcntl is not None:
        _try_lock(path, real, keep=False)
    return path


def write_atomic(path: str | os.PathLike, data: str | bytes, mode: int | None = None) -> None:
    """Write `data` to `path` (or the regular file its links lead to) through a temporary file in the same
    folder, flushed to disk, and a rename: a failure leaves the previous file as it was.

    The file keeps the permissions of the file it replaces; a new one gets what a plain open() would give
    (0666 less the umask, 0644 usually), or `mode`. Errors name `path`, never the temporary file. A file that
    another gemmviz holds (see hold) is refused."""
    with atomic_file(path, mode) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike, mode: int | None = None) -> Iterator[BinaryIO]:
    """A binary file to write `path` piece by piece (a long animation, streamed), with write_atomic's rules:
    checked and locked first, written to a temporary file beside it, flushed and renamed at the end; if the
    block raises (a full disk, Ctrl+C), the temporary file is removed and the previous file is left."""
    real = real_target(path)
    path = Path(path)
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(real).st_mode)
        except OSError:
            mode = 0o666 & ~_umask()
    temporary_lock = _lock_holder(real) is None and fcntl is not None
    if temporary_lock:
        _try_lock(path, real, keep=True)
    tmp = None
    try:
        try:
            fd, tmp = tempfile.mkstemp(dir=_folder(real), prefix=f".{real.name}.", suffix=".tmp")
            os.fchmod(fd, mode)
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {_why(exc)}") from None
        try:
            with os.fdopen(fd, "wb") as f:
                yield f
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, real)
            tmp = None
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {_why(exc)}") from None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if temporary_lock:
            release(real)


# ---- reading what a user may have put there ------------------------------------------------------------
class InputFileError(ValueError):
    """A file that must not be read (not a regular file, over its size limit, unreadable): the message says
    why, without the path (the caller names it)."""


def read_regular(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of the regular file at `path` (links followed), refused when it is anything else or over
    `limit` bytes. Opened without blocking, so a FIFO put in its place is refused rather than waited on; the
    size is that of the opened file and at most `limit` + 1 bytes are read (a file that grows is refused)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InputFileError(f"cannot read: {_why(exc)}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputFileError("it is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError("not a regular file")
        if st.st_size > limit:
            raise InputFileError(f"{st.st_size:,} bytes, over the {limit:,}-byte limit")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise InputFileError(f"cannot read: {_why(exc)}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise InputFileError(f"over the {limit:,}-byte limit")
    return b"".join(chunks)


# ---- one writer per file ---------------------------------------------------------------------------------
_held: dict[Path, tuple[int, Path]] = {}  # real target -> (lock file descriptor, lock file)


def _lock_path(real: Path) -> Path:
    return _folder(real) / f".{real.name}.lock"


def _key(real: Path) -> Path:
    return Path(os.path.realpath(real))


def _lock_holder(real: Path) -> tuple[int, Path] | None:
    return _held.get(_key(real))


def _try_lock(path: Path, real: Path, keep: bool) -> None:
    """Take the lock of `real` (kept in _held when `keep`, else released at once: a check that no other
    gemmviz is writing it). A lock file removed by its holder between our open and our lock is retried."""
    lock = _lock_path(real)
    for _ in range(10):
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OutputError(f"cannot write {path}: its lock file {lock} is a symbolic link") from None
            return  # a folder where no lock can be made (read-only, full): the write itself will say why
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise OutputError(
                f"cannot write {path}: another gemmviz is writing it (lock {lock}); wait for it "
                "to finish or choose another file"
            ) from None
        try:
            same = os.stat(lock, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if not same:  # the previous holder removed it as we opened it: lock the new one
            os.close(fd)
            continue
        _held[_key(real)] = (fd, lock)
        if not keep:
            release(real)
        return
    raise OutputError(f"cannot write {path}: its lock file {lock} keeps changing")


def hold(path: str | os.PathLike) -> Path:
    """Lock `path` for this process until release(path) or release_all() (the CLI holds its outputs for the
    whole run). Refuses a file another gemmviz holds. Returns the real target."""
    real = real_target(path)
    if _lock_holder(real) is None and fcntl is not None:
        _try_lock(Path(path), real, keep=True)
    return real


def release(path: str | os.PathLike) -> None:
    """Give up the lock of `path` (removing the lock file first, so nobody takes a lock on a removed file)."""
    try:
        real = real_target(path)
    except OutputError:  # what it names changed since: whatever this process holds under that name
        real = Path(path)
    held = _held.pop(_key(real), None)
    if held is None:
        return
    fd, lock = held
    try:
        os.unlink(lock)
    except OSError:
        pass
    os.close(fd)


def release_all() -> None:
    for key in list(_held):
        fd, lock = _held.pop(key)
        try:
            os.unlink(lock)
        except OSError:
            pass
        os.close(fd)


atexit.register(release_all)
