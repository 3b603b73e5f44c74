"""What `gemmviz exercise check` found, as data: nvcc's and compute-sanitizer's messages parsed, a verdict per
goal, one sentence on the likeliest cause of a failure, the check record (a JSON file the app opens) and its
text report. Pure Python: the GPU work is in backends/exercise.py and its child process."""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

from gemmviz.core.fileio import InputFileError, OutputError, check_target, read_regular
from gemmviz.core.numbers import duration, rate

FORMAT = "gemmviz-exercise-check"
VERSION = 1
MAX_CHECK_BYTES = 4 * 1024 * 1024
MAX_FINDINGS = 50
MAX_SOURCE_CHARS = 256 * 1024
MAX_MESSAGE = 2000
GOALS = ("compiles", "correct", "race-free", "speed")
STATUSES = ("pass", "fail", "skipped")
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck")


class CheckFileError(ValueError):
    """A check record that cannot be shown: the message says which field."""


# --- nvcc ---------------------------------------------------------------------------------------------------

_NVCC_LINE = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): (?P<severity>error|warning)(?: #[\w-]+)?: (?P<msg>.*)$")
# the host compiler's and the preprocessor's form (#error, a missing #include): file:line:column: error: ...
_GCC_LINE = re.compile(
    r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?:\d+:)? (?:fatal )?(?P<severity>error|warning): (?P<msg>.*)$"
)


def diagnostic_log(log: str) -> str:
    """nvcc's log with only its message lines: the source lines it echoes under a message are dropped, so an
    #include of a file outside the exercise (/etc/passwd) never puts that file's text in the record."""
    keep = [ln for ln in log.splitlines() if _NVCC_LINE.match(ln.strip()) or _GCC_LINE.match(ln.strip())
            or re.search(r"\berrors? detected\b", ln)]  # fmt: skip
    return "\n".join(keep)


def parse_nvcc(log: str, source_name: str) -> list[dict]:
    """nvcc's diagnostics for the student's file: [{"line", "severity", "message"}], the file's own lines
    first (a message from an included header keeps line None and names the header)."""
    found = []
    for raw in log.splitlines():
        match = _NVCC_LINE.match(raw.strip()) or _GCC_LINE.match(raw.strip())
        if not match:
            continue
        mine = Path(match["file"]).name == Path(source_name).name
        found.append({"line": int(match["line"]) if mine else None, "severity": match["severity"],
                      "message": match["msg"].strip() if mine else f"{match['file']}: {match['msg'].strip()}"})  # fmt: skip
        if len(found) >= MAX_FINDINGS:
            break
    if not found and log.strip():
        first = next((ln.strip() for ln in log.splitlines() if "error" in ln.lower()), log.strip().splitlines()[0])
        found.append({"line": None, "severity": "error", "message": first[:MAX_MESSAGE]})
    return found


# --- compute-sanitizer --------------------------------------------------------------------------------------

_AT = re.compile(r"\bat (?:0x[0-9a-f]+ in )?(?P<func>[\w$]+)?(?:\+0x[0-9a-f]+)?\s*in (?P<file>[^\s:]+):(?P<line>\d+)")
_RACE = re.compile(
    r"(?:Error|Warning|ERROR|WARNING)?:?\s*Race reported between (?P<first>\w+) access at .*?in (?P<f1>[^\s:]+):(?P<l1>\d+)"
    r"\s+and (?P<second>\w+) access at .*?in (?P<f2>[^\s:]+):(?P<l2>\d+)(?:\s*\[(?P<count>\d+) hazards?\])?",
    re.S,
)
_HAZARD = re.compile(
    r"Potential (?P<kind>WAR|RAW|WAW) hazard detected at __shared__.*?\n\s*(?P<first>\w+) Thread .*?in (?P<f1>[^\s:]+):(?P<l1>\d+)"
    r".*?\n\s*(?P<second>\w+) Thread .*?in (?P<f2>[^\s:]+):(?P<l2>\d+)"
)
_HAZARD_KINDS = {"WAR": "write-after-read", "RAW": "read-after-write", "WAW": "write-after-write"}
_SUMMARY = re.compile(r"(?:ERROR|RACECHECK|SYNCCHECK|LEAK)? ?SUMMARY: (\d+) (error|hazard)s?", re.I)


