"""What `gemmviz exercise check` found, as data: nvcc's and compute-sanitizer's messages parsed, a verdict per
goal and one sentence on the likeliest cause of a failure. The record these fill, its bounds and its text
report are core/exercise/record.py. Pure Python: the GPU work is in backends/exercise.py and its child process."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gemmviz.core.exercise.causes import (
    facts_cause,
    grid_axes_tested,
    k_loop_cause,
    tile_multiples_right,
    unknown_cause,
)
from gemmviz.core.exercise.where import printable, source_line, source_lines  # noqa: F401  (their home before)
from gemmviz.core.messages import Message, msg, render
from gemmviz.core.numbers import rate

MAX_FINDINGS = 50  # per tool, and nvcc's diagnostics
MAX_MESSAGE = 2000
GOALS = ("compiles", "correct", "memory-safe", "race-free", "speed")
ACCESS_GOAL = "accesses"  # an exercise's goal on what the kernel touched (core/exercise/access_goals.py)
ALL_GOALS = (*GOALS, ACCESS_GOAL)
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
    message: Message  # rendered in each language by core/messages.py

    @property
    def detail(self) -> str:
        return render(self.message, "en")

    def to_dict(self) -> dict:
        return {"goal": self.goal, "status": self.status, "detail": self.detail, "message": self.message}


def shape_text(s: list) -> str:
    """A shape or size as the reports write it: [33, 17, 65] is '33×17×65'."""
    return "×".join(str(v) for v in s)


def _line_msg(key: str, record: dict, line: int | None, **params) -> Message:
    """A message about a source line: the line and its text (the record keeps the source)."""
    return msg(key, line=line or "?", text=source_line(record, line), **params)


def _tile_index_line(record: dict, matrix: str) -> int | None:
    """The line that picks which of `matrix`'s columns (A) or rows (B) a tile loads: the line of its global load
    (`A[...]`), or, where that index uses a variable set inside the loop over the tiles (a_col = ...), that
    variable's line. None if the source has no such load."""
    lines = [text.split("//")[0] for text in (record.get("source") or "").splitlines()]
    load = re.compile(rf"(?<![\w.]){matrix}\s*\[([^\]]*)\]")
    at = next((i for i, text in enumerate(lines) if load.search(text)), None)
    if at is None:
        return None
    names = set(re.findall(r"[A-Za-z_]\w*", load.search(lines[at])[1]))
    loop = next((i for i in range(at, -1, -1) if re.search(r"\bfor\s*\(", lines[i])), 0)
    for i in range(at - 1, loop, -1):
        for name in names:
            if re.search(rf"\b{name}\s*=(?!=)", lines[i]):
                return i + 1
    return at + 1


def correctness_cause(record: dict) -> Message | None:
    """Why C is wrong, from where it is wrong, what the sanitizer or the emulator saw, the source line, and the
    experiments the emulator ran."""
    shapes = record.get("shapes") or []
    for s in shapes:
        if s.get("status") == "timeout":
            return _timeout_cause(record, s)
    found = memory_findings(record)
    writes = [f for f in found if "write" in f["kind"] and f.get("line") and "shared" not in f["kind"]]
    reads = [f for f in found if "read" in f["kind"] and f.get("line") and "shared" not in f["kind"]]
    crashed = next((s for s in shapes if s.get("status") == "launch-error"), None)
    for f in writes + reads:
        return _oob_cause(record, f["line"], "write" in f["kind"])
    emulated = (record.get("emulator") or {}).get("findings") or []
    said = next((f for f in emulated if f["kind"] in ("uninit-register", "misaligned")), None)
    if said is not None:  # the finding's own sentence names the line and the fix
        return finding_message(said)
    shared = next((f for f in found if "shared" in f["kind"] and "uninit" not in f["kind"] and f.get("line")), None)
    if shared:
        return _shared_oob_cause(record, shared)
    if crashed is not None:
        return _crash_cause(record, crashed)
    bad = [s for s in shapes if s.get("status") == "wrong"]
    return _wrong_c_cause(record, bad) if bad else None


