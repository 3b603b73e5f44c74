"""The checker against a corpus of students' kernels (issue 43, item 6): tests/data/exercise_corpus/ holds wrong
kernels as students write them, each exercise's common mistakes, and unusual but correct ones. expected.toml
says, for each, the status of the goals it must get and the cause it must give: its message key (which names
what the checker tested) and the source line it must name. Every kernel is checked on the CPU emulator, at a few
small sizes, with the experiments the checker runs when C is wrong.

Cost: about 0.4 s of nvcc and 0.2 to 1 s of emulation a kernel. By default a representative third runs (every
third kernel by name, so each exercise and each kind of mistake is there); GEMMVIZ_CORPUS=all runs every one
(`GEMMVIZ_CORPUS=all python -m pytest tests/test_exercise_corpus.py`). tests/test_exercise_corpus_gpu.py checks
the same kernels on a GPU and compares the verdicts. Needs nvcc (CI has it)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from gemmviz.backends import emulator as emu
from gemmviz.backends.exercise_emulate import EmulateOptions, emulate_exercise
from gemmviz.backends.profile import find_cuda_tool
from gemmviz.core.exercise.check import cause_lines, parse_nvcc
from gemmviz.core.exercise.exercises import find_exercise
from gemmviz.core.exercise.record import FORMAT, VERSION, validate_check
from gemmviz.core.exercise.report import report_text
from gemmviz.core.messages import render

pytestmark = pytest.mark.skipif(find_cuda_tool("nvcc") is None, reason="nvcc not installed")

CORPUS = Path(__file__).parent / "data" / "exercise_corpus"
EXPECTED = tomllib.loads((CORPUS / "expected.toml").read_text("utf-8"))
NAMES = sorted(EXPECTED)
SHAPES = ((1, 1, 1), (33, 17, 65), (48, 48, 48))  # an odd size, a square one; the experiments add their own
ACCESS_EXERCISES = ("coalescing", "banks")  # their goal is on the accesses: recorded (0.3 s a kernel)
# causes that name no line: what the checker tested is the sizes or the experiments, and it says so
NO_LINE = {
    "cause.accumulates",
    "cause.state",
    "cause.grid_axes",
    "cause.edge_tiles",
    "cause.unknown",
    "cause.unknown_all",
    "cause.every_col",
    "cause.every_row",
    "cause.race_unsure",
    "cause.edge",
    "access.cause",
}


def chosen() -> list[str]:
    if os.environ.get("GEMMVIZ_CORPUS") == "all":
        return NAMES
    return NAMES[::3]


def _nvcc_version() -> str:
    out = subprocess.run([str(find_cuda_tool("nvcc")), "--version"], capture_output=True, text=True, check=False)
    return out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "?"


@pytest.fixture(scope="session")
def ptx_cache(tmp_path_factory):
    """PTX by the source's hash, its defines and nvcc's version, for the session: a kernel's PTX is built once."""
    folder = tmp_path_factory.mktemp("corpus-ptx")
    version = _nvcc_version()
    built: dict[str, emu.PtxBuild] = {}

    def build(path: Path, defines: list[str]) -> emu.PtxBuild:
        key = hashlib.sha256((path.read_text("utf-8") + repr(defines) + version).encode()).hexdigest()[:20]
        if key not in built:
            here = folder / key
            here.mkdir(exist_ok=True)
            built[key] = emu.compile_ptx(path, defines, here)
        return built[key]

    return build, folder


def corpus_record(name: str, ptx_cache) -> dict:
    """The check record `gemmviz exercise check` writes without a GPU, at SHAPES, through its own validation."""
    build_ptx, folder = ptx_cache
    path = CORPUS / f"{name}.cu"
    exercise = find_exercise(name.split("_")[0])
    build = build_ptx(path, exercise.nvcc_defines())
    record = {
        "format": FORMAT,
        "version": VERSION,
        "exercise": exercise.name,
        "file": str(path),
        "created": "2026-12-07T00:00:00+00:00",
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
        accesses = exercise.name in ACCESS_EXERCISES
        options = EmulateOptions(seed=1, accesses=accesses, build=build, shapes=SHAPES)
        emulate_exercise(record, path, exercise, folder, options)
    return validate_check(json.loads(json.dumps(record)))


def test_the_corpus_is_large_and_each_kernel_has_its_expectations():
    kernels = sorted(p.stem for p in CORPUS.glob("*.cu"))
    assert kernels == NAMES
    wrong = [n for n in NAMES if "_ok_" not in n]
    right = [n for n in NAMES if "_ok_" in n]
    assert len(wrong) >= 80 and len(right) >= 15, (len(wrong), len(right))
    for exercise in ("naive", "coalescing", "tiled", "banks", "regtile"):
        assert sum(n.startswith(exercise + "_") for n in wrong) >= 8, exercise
    for name in NAMES:
        first = (CORPUS / f"{name}.cu").read_text("utf-8").splitlines()[0]
        assert first.startswith("// corpus: "), name  # what the student did, in a line
        want = EXPECTED[name]
        assert set(want) <= {"goals", "cause", "line", "words", "xfail"}, name
        assert ("cause" in want) == any(s == "fail" for s in want["goals"].values()), name


@pytest.mark.parametrize("name", chosen())
def test_each_kernel_gets_its_verdicts_and_a_cause_that_names_what_was_tested(name, ptx_cache, request):
    want = EXPECTED[name]
    if want.get("xfail"):  # runs all the same: a kernel the emulator learns to see passes (and says so)
        request.applymarker(pytest.mark.xfail(reason=want["xfail"], strict=False))
    record = corpus_record(name, ptx_cache)
    got = {v["goal"]: v["status"] for v in record["verdicts"]}
    assert {g: got.get(g) for g in want["goals"]} == want["goals"], record["cause"]
    if "cause" not in want:
        assert record["cause"] is None, record["cause"]
        return
    message = record["cause_message"]
    assert message["key"] == want["cause"], record["cause"]
    if want["cause"] not in NO_LINE:
        assert want["line"] in cause_lines(record), record["cause"]
        assert re.search(rf"\blines? (?:\d+ and )?{want['line']}\b", record["cause"]), record["cause"]
    for words in want.get("words", []):
        assert words in record["cause"], record["cause"]
    chinese = render(message, "zh")
    assert re.search("[\u4e00-\u9fff]", chinese) and "compare your indices" not in record["cause"]
    if want["cause"] in ("cause.unknown", "cause.unknown_all", "cause.every_col", "cause.every_row"):
        assert "where C is wrong at" in report_text(record)  # the map the cause points at
