"""Issue 20: every step of every shipped lesson, in English and Chinese, legible from the back of a room at
1280×720 and 1920×1080 in projector type: in the window (the lesson view and the live view it embeds) and on
the exported slide. No text under the projector's size (24 px at 1080p, 16 px at 720p), none cut, none over
another (tests/test_lesson_ui.py checks the slides' own layout). Texts are caught as they are painted
(tests/legibility.py); the checks are tests/checks/lesson_legible.py's."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from gemmviz.core.lesson.lessons import lesson_session, shipped_lessons
from tests.checks.lesson_legible import SIZES, exported_slides_are_legible, window_steps_are_legible

LESSONS = {lang: shipped_lessons(lang) for lang in ("en", "zh")}
CASES = [(lang, name) for lang, lessons in LESSONS.items() for name in sorted(lessons)]


@pytest.fixture(scope="module")
def sources():
    return {(lang, name): lesson_session(LESSONS[lang][name]) for lang, name in CASES}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize(("lang", "name"), CASES)
def test_every_step_in_the_window_is_legible_on_a_projector(qtbot, sources, lang, name, size):
    window_steps_are_legible(qtbot, LESSONS[lang][name], sources[lang, name], size)


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize(("lang", "name"), CASES)
def test_every_exported_slide_is_legible(qtbot, sources, lang, name, size):
    exported_slides_are_legible(LESSONS[lang][name], sources[lang, name], size)