def _wrong_c_cause(record: dict, bad: list[dict]) -> Message:
    """Why C is wrong at the sizes `bad`, with no access outside the arrays: a compiler warning, a mistaken
    product, a race, the experiments, what the wrong C is made of (core/exercise/causes.py), else what the
    checker cannot tell."""
    emu = record.get("emulator") or {}
    warning = warning_cause(record)
    if warning:
        return warning
    equals = next((s["equals"] for s in bad if s.get("equals")), None)
    if equals:
        return _swapped_cause(record, equals)
    if any(not s.get("deterministic", True) for s in bad) or race_findings(record):
        return race_cause(record) or msg("cause.race_unsure")
    exp = emu.get("experiments") or {}
    uninit = next((f for f in emu.get("findings") or [] if f["kind"] == "uninit-shared"), None)
    if exp.get("zeroed") == "right" or exp.get("fresh_module") == "right":
        return experiment_cause(record) or unknown_cause(record)
    found = facts_cause(record) or _recorded_cause(record, bad) or experiment_cause(record)
    if found:
        return found
    if uninit:
        return _uninit_cause(record, uninit)
    return _pattern_cause(record, bad) or unknown_cause(record)


def _uninit_cause(record: dict, finding: dict) -> Message:
    from gemmviz.core.exercise import where

    line = finding.get("line")
    text = source_line(record, line)
    if line in where.loop_lines(record.get("source") or "") and re.search(r"<=\s*TILE|TILE\s*\+\s*\d", text):
        return _line_msg("cause.read_padding", record, line)
    return _line_msg("cause.uninit_shared", record, line)


def _recorded_cause(record: dict, bad: list[dict]) -> Message | None:
    """A cause from what a check without facts recorded (an older record, a GPU's): K rounded down to a tile,
    a tile index running ahead."""
    short = next((s for s in bad if s.get("k_used")), None)
    if short is not None and not any(s.get("facts") for s in bad):  # the facts tell a prefix of K apart
        return k_loop_cause(record, short["k_used"], short["shape"])
    shifted = next((s for s in bad if s.get("k_shift")), None)
    if shifted is not None:
        matrix = "A" if shifted["k_shift"] > 0 else "B"
        key = f"cause.{matrix.lower()}_tile_ahead"
        line = _tile_index_line(record, matrix)
        return _line_msg(key, record, line, shift=abs(shifted["k_shift"]), shape=shifted["shape"])
    return None


def _shared_oob_cause(record: dict, finding: dict) -> Message:
    """An access outside the shared arrays: a loop over the tile whose bound runs past it, else the line."""
    from gemmviz.core.exercise import where

    line = finding["line"]
    text = source_line(record, line)
    cond = re.search(r"\w+\s*(<=?)\s*([\w\s+*()-]+?)\s*;", text)
    past = cond and (cond[1] == "<=" or re.search(r"\bK\b|\+", cond[2]) is not None)
    if line in where.loop_lines(record.get("source") or "") and past:
        return _line_msg("cause.tile_loop_bound", record, line, bound=cond[0].rstrip("; "))
    access = msg("access.write" if "write" in finding["kind"] else "access.read")
    return _line_msg("cause.shared_oob", record, line, access=access)


def _oob_cause(record: dict, line: int, write: bool) -> Message:
    """An access outside A, B or C at `line`: the guard that lets it through (|| for &&, <= for <, row against N
    or col against M), at the guard's line, else the access's own line and how to guard it."""
    from gemmviz.core.exercise import where

    here = source_line(record, line)
    loop = re.search(r"\bfor\s*\(.*?;\s*(\w+\s*<=\s*\w+)\s*;", here)
    if loop and line in where.loop_lines(record.get("source") or ""):  # for (k = 0; k <= K; ...) reads one past
        return _line_msg("cause.loop_le", record, line, cond=loop[1])
    guard = where.guard_line(record.get("source") or "", line)
    text = source_line(record, guard) if guard else ""
    if guard and where.crossed_dims(text):
        return _line_msg("cause.guard_dims", record, guard)
    if guard and "||" in text:
        return _line_msg("cause.or_guard" if write else "cause.or_guard_read", record, guard)
    if guard and "<=" in text and write:
        return _line_msg("cause.le_guard", record, guard)
    missing = where.guard_misses(text) if guard and write else None
    if missing:
        return _line_msg("cause.guard_incomplete", record, line, guard=guard, missing=missing)
    stride = where.mixed_stride_line(record.get("source") or "")
    if guard and stride:
        return _line_msg("cause.index_stride", record, stride, guard=guard)
    if guard and write:
        return _line_msg("cause.oob_index", record, line, guard=guard)
    return _line_msg("cause.oob_write" if write else "cause.oob_read", record, line)


