"""Signals end everything within 2 s, every time (issue 46 item 2, issue 43 item 3): `exercise grade` and
`exercise check` are sent SIGINT and SIGTERM at many moments (each when a condition is seen: the CSV's lock, the
first worker, the k-th row on stderr, the CSV's rows, nvcc at work, the emulator at work), and each time the run
ends with 130 or 143 soon after, the CSV valid with whole rows, no temporary file or lock beside it, nothing
written among the hand-ins, no check folder left in the cache, and no process of the run alive. A kill -9 of the
grading parent leaves no worker behind.

Every process a run starts carries a marker in its environment, so that its descendants are found even once
they are re-parented. The hand-ins are the cheapest that keep workers busy: files that are not kernels, one
that does not compile, one correct kernel (compiled and emulated, a few seconds), one endless kernel (emulated
until the instruction budget stops it)."""

from __future__ import annotations

import csv
import io
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from gemmviz.core.exercise.grading import columns

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux's /proc")

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "exercises"
NVCC = shutil.which("nvcc") is not None
MARK = "GEMMVIZ_SIGNAL_TEST"
LIMIT_S = 120.0  # a condition never seen within this is a failure, not a hang
STOP_S = 2.0  # the bound, from the signal to the exit
STOP_SLACK_S = 1.5  # a loaded CI machine's share of it (2 cores shared); the measured stops are well inside 2 s


def _marked(mark: str) -> list[tuple[int, str]]:
    """(pid, command line) of every live process that carries this run's marker."""
    tag = f"{MARK}={mark}".encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if tag in Path(f"/proc/{entry.name}/environ").read_bytes().split(b"\0"):
                cmd = Path(f"/proc/{entry.name}/cmdline").read_bytes().replace(b"\0", b" ")
                found.append((int(entry.name), cmd.decode(errors="replace")))
        except OSError:  # gone meanwhile, or a zombie
            continue
    return found


class Run:
    """gemmviz started with a marker; its stderr read as it comes."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.mark = uuid.uuid4().hex
        self.out = cwd / f"stdout-{self.mark}.txt"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "GEMMVIZ_DEBUG": "", MARK: self.mark}
        with self.out.open("wb") as sink:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "gemmviz", *argv],
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.PIPE,
                text=True,
                errors="replace",
            )
        self.err: list[str] = []
        self.reader = threading.Thread(target=lambda: self.err.extend(iter(self.proc.stderr.readline, "")))
        self.reader.daemon = True
        self.reader.start()

    @property
    def stderr(self) -> str:
        return "".join(self.err)

    def __repr__(self) -> str:  # what an assertion shows of it: both streams
        stdout = self.out.read_text(encoding="utf-8", errors="replace") if self.out.exists() else ""
        return f"<gemmviz, stdout:\n{stdout[-3000:]}\nstderr:\n{self.stderr[-3000:]}>"

    def others(self) -> list[tuple[int, str]]:
        return [p for p in _marked(self.mark) if p[0] != self.proc.pid]

    def signal_when(self, seen: Callable[[Run], bool], sig: int, repeat: int = 1) -> float:
        """Send `sig` once seen(self) holds (polled); return the seconds from the signal to the exit."""
        deadline = time.monotonic() + LIMIT_S
        while not seen(self):
            assert self.proc.poll() is None, f"ended before the condition: {self.stderr[-2000:]}"
            assert time.monotonic() < deadline, f"the condition was never seen: {self.stderr[-2000:]}"
            time.sleep(0.01)  # polling the condition, not waiting for a moment
        t0 = time.monotonic()
        for _ in range(repeat):
            self.proc.send_signal(sig)
        try:
            self.proc.wait(LIMIT_S)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        took = time.monotonic() - t0
        self.reader.join(LIMIT_S)
        return took

    def assert_nothing_left(self) -> None:
        deadline = time.monotonic() + 0.5  # a killed grandchild's /proc entry goes as its new parent reaps it
        while self.others() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not self.others(), f"left running: {self.others()}"


def _line(text: str) -> Callable[[Run], bool]:
    return lambda run: text in run.stderr


def _process(word: str) -> Callable[[Run], bool]:
    return lambda run: any(word in cmd for _, cmd in run.others())


def _rows(path: Path) -> list[list[str]]:
    """The CSV's rows, each whole: the header, then rows of every column, each line ended."""
    data = path.read_bytes()
    assert data.endswith(b"\r\n"), data[-200:]
    table = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    assert table[0] == columns()
    assert all(len(row) == len(columns()) for row in table[1:]), table
    assert data.count(b"\r\n") == len(table) and b"\n" not in data.replace(b"\r\n", b"")  # a line a row
    return table[1:]


def _csv_rows(out: Path, n: int) -> Callable[[Run], bool]:
    def seen(_run: Run) -> bool:
        try:
            return len(_rows(out)) >= n
        except (OSError, AssertionError, UnicodeDecodeError, csv.Error, IndexError):
            return False

    return seen


