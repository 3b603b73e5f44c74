"""The field checks behind the session loader (core/session/results.py): types, ranges and lengths of every value read
from a file, each refusal naming the field's path (`results[3].samples_ms[0]: not a number ("fast")`), and the
file rules (regular file, size limit, gzip bomb). The checks are core/schema.py's, in a session file's words.
"""

from __future__ import annotations

import functools
import json
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from gemmviz.core.fileio import FileFormatError, InputFileError, parse_json
from gemmviz.core.schema import NAME_CONTROL, TEXT_CONTROL, NonFinite, Schema, Wording

T = TypeVar("T")


class SessionError(FileFormatError):
    """A session file that cannot be read; the message says why in one line, `field` is the path of the bad field."""

    def __init__(self, message: str, field: str = ""):
        super().__init__(message)
        self.field = field


# ---- checking session files -----------------------------------------------------------------------------
# Every field gets its type, range and length checked (core/schema.py), and the message names the field's path
# (`results[3].samples_ms[0]: not a number ("fast")`).

MAX_SESSION_BYTES = 64 * 2**20  # checked before reading: a session of thousands of results is a few MiB
MAX_NAME_CHARS = 200  # labels, names, keys: longer ones are cut
MAX_TEXT_CHARS = 2000  # notes, errors
MAX_DIM = 2**24  # m, n, k
MAX_ITEMS = 100_000  # results, samples, entries of a list or object
MAX_TRACE_ROWS = 1_000_000  # block_trace rows
MAX_DEPTH = 8  # nesting of environment and settings
STATUSES = ("ok", "invalid", "failed", "refused", "unavailable", "cancelled")
KINDS = ("measured", "published")
# Control characters (but tab and newline in texts) and bidirectional overrides are removed from strings: they
# could hide or reorder what a label says.
CONTROL_IN_NAMES = NAME_CONTROL
_NonFinite = NonFinite  # what json.loads makes of NaN and Infinity here, so the check can name their field

GZIP_MAGIC = b"\x1f\x8b"


def _gunzip(data: bytes) -> bytearray:
    """The decompressed bytes of a gzip session, read no further than the size limit (a small file that
    inflates to gigabytes is refused after MAX_SESSION_BYTES + 1 bytes, never held whole)."""
    from gemmviz.core.fileio import InputFileError, inflate

    try:
        return inflate(data, MAX_SESSION_BYTES, gzip=True)
    except InputFileError as exc:
        if "limit" in str(exc):
            raise SessionError(f"decompresses to over the {MAX_SESSION_BYTES // 2**20} MiB limit") from None
        raise SessionError(f"not a readable gzip file: {exc}") from None


# What the JSON parser may make of a file within the size limit, counted before parsing: 64 MiB of `{},` would
# be 1.4 GB of Python objects, of `"ab",` 0.8 GB at most within these counts. The largest shipped session (the
# 4096 block traces) holds 1.7 million values and 0.4 million lists and objects.
MAX_JSON_VALUES = 12_000_000
MAX_JSON_CONTAINERS = 3_000_000


def _check_json_counts(text: str) -> None:
    values, containers = text.count(",") + 1, text.count("{") + text.count("[")
    if values > MAX_JSON_VALUES or containers > MAX_JSON_CONTAINERS:
        raise SessionError(
            f"holds {max(values, containers):,} values, lists or objects, over the {MAX_JSON_VALUES:,} and "
            f"{MAX_JSON_CONTAINERS:,} limits of a session (the parsed file would not fit in memory)"
        )


