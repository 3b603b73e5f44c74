"""The `@Variant(…)` values of a Qt INI settings file, checked before Qt decodes them. Qt reads a stored list's
entry count and reserves room for that many entries at once: one edited byte (a count of 0x40000000 in 14
bytes) ended the process with std::bad_alloc in QSettings.value(), at every start until the file was deleted.
Here a value's counts are held to what its bytes can hold; Qt-free, pure Python.

The INI escapes are Qt's own (qsettings.cpp, iniUnescapedStringList): \\a \\b \\f \\n \\r \\t \\v \\" \\' \\? \\\\,
\\x followed by hex digits, \\0–\\7 followed by octal digits. The stream is QDataStream's, big-endian: a value is
its type id (uint32) and a null flag (one byte), then its data.
"""

from __future__ import annotations

import re
import struct

_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, '"': 34, "'": 39, "?": 63, "\\": 92}
_VARIANT_LINE = re.compile(r"^\s*([^=\n]+?)\s*=(.*@Variant\(.*)$")  # a key whose value holds one or more

# QMetaType ids (Qt 6) and the least bytes one entry of each container takes in the stream
_BOOL, _INT, _UINT, _LONG, _ULONG, _DOUBLE = 1, 2, 3, 4, 5, 6
_MAP, _LIST, _STRING, _STRINGLIST, _BYTES, _HASH = 8, 9, 10, 11, 12, 28
_FIXED = {_BOOL: 1, _INT: 4, _UINT: 4, _LONG: 8, _ULONG: 8, _DOUBLE: 8}
MAX_DEPTH = 16


class BadVariant(ValueError):
    """A stored value whose counts its bytes cannot hold."""


def unescape(text: str) -> bytes:
    """A value's text as Qt's INI reader makes it bytes (each character one byte: a variant's text is Latin-1)."""
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        i += 1
        if c != "\\" or i == len(text):
            out.append(ord(c) & 0xFF)
            continue
        c = text[i]
        i += 1
        if c == "x" or c in "01234567":
            digits, base = ("0123456789abcdefABCDEF", 16) if c == "x" else ("01234567", 8)
            start = i if c == "x" else i - 1
            while i < len(text) and text[i] in digits:
                i += 1
            out.append(int(text[start:i] or "0", base) & 0xFF)
        else:
            out.append(_ESCAPES.get(c, ord(c) & 0xFF))
    return bytes(out)


def check_variant(data: bytes) -> None:
    """BadVariant where a list, string list, map or hash in `data` claims more entries than its bytes hold (at
    any depth); a type this does not know ends the check (Qt decodes those without reserving room)."""
    _value(data, 0, 0)


def _value(data: bytes, pos: int, depth: int) -> int | None:
    """The position after the value at `pos`, or None where the check stops (a type not known here)."""
    if depth > MAX_DEPTH:
        raise BadVariant(f"lists nested more than {MAX_DEPTH} deep")
    if len(data) - pos < 4:
        return None  # cut short: Qt reads an invalid value, no room reserved
    (kind,) = struct.unpack_from(">I", data, pos)
    return _data(data, pos + 4, kind, depth)


def _data(data: bytes, pos: int, kind: int, depth: int) -> int | None:
    if kind in _FIXED:
        return pos + _FIXED[kind]
    if kind in (_STRING, _BYTES):
        return _bytes(data, pos)
    if kind not in (_LIST, _STRINGLIST, _MAP, _HASH):
        return None
    if len(data) - pos < 4:
        return None
    (count,) = struct.unpack_from(">I", data, pos)
    pos += 4
    least = {_LIST: 4, _STRINGLIST: 4, _MAP: 8, _HASH: 8}[kind]  # a value's type, a string's length
    if count * least > len(data) - pos:
        raise BadVariant(f"a list of {count:,} entries in {len(data) - pos:,} bytes")
    for _ in range(count):
        if kind in (_MAP, _HASH):
            after = _bytes(data, pos)  # the key
            after = None if after is None else _value(data, after, depth + 1)
        elif kind == _LIST:
            after = _value(data, pos, depth + 1)
        else:
            after = _bytes(data, pos)
        if after is None:
            return None
        pos = after
    return pos


def _bytes(data: bytes, pos: int) -> int | None:
    """After a QString or QByteArray: a uint32 length in bytes (0xffffffff: null), then the bytes."""
    if len(data) - pos < 4:
        return None
    (n,) = struct.unpack_from(">I", data, pos)
    return pos + 4 if n == 0xFFFFFFFF else (pos + 4 + n if pos + 4 + n <= len(data) else None)


def variant_problem(text: str) -> str | None:
    """Why a settings file's text must not be handed to Qt ("run/params/tile: a list of 1,073,741,824 entries in
    9 bytes"), or None."""
    section = ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1]
            continue
        match = _VARIANT_LINE.match(line)
        if match is None:
            continue
        try:
            for each in match.group(2).split("@Variant(")[1:]:  # a list of them: "@Variant(…), @Variant(…)"
                check_variant(unescape(each))  # what follows the value (its ")", a comma) is never read
        except BadVariant as exc:
            key = match.group(1).replace("\\", "/")
            return f"{key if section in ('', 'General') else section + '/' + key}: {exc}"
    return None
