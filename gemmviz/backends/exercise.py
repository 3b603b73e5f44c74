"""`gemmviz exercise check`: compile a student's kernel with nvcc, run it in a child process on fixed sizes,
verify every element, run compute-sanitizer, time it beside the reference and cuBLAS, read ncu's counters.

No Qt and no PyCUDA here: every GPU step runs in `python -m gemmviz.backends.exercise_child`, in a process
group of its own with a time limit, so an endless loop, an illegal address or a crashed context ends that
step with a verdict and never the caller. Only the exercise's folder (the check record, written by the caller)
and gemmviz's cache (the cubin, the child's specs, nvcc's and the tools' temporary files) are written.

This module runs the steps in order (check_exercise); the steps are in exercise_steps.py (on a GPU) and
exercise_emulated.py (on the CPU emulator), the child process in exercise_process.py, the options and the
check under way in exercise_run.py. Their public names are importable from here as before."""

from __future__ import annotations

import datetime
import hashlib
import shlex
import shutil
import tempfile
import time
from pathlib import Path

from gemmviz import __version__
from gemmviz.backends import emulator
from gemmviz.backends.exercise_emulated import emulate_step, extras_step, nvrtc_step
from gemmviz.backends.exercise_process import Cancelled, ChildRun, child_argv, child_env, emulate_child_argv, run_child
from gemmviz.backends.exercise_run import (
    KERNEL_TIMEOUT_S,
    PROFILE_SHAPE,
    SANITIZE_SHAPE,
    SHAPES,
    STEP_LIMITS_S,
    TIME_SHAPE,
    CheckOptions,
    CheckRun,
    HandIn,
    ProgressFn,
    work_dir,
)
from gemmviz.backends.exercise_steps import (
    accesses_step,
    base_spec,
    check_metrics,
    compile_student,
    gpu_arch,
    kept_ptx,
    profile_step,
    ptx_compile_record,
    sanitize_step,
    time_step,
    unknown_gap_metric,
    verify_step,
)
from gemmviz.backends.profile import find_cuda_tool
from gemmviz.core import interrupt
from gemmviz.core.exercise.check import finish
from gemmviz.core.exercise.exercises import Exercise, check_signature, read_source, recorded_reference
from gemmviz.core.exercise.includes import check_includes
from gemmviz.core.exercise.record import FORMAT, VERSION
from gemmviz.core.messages import msg

__all__ = [  # the names callers import from here (the check's public surface)
    "Cancelled",
    "CheckOptions",
    "ChildRun",
    "HandIn",
    "KERNEL_TIMEOUT_S",
    "PROFILE_SHAPE",
    "ProgressFn",
    "SANITIZE_SHAPE",
    "SHAPES",
    "STEP_LIMITS_S",
    "TIME_SHAPE",
    "accesses_step",
    "check_metrics",
    "child_argv",
    "child_env",
    "compile_student",
    "emulate_child_argv",
    "emulate_step",
    "extras_step",
    "gpu_arch",
    "kept_ptx",
    "nvrtc_step",
    "profile_step",
    "ptx_compile_record",
    "run_child",
    "sanitize_step",
    "time_step",
    "unknown_gap_metric",
    "verify_step",
    "work_dir",
    "check_exercise",
]


def _remove_stale(folder: Path, age_s: float = 6 * 3600) -> None:
    """Check folders a killed process left behind (its cubins and specs), after a few hours."""
    now = time.time()
    for old in folder.glob("check-*"):
        try:
            if now - old.stat().st_mtime > age_s:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass


def check_exercise(
    source_path: str | Path, exercise: Exercise, options: CheckOptions | None = None, progress: ProgressFn | None = None
) -> dict:
    """The whole check of one student file: the record (core/exercise/record.py) with verdicts and cause (core/exercise/check.py).

    Raises ExerciseError for a file that is not the exercise's kernel, Cancelled when options.cancel is set."""
    options = options or CheckOptions()
    given = str(source_path)  # as the user wrote it, for the advice to run the check again
    source_path = Path(source_path).resolve()
    source = read_source(source_path)
    check_signature(source, exercise)
    check_includes(source, Path(given).absolute().parent, Path(given).name)
    progress = progress or (lambda *_: None)
    _remove_stale(work_dir())
    folder = None
    try:
        with interrupt.deferred():  # made and known together: a signal now leaves no folder behind
            folder = Path(tempfile.mkdtemp(prefix="check-", dir=options.scratch or work_dir()))
        return _check_in(folder, source_path, source, exercise, options, progress, given)
    finally:
        if folder is not None:
            with interrupt.deferred():  # a signal during the removal would leave half the folder behind
                _remove_folder(folder)


def _remove_folder(folder: Path, tries: int = 50) -> None:
    """Remove a check's folder, again while it is still there: a step's child that was being stopped as the
    removal ran can write a file into it and take it away again, so that one pass leaves the folder (found by
    the signal tests: an empty check-* folder, about one run in eight)."""
    for _ in range(tries):
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            return
        time.sleep(0.02)


