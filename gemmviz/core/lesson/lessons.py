"""Guided lessons: a sequence of steps, each a title, one to three sentences and one view, read from TOML files
(`assets/lessons/*.toml`) a teacher can copy and edit. The lesson package keeps one idea per module:

- `model`: the `Lesson` and its `Step`s, and which results a step shows;
- `parse`: the file format, TOML text to a checked Lesson (a LessonError naming file and line, `files`);
- `library`: which lessons there are, shipped by name and language, or a file by path;
- `placeholders`: the `{{…}}` mini-language of a step's text, and `figures`, the figures it writes;
- `tables`: a table step's table; `source`: where the numbers come from (replayed, published, live);
- `lacking`: what a teacher should hear before giving a lesson from a source; `runs`: what a run step measures;
- `views`, `claims`, `series`, `rules`, `gpus`: a step's view kinds, its claims, its series, the rules it meets,
  the second GPU's recording.

This module gathers the public names the window, the CLI and the tests use, so that they import one place.
"""

from __future__ import annotations

from gemmviz.core.lesson.figures import (
    CEILING_PLACEHOLDERS,
    HARDWARE_PLACEHOLDERS,
    ceiling_text,
    shipped_ceilings,
)
from gemmviz.core.lesson.files import LessonError
from gemmviz.core.lesson.lacking import lacking_figures, lesson_gaps
from gemmviz.core.lesson.library import all_shipped_lessons, find_lesson, load_lesson, shipped_lessons
from gemmviz.core.lesson.model import Lesson, Step, step_results
from gemmviz.core.lesson.parse import parse_lesson
from gemmviz.core.lesson.placeholders import (
    SHIPPED,
    check_placeholders,
    fill_text,
    slide_words,
    step_quoted,
    uses_microbench,
)
from gemmviz.core.lesson.runs import RUN_SIZES, step_jobs
from gemmviz.core.lesson.series import SeriesRef, parse_series
from gemmviz.core.lesson.source import (
    FOOTER,
    FOOTER_NONE,
    FOOTER_QUOTED,
    NO_DATA,
    LessonSource,
    lesson_session,
    live_source,
    session_source,
)
from gemmviz.core.lesson.tables import HOW_KINDS, StepTable, TableCell, how_words, published_session, step_table

__all__ = [
    "CEILING_PLACEHOLDERS",
    "FOOTER",
    "FOOTER_NONE",
    "FOOTER_QUOTED",
    "HARDWARE_PLACEHOLDERS",
    "HOW_KINDS",
    "NO_DATA",
    "RUN_SIZES",
    "SHIPPED",
    "Lesson",
    "LessonError",
    "LessonSource",
    "SeriesRef",
    "Step",
    "StepTable",
    "TableCell",
    "all_shipped_lessons",
    "ceiling_text",
    "check_placeholders",
    "fill_text",
    "find_lesson",
    "how_words",
    "lacking_figures",
    "lesson_gaps",
    "lesson_session",
    "live_source",
    "load_lesson",
    "parse_lesson",
    "parse_series",
    "published_session",
    "session_source",
    "shipped_ceilings",
    "shipped_lessons",
    "slide_words",
    "step_jobs",
    "step_quoted",
    "step_results",
    "step_table",
    "uses_microbench",
]
