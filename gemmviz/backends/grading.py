"""`gemmviz exercise grade`: check every student's .cu under a folder with the check that `exercise check` runs
(backends/exercise.check_exercise, whichever path it takes: the GPU, or the CPU alone) and keep one CSV row
per file (core/exercise/grading.py).

Checks run in worker processes, `jobs` at a time; where a GPU is found they run one at a time, so that no
two kernels share the GPU while one is timed. After each file the whole CSV is written again through
core/fileio.write_atomic, so it is valid whenever the run stops. A rerun skips every file whose row holds the
same source hash (a resume). Ctrl+C sets a flag the workers' checks poll (their child processes are killed
within half a second), the files in flight are dropped, and the CSV keeps every row finished before it."""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from gemmviz.backends.exercise import Cancelled, CheckOptions, check_exercise, gpu_arch, work_dir
from gemmviz.core.exercise.exercises import Exercise, ExerciseError
from gemmviz.core.exercise.grading import (
    Student,
    csv_text,
    in_shard,
    needs_check,
    problem_row,
    read_rows,
    record_row,
    students,
)
from gemmviz.core.fileio import write_atomic

_CANCEL = None  # in a worker: the run's cancel flag (a multiprocessing.Event; the check polls is_set())


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
    """What a grading run did: files found (in this shard), checked now, skipped as already graded."""

    found: int = 0
    checked: int = 0
    kept: int = 0
    jobs: int = 1
    gpu: str | None = None  # the GPU the checks ran on, None without one
    interrupted: bool = False


ProgressFn = Callable[[int, int, dict], None]


def _init_worker(cancel, jobs: int = 1) -> None:
    global _CANCEL
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the parent's: it sets `cancel` for everyone
    _CANCEL = cancel
    if jobs > 1:
        one_blas_thread()


def one_blas_thread() -> None:
    """numpy's BLAS on one thread in a worker of a batch that runs several checks at once: each worker's
    verification (the float64 reference products, the experiments' products) is small, and OpenBLAS's own
    threads, one per core in every worker, fight over the cores (2026-12-02 on 2 loaded cores: the
    experiments' k_shift, 14 float64 products of 100×129 by 129×77, took 13 to 28 ms a call on two threads,
    2 to 3 ms on one)."""
    from gemmviz.backends.blas_threads import set_blas_threads

    set_blas_threads(1)


def grade_one(student: Student, exercise: Exercise, options: GradeOptions, checker=None) -> dict:
    """One file's row (in a worker process). `checker` stands in for check_exercise (the tests' fake)."""
    if student.problem:
        return problem_row(student, student.problem, exercise.name)
    cancel = _CANCEL if _CANCEL is not None else threading.Event()
    check_options = CheckOptions(
        sanitize=options.sanitize,
        time=options.time,
        profile=options.profile,
        accesses=options.accesses,
        seed=options.seed,
        cancel=cancel,
    )
    try:
        record = (checker or check_exercise)(student.path, exercise, check_options)
    except ExerciseError as exc:
        return problem_row(student, str(exc), exercise.name)
    return record_row(student, record, exercise, options.lang)


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
    (core/exercise/grading.py) for an earlier CSV that cannot be resumed, before any check."""
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
        return run
    context = multiprocessing.get_context("spawn")  # no fork of a parent that may hold threads
    cancel = context.Event()
    pool = ProcessPoolExecutor(run.jobs, mp_context=context, initializer=_init_worker, initargs=(cancel, run.jobs))
    pending: dict[Future, Student] = {}
    queue = list(reversed(todo))
    try:
        while queue or pending:
            while queue and len(pending) < run.jobs:  # no more in the pool's queue than it runs: a stop is quick
                student = queue.pop()
                pending[pool.submit(grade_one, student, exercise, options, checker)] = student
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                student = pending.pop(future)
                row = _row_of(future, student, exercise)
                if row is None:
                    continue
                rows[row["file"]] = row
                write_atomic(csv_path, csv_text(rows))  # the whole CSV, valid at every step
                run.checked += 1
                if progress is not None:
                    progress(run.kept + run.checked, run.found, row)
    except KeyboardInterrupt:
        run.interrupted = True
        cancel.set()
    finally:
        cancel.set()  # whatever ended the loop, no check goes on running
        pool.shutdown(wait=True, cancel_futures=True)
    return run


def _row_of(future: Future, student: Student, exercise: Exercise) -> dict | None:
    """The row a worker returned; None for a check cancelled; a row naming the error for a check that broke."""
    try:
        return future.result()
    except Cancelled:
        return None
    except Exception as exc:  # a bug or a dead worker: that file's row says so, and the others go on
        return problem_row(student, f"the check failed: {type(exc).__name__}: {exc}", exercise.name)
