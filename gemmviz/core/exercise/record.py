"""The check record, a JSON file `gemmviz exercise check` writes and the app opens: its schema (every field
typed and bounded, unknown fields dropped), its loader, where it is written, and its text report. The verdicts
and the cause are worked out by core/exercise/check.py, again on every load. Pure Python."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Iterable
from pathlib import Path

from gemmviz.core.exercise.check import (
    ALL_GOALS,
    MAX_FINDINGS,
    MAX_MESSAGE,
    MEMORY_KINDS,
    NOTE_KINDS,
    RACE_KINDS,
    SANITIZER_TOOLS,
    cause_lines,
    counter_ratio,
    finish,
    printable,
    shape_text,
    source_line,
)
from gemmviz.core.fileio import FileFormatError, InputFileError, OutputError, check_nesting, check_target, read_regular
from gemmviz.core.messages import define, msg, render, valid
from gemmviz.core.numbers import duration, rate
from gemmviz.core.text import printable as one_line

FORMAT = "gemmviz-exercise-check"
VERSION = 1
MAX_CHECK_BYTES = 4 * 1024 * 1024
MAX_SOURCE_CHARS = 256 * 1024


class CheckFileError(FileFormatError):
    """A check record that cannot be shown: the message says which field."""


# --- the record file ----------------------------------------------------------------------------------------


def _need(cond: bool, what: str) -> None:
    if not cond:
        raise CheckFileError(what)


# Every field of a check record the report and the tab read, with its type and bounds. A checker takes
# (value, where) and returns the value to keep; objects keep only their known keys, so nothing unchecked reaches
# the views.


# terminal controls (ESC, BEL, backspace, ...) and bidi overrides: refused in a record's texts, which a terminal
# prints; tab and newline are text. A long text copied from elsewhere (the source, a tool's log, a command) may
# hold them too (a form feed in C, a carriage return of Windows): there they are shown as '?' (printable)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _text(limit: int = MAX_MESSAGE, optional: bool = False, copied: bool = False):
    def check(v, where):
        if v is None and optional:
            return None
        _need(isinstance(v, str) and len(v) <= limit, f"'{where}' must be a text of at most {limit:,} characters")
        if copied:
            return printable(v)
        bad = _CONTROL.search(v)
        _need(
            bad is None,
            f"'{where}' holds a control character (U+{ord(bad.group()):04X}) that a text never has" if bad else "",
        )
        return v

    return check


def _date(v, where):
    """An ISO 8601 date and time, as a check writes 'created' (2026-03-01T12:00:00+00:00)."""
    import datetime as _dt

    _need(isinstance(v, str) and 10 <= len(v) <= 64, f"'{where}' must be an ISO 8601 date, got {_shown(v)}")
    try:
        _dt.datetime.fromisoformat(v)
    except ValueError:
        raise CheckFileError(f"'{where}' must be an ISO 8601 date like 2026-03-01T12:00:00, got {_shown(v)}") from None
    return v


def bound_text(n: int) -> str:
    """A bound as a reader takes it in: 2^63 - 1 rather than 9,223,372,036,854,775,807; 65,536 as it is."""
    for power in range(32, 65):
        if n == 2**power - 1:
            return f"2^{power} - 1"
        if n == 2**power:
            return f"2^{power}"
    return f"{n:,}"


def _int(lo: int, hi: int, optional: bool = False):
    def check(v, where):
        if v is None and optional:
            return None
        _need(
            type(v) is int and lo <= v <= hi,
            f"'{where}' must be a whole number from {bound_text(lo)} to {bound_text(hi)}, got {_shown(v)}",
        )
        return v

    return check


def _shown(v) -> str:
    """A wrong value, short, for a one-line message."""
    text = json.dumps(v) if not isinstance(v, str) else repr(v)
    return text if len(text) <= 40 else text[:39] + "…"


def _num(lo: float, hi: float, optional: bool = False):
    def check(v, where):
        if v is None and optional:
            return None
        _need(
            type(v) in (int, float) and math.isfinite(v) and lo <= v <= hi,
            f"'{where}' must be a number from {lo:g} to {hi:g}",
        )
        return v

    return check


def _bool(v, where):
    _need(type(v) is bool, f"'{where}' must be true or false")
    return v


def _one_of(*values):
    def check(v, where):
        _need(v in values, f"'{where}' must be one of {', '.join(map(str, values))}, got {str(v)[:40]!r}")
        return v

    return check


def _list(item, limit: int, exact: int | None = None):
    def check(v, where):
        _need(
            isinstance(v, list) and len(v) <= limit and (exact is None or len(v) == exact),
            f"'{where}' must be a list of {exact if exact is not None else f'at most {limit}'} entries",
        )
        return [item(x, f"{where}[{i}]") for i, x in enumerate(v)]

    return check


def _obj(fields: dict, required: tuple = (), optional: bool = False):
    def check(v, where):
        if v is None and optional:
            return None
        _need(isinstance(v, dict), f"'{where}' must be an object")
        for key in v:  # junk is refused, not dropped: a record with it was not written by gemmviz as it stands
            known = f" (known here: {', '.join(fields)})" if len(fields) <= 8 else ""
            _need(key in fields, f"'{where}.{str(key)[:40]}' is not a field of a check record{known}")
        out = {k: fields[k](x, f"{where}.{k}") for k, x in v.items()}
        for key in required:
            _need(key in v, f"'{where}.{key}' is missing")
        return out

    return check


def _message(v, where):
    """A message key with its parameters (core/messages.py); None where there is none."""
    _need(v is None or valid(v), f"'{where}' must be a known message key with plain parameters")
    return v


def _map(v, where):
    _check_map(v, where)
    return v


def _first_wrong(v, where):
    if v is None:
        return None
    _need(isinstance(v, list) and len(v) == 4, f"'{where}' must be [row, column, got, expected]")
    return [
        _int(0, 2**31)(v[0], where),
        _int(0, 2**31)(v[1], where),
        _num(-1e308, 1e308, True)(v[2], where),
        _num(-1e308, 1e308, True)(v[3], where),
    ]


def _counter_map(v, where):
    _need(isinstance(v, dict) and len(v) <= 64, f"'{where}' must be an object of at most 64 counters")
    return {_text(200)(k, where): _num(0, 1e18)(x, f"{where}.{k}") for k, x in v.items()}


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
        "fixed_tile": lambda v, where: (
            [_one_of("A", "B")(v[0], where), _int(1, 4096)(v[1], where)]
            if isinstance(v, list) and len(v) == 2
            else _need(False, f"'{where}' must be [matrix, width]")
        ),
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
_CHECK = _obj(
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


def validate_check(data: object, exercises: Iterable[str] | None = None) -> dict:
    """A loaded check record with every field bounded; CheckFileError names the first bad one in one line (which
    field, what was expected): an unknown field, a missing one, a wrong type, an exercise that is not one of
    `exercises` (the shipped ones by default), or two fields that contradict each other (results after a failed
    compile, a time for a wrong kernel). Its verdicts and cause are worked out again from what it holds, never
    taken from the file."""
    _need(isinstance(data, dict), "not a JSON object")
    _need(data.get("format") == FORMAT, f"not a gemmviz exercise check (format must be '{FORMAT}')")
    _need(
        type(data.get("version")) is int and data.get("version") == VERSION,
        f"check version {str(data.get('version'))[:20]}; this gemmviz reads {VERSION}",
    )
    source = data.get("source")
    record = _CHECK(data, "check")
    if record.get("source_sha256") is not None and record.get("source") is not None:
        digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
        _need(
            record["source_sha256"].lower() == digest,
            "'check.source_sha256' is not the SHA-256 of 'check.source': the source was changed after the check",
        )
    known = list(exercises) if exercises is not None else [e.name for e in _shipped()]
    _need(
        record["exercise"] in known,
        f"'check.exercise' is {_shown(record['exercise'])}, which is not an exercise here; known: {', '.join(known)}",
    )
    _consistent(record)
    access_trace(record)
    return finish(record)


def _shipped():
    from gemmviz.core.exercise.exercises import shipped_exercises

    return shipped_exercises()


def _consistent(record: dict) -> None:
    """Refuse what no check writes: results of steps that never run after what the record says happened."""
    compiled = record["compile"]
    shapes = record["shapes"]
    ran = [t for t in SANITIZER_TOOLS if ((record.get("sanitizer") or {}).get(t) or {}).get("ran")]
    timed = ((record.get("timing") or {}).get("yours") or {}).get("median_ms") is not None
    counted = bool((record.get("counters") or {}).get("yours"))
    traced = (
        (record.get("accesses") or {}).get("trace") is not None if isinstance(record.get("accesses"), dict) else False
    )
    later = [
        name
        for name, there in (
            ("'check.shapes'", bool(shapes)),
            ("'check.sanitizer'", bool(ran)),
            ("'check.timing'", timed),
            ("'check.counters'", counted),
            ("'check.accesses'", traced),
        )
        if there
    ]
    if not compiled.get("ok", False):
        _need(
            not later,
            f"{later[0] if later else ''} holds results, but 'check.compile.ok' is not true: nothing runs after a failed compile",
        )
    if record.get("no_gpu") and not record.get("emulator"):
        _need(
            not later, f"{later[0] if later else ''} holds results, but 'check.no_gpu' says there was no GPU to run on"
        )
    if record.get("no_gpu"):
        _need(
            not (ran or timed or counted),
            "'check.sanitizer', 'check.timing' or 'check.counters' holds results, "
            "but 'check.no_gpu' says there was no GPU to run on",
        )
    from gemmviz.core.kernels.variants import THRESHOLDS

    loosest = max(THRESHOLDS.values())
    for i, s in enumerate(shapes):  # a size called right has the figures of a right result
        if s["status"] != "ok":
            continue
        where = f"'check.shapes[{i}]' is ok, but"
        rel, margin = s.get("rel_error"), s.get("error_margin")
        _need(rel is None or rel <= loosest, f"{where} its rel_error {rel} is over the loosest threshold {loosest:g}")
        _need(margin is None or margin <= 1, f"{where} its error_margin {margin} is over 1 (outside the bound)")
        _need(not s.get("wrong_elements"), f"{where} it has {s.get('wrong_elements')} wrong elements")
        _need(not s.get("unwritten"), f"{where} it has {s.get('unwritten')} unwritten elements")
    correct = bool(shapes) and all(s["status"] == "ok" for s in shapes)
    if not correct:
        for name, there in (("'check.timing.yours'", timed), ("'check.counters.yours'", counted)):
            _need(
                not there,
                f"{name} holds figures, but 'check.shapes' {'is empty' if not shapes else 'has a wrong size'}: "
                "a kernel that is not right at every size is never timed or profiled",
            )
    _need(
        not (traced and not shapes), "'check.accesses' holds a trace, but 'check.shapes' is empty: the kernel never ran"
    )


def access_trace(record: dict):
    """The recorded accesses of the student's kernel (core/hardware/accesses.AccessTrace), None if the check has none;
    CheckFileError if they are out of bounds."""
    part = record.get("accesses")
    if part is None:
        return None
    _need(isinstance(part, dict), "'accesses' must be an object")
    if part.get("trace") is None:
        _need(isinstance(part.get("note", ""), str), "'accesses.note' must be a text")
        return None
    from gemmviz.core.hardware.accesses import from_json

    try:
        return from_json(part["trace"], "accesses.trace")
    except ValueError as exc:
        raise CheckFileError(f"accesses: {exc}") from None


def _check_map(error_map, where: str = "error_map") -> None:
    if error_map is None:
        return
    _need(isinstance(error_map, dict), f"'{where}': an error map must be an object")
    grid = error_map.get("wrong")
    _need(isinstance(grid, list) and 0 < len(grid) <= 64, f"'{where}': an error map has 1 to 64 rows")
    _need(all(isinstance(r, list) and len(r) >= 1 for r in grid), f"'{where}': an error map's rows are not empty")
    _need(
        all(isinstance(r, list) and len(r) <= 64 and all(type(v) is int and v >= 0 for v in r) for r in grid),
        f"'{where}': an error map's cells must be counts",
    )


def load_check(path: str | Path, exercises: Iterable[str] | None = None) -> dict:
    """The check record in `path`, validated (validate_check); CheckFileError, in one line naming the file and
    the field, otherwise."""
    try:
        raw = read_regular(path, MAX_CHECK_BYTES)
    except (OSError, InputFileError) as exc:
        why = str(exc).removeprefix("cannot read: ")  # said once: "cannot read X: No such file or directory"
        raise CheckFileError(f"cannot read {path}: {why}") from None
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark (Notepad writes one) is not text
        check_nesting(text)  # before the parser, which recurses once per level
        data = json.loads(text)
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


# --- the text report ----------------------------------------------------------------------------------------

MARK = {"pass": "PASS", "fail": "FAIL", "skipped": "skip"}


def report_text(record: dict, lang: str = "en") -> str:
    """The check as the CLI prints it: compile errors, sizes, sanitizer or emulator findings, timing, verdicts,
    and the cause with the source lines it cites. Verdicts and cause in `lang` (from their message keys)."""
    out = [render(msg("report.header", exercise=record["exercise"], file=record["file"]), lang)]
    env = record.get("environment") or {}
    if env.get("gpu"):
        cc = "".join(map(str, env.get("cc", [])))
        out.append(render(msg("report.gpu", gpu=env["gpu"], cc=cc, created=record["created"]), lang))
    emu = record.get("emulator") or {}
    if record.get("no_gpu") and emu:
        out.append(render(msg("emu.by", why=record["no_gpu"]), lang))
    out += _compile_lines(record, lang) + _shape_lines(record, lang) + _sanitizer_lines(record)
    out += _emulator_lines(record, lang) + _timing_lines(record, lang)
    out += [f"  {line}" for line in counter_lines(record)]
    out += [f"  {line}" for line in gap_lines(record, lang)]
    out += [f"  {line}" for line in access_lines(record, lang)]
    out.append("")
    for v in record.get("verdicts") or []:
        detail = render(v["message"], lang) if v.get("message") else v["detail"]
        out.append(f"  {MARK[v['status']]}  {v['goal']:<11} {detail}")
    if emu.get("advice"):
        out += ["", render(msg("report.advice", advice=emu["advice"]), lang)]
    if record.get("cause"):
        text = render(record["cause_message"], lang) if record.get("cause_message") else record["cause"]
        out += ["", render(msg("report.cause", cause=text), lang)]
        for line in cause_lines(record):
            src = source_line(record, line)
            if src:
                out.append(f"  {line:>5} | {src}")
    said = record.get("not_run_messages") or [msg("report.not_run", note=note) for note in record.get("not_run") or []]
    for note in said:
        out.append(render(note, lang))
    # one line per entry: a newline or a terminal code in a record's text is shown, never obeyed (a note
    # cannot print a forged "PASS" line after the verdicts)
    return "\n".join(one_line(line) for line in out)


def _emulator_lines(record: dict, lang: str) -> list[str]:
    out = []
    for text, line in emulator_findings(record, lang):
        out.append("  " + text)
        out += _with_source(record, line)
    calls, _lines = printf_output(record)
    groups = printf_groups(record)
    if calls:
        kept = sum(len(lines) for _shape, _calls, lines in groups)
        out.append("  " + render(msg("report.printf", calls=calls, kept=kept), lang))
        for shape, n, lines in groups:
            if shape is not None:
                out.append("    " + render(msg("report.printf_at", shape=shape, calls=n), lang))
            out += [f"    {line}" for line in lines]
    return out


_FINDING_FIELDS = ("line", "count", "access", "matrix", "other_line", "variable")
PRINTF_SHOWN = 20  # of the kernel's printf lines the record keeps (at most 200), the ones a report shows


def emulator_findings(record: dict, lang: str = "en") -> list[tuple[str, int | None]]:
    """The emulator's findings, each as one sentence in `lang` and the source line it names (None: no line)."""
    out = []
    for f in (record.get("emulator") or {}).get("findings") or []:
        params = {k: v for k, v in f.items() if k not in ("kind", "message")}
        if "access" in params:
            params["access"] = msg(f"access.{params['access']}")
        params.setdefault("other_line", "?")
        params.setdefault("matrix", "?")
        params["variable"] = msg("finding.variable", name=params["variable"]) if params.get("variable") else ""
        text = render(msg(f"finding.{f['kind']}", **{k: params.get(k) for k in _FINDING_FIELDS}), lang)
        out.append((text, f.get("line")))
    return out