def _strip(text: str) -> list[str]:
    return [re.sub(r"^=+\s?", "", line).rstrip() for line in text.splitlines()]


def _line_of(block: list[str], source_name: str) -> int | None:
    for line in block:
        match = _AT.search(line)
        if match and Path(match["file"]).name == Path(source_name).name:
            return int(match["line"])
    return None


def parse_sanitizer(tool: str, text: str, source_name: str) -> list[dict]:
    """compute-sanitizer's findings: [{"tool", "kind", "line", "message", "count", "threads"}]: memcheck's
    invalid accesses, racecheck's hazards (kind "write-after-read", "read-after-write", "write-after-write"),
    synccheck's barrier errors. Findings at the same line and kind are merged, with a count."""
    lines = _strip(text)
    findings: dict[tuple, dict] = {}
    if tool == "racecheck":
        joined = "\n".join(lines)
        for match in _RACE.finditer(joined):
            if Path(match["f1"]).name != Path(source_name).name:
                continue
            kind = f"{match['second'].lower()}-after-{match['first'].lower()}"
            line1, line2 = int(match["l1"]), int(match["l2"])
            key = (kind, line1, line2)
            count = int(match["count"] or 1)
            item = findings.setdefault(key, {"tool": tool, "kind": kind, "line": line2, "other_line": line1,
                                             "message": f"shared {kind} hazard: {match['first']} at line {line1}, "
                                             f"{match['second']} at line {line2}", "count": 0})  # fmt: skip
            item["count"] += count
        if not findings:  # --racecheck-report hazard: one block per hazard
            for match in _HAZARD.finditer(joined):
                if Path(match["f1"]).name != Path(source_name).name:
                    continue
                kind = _HAZARD_KINDS[match["kind"]]
                lines_ = sorted({int(match["l1"]), int(match["l2"])})
                key = (kind, *lines_)
                item = findings.setdefault(key, {"tool": tool, "kind": kind, "line": lines_[-1], "other_line": lines_[0],
                                                 "message": f"shared {kind} hazard between lines {lines_[0]} and "
                                                 f"{lines_[-1]}", "count": 0})  # fmt: skip
                item["count"] += 1
    else:
        block: list[str] = []
        heads = [i for i, line in enumerate(lines) if _is_head(line)]
        for n, start in enumerate(heads):
            end = heads[n + 1] if n + 1 < len(heads) else min(len(lines), start + 12)
            block = lines[start:end]
            head = block[0].strip()
            line = _line_of(block, source_name)
            kind = _kind(head)
            key = (kind, line)
            item = findings.setdefault(key, {"tool": tool, "kind": kind, "line": line, "message": head[:300],
                                             "count": 0, "threads": []})  # fmt: skip
            item["count"] += 1
            for b in block:
                match = re.search(r"by thread \((\d+),(\d+),(\d+)\) in block \((\d+),(\d+),(\d+)\)", b)
                if match and len(item["threads"]) < 4:
                    item["threads"].append([int(x) for x in match.groups()])
    return sorted(findings.values(), key=lambda f: (f["line"] is None, f["line"] or 0))[:MAX_FINDINGS]


def _is_head(line: str) -> bool:
    s = line.strip()
    return bool(re.match(r"(Invalid __\w+__ (read|write)|Barrier error|Program hit|Malformed|Misaligned|"
                         r"Out-of-range|Invalid arguments|Divergent|Error: )", s))  # fmt: skip


def _kind(head: str) -> str:
    match = re.match(r"Invalid __(\w+)__ (read|write)", head)
    if match:
        return f"invalid {match[1]} {match[2]}"
    if head.startswith("Barrier error") or "Divergent" in head:
        return "barrier"
    if head.startswith("Program hit"):
        return "api error"
    return head.split(":")[0][:60].lower()


def sanitizer_errors(text: str) -> int | None:
    """The error/hazard count of compute-sanitizer's summary line, if it printed one."""
    match = _SUMMARY.search(text)
    return int(match.group(1)) if match else None


# --- verdicts and causes ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    goal: str
    status: str  # pass, fail, skipped
    detail: str

    def to_dict(self) -> dict:
        return {"goal": self.goal, "status": self.status, "detail": self.detail}


def _shape(s: list) -> str:
    return "×".join(str(v) for v in s)