# which load or store a mistaken product points at: (the line finder's matrix, the message)
_SWAPS = {"A·Bᵀ": "B", "Aᵀ·B": "A", "Aᵀ·Bᵀ": "A", "(A·B)ᵀ": "C"}


def _swapped_cause(record: dict, equals: str) -> Message:
    from gemmviz.core.exercise import where

    matrix = _SWAPS.get(equals, "C")
    source = record.get("source") or ""
    line = where.store_line(source) if matrix == "C" else where.load_line(source, matrix)
    if matrix == "C":
        add = where.add_line(source)
        return _line_msg("cause.swapped_c", record, line, equals=equals, other=add if add != line else "?")
    key = {"A": "cause.swapped_a", "B": "cause.swapped_b"}[matrix]
    return _line_msg(key, record, line, equals=equals)


def _crash_cause(record: dict, crashed: dict) -> Message:
    trap = next((f for f in (record.get("emulator") or {}).get("findings") or [] if f["kind"] == "trap"), None)
    if trap is not None:  # the emulator ran trap: its line
        return _line_msg("cause.trap", record, trap.get("line"))
    return msg("cause.crashed", shape=crashed["shape"], error=crashed.get("error", ""))


def _timeout_cause(record: dict, s: dict) -> Message:
    exp = (record.get("emulator") or {}).get("experiments") or {}
    if exp.get("printf_off") == "finished":  # the calls were counted at the emulator's size
        where = ((record.get("emulator") or {}).get("shapes") or [s["shape"]])[0]
        return msg("cause.printf_slow", calls=exp.get("printf_calls", 0), shape=where)
    if s.get("endless"):
        return _line_msg("cause.endless", record, s.get("line"), shape=s["shape"])
    if s.get("instructions"):
        params = {"shape": s["shape"], "instructions": s["instructions"], "ratio": s.get("ratio", 0)}
        return _line_msg("cause.stopped", record, s.get("line"), **params)
    if s.get("budget_steps"):
        return _line_msg("cause.budget", record, s.get("line"), shape=s["shape"], steps=s["budget_steps"])
    return msg("cause.timeout", timeout=f"{s.get('timeout_s') or 10:g}", shape=s["shape"])


# nvcc's warnings that mean a bug: (words of the warning, words of the line, what it means)
WARNING_BUGS = (("expression has no effect", "__syncthreads", "fix.syncthreads_call"),)


def warning_cause(record: dict) -> Message | None:
    """A compiler warning that means a bug (`__syncthreads;` never runs the barrier), as a cause."""
    for d in (record.get("compile") or {}).get("diagnostics") or []:
        if d.get("severity") != "warning" or not d.get("line"):
            continue
        text = source_line(record, d["line"])
        for words, code, what in WARNING_BUGS:
            if words in d["message"] and code in text:
                return _line_msg("cause.warning_bug", record, d["line"], what=msg(what), warning=d["message"])
    return None


