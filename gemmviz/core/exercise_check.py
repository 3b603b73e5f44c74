"""What `gemmviz exercise check` found, as data: nvcc's and compute-sanitizer's messages parsed, a verdict per
goal and one sentence on the likeliest cause of a failure. The record these fill, its bounds and its text
report are core/check_record.py. Pure Python: the GPU work is in backends/exercise.py and its child process."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gemmviz.core.numbers import duration, rate
from gemmviz.core.text import printable as _printable

MAX_FINDINGS = 50  # per tool, and nvcc's diagnostics
MAX_MESSAGE = 2000
GOALS = ("compiles", "correct", "race-free", "speed")
STATUSES = ("pass", "fail", "skipped")
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck")

# --- nvcc ---------------------------------------------------------------------------------------------------

_NVCC_LINE = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): (?P<severity>error|warning)(?: #[\w-]+)?: (?P<msg>.*)$")
# the host compiler's and the preprocessor's form (#error, a missing #include): file:line:column: error: ...
_GCC_LINE = re.compile(
    r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?:\d+:)? (?:fatal )?(?P<severity>error|warning): (?P<msg>.*)$"
)


def diagnostic_log(log: str) -> str:
    """nvcc's log with only its message lines: the source lines it echoes under a message are dropped, so an
    #include of a file outside the exercise (/etc/passwd) never puts that file's text in the record."""
    keep = [
        ln
        for ln in log.splitlines()
        if _NVCC_LINE.match(ln.strip()) or _GCC_LINE.match(ln.strip()) or re.search(r"\berrors? detected\b", ln)
    ]
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
        found.append(
            {
                "line": int(match["line"]) if mine else None,
                "severity": match["severity"],
                "message": match["msg"].strip() if mine else f"{match['file']}: {match['msg'].strip()}",
            }
        )
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
            item = findings.setdefault(
                key,
                {
                    "tool": tool,
                    "kind": kind,
                    "line": line2,
                    "other_line": line1,
                    "message": f"shared {kind} hazard: {match['first']} at line {line1}, "
                    f"{match['second']} at line {line2}",
                    "count": 0,
                },
            )
            item["count"] += count
        if not findings:  # --racecheck-report hazard: one block per hazard
            for match in _HAZARD.finditer(joined):
                if Path(match["f1"]).name != Path(source_name).name:
                    continue
                kind = _HAZARD_KINDS[match["kind"]]
                lines_ = sorted({int(match["l1"]), int(match["l2"])})
                key = (kind, *lines_)
                item = findings.setdefault(
                    key,
                    {
                        "tool": tool,
                        "kind": kind,
                        "line": lines_[-1],
                        "other_line": lines_[0],
                        "message": f"shared {kind} hazard between lines {lines_[0]} and {lines_[-1]}",
                        "count": 0,
                    },
                )
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
            item = findings.setdefault(
                key, {"tool": tool, "kind": kind, "line": line, "message": head[:300], "count": 0, "threads": []}
            )
            item["count"] += 1
            for b in block:
                match = re.search(r"by thread \((\d+),(\d+),(\d+)\) in block \((\d+),(\d+),(\d+)\)", b)
                if match and len(item["threads"]) < 4:
                    item["threads"].append([int(x) for x in match.groups()])
    return sorted(findings.values(), key=lambda f: (f["line"] is None, f["line"] or 0))[:MAX_FINDINGS]


def _is_head(line: str) -> bool:
    s = line.strip()
    return bool(
        re.match(
            r"(Invalid __\w+__ (read|write)|Barrier error|Program hit|Malformed|Misaligned|"
            r"Out-of-range|Invalid arguments|Divergent|Error: )",
            s,
        )
    )


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


def shape_text(s: list) -> str:
    """A shape or size as the reports write it: [33, 17, 65] is '33×17×65'."""
    return "×".join(str(v) for v in s)


def source_line(record: dict, line: int | None) -> str:
    """Line `line` (from 1) of the record's source, stripped and printable; '' when there is none."""
    if not line:
        return ""
    lines = source_lines(record.get("source") or "")
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def source_lines(source: str) -> list[str]:
    """The source's lines as nvcc numbers them (only \\n ends a line; a form feed or U+2028 does not), with
    control characters shown as '?' (they never reach a terminal or a widget raw)."""
    return [printable(line) for line in source.split("\n")]


def printable(text: str) -> str:
    """`text` with terminal control characters (ESC, BEL, ...), bidi controls and lone surrogates shown as visible
    escapes, its lines kept: core/text.printable, the one function for file-derived text."""
    return _printable(text, lines=True)