def _source_line(record: dict, line: int | None) -> str:
    if not line:
        return ""
    lines = source_lines(record.get("source") or "")
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def source_lines(source: str) -> list[str]:
    """The source's lines as nvcc numbers them (only \\n ends a line; a form feed or U+2028 does not), with
    control characters shown as '?' (they never reach a terminal or a widget raw)."""
    return [printable(line) for line in source.split("\n")]


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with terminal control characters (ESC, BEL, ...) and bidi overrides replaced by '?'."""
    return _CONTROL.sub("?", text)


def correctness_cause(record: dict) -> str | None:
    """One sentence on why C is wrong, from where it is wrong, what the sanitizer saw and the source line."""
    shapes = record.get("shapes") or []
    for s in shapes:
        if s.get("status") == "timeout":
            return (f"the kernel did not finish within {s.get('timeout_s', 10):g} s at {_shape(s['shape'])}: an "
                    "endless loop (check the loop's bound and step), or a __syncthreads() not every thread reaches")  # fmt: skip
    memcheck = _findings(record, "memcheck")
    writes = [f for f in memcheck if "write" in f["kind"] and f.get("line")]
    reads = [f for f in memcheck if "read" in f["kind"] and f.get("line")]
    crashed = next((s for s in shapes if s.get("status") == "launch-error"), None)
    for f in writes:
        text = _source_line(record, f["line"])
        if "||" in text:
            return (f"threads outside C write at line {f['line']} ({text}): the guard uses || where both "
                    "conditions must hold (&&)")  # fmt: skip
        if "<=" in text:
            return f"an out-of-bounds write at line {f['line']} ({text}): the guard lets one row or column too many through (<= where < is needed)"
        return f"an out-of-bounds write at line {f['line']} ({text}): a thread writes outside C; check the guard and the index"
    for f in reads:
        text = _source_line(record, f["line"])
        return f"an out-of-bounds read at line {f['line']} ({text}): guard the load, or load 0.0f outside the matrix"
    if crashed is not None:
        return (
            f"the kernel crashed at {_shape(crashed['shape'])} ({crashed.get('error', '')}); memcheck below shows where"
        )
    bad = [s for s in shapes if s.get("status") == "wrong"]
    if not bad:
        return None
    equals = next((s["equals"] for s in bad if s.get("equals")), None)
    if equals:
        return f"C equals {equals}, not A·B: the row and column indices are swapped in a load or the store"
    if any(not s.get("deterministic", True) for s in bad) or _findings(record, "racecheck"):
        return race_cause(record) or "C differs from one launch to the next: a race, likely a missing __syncthreads()"
    return _pattern_cause(bad)


def _pattern_cause(bad: list[dict]) -> str:
    for s in bad:
        p = s.get("pattern") or {}
        m, n, _k = s["shape"]
        if p.get("only_last_row") and p.get("unwritten"):
            return f"row {m - 1} (the last) is never written at {_shape(s['shape'])}: the guard stops one short"
        if p.get("only_last_col") and p.get("unwritten"):
            return f"column {n - 1} (the last) is never written at {_shape(s['shape'])}: the guard stops one short"
        if p.get("only_edge_blocks"):
            rows, cols = p.get("rows") or [0, 0], p.get("cols") or [0, 0]
            if rows[0] >= p.get("last_block_row", 0) > 0:
                where = f"rows ≥ {rows[0]} wrong in the last block row"
            elif cols[0] >= p.get("last_block_col", 0) > 0:
                where = f"columns ≥ {cols[0]} wrong in the last block column"
            else:
                where = "only the last block row and column are wrong"
            return f"{where} at {_shape(s['shape'])}: the edge guard (loads outside A or B must give 0.0f)"
    first = bad[0]
    p = first.get("pattern") or {}
    if p.get("unwritten") and p.get("fraction", 0) > 0.99:
        return f"C is never written at {_shape(first['shape'])}: the store is missing, or its guard is never true"
    return f"{first.get('reason') or 'C is wrong'} at {_shape(first['shape'])}: compare your indices with the task's"


def race_cause(record: dict) -> str | None:
    races = _findings(record, "racecheck")
    sync = _findings(record, "synccheck")
    if sync:
        f = sync[0]
        return f"synccheck: {f['message']} at line {f.get('line')}: every thread of the block must reach each __syncthreads()"
    if not races:
        return None
    f = max(races, key=lambda r: r["count"])
    if f["kind"] == "write-after-read":
        return (f"racecheck: shared write-after-read hazard at lines {f['other_line']} and {f['line']}: a barrier is missing "
                "after the multiply-adds, before the next tile's load overwrites the tile")  # fmt: skip
    if f["kind"] == "read-after-write":
        return (f"racecheck: shared read-after-write hazard at lines {f['other_line']} and {f['line']}: a barrier is "
                "missing between the tile loads and the multiply-adds that read them")  # fmt: skip
    return (
        f"racecheck: shared {f['kind']} hazard at lines {f['other_line']} and {f['line']}: a __syncthreads() is missing"
    )


def _findings(record: dict, tool: str) -> list[dict]:
    return ((record.get("sanitizer") or {}).get(tool) or {}).get("findings") or []


RATIO_LIMIT = 1.5


def speed_cause(record: dict) -> str | None:
    """Why the kernel is slower than the reference, from the two kernels' Nsight Compute counters."""
    timing = record.get("timing") or {}
    yours, ref = timing.get("yours") or {}, timing.get("reference") or {}
    if not (yours.get("median_ms") and ref.get("median_ms")):
        return None
    slower = yours["median_ms"] / ref["median_ms"]
    counters = record.get("counters") or {}
    mine, theirs = counters.get("yours") or {}, counters.get("reference") or {}
    head = f"{rate(slower)}× slower than the reference"
    reasons = []
    conflicts = _per(
        mine, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed_op_shared_ld.sum"
    )
    ref_conflicts = _per(
        theirs, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed_op_shared_ld.sum"
    )
    if conflicts and conflicts > RATIO_LIMIT * (ref_conflicts or 1.0):
        reasons.append(f"shared loads {conflicts:.1f}-way bank-conflicted (the reference: {ref_conflicts or 1.0:.1f})")
    sectors = _per(
        mine, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
    )
    ref_sectors = _per(
        theirs, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
    )
    if sectors and ref_sectors and sectors > RATIO_LIMIT * ref_sectors:
        reasons.append(
            f"global loads uncoalesced: {rate(sectors)} sectors per request (the reference: {rate(ref_sectors)})"
        )
    l2, ref_l2 = mine.get("lts__t_bytes.sum"), theirs.get("lts__t_bytes.sum")
    if l2 and ref_l2 and l2 > RATIO_LIMIT * ref_l2:
        reasons.append(f"{rate(l2 / ref_l2)}× the reference's L2 traffic: tiles are not reused from shared memory")
    occ, ref_occ = (
        mine.get("sm__warps_active.avg.pct_of_peak_sustained_active"),
        theirs.get("sm__warps_active.avg.pct_of_peak_sustained_active"),
    )
    if occ and ref_occ and occ * RATIO_LIMIT < ref_occ:
        reasons.append(
            f"{occ:.0f}% of the warp slots active against the reference's {ref_occ:.0f}% (registers or shared memory per block)"
        )
    if reasons:
        return f"{head}: {'; '.join(reasons)}"
    if not mine:
        return f"{head}; no counters to say why ({counters.get('note') or 'ncu did not run'})"
    return f"{head}; its memory counters match the reference's, so look at the instructions per multiply-add"


