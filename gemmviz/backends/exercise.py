"""`gemmviz exercise check`: compile a student's kernel with nvcc, run it in a child process on fixed sizes,
verify every element, run compute-sanitizer, time it beside the reference and cuBLAS, read ncu's counters.

No Qt and no PyCUDA here: every GPU step runs in `python -m gemmviz.backends.exercise_child`, in a process
group of its own with a time limit, so an endless loop, an illegal address or a crashed context ends that
step with a verdict and never the caller. Only the exercise's folder (the check record, written by the caller)
and gemmviz's cache (the cubin, the child's specs, nvcc's and the tools' temporary files) are written."""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gemmviz import __version__
from gemmviz.backends import emulator, sandbox
from gemmviz.backends.exercise_emulate import ACCESS_KEEP_PER_BLOCK, ACCESS_SHAPE, BY, remember_reference
from gemmviz.backends.kernel_cache import kernel_cache_dir, secure_cache_dir
from gemmviz.backends.profile import find_cuda_tool
from gemmviz.core import interrupt
from gemmviz.core.exercise.check import (
    SANITIZER_TOOLS,
    diagnostic_log,
    finish,
    parse_nvcc,
    parse_sanitizer,
    sanitizer_errors,
)
from gemmviz.core.exercise.exercises import Exercise, check_signature, read_source, recorded_reference
from gemmviz.core.exercise.includes import check_includes
from gemmviz.core.exercise.record import FORMAT, VERSION
from gemmviz.core.messages import msg

SHAPES = ((1, 1, 1), (33, 17, 65), (100, 77, 129), (128, 128, 128), (1020, 1020, 1020))
SANITIZE_SHAPE = (33, 17, 65)
TIME_SHAPE = (2048, 2048, 2048)
PROFILE_SHAPE = (1024, 1024, 1024)
KERNEL_TIMEOUT_S = 10.0  # one launch
STEP_LIMITS_S = {"probe": 60, "verify": 180, "sanitize": 240, "time": 240, "profile": 300, "nvcc": 120,
                 "accesses": 180, "nvrtc": 120, "emulate": 300}  # fmt: skip

ProgressFn = Callable[[int, int, str], None]


class Cancelled(Exception):
    pass


@dataclass
class CheckOptions:
    sanitize: bool = True
    time: bool = True
    profile: bool = True
    accesses: bool = True
    seed: int | None = None
    emulate: bool = True  # without a GPU, run the kernel on the CPU emulator; with one, add its findings
    shapes: tuple = SHAPES
    timeout_s: float = KERNEL_TIMEOUT_S
    cancel: threading.Event = field(default_factory=threading.Event)
    scratch: Path | None = None  # where the check's folder goes (default: work_dir()); a grading run's own folder


def work_dir() -> Path:
    folder = secure_cache_dir(kernel_cache_dir() / "exercises")
    return folder


@dataclass(frozen=True)
class HandIn:
    """A student's file as it is checked: the path the user gave (for messages), its folder (the one place its
    #includes may come from) and the safely named copy of the bytes that were read and checked, which the
    compilers are given (a name with commas, quotes or spaces broke nvcc's ptxas step)."""

    given: str
    folder: Path
    copy: Path

    @property
    def name(self) -> str:
        return Path(self.given).name

    def shown(self, text: str) -> str:
        """Text that names the copy, naming the user's file instead."""
        text = text.replace(str(self.copy), self.given)
        return text if self.copy.name == self.name else text.replace(self.copy.name, self.name)

    def shown_diagnostics(self, diagnostics: list[dict]) -> list[dict]:
        """Diagnostics read under the copy's name (parse_nvcc), their messages naming the user's file."""
        return [{**d, "message": self.shown(d["message"])} for d in diagnostics]

    @property
    def include_dir(self) -> Path:
        """The hand-in's folder as the compilers are given it: a link of a plain name in the check's folder (nvcc
        hands its options to a shell of its own, where a folder named `$(...)` or with a quote would be read)."""
        return self.copy.parent.parent / "include"

    @classmethod
    def make(cls, given: str, source: str, work: Path) -> HandIn:
        """The copy (a name of letters, digits, _ and -) and the link to the folder, in the check's folder."""
        stem = re.sub(r"[^A-Za-z0-9_-]", "_", Path(given).stem)[:60].lstrip("-") or "kernel"
        copy = work / "src" / f"{stem}.cu"
        copy.parent.mkdir(exist_ok=True)
        copy.write_bytes(source.encode("utf-8"))
        handin = cls(given, Path(given).absolute().parent, copy)
        try:
            handin.include_dir.symlink_to(handin.folder.resolve(), target_is_directory=True)
        except OSError:  # no links here (Windows without the right): its own headers are not found, nothing else
            pass
        return handin


