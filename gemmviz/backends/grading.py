"""`gemmviz exercise grade`: check every student's .cu under a folder with the check that `exercise check` runs
(backends/exercise.check_exercise, whichever path it takes: the GPU, or the CPU alone) and keep one CSV row
per file (core/exercise/grading.py).

Checks run in worker processes, `jobs` at a time; where a GPU is found they run one at a time, so that no
two kernels share the GPU while one is timed. Each check reads the file once and checks that copy (a private
one, under a safe name): the row's hash is the hash of the bytes that were checked. After each file the whole
CSV is written again through core/fileio.write_atomic, so it is valid whenever the run stops. A rerun skips
every file whose row holds the same source hash and a finished check (a resume).

Stopping: a signal (Ctrl+C, SIGTERM) is taken between two waits of the loop (core/interrupt.deferred), never
inside the bookkeeping of the workers; the run's cancel flag is set, which the checks' child steps poll and each
worker's watcher turns into an exception in its check; a worker still busy after STOP_GRACE_S is killed. A
worker that dies (killed, out of memory) leaves its file "not checked", and the next run checks it. Workers
ignore the terminal's signals (the parent stops them) and end by themselves within a second when the parent
is gone, even after a kill -9 of it."""

from __future__ import annotations

import dataclasses
import hashlib
import multiprocessing
import os
import re
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import wait as wait_any
from pathlib import Path

from gemmviz.backends.exercise import Cancelled, CheckOptions, check_exercise, gpu_arch, work_dir
from gemmviz.core import interrupt
from gemmviz.core.exercise.exercises import MAX_SOURCE_BYTES, Exercise, ExerciseError
from gemmviz.core.exercise.grading import (
    NOT_CHECKED,
    Student,
    cell,
    csv_text,
    in_shard,
    needs_check,
    not_checked_row,
    problem_row,
    read_rows,
    record_row,
    students,
)
from gemmviz.core.fileio import InputFileError, read_regular, write_atomic

STOP_GRACE_S = 0.8  # a check asked to stop has this long to end by itself before its worker is killed
POLL_S = 0.1  # the loop's wait: a signal is acted on within this
PARENT_POLL_S = 0.1  # a worker looks this often whether its parent is gone
_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,100}\.cu")
_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_POSIX = hasattr(signal, "pthread_sigmask") and hasattr(signal, "SIGUSR1")  # elsewhere: no blocking, no stop signal

_CANCEL = None  # in a worker: the run's cancel flag (a SharedFlag; the check polls is_set())


