"""The check record, a JSON file `gemmviz exercise check` writes and the app opens: its loader and where it is
written. Its fields' types and bounds are core/exercise/record_schema.py, what they must say of one another
core/exercise/record_rules.py, its text report core/exercise/report.py; the verdicts and the cause are worked out
by core/exercise/check.py, again on every load. Pure Python."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gemmviz.core.exercise import report  # noqa: F401  (its messages: a record's notes and reasons name them)
from gemmviz.core.exercise.check import finish
from gemmviz.core.exercise.record_rules import consistent
from gemmviz.core.exercise.record_schema import (  # noqa: F401  (CheckFileError, access_trace, bound_text: re-exported)
    CHECK,
    MAX_SOURCE_CHARS,
    CheckFileError,
    access_trace,
    bound_text,
    need,
)
from gemmviz.core.fileio import InputFileError, OutputError, check_target, parse_json, read_regular
from gemmviz.core.schema import shown

FORMAT = "gemmviz-exercise-check"
VERSION = 1
MAX_CHECK_BYTES = 4 * 1024 * 1024


def validate_check(data: object, exercises: Iterable[str] | None = None) -> dict[str, Any]:
    """A loaded check record with every field bounded; CheckFileError names the first bad one in one line (which
    field, what was expected): an unknown field, a missing one, a wrong type, an exercise that is not one of
    `exercises` (the shipped ones by default), or two fields that contradict each other (results after a failed
    compile, a time for a wrong kernel). Its verdicts and cause are worked out again from what it holds, never
    taken from the file."""
    if not isinstance(data, dict):
        raise CheckFileError("not a JSON object")
    need(
        data.get("schema") != "gemmviz.session",  # "format must be …" said nothing of what the file is
        "a gemmviz session, not an exercise check record: open it with File ▸ Open or gemmviz export",
    )
    need(data.get("format") == FORMAT, f"not a gemmviz exercise check (format must be '{FORMAT}')")
    need(
        type(data.get("version")) is int and data.get("version") == VERSION,
        f"check version {str(data.get('version'))[:20]}; this gemmviz reads {VERSION}",
    )
    source = data.get("source")
    record = CHECK(data, "check")
    if record.get("source_sha256") is not None and isinstance(source, str):  # the text as written, not as shown
        digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
        need(
            record["source_sha256"].lower() == digest,
            "'check.source_sha256' is not the SHA-256 of 'check.source': the source was changed after the check",
        )
    known = list(exercises) if exercises is not None else [e.name for e in _shipped()]
    need(
        record["exercise"] in known,
        f"'check.exercise' is {shown(record['exercise'])}, which is not an exercise here; known: {', '.join(known)}",
    )
    consistent(record)
    access_trace(record)
    return finish(record)


def _shipped() -> list[Any]:
    from gemmviz.core.exercise.exercises import shipped_exercises

    return list(shipped_exercises())


def load_check(path: str | Path, exercises: Iterable[str] | None = None) -> dict[str, Any]:
    """The check record in `path`, validated (validate_check); CheckFileError, in one line naming the file and
    the field, otherwise."""
    try:
        raw = read_regular(path, MAX_CHECK_BYTES)
    except (OSError, InputFileError) as exc:
        why = str(exc).removeprefix("cannot read: ")  # said once: "cannot read X: No such file or directory"
        raise CheckFileError(f"cannot read {path}: {why}") from None
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark (Notepad writes one) is not text
        data = parse_json(text)
    except InputFileError as exc:
        raise CheckFileError(f"cannot read {path}: {exc}") from None
    except RecursionError:
        raise CheckFileError(f"cannot read {path}: nested too deeply for a check record") from None
    except UnicodeDecodeError as exc:
        raise CheckFileError(f"cannot read {path}: not UTF-8 text (byte {exc.start:,})") from None
    except ValueError as exc:  # JSON errors, and an integer past Python's digit limit
        if "integer string conversion" in str(exc):
            raise CheckFileError(f"cannot read {path}: a number with thousands of digits") from None
        raise CheckFileError(f"cannot read {path}: not JSON ({exc})") from None
    try:
        return validate_check(data, exercises)
    except CheckFileError as exc:
        raise CheckFileError(f"{path} is not a check record gemmviz can show: {exc}") from None


def record_target(source: Path, out: Path | None = None) -> Path:
    """Where a check's record is written: `out`, else FILE.check.json beside the .cu (OutputError otherwise).
    Never the student's source (a link named .json that points at it), and the default is never written
    through a link."""
    target = source.with_suffix(".check.json") if out is None else out
    if out is None and target.is_symlink():
        raise OutputError(f"{target} is a symbolic link: remove it, or give --out")
    checked = check_target(target, (".json",))
    if os.path.realpath(checked) == os.path.realpath(source):
        raise OutputError(f"{target} is your kernel {source.name} (through a link): the record needs a file of its own")
    return checked
