"""The exercises coalescing and banks (issue 32, item 5): listed in teaching order, their starters and answers
are their kernels, and their goals on what a kernel touched are judged from a check's access trace.

The traces are the H200's, recorded by the GPU tracer (tests/data/exercises/records/): the naive and tiled
exercises' kernels have the same bodies as these exercises' answers and starters (naive_good is
coalescing_good's body, naive_uncoalesced the coalescing starter's, tiled_conflicts the banks starter's), so
the figures below are those of real runs, in the format the CPU emulator writes too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gemmviz.cli.main import main
from gemmviz.core.exercise.access_figures import check_goals
from gemmviz.core.exercise.access_goals import access_verdict
from gemmviz.core.exercise.exercises import (
    ExerciseError,
    check_signature,
    find_exercise,
    guess_exercise,
    parse_exercise,
    shipped_exercises,
    strip_comments,
)
from gemmviz.core.exercise.grading import record_row, students
from gemmviz.core.exercise.record import load_check

DATA = Path(__file__).parent / "data" / "exercises"
ASSETS = DATA.parents[2] / "assets" / "exercises"


def _record(name: str) -> dict:
    record = load_check(DATA / "records" / f"{name.removesuffix('-untraced')}.check.json")
    if name.endswith("-untraced"):  # as a check that could not record the accesses says it
        record["accesses"] = {"note": "no access records: the tracer could not be built"}
    return record


def _body(path: Path) -> str:
    """The kernel's statements, comments and the kernel's name aside (the same code under another name)."""
    text = strip_comments(path.read_text(encoding="utf-8"))
    text = re.sub(r"gemm_\w+", "K", text).replace("tile_Bt", "tile_B")
    return " ".join(text.split())


def test_the_exercises_are_listed_in_teaching_order(capsys):
    """The list is the files' (assets/exercises/*.toml), in their `order`: a new exercise needs no edit here."""
    exercises = shipped_exercises()
    names = [e.name for e in exercises]
    assert [e.order for e in exercises] == sorted({e.order for e in exercises})  # each its own place
    assert names[:3] == ["naive", "coalescing", "tiled"] and names.index("banks") > names.index("tiled")
    assert main(["exercise", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == names


@pytest.mark.parametrize("name", ["coalescing", "banks"])
def test_the_new_exercises_and_their_kernels(name):
    e = find_exercise(name)
    assert e.access_goals and e.fix("en") and e.fix("zh") != e.fix("en")
    for path in [ASSETS / e.starter, *sorted(DATA.glob(f"{name}_*.cu"))]:
        source = path.read_text(encoding="utf-8")
        check_signature(source, e)  # each is the exercise's kernel, as the checker will look for it
        assert guess_exercise(source) == e, path  # and picked by its kernel's name
    assert len(list(DATA.glob(f"{name}_*.cu"))) >= 3  # answers and broken ones


def test_the_recorded_kernels_are_the_bodies_the_figures_stand_for():
    assert _body(DATA / "coalescing_good.cu") == _body(DATA / "naive_good.cu")
    assert _body(DATA / "coalescing_unchanged.cu") == _body(DATA / "naive_uncoalesced.cu")
    assert _body(DATA / "banks_conflicts.cu") == _body(DATA / "tiled_conflicts.cu")
    assert _body(DATA / "banks_untransposed.cu") == _body(DATA / "tiled_good.cu")
    starter = _body(ASSETS / "banks.cu")
    assert starter == _body(DATA / "banks_conflicts.cu")  # the starter is correct and conflicted
    assert _body(ASSETS / "coalescing.cu") == _body(DATA / "coalescing_unchanged.cu")


@pytest.mark.parametrize(
    ("exercise", "record", "status", "words"),
    [
        ("coalescing", "naive_good", "pass", "2.00 sectors per global load request (goal: at most 4.00)"),
        ("coalescing", "naive_uncoalesced", "fail", "8.50 sectors per global load request"),
        ("banks", "tiled_good", "pass", "1.20 wavefronts per shared load request"),
        ("banks", "tiled_conflicts", "fail", "9.00 wavefronts per shared load request (goal: at most 2.00)"),
        ("banks", "tiled_or", "skipped", "not correct"),
        ("banks", "tiled_good-untraced", "skipped", "no access records: the tracer could not"),
    ],
)
def test_access_goals_are_judged_from_the_recorded_trace(exercise, record, status, words):
    e = find_exercise(exercise)
    verdict = access_verdict(_record(record), e.access_goals, e.fix("en"))
    assert verdict["status"] == status and words in verdict["detail"], verdict
    if status == "fail":
        assert verdict["cause"].endswith(e.fix("en"))  # the cause names the fix
        assert "in 2 traced blocks at 160×160×64" in verdict["detail"]
    else:
        assert verdict["cause"] is None
    zh = access_verdict(_record(record), e.access_goals, e.fix("zh"), "zh")
    assert zh["status"] == status and re.search("[\u4e00-\u9fff]", zh["detail"])
    if status == "fail":
        assert zh["cause"].endswith(e.fix("zh")) and "8.50" in zh["cause"] or "9.00" in zh["cause"]


def test_an_exercise_without_access_goals_gets_no_access_verdict():
    assert access_verdict(_record("tiled_conflicts"), find_exercise("tiled").access_goals) is None


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("access_goals = { global_ld_sectors_per_request = 0.5 }", "from 1 to 64"),
        ("access_goals = { global_ld_sectors_per_request = nan }", "from 1 to 64"),
        ("access_goals = { sectors = 2.0 }", "'access_goals.sectors' is no figure"),
        ("access_goals = { global_ld_sectors_per_request = '2' }", "from 1 to 64"),
        ("access_goals = 4", "'access_goals' must be a table"),
        ("order = 0", "'order'"),
        ("order = 1.5", "'order'"),
    ],
)
def test_a_bad_access_goal_or_order_is_refused_naming_the_field(change, words, tmp_path):
    text = (ASSETS / "coalescing.toml").read_text(encoding="utf-8")
    key = change.split(" =")[0]
    text = re.sub(rf"^{key} = .*$", change, text, count=1, flags=re.M)
    assert change in text
    with pytest.raises(ExerciseError) as info:
        parse_exercise(text, "my.toml", tmp_path)
    assert words in str(info.value) and "my.toml" in str(info.value)