@dataclass
class ChildRun:
    events: list[dict]
    returncode: int | None
    stderr: str
    timed_out: bool
    stdout: str = ""  # its other lines (nvcc's messages)
    stopped: str | None = None  # the limit that stopped it: "time" or "memory" (sandbox.stopped_text says it)


def run_child(
    argv: list[str],
    limit_s: float,
    cancel: threading.Event,
    env: dict | None = None,
    cwd: Path | None = None,
    memory_bytes: int | None = None,
) -> ChildRun:
    """Run argv in a new process group; read its JSON lines; at limit_s or on cancel (checked every 50 ms, so a
    cancel ends the step within half a second) send the group SIGTERM, then SIGKILL after sandbox.GRACE_S; on any
    exception while it runs (a signal) SIGKILL at once. `memory_bytes`: the work's address-space limit
    (sandbox.Limits); a child that reached it is `stopped` "memory". Whatever the group left running when its
    leader ended is killed too."""
    limits = sandbox.Limits(limit_s, memory_bytes)
    if memory_bytes is not None:
        argv, env = sandbox.limited_argv(argv, limits), sandbox.limited_env(env)
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
        env=env,
        cwd=cwd,
    )
    events: list[dict] = []
    err: list[str] = []
    out: list[str] = []
    readers = _readers(proc, events, out, err)
    t0, timed_out = time.monotonic(), False
    try:
        while proc.poll() is None:
            if cancel.is_set() or time.monotonic() - t0 > limit_s:
                timed_out = not cancel.is_set()
                _kill(proc)
                break
            time.sleep(0.05)
    except BaseException:  # Ctrl+C, SIGTERM, a grading run's stop: the step's processes end with it, at once
        _kill(proc, grace_s=0)
        raise
    proc.wait()
    _signal_group(proc.pid, signal.SIGKILL)  # what the leader left behind (nvcc's cicc, a child's child)
    for r in readers:
        r.join(timeout=2)
    if cancel.is_set():
        raise Cancelled
    stopped = "time" if timed_out else None
    if memory_bytes is not None and not timed_out:
        said = "".join(out) + "".join(err)
        if any(e.get("event") == "memory" for e in events) or sandbox.ran_out_of_memory(proc.returncode, said):
            stopped = "memory"
    return ChildRun(events, proc.returncode, "".join(err), timed_out, "".join(out), stopped)


def _readers(proc: subprocess.Popen, events: list[dict], out: list[str], err: list[str]) -> list[threading.Thread]:
    """Threads that read the child's JSON lines into events, its other lines into out and err (200 kB each)."""

    kept = {id(out): 0, id(err): 0}  # characters kept so far: a million lines stay linear

    def keep(into: list[str], line: str) -> None:
        if kept[id(into)] < 200_000:
            into.append(line)
            kept[id(into)] += len(line)

    def read_out():
        for line in proc.stdout:
            text = line.strip()
            if text.startswith("{"):
                try:
                    events.append(json.loads(text))
                    continue
                except json.JSONDecodeError:
                    pass
            keep(out, line)

    def read_err():
        for line in proc.stderr:
            keep(err, line)

    readers = [threading.Thread(target=f, daemon=True) for f in (read_out, read_err)]
    for r in readers:
        r.start()
    return readers


def _signal_group(pid: int, sig: int) -> bool:
    """Send sig to the process group led by pid; False where there is none left."""
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    return True


def _kill(proc: subprocess.Popen, grace_s: float | None = None) -> None:
    """SIGTERM to the child's whole group, then SIGKILL to what is still there after grace_s (sandbox.GRACE_S),
    and wait for it: gone before the caller removes the folder it wrote into."""
    grace_s = sandbox.GRACE_S if grace_s is None else grace_s
    if grace_s > 0 and _signal_group(proc.pid, signal.SIGTERM):
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            pass
    if not _signal_group(proc.pid, signal.SIGKILL):
        proc.kill()
    try:
        proc.wait(2)
    except subprocess.TimeoutExpired:
        pass
    deadline = time.monotonic() + 2  # the leader's children too (cicc writing into the folder the caller removes)
    while _signal_group(proc.pid, 0) and time.monotonic() < deadline:
        time.sleep(0.01)


