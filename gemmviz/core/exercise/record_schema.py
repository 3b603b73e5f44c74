"""The fields of a check record (core/exercise/record.py), each typed and bounded: core/schema.py's checks in a
check record's words (`'check.shapes[0].seconds' must be a number from 0 to 1e+06`). Objects keep only their
known fields, so nothing unchecked reaches the report or the tab. Pure Python."""

from __future__ import annotations

import datetime
from typing import Any

from gemmviz.core.exercise.check import (
    ALL_GOALS,
    MAX_FINDINGS,
    MAX_MESSAGE,
    MEMORY_KINDS,
    NOTE_KINDS,
    RACE_KINDS,
    SANITIZER_TOOLS,
)
from gemmviz.core.fileio import FileFormatError
from gemmviz.core.messages import valid
from gemmviz.core.schema import Check, Schema, Wording, bound_text, shown

MAX_SOURCE_CHARS = 256 * 1024
__all__ = ["CHECK", "RECORD", "CheckFileError", "access_trace", "bound_text", "need"]


class CheckFileError(FileFormatError):
    """A check record that cannot be shown: the message says which field."""


def need(cond: bool, what: str) -> None:
    """Refuse the record, saying `what` (a whole sentence), unless `cond` holds."""
    if not cond:
        raise CheckFileError(what)


_NUMBER = "must be a number from {lo:g} to {hi:g}"
_WHOLE = "must be a whole number from {lo_text} to {hi_text}, got {got}"
_TEXT = "must be a text of at most {limit:,} characters"
_LIST = "must be a list of {count} entries"
# a check record's words: one sentence per kind of value, whatever is wrong with it
RECORD = Schema(
    lambda where, message: CheckFileError(message),
    Wording(
        at="'{where}' {what}",
        whole=_WHOLE,
        whole_range=_WHOLE,
        whole_below=_WHOLE,
        number=_NUMBER,
        finite=_NUMBER,
        number_below=_NUMBER,
        number_above=_NUMBER,
        number_over=_NUMBER,
        boolean="must be true or false",
        text=_TEXT,
        text_long=_TEXT,
        one_of="must be one of {values}, got {raw!r}",
        sequence=_LIST,
        sequence_long=_LIST,
        sequence_exact=_LIST,
        mapping="must be an object",
        unknown="is not a field of a check record{known}",
        missing="is missing",
        shown=shown,
    ),
)


def _text(limit: int = MAX_MESSAGE, optional: bool = False, copied: bool = False) -> Check[Any]:
    """A text of at most `limit` characters. Terminal controls (ESC, BEL, backspace, ...) and bidi overrides are
    refused in a record's texts, which a terminal prints; tab and newline are text. A long text copied from
    elsewhere (`copied`: the source, a tool's log, a command) may hold them too (a form feed in C, a carriage
    return of Windows): there they are shown as escapes."""
    check = RECORD.text(limit, "show" if copied else "refuse")
    return RECORD.optional(check) if optional else check


def _int(lo: int, hi: int, optional: bool = False) -> Check[Any]:
    check = RECORD.whole(lo, hi)
    return RECORD.optional(check) if optional else check


def _num(lo: float, hi: float, optional: bool = False) -> Check[Any]:
    check = RECORD.number(lo, hi)
    return RECORD.optional(check) if optional else check


_bool = RECORD.boolean
_one_of = RECORD.one_of
_list = RECORD.list_of


def _obj(fields: dict[str, Check[Any]], required: tuple[str, ...] = (), optional: bool = False) -> Check[Any]:
    """An object of these fields; junk is refused, not dropped: a record with it was not written by gemmviz as
    it stands."""
    check = RECORD.fields(fields, required)
    return RECORD.optional(check) if optional else check


def _date(v: object, where: str) -> str:
    """An ISO 8601 date and time, as a check writes 'created' (2026-03-01T12:00:00+00:00)."""
    need(isinstance(v, str) and 10 <= len(v) <= 64, f"'{where}' must be an ISO 8601 date, got {shown(v)}")
    assert isinstance(v, str)
    try:
        datetime.datetime.fromisoformat(v)
    except ValueError:
        raise CheckFileError(f"'{where}' must be an ISO 8601 date like 2026-03-01T12:00:00, got {shown(v)}") from None
    return v


