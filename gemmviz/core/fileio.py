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
import gc
import json
import os
import re
import shutil
import stat
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from gemmviz.core import interrupt

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; everything else still holds
    fcntl = None  # type: ignore[assignment]  # the module or None: every use checks for None first


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


def own_name(path: str | os.PathLike) -> Path:
    """`path` itself, for a name gemmviz picks: absent, a regular file or a link (which a write replaces, never
    follows); a folder or a special file there is refused (OutputError)."""
    if str(path) == "":
        raise OutputError("an empty file name: give the file to write")
    path = Path(path)
    _replaceable(path)
    return path


def _folder(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


class WrongSuffix(OutputError):
    """The output's own name ends in a suffix its kind is not written as: a usage error (the CLI exits 2)."""


def check_target(path: str | os.PathLike, suffixes: tuple[str, ...] = ()) -> Path:
    """Refuse an output path before any work: an empty name, anything but a regular file (or a link to one), a
    missing or unwritable folder, a read-only file, a wrong suffix, a file another gemmviz is writing.
    Writability is tested by creating (and removing) a file in the target's folder. Returns `path`."""
    if str(path) == "":
        raise OutputError("an empty file name: give the file to write")
    path = Path(path)
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
    # the name last: what the path is (a device, a FIFO, a folder, unwritable) says more than its suffix
    if suffixes and path.suffix.lower() not in suffixes:
        raise WrongSuffix(f"{path}: the file name must end in {' or '.join(suffixes)}")
    if suffixes and real.suffix.lower() not in suffixes:  # r.csv -> keep.json: the write replaces keep.json
        raise OutputError(f"{path}: a link to {real}, whose name does not end in {' or '.join(suffixes)}")
    if _lock_holder(real) is None and fcntl is not None:
        _try_lock(path, real, keep=False)
    return path


def write_atomic(
    path: str | os.PathLike, data: str | bytes, mode: int | None = None, follow_links: bool = True
) -> None:
    """Write `data` to `path` (or the regular file its links lead to) through a temporary file in the same
    folder, flushed to disk, and a rename: a failure leaves the previous file as it was.

    The file keeps the permissions of the file it replaces; a new one gets what a plain open() would give
    (0666 less the umask, 0644 usually), or `mode`. Errors name `path`, never the temporary file. A file that
    another gemmviz holds (see hold) is refused. `follow_links` False, for a name gemmviz picks itself (a
    starter, a desktop file, a manifest): a link there is replaced by the file, what it leads to left alone."""
    with atomic_file(path, mode, follow_links) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike, mode: int | None = None, follow_links: bool = True) -> Iterator[BinaryIO]:
    """A binary file to write `path` piece by piece (a long animation, streamed), with write_atomic's rules:
    checked and locked first, written to a temporary file beside it, flushed and renamed at the end; if the
    block raises (a full disk, Ctrl+C), the temporary file is removed and the previous file is left."""
    real = real_target(path) if follow_links else own_name(path)
    path = Path(path)
    if mode is None:
        try:
            if real.is_symlink():  # a link replaced by the file: a new file's mode, not what it led to
                raise FileNotFoundError(real)
            mode = stat.S_IMODE(os.stat(real).st_mode)
        except OSError:
            mode = 0o666 & ~_umask()
    tmp = temporary_lock = None
    try:
        with interrupt.deferred():  # a lock and a temporary file are made whole and known, or not at all
            temporary_lock = _lock_holder(real) is None and fcntl is not None
            if temporary_lock:
                _try_lock(path, real, keep=True)
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
            with interrupt.deferred():  # renamed and forgotten together
                os.replace(tmp, real)
                tmp = None
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {_why(exc)}") from None
    finally:
        with interrupt.deferred():  # the cleanup runs whole, even when a second Ctrl+C comes
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
            if temporary_lock:
                release(real)


# ---- reading what a user may have put there ------------------------------------------------------------
class FileFormatError(ValueError):
    """The one base of every refusal of a file or a value read from one (a session, a check record, a lesson, an
    exercise, a setting, ncu's CSV, ...): the message says why in one line. A ValueError, so `except ValueError`
    still catches it; the window and the CLI catch this where they would otherwise list the formats' own."""