def child_env(tmp: Path) -> dict:
    env = dict(os.environ)
    env["TMPDIR"] = str(tmp)  # nvcc's and the tools' temporary files go to gemmviz's cache, not /tmp
    return env


def child_argv(spec: dict, folder: Path) -> list[str]:
    path = folder / f"spec-{spec['mode']}-{os.getpid()}-{threading.get_ident()}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return [sys.executable, "-m", "gemmviz.backends.exercise_child", str(path)]


# --- the steps ---------------------------------------------------------------------------------------------


def gpu_arch(folder: Path, cancel: threading.Event) -> tuple[dict | None, str | None]:
    """(device info, None) from a child that asks the driver, or (None, why there is no GPU)."""
    try:
        import pycuda  # noqa: F401  (only to say clearly that it is missing)
    except ImportError:
        return None, 'PyCUDA is not installed (pip install "gemmviz[cuda]", on a machine with an NVIDIA GPU)'
    run = run_child(child_argv({"mode": "probe"}, folder), STEP_LIMITS_S["probe"], cancel, child_env(folder))
    device = next((e for e in run.events if e.get("event") == "device"), None)
    if device is None:
        error = next((e["error"] for e in run.events if e.get("event") == "error"), run.stderr.strip()[-300:])
        return None, f"no CUDA GPU could be opened: {error or 'the driver did not answer'}"
    return device, None


def compile_student(
    source_path: Path,
    exercise: Exercise,
    arch: str,
    folder: Path,
    cancel,
    keep_dir: Path | None = None,
    handin: HandIn | None = None,
) -> dict:
    """nvcc -cubin -lineinfo: {"ok", "arch", "cubin", "diagnostics", "log"}; errors name the student's file.
    `keep_dir`: nvcc keeps its intermediate files there (--keep), among them the PTX (kept_ptx). `handin`: the
    hand-in that source_path is the safe copy of (its folder is the one include path; messages say its name)."""
    nvcc = find_cuda_tool("nvcc")
    if nvcc is None:
        return {
            "ok": False,
            "arch": arch,
            "error": "nvcc not found: install the CUDA toolkit or put nvcc on PATH",
            "diagnostics": [],
        }
    source = source_path.read_bytes()
    key = hashlib.sha256(source + arch.encode() + " ".join(exercise.nvcc_defines()).encode()).hexdigest()[:24]
    cubin = folder / f"{exercise.name}-{key}.cubin"
    includes = [f"-I{handin.include_dir}"] if handin else []
    argv = [str(nvcc), "-cubin", "-lineinfo", "-O3", f"-arch={arch}", *exercise.nvcc_defines(), *includes]
    argv += ["-o", str(cubin), str(source_path)]
    keep = []
    if keep_dir is not None:
        keep_dir.mkdir(parents=True, exist_ok=True)
        keep = ["--keep", f"--keep-dir={keep_dir}"]
    # a child like every other step: no stdin (an #include "/dev/stdin" reads nothing), its own process group
    # (nvcc's gcc and cicc are killed with it), the step's time limit, a memory limit, and cancel
    limits = sandbox.Limits(STEP_LIMITS_S["nvcc"], sandbox.MEMORY_LIMIT_BYTES)
    run = run_child(
        [*argv[:-1], *keep, argv[-1]],
        limits.wall_s,
        cancel,
        child_env(folder),
        cwd=folder,
        memory_bytes=limits.memory_bytes,
    )
    log = (run.stdout + run.stderr).strip()
    diagnostics = parse_nvcc(log, source_path.name)  # read under the copy's plain name: one line per message
    if handin:
        log = handin.shown(log)
        diagnostics = handin.shown_diagnostics(diagnostics)
    if run.stopped:
        why = "a compile that never ends: a template recursion, a huge unrolled loop?"
        if run.stopped == "memory":
            why = "a macro that expands without end, a huge array initialiser, an #include of a device?"
        return {
            "ok": False,
            "arch": arch,
            "error": f"{sandbox.stopped_text(run.stopped, limits)} while compiling ({why})",
            "diagnostics": [d for d in diagnostics if d["severity"] != "error"],
        }
    ok = run.returncode == 0 and cubin.is_file()
    return {
        "ok": ok,
        "arch": arch,
        "cubin": str(cubin) if ok else None,
        "diagnostics": diagnostics,
        "log": diagnostic_log(log)[-4000:],
        "command": " ".join(["nvcc", *(handin.shown(a) for a in argv[1:])] if handin else ["nvcc", *argv[1:]]),
    }


