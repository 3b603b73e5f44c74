"""The TF32 rung, issue 48 technique 4: a persistent grid, 2-block clusters with TMA multicast, a Hilbert tile
order and no padding of N and K, each option verified and timed beside cuBLAS TF32 in one run.

    python3 benchmarks/tf32_round3.py [--shapes 1000,1024,2048,4096,8192,2000x3000x1000,2048x3072x4096]
                                      [--odd 1001x999x1003,257x383x200,33x17x65] [--options NAME,...]

Every option (kernels/wgmma_tf32.cu macros, backends/wgmma.WgmmaConfig) is first checked at the odd shapes, where
N and K are not multiples of 4 (the launcher's row-pitch copy, TMA's out-of-bounds fill, bounds-checked stores),
then at each timed shape, by the engine's protocol: fresh random inputs, output poisoned with NaN, element-wise
comparison with the float64 reference at the TF32 tolerance. Only a verified option is timed (kernel-only,
median of the engine's samples). "registry" is what ships: the registry's (or the GPU's tuned) configuration
with hopper_model.wgmma_fit's per-size choice, as `gemmviz bench` runs it. setmaxnreg (40 registers for the
producer warpgroup, 232 for each consumer) is in every option, as in the shipped kernel. Writes
$OUT/tf32_round3.json (or --out) as it goes.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shlex
import sys
import threading
import time

import numpy as np

from gemmviz.backends.cuda import CudaBackend, CudaRun
from gemmviz.backends.kernel_cache import compile_cubin
from gemmviz.core.kernels import hopper_model
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.bench import BenchSettings, Engine, Inputs, JobGuard, plan_jobs
from gemmviz.core.problem import Problem

VARIANT = "gpu-wgmma-tf32"
BIG = {"BM": 256, "CONSUMERS": 2, "STAGES": 4, "GROUP_M": 8, "B_REGS": 1, "DEPTH": 1, "CLUSTER": 1, "SPLITS": 0}
SMALL = {**BIG, "BM": 128, "STAGES": 6}
OPTIONS: dict[str, dict | None] = {
    "registry": None,
    "256 (not persistent)": dict(BIG),
    "256 persistent": {**BIG, "PERSIST": 1},
    "256 persistent x2": {**BIG, "PERSIST": 1, "CLUSTER": 2},
    "256 persistent hilbert": {**BIG, "PERSIST": 1, "ORDER": 1},
    "256 persistent x2 hilbert": {**BIG, "PERSIST": 1, "CLUSTER": 2, "ORDER": 1},
    "256 x2 (not persistent)": {**BIG, "CLUSTER": 2},
    "128 persistent": {**SMALL, "PERSIST": 1},
    "128 persistent x2": {**SMALL, "PERSIST": 1, "CLUSTER": 2},
    "128 persistent hilbert": {**SMALL, "PERSIST": 1, "ORDER": 1},
    "128 (not persistent)": dict(SMALL),
    "128 persistent x2 hilbert": {**SMALL, "PERSIST": 1, "CLUSTER": 2, "ORDER": 1},
    "256 persistent x2 g16": {**BIG, "PERSIST": 1, "CLUSTER": 2, "GROUP_M": 16},
    "192 persistent x2 hilbert": {**BIG, "BM": 192, "STAGES": 5, "PERSIST": 1, "CLUSTER": 2, "ORDER": 1},
    # Round 4 (docs/benchmarks.md "The TF32 rung: stream-K ..."): the partial last wave shared out in k-blocks
    # (STREAMK=1, hopper_model.streamk_plan), and 128x64 tiles (one consumer warpgroup) that make 128 blocks at 1024^3.
    "128 persistent sk": {**SMALL, "PERSIST": 1, "STREAMK": 1},
    "128 persistent x2 sk": {**SMALL, "PERSIST": 1, "CLUSTER": 2, "STREAMK": 1},
    "256 persistent x2 hilbert sk": {**BIG, "PERSIST": 1, "CLUSTER": 2, "ORDER": 1, "STREAMK": 1},
    "128x64 (1 consumer)": {**SMALL, "CONSUMERS": 1, "STAGES": 8},
    "128x64 persistent x2 sk": {**SMALL, "CONSUMERS": 1, "STAGES": 8, "PERSIST": 1, "CLUSTER": 2, "STREAMK": 1},
    # Round 4b: the tensor maps prefetched at the start (TMAP_PREFETCH=1); stream-K forced where the plan would
    # share nothing out for a gain under 2% (2048^3 in 256-row tiles: 128 tiles on 132 SMs). Keys starting with "_"
    # are not macros: they set hopper_model's constant of that name while the option runs.
    "128 persistent sk pf": {**SMALL, "PERSIST": 1, "STREAMK": 1, "TMAP_PREFETCH": 1},
    "128 pf": {**SMALL, "TMAP_PREFETCH": 1},
    "256 persistent x2 hilbert sk pf": {
        **BIG,
        "PERSIST": 1,
        "CLUSTER": 2,
        "ORDER": 1,
        "STREAMK": 1,
        "TMAP_PREFETCH": 1,
    },
    "256 pf": {**BIG, "TMAP_PREFETCH": 1},
    "256 persistent sk forced": {**BIG, "PERSIST": 1, "STREAMK": 1, "_SK_MIN_GAIN": 0},
    # the registry's choice with stream-K where hopper_model.streamk_plan shares tiles out (STREAMK_FIT switched on)
    "registry sk": {"_STREAMK_FIT": True},
}


def macros_of(cfg: dict | None) -> dict | None:
    """The option's kernel macros (its keys that do not start with "_"); None for the registry's own choice."""
    macros = {k: v for k, v in (cfg or {}).items() if not k.startswith("_")}
    return macros or None


# The second run's options (the first ran the ten above "128 persistent x2 hilbert" but "256 (not persistent)"):
ROUND2 = [
    "registry",
    "256 (not persistent)",
    "256 persistent x2 hilbert",
    "256 persistent x2",
    "256 persistent x2 g16",
    "192 persistent x2 hilbert",
    "128 (not persistent)",
    "128 persistent x2",
    "128 persistent x2 hilbert",
    "128 persistent hilbert",
]
ROUND4 = [
    "registry",
    "128 persistent sk",
    "128 persistent x2 sk",
    "256 persistent x2 hilbert sk",
    "128x64 (1 consumer)",
    "128x64 persistent x2 sk",
    "128 persistent sk pf",
    "128 pf",
    "256 pf",
    "256 persistent sk forced",
    "256 persistent x2 hilbert sk pf",
]
# Where an option is timed (labels as label() writes them; every option is verified at the odd shapes): the small-tile
# options not at 2048^3-8192^3, where 128-row tiles ran at 70-84% (run 1), to keep the run short.
SMALL_ONLY = {"1000^3", "1024^3", "2000x3000x1000", "2048x3072x4096"}
TIMED_AT: dict[str, set[str]] = {
    "128 persistent sk": SMALL_ONLY,
    "128 persistent x2 sk": SMALL_ONLY,
    "128x64 (1 consumer)": SMALL_ONLY,
    "128x64 persistent x2 sk": SMALL_ONLY,
    "128 persistent sk pf": SMALL_ONLY,
    "128 pf": {"1000^3", "1024^3"},
    "256 pf": {"2048^3"},
    "256 persistent sk forced": {"2048^3"},
    "256 persistent x2 hilbert sk pf": {"4096^3", "8192^3", "2048x3072x4096"},
}
SHAPES = "1000,1024,2048,4096,8192,2000x3000x1000,2048x3072x4096"
ODD = "1001x999x1003,257x383x200,33x17x65"


def shape(text: str) -> Problem:
    parts = [int(x) for x in text.lower().split("x")]
    return Problem(*(parts * 3 if len(parts) == 1 else parts))


def label(p: Problem) -> str:
    return f"{p.m}^3" if p.m == p.n == p.k else f"{p.m}x{p.n}x{p.k}"


def table(path: str) -> str:
    """A markdown table of a run's file: median µs and % of cuBLAS TF32 per option (rows) and shape (columns)."""
    with open(path) as f:
        rec = json.load(f)
    shapes = list(rec["cublas_tf32_ms"])
    lines = ["| option | " + " | ".join(s.replace("^3", "³").replace("x", "×") for s in shapes) + " |"]
    lines.append("|---|" + "---:|" * len(shapes))
    lines.append("| cuBLAS TF32 | " + " | ".join(f"{rec['cublas_tf32_ms'][s] * 1e3:.1f}" for s in shapes) + " |")
    for name in rec["options"]:
        cells = []
        for s in shapes:
            row = next((x for x in rec["rows"] if x["option"] == name and x["shape"] == s), None)
            if row is None:
                cells.append("—")
            elif row.get("pct_of_cublas_tf32"):
                cells.append(f"{row['median_ms'] * 1e3:.1f} ({row['pct_of_cublas_tf32']:.1f}%)")
            else:
                cells.append(str(row.get("status")))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", metavar="FILE", help="print the markdown table of a run's file and stop")
    ap.add_argument("--shapes", default=SHAPES)
    ap.add_argument("--odd", default=ODD, help="shapes checked (not timed) before the timed ones")
    ap.add_argument(
        "--options", default=",".join(ROUND2), help="comma-separated names of OPTIONS (default ROUND2), or round4"
    )
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    a = ap.parse_args()
    if a.table:
        print(table(a.table))
        return
    shapes = [shape(s) for s in a.shapes.split(",") if s]
    odd = [shape(s) for s in a.odd.split(",") if s]
    names = ROUND4 if a.options == "round4" else [n for n in a.options.split(",") if n]
    variant = VARIANTS[VARIANT]
    settings = BenchSettings(warmup=3, repeats=a.repeats, seed=0, max_time_s=0.3)
    check = BenchSettings(warmup=0, repeats=1, seed=0, max_samples=1, max_time_s=0.001, timing="host", max_batch=1)
    record: dict = {"variant": VARIANT, "options": {n: OPTIONS[n] for n in names}, "cublas_tf32_ms": {}, "rows": []}
    record["date"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())  # the technique table names each file's
    record["command"] = shlex.join(["python3", *sys.argv])  # date and command
    path = os.path.join(a.out, "tf32_round3.json")

    def save() -> None:
        with open(path, "w") as f:
            json.dump(record, f, indent=1)

    t0 = time.time()
    for r in Engine({"cuda": CudaBackend()}, settings).run(plan_jobs(["cublas-tf32"], shapes)):
        record["cublas_tf32_ms"][label(Problem(r.m, r.n, r.k))] = r.median_ms
        print(f"cublas-tf32 {label(Problem(r.m, r.n, r.k)):16} {r.median_ms * 1e3:9.1f} us  {r.status}", flush=True)
    save()
    rng = np.random.default_rng(0)
    with CudaRun() as run:
        record["gpu"] = run.device.name()
        # Compile every option at once (nvcc is a subprocess: threads run them in parallel).
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            futures = {
                n: pool.submit(compile_cubin, variant, {}, macros_of(OPTIONS[n]), "sm_90a", run.device.name())
                for n in names
                if macros_of(OPTIONS[n]) is not None
            }
            for n, fut in futures.items():
                try:
                    fut.result()
                except Exception as exc:  # a build error shows in the rows below too
                    print(f"BUILD {n}: {exc}", flush=True)
        print(f"built in {time.time() - t0:.0f} s", flush=True)
        bad: set[str] = set()
        for p in odd + shapes:
            timed = p in shapes
            inputs = Inputs.random(p, rng)
            (job,) = plan_jobs([VARIANT], [p])
            for n in names:
                if n in bad or (timed and label(p) not in TIMED_AT.get(n, {label(p)})):
                    continue
                cfg = macros_of(OPTIONS[n])
                if cfg is None:
                    run.config_override.pop(VARIANT, None)
                else:
                    run.config_override[VARIANT] = cfg
                plan = {k[1:]: v for k, v in (OPTIONS[n] or {}).items() if k.startswith("_")}
                saved = {k: getattr(hopper_model, k) for k in plan}
                try:
                    for k, v in plan.items():
                        setattr(hopper_model, k, v)
                    r = run.run(job, variant, inputs, settings if timed else check, JobGuard(threading.Event(), 600))
                except Exception as exc:
                    print(f"{n:28} {label(p):16} FAILED {exc}", flush=True)
                    record["rows"].append({"option": n, "shape": label(p), "status": "error", "error": str(exc)})
                    bad.add(n)
                    save()
                    continue
                finally:
                    for k, v in saved.items():
                        setattr(hopper_model, k, v)
                cub = record["cublas_tf32_ms"].get(label(p))
                pct = 100 * cub / r.median_ms if timed and r.valid and cub and r.median_ms else None
                if not r.valid:
                    bad.add(n)  # a wrong option is not timed anywhere else
                print(
                    f"{n:28} {label(p):16} {(r.median_ms or 0) * 1e3 if timed else 0:9.1f} us  "
                    f"{pct and format(pct, '.1f')}% of cuBLAS TF32  err {r.rel_error}  noise {r.noise}  "
                    f"{r.status} {r.error or ''} {r.note or ''}",
                    flush=True,
                )
                record["rows"].append(
                    {
                        "option": n,
                        "config": cfg,
                        "shape": label(p),
                        "timed": timed,
                        "median_ms": r.median_ms if timed else None,
                        "status": r.status,
                        "valid": r.valid,
                        "rel_error": r.rel_error,
                        "pct_of_cublas_tf32": pct,
                        "noise": r.noise,
                        "note": r.note,
                    }
                )
                save()
    # The table: share of cuBLAS TF32 per option and shape.
    print("\noption".ljust(30) + "".join(f"{label(p):>17}" for p in shapes))
    for n in names:
        cells = []
        for p in shapes:
            row = next((x for x in record["rows"] if x["option"] == n and x["shape"] == label(p)), None)
            pct = row and row.get("pct_of_cublas_tf32")
            cells.append(f"{pct:16.1f}%" if pct else f"{(row or {}).get('status', '-'):>17}")
        print(n.ljust(29) + "".join(cells))


if __name__ == "__main__":
    main()
