"""Checks over the exercises: a kernel checked on the CPU emulator as `gemmviz exercise check` does without a GPU,
and the reference solution every exercise ships (tests/data/exercises/NAME_good.cu) passing there."""

from __future__ import annotations

import json
from pathlib import Path

from gemmviz.backends import emulator as emu
from gemmviz.backends.exercise_emulate import EmulateOptions, emulate_exercise
from gemmviz.core.exercise.check import parse_nvcc
from gemmviz.core.exercise.exercises import check_signature, find_exercise, shipped_exercises
from gemmviz.core.exercise.record import FORMAT, VERSION, validate_check

REFERENCES = Path(__file__).resolve().parents[1] / "data" / "exercises"  # NAME_good.cu: an exercise's answer


# The check's sizes but the last two (128³ and 100×77×129, which take seconds each): the odd size every
# verdict needs, and a square one (swapped indices show there), a multiple of both exercises' tiles but not of
# regtile's 64 (an edge block there too). benchmarks/emulate_time.py times the check's own sizes.
SHAPES = ((1, 1, 1), (33, 17, 65), (48, 48, 48))


def emulated_record(path: Path, folder: Path, accesses: bool = False, exercise=None) -> dict:
    """The check record `gemmviz exercise check` writes without a GPU (at SHAPES), through the record's own
    validation; `exercise` is the shipped one the file's name starts with unless given."""
    exercise = exercise or find_exercise(path.stem.split("_")[0])
    build = emu.compile_ptx(path, exercise.nvcc_defines(), folder)
    record = {
        "format": FORMAT,
        "version": VERSION,
        "exercise": exercise.name,
        "file": str(path),
        "created": "2026-12-02T00:00:00+00:00",
        "source": path.read_text("utf-8"),
        "speed_goal": exercise.speed_goal,
        "reference": exercise.reference,
        "seed": 1,
        "compile": {"ok": build.ok, "arch": "sm_90", "diagnostics": parse_nvcc(build.log, path.name)},
        "shapes": [],
        "not_run": [],
        "no_gpu": "no GPU in this test",
    }
    if build.ok:
        options = EmulateOptions(seed=1, accesses=accesses, build=build, shapes=SHAPES)
        emulate_exercise(record, path, exercise, folder, options)
    return validate_check(json.loads(json.dumps(record)))


def reference_passes_on_the_emulator(exercise, folder: Path, reference: Path | None = None) -> dict:
    """The exercise's reference solution (tests/data/exercises/NAME_good.cu unless given) checked on the CPU
    emulator at SHAPES, no GPU and no H200 record needed: correct, race-free, memory-safe, and its access goals
    met where it has any. Returns the record."""
    path = reference or REFERENCES / f"{exercise.name}_good.cu"
    assert path.is_file(), f"{exercise.name}: its reference solution {path.name} is missing (CONTRIBUTING: An exercise)"
    record = emulated_record(path, folder, accesses=bool(exercise.access_goals), exercise=exercise)
    assert record["compile"]["ok"], record["compile"]
    got = {v["goal"]: v["status"] for v in record["verdicts"]}
    assert {g: got[g] for g in ("correct", "race-free", "memory-safe")} == dict.fromkeys(
        ("correct", "race-free", "memory-safe"), "pass"
    ), (exercise.name, record.get("cause"))
    if exercise.access_goals:
        from gemmviz.core.exercise.access_goals import access_verdict

        verdict = access_verdict(record, exercise.access_goals, exercise.fix())
        assert verdict is not None and verdict["status"] == "pass", verdict
    return record


def shipped_exercises_load_in_both_languages() -> None:
    """Every shipped exercise (the files') in English and Chinese, as many hints in each, its starter the kernel
    the checker looks for, with TODOs left."""
    exercises = {e.name: e for e in shipped_exercises()}
    assert {"naive", "tiled", "regtile"} <= set(exercises)
    for e in exercises.values():
        assert e.languages == ("en", "zh")
        title, task, hints = e.text("zh")
        assert title != e.title and len(hints) == len(e.hints) >= 3
        assert any("\u4e00" <= ch <= "\u9fff" for ch in task)
        check_signature(e.starter_text(), e)  # the starter is the kernel the checker looks for
        assert "TODO" in e.starter_text()
