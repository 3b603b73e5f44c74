"""What `gemmviz exercise check` found, as data: nvcc's and compute-sanitizer's messages parsed, a verdict per
goal and one sentence on the likeliest cause of a failure. The record these fill, its bounds and its text
report are core/exercise/record.py. Pure Python: the GPU work is in backends/exercise.py and its child process.

Here: a verdict per goal, the cause of the first failed one, and the record finished with both. The parts are
their own modules: the tools' messages parsed (tool_logs.py), the findings (findings.py), the causes of a wrong C,
an unsafe access or a race (goal_causes.py, and causes.py for what the wrong C is made of), the speed's cause
(speed.py). Their names that callers import from here still are."""

from __future__ import annotations

from dataclasses import dataclass

from gemmviz.core.exercise.evidence import line_msg
from gemmviz.core.exercise.findings import MEMORY_KINDS, NOTE_KINDS, RACE_KINDS, finding_message
from gemmviz.core.exercise.goal_causes import correctness_cause, memory_cause, race_cause
from gemmviz.core.exercise.speed import counter_ratio, speed_cause
from gemmviz.core.exercise.tool_logs import (
    MAX_FINDINGS,
    MAX_MESSAGE,
    SANITIZER_TOOLS,
    diagnostic_log,
    parse_nvcc,
    parse_sanitizer,
    sanitizer_errors,
)
from gemmviz.core.exercise.where import printable, source_line, source_lines
from gemmviz.core.messages import Message, define, msg, render
from gemmviz.core.numbers import rate

__all__ = [  # what callers import from here, wherever it lives now
    "ACCESS_GOAL",
    "ALL_GOALS",
    "GOALS",
    "MAX_FINDINGS",
    "MAX_MESSAGE",
    "MEMORY_KINDS",
    "NOTE_KINDS",
    "RACE_KINDS",
    "SANITIZER_TOOLS",
    "STATUSES",
    "Verdict",
    "access_goal",
    "cause",
    "cause_lines",
    "cause_message",
    "counter_ratio",
    "diagnostic_log",
    "finish",
    "judged",
    "parse_nvcc",
    "parse_sanitizer",
    "printable",
    "sanitizer_errors",
    "shape_text",
    "source_line",
    "source_lines",
    "verdicts",
]

GOALS = ("compiles", "correct", "memory-safe", "race-free", "speed")
ACCESS_GOAL = "accesses"  # an exercise's goal on what the kernel touched (core/exercise/access_goals.py)
ALL_GOALS = (*GOALS, ACCESS_GOAL)
STATUSES = ("pass", "fail", "skipped")


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
            return correctness_cause(record) or memory_cause(record) or v.message
        if v.goal == "race-free":
            return race_cause(record) or correctness_cause(record) or v.message
        if v.goal == "speed":
            return speed_cause(record)
    return None


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
    return line_msg("cause.access_at", record, line, cause=cause) if line else cause


def judged(record: dict) -> bool:
    """Whether every goal the check judged passed and only speed went unmeasured (the CLI's exit status 0)."""
    found = record.get("verdicts") or []
    return bool(found) and all(
        v["status"] == "pass" or (v["status"] == "skipped" and v["goal"] == "speed") for v in found
    )


# an exercise's own words (its access_fix) in each language, kept in the record as one message
define("fix.exercise", en="{en}{zh:.0}", zh="{zh}{en:.0}")
define("cause.access_at", en="{cause}; line {line} ({text})", zh="{cause}；第 {line} 行（{text}）")
