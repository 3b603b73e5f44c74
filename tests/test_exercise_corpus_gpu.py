"""The corpus of students' kernels (tests/data/exercise_corpus/) on a real GPU: each gets the verdicts that
expected.toml holds, which the CPU emulator gives them (tests/test_exercise_corpus.py), so the GPU and the
emulator agree (issue 43's done-when). Never timed or profiled: four checks at a time, compute-sanitizer on,
the access trace where the exercise has an access goal. Run on the GPU machine:

    python3 -m pytest -m gpu tests/test_exercise_corpus_gpu.py
"""

from __future__ import annotations

import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

CORPUS = Path(__file__).parent / "data" / "exercise_corpus"
EXPECTED = tomllib.loads((CORPUS / "expected.toml").read_text("utf-8"))
NAMES = sorted(EXPECTED)


@pytest.fixture(scope="module")
def records():
    from gemmviz.backends.exercise import CheckOptions, check_exercise
    from gemmviz.core.exercise.check import finish
    from gemmviz.core.exercise.exercises import find_exercise

    def check(name: str) -> dict:
        exercise = find_exercise(name.split("_")[0])
        options = CheckOptions(time=False, profile=False, accesses=bool(exercise.access_goals), seed=1)
        return finish(check_exercise(CORPUS / f"{name}.cu", exercise, options), exercise)

    with ThreadPoolExecutor(4) as pool:
        return dict(zip(NAMES, pool.map(check, NAMES), strict=True))


@pytest.mark.parametrize("name", NAMES)
def test_the_gpu_gives_the_emulators_verdicts(records, name):
    want = EXPECTED[name]
    record = records[name]
    got = {v["goal"]: v["status"] for v in record["verdicts"]}
    assert {g: got.get(g) for g in want["goals"]} == want["goals"], record["cause"]