def _message(v: object, where: str) -> object:
    """A message key with its parameters (core/messages.py); None where there is none."""
    need(v is None or valid(v), f"'{where}' must be a known message key with plain parameters")
    return v


def _map(v: object, where: str) -> object:
    _check_map(v, where)
    return v


def _first_wrong(v: object, where: str) -> list[Any] | None:
    if v is None:
        return None
    need(isinstance(v, list) and len(v) == 4, f"'{where}' must be [row, column, got, expected]")
    assert isinstance(v, list)
    return [
        _int(0, 2**31)(v[0], where),
        _int(0, 2**31)(v[1], where),
        _num(-1e308, 1e308, True)(v[2], where),
        _num(-1e308, 1e308, True)(v[3], where),
    ]


def _counter_map(v: object, where: str) -> dict[str, float]:
    need(isinstance(v, dict) and len(v) <= 64, f"'{where}' must be an object of at most 64 counters")
    assert isinstance(v, dict)
    return {_text(200)(k, where): _num(0, 1e18)(x, f"{where}.{k}") for k, x in v.items()}


def _fixed_tile(v: object, where: str) -> list[Any]:
    need(isinstance(v, list) and len(v) == 2, f"'{where}' must be [matrix, width]")
    assert isinstance(v, list)
    return [_one_of("A", "B")(v[0], where), _int(1, 4096)(v[1], where)]


# Every field of a check record the report and the tab read, with its type and bounds.
_LINE = _int(1, 10**6, optional=True)
_DIMS = _list(_int(1, 65536), 3, exact=3)
_BLOCK = _list(_int(0, 65536), 3, exact=3)
_FINDING = _obj(
    {
        "tool": _text(20),
        "kind": _text(80),
        "line": _LINE,
        "other_line": _LINE,
        "message": _text(),
        "count": _int(0, 10**12),
        "threads": _list(_list(_int(0, 2**31), 6, 6), 4),
    },
    ("kind", "message"),
)
_TOOL = _obj(
    {
        "ran": _bool,
        "findings": _list(_FINDING, MAX_FINDINGS),
        "errors": _int(0, 10**12, True),
        "log": _text(20_000, copied=True),
        "note": _text(),
    }
)
_PATTERN = _obj(
    {
        "rows": _list(_int(0, 65536), 2, 2),
        "cols": _list(_int(0, 65536), 2, 2),
        "only_edge_blocks": _bool,
        "last_block_row": _int(0, 65536),
        "last_block_col": _int(0, 65536),
        "only_last_row": _bool,
        "only_last_col": _bool,
        "fraction": _num(0, 1),
        "unwritten": _int(0, 2**32),
    }
)
_FACTS = _obj(
    {
        "written": _one_of("all", "none", "column 0", "row 0", "some"),
        "zeros": _bool,
        "whole_numbers": _bool,
        "wrong_cols_every": _list(_int(0, 4096), 2, 2),
        "wrong_rows_every": _list(_int(0, 4096), 2, 2),
        "transposed_blocks": _int(2, 4096),
        "k_counts": _list(_list(_int(0, 2**20), 3, 3), 24),
        "k_every": _list(_int(0, 2**20), 3, 3),
        "written_box": _list(_int(0, 65536), 4, 4),
        "written_first": _int(0, 2**32),
        "written_diagonal": _bool,
        "affine": _list(_num(-1e30, 1e30), 2, 2),
        "fixed_tile": _fixed_tile,
    }
)
_SHAPE = _obj(
    {
        "shape": _DIMS,
        "status": _one_of("ok", "wrong", "timeout", "launch-error"),
        "seconds": _num(0, 1e6),
        "deterministic": _bool,
        "rel_error": _num(0, 1e308, True),
        "unwritten": _int(0, 2**32, True),
        "wrong_elements": _int(0, 2**32, True),
        "first_wrong": _first_wrong,
        "error_margin": _num(0, 1e308, True),
        "error_map": _map,
        "reason": _text(optional=True),
        "reason_message": _message,  # the reason as a message, where the checker has one (rendered per language)
        "error": _text(optional=True),
        "timeout_s": _num(0, 3600, True),
        "pattern": _PATTERN,
        "equals": _text(20, optional=True),
        "k_used": _int(0, 2**32, True),
        "k_shift": _int(-(2**32), 2**32, True),
        "budget_steps": _int(0, 2**62),
        "instructions": _int(0, 2**62),  # the emulator's: run before it was stopped
        "ratio": _num(0, 1e12),  # those over what the reference needs at this size
        "endless": _bool,  # stopped in a loop that made no progress
        "line": _LINE,
        "facts": _FACTS,  # what the wrong C is made of (core/exercise/diagnose.py)
    },
    ("shape", "status"),
)
_TIMED = _obj(
    {
        "series": _text(200),
        "status": _text(20),
        "median_ms": _num(1e-6, 1e7, True),
        "noise": _num(0, 100, True),
        "samples": _int(0, 10**6),
        "clock_mhz": _num(0, 1e5, True),
        "reason": _text(optional=True),
    }
)
_RECORDED_ROW = _obj(
    {"series": _text(200), "size": _DIMS, "median_ms": _num(1e-6, 1e9), "gflops": _num(0, 1e9, True)},
    ("series", "size", "median_ms"),
)


