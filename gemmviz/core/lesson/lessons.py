"""Guided lessons: a sequence of steps, each a title, one to three sentences and one view, read from TOML files.

Lessons are data (`assets/lessons/*.toml`) a teacher can copy and edit. A bad file is refused with a
LessonError that names the file and line. Numbers in a step's text are never typed in: they are
placeholders filled from the results the step shows (live or replayed), e.g.
`{{speedup gpu-tiled[tile=16] vs gpu-naive[block=16] at 4096}}`, `{{gflops cublas at 4096}}`,
`{{ms cpu-naive at 1024}}`, `{{flops at 4096}}` (2·N³: 137 billion, in Chinese 1,374 亿); from the hardware:
`{{model gpu-naive[block=16] at 1024}}` (the model's global-load bytes), `{{dram …}}` and `{{l2 …}}` (the
counters' DRAM reads and L2 traffic), `{{blocks …}}`, `{{waves …}}` and `{{resident …}}` (blocks per SM at once, from a block trace); a figure the
results lack reads "n/a (not in these results)". Figures are written in the lesson's language (its `lang`,
core/numbers.py): a lesson in another language is a file of its own, NAME.LANG.toml beside NAME.toml, with
the same steps, views and placeholders.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from gemmviz import __version__
from gemmviz.core.charts.style import series_name
from gemmviz.core.fileio import FileMemo, InputFileError, check_nesting
from gemmviz.core.hardware.counters import trace_summary
from gemmviz.core.hardware.microbench import (
    FIGURES,
    LATENCY_LEVELS,
    Microbench,
    figure_text,
    footer_note,
    shipped_microbench,
)
from gemmviz.core.kernels.variants import VARIANTS, baseline
from gemmviz.core.lesson import gpus
from gemmviz.core.lesson.claims import Claim, claim_problems, parse_claims
from gemmviz.core.lesson.files import (
    MAX_FILE_BYTES,
    LessonError,
    lesson_session_path,
    read_lesson_file,
    session_problem,
)
from gemmviz.core.lesson.rules import shipped_step_problems, step_problems
from gemmviz.core.lesson.series import (
    COUNT_PLACEHOLDERS,
    COUNTER_PLACEHOLDERS,
    SeriesRef,
    best,
    counter_value,
    parse_series,
)
from gemmviz.core.lesson.views import (
    COMMON_KEYS,
    MAX_N,
    AnimationState,
    CommonFields,
    LessonViewKind,
    StepProblem,
    all_keys,
    lesson_view,
    owners,
    view_names,
    whole,
)
from gemmviz.core.measure.bench import Job
from gemmviz.core.messages import Message, define, msg, render
from gemmviz.core.numbers import LANGUAGES, byte_size, count, duration, missing, ratio
from gemmviz.core.paths import asset_files, asset_path
from gemmviz.core.problem import FLOAT32_BYTES, Problem, ProblemError, parse_problem
from gemmviz.core.session.results import CONTROL_IN_NAMES, Result, Session, SessionError
from gemmviz.core.session.workspace import UNDATED, how_message

MAX_SENTENCES = 3
MAX_TEXT_CHARS = 420
MAX_STEPS = 100  # a lesson for one class; the slide export keeps every image in memory until all are drawn
MAX_TITLE_CHARS = 120
MAX_NOTES_CHARS = 4000  # a few paragraphs of what the teacher says; the slide itself stays short


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    view: str
    line: int  # where the step starts in its file, for messages
    chart: str = "gflops"
    series: tuple[SeriesRef, ...] = ()
    sizes: tuple[int, ...] = ()  # cube sizes N to keep (empty: all)
    at: int | None = None  # the size of a speedup chart
    baseline: str | None = None  # a Baseline key for speedups
    animation: AnimationState | None = None
    run: bool = False  # on a GPU, run this step's series at its sizes live
    quoted: str = (
        ""  # figures the text quotes from elsewhere, named on the slide's footer ("seed 001, A100, published")
    )
    beside: str = ""  # a table's published session (shipped), its rows above the measured ones, × per doubling
    notes: str = ""  # the speaker's notes: what the teacher says beside the slide (presenter view, handout)
    because: tuple[Claim, ...] = ()  # what the slide says is the cause, checked against the recording (claims.py)

    def shows(self, r: Result) -> bool:
        """Whether this step's view shows result r."""
        if self.series and not any(s.matches(r) for s in self.series):
            return False
        return not self.sizes or (r.m == r.n == r.k and r.m in self.sizes)


@dataclass(frozen=True)
class Lesson:
    name: str
    title: str
    summary: str
    session: str | None  # the shipped session it replays when no GPU runs it live
    steps: tuple[Step, ...] = field(default_factory=tuple)
    path: str = ""
    folder: str | None = None  # a lesson file's folder, where its `session` may also be; None for shipped ones
    lang: str = "en"  # the language of its words and of the figures filled into them (core/numbers.LANGUAGES)