def test_check_goals_reads_people_numbers():
    assert check_goals({"shared_ld_wavefronts_per_request": 2}, "x") == {"shared_ld_wavefronts_per_request": 2.0}
    assert check_goals(None, "x") == {}


def test_the_report_and_the_grade_row_carry_the_access_goal(capsys, tmp_path):
    record = json.loads((DATA / "records" / "naive_uncoalesced.check.json").read_text(encoding="utf-8"))
    record["exercise"] = "coalescing"  # the same kernel handed in for the coalescing exercise
    path = tmp_path / "x.check.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert main(["exercise", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "FAIL  accesses    8.50 sectors per global load request" in out and "make threadIdx.x walk" in out
    # the record's verdicts hold the goal the report fails (a grading script reading the JSON sees it too)
    verdicts = {v["goal"]: v["status"] for v in load_check(path)["verdicts"]}
    assert verdicts["accesses"] == "fail" and verdicts["correct"] == "pass"
    (tmp_path / "k.cu").write_text("x", encoding="utf-8")
    (student,) = students(tmp_path)
    row = record_row(student, load_check(path), find_exercise("coalescing"))
    assert row["accesses"] == "fail" and row["passed"] == "no"
    assert row["figures"] == "global_ld_sectors_per_request=8.5"


def test_the_tab_shows_the_access_goal(qtbot, tmp_path):
    pytest.importorskip("pytestqt")
    from gemmviz.ui.exercise.tab import ExerciseTab

    record = json.loads((DATA / "records" / "tiled_conflicts.check.json").read_text(encoding="utf-8"))
    record["exercise"] = "banks"
    path = tmp_path / "banks.check.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    tab = ExerciseTab()
    qtbot.addWidget(tab)
    try:
        assert tab.open_check(path)
        assert "✗ accesses" in tab.verdict_label.text() and "9.00 wavefronts" in tab.verdict_label.text()
        assert tab.exercise.name == "banks"
    finally:
        tab.shutdown()