@pytest.fixture(scope="module")
def hand_ins(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("class")
    shutil.copy(DATA / "naive_compile_error.cu", folder / "a_compile_error.cu")
    for i in (1, 2):
        (folder / f"b_junk{i}.cu").write_text(f"not a kernel {i}\n", encoding="utf-8")
    shutil.copy(DATA / "naive_good.cu", folder / "c_good.cu")
    shutil.copy(DATA / "naive_endless.cu", folder / "d_endless.cu")
    return folder


GRADE_CASES = [
    ("the CSV's lock is taken", signal.SIGINT, lambda out: lambda run: (out.parent / ".grades.csv.lock").exists()),
    ("a worker is starting", signal.SIGTERM, lambda out: _process("multiprocessing")),
    ("the first row", signal.SIGINT, lambda out: _line("[1/5]")),
    ("the second row", signal.SIGTERM, lambda out: _line("[2/5]")),
    ("three rows in the CSV", signal.SIGINT, lambda out: _csv_rows(out, 3)),
    ("the fourth row", signal.SIGTERM, lambda out: _line("[4/5]")),
    ("the fourth row, twice", signal.SIGINT, lambda out: _line("[4/5]")),
    ("nvcc at work", signal.SIGINT, lambda out: _process("cicc")),
    ("nvcc at work", signal.SIGTERM, lambda out: _process("nvcc")),
    ("the emulator at work", signal.SIGTERM, lambda out: lambda run: "[4/5]" in run.stderr and len(run.others()) >= 2),
]


@pytest.mark.parametrize("when, sig, condition", GRADE_CASES, ids=[f"{c[0]}-{c[1].name}" for c in GRADE_CASES])
def test_grade_ends_soon_after_a_signal_with_a_valid_csv_and_nothing_left(tmp_path, hand_ins, when, sig, condition):
    if "nvcc" in when and not NVCC:
        pytest.skip("nvcc not installed")
    out = tmp_path / "grades" / "grades.csv"
    out.parent.mkdir()
    before = sorted((p.name, p.read_bytes()) for p in hand_ins.iterdir())
    run = Run(["exercise", "grade", str(hand_ins), "--exercise", "naive", "--csv", str(out), "--jobs", "2"], tmp_path)
    seen = condition(out)
    rows_then: list = []

    def noted(r: Run) -> bool:
        if seen(r):
            rows_then.extend(_rows(out) if out.exists() else [])
            return True
        return False

    took = run.signal_when(noted, sig, repeat=2 if "twice" in when else 1)
    assert run.proc.returncode == 128 + sig, run
    assert took < STOP_S + STOP_SLACK_S, f"took {took:.2f} s to stop"
    lines = run.stderr.splitlines()
    assert lines[-1] == f"gemmviz: {'interrupted' if sig == signal.SIGINT else 'terminated'}", lines
    assert "Traceback" not in run.stderr and "Exception ignored" not in run.stderr, run.stderr
    run.assert_nothing_left()
    rows = _rows(out) if out.exists() else []
    assert len(rows) >= len(rows_then) and {r[0] for r in rows_then} <= {r[0] for r in rows}
    assert [p.name for p in out.parent.iterdir()] == (["grades.csv"] if out.exists() else [])  # no temp file, lock
    assert sorted((p.name, p.read_bytes()) for p in hand_ins.iterdir()) == before
    cache = tmp_path / "cache" / "kernels" / "exercises"
    assert not list(cache.glob("check-*")) if cache.exists() else True, list(cache.iterdir())


CHECK_CASES = [
    ("c_good.cu", "looking for a GPU", signal.SIGINT, _line("[0/7]")),
    ("c_good.cu", "compiling", signal.SIGTERM, _line("[1/7]")),
    ("c_good.cu", "nvcc at work", signal.SIGINT, _process("cicc")),
    ("c_good.cu", "emulating", signal.SIGTERM, _line("[2/7]")),
    ("c_good.cu", "emulating", signal.SIGINT, _line("[2/7]")),
]


@pytest.mark.parametrize("name, when, sig, condition", CHECK_CASES, ids=[f"{c[1]}-{c[2].name}" for c in CHECK_CASES])
def test_check_ends_soon_after_a_signal_and_leaves_nothing(tmp_path, hand_ins, name, when, sig, condition):
    if "nvcc" in when and not NVCC:
        pytest.skip("nvcc not installed")
    source = tmp_path / "mine" / name
    source.parent.mkdir()
    shutil.copy(hand_ins / name, source)
    run = Run(["exercise", "check", str(source), "--exercise", "naive"], tmp_path)
    took = run.signal_when(condition, sig)
    assert run.proc.returncode == 128 + sig, run
    assert took < STOP_S + STOP_SLACK_S, f"took {took:.2f} s to stop"
    assert run.stderr.splitlines()[-1] == f"gemmviz: {'interrupted' if sig == signal.SIGINT else 'terminated'}"
    assert "Traceback" not in run.stderr, run.stderr
    run.assert_nothing_left()
    assert [p.name for p in source.parent.iterdir()] == [name]  # no record, no temporary file
    cache = tmp_path / "cache" / "kernels" / "exercises"
    assert not list(cache.glob("check-*")) if cache.exists() else True, list(cache.iterdir())


def test_a_kill_9_of_the_grading_parent_leaves_no_worker(tmp_path, hand_ins):
    """The workers see their parent gone (a kill -9 runs no cleanup in it) and end, with their checks' steps."""
    out = tmp_path / "grades.csv"
    run = Run(["exercise", "grade", str(hand_ins), "--exercise", "naive", "--csv", str(out), "--jobs", "2"], tmp_path)
    busy = (lambda r: "[2/5]" in r.stderr and len(r.others()) >= 3) if NVCC else _line("[2/5]")
    run.signal_when(busy, signal.SIGKILL)
    t0 = time.monotonic()
    while run.others() and time.monotonic() - t0 < LIMIT_S:
        time.sleep(0.02)
    gone = time.monotonic() - t0
    assert not run.others(), run.others()
    assert gone < STOP_S + STOP_SLACK_S, f"the workers outlived their parent by {gone:.2f} s"
    _rows(out)  # what was written is whole