def _check_in(folder: Path, source_path: Path, source: str, exercise: Exercise, options, progress, given) -> dict:
    """check_exercise's steps with their files in `folder`."""
    record = {
        "format": FORMAT,
        "version": VERSION,
        "exercise": exercise.name,
        "file": str(source_path),
        "source": source,
        "source_sha256": hashlib.sha256(source.encode()).hexdigest(),
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "gemmviz": __version__,
        "speed_goal": exercise.speed_goal,
        "reference": exercise.reference,
        "seed": options.seed,
        "shapes": [],
        "sanitizer": {},
        "timing": {},
        "counters": {},
        "not_run": [],
    }
    handin = HandIn.make(given, source, folder)
    _run_steps(record, CheckRun(handin.copy, exercise, options, folder, progress, given=given, handin=handin))
    return finish(record)


def _run_steps(record: dict, run: CheckRun) -> None:
    run.step("looking for a GPU")
    device, no_gpu = gpu_arch(run.folder, run.options.cancel)
    arch = f"sm_{device['cc'][0]}{device['cc'][1]}" if device else "sm_90"
    if device:
        record["environment"] = {"gpu": device["name"], "cc": device["cc"]}
    build = None
    name = run.handin.name if run.handin else run.source_path.name
    if no_gpu and run.options.emulate and find_cuda_tool("nvcc") is None:  # NVRTC from PyPI, for the emulator
        run.step("compiling with NVRTC (no CUDA toolkit here)")
        build, stopped = nvrtc_step(run, arch)
        record["compile"] = ptx_compile_record(build, name, run.handin)
        if stopped:  # the verdict names the limit, not what the compiler said as it ran out
            record["compile"]["diagnostics"] = [d for d in record["compile"]["diagnostics"] if d["severity"] != "error"]
    else:
        run.step(f"compiling with nvcc ({arch})")
        keep = run.folder / "nvcc-keep" if run.options.emulate else None  # the emulator's PTX
        record["compile"] = compile_student(
            run.source_path, run.exercise, arch, run.folder, run.options.cancel, keep, run.handin
        )
        build = kept_ptx(record["compile"], run.source_path, keep) if keep else None
    if not record["compile"]["ok"]:
        return
    if no_gpu:
        record["no_gpu"] = no_gpu
        record["recorded_reference"] = recorded_reference(run.exercise)
        if run.options.emulate:
            run.step("emulating your kernel on the CPU (every thread, every element)")
            emulate_step(record, run, build)
        command = f"gemmviz exercise check {shlex.quote(run.given or str(run.source_path))}"
        record["not_run"].append(
            f"timing, compute-sanitizer and counters need a CUDA GPU ({no_gpu}); run "
            f"`{command}` on a GPU machine, then open the check file it writes in the app"
        )
        record["not_run_messages"] = [msg("report.not_run_gpu", why=no_gpu, command=command)]
        return
    _gpu_steps(record, run, arch, build)
    run.progress(run.steps, run.steps, "done")


def _gpu_steps(record: dict, run: CheckRun, arch: str, build: emulator.PtxBuild | None = None) -> None:
    """The steps after a compile on a GPU: every size verified, then those the options ask for."""
    options, folder = run.options, run.folder
    spec = base_spec(run.exercise, record["compile"]["cubin"], options)
    run.step(f"running {len(options.shapes)} sizes and verifying every element")
    record["shapes"], record["run_error"] = verify_step(spec, options, folder)
    stuck = any(s["status"] == "timeout" for s in record["shapes"])
    if options.emulate:
        run.step("the CPU emulator: uninitialised shared reads, divergent barriers, the experiments")
        extras_step(record, run, build)
    if options.sanitize:
        run.step("compute-sanitizer: memcheck, racecheck, synccheck")
        if stuck:
            record["sanitizer"] = {"note": "not run: the kernel does not finish"}
        else:
            record["sanitizer"] = sanitize_step(spec, options, folder, run.source_path.name)
    correct = record["shapes"] and all(s["status"] == "ok" for s in record["shapes"])
    if options.time:
        run.step("timing yours, the reference and cuBLAS")
        record["timing"] = time_step(spec, options, folder) if correct else {"note": "not timed: the kernel is wrong"}
    if options.profile:
        run.step("Nsight Compute counters")
        from gemmviz.core.kernels.variants import VARIANTS

        ref_kernel = VARIANTS[run.exercise.reference].kernel_name
        assert ref_kernel is not None  # an exercise's reference is a kernel of the registry, never cuBLAS
        record["counters"] = (
            profile_step(spec, options, folder, ref_kernel)
            if correct
            else {"note": "not profiled: the kernel is wrong"}
        )
    if options.accesses and not stuck and record["shapes"]:
        run.step("recording the memory accesses of two blocks")
        record["accesses"] = accesses_step(spec, options, folder, run.exercise, arch)
