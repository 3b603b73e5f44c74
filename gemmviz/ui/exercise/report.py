"""What the Exercise tab says of a check record, in the tab's language: the verdicts, the likeliest cause, the map
of wrong regions of C, the findings at their source lines, the kernel's printf output and the timing bars. Pure
functions of the record (no widget here): ui/exercise/tab.py puts them on screen."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from gemmviz.core.exercise.access_goals import access_verdict
from gemmviz.core.exercise.check import source_lines
from gemmviz.core.exercise.exercises import Exercise
from gemmviz.core.exercise.grading import ran_on
from gemmviz.core.exercise.report import counter_lines, emulator_findings, printf_groups, printf_output
from gemmviz.core.messages import msg, render
from gemmviz.core.numbers import duration, rate
from gemmviz.core.problem import Problem
from gemmviz.ui.text import QT_TRANSLATE_NOOP, plain, tr

STOPPED = ("timeout", "launch-error")  # a size whose C was never read back: no map, and no sign C is right

COLORS = {"pass": "#009E73", "fail": "#D55E00", "skipped": "#777777"}
# the goals' names, translated where they are drawn (QT_TRANSLATE_NOOP: pyside6-lupdate files them)
GOAL_NAMES = {"compiles": QT_TRANSLATE_NOOP("", "compiles"), "correct": QT_TRANSLATE_NOOP("", "correct"),
              "memory-safe": QT_TRANSLATE_NOOP("", "memory-safe"),
              "race-free": QT_TRANSLATE_NOOP("", "race-free"), "speed": QT_TRANSLATE_NOOP("", "speed"),
              "accesses": QT_TRANSLATE_NOOP("", "accesses")}  # fmt: skip


def shipped_of(record: dict, exercises: list[Exercise]) -> Exercise | None:
    """The shipped exercise the record checks, if the tab lists it."""
    return next((e for e in exercises if e.name == record.get("exercise")), None)


def access_of(record: dict, exercise: Exercise | None, lang: str) -> dict | None:
    """The record's exercise's access goal, judged from its access trace (core/exercise/access_goals.py)."""
    if exercise is None:
        return None
    return access_verdict(record, exercise.access_goals, exercise.fix(lang), lang)


def verdicts_html(record: dict, access: dict | None, lang: str) -> str:
    """Each goal's mark, name and detail, coloured; the access goal after the others where the record lacks it."""
    parts = []
    judged = {v["goal"] for v in record["verdicts"]}  # finish() adds the shipped exercise's access goal
    for v in record["verdicts"] + ([access] if access and access["goal"] not in judged else []):
        mark = {"pass": "✓", "fail": "✗", "skipped": "–"}[v["status"]]
        name = tr(str(GOAL_NAMES[v["goal"]])) if v["goal"] in GOAL_NAMES else str(v["goal"])
        detail = render(v["message"], lang) if v.get("message") else v["detail"]
        parts.append(f"<span style='color:{COLORS[v['status']]}'><b>{mark} {plain(name)}</b></span> {plain(detail)}")
    return "<br>".join(parts)


def cause_text(record: dict, access: dict | None, lang: str) -> str:
    """The likeliest cause of a failed goal; else how the verdicts were reached without a GPU, or that all passed."""
    cause = record.get("cause") or (access or {}).get("cause")
    if record.get("cause_message"):
        cause = render(record["cause_message"], lang)
    if cause:
        return tr("Likeliest cause: {0}").format(cause)
    if record.get("no_gpu") and ran_on(record).startswith("CPU emulator"):
        return render(msg("report.emulated_pass", ran_on=ran_on(record)), lang)
    if record.get("no_gpu"):
        return tr(
            "No GPU here: {0}. Run gemmviz exercise check on a GPU machine, then open the check file it writes here."
        ).format(record["no_gpu"])
    return tr("Every goal passed.")


@dataclass(frozen=True)
class ErrorMapView:
    """The map of wrong regions of C to draw (None: no map), its caption, and whether C was judged at all."""

    error_map: dict | None
    caption: str
    judged: bool = True


def error_map_of(record: dict, lang: str) -> ErrorMapView:
    shapes = record.get("shapes") or []
    mapped = [s for s in shapes if s.get("error_map")]
    if mapped:
        wrong = max(mapped, key=lambda s: s["shape"][0] * s["shape"][1])  # the clearest picture
        dims = "×".join(map(str, wrong["shape"]))
        return ErrorMapView(wrong["error_map"], tr("Wrong regions of C at {0} (darker: more wrong)").format(dims))
    unfinished = next((s for s in shapes if s.get("status") in STOPPED), None)
    if unfinished is not None:  # a size that did not finish (or crashed) has no map, and is no sign that C is right
        return ErrorMapView(None, render(msg("report.not_finished_map", shape=unfinished["shape"]), lang), False)
    return ErrorMapView(None, tr("C: no wrong region") if shapes else tr("C: not run"))


