"""Which lessons there are: the shipped files (assets/lessons/NAME.toml and its translations NAME.LANG.toml), by
name and language, each parsed once per process while its text stays the same, and a teacher's own file by path."""

from __future__ import annotations

import functools
from pathlib import Path

from gemmviz.core.lesson.files import LessonError, read_lesson_file
from gemmviz.core.lesson.model import Lesson
from gemmviz.core.lesson.parse import fail_at, parse_lesson
from gemmviz.core.lesson.rules import shipped_step_problems
from gemmviz.core.numbers import LANGUAGES
from gemmviz.core.paths import asset_files


def _name_and_lang(file_name: str) -> tuple[str, str | None]:
    """'seed000.zh.toml' -> ('seed000', 'zh'); 'seed000.toml' -> ('seed000', None)."""
    stem = file_name.removesuffix(".toml")
    base, _, lang = stem.rpartition(".")
    return (base, lang) if base and lang in LANGUAGES else (stem, None)


def load_lesson(path: str | Path) -> Lesson:
    """A lesson file by path (a teacher's own): its name is the file's, its `session` may be a file beside it."""
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
            fail_at(raw, step.line, where)(key, message)
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
