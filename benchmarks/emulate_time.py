"""How long `gemmviz exercise check` takes without a GPU: the CPU emulator on a kernel of tests/data/exercises/
at the check's four sizes (1×1×1, 33×17×65, 100×77×129, 128³), with its access figures and the reference's.
Issue 32's goal: under 20 s for the tiled exercise on 2 cores. A benchmark, not a test: it prints the times.

    python3 benchmarks/emulate_time.py [KERNEL ...]      (default: tiled_good naive_good regtile_good)
"""

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from gemmviz.backends import emulator as emu
from gemmviz.backends.exercise_emulate import EMULATED_SHAPES, EmulateOptions, emulate_exercise
from gemmviz.core.exercise.exercises import find_exercise

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "exercises"


def time_one(name: str) -> None:
    path = DATA / f"{name}.cu"
    exercise = find_exercise(name.split("_")[0])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        build = emu.compile_ptx(path, exercise.nvcc_defines(), folder)
        t1 = time.perf_counter()
        record = {"shapes": [], "source": path.read_text("utf-8")}
        emulate_exercise(record, path, exercise, folder, EmulateOptions(seed=1, build=build))
        t2 = time.perf_counter()
    sizes = " ".join(f"{'×'.join(map(str, s['shape']))}:{s['seconds']:.2f}s" for s in record["shapes"])
    statuses = {s["status"] for s in record["shapes"]}
    print(
        f"{name:<18} nvcc -ptx {t1 - t0:5.2f} s  emulated check {t2 - t1:6.2f} s  total {t2 - t0:6.2f} s  "
        f"({record['emulator']['instructions']:,} steps; sizes {sizes}; {'/'.join(sorted(statuses))})",
        flush=True,
    )


def main() -> None:
    print(f"CPUs available: {len(os.sched_getaffinity(0))}; sizes {json.dumps(EMULATED_SHAPES)}")
    for name in sys.argv[1:] or ["tiled_good", "naive_good", "regtile_good"]:
        time_one(name)


if __name__ == "__main__":
    main()