def kept_ptx(compiled: dict, source_path: Path, keep_dir: Path) -> emulator.PtxBuild | None:
    """The PTX nvcc made on its way to the cubin (compile_student's keep_dir), as the emulator's build: the same
    file `nvcc -ptx` with the same options writes (emulator.compile_ptx), without a second nvcc run. None where
    the compile failed or nvcc kept no such file (the emulator then compiles the PTX itself)."""
    path = keep_dir / f"{source_path.stem}.ptx"
    if not compiled.get("ok") or not path.is_file():
        return None
    ptx = path.read_text(encoding="utf-8", errors="replace")
    return emulator.PtxBuild(True, ptx, compiled.get("log", ""), compiled.get("command", ""), arch=compiled["arch"])


def ptx_compile_record(build: emulator.PtxBuild, source_name: str, handin: HandIn | None = None) -> dict:
    """The record's compile part from a PTX build (NVRTC where there is no nvcc): as compile_student's."""
    diagnostics = parse_nvcc(build.log, handin.copy.name if handin else source_name)
    log = handin.shown(build.log) if handin else build.log
    out = {
        "ok": build.ok,
        "arch": build.arch,
        "diagnostics": handin.shown_diagnostics(diagnostics) if handin else diagnostics,
        "log": diagnostic_log(log)[-4000:],
        "command": handin.shown(build.command) if handin else build.command,
    }
    if build.error:
        out["error"] = build.error
    return out


def _base_spec(exercise: Exercise, cubin: str, options: CheckOptions) -> dict:
    return {
        "cubin": cubin,
        "kernel": exercise.kernel,
        "threads": list(exercise.threads),
        "block_tile": list(exercise.block_tile),
        "timeout_s": options.timeout_s,
        "seed": options.seed,
        "reference": exercise.reference,
        "reference_params": exercise.reference_params,
    }


def verify_step(spec: dict, options: CheckOptions, folder: Path) -> tuple[list[dict], str | None]:
    """Each size's outcome; a timeout or crash ends the child, and the sizes after it are not run."""
    run = run_child(
        child_argv({**spec, "mode": "verify", "shapes": [list(s) for s in options.shapes]}, folder),
        STEP_LIMITS_S["verify"],
        options.cancel,
        child_env(folder),
    )
    shapes = []
    for e in run.events:
        if e["event"] == "shape":
            e["status"] = "ok" if e.pop("valid") else "wrong"
            shapes.append({k: v for k, v in e.items() if k != "event"})
        elif e["event"] in ("timeout", "launch-error"):
            dims = [int(x) for x in e["shape"].split("x")]
            shapes.append(
                {"shape": dims, "status": e["event"], "error": e.get("error"), "timeout_s": e.get("timeout_s")}
            )
    error = next((e["error"] for e in run.events if e["event"] == "error"), None)
    if run.timed_out:
        error = f"the check's run ran over {STEP_LIMITS_S['verify']} s and was stopped"
    elif error is None and not shapes and run.returncode:
        error = f"the child process ended with status {run.returncode}: {run.stderr.strip()[-500:]}"
    return shapes, error


def sanitize_step(spec: dict, options: CheckOptions, folder: Path, source_name: str) -> dict:
    tool_exe = find_cuda_tool("compute-sanitizer")
    out: dict = {"shape": list(SANITIZE_SHAPE)}
    if tool_exe is None:
        out["note"] = "compute-sanitizer not found (it comes with the CUDA toolkit)"
        return out
    argv = child_argv({**spec, "mode": "launch", "shapes": [list(SANITIZE_SHAPE)]}, folder)
    for tool in SANITIZER_TOOLS:
        log = folder / f"sanitizer-{tool}-{os.getpid()}.log"
        extra = ["--racecheck-report", "all"] if tool == "racecheck" else []
        cmd = [
            str(tool_exe),
            "--tool",
            tool,
            *extra,
            "--show-backtrace",
            "device",
            "--print-limit",
            "100",
            "--log-file",
            str(log),
            *argv,
        ]
        run = run_child(cmd, STEP_LIMITS_S["sanitize"], options.cancel, child_env(folder))
        text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        text = "\n".join(line for line in text.splitlines() if "Host Frame" not in line)
        log.unlink(missing_ok=True)
        findings = parse_sanitizer(tool, text, source_name)
        part = {"ran": not run.timed_out, "findings": findings, "errors": sanitizer_errors(text), "log": text[-20000:]}
        if run.timed_out:
            part["note"] = f"{tool} ran over {STEP_LIMITS_S['sanitize']} s"
        out[tool] = part
    return out