def printf_output(record: dict, shown: int = PRINTF_SHOWN) -> tuple[int, list[str]]:
    """How many times the emulated kernel called printf, and the first `shown` lines of what it printed."""
    printf = (record.get("emulator") or {}).get("printf") or {}
    return printf.get("calls") or 0, list(printf.get("lines") or [])[:shown]


def printf_groups(record: dict, shown: int = PRINTF_SHOWN) -> list[tuple[list[int] | None, int, list[str]]]:
    """The kernel's printf output by the size that printed it: (the size, its calls, its first `shown` lines
    kept), in the order the sizes ran. A record without the sizes (written before they were kept): one group
    whose size is None."""
    printf = (record.get("emulator") or {}).get("printf") or {}
    lines = list(printf.get("lines") or [])
    groups = printf.get("shapes")
    if not groups:
        calls, kept = printf_output(record, shown)
        return [(None, calls, kept)] if calls else []
    out, at = [], 0
    for g in groups:
        out.append((list(g["shape"]), g["calls"], lines[at : at + g["lines"]][:shown]))
        at += g["lines"]
    return out


def finding_lines(record: dict) -> list[int]:
    """The source lines the emulator's findings name, in order, each once."""
    lines: list[int] = []
    for f in (record.get("emulator") or {}).get("findings") or []:
        for key in ("line", "other_line"):
            n = f.get(key)
            if isinstance(n, int) and n > 0 and n not in lines:
                lines.append(n)
    return lines