_PLACEHOLDER = re.compile(r"\{\{\s*(.*?)\s*\}\}")


def _sentences(text: str) -> int:
    """Sentences end with . ! ? and a space, or with Chinese 。！？ (no space follows them)."""
    return len([s for s in re.split(r"(?<=[.!?])\s+|(?<=[。！？])", text.strip()) if s.strip()])


def _step_lines(raw: str) -> list[int]:
    return [i + 1 for i, line in enumerate(raw.splitlines()) if re.match(r"^\s*\[\[\s*step\s*\]\]", line)]


def _key_line(raw: str, start: int, key: str) -> int:
    lines = raw.splitlines()
    for i in range(start - 1, len(lines)):
        if i > start - 1 and re.match(r"^\s*\[", lines[i]):
            break
        if re.match(rf"^\s*{re.escape(key)}\s*=", lines[i]):
            return i + 1
    return start


def _title_problem(title: str) -> str | None:
    """Why a title cannot go on a slide (one line of plain text), or None."""
    if CONTROL_IN_NAMES.search(title):  # one-line texts: the rule session files' names follow
        return "a title is one line of plain text: no line breaks or control characters"
    if len(title) > MAX_TITLE_CHARS:
        return f"a title has at most {MAX_TITLE_CHARS} characters (it is {len(title)}): put the rest in the text"
    if "{{" in title:
        return "placeholders are filled in a step's text only, not in titles"
    return None


def _clean(text: str) -> str:
    """A text as a slide shows it: one line, runs of white space one space, control characters, NUL and
    bidirectional overrides (which could hide or reorder what it says) removed, as in session files."""
    return CONTROL_IN_NAMES.sub("", " ".join(text.split()))


def _fail_at(raw: str, line: int, where: str):
    def fail(key: str | None, message: str):
        at = _key_line(raw, line, key) if key else line
        raise LessonError(f"{where}:{at}: {message}")

    return fail


def _notes(d: dict, fail) -> str:
    """A step's speaker notes (optional): plain text, paragraphs kept."""
    notes = d.get("notes", "")
    if not isinstance(notes, str) or len(notes) > MAX_NOTES_CHARS:
        fail("notes", f"notes are the speaker's words beside the slide: text of at most {MAX_NOTES_CHARS} characters")
    paragraphs = (" ".join(p.split()) for p in re.split(r"\n\s*\n", notes))
    return "\n\n".join(p for p in paragraphs if p)


def _words(d: dict, fail) -> tuple[str, str, str]:
    """A step's title, text and quoted sources, checked."""
    title, text = d.get("title"), d.get("text")
    if not isinstance(title, str) or not title.strip():
        fail("title", "every step needs a title (a string)")
    problem = _title_problem(title)
    if problem:
        fail("title", problem)
    if not isinstance(text, str) or not text.strip():
        fail("text", "every step needs text: one to three sentences")
    if _sentences(text) > MAX_SENTENCES or len(text) > MAX_TEXT_CHARS:
        fail("text", f"a step says at most {MAX_SENTENCES} sentences ({MAX_TEXT_CHARS} characters): split it")
    quoted = d.get("quoted", "")
    if not isinstance(quoted, str) or len(quoted) > 120 or "\n" in quoted:
        fail("quoted", "quoted names where the text's figures come from: one line of text")
    return title.strip(), _clean(text), _clean(quoted.strip())


def _common(d: dict, fail) -> CommonFields:
    """The series and sizes a step is about (any view may name them)."""
    series_in = d.get("series", [])
    if not isinstance(series_in, list) or not all(isinstance(s, str) for s in series_in):
        fail("series", 'series must be a list of strings like "gpu-tiled[tile=16]"')
    try:
        series = tuple(parse_series(s) for s in series_in)
    except ProblemError as exc:
        fail("series", str(exc))
    sizes = d.get("sizes", [])
    if not isinstance(sizes, list) or not all(whole(s) and s > 0 for s in sizes):
        fail("sizes", "sizes must be a list of positive whole numbers (cube sizes N)")
    if any(n > MAX_N for n in sizes):
        fail("sizes", f"sizes are at most {MAX_N} (N of an N³ product)")
    if len(set(sizes)) != len(sizes) or len(set(series)) != len(series):
        fail("sizes" if len(set(sizes)) != len(sizes) else "series", "a size or series is named twice")
    return CommonFields(series, tuple(sizes))


def _either(names: tuple[str, ...]) -> str:
    """The views owning a key, in words: "a chart", "a chart or table", "a chart, hardware or accesses"."""
    return "a " + (" or ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} or {names[-1]}")


