"""`gemmviz exercise grade` (issue 32, item 6): one CSV row per .cu under a folder, each goal and the cause;
checks in parallel processes; a rerun skips what is graded; Ctrl+C leaves a valid CSV; hostile names are
escaped, links out of the folder are not followed, nothing is written in the folder; shards partition it.

A fake check (fake_check below, run in the worker processes) stands in for the GPU: it returns the recorded
H200 check of the kernel a file holds. One test runs the real check without a GPU (compile only)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from gemmviz.backends.grading import GradeOptions, grade
from gemmviz.core.exercise.exercises import find_exercise
from gemmviz.core.exercise.grading import GradeError, cell, in_shard, parse_shard, students
from tests.fake_grading import _calls, _kernel, _rows, fake_check, main

DATA = Path(__file__).parent / "data" / "exercises"
NVCC = shutil.which("nvcc") or (Path("/usr/local/cuda/bin/nvcc") if Path("/usr/local/cuda/bin/nvcc").exists() else None)


@pytest.fixture
def log(tmp_path, monkeypatch):
    path = tmp_path / "calls.log"
    monkeypatch.setenv("GRADE_FAKE_LOG", str(path))  # the spawned workers inherit it
    return path


@pytest.fixture
def tiled():
    return find_exercise("tiled")


def test_every_file_gets_one_row_with_its_goals_and_cause(tmp_path, log, tiled):
    hand_ins = tmp_path / "class"
    _kernel(hand_ins / "alice" / "tiled.cu", "tiled_good")
    _kernel(hand_ins / "bob" / "tiled.cu", "tiled_or")
    _kernel(hand_ins / "carol.cu", "tiled_conflicts")
    (hand_ins / "dave.cu").write_text("int main() { return 0; }\n", encoding="utf-8")
    before = sorted(p.name for p in hand_ins.rglob("*"))
    out = tmp_path / "grades.csv"
    run = grade(hand_ins, tiled, out, jobs=2, checker=fake_check)
    assert (run.found, run.checked, run.kept, run.jobs, run.interrupted) == (4, 4, 0, 2, False)
    rows = {r["file"]: r for r in _rows(out)}
    assert list(rows) == ["alice/tiled.cu", "bob/tiled.cu", "carol.cu", "dave.cu"]
    good, wrong, slow, junk = rows.values()
    assert [good[g] for g in ("compiles", "correct", "race-free", "speed")] == ["pass"] * 4 and good["passed"] == "yes"
    assert wrong["correct"] == "fail" and wrong["passed"] == "no" and "||" in wrong["cause"]
    assert slow["speed"] == "fail" and "bank-conflicted" in slow["cause"] and slow["ran_on"] == "NVIDIA H200"
    assert junk["passed"] == "no" and "not a CUDA kernel" in junk["error"] and junk["compiles"] == ""
    assert good["source_sha256"] and len(good["source_sha256"]) == 64
    assert sorted(_calls(log)) == ["carol.cu", "tiled.cu", "tiled.cu"]  # dave.cu: refused before a check
    assert sorted(p.name for p in hand_ins.rglob("*")) == before  # nothing written among the hand-ins


def test_a_rerun_checks_only_new_and_changed_files(tmp_path, log, tiled):
    hand_ins = tmp_path / "class"
    a = _kernel(hand_ins / "a.cu", "tiled_good")
    _kernel(hand_ins / "b.cu", "tiled_or")
    out = tmp_path / "grades.csv"
    grade(hand_ins, tiled, out, checker=fake_check)
    assert sorted(_calls(log)) == ["a.cu", "b.cu"]
    first = out.read_text(encoding="utf-8")
    log.unlink()
    run = grade(hand_ins, tiled, out, checker=fake_check)
    assert (run.checked, run.kept) == (0, 2) and _calls(log) == [] and out.read_text(encoding="utf-8") == first
    _kernel(a, "tiled_conflicts")  # a changed hand-in
    _kernel(hand_ins / "c.cu", "tiled_good")  # a late one
    run = grade(hand_ins, tiled, out, checker=fake_check)
    assert (run.checked, run.kept) == (2, 1) and sorted(_calls(log)) == ["a.cu", "c.cu"]
    rows = {r["file"]: r for r in _rows(out)}
    assert list(rows) == ["a.cu", "b.cu", "c.cu"] and rows["a.cu"]["speed"] == "fail"  # one row per file


def test_ctrl_c_leaves_a_valid_csv_and_the_same_command_resumes(tmp_path, log, tiled):
    hand_ins = tmp_path / "class"
    _kernel(hand_ins / "a.cu", "tiled_good")
    hang = _kernel(hand_ins / "b.cu", "tiled_good")
    hang.write_text("// hang\n" + hang.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "grades.csv"

    def interrupt(done, total, row):
        raise KeyboardInterrupt  # Ctrl+C once the first row is written, while b.cu's check is running

    t0 = time.monotonic()
    run = grade(hand_ins, tiled, out, jobs=2, checker=fake_check, progress=interrupt)
    assert run.interrupted and run.checked == 1
    assert time.monotonic() - t0 < 60  # the hanging check saw the cancel flag: the run ended
    assert [r["file"] for r in _rows(out)] == ["a.cu"]  # a valid CSV, holding the finished row
    assert not list(tmp_path.glob("*.tmp*")) and not list(tmp_path.glob(".*grades*"))
    _kernel(hang, "tiled_or")  # the same command, later (b.cu no longer hangs)
    log.unlink()
    run = grade(hand_ins, tiled, out, jobs=2, checker=fake_check)
    assert (run.checked, run.kept, run.interrupted) == (1, 1, False) and _calls(log) == ["b.cu"]
    assert [r["file"] for r in _rows(out)] == ["a.cu", "b.cu"]


def test_hostile_names_are_escaped_and_links_out_of_the_folder_not_followed(tmp_path, log, tiled):
    hand_ins = tmp_path / "class"
    names = ["a,b.cu", 'q"uote.cu', "new\nline.cu", "=cmd|' /C calc'!A0.cu", "esc\x1b[31m.cu", "back\\n.cu"]
    for name in names:
        _kernel(hand_ins / name, "tiled_good")
    outside = _kernel(tmp_path / "secret" / "answer.cu", "tiled_good")
    (hand_ins / "link.cu").symlink_to(outside)
    (hand_ins / "linked_dir").symlink_to(outside.parent, target_is_directory=True)
    (hand_ins / "inside.cu").symlink_to(hand_ins / "a,b.cu")  # a link inside the folder is followed
    os.mkfifo(hand_ins / "fifo.cu")
    raw = os.fsencode(hand_ins) + b"/latin1-\xe9.cu"
    with open(raw, "wb") as f:
        f.write((hand_ins / "a,b.cu").read_bytes())
    out = tmp_path / "grades.csv"
    run = grade(hand_ins, tiled, out, jobs=2, checker=fake_check)
    rows = {r["file"]: r for r in _rows(out)}
    assert run.found == len(rows) == len(names) + 4  # no file from the linked folder
    for name in names:
        row = rows[cell(name)]
        assert row["passed"] == "yes" and row["error"] == "", (name, row)
    assert cell("new\nline.cu") == "new\\nline.cu" and cell("back\\n.cu") == "back\\\\n.cu"  # never the same cell
    assert cell("=cmd|' /C calc'!A0.cu").startswith("'=") and "\x1b" not in "".join(rows)
    assert "latin1-\\xe9.cu" in rows and rows["latin1-\\xe9.cu"]["passed"] == "yes"
    assert "outside the folder" in rows["link.cu"]["error"] and rows["inside.cu"]["passed"] == "yes"
    assert "not a regular file" in rows["fifo.cu"]["error"]
    assert "answer.cu" not in _calls(log)
    text = out.read_bytes().decode("utf-8")
    assert text.count("\r\n") == len(rows) + 1 and "\n" not in text.replace("\r\n", "")  # a line a row


def test_shards_partition_the_files(tmp_path):
    hand_ins = tmp_path / "class"
    for i in range(40):
        (hand_ins / f"s{i}").mkdir(parents=True)
        (hand_ins / f"s{i}" / "tiled.cu").write_text("x", encoding="utf-8")
    names = [s.name for s in students(hand_ins)]
    shares = [[n for n in names if in_shard(n, (i, 4))] for i in range(4)]
    assert sorted(sum(shares, [])) == sorted(names) and all(shares)
    assert parse_shard("3/4") == (3, 4)
    for bad in ("4/4", "-1/4", "1/0", "a/b", "1"):
        with pytest.raises(GradeError, match="I from 0 to N - 1"):
            parse_shard(bad)


def test_the_cli_grades_a_shard_and_refuses_what_it_cannot_resume(tmp_path, capsys, monkeypatch):
    hand_ins = tmp_path / "class"
    (hand_ins / "x").mkdir(parents=True)
    (hand_ins / "x" / "junk.cu").write_text("not a kernel\n", encoding="utf-8")
    out = tmp_path / "grades.csv"
    assert main(["exercise", "grade", str(hand_ins), "--exercise", "tiled", "--csv", str(out), "--shard", "0/1"]) == 0
    assert [r["file"] for r in _rows(out)] == ["x/junk.cu"]
    assert "1 file(s)" in capsys.readouterr().out
    other = tmp_path / "other.csv"
    other.write_text("name,grade\nx,1\n", encoding="utf-8")
    assert main(["exercise", "grade", str(hand_ins), "--exercise", "tiled", "--csv", str(other)]) == 2
    err = capsys.readouterr().err
    assert "other columns" in err and other.read_text(encoding="utf-8") == "name,grade\nx,1\n"
    for args, words in (
        (["--exercise", "nonesuch"], "nonesuch"),
        (["--exercise", "tiled", "--jobs", "0"], "--jobs"),
        (["--exercise", "tiled", "--shard", "2/2"], "--shard"),
    ):
        assert main(["exercise", "grade", str(hand_ins), "--csv", str(out), *args]) == 2
        assert words in capsys.readouterr().err
    assert main(["exercise", "grade", str(hand_ins / "x" / "junk.cu"), "--exercise", "tiled", "--csv", str(out)]) == 2


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_the_real_check_without_a_gpu_grades_what_it_can(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pycuda", None)  # as on a laptop (the workers have no PyCUDA here either)
    hand_ins = tmp_path / "class"
    hand_ins.mkdir()
    shutil.copy(DATA / "tiled_good.cu", hand_ins / "tiled.cu")
    out = tmp_path / "grades.csv"
    assert main(["exercise", "grade", str(hand_ins), "--exercise", "tiled", "--csv", str(out)]) == 0
    (row,) = _rows(out)
    assert row["compiles"] == "pass" and row["passed"] in ("yes", "not judged") and row["error"] == ""
    assert find_exercise("tiled").name == row["exercise"]
    run = grade(hand_ins, find_exercise("tiled"), out, options=GradeOptions())
    assert (run.checked, run.kept) == (0, 1)


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_a_batch_systems_stop_leaves_a_valid_csv(tmp_path):
    """SIGTERM (Slurm's time limit) as Ctrl+C: exit 143, every finished row kept, no temporary file left."""
    import signal
    import subprocess

    hand_ins = tmp_path / "class"
    hand_ins.mkdir()
    for i in range(6):
        text = (DATA / "tiled_good.cu").read_text(encoding="utf-8")
        (hand_ins / f"s{i}.cu").write_text(f"// student {i}\n{text}", encoding="utf-8")
    out = tmp_path / "grades" / "grades.csv"
    out.parent.mkdir()
    argv = [sys.executable, "-m", "gemmviz", "exercise", "grade", str(hand_ins), "--exercise", "tiled"]
    proc = subprocess.Popen([*argv, "--csv", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while not (out.exists() and len(_rows(out)) >= 1) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # polling a condition: the first row written
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 143, err
    rows = _rows(out)
    assert 1 <= len(rows) < 6 and all(r["compiles"] == "pass" for r in rows)
    assert [p.name for p in out.parent.iterdir()] == ["grades.csv"]  # no temporary file left beside it