def printf_text(record: dict, lang: str) -> tuple[int, str, str]:
    """The kernel's printf calls, the title over them and their lines under the size that printed them
    ("at 33×17×65 (5 line(s)):")."""
    calls, _lines = printf_output(record)
    groups = printf_groups(record)
    kept = sum(len(lines) for _shape, _n, lines in groups)
    title = render(msg("report.printf", calls=calls, kept=kept), lang)
    text: list[str] = []
    for shape, n, lines in groups:
        if shape is not None:  # (a record from before the sizes were kept: its lines alone)
            text.append(render(msg("report.printf_at", shape=shape, calls=n), lang))
        text += lines
    return calls, title, "\n".join(text)


def nvcc_lines(record: dict, lang: str) -> list[tuple[str, int | None]]:
    """nvcc's errors, then its warnings (often the clue: k >= 0 on an unsigned k is always true), each with
    its source line."""
    out: list[tuple[str, int | None]] = []
    diagnostics = (record.get("compile") or {}).get("diagnostics", [])
    for d in diagnostics:
        if d["severity"] == "error":
            out.append((tr("nvcc, line {0}: {1}").format(d.get("line") or "?", d["message"]), d.get("line")))
    for d in diagnostics:
        if d["severity"] == "warning":
            said = msg("report.nvcc_warning", line=d.get("line") or "?", message=d["message"])
            out.append((render(said, lang), d.get("line")))
    return out


def findings(record: dict, lang: str) -> list[tuple[str, int | None]]:
    """Every finding of the check in order (nvcc, the sanitizers, the emulator, sizes that failed, counters, what
    did not run), each with its source line under it where it names one, and that line (for a click) or None."""
    lines = source_lines(record.get("source") or "")
    out: list[tuple[str, int | None]] = []

    def add(text: str, line: object = None) -> None:
        cited = line if type(line) is int and 0 < line <= len(lines) else None
        out.append((text + (f"\n    {lines[cited - 1].strip()}" if cited else ""), cited))

    for text, line in nvcc_lines(record, lang):
        add(text, line)
    _sanitizer_findings(record, add)
    emu = record.get("emulator") or {}
    if emu.get("refused"):
        add(render(emu["refused"], lang))
    for text, line in emulator_findings(record, lang):
        add(text, line)
    for s in record.get("shapes") or []:
        if s["status"] != "ok":
            add("×".join(map(str, s["shape"])) + ": " + str(s.get("reason") or s.get("error") or s["status"]))
    for counter in counter_lines(record):
        add(counter)
    for note in record.get("not_run") or []:
        add(tr("Not run: {0}").format(note))
    if emu and record.get("no_gpu"):  # how the verdicts were reached, after what they found
        add(render(msg("emu.by", why=record["no_gpu"]), lang))
    return out


def _sanitizer_findings(record: dict, add: Callable[[str, object], None]) -> None:
    for tool, part in (record.get("sanitizer") or {}).items():
        if not isinstance(part, dict) or not part.get("ran"):
            continue
        if not part.get("findings"):
            add(tr("{0}: clean").format(tool), None)
        for f in part.get("findings", [])[:10]:
            said = tr("line {0}: {1} (×{2})").format(f.get("line") or "?", f["message"], f.get("count", 1))
            add(f"{tool}, " + said, f.get("line"))


def timing_rows(record: dict) -> list[tuple[str, float, str]]:
    """The timing bars: yours, the reference's and cuBLAS's GFLOP/s at the timed size, each with its words; without
    a timing (no GPU here), the reference's recorded rate at 2048³."""
    timing = record.get("timing") or {}
    shape = timing.get("shape")
    rows: list[tuple[str, float, str]] = []
    if shape:
        flops = Problem(*shape).flops
        for who, name in (
            ("yours", tr("yours")),
            ("reference", record.get("reference", tr("reference"))),
            ("cublas", "cuBLAS"),
        ):
            ms = (timing.get(who) or {}).get("median_ms")
            if ms:
                gflops = flops / (ms * 1e-3) / 1e9
                rows.append((name, gflops, f"{rate(gflops)} GFLOP/s · {duration(ms)}"))
    recorded = record.get("recorded_reference")
    if not rows and recorded:
        for row in recorded["rows"]:
            if row["size"] == [2048, 2048, 2048] and row["gflops"]:
                words = f"{rate(row['gflops'])} GFLOP/s · {recorded['gpu']}"
                rows.append((f"{row['series']} ({tr('recorded')})", row["gflops"], words))
    return rows


_WIDE = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"  # Chinese characters and punctuation: no space between lines


def reflow(text: str) -> str:
    """A TOML text's wrapped lines joined into paragraphs (a blank line ends one), for a widget that wraps: with
    a space, except where a line ends or the next begins with a Chinese character (Chinese has no spaces)."""
    return "\n\n".join(
        re.sub(rf"(?<=[{_WIDE}])\n|\n(?=[{_WIDE}])", "", p).replace("\n", " ") for p in text.split("\n\n")
    )