def _per(summary: dict, top: str, bottom: str) -> str:
    n = summary.get(bottom) or 0
    return f"{summary.get(top, 0) / n:.2f}" if n else "—"


COUNTER_ROWS = (
    (
        "global sectors per request",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    ),
    (
        "shared wavefronts per load",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "smsp__inst_executed_op_shared_ld.sum",
    ),
    ("L2 traffic (MB)", "lts__t_bytes.sum", None),
    ("DRAM read (MB)", "dram__bytes_read.sum", None),
    ("warp slots active (%)", "sm__warps_active.avg.pct_of_peak_sustained_active", None),
)


def gap_lines(record: dict, lang: str = "en") -> list[str]:
    """Where the time to the reference goes (core/exercise/gap.py), a sentence per part; none where the check's
    counters cannot tell (the window says why)."""
    from gemmviz.core.exercise.gap import check_gap
    from gemmviz.core.hardware.gap import readable, sentences

    g, _why = check_gap(record)
    return [] if g is None else sentences(readable(g), lang)


def counter_lines(record: dict) -> list[str]:
    """Nsight Compute's key counters, yours beside the reference's: 'name: yours vs reference'."""
    counters = record.get("counters") or {}
    mine, theirs = counters.get("yours") or {}, counters.get("reference") or {}
    if not mine:
        return [f"counters: {counters['note']}"] if counters.get("note") else []
    shape = shape_text(counters.get("shape", []))
    out = [f"Nsight Compute at {shape}, yours vs the reference:"]
    for name, top, bottom in COUNTER_ROWS:
        values = [counter_ratio(c, top, bottom) if bottom else c.get(top) for c in (mine, theirs)]
        if all(v is None for v in values):
            continue
        text = [rate(v / 1e6 if "MB" in name else v) for v in values]
        out.append(f"  {name}: {text[0]} vs {text[1]}")
    return out