def _per(counters: dict, top: str, bottom: str) -> float | None:
    a, b = counters.get(top), counters.get(bottom)
    return a / b if a is not None and b else None


def verdicts(record: dict) -> list[Verdict]:
    """One verdict per goal, in GOALS order; a goal that could not be checked is skipped with the reason."""
    out = []
    compiled = record.get("compile") or {}
    no_gpu = record.get("no_gpu")
    if not compiled.get("ok"):
        errors = [d for d in compiled.get("diagnostics", []) if d.get("severity") == "error"]
        first = errors[0] if errors else {"line": None, "message": compiled.get("error") or "nvcc failed"}
        at = f"line {first['line']}: " if first.get("line") else ""
        out.append(Verdict("compiles", "fail", f"{at}{first['message']}"))
        return out + [Verdict(g, "skipped", "it does not compile") for g in GOALS[1:]]
    out.append(Verdict("compiles", "pass", f"nvcc {compiled.get('arch', '')}".strip()))
    if no_gpu:
        return out + [Verdict(g, "skipped", "no GPU here (see below)") for g in GOALS[1:]]
    shapes = record.get("shapes") or []
    bad = [s for s in shapes if s.get("status") != "ok"]
    if not shapes:
        out.append(Verdict("correct", "skipped", record.get("run_error") or "the kernel did not run"))
    elif bad:
        out.append(Verdict("correct", "fail", f"wrong at {', '.join(_shape(s['shape']) for s in bad)} "
                           f"(right at {len(shapes) - len(bad)} of {len(shapes)} sizes)"))  # fmt: skip
    else:
        out.append(Verdict("correct", "pass", f"every element within the FP32 bound at {len(shapes)} sizes, "
                           f"{_shape(shapes[0]['shape'])} to {_shape(shapes[-1]['shape'])}"))  # fmt: skip
    out.append(_race_verdict(record))
    out.append(_speed_verdict(record, bool(bad) or not shapes))
    return out


