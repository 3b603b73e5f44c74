"""What the recorded hardware files share (the gap metrics, the pipeline trace): their header, read
and checked the same way, and the one-line refusal that names the file and the field. No Qt.

A header: {"schema": ..., "schema_version": 1, "gpu": "NVIDIA H200", "created": ISO 8601, "command": "..."}.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from gemmviz.core.fileio import FileFormatError, InputFileError, parse_json, read_regular

# the hardware records shipped beside the sessions in assets/sessions (h200-DATE-gap.json, h200-DATE-pipeline.json):
# files of their own schemas, never listed or opened as sessions
RECORD_SUFFIXES = ("-gap.json", "-pipeline.json")
MAX_PARAMS = 16  # a variant's params, or the build macros of a tuned configuration (BM, STAGES, CLUSTER, ...)
MAX_TEXT = 2000  # the command that recorded a file, at most this many characters
NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")  # a variant's name as the registry spells them


class RecordError(FileFormatError):
    """A recorded file is refused; str() is one line naming the file and the field."""


@dataclass(frozen=True)
class Header:
    schema: str
    gpu: str
    created: str  # as recorded (ISO 8601)
    command: str
    file: str  # the file's name, to say where the figures come from

    @property
    def date(self) -> str:
        """The day it was recorded, YYYY-MM-DD."""
        return datetime.fromisoformat(self.created.replace("Z", "+00:00")).date().isoformat()


def fail(file: str, field: str, why: str) -> RecordError:
    return RecordError(f"{file}: {field}: {why}")


def read_json(path: str | os.PathLike, limit: int) -> tuple[str, object]:
    """(the file's name, its parsed JSON): a regular file under `limit` bytes, valid UTF-8 JSON."""
    name = Path(path).name
    try:
        raw = read_regular(path, limit)
    except InputFileError as exc:
        raise RecordError(f"{name}: {exc}") from None
    if raw[:2] == b"\x1f\x8b":  # "'utf-8' codec can't decode byte 0x8b" said nothing of what the file is
        raise RecordError(f"{name}: a gzip-compressed file; this kind of file is plain JSON (gunzip it first)")
    try:
        text = raw.decode("utf-8")
        return name, parse_json(text, parse_constant=_no_constant)
    except InputFileError as exc:  # nested too deep, a key twice
        raise RecordError(f"{name}: {exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError, RecursionError) as exc:
        raise RecordError(f"{name}: not JSON: {str(exc).splitlines()[0][:120]}") from None


def _no_constant(word: str) -> float:
    raise ValueError(f"{word} is not a number JSON allows")


def header(doc: object, file: str, schema: str) -> Header:
    """The checked header of a recorded file of `schema`, version 1."""
    if not isinstance(doc, dict):
        raise fail(file, "top level", "must be a JSON object")
    if doc.get("schema") != schema:
        raise fail(file, "schema", f"must be {schema!r}, got {str(doc.get('schema'))[:60]!r}")
    if type(doc.get("schema_version")) is not int or doc.get("schema_version") != 1:  # true == 1 in Python
        raise fail(file, "schema_version", f"this gemmviz reads version 1, got {str(doc.get('schema_version'))[:20]}")
    gpu = text(doc, "gpu", file, 100)
    created = text(doc, "created", file, 40)
    try:
        datetime.fromisoformat(created.replace("Z", "+00:00"))
    except ValueError:
        raise fail(file, "created", f"must be an ISO 8601 date and time, got {created!r}") from None
    return Header(schema, gpu, created, text(doc, "command", file, MAX_TEXT), file)


def text(d: dict, key: str, file: str, limit: int, where: str = "") -> str:
    value = d.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise fail(file, where + key, f"must be a text of 1 to {limit} characters")
    if any(ord(c) < 32 for c in value):
        raise fail(file, where + key, "must not hold control characters")
    return value


def whole(d: dict, key: str, file: str, lo: int, hi: int, where: str = "") -> int:
    value = d.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise fail(file, where + key, f"must be a whole number from {lo:,} to {hi:,}, got {str(value)[:30]}")
    return value


def number(value: object, file: str, field: str, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise fail(file, field, f"must be a number, got {str(value)[:30]}")
    if not lo <= value <= hi:
        raise fail(file, field, f"{value:g} is out of range ({lo:g} to {hi:g})")
    return float(value)


def variant_name(d: dict, file: str, where: str) -> str:
    value = d.get("variant")
    if not isinstance(value, str) or not NAME.fullmatch(value):
        raise fail(file, where + "variant", "must be a kernel variant's name, e.g. 'gpu-cpasync'")
    return value


def params(d: dict, file: str, where: str) -> dict[str, int | str]:
    value = d.get("params", {})
    if not isinstance(value, dict) or len(value) > MAX_PARAMS:
        raise fail(file, where + "params", f"must be an object of at most {MAX_PARAMS} parameters, e.g. {{'tile': 16}}")
    out: dict[str, int | str] = {}
    for k, v in value.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,31}", k):  # a param (tile) or a build macro (BM, STAGES)
            raise fail(file, f"{where}params", f"{k[:40]!r} is not a parameter name")
        if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 65536:
            out[k] = v
        elif isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9_.-]{1,32}", v):
            out[k] = v
        else:
            raise fail(file, f"{where}params.{k}", "must be a whole number 0 to 65,536 or a short word")
    return out


def label(variant: str, p: dict[str, int | str]) -> str:
    """A kernel's name with its parameters, as the CLI spells it: gpu-tiled[tile=16]."""
    return variant + ("[" + ",".join(f"{k}={v}" for k, v in p.items()) + "]" if p else "")