def access_lines(record: dict, lang: str = "en") -> list[str]:
    """What the access tracer recorded (or the emulator, without a GPU): per block, the requests and their
    average sectors / wavefronts, in `lang`; an emulated check's figures beside the reference kernel's,
    emulated on the same blocks, once per block."""
    part = record.get("accesses") or {}
    if part.get("note"):
        return [render(msg("report.accesses_note", note=part["note"]), lang)]
    trace = access_trace(record) if part else None
    ref = ((record.get("emulator") or {}).get("reference") or {}) if record.get("no_gpu") else {}
    if trace is None:
        return [render(msg("report.accesses_note", note=ref["note"]), lang)] if ref.get("note") else []
    theirs = list(ref.get("summary") or [])
    blocks = [str(b) for b in trace.blocks]
    emulated = record.get("no_gpu") and record.get("emulator")
    if theirs:
        head = msg(
            "report.emulated_accesses", shape=part.get("shape", []), blocks=blocks, reference=ref.get("variant", "")
        )
    else:
        key = "report.accesses_emulated" if emulated else "report.accesses_recorded"
        head = msg(key, shape=part.get("shape", []), blocks=blocks)
    out = [render(head, lang)]
    for i, (slot, summary) in enumerate(zip(trace.blocks, trace.summary)):
        other = theirs[i] if i < len(theirs) else None
        per = []
        for space, unit in (("global", "sectors"), ("shared", "wavefronts")):
            for op in ("ld", "st"):
                top, bottom = f"{space}_{op}_{unit}", f"{space}_{op}_requests"
                if not summary.get(bottom, 0):
                    continue
                part_msg = msg(f"report.{space}_{op}", x=_per(summary, top, bottom))
                if other is not None:
                    part_msg = msg("report.vs", mine=part_msg, theirs=_per(other, top, bottom))
                per.append(part_msg)
        figures = msg("report.per_block", parts=per) if per else msg("report.no_requests")
        out.append("  " + render(msg("report.block", block=str(slot), figures=figures), lang))
    from gemmviz.core.hardware.accesses import sees_messages, what_it_sees

    seen = what_it_sees(trace, lang) if sees_messages(trace) else trace.sees  # a file's own sentence, else ours
    if seen:
        out.append(f"  {seen}")
    return out