def _race_verdict(record: dict) -> Verdict:
    san = record.get("sanitizer") or {}
    ran = [t for t in SANITIZER_TOOLS if (san.get(t) or {}).get("ran")]
    if not ran:
        return Verdict("race-free", "skipped", san.get("note") or "compute-sanitizer did not run")
    found = [(t, len(san[t]["findings"])) for t in ran if san[t].get("findings") or san[t].get("errors")]
    if found:
        return Verdict("race-free", "fail", "; ".join(f"{t}: {n or san[t].get('errors')} finding(s)" for t, n in found))
    missing = [t for t in SANITIZER_TOOLS if t not in ran]
    tail = f" ({', '.join(missing)} did not run)" if missing else ""
    return Verdict("race-free", "pass", f"{', '.join(ran)} clean at {_shape(san.get('shape', []))}{tail}")


def _speed_verdict(record: dict, incorrect: bool) -> Verdict:
    timing = record.get("timing") or {}
    yours, ref = timing.get("yours") or {}, timing.get("reference") or {}
    if incorrect:
        return Verdict("speed", "skipped", "a wrong kernel is not timed")
    if not (yours.get("median_ms") and ref.get("median_ms")):
        why = yours.get("reason") or ref.get("reason") or timing.get("note") or "not timed"
        return Verdict("speed", "skipped", why)
    ratio = ref["median_ms"] / yours["median_ms"]
    goal = record.get("speed_goal", 1.0)
    detail = (f"{rate(ratio)}× the reference's speed at {_shape(timing.get('shape', []))} "
              f"({duration(yours['median_ms'])} vs {duration(ref['median_ms'])}; goal {rate(goal)}×)")  # fmt: skip
    return Verdict("speed", "pass" if ratio >= goal else "fail", detail)


def cause(record: dict) -> str | None:
    """The likeliest cause of the first failed goal, in one sentence (None when every goal passed)."""
    for v in verdicts(record):
        if v.status != "fail":
            continue
        if v.goal == "compiles":
            return f"nvcc: {v.detail}"
        if v.goal == "correct":
            return correctness_cause(record)
        if v.goal == "race-free":
            return race_cause(record) or correctness_cause(record) or v.detail
        if v.goal == "speed":
            return speed_cause(record)
    return None


def finish(record: dict) -> dict:
    """The record with its verdicts and cause filled in."""
    record["verdicts"] = [v.to_dict() for v in verdicts(record)]
    record["cause"] = cause(record)
    return record


# --- the record file ----------------------------------------------------------------------------------------


def _need(cond: bool, what: str) -> None:
    if not cond:
        raise CheckFileError(what)


# Every field of a check record the report and the tab read, with its type and bounds. A checker takes
# (value, where) and returns the value to keep; objects keep only their known keys, so nothing unchecked reaches
# the views.


def _text(limit: int = MAX_MESSAGE, optional: bool = False):
    def check(v, where):
        if v is None and optional:
            return None
        _need(isinstance(v, str) and len(v) <= limit, f"'{where}' must be a text of at most {limit:,} characters")
        return v

    return check


def _int(lo: int, hi: int, optional: bool = False):
    def check(v, where):
        if v is None and optional:
            return None
        _need(type(v) is int and lo <= v <= hi, f"'{where}' must be a whole number from {lo:,} to {hi:,}")
        return v

    return check


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
        _need(isinstance(v, list) and len(v) <= limit and (exact is None or len(v) == exact),
              f"'{where}' must be a list of {exact if exact is not None else f'at most {limit}'} entries")  # fmt: skip
        return [item(x, f"{where}[{i}]") for i, x in enumerate(v)]

    return check