def _read_json(path: str | os.PathLike) -> object:
    """Parsed JSON of a session file, plain or gzip-compressed (`.json.gz`, recognised by its magic bytes);
    the size limit holds for the file and for its decompressed bytes."""
    name = Path(path)
    try:
        st = name.stat()
        if not stat.S_ISREG(st.st_mode):
            raise SessionError("not a regular file")
        if st.st_size > MAX_SESSION_BYTES:
            raise SessionError(f"{st.st_size / 2**20:.0f} MiB is over the {MAX_SESSION_BYTES // 2**20} MiB limit")
        if st.st_size == 0:
            raise SessionError("empty file (not a gemmviz session)")
        raw = name.read_bytes()[: MAX_SESSION_BYTES + 1]
    except OSError as exc:
        raise SessionError(f"cannot read: {exc.strerror or exc}") from None
    data = _gunzip(raw) if raw.startswith(GZIP_MAGIC) else raw
    del raw
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SessionError("not a text (JSON) file") from None
    del data
    _check_json_counts(text)
    try:
        return parse_json(text, parse_constant=_NonFinite)
    except InputFileError as exc:  # nested too deep, a key twice
        raise SessionError(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise SessionError(f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:  # a 5000-digit integer, nesting deeper than Python's stack
        raise SessionError(f"not valid JSON: {str(exc).splitlines()[0][:100]}") from None


def _shown(value: object) -> str:
    """A bad value as the message shows it: short, one line."""
    if isinstance(value, _NonFinite):
        return value.text
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


# a session file's checks: core/schema.py's, in the words above (`results[3].m: 0 is out of range (1..16777216)`)
SESSION = Schema(lambda where, message: SessionError(message, where), Wording(shown=_shown))
# each check made once per bounds: a session holds a million values, checked one by one where numpy cannot
_whole = functools.cache(SESSION.whole)
_number = functools.cache(SESSION.number)
_text = functools.cache(SESSION.text)


def _fail(where: str, what: str) -> Exception:
    """The SessionError naming the field at `where`: `results[3].m: what`."""
    return SESSION.fail(where, what)


def _int(v: object, where: str, lo: int = 0, hi: int | None = None) -> int:
    return _whole(lo, hi)(v, where)


def _num(v: object, where: str, lo: float | None = 0.0, hi: float | None = None, above: bool = False) -> float:
    return _number(lo, hi, above)(v, where)


_bool = SESSION.boolean


def _str(v: object, where: str, limit: int = MAX_NAME_CHARS) -> str:
    """A string from a file: control characters removed (tab and newline kept in long texts), cut to `limit`."""
    return _text(limit, "strip", True, TEXT_CONTROL if limit > MAX_NAME_CHARS else NAME_CONTROL)(v, where)


def _optional(check: Callable[..., T], v: object, where: str, *args: Any, **kw: Any) -> T | None:
    return None if v is None else check(v, where, *args, **kw)


def _object(v: object, where: str) -> dict[Any, Any]:
    return SESSION.mapping(v, where, MAX_ITEMS)


def _list(v: object, where: str, limit: int = MAX_ITEMS) -> list[Any]:
    return SESSION.sequence(v, where, limit)


def _int_dict(
    v: object, where: str, allowed: Iterable[str] | None = None, what: str = "", lo: int = 1
) -> dict[str, int]:
    """An object of name -> whole number of at least `lo` (params; config, whose flags may be 0)."""
    out = {}
    allowed = None if allowed is None else list(allowed)
    for key, value in _object(v, where).items():
        key = _str(key, f"{where} key")
        if allowed is not None and key not in allowed:
            has = f"it has: {', '.join(allowed)}" if allowed else "it has none"
            raise _fail(f"{where}.{key}", f"not a parameter of {what} ({has})")
        out[key] = _int(value, f"{where}.{key}", lo=lo)
    return out


def _tree(v: object, where: str, depth: int = 0) -> Any:
    """Free-form data (environment, settings): JSON values with finite numbers and clean strings, not too deep."""
    if depth > MAX_DEPTH:
        raise _fail(where, f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(v, dict):
        return {_str(k, f"{where} key"): _tree(x, f"{where}.{k}", depth + 1) for k, x in _object(v, where).items()}
    if isinstance(v, list):
        return [_tree(x, f"{where}[{i}]", depth + 1) for i, x in enumerate(_list(v, where))]
    if isinstance(v, str):
        return _str(v, where, MAX_TEXT_CHARS)
    if isinstance(v, _NonFinite | float):
        return _num(v, where, lo=None)
    return v  # int, bool or None: json.loads makes nothing else