class SharedFlag:
    """A cancel flag the parent and its workers share: a byte of shared memory, polled. Not a
    multiprocessing.Event: its Condition counts the processes sleeping in wait(), and one that dies asleep
    (a worker killed, or ending with its watcher waiting) makes every later set() wait for it forever."""

    def __init__(self, context) -> None:
        self._value = context.RawValue("b", 0)

    def set(self) -> None:
        self._value.value = 1

    def is_set(self) -> bool:
        return bool(self._value.value)

    def wait(self, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while not self.is_set() and time.monotonic() < end:
            time.sleep(min(0.02, max(0.0, end - time.monotonic())))
        return self.is_set()


@dataclass(frozen=True)
class GradeOptions:
    sanitize: bool = True
    time: bool = True
    profile: bool = True
    accesses: bool = True
    seed: int | None = None
    lang: str = "en"


@dataclass
class GradeRun:
    """What a grading run did: files found (in this shard), checked now, skipped as already graded, and those
    whose row says "not checked" (their worker died: the next run checks them)."""

    found: int = 0
    checked: int = 0
    kept: int = 0
    jobs: int = 1
    gpu: str | None = None  # the GPU the checks ran on, None without one
    interrupted: bool = False
    signum: int = signal.SIGINT  # the signal that interrupted it
    not_checked: int = 0


ProgressFn = Callable[[int, int, dict], None]


def one_blas_thread() -> None:
    """numpy's BLAS on one thread in a worker of a batch that runs several checks at once: each worker's
    verification (the float64 reference products, the experiments' products) is small, and OpenBLAS's own
    threads, one per core in every worker, fight over the cores (2026-12-02 on 2 loaded cores: the
    experiments' k_shift, 14 float64 products of 100×129 by 129×77, took 13 to 28 ms a call on two threads,
    2 to 3 ms on one)."""
    from gemmviz.backends.blas_threads import set_blas_threads

    set_blas_threads(1)


def grade_one(student: Student, exercise: Exercise, options: GradeOptions, checker=None, scratch=None) -> dict:
    """One file's row (in a worker process). The file is read once; its copy, under a safe name in a private
    folder (in `scratch`), is what is checked, and its hash is the row's. `checker` stands in for
    check_exercise (the tests' fake)."""
    if student.problem:
        return problem_row(student, student.problem, exercise.name)
    try:
        data = read_regular(student.path, MAX_SOURCE_BYTES)
    except (OSError, InputFileError) as exc:
        return problem_row(dataclasses.replace(student, sha256=""), f"cannot read it: {exc}", exercise.name)
    checked = dataclasses.replace(student, sha256=hashlib.sha256(data).hexdigest())
    check_options = CheckOptions(
        sanitize=options.sanitize,
        time=options.time,
        profile=options.profile,
        accesses=options.accesses,
        seed=options.seed,
        cancel=_CANCEL if _CANCEL is not None else threading.Event(),
    )
    name = Path(student.name).name
    with tempfile.TemporaryDirectory(prefix="check-grade-", dir=scratch or work_dir()) as folder:
        check_options.scratch = Path(folder)  # the check's files too: the run removes them, whatever ends a worker
        copy = Path(folder) / (name if _SAFE_NAME.fullmatch(name) else "handin.cu")
        copy.write_bytes(data)
        try:
            record = (checker or check_exercise)(copy, exercise, check_options)
        except ExerciseError as exc:
            return problem_row(checked, str(exc).replace(str(copy), student.name), exercise.name)
    return record_row(checked, record, exercise, options.lang)


def find_gpu() -> str | None:
    """The GPU's name where the check would use one, else None (asked in a child process, as the check does)."""
    device, _why = gpu_arch(work_dir(), threading.Event())
    return device["name"] if device else None


def grade(
    folder: Path,
    exercise: Exercise,
    csv_path: Path,
    jobs: int = 1,
    shard: tuple[int, int] | None = None,
    options: GradeOptions | None = None,
    checker=None,
    progress: ProgressFn | None = None,
) -> GradeRun:
    """Grade every .cu under `folder` (this shard's) into `csv_path`; see the module's text. Raises GradeError
    (core/exercise/grading.py) for an earlier CSV that cannot be resumed or a folder that cannot be listed,
    before any check and without touching the CSV."""
    options = options or GradeOptions()
    rows = read_rows(csv_path)
    mine = [s for s in students(folder, skip=(csv_path,)) if in_shard(s.name, shard)]
    todo = [s for s in mine if needs_check(s, rows)]
    run = GradeRun(found=len(mine), kept=len(mine) - len(todo))
    run.gpu = find_gpu() if todo else None
    run.jobs = 1 if run.gpu else max(1, min(jobs, len(todo) or 1))
    if not todo:
        if not csv_path.exists():
            write_atomic(csv_path, csv_text(rows))  # nothing to grade is said by a CSV of no rows
    else:
        _Batch(run, exercise, options, checker, csv_path, rows, progress).go(todo)
    names = {cell(s.name) for s in mine}
    run.not_checked = sum(1 for key, row in rows.items() if key in names and row.get("passed") == NOT_CHECKED)
    return run


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: multiprocessing.connection.Connection
    student: Student | None = None  # the file it checks now


class _Batch:
    """The checks of one run, `run.jobs` workers at a time, each row written as it comes."""

    def __init__(self, run: GradeRun, exercise, options, checker, csv_path: Path, rows: dict, progress) -> None:
        self.run, self.exercise, self.options, self.checker = run, exercise, options, checker
        self.csv_path, self.rows, self.progress = csv_path, rows, progress
        self.context = multiprocessing.get_context("spawn")  # no fork of a parent that may hold threads
        self.cancel = SharedFlag(self.context)
        self.workers: list[_Worker] = []

    def go(self, todo: list[Student]) -> None:
        queue = list(reversed(todo))
        with interrupt.deferred():  # the workers' bookkeeping is never cut; a signal is taken in the loop below
            scratch = Path(tempfile.mkdtemp(prefix="check-grade-run-", dir=work_dir()))  # the copies, removed below
            try:
                while queue or self._busy():
                    self._prune()
                    for worker in self._idle():
                        if not queue:
                            break
                        self._give(worker, queue.pop(), scratch)
                    while queue and len(self.workers) < self.run.jobs:
                        self._give(self._start(), queue.pop(), scratch)
                    self._collect()
                    signum = interrupt.pending()
                    if signum is not None:
                        self.run.interrupted, self.run.signum = True, signum - 128
                        break
            except KeyboardInterrupt as exc:  # a test's progress callback, or Ctrl+C where no handler defers it
                self.run.interrupted, self.run.signum = True, getattr(exc, "signum", signal.SIGINT)
            finally:
                self._stop()
                shutil.rmtree(scratch, ignore_errors=True)

    def _prune(self) -> None:
        """Forget the idle workers that died (killed between two files): a new one takes their place."""
        for worker in [w for w in self.workers if w.student is None and not w.process.is_alive()]:
            self.workers.remove(worker)
            worker.conn.close()
            worker.process.join(0)

    def _busy(self) -> list[_Worker]:
        return [w for w in self.workers if w.student is not None]

    def _idle(self) -> list[_Worker]:
        return [w for w in self.workers if w.student is None]

    def _start(self) -> _Worker:
        """A worker process. The terminal's signals are blocked while it starts, so that Ctrl+C cannot kill it
        while Python starts up; it ignores them from then on (the parent stops it)."""
        mine, theirs = self.context.Pipe()
        process = self.context.Process(
            target=_serve, args=(theirs, self.cancel, os.getpid(), self.run.jobs), name="gemmviz-grade", daemon=True
        )
        before = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS) if _POSIX else None
        try:
            process.start()
        finally:
            if before is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, before)
            theirs.close()
        worker = _Worker(process, mine)
        self.workers.append(worker)
        return worker

    def _give(self, worker: _Worker, student: Student, scratch: Path) -> None:
        worker.student = student
        try:
            worker.conn.send((student, self.exercise, self.options, self.checker, str(scratch)))
        except OSError:  # it died since its last file: _collect sees it and says so in the row
            pass

    def _collect(self) -> None:
        """Wait up to POLL_S for a worker's answer or death, and keep the rows that came."""
        busy = self._busy()
        ready = set(wait_any([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=POLL_S))
        for worker in busy:
            if worker.conn not in ready and worker.process.sentinel not in ready:
                continue
            student = worker.student
            assert student is not None
            kind, value = _answer(worker)
            worker.student = None
            if kind == "row" and isinstance(value, dict):
                self._keep(value)
            elif kind == "died":
                self.workers.remove(worker)
                worker.conn.close()
                self._keep(not_checked_row(student, f"the process checking it died ({value})", self.exercise.name))
            elif kind == "error":
                why = f"the check broke ({value}; a bug in gemmviz?)"
                self._keep(not_checked_row(student, why, self.exercise.name))

    def _keep(self, row: dict) -> None:
        self.rows[row["file"]] = row
        write_atomic(self.csv_path, csv_text(self.rows))  # the whole CSV, valid at every step
        self.run.checked += 1
        if self.progress is not None:
            self.progress(self.run.kept + self.run.checked, self.run.found, row)

    def _stop(self) -> None:
        """Every worker ends: an idle one is told to; a busy one's check is cancelled and given STOP_GRACE_S;
        then any still alive is killed. Nothing is left running, whatever ended the loop."""
        if self._busy():
            self.cancel.set()
        for worker in self.workers:
            try:
                worker.conn.send(None)
            except OSError:
                pass
        deadline = time.monotonic() + (STOP_GRACE_S if self.cancel.is_set() else 5.0)
        for worker in self.workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
        self.cancel.set()
        for worker in self.workers:
            if worker.process.is_alive():
                worker.process.kill()
        for worker in self.workers:
            worker.process.join(1.0)
            worker.conn.close()
        self.workers.clear()


def _answer(worker: _Worker) -> tuple[str, object]:
    """("row", row), ("cancelled", None), ("error", why) from a worker, or ("died", how) where it is gone."""
    try:
        if worker.conn.poll():
            return worker.conn.recv()
    except (EOFError, OSError):
        pass
    worker.process.join(1.0)
    code = worker.process.exitcode
    if code is not None and code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exit status {code}"
    return "died", how


# --- in a worker process -------------------------------------------------------------------------------------


class _Stop(BaseException):
    """Raised in a worker's check when the run stops (its watcher's doing): not an Exception, so no check
    catches it as its own failure."""


_stopping = False


def _stop_check(_signum, _frame) -> None:
    global _stopping
    if not _stopping:  # once: the worker's own cleanup is not cut again
        _stopping = True
        raise _Stop


_signalled = False  # in a worker: a terminal's or a batch system's signal reached it during the current check


def _note_signal(_signum, _frame) -> None:
    """The parent stops the workers, so a worker goes on; but a signal sent to the whole job (Slurm's scancel,
    a terminal's Ctrl+C) also killed the check's compiler or child, whose failure is no grade."""
    global _signalled
    _signalled = True


def _serve(conn, cancel, parent: int, jobs: int) -> None:
    """A worker: files from `conn`, one at a time, until None, the run's cancel, or its parent's end."""
    global _CANCEL, _signalled
    for signum in _SIGNALS:  # the parent stops the workers; a handler, not SIG_IGN: their children get the default
        signal.signal(signum, _note_signal)
    if _POSIX:
        signal.signal(signal.SIGUSR1, _stop_check)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
    _CANCEL = cancel
    try:  # from here on the watcher may stop it at any line
        if jobs > 1:
            one_blas_thread()
        threading.Thread(target=_watch, args=(cancel, parent), daemon=True, name="gemmviz-grade-watch").start()
        while not cancel.is_set():
            task = conn.recv()
            if task is None:
                return
            _signalled = False
            try:
                answer: tuple[str, object] = ("row", grade_one(*task))
            except (Cancelled, _Stop):
                answer = ("cancelled", None)
            except Exception as exc:  # a bug: the parent records the file as not checked
                answer = ("error", f"{type(exc).__name__}: {exc}")
            if _signalled or cancel.is_set():  # its steps may have been killed under it: checked again on resume
                answer = ("cancelled", None)
            conn.send(answer)
    except (_Stop, EOFError, OSError):
        pass


def _watch(cancel, parent: int) -> None:
    """Stop the worker's check when the run is cancelled or the parent is gone (a kill -9 of it too): the
    check's child steps see the cancel flag, its Python code gets _Stop; a worker that does not end within
    STOP_GRACE_S after that ends here."""
    while not cancel.wait(PARENT_POLL_S):
        if os.getppid() != parent:
            cancel.set()
            break
    main = threading.main_thread().ident
    if main is not None and _POSIX:
        signal.pthread_kill(main, signal.SIGUSR1)
    time.sleep(STOP_GRACE_S)
    os._exit(1)