def _obj(fields: dict, required: tuple = (), optional: bool = False):
    def check(v, where):
        if v is None and optional:
            return None
        _need(isinstance(v, dict), f"'{where}' must be an object")
        for key in required:
            _need(key in v, f"'{where}.{key}' is missing")
        return {k: fields[k](x, f"{where}.{k}") for k, x in v.items() if k in fields}

    return check


def _map(v, where):
    _check_map(v, where)
    return v


def _first_wrong(v, where):
    if v is None:
        return None
    _need(isinstance(v, list) and len(v) == 4, f"'{where}' must be [row, column, got, expected]")
    return [_int(0, 2**31)(v[0], where), _int(0, 2**31)(v[1], where), _num(-1e308, 1e308, True)(v[2], where),
            _num(-1e308, 1e308, True)(v[3], where)]  # fmt: skip


def _counter_map(v, where):
    _need(isinstance(v, dict) and len(v) <= 64, f"'{where}' must be an object of at most 64 counters")
    return {_text(200)(k, where): _num(0, 1e18)(x, f"{where}.{k}") for k, x in v.items()}


_LINE = _int(1, 10**6, optional=True)
_DIMS = _list(_int(1, 65536), 3, exact=3)
_FINDING = _obj({"tool": _text(20), "kind": _text(80), "line": _LINE, "other_line": _LINE, "message": _text(),
                 "count": _int(0, 10**12), "threads": _list(_list(_int(0, 2**31), 6, 6), 4)}, ("kind", "message"))  # fmt: skip
_TOOL = _obj({"ran": _bool, "findings": _list(_FINDING, MAX_FINDINGS), "errors": _int(0, 10**12, True),
              "log": _text(20_000), "note": _text()})  # fmt: skip
_PATTERN = _obj({"rows": _list(_int(0, 65536), 2, 2), "cols": _list(_int(0, 65536), 2, 2), "only_edge_blocks": _bool,
                 "last_block_row": _int(0, 65536), "last_block_col": _int(0, 65536), "only_last_row": _bool,
                 "only_last_col": _bool, "fraction": _num(0, 1), "unwritten": _int(0, 2**32)})  # fmt: skip
_SHAPE = _obj({"shape": _DIMS, "status": _one_of("ok", "wrong", "timeout", "launch-error"), "seconds": _num(0, 1e6),
               "deterministic": _bool, "rel_error": _num(0, 1e308, True), "unwritten": _int(0, 2**32, True),
               "wrong_elements": _int(0, 2**32, True), "first_wrong": _first_wrong, "error_margin": _num(0, 1e308, True),
               "error_map": _map, "reason": _text(optional=True), "error": _text(optional=True),
               "timeout_s": _num(0, 3600, True), "pattern": _PATTERN,
               "equals": _text(20, optional=True)}, ("shape", "status"))  # fmt: skip
_TIMED = _obj({"series": _text(200), "status": _text(20), "median_ms": _num(1e-6, 1e7, True), "noise": _num(0, 100, True),
               "samples": _int(0, 10**6), "clock_mhz": _num(0, 1e5, True), "reason": _text(optional=True)})  # fmt: skip
_RECORDED_ROW = _obj({"series": _text(200), "size": _DIMS, "median_ms": _num(1e-6, 1e9), "gflops": _num(0, 1e9, True)},
                     ("series", "size", "median_ms"))  # fmt: skip
