"""A lesson's file format: TOML text to a checked `Lesson` (core/lesson/model.py). A bad file is refused with a
LessonError that names the file, the line and what to change: the top-level keys, each step's words (a title,
one to three sentences, speaker notes), its view and that view's keys (through the registry of
core/lesson/views.py), its series and sizes, its claims, the rules of core/lesson/rules.py, and its placeholders
(core/lesson/placeholders.py). A lesson in another language is a file of its own, NAME.LANG.toml beside
NAME.toml, with `lang` at its top and the same steps, views and placeholders."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from gemmviz.core.fileio import InputFileError, parse_toml
from gemmviz.core.lesson.claims import parse_claims
from gemmviz.core.lesson.files import MAX_FILE_BYTES, LessonError, session_problem
from gemmviz.core.lesson.model import Lesson, Step
from gemmviz.core.lesson.placeholders import check_placeholders, slide_words
from gemmviz.core.lesson.rules import step_problems
from gemmviz.core.lesson.series import parse_series
from gemmviz.core.lesson.views import (
    COMMON_KEYS,
    MAX_N,
    CommonFields,
    LessonViewKind,
    StepProblem,
    all_keys,
    lesson_view,
    owners,
    view_names,
    whole,
)
from gemmviz.core.numbers import LANGUAGES
from gemmviz.core.problem import ProblemError
from gemmviz.core.session.results import CONTROL_IN_NAMES

MAX_SENTENCES = 3
MAX_TEXT_CHARS = 420
MAX_STEPS = 100  # a lesson for one class; the slide export keeps every image in memory until all are drawn
MAX_TITLE_CHARS = 120
MAX_NOTES_CHARS = 4000  # a few paragraphs of what the teacher says; the slide itself stays short
LESSON_KEYS = ("title", "summary", "session", "step", "lang")

# a step's problem: the key at fault (None: the step as a whole) and what to change; it raises LessonError
Fail = Callable[[str | None, str], NoReturn]


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


def fail_at(raw: str, line: int, where: str) -> Fail:
    """A step's Fail: LessonError naming `where` and the line of `key` in the step that starts at `line`."""

    def fail(key: str | None, message: str) -> NoReturn:
        at = _key_line(raw, line, key) if key else line
        raise LessonError(f"{where}:{at}: {message}")

    return fail


def _notes(d: Mapping[str, Any], fail: Fail) -> str:
    """A step's speaker notes (optional): plain text, paragraphs kept."""
    notes = d.get("notes", "")
    if not isinstance(notes, str) or len(notes) > MAX_NOTES_CHARS:
        fail("notes", f"notes are the speaker's words beside the slide: text of at most {MAX_NOTES_CHARS} characters")
    paragraphs = (" ".join(p.split()) for p in re.split(r"\n\s*\n", notes))
    return "\n\n".join(p for p in paragraphs if p)


def _words(d: Mapping[str, Any], fail: Fail) -> tuple[str, str, str]:
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


def _common(d: Mapping[str, Any], fail: Fail) -> CommonFields:
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


def _view_kind(d: Mapping[str, Any], fail: Fail) -> LessonViewKind:
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


def _parse_step(d: Mapping[str, Any], line: int, raw: str, where: str) -> Step:
    fail = fail_at(raw, line, where)
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


def _toml(raw: str, where: str) -> dict[str, Any]:
    try:
        return parse_toml(raw)
    except InputFileError as exc:  # nested too deep, a number of thousands of digits
        raise LessonError(f"{where}: {exc}") from None
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
    if data.get("format") == "gemmviz-exercise":  # "unknown key 'block_tile'" said nothing of what the file is
        raise LessonError(
            f"{where}: an exercise, not a lesson: open it with `gemmviz exercise start` or the Exercise tab"
        )
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        raise LessonError(f"{where}:{_key_line(raw, 1, 'title')}: the lesson needs a title (a string) at the top")
    unknown = set(data) - set(LESSON_KEYS)
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
