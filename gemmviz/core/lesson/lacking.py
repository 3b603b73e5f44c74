"""What a teacher should hear before giving a lesson from a source (`gemmviz lesson`'s check): a step whose view
will show no data, each figure its words will show as n/a, and each claim the recording does not bear out."""

from __future__ import annotations

from gemmviz.core.charts.kinds import HARDWARE_KINDS
from gemmviz.core.lesson.claims import claim_problems
from gemmviz.core.lesson.model import Lesson, Step, step_results
from gemmviz.core.lesson.placeholders import fill_text
from gemmviz.core.lesson.source import LessonSource
from gemmviz.core.lesson.views import lesson_view

_NO_MICROBENCH = ": no microbenchmark recording is shipped (assets/microbench)"
# why a figure read from a recording of its own (not the lesson's session) reads n/a, by its placeholder's first word
UNRECORDED = {
    "latency": _NO_MICROBENCH,
    "microbench": _NO_MICROBENCH,
    "lastwave": ": no block traces of the small-size fix's builds are recorded "
    "(assets/sessions/GPU-DATE-traces-small-N.json.gz)",
}


def lacking_figures(step: Step, source: LessonSource, lang: str = "en") -> list[str]:
    """The placeholders of the step's title and text that `source` has no figure for (shown as n/a)."""
    lacking: list[str] = []
    for text in (step.title, step.text):
        fill_text(text, list(source.results), lang, lacking)
    return lacking


def _empty_view(step: Step, shown: list, where: str) -> str:
    """Why the step's view will draw nothing from the results it names ("" where it draws something): none
    named, none that passed its check (the CPU loop at 8192³, refused), or none with what a hardware chart
    needs (a block trace, counters)."""
    if not shown:
        return f"no results for its series and sizes in {where}"
    valid = [r for r in shown if r.valid]
    if not valid:
        states = sorted({r.status for r in shown})
        return (
            f"its {len(shown)} result(s) in {where} all failed their check or were not run ({', '.join(states)}): "
            "none is drawn"
        )
    if step.view == "hardware" and step.chart in HARDWARE_KINDS:
        attr, how = HARDWARE_KINDS[step.chart]
        if not any(getattr(r, attr, None) for r in valid):
            return f"none of its results in {where} has {how.split(':')[0]}: the chart draws nothing"
    return ""


def lesson_gaps(lesson: Lesson, source: LessonSource | None) -> list[str]:
    """What a teacher should hear before giving `lesson` from `source`, a line per gap: a step whose view will
    show no data (a typo in a series, a size the session lacks) and each figure its words will show as n/a."""
    if source is None:
        return ["this lesson names no session: its charts, tables and rooflines will be empty"]
    gaps = []
    for i, step in enumerate(lesson.steps, 1):
        view = lesson_view(step.view)
        if view is not None and view.shows_results:
            why = _empty_view(step, step_results(step, list(source.results)), source.label)
            if why:
                gaps.append(f"step {i} ({step.title}): {why}")
        for placeholder in lacking_figures(step, source, lesson.lang):
            why = UNRECORDED.get(placeholder.strip("{ ").split()[0], f" is not in {source.label}")
            gaps.append(f"step {i} ({step.title}): {placeholder}{why}; it reads n/a")
        for problem in claim_problems(step.because, list(source.results)):
            gaps.append(f"step {i} ({step.title}): {problem}")
    return gaps