def time_step(spec: dict, options: CheckOptions, folder: Path) -> dict:
    run = run_child(
        child_argv({**spec, "mode": "time", "shapes": [list(TIME_SHAPE)]}, folder),
        STEP_LIMITS_S["time"],
        options.cancel,
        child_env(folder),
    )
    out: dict = {"shape": list(TIME_SHAPE), "method": "kernel-only (events behind a blocking kernel)"}
    for e in run.events:
        if e["event"] == "timed":
            out[e["who"]] = {k: v for k, v in e.items() if k not in ("event", "who")}
    error = next((e["error"] for e in run.events if e["event"] == "error"), None)
    if error or run.timed_out:
        out["note"] = error or f"timing ran over {STEP_LIMITS_S['time']} s"
    return out


def check_metrics() -> list[str]:
    """The check's ncu metrics: gemmviz's counters and the gap view's (core/hardware/gap.py), so a check can show
    where the time between the student's kernel and the reference goes (core/exercise/gap.py)."""
    from gemmviz.core.hardware.counters import METRIC_NAMES
    from gemmviz.core.hardware.gap import GAP_METRICS

    return list(dict.fromkeys([*METRIC_NAMES, *GAP_METRICS]))


def unknown_gap_metric(output: str, metrics: list[str]) -> str | None:
    """The gap metric ncu said it does not know on this GPU (to be dropped and the run repeated), or None."""
    from gemmviz.backends.profile import droppable_gap_metric, missing_metric

    return droppable_gap_metric(missing_metric(output), metrics)


def profile_step(spec: dict, options: CheckOptions, folder: Path, reference_kernel: str) -> dict:
    """ncu on the child that launches the student's kernel once, then the reference: the first launch of
    each (ncu's report goes to the check's folder in the cache, like every other file of the check)."""
    from gemmviz.backends.profile import explain_failure, find_ncu, profile_command
    from gemmviz.core.hardware.counters import NcuCsvError, parse_ncu_csv

    out: dict = {"shape": list(PROFILE_SHAPE)}
    ncu = find_ncu()
    if ncu is None:
        out["note"] = "Nsight Compute (ncu) not found: install the CUDA toolkit or put ncu on PATH"
        return out
    argv = child_argv({**spec, "mode": "profile", "shapes": [list(PROFILE_SHAPE)]}, folder)
    names = sorted({spec["kernel"], reference_kernel})
    log = folder / "ncu.csv"
    metrics = check_metrics()
    while True:
        log.unlink(missing_ok=True)
        cmd = profile_command(argv, f"^({'|'.join(names)})$", metrics, launch_count=2, ncu=ncu, log_file=log)
        run = run_child(cmd, STEP_LIMITS_S["profile"], options.cancel, child_env(folder))
        report = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        try:
            rows = parse_ncu_csv(report, metrics)
        except NcuCsvError:
            rows = []
        unknown = None if rows or run.timed_out else unknown_gap_metric(report + run.stderr, metrics)
        if unknown is None:
            break
        metrics = [m for m in metrics if m != unknown]  # a GPU whose ncu lacks a gap metric: the rest still count
    if not rows:
        why = (
            f"ncu ran over {STEP_LIMITS_S['profile']} s"
            if run.timed_out
            else explain_failure(run.returncode or 0, report + run.stderr)
        )
        out["note"] = why
        return out
    out["yours"] = {k: v for k, v in rows[0]["counters"].items() if v is not None}
    if len(rows) > 1:
        out["reference"] = {k: v for k, v in rows[1]["counters"].items() if v is not None}
    return out