def _with_source(record: dict, line: int | None) -> list[str]:
    src = source_line(record, line)
    return [f"          | {src}"] if src else []


def _compile_lines(record: dict, lang: str = "en") -> list[str]:
    out = []
    diagnostics = (record.get("compile") or {}).get("diagnostics", [])
    warnings = [d for d in diagnostics if d["severity"] != "error"]
    if warnings:
        first = warnings[0]
        where = str(first.get("line") or "?")
        said = msg("report.nvcc_warnings", n=len(warnings), line=where, message=first["message"])
        out.append("  " + render(said, lang))
    for d in [d for d in diagnostics if d["severity"] == "error"][:10]:
        at = f"line {d['line']}" if d.get("line") else "nvcc"
        out.append(f"  {d['severity']:<7} {at}: {d['message']}")
        out += _with_source(record, d.get("line"))
    return out


def _shape_lines(record: dict, lang: str = "en") -> list[str]:
    out = []
    for s in record.get("shapes") or []:
        state = render(f"report.shape.{s['status']}", lang)
        extra = (
            render(s["reason_message"], lang) if s.get("reason_message") else s.get("reason") or s.get("error") or ""
        )
        out.append(f"  {shape_text(s['shape']):>16}  {state}  {extra}".rstrip())
    return out + error_map_lines(record, lang)