def experiment_cause(record: dict) -> Message | None:
    """What the emulator's experiments showed: accumulating into C, edge tiles, the grid's axes, state kept."""
    exp = (record.get("emulator") or {}).get("experiments") or {}
    if exp.get("zeroed") == "right":
        from gemmviz.core.exercise import where

        line = where.store_line(record.get("source") or "")
        return _line_msg("cause.accumulates_at", record, line) if line else msg("cause.accumulates")
    if exp.get("fresh_module") == "right":
        return msg("cause.state")
    if exp.get("transposed"):
        from gemmviz.core.exercise import where

        source = record.get("source") or ""
        which = exp["transposed"]
        key = "fix.tile_a" if which == "A" else "fix.tile_bt" if "tile_Bt" in source else "fix.tile_b"
        identity = "B" if which == "A" else "A"
        return _line_msg(
            "cause.tile_transposed",
            record,
            exp.get("transposed_line"),
            tile=which,
            identity=identity,
            fix=msg(key),
            shape=exp.get("square_shape"),
            other=where.shared_store_line(source, which) or "?",
        )
    if exp.get("square") == "right" and exp.get("rectangle") == "wrong" and grid_axes_tested(record):
        from gemmviz.core.exercise import where

        line = where.assign_line(record.get("source") or "", "row")
        good, bad = exp["square_shape"], exp["rectangle_shape"]
        if line:
            return _line_msg("cause.grid_axes_at", record, line, good=good, bad=bad)
        return msg("cause.grid_axes", good=good, bad=bad)
    if exp.get("rectangle") == "right" and exp.get("odd") == "wrong" and tile_multiples_right(record):
        return msg("cause.edge_tiles", good=[exp["square_shape"], exp["rectangle_shape"]], bad=exp["odd_shape"])
    return None


def _pattern_cause(record: dict, bad: list[dict]) -> Message | None:
    """Where the wrong elements lie, when that alone tells the cause: only the last row or column never written,
    or wrong only in the edge blocks while every size that is a multiple of the tile is right."""
    # a shape whose wrong elements lie outside its edge blocks too rules out a cause at the edge (at 1×1×1 the
    # only block is an edge block, whatever is wrong)
    inside = any(s.get("pattern") and not s["pattern"].get("only_edge_blocks") for s in bad)
    for s in bad:
        if inside:
            break
        p = s.get("pattern") or {}
        m, n, _k = s["shape"]
        if p.get("only_last_row") and p.get("unwritten"):
            return msg("cause.last_row", row=m - 1, shape=s["shape"])
        if p.get("only_last_col") and p.get("unwritten"):
            return msg("cause.last_col", col=n - 1, shape=s["shape"])
        if p.get("only_edge_blocks") and tile_multiples_right(record):
            rows, cols = p.get("rows") or [0, 0], p.get("cols") or [0, 0]
            if rows[0] >= p.get("last_block_row", 0) > 0:
                where = msg("where.last_block_row", row=rows[0])
            elif cols[0] >= p.get("last_block_col", 0) > 0:
                where = msg("where.last_block_col", col=cols[0])
            else:
                where = msg("where.edge_blocks")
            return msg("cause.edge", where=where, shape=s["shape"])
    first = bad[0]
    m, n, _k = first["shape"]
    if all(s.get("unwritten") == s["shape"][0] * s["shape"][1] for s in bad):  # not one element written
        from gemmviz.core.exercise import where as lines

        return _line_msg(
            "cause.never_written", record, lines.store_line(record.get("source") or ""), shape=first["shape"]
        )
    return None


MEMORY_KINDS = ("global-oob", "shared-oob", "local-oob", "uninit-shared", "misaligned", "uninit-register")
NOTE_KINDS = ("uninit-shared-unused",)  # reported, failing no goal: unwritten shared words whose value never reached C
RACE_KINDS = ("divergent-barrier", "read-after-write", "write-after-read", "write-after-write")
_EMU_AS_SANITIZER = {"global-oob": "invalid global {access}", "shared-oob": "invalid shared {access}",
                     "local-oob": "invalid local access", "uninit-shared": "uninitialized shared read",
                     "misaligned": "misaligned address", "uninit-register": "uninitialized variable"}  # fmt: skip


def memory_findings(record: dict) -> list[dict]:
    """Out-of-bounds accesses: memcheck's, or the emulator's written as memcheck's kinds ('invalid global write')."""
    found = list(_findings(record, "memcheck"))
    for f in (record.get("emulator") or {}).get("findings") or []:
        if f["kind"] in MEMORY_KINDS:
            kind = _EMU_AS_SANITIZER[f["kind"]].format(access=f.get("access") or "access")
            found.append({**f, "kind": kind})
    return found