class InputFileError(FileFormatError):
    """A file that must not be read (not a regular file, over its size limit, unreadable): the message says
    why, without the path (the caller names it)."""


MAX_NESTING = 64  # lists and objects (or tables) inside one another: no file gemmviz reads needs more than 8


def check_nesting(text: str, limit: int = MAX_NESTING, toml: bool = False) -> None:
    """InputFileError where JSON (or, with `toml`, TOML) text nests lists and objects more than `limit` deep.
    Worked out before any parser sees the text (the parsers recurse once per level: a file nested 100,000 deep
    was a RecursionError), in a few passes of the regular-expression engine and numpy, linear in the text's
    length. Brackets inside strings (and TOML's comments) do not count."""
    if text.count("[") + text.count("{") <= limit:
        return
    import numpy as np  # here, not at the top: the CLI's parser and the window's first frame import this module

    data = np.frombuffer((_TOML_QUOTED if toml else _JSON_QUOTED).sub("", text).encode("utf-8", "replace"), np.uint8)
    steps = ((data == ord("[")) | (data == ord("{"))).astype(np.int32) - ((data == ord("]")) | (data == ord("}")))
    if int(np.cumsum(steps).max()) > limit:
        raise InputFileError(f"nested too deep: lists or objects more than {limit} levels inside one another")


def parse_json(text: str, parse_constant: Callable[[str], Any] | None = None) -> Any:
    """JSON text parsed as every loader of a user's file parses it: nesting checked before the parser (which
    recurses once per level), and an object that names a key twice refused (InputFileError) where Python's
    parser keeps the last silently: a hand-edited session with two "median_ms" said nothing of which one it
    charted. Other parse errors are json's own (ValueError); `parse_constant` as json.loads takes it."""
    check_nesting(text)
    return json.loads(text, parse_constant=parse_constant, object_pairs_hook=_unique_keys)


def parse_toml(text: str) -> dict[str, Any]:
    """TOML text parsed as every loader of a user's TOML file (lessons, exercises) parses it: nesting checked
    before the parser, a byte-order mark some editors write left out, and an integer past Python's digit limit
    named with its line (InputFileError) where tomllib said "Exceeds the limit (4300 digits) … use
    sys.set_int_max_str_digits()". Syntax errors are tomllib's own (TOMLDecodeError), a key given twice said so."""
    import tomllib

    check_nesting(text, toml=True)
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        if str(exc).startswith(("Cannot overwrite a value", "Cannot declare")):
            raise tomllib.TOMLDecodeError(f"a key or table given twice: {exc}") from None
        raise
    except ValueError:  # int() of a number past sys.get_int_max_str_digits()
        long = re.search(r"[0-9_]{1000,}", text)
        line = f" (line {text.count(chr(10), 0, long.start()) + 1})" if long else ""
        raise InputFileError(f"a number with thousands of digits{line}") from None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) < len(pairs):
        seen: set[str] = set()
        for twice, _ in pairs:
            if twice in seen:
                break
            seen.add(twice)
        shown = json.dumps(twice)  # quoted, escapes visible: a key is a student's text
        raise InputFileError(f"the key {shown[:60]} appears twice in one object (which one is meant?)")
    return out


_JSON_QUOTED = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?')
_TOML_QUOTED = re.compile(
    r'"""[\s\S]*?(?:"""|$)|\'\'\'[\s\S]*?(?:\'\'\'|$)|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|\'[^\'\n]*\'?|#[^\n]*'
)