def error_map_lines(record: dict, lang: str = "en") -> list[str]:
    """Where C is wrong at the largest wrong size, as text: one character per cell of the error map (█ wrong,
    · right), under a line that says the size and the cell."""
    mapped = [s for s in record.get("shapes") or [] if s.get("error_map") and s.get("status") == "wrong"]
    if not mapped:
        return []
    s = max(mapped, key=lambda s: s["shape"][0] * s["shape"][1])
    rows, cols = s["error_map"].get("cell") or [1, 1]
    head = render(msg("report.error_map", shape=s["shape"], rows=rows, cols=cols), lang)
    grid = ["".join("█" if x else "·" for x in row) for row in s["error_map"]["wrong"]]
    return [f"  {head}", *[f"    {row}" for row in grid]]


def _sanitizer_lines(record: dict) -> list[str]:
    out = []
    for tool in SANITIZER_TOOLS:
        part = (record.get("sanitizer") or {}).get(tool) or {}
        if not part.get("ran"):
            continue
        found = part.get("findings") or []
        out.append(f"  {tool}: {'clean' if not found else f'{len(found)} problem(s) found'}")
        for f in found[:5]:
            out.append(f"    line {f.get('line') or '?'}: {f['message']} (×{f.get('count', 1)})")
            out += _with_source(record, f.get("line"))
    return out


def _timing_lines(record: dict, lang: str = "en") -> list[str]:
    out = []
    timing = record.get("timing") or {}
    for who in ("yours", "reference", "cublas"):
        part = timing.get(who) or {}
        if part.get("median_ms"):
            out.append(f"  {who:<9} {duration(part['median_ms']):>10}  {part.get('series', '')}".rstrip())
    recorded = record.get("recorded_reference")
    if recorded:
        said = msg("report.recorded", gpu=recorded["gpu"], session=recorded["session"], day=recorded["created"][:10])
        out.append("  " + render(said, lang))
        for row in recorded["rows"]:
            if row["size"][0] in (1024, 2048, 4096):
                out.append(f"    {row['series']:<24} {shape_text(row['size']):>16} {duration(row['median_ms']):>10}")
    return out


