"""The check's steps on a GPU, each in a child process (backends/exercise_process.py): the GPU probe, the nvcc
compile, every size verified, compute-sanitizer, the timing beside the reference and cuBLAS, ncu's counters and
the traced memory accesses. Each returns its part of the check record (core/exercise/record.py)."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

from gemmviz.backends import emulator, sandbox
from gemmviz.backends.exercise_emulate import ACCESS_KEEP_PER_BLOCK, ACCESS_SHAPE
from gemmviz.backends.exercise_process import child_argv, child_env, run_child
from gemmviz.backends.exercise_run import (
    PROFILE_SHAPE,
    SANITIZE_SHAPE,
    STEP_LIMITS_S,
    TIME_SHAPE,
    CheckOptions,
    HandIn,
)
from gemmviz.backends.profile import find_cuda_tool
from gemmviz.core.exercise.exercises import Exercise
from gemmviz.core.exercise.tool_logs import (
    SANITIZER_TOOLS,
    diagnostic_log,
    parse_nvcc,
    parse_sanitizer,
    sanitizer_errors,
)


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


def base_spec(exercise: Exercise, cubin: str, options: CheckOptions) -> dict:
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
        rc = run.returncode or 0
        if rc < 0:
            return {"note": f"no access records: the traced child crashed (signal {-rc})"}
        # the cubin was built with -lineinfo: its disassembly maps PCs to the student's lines
        raw = backend.read_trace(prefix, exercise.kernel, Path(spec["cubin"]))
        header, records, sass = raw.header, raw.records, raw.sass
        # the trace names the registry kernel it is measured against (the records' loader knows only those);
        # the check record says whose accesses they are
        trace = from_raw(header, records, sass, exercise.reference, ACCESS_SHAPE, {})
    except (AccessError, OSError, ValueError) as exc:
        return {"note": f"no access records: {exc}"}
    return {"shape": list(ACCESS_SHAPE), "trace": to_json(keep_first(trace, ACCESS_KEEP_PER_BLOCK))}