def race_findings(record: dict) -> list[dict]:
    """Hazards and barrier errors: racecheck's and synccheck's, and the emulator's."""
    found = list(_findings(record, "racecheck")) + list(_findings(record, "synccheck"))
    return found + [f for f in (record.get("emulator") or {}).get("findings") or [] if f["kind"] in RACE_KINDS]


def race_cause(record: dict) -> Message | None:
    sync = _findings(record, "synccheck")
    emu = [f for f in (record.get("emulator") or {}).get("findings") or [] if f["kind"] in RACE_KINDS]
    barrier = next((f for f in emu if f["kind"] == "divergent-barrier"), None)
    if barrier:
        return _line_msg("cause.divergent_barrier", record, barrier.get("line"), threads=barrier.get("count", 1))
    warning = warning_cause(record)
    if warning:
        return warning
    if sync:
        f = sync[0]
        return msg("cause.synccheck", message=f["message"], line=f.get("line") or "?")
    races = _findings(record, "racecheck")
    tool = msg("tool.racecheck")
    if not races:
        # the two lines in source order, as racecheck's report names them
        races = [{**f, **_in_order(f)} for f in emu]
        tool = msg("tool.emulator")
    if not races:
        return None
    f = max(races, key=lambda r: (r.get("count", 1), -(r.get("other_line") or 0)))
    key = {"write-after-read": "cause.war", "read-after-write": "cause.raw"}.get(f["kind"], "cause.waw")
    return msg(key, tool=tool, other=f.get("other_line") or "?", line=f.get("line") or "?")


def _in_order(f: dict) -> dict:
    """A hazard's two lines as {"other_line": the earlier, "line": the later}."""
    a, b = f.get("line"), f.get("other_line") or f.get("line")
    if a and b and b > a:
        a, b = b, a
    return {"line": a, "other_line": b}


def _findings(record: dict, tool: str) -> list[dict]:
    return ((record.get("sanitizer") or {}).get(tool) or {}).get("findings") or []


RATIO_LIMIT = 1.5


def speed_cause(record: dict) -> Message | None:
    """Why the kernel is slower than the reference, from the two kernels' Nsight Compute counters, with the fix."""
    timing = record.get("timing") or {}
    yours, ref = timing.get("yours") or {}, timing.get("reference") or {}
    if not (yours.get("median_ms") and ref.get("median_ms")):
        return None
    slower = yours["median_ms"] / ref["median_ms"]
    counters = record.get("counters") or {}
    mine, theirs = counters.get("yours") or {}, counters.get("reference") or {}
    head = msg("speed.slower", ratio=rate(slower))
    reasons = []
    conflicts = counter_ratio(
        mine, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed_op_shared_ld.sum"
    )
    ref_conflicts = counter_ratio(
        theirs, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed_op_shared_ld.sum"
    )
    if conflicts and conflicts > RATIO_LIMIT * (ref_conflicts or 1.0):
        reasons.append(msg("speed.conflicts", ways=f"{conflicts:.1f}", ref=f"{ref_conflicts or 1.0:.1f}"))
    sectors = counter_ratio(
        mine, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
    )
    ref_sectors = counter_ratio(
        theirs, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
    )
    if sectors and ref_sectors and sectors > RATIO_LIMIT * ref_sectors:
        reasons.append(msg("speed.uncoalesced", sectors=rate(sectors), ref=rate(ref_sectors)))
    l2, ref_l2 = mine.get("lts__t_bytes.sum"), theirs.get("lts__t_bytes.sum")
    if l2 and ref_l2 and l2 > RATIO_LIMIT * ref_l2:
        reasons.append(msg("speed.l2", ratio=rate(l2 / ref_l2)))
    occ, ref_occ = (
        mine.get("sm__warps_active.avg.pct_of_peak_sustained_active"),
        theirs.get("sm__warps_active.avg.pct_of_peak_sustained_active"),
    )
    if occ and ref_occ and occ * RATIO_LIMIT < ref_occ:
        reasons.append(msg("speed.occupancy", occ=f"{occ:.0f}", ref=f"{ref_occ:.0f}"))
    if reasons:
        return msg("cause.speed", head=head, reasons=reasons)
    if not mine:
        return msg("cause.speed_no_counters", head=head, why=counters.get("note") or "ncu did not run")
    return msg("cause.speed_same", head=head)


