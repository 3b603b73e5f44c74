"""Every loader bounds a file's nesting before its parser sees it and answers with its own typed error naming
the file (issue 46, item 7): a gap file nested 100,000 deep was "RecursionError … (a bug in gemmviz?)" in
`gemmviz export --chart gap`, and load_pipeline_file raised the same. A version must be an integer, not true."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gemmviz.core.fileio import MAX_NESTING, InputFileError, check_nesting
from gemmviz.core.paths import asset_path

DEEP_JSON = {"lists": "[" * 100_000, "objects": '{"a":' * 100_000}
DEEP_TOML = 'title = "x"\nsteps = ' + "[" * 100_000 + "\n"


def _session(path):
    from gemmviz.core.session.results import Session

    return Session.load(path)


def _gap(path):
    from gemmviz.core.hardware.gap import load_gap_file

    return load_gap_file(path)


def _pipeline(path):
    from gemmviz.core.hardware.pipeline_trace import load_pipeline_file

    return load_pipeline_file(path)


def _check(path):
    from gemmviz.core.exercise.record import load_check

    return load_check(path)


def _microbench(path):
    from gemmviz.core.hardware.microbench import load_microbench

    return load_microbench(path)


def _accesses(path):
    from gemmviz.core.hardware.accesses import load_file

    return load_file(path)


def _exercise(path):
    from gemmviz.core.exercise.exercises import load_exercise_file

    return load_exercise_file(path)


def _lesson(path):
    from gemmviz.core.lesson.lessons import load_lesson

    return load_lesson(path)


JSON_LOADERS = [_session, _gap, _pipeline, _check, _microbench, _accesses]
TOML_LOADERS = [_exercise, _lesson]


@pytest.mark.parametrize("loader", JSON_LOADERS, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("shape", sorted(DEEP_JSON))
def test_a_json_file_nested_100000_deep_is_refused_by_its_loader_naming_the_file(tmp_path, loader, shape):
    path = tmp_path / "deep-file.json"
    path.write_text(DEEP_JSON[shape], encoding="utf-8")
    with pytest.raises(ValueError) as caught:  # each loader's own error (SessionError, RecordError, ...)
        loader(path)
    assert not isinstance(caught.value, RecursionError) and type(caught.value) is not ValueError
    assert "deep-file.json" in str(caught.value) and "nested" in str(caught.value)


@pytest.mark.parametrize("loader", TOML_LOADERS, ids=lambda f: f.__name__.strip("_"))
def test_a_toml_file_nested_100000_deep_is_refused_by_its_loader_naming_the_file(tmp_path, loader):
    path = tmp_path / "deep-file.toml"
    path.write_text(DEEP_TOML, encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        loader(path)
    assert "deep-file.toml" in str(caught.value) and "nested" in str(caught.value)


def test_nesting_is_counted_outside_strings_and_comments():
    check_nesting(json.dumps({"a": "[" * 1000, "b": ["{" * 1000, '"]]]' * 10]}))
    check_nesting('a = "[[[[[[" # [[[[[[[[\nb = \'[[[[\'\nc = """\n' + "[" * 200 + '\n"""\n', toml=True)
    check_nesting("[" * MAX_NESTING + "]" * MAX_NESTING)
    with pytest.raises(InputFileError):
        check_nesting("[" * (MAX_NESTING + 1))
    with pytest.raises(InputFileError):
        check_nesting('["]",' + "[" * 200 + "]")  # a closing bracket in a string does not hide an opening one


def test_the_shipped_files_are_well_within_the_bound():
    for name in ("h200-2026-12-02.json", "h200-2026-12-02-gap.json", "h200-2026-12-02-pipeline.json"):
        check_nesting(asset_path("sessions", name).read_text(encoding="utf-8"), limit=8)


def test_export_of_a_gap_chart_with_a_deep_gap_file_is_one_line_and_exit_2(tmp_path, capsys):
    from gemmviz.cli.main import main

    session = tmp_path / "h200.json"
    shutil.copy(asset_path("sessions", "h200-2026-12-02.json"), session)
    (tmp_path / "h200-gap.json").write_text(DEEP_JSON["objects"], encoding="utf-8")
    assert main(["export", str(session), "--chart", "gap", "-o", str(tmp_path / "g.png")]) == 2
    err = capsys.readouterr().err
    assert "h200-gap.json" in err and "a bug in gemmviz" not in err and "RecursionError" not in err


@pytest.mark.parametrize("loader", [_gap, _pipeline], ids=["gap", "pipeline"])
def test_schema_version_true_is_refused(tmp_path, loader):
    """true == 1 in Python: a version is an integer, not a boolean."""
    name = "h200-2026-12-02-gap.json" if loader is _gap else "h200-2026-12-02-pipeline.json"
    doc = json.loads(asset_path("sessions", name).read_text(encoding="utf-8"))
    loader(Path(asset_path("sessions", name)))  # the shipped file opens
    doc["schema_version"] = True
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ValueError, match="schema_version"):
        loader(path)


def test_exercise_and_check_versions_true_are_refused(tmp_path):
    from gemmviz.core.exercise.exercises import ExerciseError, parse_exercise
    from gemmviz.core.exercise.record import CheckFileError, validate_check

    text = asset_path("exercises", "naive.toml").read_text(encoding="utf-8")
    parse_exercise(text, "naive.toml", tmp_path)
    with pytest.raises(ExerciseError, match="version"):
        parse_exercise(text.replace("version = 1", "version = true"), "naive.toml", tmp_path)
    with pytest.raises(CheckFileError, match="version"):
        validate_check({"format": "gemmviz-exercise-check", "version": True})


def test_input_file_error_is_a_value_error():
    assert issubclass(InputFileError, ValueError)


RECORDS = Path(__file__).parent / "data" / "exercises" / "records"


def _edited(name: str, change) -> dict:
    doc = json.loads((RECORDS / name).read_text(encoding="utf-8"))
    change(doc)
    return doc


@pytest.mark.parametrize(
    ("name", "change"),
    [
        ("naive_good.check.json", lambda d: d["shapes"][0].update(error_margin=None)),
        ("naive_good.check.json", lambda d: d["shapes"][0].update(rel_error=None)),
        ("naive_good.check.json", lambda d: d["verdicts"][0].update(message={"key": [], "params": {}})),
        ("naive_endless.check.json", lambda d: d["shapes"][0].update(timeout_s=None)),
    ],
)
def test_a_check_record_with_a_null_or_a_list_where_a_value_goes_is_loaded_or_refused_never_a_type_error(
    tmp_path, name, change
):
    """Found by changing one field of the shipped records at a time: each was a TypeError ('a bug in gemmviz?')."""
    from gemmviz.core.exercise.record import CheckFileError, load_check

    path = tmp_path / name
    path.write_text(json.dumps(_edited(name, change)), encoding="utf-8")
    try:
        load_check(path)
    except CheckFileError as exc:
        assert "check" in str(exc)


def test_a_pipeline_clock_that_is_a_list_is_refused_naming_the_field(tmp_path):
    from gemmviz.core.hardware.pipeline_trace import load_pipeline_file
    from gemmviz.core.session.recorded import RecordError

    doc = json.loads(asset_path("sessions", "h200-2026-12-02-pipeline.json").read_text(encoding="utf-8"))
    doc["clock"] = ["clock64"]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(RecordError, match="p.json: clock: must be one of"):
        load_pipeline_file(path)