_CHECK = _obj(
    {
        "format": _text(40), "version": _int(0, 99), "exercise": _text(100), "file": _text(4096),
        "created": _text(64), "source": _text(MAX_SOURCE_CHARS), "source_sha256": _text(64), "gemmviz": _text(40),
        "speed_goal": _num(0.01, 4), "reference": _text(100), "seed": _int(0, 2**63, True),
        "shapes": _list(_SHAPE, 32),
        "sanitizer": _obj({"shape": _DIMS, "note": _text(), **{t: _TOOL for t in SANITIZER_TOOLS}}),
        "timing": _obj({"shape": _DIMS, "method": _text(200), "note": _text(), "yours": _TIMED, "reference": _TIMED,
                        "cublas": _TIMED}),
        "counters": _obj({"shape": _DIMS, "note": _text(), "yours": _counter_map, "reference": _counter_map}),
        "not_run": _list(_text(), 10),
        "compile": _obj({"ok": _bool, "arch": _text(20), "cubin": _text(4096, True), "log": _text(8000),
                         "error": _text(), "command": _text(8000),
                         "diagnostics": _list(_obj({"line": _LINE, "severity": _one_of("error", "warning"),
                                                    "message": _text()}, ("severity", "message")), MAX_FINDINGS)}),
        "environment": _obj({"gpu": _text(200), "cc": _list(_int(0, 99), 2, 2)}),
        "no_gpu": _text(optional=True), "run_error": _text(optional=True),
        "recorded_reference": _obj({"session": _text(200), "gpu": _text(200), "created": _text(64),
                                    "rows": _list(_RECORDED_ROW, 200)}, ("session", "gpu", "created", "rows"), True),
        "accesses": lambda v, where: v,  # bounded by the access records' own loader (access_trace, below)
        "check_seconds": _num(0, 1e6),
    },
    ("format", "version", "exercise", "file", "created"),
)  # fmt: skip


def validate_check(data: object) -> dict:
    """A loaded check record with its fields bounded and only known fields kept; CheckFileError names the first
    bad one. Its verdicts and cause are worked out again from what it holds, never taken from the file."""
    _need(isinstance(data, dict), "not a JSON object")
    _need(data.get("format") == FORMAT, f"not a gemmviz exercise check (format must be '{FORMAT}')")
    _need(
        data.get("version") == VERSION, f"check version {str(data.get('version'))[:20]}; this gemmviz reads {VERSION}"
    )
    record = _CHECK(data, "check")
    access_trace(record)
    return finish(record)


def access_trace(record: dict):
    """The recorded accesses of the student's kernel (core/accesses.AccessTrace), None if the check has none;
    CheckFileError if they are out of bounds."""
    part = record.get("accesses")
    if part is None:
        return None
    _need(isinstance(part, dict), "'accesses' must be an object")
    if part.get("trace") is None:
        _need(isinstance(part.get("note", ""), str), "'accesses.note' must be a text")
        return None
    from gemmviz.core.accesses import from_json

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
    _need(all(isinstance(r, list) and len(r) <= 64 and all(type(v) is int and v >= 0 for v in r) for r in grid),
          f"'{where}': an error map's cells must be counts")  # fmt: skip


def load_check(path: str | Path) -> dict:
    try:
        data = json.loads(read_regular(path, MAX_CHECK_BYTES).decode("utf-8"))
    except RecursionError:
        raise CheckFileError(f"cannot read {path}: nested too deeply for a check record") from None
    except (OSError, InputFileError, ValueError) as exc:  # JSON and UTF-8 errors are ValueErrors
        raise CheckFileError(f"cannot read {path}: {exc}") from None
    return validate_check(data)


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


def report_text(record: dict) -> str:
    """The check as the CLI prints it: compile errors, sizes, sanitizer findings, timing, verdicts, cause."""
    out = [f"exercise {record['exercise']}: {record['file']}"]
    env = record.get("environment") or {}
    if env.get("gpu"):
        out.append(f"GPU {env['gpu']} (sm_{''.join(map(str, env.get('cc', [])))}), {record['created']}")
    out += _compile_lines(record) + _shape_lines(record) + _sanitizer_lines(record) + _timing_lines(record)
    out += [f"  {line}" for line in counter_lines(record)]
    out += [f"  {line}" for line in access_lines(record)]
    out.append("")
    for v in record.get("verdicts") or []:
        out.append(f"  {MARK[v['status']]}  {v['goal']:<9} {v['detail']}")
    if record.get("cause"):
        out.append(f"\nlikeliest cause: {record['cause']}")
    for note in record.get("not_run") or []:
        out.append(f"not run: {note}")
    return printable("\n".join(out))


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


