"""Hostile input, round 6: what an outside sweep found after round 5 — lesson and exercise files whose numbers
broke the parser, a key given twice in TOML said as a Python tuple. Each test fails on the code before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemmviz.core.exercise.exercises import ExerciseError, parse_exercise
from gemmviz.core.lesson.lessons import LessonError, parse_lesson

HUGE = "9" * 5000  # past Python's 4300-digit limit on int()


def test_a_number_of_thousands_of_digits_in_a_lesson_or_exercise_is_named_with_its_line(tmp_path):
    """tomllib's int() raised ValueError, which fell through to "a bug in gemmviz?" in the CLI and out of the
    window's open with a traceback and no dialog."""
    lesson = (
        f'title = "t"\n\n[[step]]\ntitle = "s"\ntext = "x"\nanimation = {{ variant = "gpu-tiled", step = {HUGE} }}\n'
    )
    with pytest.raises(LessonError, match=r"^l\.toml: a number with thousands of digits \(line 6\)$"):
        parse_lesson(lesson, "l", "l.toml")
    with pytest.raises(ExerciseError, match=r"^e\.toml: a number with thousands of digits \(line 2\)$"):
        parse_exercise(f'format = "gemmviz-exercise"\norder = {HUGE}\n', "e.toml", Path(tmp_path))


@pytest.mark.parametrize(
    "text",
    ['title = "a"\ntitle = "b"\n', "[zz]\na = 1\n[zz]\nb = 2\n"],
)
def test_a_key_or_table_given_twice_in_toml_says_so(text):
    with pytest.raises(LessonError, match=r"a key or table given twice: .*line [0-9]"):
        parse_lesson(text, "l", "l.toml")


def test_an_animation_of_hours_of_rendering_is_refused_before_a_frame(tmp_path, capsys):
    """Each frame was held to 16.8 megapixels, but not their sum: 79984³ at 4096x4096 started 20,000+ frames (over
    an hour and ~9 GB of PNGs). The whole animation now has a budget, said with its figures; a still is one frame."""
    from gemmviz.cli.main import main

    gif = tmp_path / "big.gif"
    assert main(["animate", "--mnk", "79984", "--gif", str(gif), "--size", "4096x4096"]) == 2
    err = capsys.readouterr().err
    assert "frames at 4096x4096 are" in err and "gigapixel budget of one animation" in err and not gif.exists()


def test_an_include_name_no_file_system_takes_is_refused_like_any_missing_file(tmp_path):
    """`#include "bbb…(300).h"` made Path.exists() raise ENAMETOOLONG: the grader wrote "the check broke (OSError
    …; a bug in gemmviz?)" for the hand-in at every run, so the class never finished; the message was 200 KB for
    a 200,000-character name."""
    from gemmviz.core.exercise.includes import check_includes

    for length in (300, 200_000):
        source = f'#include "{"b" * length}.h"\n__global__ void k() {{}}\n'
        with pytest.raises(ExerciseError, match=r"no such file in .*, and not a CUDA header") as info:
            check_includes(source, tmp_path, "inc.cu")
        assert len(str(info.value)) < 400 and "b" * 79 + "…" in str(info.value)
