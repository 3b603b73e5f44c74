"""The field checks behind the session loader (core/session/results.py): types, ranges and lengths of every value read
from a file, each refusal naming the field's path (`results[3].samples_ms[0]: not a number ("fast")`), and the
file rules (regular file, size limit, gzip bomb).

Hand-written rather than pydantic or jsonschema: the CLI on the GPU machine and the Qt-free core run with
numpy only, and core stays dependency-light.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from gemmviz.core.fileio import FileFormatError, InputFileError, check_nesting


class SessionError(FileFormatError):
    """A session file that cannot be read; the message says why in one line, `field` is the path of the bad field."""

    def __init__(self, message: str, field: str = ""):
        super().__init__(message)
        self.field = field


# ---- checking session files -----------------------------------------------------------------------------
# Hand-written rather than pydantic or jsonschema: the CLI on the GPU machine and the Qt-free core run with
# numpy only, and core stays dependency-light. Every field gets its type, range and length checked, and the
# message names the field's path (`results[3].samples_ms[0]: not a number ("fast")`).

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
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
CONTROL_IN_NAMES = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class _NonFinite:
    """What json.loads makes of NaN, Infinity and -Infinity here, so the check can name their field."""

    def __init__(self, text: str):
        self.text = text


GZIP_MAGIC = b"\x1f\x8b"


def _gunzip(data: bytes) -> bytes:
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
        data = name.read_bytes()[: MAX_SESSION_BYTES + 1]
    except OSError as exc:
        raise SessionError(f"cannot read: {exc.strerror or exc}") from None
    if data.startswith(GZIP_MAGIC):
        data = _gunzip(data)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SessionError("not a text (JSON) file") from None
    del data
    _check_json_counts(text)
    try:
        check_nesting(text)  # before the parser, which recurses once per level
    except InputFileError as exc:
        raise SessionError(str(exc)) from None
    try:
        return json.loads(text, parse_constant=_NonFinite)
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


def _fail(where: str, what: str) -> SessionError:
    return SessionError(f"{where}: {what}", where)


def _int(v: object, where: str, lo: int = 0, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _fail(where, f"not a whole number ({_shown(v)})")
    if v < lo or (hi is not None and v > hi):
        raise _fail(where, f"{v} is out of range ({lo}..{hi})" if hi is not None else f"{v} is below {lo}")
    return v


def _num(v: object, where: str, lo: float | None = 0.0, hi: float | None = None, above: bool = False) -> float:
    if isinstance(v, _NonFinite) or (isinstance(v, float) and not math.isfinite(v)):
        raise _fail(where, f"not a finite number ({_shown(v)})")
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise _fail(where, f"not a number ({_shown(v)})")
    if lo is not None and (v <= lo if above else v < lo):
        raise _fail(where, f"{v} must be {'above' if above else 'at least'} {lo}")
    if hi is not None and v > hi:
        raise _fail(where, f"{v} is above {hi}")
    return float(v) if isinstance(v, float) else v


def _bool(v: object, where: str) -> bool:
    if not isinstance(v, bool):
        raise _fail(where, f"not true or false ({_shown(v)})")
    return v


def _str(v: object, where: str, limit: int = MAX_NAME_CHARS) -> str:
    """A string from a file: control characters removed (tab and newline kept in long texts), cut to `limit`."""
    if not isinstance(v, str):
        raise _fail(where, f"not a string ({_shown(v)})")
    v = (_CONTROL if limit > MAX_NAME_CHARS else CONTROL_IN_NAMES).sub("", v)
    return v if len(v) <= limit else v[: limit - 1] + "…"


def _optional(check: Callable[..., object], v: object, where: str, *args, **kw) -> object:
    return None if v is None else check(v, where, *args, **kw)


def _object(v: object, where: str) -> dict:
    if not isinstance(v, dict):
        raise _fail(where, f"not an object ({_shown(v)})")
    if len(v) > MAX_ITEMS:
        raise _fail(where, f"{len(v)} entries, over the {MAX_ITEMS} limit")
    return v


def _list(v: object, where: str, limit: int = MAX_ITEMS) -> list:
    if not isinstance(v, list):
        raise _fail(where, f"not a list ({_shown(v)})")
    if len(v) > limit:
        raise _fail(where, f"{len(v)} entries, over the {limit} limit")
    return v


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


def _tree(v: object, where: str, depth: int = 0) -> object:
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
