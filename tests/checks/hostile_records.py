"""Malformed exercise check records, each with the words its refusal must say: shared by the checker's tests
(tests/test_exercise_hostile.py) and the Exercise tab's (tests/test_exercise_hostile_tab.py)."""

import json
from pathlib import Path

from gemmviz.core.exercise.exercises import shipped_exercises

DATA = Path(__file__).resolve().parents[1] / "data" / "exercises"
GOOD = json.loads((DATA / "records" / "tiled_good.check.json").read_text(encoding="utf-8"))

HOSTILE = [
    (lambda r: r.pop("shapes"), "'check.shapes' is missing"),
    (lambda r: r.pop("compile"), "'check.compile' is missing"),
    (lambda r: r.pop("speed_goal"), "'check.speed_goal' is missing"),
    (lambda r: r.update(junk=[1, 2]), "'check.junk' is not a field"),
    (lambda r: r["timing"].update(extra=1), "'check.timing.extra' is not a field"),
    (lambda r: r.update(exercise="nonesuch"), "known: " + ", ".join(e.name for e in shipped_exercises())),
    (lambda r: r.update(seed=2**63), "from 0 to 2^63 - 1, got 9223372036854775808"),
    (lambda r: r.update(seed="7"), "'check.seed' must be a whole number"),
    (lambda r: r["compile"].update(ok=False), "'check.compile.ok' is not true"),
    (lambda r: r.update(no_gpu="none here"), "'check.no_gpu'"),
    (lambda r: r["shapes"][0].update(status="wrong"), "'check.timing.yours' holds figures"),
    (lambda r: r.update(shapes=[]), "'check.shapes' is empty"),
    (lambda r: r.update(verdicts="all good"), "'check.verdicts' must be a list"),
    (lambda r: r["verdicts"][0].update(goal="fast"), "'check.verdicts[0].goal' must be one of compiles"),
    (lambda r: r.update(cause=7), "'check.cause' must be a text"),
    (lambda r: r["accesses"].update(shape=[-1, 1, 1]), "'check.accesses.shape[0]' must be a whole number"),
    (lambda r: r["accesses"].update(shape="abc"), "'check.accesses.shape' must be a list of 3"),
    (lambda r: r["accesses"].update(shape=[float("nan"), 1e300, -1]), "'check.accesses.shape[0]'"),
    (lambda r: r["accesses"].update(junk=1), "'check.accesses.junk' is not a field"),
    (lambda r: r["environment"].update(gpu="\x1b[31mRED"), "'check.environment.gpu' holds a control character"),
    (lambda r: r.update(exercise="tiled\x07"), "'check.exercise' holds a control character"),
    (lambda r: r["shapes"][0].update(rel_error=1e300), "'check.shapes[0]' is ok, but its rel_error 1e+300"),
    (lambda r: r["shapes"][0].update(error_margin=3.0), "'check.shapes[0]' is ok, but its error_margin 3"),
    (lambda r: r.update(source_sha256="0" * 64), "'check.source_sha256' is not the SHA-256 of 'check.source'"),
    (lambda r: r.update(created="not a date"), "'check.created' must be an ISO 8601 date"),
]
