"""Check every student kernel in tests/data/exercises/ on this machine's GPU and save the check records.

    python3 tools/exercise_records.py OUT_DIR [NAME,...]      (NAME,...: only these kernels)

The broken kernels (which are never timed) are checked four at a time; the correct ones one after another,
each with the whole check (compile, sizes, compute-sanitizer, kernel-only timing, ncu). The records are what
tests/test_exercise_report.py and the app's Exercise tab replay without a GPU."""

import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gemmviz.backends.exercise import CheckOptions, check_exercise
from gemmviz.core.exercise.exercises import find_exercise

HERE = Path(__file__).resolve().parents[1] / "tests" / "data" / "exercises"
TIMED = ("naive_good", "naive_uncoalesced", "tiled_good", "tiled_conflicts", "regtile_good", "coalescing_good",
         "coalescing_unchanged", "banks_good", "banks_untransposed", "banks_conflicts")  # fmt: skip


def check(name: str, out: Path, timed: bool) -> str:
    exercise = find_exercise(name.split("_")[0])
    t0 = time.perf_counter()
    options = CheckOptions(time=timed, profile=timed, accesses=timed, seed=1)
    record = check_exercise(HERE / f"{name}.cu", exercise, options)
    record["check_seconds"] = round(time.perf_counter() - t0, 1)
    (out / f"{name}.check.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    marks = " ".join(f"{v['goal']}:{v['status']}" for v in record["verdicts"])
    return f"{name:<22} {record['check_seconds']:6.1f} s  {marks}\n    cause: {record['cause']}"


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    names = sorted(p.stem for p in HERE.glob("*.cu"))
    if len(sys.argv) > 2:
        names = [n for n in names if n in sys.argv[2].split(",")]
    broken = [n for n in names if n not in TIMED]
    with ThreadPoolExecutor(4) as pool:
        for line in pool.map(lambda n: check(n, out, False), broken):
            print(line, flush=True)
    for name in (n for n in TIMED if n in names):
        print(check(name, out, True), flush=True)


if __name__ == "__main__":
    main()
