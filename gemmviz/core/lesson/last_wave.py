"""What a lesson says of the last wave, from recorded block traces (core/hardware/fix_pick.py): the figures of
`{{lastwave FIGURE CASE at N}}` (the idle share of SM-time, the measured time, the SMs and blocks of one case of
gpu-cpasync-any's small-size fix), the footer naming the recording, and the claim `{ idle = "tiles", than =
"split", at = 1024 }`: the first case is slower than the second because more of the GPU's SM-time sat idle.

Only recorded traces are quoted: where none is shipped (a lesson file read alone, a damaged file) each figure says
so, the footer says the model's traces are drawn, and a claim is named unchecked. No Qt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gemmviz.core.hardware.fix_pick import SIZE, Shown, recorded_pick
from gemmviz.core.hardware.model_trace import VARIANT, case_name, small_size_fix
from gemmviz.core.lesson.views import StepProblem, whole
from gemmviz.core.messages import define, render
from gemmviz.core.numbers import microseconds
from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.session.results import Result

CASES = tuple(c.name for c in small_size_fix(SIZE))  # "tiles" (before), "split" (the registry's fit), "stream-k"
# {{lastwave FIGURE CASE at N}}: what each figure is
FIGURES = {
    "idle": "the share of the GPU's SM-time no block used",
    "time": "the case's measured median time",
    "run": "the length of the traced run the chart draws",
    "used": "the SMs its last wave ran on",
    "sms": "the GPU's SMs",
    "blocks": "the blocks it launched",
    "gpu": "the GPU the traces were recorded on",
}
MIN_AT, MAX_AT = 64, 4096  # the sizes a last-wave step or figure may name: small ones are what it is for
PLACEHOLDER = re.compile(r"lastwave\s+(\S+)\s+(\S+)\s+at\s+(\d+)")

define("lastwave.absent", en="n/a (no recorded block traces)", zh="暂无（没有记录的线程块轨迹）")
define("lastwave.footer", en="block traces: {gpu}, recorded {date}", zh="线程块轨迹：{gpu}，记录于 {date}")
define("lastwave.footer.results", en="block traces: these results", zh="线程块轨迹：这些结果")
define("lastwave.gpu.here", en="this lesson's GPU", zh="本课的 GPU")
define(
    "lastwave.footer.none",
    en="block traces: none recorded, the model's drawn",
    zh="线程块轨迹：没有记录，图中是模型的",
)


def size_of(at: object, key: str) -> Problem:
    """The N³ problem `at` names, MIN_AT…MAX_AT; StepProblem at `key` otherwise."""
    if not (isinstance(at, int) and whole(at) and MIN_AT <= at <= MAX_AT):
        raise StepProblem(key, f"{key}: the last wave is shown at a size N of N³ from {MIN_AT} to {MAX_AT}, e.g. 1024")
    return Problem(at, at, at)


def absent(lang: str) -> str:
    """What a figure reads where no recorded traces are at hand."""
    return render("lastwave.absent", lang)


def figure(expr: str, results: Sequence[Result], lang: str = "en") -> str | None:
    """The figure `{{lastwave FIGURE CASE at N}}` names, from the recorded traces (`results`' or the shipped ones),
    or the words saying there are none; None where `expr` is another placeholder. ProblemError for an unknown
    figure, case or size."""
    m = PLACEHOLDER.fullmatch(expr)
    if m is None:
        if expr.split()[:1] == ["lastwave"]:
            raise ProblemError(
                f"{{{{{expr}}}}}: write {{{{lastwave FIGURE CASE at N}}}}, e.g. {{{{lastwave idle tiles at 1024}}}}"
            )
        return None
    kind, case, at = m.groups()
    if kind not in FIGURES:
        raise ProblemError(f"{{{{{expr}}}}}: lastwave takes one of {', '.join(FIGURES)}")
    if case not in CASES:
        raise ProblemError(f"{{{{{expr}}}}}: the case is one of {', '.join(CASES)}")
    try:
        p = size_of(int(at), "at")
    except StepProblem as exc:
        raise ProblemError(f"{{{{{expr}}}}}: {exc}") from None
    pick = recorded_pick(p, results)
    shown = pick.case(case) if pick is not None else None
    if shown is None:
        return absent(lang)
    if kind == "gpu":  # the slide names the machine its figures were recorded on, whichever recording that is
        assert pick is not None  # it holds the case shown
        return pick.gpu_short or render("lastwave.gpu.here", lang)
    return _written(kind, shown, lang)


def _written(kind: str, s: Shown, lang: str) -> str:
    last = s.last
    if kind == "idle":
        return f"{last.idle_share:.0%}"
    if kind == "time":
        return microseconds(s.result.median_ms * 1e3, lang) if s.result.median_ms is not None else absent(lang)
    if kind == "run":  # what the picture shows: a slide's words and its bars agree
        return microseconds(last.duration_ns / 1e3, lang)
    count = {"used": last.last_sms, "sms": last.sms, "blocks": last.blocks}[kind]
    return f"{count:,}"


def uses_figures(expressions: Iterable[str]) -> list[Problem]:
    """The sizes of the {{lastwave …}} figures among a text's placeholder expressions (what is inside each {{ }},
    as placeholders.PLACEHOLDER finds them: words that merely read like a figure are none), each once, in order,
    at a size a figure may name."""
    found = (PLACEHOLDER.fullmatch(expr) for expr in expressions)
    sizes = [int(m.group(3)) for m in found if m is not None and MIN_AT <= int(m.group(3)) <= MAX_AT]
    return [Problem(n, n, n) for n in dict.fromkeys(sizes)]


def footer_note(p: Problem, results: Sequence[Result], lang: str = "en") -> str:
    """Where a slide's last-wave figures and view come from: the recording's GPU and date, or the model."""
    pick = recorded_pick(p, results)
    if pick is None:
        return render("lastwave.footer.none", lang)
    if (
        pick.gpu_short is None
    ):  # the lesson's own results hold the traces: its footer already names where they come from
        return render("lastwave.footer.results", lang)
    return render("lastwave.footer", lang, {"gpu": pick.gpu_short, "date": pick.origin[1]})


# ---- the claim: slower because more SM-time sat idle ------------------------------------------------------------
IDLE_CLAIM_KEYS = ("idle", "than", "at")


@dataclass(frozen=True)
class IdleClaim:
    """Case `idle` of the small-size fix is slower than case `than` at `at`³ because more of the GPU's SM-time sat
    idle: its last wave left SMs without a block. Checked against the recorded traces."""

    idle: str
    than: str
    at: int

    @property
    def problem(self) -> Problem:
        return Problem(self.at, self.at, self.at)

    @property
    def text(self) -> str:
        cases = {c.name: c for c in small_size_fix(self.problem)}
        a, b = (render(case_name(cases[n]), "en") for n in (self.idle, self.than))
        return (
            f"{VARIANT} at {self.at}³ is slower as {self.idle!r} ({a}) than as {self.than!r} ({b}) because more of "
            "its SM-time sat idle"
        )

    def problems(self, results: Sequence[Result]) -> list[str]:
        """What the recorded traces say against the claim, a line each; [] where it holds."""
        pick = recorded_pick(self.problem, results)
        if pick is None:
            return [f"it says {self.text}, but no block traces of its builds at {self.at}³ are recorded: not checked"]
        a, b = pick.case(self.idle), pick.case(self.than)
        assert a is not None and b is not None  # the pick holds every case
        ta, tb = a.result.median_ms, b.result.median_ms
        out = []
        if ta is None or tb is None or not ta > tb:
            out.append(f"it says {self.text}, but the recording has {_ms(ta)} against {_ms(tb)}")
        if not a.last.idle_share > b.last.idle_share:
            out.append(
                f"it says {self.text}, but {a.last.idle_share:.0%} of its SM-time sat idle against "
                f"{b.last.idle_share:.0%}"
            )
        if not a.last.last_sms < a.last.sms:
            out.append(f"it says {self.text}, but its last wave ran on every one of the {a.last.sms} SMs")
        return out

    def tested(self, results: Sequence[Result]) -> str:
        """What was compared, with the figures: the times, the idle shares and the last wave's SMs."""
        pick = recorded_pick(self.problem, results)
        if pick is None:
            return f"{self.text}: not checked, no recorded block traces"
        a, b = pick.case(self.idle), pick.case(self.than)
        assert a is not None and b is not None
        where = f"on {pick.recorded_on}" if pick.recorded_on else "in the lesson's results"
        return (
            f"{self.text}: in the block traces recorded {where}, {_ms(a.result.median_ms)} against "
            f"{_ms(b.result.median_ms)}, {a.last.idle_share:.0%} of SM-time idle against {b.last.idle_share:.0%}, "
            f"the last wave on {a.last.last_sms} of {a.last.sms} SMs"
        )


def _ms(ms: float | None) -> str:
    return "no time" if ms is None else microseconds(ms * 1e3)


def parse_idle_claim(d: Mapping) -> IdleClaim:
    """`{ idle = "tiles", than = "split", at = 1024 }`, its form checked; StepProblem at "because"."""
    unknown = sorted(set(d) - set(IDLE_CLAIM_KEYS))
    if unknown:
        raise StepProblem(
            "because", f"because: unknown key {unknown[0]!r} in an idle claim (keys: {', '.join(IDLE_CLAIM_KEYS)})"
        )
    idle, than = d.get("idle"), d.get("than")
    if idle not in CASES or than not in CASES or idle == than:
        raise StepProblem(
            "because",
            f"because: idle and than name two different cases of the small-size fix: {', '.join(CASES)}",
        )
    at = d.get("at", SIZE.m)
    try:
        size_of(at, "at")
    except StepProblem as exc:
        raise StepProblem("because", f"because: {exc}") from None
    return IdleClaim(idle, than, at)