_EMU_FINDING = _obj(
    {
        "kind": _one_of(*MEMORY_KINDS, *RACE_KINDS, *NOTE_KINDS, "budget", "endless", "trap"),
        "line": _LINE,
        "other_line": _LINE,
        "count": _int(0, 10**12),
        "access": _one_of("read", "write"),
        "matrix": _text(40),
        "variable": _text(100),  # a value used before it is set: the variable's name, where the line names one
        "message": _message,
    },
    ("kind",),
)
_EMULATOR = _obj(
    {
        "by": _text(200),
        "shapes": _list(_DIMS, 16),
        "findings": _list(_EMU_FINDING, MAX_FINDINGS),
        "refused": _message,
        "experiments": _obj(
            {
                "zeroed": _one_of("right", "wrong"),
                "fresh_module": _one_of("right", "wrong"),
                "square": _one_of("right", "wrong"),
                "rectangle": _one_of("right", "wrong"),
                "odd": _one_of("right", "wrong"),
                "square_shape": _DIMS,
                "rectangle_shape": _DIMS,
                "odd_shape": _DIMS,
                "other_schedule": _one_of("same", "differs"),
                "printf_off": _one_of("finished", "endless"),
                "printf_calls": _int(0, 2**62),
                "transposed": _one_of("A", "B"),
                "transposed_line": _LINE,
                "one_k": _one_of("right", "wrong"),
                "multi_k": _one_of("right", "wrong"),
                "one_k_shape": _DIMS,
                "multi_k_shape": _DIMS,
                "multi_k_facts": _FACTS,
                "k_square": _one_of("right", "wrong"),
                "gather_A": _list(_one_of("r", "c", "r@c", "c@r"), 2, 2),
                "gather_B": _list(_one_of("r", "c", "r@c", "c@r"), 2, 2),
                "k_square_shape": _DIMS,
            }
        ),
        "printf": _obj(
            {
                "calls": _int(0, 2**62),
                "lines": _list(_text(600, copied=True), 200),
                # which size printed them: `lines` is these sizes' kept lines, in this order
                "shapes": _list(_obj({"shape": _DIMS, "calls": _int(0, 2**62), "lines": _int(0, 200)}), 16),
            }
        ),
        "reference": _obj(
            {"variant": _text(100), "note": _text(), "summary": _list(_counter_map, 4), "blocks": _list(_BLOCK, 4)}
        ),
        "instructions": _int(0, 2**62),
        "seconds": _num(0, 1e6),
        "advice": _message,
    }
)
CHECK = _obj(
    {
        "format": _text(40),
        "version": _int(0, 99),
        "exercise": _text(100),
        "file": _text(4096, copied=True),  # a path: any character a file name may hold, shown as '?'
        "created": _date,
        "source": _text(MAX_SOURCE_CHARS, copied=True),
        "source_sha256": _text(64),
        "gemmviz": _text(40),
        "speed_goal": _num(0.01, 4),
        "reference": _text(100),
        "seed": _int(0, 2**63 - 1, True),
        "shapes": _list(_SHAPE, 32),
        "sanitizer": _obj({"shape": _DIMS, "note": _text(), **{t: _TOOL for t in SANITIZER_TOOLS}}),
        "timing": _obj(
            {
                "shape": _DIMS,
                "method": _text(200),
                "note": _text(),
                "yours": _TIMED,
                "reference": _TIMED,
                "cublas": _TIMED,
            }
        ),
        "counters": _obj({"shape": _DIMS, "note": _text(), "yours": _counter_map, "reference": _counter_map}),
        "not_run": _list(_text(), 10),
        "not_run_messages": _list(_message, 10),  # the same notes as messages, in every language
        "compile": _obj(
            {
                "ok": _bool,
                "arch": _text(20),
                "cubin": _text(4096, True),
                "log": _text(8000, copied=True),
                "error": _text(),
                "command": _text(8000, copied=True),
                "diagnostics": _list(
                    _obj(
                        {"line": _LINE, "severity": _one_of("error", "warning"), "message": _text()},
                        ("severity", "message"),
                    ),
                    MAX_FINDINGS,
                ),
            }
        ),
        "environment": _obj({"gpu": _text(200), "cc": _list(_int(0, 99), 2, 2)}),
        "no_gpu": _text(optional=True),
        "run_error": _text(optional=True),
        "recorded_reference": _obj(
            {"session": _text(200), "gpu": _text(200), "created": _date, "rows": _list(_RECORDED_ROW, 200)},
            ("session", "gpu", "created", "rows"),
            True,
        ),
        # the trace is bounded by the access records' own loader (access_trace, below)
        "accesses": _obj({"shape": _DIMS, "note": _text(), "trace": lambda v, where: v}),
        "check_seconds": _num(0, 1e6),
        # what the check concluded when it was written: typed here, then worked out again (finish, below)
        "verdicts": _list(
            _obj(
                {
                    "goal": _one_of(*ALL_GOALS),
                    "status": _one_of("pass", "fail", "skipped"),
                    "detail": _text(),
                    "message": _message,
                },
                ("goal", "status", "detail"),
            ),
            len(ALL_GOALS),
        ),
        "cause": _text(optional=True),
        "cause_message": _message,
        "emulator": _EMULATOR,
    },
    # every check writes these (backends/exercise.py): the goals are judged from them
    ("format", "version", "exercise", "file", "created", "speed_goal", "reference", "compile", "shapes"),
)