def _view_kind(d: dict, fail) -> LessonViewKind:
    """The step's view from the registry (core/lesson/views.py), its keys checked against what it takes."""
    view = d.get("view", "text")
    kind = lesson_view(view) if isinstance(view, str) else None
    if kind is None:
        fail("view", f"view must be one of {', '.join(view_names())}, got {view!r}")
    known = all_keys()
    for key in d:
        if key not in known:
            fail(key, f"unknown key {key!r} in a step (keys: {', '.join(sorted(known))})")
    takes = (*COMMON_KEYS, *kind.keys)
    for key in d:
        if key not in takes:
            fail(
                key,
                f"unknown key {key!r} in a {view} step: {key!r} is a key of {_either(owners(key))} step "
                f"(a {view} step's keys: {', '.join(sorted(takes))})",
            )
    return kind


def _parse_step(d: dict, line: int, raw: str, where: str) -> Step:
    fail = _fail_at(raw, line, where)
    kind = _view_kind(d, fail)
    title, text, quoted = _words(d, fail)
    common = _common(d, fail)
    run = d.get("run", False)
    if not isinstance(run, bool):
        fail("run", "run must be true or false")
    try:
        fields = kind.check(d, common)
        because = parse_claims(d)
    except StepProblem as exc:
        fail(exc.key, str(exc))
    notes = _notes(d, fail)
    for key, message in step_problems(title, text, notes, slide_words):  # core/lesson/rules.py
        fail(key, message)
    return Step(
        title,
        text,
        kind.name,
        line,
        series=common.series,
        sizes=common.sizes,
        run=run,
        quoted=quoted,
        notes=notes,
        because=because,
        **fields,
    )


