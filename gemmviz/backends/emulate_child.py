"""The child process that compiles a hand-in with NVRTC and runs it on the CPU emulator: never in
gemmviz's own process, always under the limits of backends/sandbox.py (an address-space limit, a wall time, a
process group of its own), so a macro that expands without end, an array of gigabytes or a printf a billion
characters wide ends this process with a verdict that names the limit, and never the app or a grade worker.

    python -m gemmviz.backends.emulate_child SPEC.json

SPEC: {"mode": "nvrtc" | "emulate" | "extras", ...} (backends/exercise.py writes it). One JSON line on stdout
says what came of it: {"event": "ptx"} with the build, {"event": "record"} with the parts of the check record the
emulator filled, {"event": "memory"} where the memory limit was reached, {"event": "error"} otherwise."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

from gemmviz.backends.sandbox import EXIT_MEMORY
from gemmviz.core.exercise.exercises import Exercise


def emit(**record) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def exercise_spec(exercise: Exercise) -> dict:
    """The exercise as JSON for the child (it may come from a file the child could not find by name)."""
    return {**dataclasses.asdict(exercise), "folder": str(exercise.folder)}


def exercise_of(data: dict) -> Exercise:
    return Exercise(
        **{
            **data,
            "folder": Path(data["folder"]),
            "threads": tuple(data["threads"]),
            "block_tile": tuple(data["block_tile"]),
            "hints": tuple(data["hints"]),
        }
    )


def nvrtc(spec: dict) -> None:
    from gemmviz.backends import emulator

    include = Path(spec["include_dir"]) if spec.get("include_dir") else None
    build = emulator.compile_nvrtc(Path(spec["source"]), spec["defines"], spec["arch"], include_dir=include)
    Path(spec["out"]).write_text(build.ptx, encoding="utf-8")
    emit(event="ptx", ok=build.ok, log=build.log[-20000:], command=build.command, error=build.error, arch=build.arch)


def _build(spec: dict):
    from gemmviz.backends import emulator

    if not spec.get("ptx"):
        return None
    ptx = Path(spec["ptx"]).read_text(encoding="utf-8", errors="replace")
    return emulator.PtxBuild(True, ptx, "", spec.get("command", ""), arch=spec.get("arch", "sm_90"))


def _remember(spec: dict, exercise: Exercise) -> None:
    from gemmviz.backends import exercise_emulate

    if spec.get("reference"):
        exercise_emulate.remember_reference(exercise, spec["reference"])


def emulate(spec: dict) -> None:
    from gemmviz.backends.exercise_emulate import EmulateOptions, emulate_exercise

    exercise = exercise_of(spec["exercise"])
    _remember(spec, exercise)
    record = {"shapes": [], "source": spec.get("source_text", "")}
    options = EmulateOptions(seed=spec.get("seed"), accesses=spec.get("accesses", True), build=_build(spec))
    if spec.get("shapes"):
        options.shapes = tuple(tuple(s) for s in spec["shapes"])
    emulate_exercise(record, Path(spec["source"]), exercise, Path(spec["folder"]), options)
    emit(event="record", record={k: v for k, v in record.items() if k in ("shapes", "emulator", "accesses")})


def extras(spec: dict) -> None:
    from gemmviz.backends.exercise_emulate import gpu_extras

    exercise = exercise_of(spec["exercise"])
    record = {"shapes": spec.get("shapes") or [], "source": spec.get("source_text", "")}
    gpu_extras(record, Path(spec["source"]), exercise, Path(spec["folder"]), spec.get("seed"), _build(spec))
    emit(event="record", record={k: v for k, v in record.items() if k == "emulator"})


MODES = {"nvrtc": nvrtc, "emulate": emulate, "extras": extras}


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    try:
        MODES[spec["mode"]](spec)
    except MemoryError:  # the address-space limit: said in the fewest bytes, as memory is what ran out
        os.write(1, b'{"event": "memory"}\n')
        os._exit(EXIT_MEMORY)
    except Exception as exc:  # reported to the parent as one line; the process ends here either way
        emit(event="error", error=f"{type(exc).__name__}: {exc}".strip()[:2000])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