def access_trace(record: dict[str, Any]) -> Any:
    """The recorded accesses of the student's kernel (core/hardware/accesses.AccessTrace), None if the check has none;
    CheckFileError if they are out of bounds."""
    part = record.get("accesses")
    if part is None:
        return None
    if not isinstance(part, dict):
        raise CheckFileError("'accesses' must be an object")
    if part.get("trace") is None:
        need(isinstance(part.get("note", ""), str), "'accesses.note' must be a text")
        return None
    from gemmviz.core.hardware.accesses import from_json

    try:
        return from_json(part["trace"], "accesses.trace")
    except ValueError as exc:
        raise CheckFileError(f"accesses: {exc}") from None


def _check_map(error_map: object, where: str = "error_map") -> None:
    if error_map is None:
        return
    if not isinstance(error_map, dict):
        raise CheckFileError(f"'{where}': an error map must be an object")
    grid = error_map.get("wrong")
    if not (isinstance(grid, list) and 0 < len(grid) <= 64):
        raise CheckFileError(f"'{where}': an error map has 1 to 64 rows")
    need(all(isinstance(r, list) and len(r) >= 1 for r in grid), f"'{where}': an error map's rows are not empty")
    need(
        all(isinstance(r, list) and len(r) <= 64 and all(type(v) is int and v >= 0 for v in r) for r in grid),
        f"'{where}': an error map's cells must be counts",
    )
