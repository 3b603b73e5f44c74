"""A handful of Hopper-kernel configurations beside cuBLAS TF32 in one run, kernel-only timing, at 2048-8192:
does a grouped tile order or TMA multicast close the gap at 8192^3 (87% of cuBLAS TF32 in the last recording)?

    python3 benchmarks/wgmma_configs.py [--sizes 2048,4096,8192]
"""

from __future__ import annotations

import argparse
import json
import os
import threading

import numpy as np

from gemmviz.backends.cuda import CudaBackend, CudaRun
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.bench import BenchSettings, Engine, Inputs, JobGuard, plan_jobs
from gemmviz.core.problem import Problem

BASE = {"BM": 256, "CONSUMERS": 2, "STAGES": 4, "GROUP_M": 8, "B_REGS": 1, "DEPTH": 1, "CLUSTER": 1}
CONFIGS = [
    BASE,
    {**BASE, "GROUP_M": 16},
    {**BASE, "CLUSTER": 2},
    {**BASE, "CLUSTER": 2, "GROUP_M": 16},
    {**BASE, "BM": 128, "STAGES": 6, "CLUSTER": 2},
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2048,4096,8192")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    settings = BenchSettings(warmup=3, repeats=10, seed=0, max_time_s=0.3)
    variant = VARIANTS["gpu-wgmma-tf32"]
    rows = []
    cublas = {}
    for r in Engine({"cuda": CudaBackend()}, settings).run(
        plan_jobs(["cublas-tf32"], [Problem(n, n, n) for n in sizes])
    ):
        cublas[r.m] = r.median_ms
        print(f"cublas-tf32 {r.m}^3 {r.median_ms * 1e3:9.1f} us  {r.status}", flush=True)
    rng = np.random.default_rng(0)
    with CudaRun() as run:
        for n in sizes:
            inputs = Inputs.random(Problem(n, n, n), rng)
            (job,) = plan_jobs([variant.name], [inputs.problem])
            for cfg in CONFIGS:
                run.config_override[variant.name] = cfg
                r = run.run(job, variant, inputs, settings, JobGuard(threading.Event(), 600))
                pct = 100 * cublas[n] / r.median_ms if r.valid and cublas.get(n) else None
                tag = " ".join(f"{k}={v}" for k, v in cfg.items())
                print(
                    f"wgmma {n}^3 {tag:70} {(r.median_ms or 0) * 1e3:9.1f} us  "
                    f"{pct and format(pct, '.1f')}% of cuBLAS TF32  {r.status} {r.error or ''}",
                    flush=True,
                )
                rows.append(
                    {
                        "size": n,
                        "config": cfg,
                        "median_ms": r.median_ms,
                        "status": r.status,
                        "pct_of_cublas_tf32": pct,
                        "noise": r.noise,
                    }
                )
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "wgmma_configs.json"), "w") as f:
            json.dump({"cublas_tf32_ms": cublas, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