def counter_ratio(counters: dict, top: str, bottom: str) -> float | None:
    """counters[top] / counters[bottom] (sectors per request, wavefronts per load); None if either is missing."""
    a, b = counters.get(top), counters.get(bottom)
    return a / b if a is not None and b else None


def _undefined_value(record: dict) -> int | str | None:
    """The line where a value never set reaches C, an address or a branch (the emulator's -G run found it), or
    None: C matched the reference, but only because the optimised run folded the unset value to 0."""
    found = ((record.get("emulator") or {}).get("findings")) or []
    hit = next((f for f in found if f.get("kind") == "uninit-register"), None)
    return (hit.get("line") or "?") if hit else None


def verdicts(record: dict) -> list[Verdict]:
    """One verdict per goal, in GOALS order; a goal that could not be checked is skipped with the reason."""
    compiled = record.get("compile") or {}
    if not compiled.get("ok"):
        errors = [d for d in compiled.get("diagnostics", []) if d.get("severity") == "error"]
        first = errors[0] if errors else {"line": None, "message": compiled.get("error") or "nvcc failed"}
        at = msg("goal.at_line", line=first["line"]) if first.get("line") else ""
        out = [Verdict("compiles", "fail", msg("goal.compiles.fail", at=at, message=first["message"]))]
        return out + [Verdict(g, "skipped", msg("goal.not_compiled")) for g in GOALS[1:]]
    compiler = "NVRTC" if (compiled.get("command") or "").startswith("nvrtc") else "nvcc"
    out = [Verdict("compiles", "pass", msg("goal.compiles.pass", compiler=compiler, arch=compiled.get("arch", "")))]
    emu = record.get("emulator")
    if record.get("no_gpu") and not (emu and (record.get("shapes") or emu.get("refused"))):
        return out + [Verdict(g, "skipped", msg("goal.no_gpu")) for g in GOALS[1:]]
    shapes = record.get("shapes") or []
    bad = [s for s in shapes if s.get("status") != "ok"]
    where = msg("goal.emulated") if record.get("no_gpu") else ""
    if not shapes:
        refused = (emu or {}).get("refused")
        why = refused if refused else msg("goal.text", text=record["run_error"]) if record.get("run_error") else None
        out.append(Verdict("correct", "skipped", why or msg("goal.did_not_run")))
    elif bad:
        detail = msg(
            "goal.correct.fail",
            bad=[s["shape"] for s in bad],
            right=len(shapes) - len(bad),
            total=len(shapes),
            where=where,
        )
        out.append(Verdict("correct", "fail", detail))
    elif undefined := _undefined_value(record):  # right by luck: a GPU's C holds whatever the register held
        out.append(Verdict("correct", "fail", msg("goal.correct.undefined", line=undefined, where=where)))
    else:
        detail = msg(
            "goal.correct.pass", total=len(shapes), first=shapes[0]["shape"], last=shapes[-1]["shape"], where=where
        )
        out.append(Verdict("correct", "pass", detail))
    if record.get("no_gpu"):
        out += _emulated_safety(record, shapes)
    else:
        out += [_sanitizer_verdict(record, "memory-safe"), _sanitizer_verdict(record, "race-free")]
    out.append(_speed_verdict(record, bool(bad) or not shapes))
    return out