def _open_regular(path: str | os.PathLike) -> tuple[int, os.stat_result]:
    """The descriptor of the regular file at `path` (links followed) and its stat, opened without blocking, so a
    FIFO put in its place is refused rather than waited on; InputFileError for anything but a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InputFileError(f"cannot read: {_why(exc)}") from None
    try:
        st = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise InputFileError(f"cannot read: {_why(exc)}") from None
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise InputFileError("it is a folder, not a file" if stat.S_ISDIR(st.st_mode) else "not a regular file")
    return fd, st


def read_head(path: str | os.PathLike, size: int) -> bytes:
    """The first `size` bytes of the regular file at `path` (a sniff of its kind), as read_regular opens it."""
    fd, _st = _open_regular(path)
    try:
        return os.read(fd, size)
    except OSError as exc:
        raise InputFileError(f"cannot read: {_why(exc)}") from None
    finally:
        os.close(fd)


def read_regular(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of the regular file at `path` (links followed), refused when it is anything else or over
    `limit` bytes. Opened without blocking, so a FIFO put in its place is refused rather than waited on; the
    size is that of the opened file and at most `limit` + 1 bytes are read (a file that grows is refused)."""
    fd, st = _open_regular(path)
    try:
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
    with interrupt.deferred():  # the lock file is made and known (in _held) together
        _take_lock(path, real, keep)


def _take_lock(path: Path, real: Path, keep: bool) -> None:
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
    with interrupt.deferred():
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
    with interrupt.deferred():
        for key in list(_held):
            fd, lock = _held.pop(key)
            try:
                os.unlink(lock)
            except OSError:
                pass
            os.close(fd)


atexit.register(release_all)


# ---- several files at names gemmviz picks, all or none ---------------------------------------------------
STAGING_PREFIX = ".gemmviz-staging-"


