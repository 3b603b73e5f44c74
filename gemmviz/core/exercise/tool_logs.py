"""nvcc's and compute-sanitizer's messages as data: the compiler's diagnostics with their lines, the sanitizer's
findings (memcheck's invalid accesses, racecheck's hazards, synccheck's barrier errors) merged per line and kind.
Pure Python."""

from __future__ import annotations

import re
from pathlib import Path

from gemmviz.core.text import printable

MAX_FINDINGS = 50  # per tool, and nvcc's diagnostics
MAX_MESSAGE = 2000
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
        printable(ln)  # a #warning or #pragma message's own ESC or bidi override, shown as an escape
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
                "message": printable(match["msg"].strip() if mine else f"{match['file']}: {match['msg'].strip()}"),
            }
        )
        if len(found) >= MAX_FINDINGS:
            break
    if not found and log.strip():
        first = next((ln.strip() for ln in log.splitlines() if "error" in ln.lower()), log.strip().splitlines()[0])
        found.append({"line": None, "severity": "error", "message": printable(first[:MAX_MESSAGE])})
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
    if tool == "racecheck":
        joined = "\n".join(lines)
        findings = _race_summaries(joined, source_name) or _race_hazards(joined, source_name)
    else:
        findings = _error_blocks(tool, lines, source_name)
    return sorted(findings.values(), key=lambda f: (f["line"] is None, f["line"] or 0))[:MAX_FINDINGS]


def _race_summaries(joined: str, source_name: str) -> dict[tuple, dict]:
    """racecheck's hazards of the student's file, one per pair of lines and kind, from its summary lines."""
    findings: dict[tuple, dict] = {}
    for match in _RACE.finditer(joined):
        if Path(match["f1"]).name != Path(source_name).name:
            continue
        kind = f"{match['second'].lower()}-after-{match['first'].lower()}"
        line1, line2 = int(match["l1"]), int(match["l2"])
        item = findings.setdefault(
            (kind, line1, line2),
            {
                "tool": "racecheck",
                "kind": kind,
                "line": line2,
                "other_line": line1,
                "message": f"shared {kind} hazard: {match['first']} at line {line1}, {match['second']} at line {line2}",
                "count": 0,
            },
        )
        item["count"] += int(match["count"] or 1)
    return findings


def _race_hazards(joined: str, source_name: str) -> dict[tuple, dict]:
    """racecheck's hazards as --racecheck-report hazard writes them: one block per hazard."""
    findings: dict[tuple, dict] = {}
    for match in _HAZARD.finditer(joined):
        if Path(match["f1"]).name != Path(source_name).name:
            continue
        kind = _HAZARD_KINDS[match["kind"]]
        lines = sorted({int(match["l1"]), int(match["l2"])})
        item = findings.setdefault(
            (kind, *lines),
            {
                "tool": "racecheck",
                "kind": kind,
                "line": lines[-1],
                "other_line": lines[0],
                "message": f"shared {kind} hazard between lines {lines[0]} and {lines[-1]}",
                "count": 0,
            },
        )
        item["count"] += 1
    return findings


def _error_blocks(tool: str, lines: list[str], source_name: str) -> dict[tuple, dict]:
    """memcheck's and synccheck's errors, a block each (its head, then where and by which thread), merged per
    kind and line, with up to four of the threads."""
    findings: dict[tuple, dict] = {}
    heads = [i for i, line in enumerate(lines) if _is_head(line)]
    for n, start in enumerate(heads):
        end = heads[n + 1] if n + 1 < len(heads) else min(len(lines), start + 12)
        block = lines[start:end]
        head = block[0].strip()
        line = _line_of(block, source_name)
        kind = _kind(head)
        item = findings.setdefault(
            (kind, line), {"tool": tool, "kind": kind, "line": line, "message": head[:300], "count": 0, "threads": []}
        )
        item["count"] += 1
        for b in block:
            thread = re.search(r"by thread \((\d+),(\d+),(\d+)\) in block \((\d+),(\d+),(\d+)\)", b)
            if thread and len(item["threads"]) < 4:
                item["threads"].append([int(x) for x in thread.groups()])
    return findings


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
