"""`gemmviz exercise check` as a grading script reads it (issue 43, item 3): the JSON verdicts hold every goal
the report judges (the access goal too), the exit status is 0 when every judged goal passed and only speed went
unmeasured, `exercise list` lists, `ran_on` names what ran, the report draws where C is wrong and its Chinese
lines are Chinese. Needs nvcc for the checks that run (CI has it), no GPU."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sys
from pathlib import Path

import pytest

from gemmviz.backends.profile import find_cuda_tool
from gemmviz.cli.main import main
from gemmviz.core.exercise.check import judged
from gemmviz.core.exercise.grading import ran_on
from gemmviz.core.exercise.record import load_check

DATA = Path(__file__).parent / "data"
NVCC = find_cuda_tool("nvcc")
SMALL = ((1, 1, 1), (33, 17, 65))
PASSED = {
    "compiles": "pass",
    "correct": "pass",
    "memory-safe": "pass",
    "race-free": "pass",
}  # the odd size every verdict needs; the check's own sizes take seconds more


def _run(argv: list[str]) -> tuple[int, str]:
    """The command's exit status and what it printed (its own stdout: a capture fixture shared with the Qt
    tests of the same process came back empty at times)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:  # --help
            code = exc.code
    return code, out.getvalue()


def _printed(argv: list[str]) -> str:
    code, text = _run(argv)
    assert code == 0, text
    return text


def test_exercise_list_and_the_flag_print_the_same():
    listed = _printed(["exercise", "list"])
    assert _printed(["exercise", "--list"]) == listed and "tiled\t" in listed and "banks\t" in listed


def test_help_says_when_a_check_exits_0():
    text = " ".join(_run(["exercise", "check", "--help"])[1].split())
    assert "every judged goal passed" in text and "speed is not measured" in text


def test_judged_and_ran_on_from_the_verdicts_and_the_compile():
    record = {"verdicts": [{"goal": "correct", "status": "pass"}, {"goal": "speed", "status": "skipped"}]}
    assert judged(record)
    assert not judged({"verdicts": [*record["verdicts"], {"goal": "race-free", "status": "skipped"}]})
    assert not judged({"verdicts": [*record["verdicts"], {"goal": "accesses", "status": "fail"}]})
    emulated = {"no_gpu": "x", "shapes": [{}], "emulator": {"by": "x"}, "compile": {"arch": "sm_90"}}
    assert ran_on(emulated) == "CPU emulator, nvcc sm_90"
    emulated["compile"] = {"arch": "compute_90", "command": "nvrtc --gpu-architecture=compute_90"}
    assert ran_on(emulated) == "CPU emulator, NVRTC compute_90"
    assert ran_on({"no_gpu": "x", "shapes": [], "compile": {}}) == "no GPU: compiled only"
    assert ran_on({"environment": {"gpu": "NVIDIA H200"}}) == "NVIDIA H200"


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_a_right_kernel_without_a_gpu_exits_0_and_its_json_holds_the_access_goal(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pycuda", None)  # as on a laptop without PyCUDA
    monkeypatch.setattr("gemmviz.backends.exercise_emulate.EMULATED_SHAPES", SMALL)
    work = tmp_path / "w"
    work.mkdir()
    shutil.copy(DATA / "exercises" / "coalescing_good.cu", work / "coalescing.cu")
    record = json.loads(_printed(["exercise", "check", str(work / "coalescing.cu"), "--json", "--seed", "1"]))
    got = {v["goal"]: v["status"] for v in record["verdicts"]}
    assert got == dict(PASSED, speed="skipped", accesses="pass")
    assert load_check(work / "coalescing.check.json")["verdicts"] == record["verdicts"]
    # the starter: right, but a warp reads 32 rows: the access goal fails, in the JSON and the exit status
    shutil.copy(DATA / "exercise_corpus" / "coalescing_starter.cu", work / "coalescing.cu")
    code, out = _run(["exercise", "check", str(work / "coalescing.cu"), "--json", "--seed", "1"])
    record = json.loads(out)
    assert code == 1
    assert {v["goal"]: v["status"] for v in record["verdicts"]}["accesses"] == "fail"
    assert "sectors per global load request" in record["cause"]


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_a_wrong_kernel_shows_its_error_map_and_a_chinese_report(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pycuda", None)
    monkeypatch.setattr("gemmviz.backends.exercise_emulate.EMULATED_SHAPES", SMALL)
    shutil.copy(DATA / "exercise_corpus" / "naive_store_col0.cu", tmp_path / "naive.cu")
    code, out = _run(["exercise", "check", str(tmp_path / "naive.cu"), "--no-accesses", "--seed", "1"])
    assert code == 1
    assert "where C is wrong at 33×17×65" in out and "only column 0 of C is written" in out
    assert "    █" in out  # the map's rows: column 0 written but wrong, the rest never written
    zh = _printed(["exercise", "show", str(tmp_path / "naive.check.json"), "--lang", "zh"])
    assert "C 出错的位置" in zh and "未运行：计时" in zh and "timing" not in zh


def test_the_tab_opens_the_exercises_access_view_and_never_greens_an_unfinished_check(qtbot):
    pytest.importorskip("pytestqt")
    from gemmviz.ui.exercise.tab import ExerciseTab

    record = json.loads((DATA / "exercises" / "records" / "naive_endless.check.json").read_text("utf-8"))
    tab = ExerciseTab()
    qtbot.addWidget(tab)
    try:
        tab.show_record(record)
        assert not tab.error_map.judged and "did not finish" in tab.error_map.caption
        banks = json.loads((DATA / "exercises" / "records" / "tiled_conflicts.check.json").read_text("utf-8"))
        banks["exercise"] = "banks"
        tab.show_record(banks)
        assert tab.access_kind.currentData() == "banks" and tab.error_map.judged
    finally:
        tab.shutdown()


def test_the_tab_lists_nvccs_warnings_with_their_lines(qtbot):
    """`for (unsigned k = K - 1; k >= 0; --k)`: nvcc's warning is the clue, shown at its line."""
    pytest.importorskip("pytestqt")
    from gemmviz.ui.exercise.tab import ExerciseTab

    record = json.loads((DATA / "exercises" / "records" / "naive_endless.check.json").read_text("utf-8"))
    warning = {"line": 8, "severity": "warning", "message": "pointless comparison of unsigned integer with zero"}
    record["compile"]["diagnostics"] = [warning]
    tab = ExerciseTab()
    qtbot.addWidget(tab)
    try:
        tab.show_record(record)
        shown = tab.findings.toPlainText()
        assert "nvcc warning, line 8: pointless comparison of unsigned integer with zero" in shown
    finally:
        tab.shutdown()
