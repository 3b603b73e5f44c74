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


# ---- a settings value Qt would die decoding ------------------------------------------------------------------
CRASHERS = [
    r"@Variant(\0\0\0\t\x40\0\0\0\0\0\0\x2\0\0\0\x10)",  # a list of 0x40000000 entries in 8 bytes
    r"@Variant(\0\0\0\xb\x7f\xff\xff\xff)",  # a string list of 2^31 - 1
    r"@Variant(\0\0\0\t\0\0\0\x1\0\0\0\t\x7f\0\0\0)",  # inside a list
]


@pytest.mark.parametrize("value", CRASHERS)
def test_a_stored_list_longer_than_its_bytes_never_reaches_qt(qapp, tmp_path, monkeypatch, caplog, value):
    """One edited byte in gemmviz.conf ended every start with std::bad_alloc (exit 134) inside QSettings.value();
    the file is now checked first, left as it is, and the app starts on defaults naming the key."""
    import logging

    from gemmviz.ui.settings_store import open_settings

    monkeypatch.setenv("GEMMVIZ_CONFIG_DIR", str(tmp_path))
    conf = tmp_path / "gemmviz.conf"
    conf.write_text(f"[run]\nrepeats=5\nparams\\tile={value}\n")
    before = conf.read_bytes()
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        qs = open_settings()
    assert qs.fileName() != str(conf) and qs.value("run/params/tile") is None  # defaults, in a scratch file
    assert "run/params/tile: a list of" in caplog.text and "Qt cannot decode safely" in caplog.text
    assert conf.read_bytes() == before


def test_every_value_qt_writes_passes_the_check(qapp, tmp_path):
    """No false alarm: lists, string lists, maps, nested lists, numbers and texts as QSettings stores them."""
    from PySide6.QtCore import QSettings

    from gemmviz.core.stored_variants import variant_problem

    path = tmp_path / "s.conf"
    qs = QSettings(str(path), QSettings.Format.IniFormat)
    values = {
        "a": [16],
        "b": ["x", "héllo", ""],
        "c": {"k": [1, 2.5, "z"], "m": {"n": True}},
        "d": [[1, [2, [3]]], []],
        "e": [2**40, -1, 0.1],
        "f": ["a,b;c", "\\x40"],
    }
    for key, value in values.items():
        qs.setValue(f"g/{key}", value)
    qs.sync()
    text = path.read_text(encoding="latin-1")
    assert text.count("@Variant") >= 3 and variant_problem(text) is None


def test_the_second_of_two_stored_values_on_a_line_is_checked_too(tmp_path):
    from gemmviz.core.stored_variants import variant_problem

    good = r"@Variant(\0\0\0\t\0\0\0\0)"
    assert variant_problem(f"[g]\nd={good}, {good}\n") is None
    assert "g/d: a list of" in (variant_problem(f"[g]\nd={good}, {CRASHERS[0]}\n") or "")


def test_toml_is_parsed_in_one_place():
    """CONTRIBUTING's rule, held: every TOML a user gives goes through fileio.parse_toml (nesting, huge numbers,
    a key given twice), so a new loader cannot skip what the last rounds fixed."""
    package = Path(__file__).resolve().parents[1] / "gemmviz"
    calls = [
        f"{p.relative_to(package)}"
        for p in package.rglob("*.py")
        if "tomllib.load" in p.read_text(encoding="utf-8") and p.name != "fileio.py"
    ]
    assert calls == []


@pytest.mark.parametrize(
    "argv",
    [
        ["lesson", "seed000", "--session", "", "--export", "out"],
        ["export", "h200-2026-12-02", "--chart", "gap", "--pair", " ", "-o", "g.png"],
        ["exercise", "check", "k.cu", "--exercise", ""],
        ["exercise", "start", "naive", ""],
        ["--open", ""],
    ],
)
def test_an_empty_value_is_refused_not_read_as_the_default(tmp_path, monkeypatch, capsys, argv):
    """`--session ''` took the lesson's own session, `--pair ''` the default pair, `exercise start naive ''` the
    current folder, `--open ''` a dialog starting ": gemmviz opens …"; each now exits 2 naming the option."""
    from gemmviz.cli.main import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2 and "an empty value" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing written, no folder made


# ---- a session that contradicts itself -------------------------------------------------------------------------
def _shipped_session() -> dict:
    import json

    from gemmviz.core.paths import asset_path

    return json.loads(asset_path("sessions", "h100-2026-12-07.json").read_text())


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("rel_error", 0.5, "is over its threshold"),  # valid, yet over the check's own threshold
        ("wrong_elements", 3, "elements of C are wrong or unwritten"),
        ("unwritten", 1, "elements of C are wrong or unwritten"),
    ],
)
def test_a_valid_result_that_failed_its_check_is_refused(tmp_path, field, value, words):
    """A result said valid with a relative error over its threshold (or wrong elements) was charted as a time:
    the verifier's own rule is now the loader's, so a failed check is never drawn."""
    from gemmviz.core.session.results import Session, SessionError

    doc = _shipped_session()
    first = next(i for i, r in enumerate(doc["results"]) if r["valid"] and r["threshold"])
    doc["results"][first][field] = value
    path = tmp_path / "s.json"
    import json

    path.write_text(json.dumps(doc))
    with pytest.raises(SessionError, match=words):
        Session.load(path)


def test_a_session_recorded_on_a_day_that_does_not_exist_is_refused(tmp_path):
    import json

    from gemmviz.core.session.results import Session, SessionError

    doc = _shipped_session()
    doc["created"] = "2026-13-45T25:61:00Z"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(SessionError, match="created: .* is not a date and time"):
        Session.load(path)


# ---- a file of another kind ------------------------------------------------------------------------------------
def test_a_file_of_another_gemmviz_kind_is_named_as_what_it_is(tmp_path):
    """An exercise opened as a lesson said "unknown key 'block_tile'", a lesson given as an exercise "unknown key
    'session'", a check record opened as a session 'no "schema"', a session shown as a check "format must be";
    each now says what the file is and where it opens."""
    import json

    from gemmviz.core.exercise.record import CheckFileError, validate_check
    from gemmviz.core.paths import asset_path
    from gemmviz.core.session.results import Session, SessionError

    exercise = asset_path("exercises", "banks.toml").read_text()
    lesson = asset_path("lessons", "seed000.toml").read_text()
    with pytest.raises(LessonError, match="an exercise, not a lesson"):
        parse_lesson(exercise, "banks", "banks.toml")
    with pytest.raises(ExerciseError, match="a lesson, not an exercise"):
        parse_exercise(lesson, "seed000.toml", Path(tmp_path))
    record = tmp_path / "k.check.json"
    record.write_text(json.dumps({"format": "gemmviz-exercise-check", "version": 1}))
    with pytest.raises(SessionError, match="an exercise check record"):
        Session.load(record)
    with pytest.raises(CheckFileError, match="a gemmviz session, not an exercise check record"):
        validate_check(_shipped_session())
