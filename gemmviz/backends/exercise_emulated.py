"""The check's steps on the CPU emulator, each in the emulate child (backends/emulate_child.py) under the
sandbox's limits: NVRTC where there is no CUDA toolkit, the emulated check where there is no GPU, and the
emulator's extras beside a GPU's run."""

from __future__ import annotations

import json
import os
import threading

from gemmviz.backends import emulator, sandbox
from gemmviz.backends.exercise_emulate import BY, remember_reference
from gemmviz.backends.exercise_process import ChildRun, child_env, emulate_child_argv, run_child
from gemmviz.backends.exercise_run import (
    STEP_LIMITS_S,
    CheckRun,
)
from gemmviz.core.exercise.exercises import Exercise
from gemmviz.core.messages import msg


def _emulate_spec(run: CheckRun, mode: str, build: emulator.PtxBuild | None) -> dict:
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


def _limited(run: CheckRun, spec: dict, step: str) -> tuple[ChildRun, sandbox.Limits]:
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


def nvrtc_step(run: CheckRun, arch: str) -> tuple[emulator.PtxBuild, str | None]:
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


def emulate_step(record: dict, run: CheckRun, build: emulator.PtxBuild | None) -> None:
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


def extras_step(record: dict, run: CheckRun, build: emulator.PtxBuild | None) -> None:
    """On a GPU: the emulator's extras (exercise_emulate.gpu_extras) in a child under the sandbox's limits."""
    spec = {**_emulate_spec(run, "extras", build), "shapes": record.get("shapes") or []}
    child, limits = _limited(run, spec, "emulate")
    done = next((e["record"] for e in child.events if e.get("event") == "record"), None)
    if done is not None and not child.stopped:
        record.update(done)
    elif child.stopped:
        why = _stopped_message(child, limits, msg("sandbox.extra_runs"))
        record["emulator"] = {"by": BY, "refused": why}
