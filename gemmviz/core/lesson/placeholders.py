"""The placeholder mini-language of a step's text: numbers are never typed in, they are `{{…}}` placeholders filled
from the results the step shows (live or replayed), e.g. `{{speedup gpu-tiled[tile=16] vs gpu-naive[block=16]
at 4096}}`, `{{gflops cublas at 4096}}`, `{{ms cpu-naive at 1024}}`, `{{flops at 4096}}` (2·N³: 137 billion, in
Chinese 1,374 亿); from the hardware: `{{model gpu-naive[block=16] at 1024}}` (the model's global-load bytes),
`{{dram …}}` and `{{l2 …}}` (the counters' DRAM reads and L2 traffic), `{{blocks …}}`, `{{waves …}}` and
`{{resident …}}` (blocks per SM at once, from a block trace); from recordings: `{{ceiling …}}`, `{{latency …}}`,
`{{microbench …}}`, `{{gpus …}}` and `{{lastwave …}}` (the small-size fix's recorded block traces,
core/lesson/last_wave.py). A figure the results lack reads "n/a (not in these results)". This module
reads the syntax; core/lesson/figures.py works out and writes each figure in the lesson's language."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gemmviz.core.hardware.microbench import (
    FIGURES,
    LATENCY_LEVELS,
    Microbench,
    figure_text,
    footer_note,
    shipped_microbench,
)
from gemmviz.core.lesson import gpus
from gemmviz.core.lesson import last_wave as wave
from gemmviz.core.lesson.figures import (
    CEILING_PLACEHOLDERS,
    HARDWARE_PLACEHOLDERS,
    RESULT_FIGURES,
    ceiling_text,
    ceilings_footer,
    flops_figure,
    hardware_figure,
    result_figure,
    speedup_figure,
)
from gemmviz.core.lesson.files import LessonError
from gemmviz.core.lesson.model import Lesson, Step
from gemmviz.core.lesson.series import parse_series
from gemmviz.core.lesson.views import MAX_N, lesson_view
from gemmviz.core.messages import define, render
from gemmviz.core.numbers import missing
from gemmviz.core.problem import ProblemError, parse_problem
from gemmviz.core.session.results import Result

PLACEHOLDER = re.compile(r"\{\{\s*(.*?)\s*\}\}")
_SIZE = r"(\d+|\d+[x×]\d+[x×]\d+)"  # N (N³) or M×N×K
_SPEEDUP = re.compile(rf"speedup\s+(\S+)\s+vs\s+(\S+)\s+at\s+{_SIZE}")
_RESULT = re.compile(rf"({'|'.join(RESULT_FIGURES)})\s+(\S+)\s+at\s+{_SIZE}")
_FLOPS = re.compile(r"flops\s+at\s+(\d+)")
_HARDWARE = re.compile(rf"({'|'.join(HARDWARE_PLACEHOLDERS)})\s+(\S+)\s+at\s+{_SIZE}")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_HAN_SPACE = re.compile(r"(?<=[\u3400-\u9fff]) +(?=[\u3400-\u9fff])")

SHIPPED = "shipped"  # fill_text's microbench: the shipped recording (core/hardware/microbench.py), if there is one
define("lesson.quoted", en="{notes:semi}", zh="{notes:semi}")


def _microbench(bench: Microbench | None | str) -> Microbench | None:
    """The recording `bench` names: SHIPPED (any string) is the shipped one."""
    return shipped_microbench() if isinstance(bench, str) else bench


def _recorded_figure(expr: str, microbench: Microbench | None | str, lang: str) -> str | None:
    """A {{ceiling …}}, {{latency …}}, {{microbench …}} or {{gpus …}} figure (the shipped ceilings, the
    microbenchmark recording, the second GPU's recording), the words saying it is absent, or None for another
    placeholder; ProblemError for an unknown name."""
    try:  # {{gpus …}}: the second GPU's recording beside the replay (core/lesson/gpus.py)
        two = gpus.figure(expr, lang)
    except ValueError as exc:
        raise ProblemError(str(exc)) from None
    if two is not None:
        return two
    ceiling = re.fullmatch(r"ceiling\s+(\S+)", expr)
    if ceiling:
        if ceiling.group(1) not in CEILING_PLACEHOLDERS:
            raise ProblemError(f"{{{{{expr}}}}}: ceiling takes one of {', '.join(CEILING_PLACEHOLDERS)}")
        return ceiling_text(ceiling.group(1), lang) or missing(lang)
    mb = re.fullmatch(r"(latency|microbench)\s+(\S+)", expr)
    if not mb:
        return None
    key = LATENCY_LEVELS.get(mb.group(2)) if mb.group(1) == "latency" else mb.group(2)
    if key is None or key not in FIGURES:
        known = LATENCY_LEVELS if mb.group(1) == "latency" else FIGURES
        raise ProblemError(f"{{{{{expr}}}}}: {mb.group(1)} takes one of {', '.join(known)}")
    return figure_text(_microbench(microbench), key, lang)


def _results_figure(expr: str, results: list[Result], lang: str) -> str | None:
    """A figure of `results` (or arithmetic) for `expr`, None where they lack it; ProblemError if `expr` is no
    placeholder of them."""
    for n in re.findall(r"\bat\s+(\d+)\s*$", expr):
        if not 0 < int(n) <= MAX_N:
            raise ProblemError(f"{{{{{expr}}}}}: N must be 1…{MAX_N}")
    if hw := _HARDWARE.fullmatch(expr):
        return hardware_figure(hw.group(1), parse_series(hw.group(2)), parse_problem(hw.group(3)), results, lang)
    if flops := _FLOPS.fullmatch(expr):
        return flops_figure(int(flops.group(1)), lang)
    if sp := _SPEEDUP.fullmatch(expr):
        faster, than = parse_series(sp.group(1)), parse_series(sp.group(2))
        return speedup_figure(faster, than, parse_problem(sp.group(3)), results, lang)
    if one := _RESULT.fullmatch(expr):
        return result_figure(one.group(1), parse_series(one.group(2)), parse_problem(one.group(3)), results, lang)
    raise ProblemError(f"unknown placeholder {{{{{expr}}}}}")


def fill_text(
    text: str,
    results: list[Result],
    lang: str = "en",
    lacking: list[str] | None = None,
    microbench: Microbench | None | str = SHIPPED,
) -> str:
    """Replace {{…}} placeholders by figures from `results`, written as `lang` writes them; each placeholder the
    results lack (it reads n/a) is appended to `lacking` if given. `{{latency LEVEL}}` and `{{microbench FIGURE}}`
    come from `microbench` (the shipped recording by default; None: none, and they say so)."""
    absent = missing(lang)
    unrecorded = (absent, figure_text(None, "", lang), wave.absent(lang))

    def value(m: re.Match[str]) -> str:
        expr = m.group(1)
        figure = _recorded_figure(expr, microbench, lang)
        if figure is None:
            figure = wave.figure(expr, results, lang)
        if figure is None:
            figure = _results_figure(expr, results, lang) or absent
        if lacking is not None and figure in unrecorded:
            lacking.append(m.group(0))
        return figure

    filled = PLACEHOLDER.sub(value, text)
    # Chinese: no space between two hanzi, where a figure's unit (亿, 毫秒, 个周期) meets the next word
    return _HAN_SPACE.sub("", filled)  # (no hanzi in other languages: nothing to take out)


def slide_words(text: str) -> int:
    """The words of a step's text as a slide shows it, a {{placeholder}} one word: words between spaces, and in
    Chinese (written without spaces) two characters a word."""
    plain = PLACEHOLDER.sub(" X ", text)
    han = len(_HAN.findall(plain))
    rest = [w for w in _HAN.sub(" ", plain).split() if re.search(r"\w", w)]
    return len(rest) + (han + 1) // 2


def uses_microbench(step: Step) -> bool:
    """Whether the step's text quotes the microbenchmark recording ({{latency …}}, {{microbench …}})."""
    return any(re.match(r"(latency|microbench)\s", m) for m in PLACEHOLDER.findall(step.text))


def step_quoted(
    step: Step, lang: str = "en", microbench: Microbench | None | str = SHIPPED, results: Sequence[Result] = ()
) -> str:
    """What a slide's footer names beside its data source: the step's `quoted` figures, where the figures of the
    microbenchmark recording it quotes come from ("latencies: H200, recorded 2026-12-02"), and where its view's
    own data and its last-wave figures come from (`results`: the lesson's, which may hold the traces)."""
    notes = [step.quoted] if step.quoted else []
    if uses_microbench(step):
        notes.append(footer_note(_microbench(microbench), lang))
    if any(re.match(r"gpus\s", m) for m in PLACEHOLDER.findall(step.text)):
        notes.append(gpus.footer(lang))
    if step.view == "roofline" or any(re.match(r"ceiling\s", m) for m in PLACEHOLDER.findall(step.text)):
        ceilings = ceilings_footer(lang)  # the roofs and ceiling figures are the shipped file's, not the session's
        if ceilings is not None:
            notes.append(ceilings)
    kind = lesson_view(step.view)
    if kind is not None and kind.footnote is not None:
        notes.append(kind.footnote(step, results, lang))
    for p in wave.uses_figures(PLACEHOLDER.findall(step.text)):
        note = wave.footer_note(p, results, lang)
        if note not in notes:
            notes.append(note)
    return render("lesson.quoted", lang, {"notes": notes})


def check_placeholders(lesson: Lesson) -> None:
    """Refuse placeholders that can never be filled (bad syntax, unknown series)."""
    for step in lesson.steps:
        try:
            filled = fill_text(step.text, [], microbench=None)
        except ProblemError as exc:
            raise LessonError(f"{lesson.path}:{step.line}: {exc}") from None
        if "{{" in filled or "}}" in filled:
            raise LessonError(
                f"{lesson.path}:{step.line}: a placeholder is not closed: write {{{{gflops cublas at 4096}}}}"
            )