def accesses_step(spec: dict, options: CheckOptions, folder: Path, exercise: Exercise, arch: str) -> dict:
    """What the kernel really touched in an interior and an edge block at ACCESS_SHAPE: the
    trace (core/hardware/accesses.py's JSON, the first requests of each block in detail), or {"note": why not}. The traced
    child runs like every other step (time limit, cancel, its own process group)."""
    from gemmviz.backends import accesses as backend
    from gemmviz.core.hardware.accesses import AccessError, from_raw, keep_first, to_json

    try:
        build = backend.build_tracer(arch)
        prefix = folder / "trace"
        env = {**child_env(folder), **backend.tracer_env(build, prefix, exercise.kernel)}
        argv = child_argv({**spec, "mode": "launch", "shapes": [list(ACCESS_SHAPE)]}, folder)
        run = run_child(argv, STEP_LIMITS_S["accesses"], options.cancel, env)
        if run.timed_out:
            return {"note": f"no access records: the traced run ran over {STEP_LIMITS_S['accesses']} s"}
        if (run.returncode or 0) < 0:
            return {"note": f"no access records: the traced child crashed (signal {-run.returncode})"}
        # the cubin was built with -lineinfo: its disassembly maps PCs to the student's lines
        raw = backend.read_trace(prefix, exercise.kernel, Path(spec["cubin"]))
        header, records, sass = raw.header, raw.records, raw.sass
        # the trace names the registry kernel it is measured against (the records' loader knows only those);
        # the check record says whose accesses they are
        trace = from_raw(header, records, sass, exercise.reference, ACCESS_SHAPE, {})
    except (AccessError, OSError, ValueError) as exc:
        return {"note": f"no access records: {exc}"}
    return {"shape": list(ACCESS_SHAPE), "trace": to_json(keep_first(trace, ACCESS_KEEP_PER_BLOCK))}


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
    _run_steps(record, _CheckRun(handin.copy, exercise, options, folder, progress, given=given, handin=handin))
    return finish(record)


@dataclass
class _CheckRun:
    """One check under way: the file, its exercise and options, the folder for its files, and how far it got."""

    source_path: Path  # the safely named copy that is compiled (handin.copy)
    exercise: Exercise
    options: CheckOptions
    folder: Path
    progress: ProgressFn
    done: int = 0
    given: str = ""  # the path as the user gave it
    handin: HandIn | None = None

    @property
    def steps(self) -> int:
        o = self.options
        return 2 + o.sanitize + o.time + o.profile + o.accesses + o.emulate

    def step(self, what: str) -> None:
        """Say that the next step, `what`, has begun."""
        self.progress(self.done, self.steps, what)
        self.done += 1


def _run_steps(record: dict, run: _CheckRun) -> None:
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


def _emulate_spec(run: _CheckRun, mode: str, build: emulator.PtxBuild | None) -> dict:
    from gemmviz.backends.emulate_child import exercise_spec

    spec = {
        "mode": mode,
        "source": str(run.source_path),
        "source_text": run.source_path.read_text(encoding="utf-8", errors="replace"),
        "exercise": exercise_spec(run.exercise),
        "seed": run.options.seed,
        "accesses": run.options.accesses,
        "folder": str(run.folder),
    }
    if build is not None and build.ok:
        ptx = run.folder / f"{mode}-{os.getpid()}-{threading.get_ident()}.ptx"
        ptx.write_text(build.ptx, encoding="utf-8")
        spec.update(ptx=str(ptx), command=build.command, arch=build.arch)
    return spec


def emulate_child_argv(spec: dict, folder: Path) -> list[str]:
    path = folder / f"spec-{spec['mode']}-{os.getpid()}-{threading.get_ident()}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return [sys.executable, "-m", "gemmviz.backends.emulate_child", str(path)]


def _limited(run: _CheckRun, spec: dict, step: str) -> tuple[ChildRun, sandbox.Limits]:
    """The emulate child of `spec` under the step's time limit and the check's memory limit."""
    limits = sandbox.Limits(STEP_LIMITS_S[step], sandbox.MEMORY_LIMIT_BYTES)
    argv = emulate_child_argv(spec, run.folder)
    child = run_child(argv, limits.wall_s, run.options.cancel, child_env(run.folder), memory_bytes=limits.memory_bytes)
    return child, limits


def _stopped_message(child: ChildRun, limits: sandbox.Limits, what: dict) -> dict | None:
    if child.stopped == "memory" and limits.memory_bytes is not None:
        return msg("sandbox.memory", limit=sandbox.size_text(limits.memory_bytes), what=what)
    if child.stopped == "time":
        return msg("sandbox.time", seconds=f"{limits.wall_s:g}", what=what)
    return None