def _toml(raw: str, where: str) -> dict:
    try:
        check_nesting(raw, toml=True)  # before the parser, which recurses once per level
        return tomllib.loads(raw.removeprefix("\ufeff"))  # a byte-order mark some editors write
    except InputFileError as exc:
        raise LessonError(f"{where}: not a lesson: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise LessonError(f"{where}: not valid TOML: {exc}") from None
    except RecursionError:
        raise LessonError(f"{where}: not a lesson: its arrays or tables are nested too deep") from None


def parse_lesson(raw: str, name: str, where: str = "<lesson>", folder: str | None = None) -> Lesson:
    """A lesson from TOML text; LessonError naming `where` and the line on any problem. `folder` is the
    lesson file's folder (its `session` may be a file there); None for a shipped lesson or a text."""
    if len(raw.encode("utf-8")) > MAX_FILE_BYTES:
        raise LessonError(f"{where}: the file is larger than {MAX_FILE_BYTES // 1024} KiB; is it a lesson?")
    data = _toml(raw, where)
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        raise LessonError(f"{where}:{_key_line(raw, 1, 'title')}: the lesson needs a title (a string) at the top")
    unknown = set(data) - {"title", "summary", "session", "step", "lang"}
    if unknown:
        raise LessonError(
            f"{where}: unknown key {sorted(unknown)[0]!r} (a lesson has title, summary, session, lang, step)"
        )
    lang = data.get("lang", "en")
    if lang not in LANGUAGES:
        raise LessonError(
            f"{where}:{_key_line(raw, 1, 'lang')}: lang must be one of {', '.join(LANGUAGES)}, got {lang!r}"
        )
    if _title_problem(title):
        raise LessonError(f"{where}:{_key_line(raw, 1, 'title')}: {_title_problem(title)}")
    summary = data.get("summary", "")
    session = data.get("session")
    if not isinstance(summary, str) or (session is not None and not isinstance(session, str)):
        raise LessonError(f"{where}: summary and session must be strings")
    if session is not None and not session.strip():
        raise LessonError(
            f"{where}:{_key_line(raw, 1, 'session')}: session is empty: name a file, or leave the key out"
        )
    if session is not None and session_problem(session):
        raise LessonError(f"{where}:{_key_line(raw, 1, 'session')}: {session_problem(session)}")
    steps_in = data.get("step")
    if not isinstance(steps_in, list) or not steps_in:
        raise LessonError(f"{where}: a lesson needs at least one [[step]]")
    if not all(isinstance(d, dict) for d in steps_in):
        raise LessonError(f"{where}: each step is a [[step]] table with a title and text")
    if len(steps_in) > MAX_STEPS:
        raise LessonError(f"{where}: {len(steps_in)} steps; a lesson has at most {MAX_STEPS}: split it")
    lines = _step_lines(raw)
    if len(lines) != len(steps_in):  # steps written as an inline array: fall back to the top
        lines = [1] * len(steps_in)
    steps = tuple(_parse_step(d, line, raw, where) for d, line in zip(steps_in, lines))
    lesson = Lesson(name, title.strip(), _clean(summary), session, steps, where, folder, lang)
    check_placeholders(lesson)
    return lesson


def _name_and_lang(file_name: str) -> tuple[str, str | None]:
    """'seed000.zh.toml' -> ('seed000', 'zh'); 'seed000.toml' -> ('seed000', None)."""
    stem = file_name.removesuffix(".toml")
    base, _, lang = stem.rpartition(".")
    return (base, lang) if base and lang in LANGUAGES else (stem, None)


def load_lesson(path: str | Path) -> Lesson:
    path = Path(path)
    raw = read_lesson_file(path, str(path))
    return parse_lesson(raw, _name_and_lang(path.name)[0], str(path), folder=str(path.parent))


@functools.lru_cache(maxsize=64)
def _parse_shipped(raw: str, name: str, where: str) -> Lesson:
    """parse_lesson of a shipped lesson file, kept per process by its text: every window's Lesson menu and every
    export asks for all of them (8 files, 0.14 s to parse), and a file changed or added on disk (a teacher's edit,
    a test's scratch lesson) has new text and is parsed again. A Lesson is frozen, so sharing one is safe; a
    file that fails to parse is not kept (lru_cache keeps only returned values)."""
    lesson = parse_lesson(raw, name, where)
    for step in lesson.steps:  # what a shipped lesson also meets (core/lesson/rules.py)
        for key, message in shipped_step_problems(step.title, step.text, step.notes):
            _fail_at(raw, step.line, where)(key, message)
    return lesson


def all_shipped_lessons() -> dict[str, dict[str, Lesson]]:
    """The lessons in assets/lessons, by name and then language: NAME.toml and its translations NAME.LANG.toml,
    whose `lang` must say the same LANG."""
    found: dict[str, dict[str, Lesson]] = {}
    # by lesson name, then file: seed000, its translation, then seed000-20min (a plain sort of the file names
    # would put seed000-20min.toml first, '-' before '.')
    for f in sorted(asset_files("lessons", ".toml"), key=lambda f: (_name_and_lang(f.name)[0], f.name)):
        name, file_lang = _name_and_lang(f.name)
        where = f"assets/lessons/{f.name}"
        lesson = _parse_shipped(read_lesson_file(str(f), where), name, where)
        if lesson.lang != (file_lang or lesson.lang):
            raise LessonError(f"{where}: the file name says {file_lang!r} but its lang is {lesson.lang!r}")
        if lesson.lang in found.get(name, {}):
            raise LessonError(f"{where}: a second {lesson.lang!r} version of lesson {name!r}")
        found.setdefault(name, {})[lesson.lang] = lesson
    return found


def shipped_lessons(lang: str = "en") -> dict[str, Lesson]:
    """The shipped lessons by name, each in `lang` where it has that language, else in English (or the one it has)."""
    return {
        name: by_lang.get(lang) or by_lang.get("en") or next(iter(by_lang.values()))
        for name, by_lang in all_shipped_lessons().items()
    }


def find_lesson(name_or_path: str, lang: str | None = None) -> Lesson:
    """A shipped lesson by name, in `lang` (None: English), or a lesson file by path (in the language it says)."""
    if name_or_path.endswith(".toml") or "/" in name_or_path:
        return load_lesson(name_or_path)
    lessons = all_shipped_lessons()
    if name_or_path not in lessons:
        raise LessonError(f"no lesson called {name_or_path!r}; shipped: {', '.join(lessons) or 'none'}")
    by_lang = lessons[name_or_path]
    if (lang or "en") not in by_lang:
        raise LessonError(f"lesson {name_or_path!r} has no {lang!r} version; it has {', '.join(by_lang)}")
    return by_lang[lang or "en"]


SECTOR_BYTES = 32
HARDWARE_PLACEHOLDERS = ("model", *COUNTER_PLACEHOLDERS, "blocks", "waves", "resident")


def _hardware_figure(
    kind: str, ref: SeriesRef, problem: Problem, results: list[Result], lang: str = "en"
) -> str | None:
    """A figure from the model, the counters or the block trace of `ref` at `problem`; None if the results lack it."""
    if kind == "model":  # arithmetic: what the code asks for, every global load counted
        v = VARIANTS[ref.variant]
        if v.traffic is None:
            return None
        t = v.traffic_model(problem, dict(ref.params))
        return byte_size(FLOAT32_BYTES * t.global_loads, lang)
    if kind in COUNTER_PLACEHOLDERS:
        value = counter_value(results, ref, problem, kind)
        if value is None:
            return None
        if kind in COUNT_PLACEHOLDERS:
            return count(int(value), lang)
        return byte_size(value * (SECTOR_BYTES if kind == "l1" else 1), lang)
    found = [r for r in results if ref.matches(r) and r.valid and r.problem == problem]
    traced = [r for r in found if r.block_trace]
    if not traced:
        return None
    summary = _trace_summary(traced[0].block_trace)
    if kind == "blocks":
        return f"{summary.blocks:,}"
    return f"{summary.max_resident_per_sm}" if kind == "resident" else f"{summary.waves:.2f}"


_SUMMARIES: dict[int, tuple[object, object]] = {}  # id(trace) -> (the trace, its summary), the newest 16


def _trace_summary(trace):
    """trace_summary of a result's block trace, worked out once per trace: every {{blocks …}}, {{waves …}} and
    {{resident …}} of a step (and each repaint of its words in the window) turned the whole trace (3,969 blocks
    of lists) into an array again. Traces are read from files and never changed; the trace is held with its
    summary, so its id is not reused while the entry lives."""
    hit = _SUMMARIES.get(id(trace))
    if hit is not None and hit[0] is trace:
        return hit[1]
    summary = trace_summary(trace)
    while len(_SUMMARIES) >= 16:
        del _SUMMARIES[next(iter(_SUMMARIES))]
    _SUMMARIES[id(trace)] = (trace, summary)
    return summary


CEILING_PLACEHOLDERS = ("shared", "l2", "dram", "shared/dram", "fp32_peak", "ridge")


@functools.cache
def shipped_ceilings() -> dict | None:
    """The newest shipped ceilings file (assets/ceilings), checked: the one set of ceilings every slide quotes
    ({{ceiling …}}) and the roofline draws; None if none is shipped."""
    import json

    from gemmviz.core.hardware.roofline import check_ceilings

    files = asset_files("ceilings", ".json")
    return check_ceilings(json.loads(files[-1].read_text(encoding="utf-8"))) if files else None


def ceiling_text(key: str, lang: str = "en") -> str | None:
    """A shipped ceiling as a slide writes it: 'shared' 32.9 TB/s, 'dram' 4.25 TB/s, 'shared/dram' 7.7×,
    'fp32_peak' 66.9 TFLOP/s, 'ridge' 15.7 FLOP/B; None where the file lacks it."""
    c = shipped_ceilings() or {}
    tb = {"shared": "shared_gbs", "l2": "l2_gbs", "dram": "bandwidth_gbs"}
    if key in tb:
        v = c.get(tb[key])
        return None if v is None else f"{v / 1000:.{1 if key != 'dram' else 2}f} TB/s"
    if key == "shared/dram":
        a, b = c.get("shared_gbs"), c.get("bandwidth_gbs")
        return None if not (a and b) else render("lesson.times", lang, {"x": a / b})
    if key == "fp32_peak":
        v = c.get("fp32_peak_gflops")
        return None if v is None else f"{v / 1000:.1f} TFLOP/s"
    a, b = c.get("fp32_peak_gflops"), c.get("bandwidth_gbs")
    return f"{a / b:.1f} FLOP/B" if a and b else None


SHIPPED = "shipped"  # fill_text's microbench: the shipped recording (core/hardware/microbench.py), if there is one


def _microbench(bench: Microbench | None | str) -> Microbench | None:
    return shipped_microbench() if bench == SHIPPED else bench  # type: ignore[return-value]


def _recorded_figure(expr: str, microbench: Microbench | None | str, lang: str) -> str | None:
    """A {{ceiling …}}, {{latency …}} or {{microbench …}} figure (the shipped ceilings, the microbenchmark
    recording), the words saying it is absent, or None for another placeholder; ProblemError for an unknown name."""
    try:
        two = gpus.figure(
            expr, lang, parse_series
        )  # {{gpus …}}: the second GPU's recording beside the replay (core/lesson/gpus.py)
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
    if key not in FIGURES:
        known = LATENCY_LEVELS if mb.group(1) == "latency" else FIGURES
        raise ProblemError(f"{{{{{expr}}}}}: {mb.group(1)} takes one of {', '.join(known)}")
    return figure_text(_microbench(microbench), key, lang)


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
    bench_absent = figure_text(None, "", lang)

    def value(m: re.Match) -> str:
        figure = _value(m)
        if lacking is not None and figure in (absent, bench_absent):
            lacking.append(m.group(0))
        return figure

    def _value(m: re.Match) -> str:
        expr = m.group(1)
        recorded = _recorded_figure(expr, microbench, lang)
        if recorded is not None:
            return recorded
        for n in re.findall(r"\bat\s+(\d+)\s*$", expr):
            if not 0 < int(n) <= MAX_N:
                raise ProblemError(f"{{{{{expr}}}}}: N must be 1…{MAX_N}")
        size = r"(\d+|\d+[x×]\d+[x×]\d+)"  # N (N³) or M×N×K
        sp = re.fullmatch(rf"speedup\s+(\S+)\s+vs\s+(\S+)\s+at\s+{size}", expr)
        one = re.fullmatch(rf"(gflops|tflops|ms)\s+(\S+)\s+at\s+{size}", expr)
        flops = re.fullmatch(r"flops\s+at\s+(\d+)", expr)
        hw = re.fullmatch(rf"({'|'.join(HARDWARE_PLACEHOLDERS)})\s+(\S+)\s+at\s+{size}", expr)
        if hw:
            problem = parse_problem(hw.group(3))
            figure = _hardware_figure(hw.group(1), parse_series(hw.group(2)), problem, results, lang)
            return absent if figure is None else figure
        if flops:  # arithmetic, not a measurement: 2·N³
            return count(2 * int(flops.group(1)) ** 3, lang)
        if sp:
            at = parse_problem(sp.group(3))
            a, b = best(results, parse_series(sp.group(1)), at), best(results, parse_series(sp.group(2)), at)
            return ratio(b.median_ms / a.median_ms, lang) if a and b else absent
        if one:
            r = best(results, parse_series(one.group(2)), parse_problem(one.group(3)))
            if r is None:
                return absent
            kind = one.group(1)
            if kind == "ms":
                return duration(r.median_ms, lang)
            if kind == "tflops":
                return f"{r.gflops / 1000:,.1f} TFLOP/s"
            return f"{r.gflops:,.0f} GFLOP/s" if r.gflops >= 100 else f"{r.gflops:.3g} GFLOP/s"  # the CPU loop: 0.274
        raise ProblemError(f"unknown placeholder {{{{{expr}}}}}")

    filled = _PLACEHOLDER.sub(value, text)
    # Chinese: no space between two hanzi, where a figure's unit (亿, 毫秒, 个周期) meets the next word
    return _HAN_SPACE.sub("", filled)  # (no hanzi in other languages: nothing to take out)


_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_HAN_SPACE = re.compile(r"(?<=[\u3400-\u9fff]) +(?=[\u3400-\u9fff])")


def slide_words(text: str) -> int:
    """The words of a step's text as a slide shows it, a {{placeholder}} one word: words between spaces, and in
    Chinese (written without spaces) two characters a word."""
    plain = _PLACEHOLDER.sub(" X ", text)
    han = len(_HAN.findall(plain))
    rest = [w for w in _HAN.sub(" ", plain).split() if re.search(r"\w", w)]
    return len(rest) + (han + 1) // 2


def uses_microbench(step: Step) -> bool:
    """Whether the step's text quotes the microbenchmark recording ({{latency …}}, {{microbench …}})."""
    return any(re.match(r"(latency|microbench)\s", m) for m in _PLACEHOLDER.findall(step.text))


def step_quoted(step: Step, lang: str = "en", microbench: Microbench | None | str = SHIPPED) -> str:
    """What a slide's footer names beside its data source: the step's `quoted` figures, and where the figures
    of the microbenchmark recording it quotes come from ("latencies: H200, recorded 2026-12-02")."""
    notes = [step.quoted] if step.quoted else []
    if uses_microbench(step):
        notes.append(footer_note(_microbench(microbench), lang))
    if any(re.match(r"gpus\s", m) for m in _PLACEHOLDER.findall(step.text)):
        notes.append(gpus.footer(lang))
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


def lacking_figures(step: Step, source: LessonSource, lang: str = "en") -> list[str]:
    """The placeholders of the step's title and text that `source` has no figure for (shown as n/a)."""
    lacking: list[str] = []
    for text in (step.title, step.text):
        fill_text(text, list(source.results), lang, lacking)
    return lacking


def lesson_gaps(lesson: Lesson, source: LessonSource | None) -> list[str]:
    """What a teacher should hear before giving `lesson` from `source`, a line per gap: a step whose view will
    show no data (a typo in a series, a size the session lacks) and each figure its words will show as n/a."""
    if source is None:
        return ["this lesson names no session: its charts, tables and rooflines will be empty"]
    gaps = []
    for i, step in enumerate(lesson.steps, 1):
        if lesson_view(step.view).shows_results and not step_results(step, list(source.results)):
            gaps.append(f"step {i} ({step.title}): no results for its series and sizes in {source.label}")
        for placeholder in lacking_figures(step, source, lesson.lang):
            recorded = re.match(r"\{\{\s*(latency|microbench)\s", placeholder)
            why = (
                ": no microbenchmark recording is shipped (assets/microbench)"
                if recorded
                else f" is not in {source.label}"
            )
            gaps.append(f"step {i} ({step.title}): {placeholder}{why}; it reads n/a")
        for problem in claim_problems(step.because, list(source.results)):
            gaps.append(f"step {i} ({step.title}): {problem}")
    return gaps


def step_results(step: Step, results: list[Result]) -> list[Result]:
    return [r for r in results if step.shows(r)]


@dataclass(frozen=True)
class TableCell:
    time: str  # "5.46 s", or "—" where the results have no valid run
    ratio: str  # "16,265×" faster than the baseline at this size ("" where either is missing)


@dataclass(frozen=True)
class StepTable:
    """The seed's kind of table: one row per series, one column per size, each cell the median time and how
    many times faster than the baseline at the same size."""

    sizes: tuple[int, ...]
    rows: tuple[tuple[str, tuple[TableCell, ...]], ...]  # (series name, cells)
    baseline_label: str
    growth: bool = False  # × is each time over the size before's (a table with published rows beside)


def step_table(step: Step, results: list[Result], lang: str = "en", how: str | None = None) -> StepTable:
    """The step's table. With `beside` (a shipped published session), the published rows come first, each
    series' row of `results` after them, labelled by `how` they were obtained ("measured" here and now,
    "replayed" from a recording, "published"; None: no word), and a cell's × is its time over the size before
    it (the growth per doubling the seed's table hides), not the baseline's."""
    if step.beside:
        return _beside_table(step, results, lang, how)
    b = baseline(step.baseline or "cpu-naive")
    base_ref = SeriesRef(b.variant, tuple(sorted(b.params.items())))
    rows = []
    for ref in step.series:
        cells = []
        for n in step.sizes:
            r, base = best(results, ref, n), best(results, base_ref, n)
            time = duration(r.median_ms, lang) if r else "—"
            same = render("lesson.times.same", lang)
            times = (
                same if r is not None and r is base else ratio(base.median_ms / r.median_ms, lang) if r and base else ""
            )
            cells.append(TableCell(time, times))
        rows.append((series_name(ref.variant, dict(ref.params)), tuple(cells)))
    return StepTable(tuple(step.sizes), tuple(rows), b.label)


def published_session(name: str) -> Session:
    """A shipped session by name (a table's `beside`); LessonError if it is not shipped or does not load."""
    from gemmviz.core.lesson.files import shipped_session

    file = shipped_session(name)
    if file is None:
        raise LessonError(f"no shipped session {name!r}")
    try:
        return Session.load(asset_path("sessions", file))
    except SessionError as exc:
        raise LessonError(f"session {name!r}: {exc}") from None


def _growth_row(label: str, ref: SeriesRef, sizes: tuple[int, ...], results: list[Result], lang: str):
    cells, before = [], None
    for n in sizes:
        r = best(results, ref, n)
        grew = ratio(r.median_ms / before.median_ms, lang) if r and before else ""
        cells.append(TableCell(duration(r.median_ms, lang) if r else "—", grew))
        before = r
    return label, tuple(cells)


# how a table's own rows were obtained, in words (LessonSource.how): never "measured here" on a replay
HOW_KINDS = ("measured", "replayed", "published")
define("lesson.how.measured", en="measured here", zh="本机实测")
define("lesson.how.replayed", en="replayed", zh="回放记录")
define("lesson.how.published", en="published", zh="已发表")
define("lesson.times", en="{x:.1f}×", zh="{x:.1f} 倍")
define("lesson.times.same", en="1×", zh="1 倍")
define("lesson.quoted", en="{notes:semi}", zh="{notes:semi}")


def how_words(how: str | None, lang: str) -> str:
    """'measured here', 'replayed' or 'published' (in `lang`); '' for None or an unknown kind."""
    return render("lesson.how." + how, lang) if how in HOW_KINDS else ""


def _beside_table(step: Step, results: list[Result], lang: str, how: str | None = None) -> StepTable:
    published = published_session(step.beside)
    where = published.environment.get("gpu", "").removeprefix("NVIDIA ") or published.label
    rows = []
    for ref in step.series:
        name = series_name(ref.variant, dict(ref.params))
        kind = how_words("published", lang)
        rows.append(_growth_row(f"{name}, {where} ({kind})", ref, step.sizes, list(published.results), lang))
    words = how_words(how, lang)
    for ref in step.series:
        name = series_name(ref.variant, dict(ref.params))
        rows.append(_growth_row(f"{name}, {words}" if words else name, ref, step.sizes, results, lang))
    return StepTable(tuple(step.sizes), tuple(rows), "", growth=True)


RUN_SIZES = (1024, 2048, 4096)  # what a run step measures when it names no sizes


# a lesson's data source: the line on screen (its header) and the slide's footer
SOURCE_REPLAYED = define(
    "lesson.source.replayed", en="Replayed: recorded on {gpu}, {date}", zh="回放：录制于 {gpu}，{date}"
)
SOURCE_MEASURED = define("lesson.source.measured", en="Measured on {gpu}, {date}", zh="测量于 {gpu}，{date}")
SOURCE_PUBLISHED = define(
    "lesson.source.published", en="Published figures: {gpu}, {date}", zh="已发表的数据：{gpu}，{date}"
)
SOURCE_LIVE = define("lesson.source.live", en="Live on {gpu}", zh="在 {gpu} 上实时测量")
SOURCE_NONE = define("lesson.source.none", en="No recorded results for this lesson", zh="这个课程没有录制的结果")
FOOTER = define(
    "lesson.footer", en="{gpu}, {date}, {how} · gemmviz {version}", zh="{gpu}，{date}，{how} · gemmviz {version}"
)
FOOTER_NONE = define("lesson.footer.none", en="no results · gemmviz {version}", zh="无结果 · gemmviz {version}")
FOOTER_QUOTED = define("lesson.footer.quoted", en="{footer} · quoted: {quoted}", zh="{footer} · 引用：{quoted}")


@dataclass(frozen=True)
class LessonSource:
    """Where a lesson's numbers come from: the results, the line on screen and the slide footer (messages, said
    in the window's language; `label` and `footer` in English)."""

    results: tuple[Result, ...]
    label_message: Message  # "Replayed: recorded on NVIDIA H200, 2026-11-30" or "Live on NVIDIA H200"
    footer_message: Message  # "NVIDIA H200, 2026-11-30, replayed · gemmviz 0.1.0"
    gpu: str | None  # whose ceilings the roofline draws
    sms: int | None = None  # the GPU's SM count: the rows of an sm-trace view
    how: str | None = None  # "measured" (here, now), "replayed" (a recording) or "published"; None: no results

    @property
    def label(self) -> str:
        return render(self.label_message, "en")

    @property
    def footer(self) -> str:
        return render(self.footer_message, "en")


NO_DATA = LessonSource((), msg(SOURCE_NONE), msg(FOOTER_NONE, version=__version__), None)


def _session_gpu(session: Session) -> str | None:
    cuda = session.environment.get("backends", {}).get("cuda", {})
    return cuda.get("name") if cuda.get("available") else session.environment.get("gpu")


def session_source(session: Session, replay: bool = True) -> LessonSource:
    """A session's results as a lesson source: published figures, or measured ones replayed here."""
    gpu = _session_gpu(session) or session.environment.get("cpu") or "an unknown machine"
    date = (session.created or "")[:10] or msg(UNDATED)
    if session.kind == "published":
        how = "published"
    else:
        how = "replayed" if replay else "measured"
    label = {"published": SOURCE_PUBLISHED, "replayed": SOURCE_REPLAYED, "measured": SOURCE_MEASURED}[how]
    sms = session.environment.get("backends", {}).get("cuda", {}).get("sms")
    return LessonSource(
        tuple(session.results),
        msg(label, gpu=gpu, date=date),
        msg(FOOTER, gpu=gpu, date=date, how=how_message(how), version=__version__),
        _session_gpu(session),
        sms if isinstance(sms, int) else None,
        how,
    )


def live_source(results: list[Result], gpu: str, date: str) -> LessonSource:
    """Results measured in this run on this machine's GPU."""
    return LessonSource(
        tuple(results),
        msg(SOURCE_LIVE, gpu=gpu),
        msg(FOOTER, gpu=gpu, date=date, how=how_message("measured"), version=__version__),
        gpu,
        how="measured",
    )


# the lesson sources read from session files, while the files stay the same (path, time, size): a lesson started in
# the window, its presenter, its export and every test's lesson read and checked the whole session again (0.16 s
# each). A LessonSource is frozen and nothing writes to the results it holds.
_SESSIONS = FileMemo(size=8)


def lesson_session(lesson: Lesson, override: str | Path | None = None) -> LessonSource | None:
    """The session a lesson replays (`override`, else the shipped file it names); None if it names none.

    LessonError if the file cannot be read."""
    if override is None and not lesson.session:
        return None
    path = (
        Path(override)
        if override is not None
        else lesson_session_path(lesson.session or "", lesson.path, lesson.folder)
    )
    try:
        return _SESSIONS.get([path], lambda: session_source(Session.load(path), replay=True))
    except SessionError as exc:
        where = "" if override is not None else f"{lesson.path}: session {lesson.session!r}: "
        raise LessonError(f"{where}{exc}") from None


def step_jobs(step: Step) -> list[Job]:
    """The jobs a run step measures: its series (missing params at their defaults) at its sizes, less
    the ones the registry refuses (a CPU loop that would take minutes, say)."""
    jobs = []
    for ref in step.series:
        v = VARIANTS[ref.variant]
        params = {**v.param_defaults, **dict(ref.params)}
        for n in step.sizes or RUN_SIZES:
            problem = Problem(n, n, n)
            if v.refusal(problem, params) is None:
                jobs.append(Job(ref.variant, tuple(sorted(params.items())), problem))
    return jobs