def correctness_cause(record: dict) -> str | None:
    """One sentence on why C is wrong, from where it is wrong, what the sanitizer saw and the source line."""
    shapes = record.get("shapes") or []
    for s in shapes:
        if s.get("status") == "timeout":
            return (
                f"the kernel did not finish within {s.get('timeout_s', 10):g} s at {shape_text(s['shape'])}: an "
                "endless loop (check the loop's bound and step), or a __syncthreads() not every thread reaches"
            )
    memcheck = _findings(record, "memcheck")
    writes = [f for f in memcheck if "write" in f["kind"] and f.get("line")]
    reads = [f for f in memcheck if "read" in f["kind"] and f.get("line")]
    crashed = next((s for s in shapes if s.get("status") == "launch-error"), None)
    for f in writes:
        text = source_line(record, f["line"])
        if "||" in text:
            return (
                f"threads outside C write at line {f['line']} ({text}): the guard uses || where both "
                "conditions must hold (&&)"
            )
        if "<=" in text:
            return f"an out-of-bounds write at line {f['line']} ({text}): the guard lets one row or column too many through (<= where < is needed)"
        return f"an out-of-bounds write at line {f['line']} ({text}): a thread writes outside C; check the guard and the index"
    for f in reads:
        text = source_line(record, f["line"])
        return f"an out-of-bounds read at line {f['line']} ({text}): guard the load, or load 0.0f outside the matrix"
    if crashed is not None:
        return f"the kernel crashed at {shape_text(crashed['shape'])} ({crashed.get('error', '')}); memcheck below shows where"
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
            return f"row {m - 1} (the last) is never written at {shape_text(s['shape'])}: the guard stops one short"
        if p.get("only_last_col") and p.get("unwritten"):
            return f"column {n - 1} (the last) is never written at {shape_text(s['shape'])}: the guard stops one short"
        if p.get("only_edge_blocks"):
            rows, cols = p.get("rows") or [0, 0], p.get("cols") or [0, 0]
            if rows[0] >= p.get("last_block_row", 0) > 0:
                where = f"rows ≥ {rows[0]} wrong in the last block row"
            elif cols[0] >= p.get("last_block_col", 0) > 0:
                where = f"columns ≥ {cols[0]} wrong in the last block column"
            else:
                where = "only the last block row and column are wrong"
            return f"{where} at {shape_text(s['shape'])}: the edge guard (loads outside A or B must give 0.0f)"
    first = bad[0]
    p = first.get("pattern") or {}
    if p.get("unwritten") and p.get("fraction", 0) > 0.99:
        return f"C is never written at {shape_text(first['shape'])}: the store is missing, or its guard is never true"
    return (
        f"{first.get('reason') or 'C is wrong'} at {shape_text(first['shape'])}: compare your indices with the task's"
    )


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
        return (
            f"racecheck: shared write-after-read hazard at lines {f['other_line']} and {f['line']}: a barrier is missing "
            "after the multiply-adds, before the next tile's load overwrites the tile"
        )
    if f["kind"] == "read-after-write":
        return (
            f"racecheck: shared read-after-write hazard at lines {f['other_line']} and {f['line']}: a barrier is "
            "missing between the tile loads and the multiply-adds that read them"
        )
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
    conflicts = counter_ratio(
        mine, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed_op_shared_ld.sum"
    )
    ref_conflicts = counter_ratio(
        theirs, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed_op_shared_ld.sum"
    )
    if conflicts and conflicts > RATIO_LIMIT * (ref_conflicts or 1.0):
        reasons.append(f"shared loads {conflicts:.1f}-way bank-conflicted (the reference: {ref_conflicts or 1.0:.1f})")
    sectors = counter_ratio(
        mine, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
    )
    ref_sectors = counter_ratio(
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


def counter_ratio(counters: dict, top: str, bottom: str) -> float | None:
    """counters[top] / counters[bottom] (sectors per request, wavefronts per load); None if either is missing."""
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
        out.append(
            Verdict(
                "correct",
                "fail",
                f"wrong at {', '.join(shape_text(s['shape']) for s in bad)} "
                f"(right at {len(shapes) - len(bad)} of {len(shapes)} sizes)",
            )
        )
    else:
        out.append(
            Verdict(
                "correct",
                "pass",
                f"every element within the FP32 bound at {len(shapes)} sizes, "
                f"{shape_text(shapes[0]['shape'])} to {shape_text(shapes[-1]['shape'])}",
            )
        )
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
    return Verdict("race-free", "pass", f"{', '.join(ran)} clean at {shape_text(san.get('shape', []))}{tail}")


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
    detail = (
        f"{rate(ratio)}× the reference's speed at {shape_text(timing.get('shape', []))} "
        f"({duration(yours['median_ms'])} vs {duration(ref['median_ms'])}; goal {rate(goal)}×)"
    )
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