def nvrtc_step(run: _CheckRun, arch: str) -> tuple[emulator.PtxBuild, str | None]:
    """NVRTC in a child under the sandbox's limits (it compiles in the process that calls it): the build, and
    the limit that stopped it, if one did."""
    out = run.folder / f"nvrtc-{os.getpid()}-{threading.get_ident()}.ptx"
    spec = {
        "mode": "nvrtc",
        "source": str(run.source_path),
        "defines": run.exercise.nvcc_defines(),
        "arch": arch,
        "include_dir": str(run.handin.include_dir) if run.handin else None,
        "out": str(out),
    }
    child, limits = _limited(run, spec, "nvrtc")
    done = next((e for e in child.events if e.get("event") == "ptx"), None)
    if done is not None and not done["ok"] and sandbox.ran_out_of_memory(1, done.get("log") or ""):
        child.stopped = "memory"  # NVRTC says so and returns: its process ends as usual
    if child.stopped or done is None:
        why = (
            f"{sandbox.stopped_text(child.stopped, limits)} while compiling with NVRTC"
            if child.stopped
            else next((e["error"] for e in child.events if e.get("event") == "error"), None)
            or f"NVRTC's process ended with status {child.returncode}: {child.stderr.strip()[-300:]}"
        )
        log = (done or {}).get("log", "")
        return emulator.PtxBuild(False, "", log, "nvrtc", why), child.stopped
    ptx = out.read_text(encoding="utf-8", errors="replace") if done["ok"] and out.is_file() else ""
    build = emulator.PtxBuild(bool(ptx), ptx, done["log"], done["command"], done["error"], done["arch"])
    return build, None


def emulate_step(record: dict, run: _CheckRun, build: emulator.PtxBuild | None) -> None:
    """The emulated check in its child: the record's shapes, 'emulator' and 'accesses' parts, or, where a limit
    stopped it or it failed, no size judged and the reason as the emulator's refusal."""
    from gemmviz.backends import exercise_emulate

    spec = _emulate_spec(run, "emulate", build)
    spec["reference"] = _REFERENCE_FIGURES.get(_reference_name(run.exercise))
    spec["shapes"] = [list(s) for s in exercise_emulate.EMULATED_SHAPES]
    child, limits = _limited(run, spec, "emulate")
    done = next((e["record"] for e in child.events if e.get("event") == "record"), None)
    if done is not None and not child.stopped:
        record.update(done)
        figures = (done.get("emulator") or {}).get("reference")
        if figures and "note" not in figures:
            _REFERENCE_FIGURES[_reference_name(run.exercise)] = figures
            remember_reference(run.exercise, figures)
        return
    why = _stopped_message(child, limits, msg("sandbox.emulated_run")) or msg(
        "emu.no_nvcc",
        why=next((e["error"] for e in child.events if e.get("event") == "error"), None)
        or f"the emulator's process ended with status {child.returncode}",
    )
    record["shapes"] = []
    record["emulator"] = {"by": BY, "refused": why}


_REFERENCE_FIGURES: dict[str, dict] = {}  # the reference's emulated figures, per exercise, for the next child


def _reference_name(exercise: Exercise) -> str:
    return json.dumps([exercise.reference, exercise.reference_params], sort_keys=True)


def extras_step(record: dict, run: _CheckRun, build: emulator.PtxBuild | None) -> None:
    """On a GPU: the emulator's extras (exercise_emulate.gpu_extras) in a child under the sandbox's limits."""
    spec = {**_emulate_spec(run, "extras", build), "shapes": record.get("shapes") or []}
    child, limits = _limited(run, spec, "emulate")
    done = next((e["record"] for e in child.events if e.get("event") == "record"), None)
    if done is not None and not child.stopped:
        record.update(done)
    elif child.stopped:
        why = _stopped_message(child, limits, msg("sandbox.extra_runs"))
        record["emulator"] = {"by": BY, "refused": why}


def _gpu_steps(record: dict, run: _CheckRun, arch: str, build: emulator.PtxBuild | None = None) -> None:
    """The steps after a compile on a GPU: every size verified, then those the options ask for."""
    options, folder = run.options, run.folder
    spec = _base_spec(run.exercise, record["compile"]["cubin"], options)
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
        record["counters"] = (
            profile_step(spec, options, folder, ref_kernel)
            if correct
            else {"note": "not profiled: the kernel is wrong"}
        )
    if options.accesses and not stuck and record["shapes"]:
        run.step("recording the memory accesses of two blocks")
        record["accesses"] = accesses_step(spec, options, folder, run.exercise, arch)
