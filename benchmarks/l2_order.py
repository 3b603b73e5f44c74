"""Block order against L2 for the FP32 rung (issue 48, item 1): gpu-cpasync-any's grouped order with GROUP_M
from 1 to 32 and a Hilbert order (ORDER=1), beside cuBLAS FP32, kernel-only timing, in one run.

    python3 benchmarks/l2_order.py [--sizes 1024,2048,4096,8192]            # times, % of cuBLAS
    ncu --clock-control none --metrics lts__t_sector_hit_rate.pct -k regex:gemm_cpasync_any --csv \
        python3 benchmarks/l2_order.py --sizes 8192 --once                  # L2 hit rate per config

Every configuration is verified element-wise at each size before it is timed (the engine's protocol: poisoned
output, float64 reference); a wrong one prints its status and no time.
"""

from __future__ import annotations

import argparse
import json
import os
import threading

import numpy as np

from gemmviz.backends.cuda import CudaBackend, CudaRun
from gemmviz.core.kernels.tuning import tuned_config
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.bench import BenchSettings, Engine, Inputs, JobGuard, plan_jobs
from gemmviz.core.problem import Problem

VARIANT = "gpu-cpasync-any"


def configs(base: dict) -> list[tuple[str, dict]]:
    out = [(f"GROUP_M={g}", {**base, "GROUP_M": g, "ORDER": 0}) for g in (1, 2, 4, 8, 16, 32)]
    out.append(("Hilbert", {**base, "ORDER": 1}))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1024,2048,4096,8192")
    ap.add_argument("--once", action="store_true", help="one verified launch per config (under ncu)")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    if a.once:
        settings = BenchSettings(
            warmup=0, repeats=1, seed=0, max_samples=1, max_time_s=0.001, timing="host", max_batch=1
        )
    else:
        settings = BenchSettings(warmup=3, repeats=20, seed=0, max_time_s=0.3)
    variant = VARIANTS[VARIANT]
    cublas: dict[int, float] = {}
    if not a.once:
        for r in Engine({"cuda": CudaBackend()}, settings).run(
            plan_jobs(["cublas"], [Problem(n, n, n) for n in sizes])
        ):
            cublas[r.m] = r.median_ms
            print(f"cublas {r.m}^3 {r.median_ms * 1e3:9.1f} us  {r.status}", flush=True)
    rows = []
    rng = np.random.default_rng(0)
    with CudaRun() as run:
        base = dict(tuned_config(VARIANT, run.device.name(), variant.config)[0])
        print("base config:", base, flush=True)
        for n in sizes:
            inputs = Inputs.random(Problem(n, n, n), rng)
            (job,) = plan_jobs([VARIANT], [inputs.problem])
            for tag, cfg in configs(base):
                print(f"CONFIG {n} {tag}", flush=True)
                run.config_override[VARIANT] = cfg
                r = run.run(job, variant, inputs, settings, JobGuard(threading.Event(), 600))
                pct = 100 * cublas[n] / r.median_ms if r.valid and cublas.get(n) and r.median_ms else None
                print(
                    f"{VARIANT} {n}^3 {tag:12} {(r.median_ms or 0) * 1e3:9.1f} us  "
                    f"{pct and format(pct, '.1f')}% of cuBLAS  noise {r.noise}  {r.status} {r.error or ''}",
                    flush=True,
                )
                rows.append(
                    {
                        "size": n,
                        "order": tag,
                        "config": cfg,
                        "median_ms": r.median_ms,
                        "status": r.status,
                        "valid": r.valid,
                        "pct_of_cublas": pct,
                        "noise": r.noise,
                    }
                )
    out = os.environ.get("OUT")
    if out and not a.once:
        with open(os.path.join(out, "l2_order.json"), "w") as f:
            json.dump({"variant": VARIANT, "cublas_ms": cublas, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