def _emulated_safety(record: dict, shapes: list[dict]) -> list[Verdict]:
    emu = record.get("emulator") or {}
    found = emu.get("findings") or []
    unfinished = next((s for s in shapes if s.get("status") in ("timeout", "launch-error")), None)  # or a trap
    out = []
    for goal, kinds in (("memory-safe", MEMORY_KINDS), ("race-free", RACE_KINDS)):
        mine = [f for f in found if f["kind"] in kinds]
        short = "memory" if goal == "memory-safe" else "race"
        if not shapes:
            out.append(Verdict(goal, "skipped", emu.get("refused") or msg("goal.did_not_run")))
        elif mine:
            more = msg("goal.emu.more", n=len(mine) - 1) if len(mine) > 1 else ""
            out.append(Verdict(goal, "fail", msg("goal.emu.findings", first=finding_message(mine[0]), more=more)))
        elif unfinished:  # as on a GPU, where the sanitizers do not run a kernel that does not finish
            out.append(Verdict(goal, "skipped", msg("goal.emu.unfinished", shape=unfinished["shape"])))
        else:
            out.append(Verdict(goal, "pass", msg(f"goal.emu.{short}.pass", n=len(shapes))))
    return out


def finding_message(f: dict) -> Message:
    """One of the emulator's findings as its sentence: the line, what it is, the fix where it has one."""
    params = {"line": f.get("line") or "?", "count": f.get("count", 1), "other_line": f.get("other_line") or "?"}
    params["matrix"] = f.get("matrix") or "?"
    params["access"] = msg(f"access.{f['access']}") if f.get("access") else msg("access.read")
    params["variable"] = msg("finding.variable", name=f["variable"]) if f.get("variable") else ""
    return msg(f"finding.{f['kind']}", **params)


GOAL_TOOLS = {"memory-safe": ("memcheck",), "race-free": ("racecheck", "synccheck")}
EMULATOR_KINDS = {"memory-safe": MEMORY_KINDS, "race-free": RACE_KINDS}


def _sanitizer_verdict(record: dict, goal: str) -> Verdict:
    """memory-safe from memcheck, race-free from racecheck and synccheck; on a GPU the emulator's findings
    (uninitialised shared reads, divergent barriers) are added where it ran too."""
    san = record.get("sanitizer") or {}
    tools = GOAL_TOOLS[goal]
    ran = [t for t in tools if (san.get(t) or {}).get("ran")]
    short = "memory" if goal == "memory-safe" else "race"
    emu = [f for f in (record.get("emulator") or {}).get("findings") or [] if f["kind"] in EMULATOR_KINDS[goal]]
    if not ran and not emu:
        why = msg("goal.text", text=san["note"]) if san.get("note") else msg("goal.sanitizer_missing")
        return Verdict(goal, "skipped", why)
    found = [
        msg("goal.findings", tool=t, n=len(san[t]["findings"]) or san[t].get("errors"))
        for t in ran
        if san[t].get("findings") or san[t].get("errors")
    ]
    if emu:
        more = msg("goal.emu.more", n=len(emu) - 1) if len(emu) > 1 else ""
        found.append(msg("goal.emu.findings", first=finding_message(emu[0]), more=more))
    if found:
        return Verdict(goal, "fail", msg(f"goal.{short}.fail", tools=found))
    missing = [t for t in tools if t not in ran]
    tail = msg("goal.tools_missing", tools=missing) if missing else ""
    return Verdict(goal, "pass", msg(f"goal.{short}.pass", tools=ran, shape=san.get("shape", []), missing=tail))


def _speed_verdict(record: dict, incorrect: bool) -> Verdict:
    timing = record.get("timing") or {}
    yours, ref = timing.get("yours") or {}, timing.get("reference") or {}
    if record.get("no_gpu") and record.get("emulator"):
        return Verdict("speed", "skipped", msg("goal.speed.not_here"))
    if incorrect:
        return Verdict("speed", "skipped", msg("goal.speed.skipped_wrong"))
    if not (yours.get("median_ms") and ref.get("median_ms")):
        why = yours.get("reason") or ref.get("reason") or timing.get("note")
        return Verdict("speed", "skipped", msg("goal.text", text=why) if why else msg("goal.speed.not_timed"))
    ratio = ref["median_ms"] / yours["median_ms"]
    goal = record.get("speed_goal", 1.0)
    detail = msg(
        "goal.speed",
        ratio=rate(ratio),
        shape=timing.get("shape", []),
        yours_ms=float(yours["median_ms"]),
        ref_ms=float(ref["median_ms"]),
        goal=rate(goal),
    )
    return Verdict("speed", "pass" if ratio >= goal else "fail", detail)