# the report's own lines (the verdicts, causes and findings have theirs in core/messages.py)
define("report.header", en="exercise {exercise}: {file}", zh="练习 {exercise}：{file}")
define("report.gpu", en="GPU {gpu} (sm_{cc}), {created}", zh="GPU {gpu}（sm_{cc}），{created}")
define("report.not_run", en="not run: {note}", zh="未运行：{note}")
define(
    "report.emulated_pass",
    en="Every goal the CPU emulator judges passed (ran on: {ran_on}); speed is measured only on a GPU: run "
    "gemmviz exercise check on a GPU machine, then open the check file it writes here.",
    zh="CPU 模拟器判定的每个目标都通过了（运行于：{ran_on}）；速度只能在 GPU 上测量：请在有 GPU 的机器上运行 "
    "gemmviz exercise check，再在这里打开它写出的检查文件。",
)
define(
    "report.not_finished_map",
    en="C: not judged at {shape} (the kernel did not finish there)",
    zh="C：在 {shape} 上未判定（核函数在那里没有结束）",
)
define("report.nvcc_warning", en="nvcc warning, line {line}: {message}", zh="nvcc 警告，第 {line} 行：{message}")
define(
    "report.error_map",
    en="where C is wrong at {shape} (rows down, columns across; a cell is {rows}×{cols} elements; █ wrong, · right):",
    zh="{shape} 上 C 出错的位置（行向下，列向右；每格 {rows}×{cols} 个元素；█ 错误，· 正确）：",
)
define(
    "report.not_run_gpu",
    en="not run: timing, compute-sanitizer and Nsight Compute's counters need a CUDA GPU ({why}); run `{command}` on "
    "a GPU machine, then open the check file it writes in the app",
    zh="未运行：计时、compute-sanitizer 和 Nsight Compute 计数器需要 CUDA GPU（{why}）；请在有 GPU 的机器上运行 "
    "`{command}`，再在应用中打开它写出的检查文件",
)
define("report.shape.ok", en="right", zh="正确")
define(
    "report.shape.order",
    en="C depends on the order the warps run in (emulated: one warp at a time)",
    zh="C 取决于线程束运行的顺序（模拟时：一次一个线程束）",
)
define("report.shape.wrong", en="WRONG", zh="错误")
define("report.shape.timeout", en="TIMED OUT", zh="超时")
define("report.shape.launch-error", en="CRASHED", zh="崩溃")
define(
    "report.nvcc_warnings",
    en="nvcc: {n} warning(s), first at line {line}: {message}",
    zh="nvcc：{n} 个警告，第一个在第 {line} 行：{message}",
)
define(
    "report.recorded",
    en="recorded on {gpu} ({session}, {day}), not on this machine:",
    zh="录制于 {gpu}（{session}，{day}），不是在本机：",
)
define("report.accesses_note", en="accesses: {note}", zh="访存：{note}")
define(
    "report.accesses_emulated",
    en="accesses emulated on the CPU at {shape}, blocks {blocks}:",
    zh="在 CPU 上以 {shape} 模拟的访存，线程块 {blocks}：",
)
define(
    "report.accesses_recorded",
    en="accesses recorded at {shape}, blocks {blocks}:",
    zh="以 {shape} 录制的访存，线程块 {blocks}：",
)
define("report.global_ld", en="global loads {x} sectors/request", zh="全局加载每请求 {x} 个扇区")
define("report.global_st", en="global stores {x} sectors/request", zh="全局写入每请求 {x} 个扇区")
define("report.shared_ld", en="shared loads {x} wavefronts/request", zh="共享内存加载每请求 {x} 个波前")
define("report.shared_st", en="shared stores {x} wavefronts/request", zh="共享内存写入每请求 {x} 个波前")
define("report.vs", en="{mine} (reference {theirs})", zh="{mine}（参考 {theirs}）")
define("report.per_block", en="{parts:semi}", zh="{parts:semi}")
define("report.no_requests", en="no per-thread memory requests", zh="没有逐线程的访存请求")
define("report.block", en="block {block}: {figures}", zh="线程块 {block}：{figures}")