def write_new(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` into a new file at `path` (it must not exist: a file in a staging folder), flushed to disk.
    OutputError names the file it stands for (in the folder above the staging folder), never the staging one."""
    path = Path(path)
    shown = path.parent.parent / path.name if path.parent.name.startswith(STAGING_PREFIX) else path
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        raise OutputError(f"cannot write {shown}: {_why(exc)}") from None


def _replaceable(target: Path) -> None:
    """A name gemmviz picks may be absent, a regular file or a link (the link itself is replaced, never what it
    leads to); anything else is refused before any file is moved."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {_why(exc)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(f"cannot write {target}: a folder has that name")
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
        raise OutputError(f"cannot write {target}: it is not a regular file")


@contextlib.contextmanager
def staged_folder(folder: str | os.PathLike) -> Iterator[Path]:
    """A hidden folder inside `folder` to write a set of files into (write_new, write_atomic). When the block
    ends without error, every file in it is moved into `folder` at the same name, in one step no Ctrl+C breaks
    into; a link already at one of those names is replaced by the file, never followed. If the block fails (a
    full disk at the ninth slide, Ctrl+C, SIGTERM) or a name is taken by a folder, nothing is moved and the
    staging folder is removed: `folder` is left as it was."""
    folder = Path(folder)
    with interrupt.deferred():
        try:
            staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=folder))
        except OSError as exc:
            raise OutputError(f"cannot write into {folder}: {_why(exc)}") from None
    try:
        yield staging
        names = sorted(p.name for p in staging.iterdir())
        for name in names:
            _replaceable(folder / name)
        with interrupt.deferred():
            try:
                for name in names:
                    os.replace(staging / name, folder / name)
            except OSError as exc:
                raise OutputError(f"cannot write {folder / name}: {_why(exc)}") from None
    finally:
        with interrupt.deferred():
            shutil.rmtree(staging, ignore_errors=True)


# ---- packed data ---------------------------------------------------------------------------------------------
def inflate(data: bytes, limit: int, gzip: bool = False) -> bytearray:
    """The decompressed bytes of zlib (or gzip, every member) `data`, refused (InputFileError) as soon as they
    pass `limit` bytes: at most limit + 1 bytes are ever made, whatever the file says of its size. The one
    reader of packed data: sessions and access records (.json.gz), the packed columns of a trace."""
    out = bytearray()
    rest = data
    while True:
        d = zlib.decompressobj(31 if gzip else 15)
        try:
            out += d.decompress(rest, limit + 1 - len(out))
        except zlib.error as exc:
            raise InputFileError(f"not readable {'gzip' if gzip else 'zlib'} data ({exc})") from None
        if len(out) > limit or d.unconsumed_tail:
            raise InputFileError(f"decompresses to over the {limit:,}-byte limit")
        if not d.eof:
            raise InputFileError(f"{'gzip' if gzip else 'zlib'} data cut short")
        rest = d.unused_data
        if not (gzip and rest.strip(b"\0")):  # gzip: another member follows (padding zeros end it)
            return out  # bytes-like, writable: no copy of up to `limit` bytes


class FileMemo:
    """Values worked out from files, kept for this process while the files stay as they were (path, modification
    time, size): a shipped session or record read once, not once a window or a check, and read again once it
    changes on disk. At most `size` entries (the oldest goes first). A value is kept only when `compute` returns;
    where a file cannot be looked at (gone since it was listed), `compute` runs and nothing is kept."""

    def __init__(self, size: int = 1) -> None:
        self.size = size
        self._values: dict[tuple, object] = {}

    def get(self, paths, compute):
        try:
            key = tuple((str(p), st.st_mtime_ns, st.st_size) for p in paths for st in (os.stat(p),))
        except OSError:
            return compute()
        if key not in self._values:
            value = compute()
            while len(self._values) >= self.size:
                del self._values[next(iter(self._values))]
            self._values[key] = value
        return self._values[key]


_gc_lock = threading.Lock()
_gc_state = {"pauses": 0, "was_enabled": True}


@contextlib.contextmanager
def bulk_objects() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a session's JSON is parsed, copied or written. Plain JSON
    values hold no cycles, but every new list counts towards a collection, and each collection of the oldest
    generation walks every row made so far: for the 4096³ traces session (1.2 M block-trace rows) copying its
    results took 1.00 s against 0.25 s paused, json.dumps 1.60 s against 0.55 s, json.loads 1.45 s against
    0.37 s (measured 2026-12-02 on this project's 2-core CI-like machine). Nested and threaded uses are
    counted: the collector runs again when the last one ends, if it ran before the first."""
    with _gc_lock:
        if _gc_state["pauses"] == 0:
            _gc_state["was_enabled"] = gc.isenabled()
            gc.disable()
        _gc_state["pauses"] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_state["pauses"] -= 1
            if _gc_state["pauses"] == 0 and _gc_state["was_enabled"]:
                gc.enable()


MANIFEST_LIMIT = 4 << 20  # a written-files manifest longer than this is not read (nothing is tidied)
_MANIFEST_LINE = re.compile(r"([^/\x00\n]+) ([0-9a-f]{64})")


def file_hash(path: Path) -> str | None:
    """The SHA-256 of the regular file at `path` (a link is not followed), or None."""
    import hashlib

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with open(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return hashlib.file_digest(f, "sha256").hexdigest()


def tidy_written(folder: Path, manifest_name: str, written: list[str], ours: re.Pattern[str]) -> None:
    """An export into `folder` that rewrites its own files: remove what an earlier export wrote there and this
    one did not (`written`, names in `folder`), and only that. A file goes only where the manifest names it (a
    name `ours` matches whole, never a path) with the SHA-256 of the bytes gemmviz wrote, which it must still
    hold: a step-09.png or frame_0040.png of the user's own, or one a planted manifest names, is kept. Then the
    manifest notes this export's files and their hashes."""
    manifest = folder / manifest_name
    try:
        earlier = read_regular(manifest, MANIFEST_LIMIT).decode("utf-8", "replace").split("\n")
    except InputFileError:
        earlier = []
    keep = set(written)
    for line in earlier:
        m = _MANIFEST_LINE.fullmatch(line)
        if m and ours.fullmatch(m[1]) and m[1] not in keep and file_hash(folder / m[1]) == m[2]:
            (folder / m[1]).unlink(missing_ok=True)
    lines = [f"{name} {file_hash(folder / name)}\n" for name in written if ours.fullmatch(name)]
    try:
        write_atomic(manifest, "".join(lines), follow_links=False)
    except OSError:  # the files are written; a missing manifest only keeps the next export from tidying
        pass