def counter_lines(record: dict) -> list[str]:
    """Nsight Compute's key counters, yours beside the reference's: 'name: yours vs reference'."""
    counters = record.get("counters") or {}
    mine, theirs = counters.get("yours") or {}, counters.get("reference") or {}
    if not mine:
        return [f"counters: {counters['note']}"] if counters.get("note") else []
    shape = _shape(counters.get("shape", []))
    out = [f"Nsight Compute at {shape}, yours vs the reference:"]
    for name, top, bottom in COUNTER_ROWS:
        values = [_per(c, top, bottom) if bottom else c.get(top) for c in (mine, theirs)]
        if all(v is None for v in values):
            continue
        text = [rate(v / 1e6 if "MB" in name else v) for v in values]
        out.append(f"  {name}: {text[0]} vs {text[1]}")
    return out


def access_lines(record: dict) -> list[str]:
    """What the access tracer recorded: per block, the requests and their average sectors / wavefronts."""
    part = record.get("accesses") or {}
    if part.get("note"):
        return [f"accesses: {part['note']}"]
    trace = access_trace(record) if part else None
    if trace is None:
        return []
    out = [f"accesses recorded at {_shape(part.get('shape', []))}, blocks {', '.join(map(str, trace.blocks))}:"]
    for slot, summary in zip(trace.blocks, trace.summary):
        per = []
        for op in ("ld", "st"):
            n = summary.get(f"global_{op}_requests", 0)
            if n:
                per.append(
                    f"global {'loads' if op == 'ld' else 'stores'} {summary[f'global_{op}_sectors'] / n:.2f} sectors/request"
                )
        for op in ("ld", "st"):
            n = summary.get(f"shared_{op}_requests", 0)
            if n:
                per.append(
                    f"shared {'loads' if op == 'ld' else 'stores'} {summary[f'shared_{op}_wavefronts'] / n:.2f} wavefronts/request"
                )
        out.append(f"  block {slot}: {'; '.join(per) or 'no per-thread memory requests'}")
    if trace.sees:
        out.append(f"  {trace.sees}")
    return out


def _with_source(record: dict, line: int | None) -> list[str]:
    src = _source_line(record, line)
    return [f"          | {src}"] if src else []


def _compile_lines(record: dict) -> list[str]:
    out = []
    diagnostics = (record.get("compile") or {}).get("diagnostics", [])
    warnings = [d for d in diagnostics if d["severity"] != "error"]
    if warnings:
        first = warnings[0]
        out.append(f"  nvcc: {len(warnings)} warning(s), first at line {first.get('line') or '?'}: {first['message']}")
    for d in [d for d in diagnostics if d["severity"] == "error"][:10]:
        at = f"line {d['line']}" if d.get("line") else "nvcc"
        out.append(f"  {d['severity']:<7} {at}: {d['message']}")
        out += _with_source(record, d.get("line"))
    return out


def _shape_lines(record: dict) -> list[str]:
    out = []
    for s in record.get("shapes") or []:
        state = {"ok": "right", "wrong": "WRONG", "timeout": "TIMED OUT", "launch-error": "CRASHED"}[s["status"]]
        extra = s.get("reason") or s.get("error") or ""
        out.append(f"  {_shape(s['shape']):>16}  {state}  {extra}".rstrip())
    return out


def _sanitizer_lines(record: dict) -> list[str]:
    out = []
    for tool in SANITIZER_TOOLS:
        part = (record.get("sanitizer") or {}).get(tool) or {}
        if not part.get("ran"):
            continue
        found = part.get("findings") or []
        out.append(f"  {tool}: {'clean' if not found else f'{len(found)} finding(s)'}")
        for f in found[:5]:
            out.append(f"    line {f.get('line') or '?'}: {f['message']} (×{f.get('count', 1)})")
            out += _with_source(record, f.get("line"))
    return out


def _timing_lines(record: dict) -> list[str]:
    out = []
    timing = record.get("timing") or {}
    for who in ("yours", "reference", "cublas"):
        part = timing.get(who) or {}
        if part.get("median_ms"):
            out.append(f"  {who:<9} {duration(part['median_ms']):>10}  {part.get('series', '')}".rstrip())
    recorded = record.get("recorded_reference")
    if recorded:
        out.append(
            f"  recorded on {recorded['gpu']} ({recorded['session']}, {recorded['created'][:10]}), not on this machine:"
        )
        for row in recorded["rows"]:
            if row["size"][0] in (1024, 2048, 4096):
                out.append(f"    {row['series']:<24} {_shape(row['size']):>16} {duration(row['median_ms']):>10}")
    return out
