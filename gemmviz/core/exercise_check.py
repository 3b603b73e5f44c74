"""What `gemmviz exercise check` found, as data: nvcc's and compute-sanitizer's messages parsed, a verdict per
goal, one sentence on the likeliest cause of a failure, the check record (a JSON file the app opens) and its
text report. Pure Python: the GPU work is in backends/exercise.py and its child process."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from gemmviz.core.fileio import InputFileError, read_regular
from gemmviz.core.numbers import duration, rate

FORMAT = "gemmviz-exercise-check"
VERSION = 1
MAX_CHECK_BYTES = 4 * 1024 * 1024
MAX_FINDINGS = 50
MAX_MESSAGE = 2000
GOALS = ("compiles", "correct", "race-free", "speed")
STATUSES = ("pass", "fail", "skipped")
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck")


class CheckFileError(ValueError):
    """A check record that cannot be shown: the message says which field."""


# --- nvcc ---------------------------------------------------------------------------------------------------

_NVCC_LINE = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): (?P<severity>error|warning)(?: #[\w-]+)?: (?P<msg>.*)$")


def parse_nvcc(log: str, source_name: str) -> list[dict]:
    """nvcc's diagnostics for the student's file: [{"line", "severity", "message"}], the file's own lines
    first (a message from an included header keeps line None and names the header)."""
    found = []
    for raw in log.splitlines():
        match = _NVCC_LINE.match(raw.strip())
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
    lines = (record.get("source") or "").splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


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


def _number_ok(x, low=0.0, high=1e9) -> bool:
    return x is None or (type(x) in (int, float) and math.isfinite(x) and low <= x <= high)


def validate_check(data: object) -> dict:
    """A loaded check record with its fields bounded; CheckFileError names the first bad one."""
    _need(isinstance(data, dict), "not a JSON object")
    _need(data.get("format") == FORMAT, f"not a gemmviz exercise check (format must be '{FORMAT}')")
    _need(data.get("version") == VERSION, f"check version {data.get('version')!r}; this gemmviz reads {VERSION}")
    for key in ("exercise", "file", "created"):
        _need(isinstance(data.get(key), str) and len(data[key]) <= 500, f"'{key}' must be a text")
    _need(isinstance(data.get("source", ""), str) and len(data.get("source", "")) <= 256 * 1024, "'source' too long")
    shapes = data.get("shapes", [])
    _need(isinstance(shapes, list) and len(shapes) <= 32, "'shapes' must be a list of at most 32")
    for s in shapes:
        _need(isinstance(s, dict), "a shape must be an object")
        dims = s.get("shape")
        _need(isinstance(dims, list) and len(dims) == 3 and all(type(v) is int and 1 <= v <= 65536 for v in dims),
              "a shape's 'shape' must be three sizes from 1 to 65536")  # fmt: skip
        _need(s.get("status") in ("ok", "wrong", "timeout", "launch-error"), f"bad shape status {s.get('status')!r}")
        _check_map(s.get("error_map"))
    san = data.get("sanitizer", {})
    _need(isinstance(san, dict), "'sanitizer' must be an object")
    for tool in SANITIZER_TOOLS:
        part = san.get(tool) or {}
        _need(isinstance(part, dict), f"sanitizer.{tool} must be an object")
        found = part.get("findings") or []
        _need(
            isinstance(found, list) and len(found) <= MAX_FINDINGS, f"sanitizer.{tool}.findings: at most {MAX_FINDINGS}"
        )
        for f in found:
            _need(isinstance(f, dict) and isinstance(f.get("message", ""), str), f"sanitizer.{tool}: a bad finding")
            _need(
                f.get("line") is None or (type(f["line"]) is int and 0 < f["line"] < 10**6),
                f"sanitizer.{tool}: bad line",
            )
    timing = data.get("timing") or {}
    _need(isinstance(timing, dict), "'timing' must be an object")
    for who in ("yours", "reference", "cublas"):
        part = timing.get(who) or {}
        _need(
            isinstance(part, dict) and _number_ok(part.get("median_ms"), 0, 1e7), f"timing.{who}.median_ms out of range"
        )
    counters = data.get("counters") or {}
    _need(isinstance(counters, dict), "'counters' must be an object")
    for who in ("yours", "reference"):
        part = counters.get(who) or {}
        _need(isinstance(part, dict) and len(part) <= 64, f"counters.{who} must be an object")
        _need(all(_number_ok(v, 0, 1e18) for v in part.values()), f"counters.{who}: a value out of range")
    _need(_number_ok(data.get("speed_goal", 1.0), 0, 4), "'speed_goal' out of range")
    access_trace(data)  # bounded by the access records' own loader
    return finish(data)


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


def _check_map(error_map) -> None:
    if error_map is None:
        return
    _need(isinstance(error_map, dict), "an error map must be an object")
    grid = error_map.get("wrong")
    _need(isinstance(grid, list) and 0 < len(grid) <= 64, "an error map has 1 to 64 rows")
    _need(all(isinstance(r, list) and len(r) <= 64 and all(type(v) is int and v >= 0 for v in r) for r in grid),
          "an error map's cells must be counts")  # fmt: skip


def load_check(path: str | Path) -> dict:
    try:
        data = json.loads(read_regular(path, MAX_CHECK_BYTES).decode("utf-8"))
    except (OSError, InputFileError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckFileError(f"cannot read {path}: {exc}") from None
    return validate_check(data)


def is_check_file(data: object) -> bool:
    return isinstance(data, dict) and data.get("format") == FORMAT


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
    return "\n".join(out)


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
                per.append(f"global {'loads' if op == 'ld' else 'stores'} {summary[f'global_{op}_sectors'] / n:.2f} sectors/request")
        for op in ("ld", "st"):
            n = summary.get(f"shared_{op}_requests", 0)
            if n:
                per.append(f"shared {'loads' if op == 'ld' else 'stores'} {summary[f'shared_{op}_wavefronts'] / n:.2f} wavefronts/request")
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