def cause_message(record: dict) -> Message | None:
    """The likeliest cause of the first failed goal, with the fix (None when every goal passed)."""
    for v in verdicts(record):
        if v.status != "fail":
            continue
        if v.goal == "compiles":
            return msg("cause.nvcc", detail=v.message)
        if v.goal == "correct":
            return correctness_cause(record) or v.message
        if v.goal == "memory-safe":
            return correctness_cause(record) or _memory_cause(record) or v.message
        if v.goal == "race-free":
            return race_cause(record) or correctness_cause(record) or v.message
        if v.goal == "speed":
            return speed_cause(record)
    return None


def _memory_cause(record: dict) -> Message | None:
    """memory-safe failed with C right: a read of shared memory no thread wrote, named at its line."""
    uninit = next((f for f in memory_findings(record) if f["kind"] == "uninitialized shared read"), None)
    return _uninit_cause(record, uninit) if uninit else None


def cause(record: dict, lang: str = "en") -> str | None:
    """The likeliest cause, in one sentence, in `lang`."""
    m = cause_message(record)
    return render(m, lang) if m else None


def cause_lines(record: dict) -> list[int]:
    """The source lines the cause cites (shown under it), in the order it names them."""
    m = record.get("cause_message") or {}
    lines: list[int] = []

    def walk(params: dict) -> None:
        for key in ("other", "line", "other_line"):
            v = params.get(key)
            if type(v) is int and v not in lines:
                lines.append(v)
        for v in params.values():
            if isinstance(v, dict) and "params" in v:
                walk(v["params"])

    walk(m.get("params") or {})
    return sorted(lines)


def access_goal(record: dict, exercise=None) -> tuple[dict, Message | str]:
    """The exercise's access goals ({figure: at most}) and the fix to show when one fails: `exercise`'s, or the
    shipped exercise's of the record's name; ({}, "") where there is none."""
    if exercise is None:
        from gemmviz.core.exercise.exercises import ExerciseError, shipped_exercises

        try:
            exercise = next((e for e in shipped_exercises() if e.name == record.get("exercise")), None)
        except (ExerciseError, OSError):
            exercise = None
    if exercise is None:
        return {}, ""
    return dict(exercise.access_goals), msg("fix.exercise", en=exercise.fix("en"), zh=exercise.fix("zh"))


def finish(record: dict, exercise=None) -> dict:
    """The record with its verdicts and cause filled in: English texts, and the messages every language renders.
    The verdicts hold every goal the report judges: the check's GOALS, then the exercise's access goal where it
    sets one (`exercise`, else the shipped exercise of the record's name)."""
    record["verdicts"] = []
    found = verdicts(record)
    record["verdicts"] = [v.to_dict() for v in found]
    goals, fix = access_goal(record, exercise)
    access = None
    if goals:
        from gemmviz.core.exercise.access_goals import access_messages

        access = access_messages(record, goals, fix)
        record["verdicts"].append(Verdict(ACCESS_GOAL, access["status"], access["detail"]).to_dict())
    m = cause_message(record)
    if m is None and access is not None and access["status"] == "fail":
        m = _access_cause(record, access["cause"], goals)
    record["cause_message"] = m
    record["cause"] = render(m, "en") if m else None
    return record


def _access_cause(record: dict, cause: Message, goals: dict) -> Message:
    """The access goal's cause with the line it is about: the shared array a warp reads down a column (bank
    conflicts), or the line that sets the column of C (a warp reading rows apart)."""
    from gemmviz.core.exercise import where

    source = record.get("source") or ""
    shared = any(g.startswith("shared") for g in goals)
    line = where.conflicted_array_line(source) if shared else where.assign_line(source, "col")
    return _line_msg("cause.access_at", record, line, cause=cause) if line else cause


def judged(record: dict) -> bool:
    """Whether every goal the check judged passed and only speed went unmeasured (the CLI's exit status 0)."""
    found = record.get("verdicts") or []
    return bool(found) and all(
        v["status"] == "pass" or (v["status"] == "skipped" and v["goal"] == "speed") for v in found
    )
