"""gpu-wgmma-tf32's split-K and tile size at the sizes where the grid is smaller than the GPU (issue 34).

    source .device/env.sh && python3 benchmarks/wgmma_splitk.py [--out FILE.json]   # on the GPU machine

Runs (verified, kernel-only timing) gpu-wgmma-tf32 with a list of forced configurations (SPLITS = slices of K,
0 = the registry's own choice, hopper_model.wgmma_splits) beside cuBLAS TF32 at the small and odd sizes, and
gpu-cpasync / gpu-cpasync-any beside cuBLAS FP32 at 1000³ and its neighbours (the edge path's cost), then prints
% of cuBLAS per configuration and size.
"""

from __future__ import annotations

import argparse
import json
import statistics

from gemmviz.backends import cuda as cuda_backend
from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.kernels.hopper_model import WGMMA
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem

TUNED = {**WGMMA, "CLUSTER": 2}
CONFIGS = {
    "auto": None,
    "256x128 x2 S1": {**TUNED, "SPLITS": 1},
    "256x128 x2 S2": {**TUNED, "SPLITS": 2},
    "128x128 x1 S1": {**TUNED, "BM": 128, "STAGES": 6, "CLUSTER": 1, "SPLITS": 1},
    "128x128 x1 S2": {**TUNED, "BM": 128, "STAGES": 6, "CLUSTER": 1, "SPLITS": 2},
    "128x128 x1 S4": {**TUNED, "BM": 128, "STAGES": 6, "CLUSTER": 1, "SPLITS": 4},
    "128x128 x2 S1": {**TUNED, "BM": 128, "STAGES": 6, "SPLITS": 1},
    "128x128 x2 S2": {**TUNED, "BM": 128, "STAGES": 6, "SPLITS": 2},
}
SIZES = [Problem(256, 256, 256), Problem(512, 512, 512), Problem(1000, 1000, 1000), Problem(1024, 1024, 1024),
         Problem(2048, 2048, 2048), Problem(2000, 3000, 1000), Problem(2048, 3072, 4096)]  # fmt: skip
FP32_SIZES = [Problem(1000, 1000, 1000), Problem(1024, 1024, 1024), Problem(1024, 1024, 1000),
              Problem(1000, 1000, 1024), Problem(2000, 3000, 1000), Problem(2048, 3072, 4096), Problem(257, 383, 200),
              Problem(1001, 999, 1003)]  # fmt: skip


OVERRIDE: dict[str, dict] = {}  # the configuration each run forces (CudaRun.config consults it first)
_config = cuda_backend.CudaRun.config


def _forced(self, variant):
    if variant.name in OVERRIDE:
        self.config_override[variant.name] = OVERRIDE[variant.name]  # forced: no 128-row fit
        return dict(OVERRIDE[variant.name]), True
    self.config_override.pop(variant.name, None)
    return _config(self, variant)


cuda_backend.CudaRun.config = _forced


def med_us(r) -> float:
    return statistics.median(r.samples_ms) * 1000 if r.valid and r.samples_ms else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--repeats", type=int, default=30)
    args = ap.parse_args()
    settings = BenchSettings(warmup=5, repeats=args.repeats, seed=3)
    backend = CudaBackend()
    rows = []

    def run(variants, sizes, label="", config=None):
        OVERRIDE.clear()
        if config is not None:
            OVERRIDE["gpu-wgmma-tf32"] = dict(config)
        for r in Engine({"cuda": backend}, settings).run(plan_jobs(variants, sizes)):
            rows.append(
                {
                    "label": label,
                    "variant": r.variant,
                    "m": r.m,
                    "n": r.n,
                    "k": r.k,
                    "valid": r.valid,
                    "status": r.status,
                    "error": r.error,
                    "us": med_us(r),
                    "note": r.note,
                }
            )
            if not r.valid:
                print("NOT VALID", label, r.variant, r.m, r.n, r.k, r.status, r.error)

    run(["cublas-tf32", "cublas", "gpu-cpasync", "gpu-cpasync-any"], FP32_SIZES)
    run(["cublas-tf32"], [p for p in SIZES if p not in FP32_SIZES])
    for label, config in CONFIGS.items():
        run(["gpu-wgmma-tf32"], SIZES, label, config)
    t = {(r["label"], r["variant"], r["m"], r["n"], r["k"]): r["us"] for r in rows}
    shapes = [(p.m, p.n, p.k) for p in SIZES]
    print(f"{'% of cuBLAS TF32':<18}" + "".join(f"{'x'.join(map(str, s)):>15}" for s in shapes))
    print(f"{'cuBLAS TF32 us':<18}" + "".join(f"{t.get(('', 'cublas-tf32', *s), float('nan')):>15.1f}" for s in shapes))
    for label in CONFIGS:
        cells = []
        for s in shapes:
            ours, ref = t.get((label, "gpu-wgmma-tf32", *s), float("nan")), t.get(("", "cublas-tf32", *s), float("nan"))
            cells.append(f"{100 * ref / ours:7.1f}%{ours:6.1f}")
        print(f"{label:<18}" + "".join(f"{c:>15}" for c in cells))
    print("FP32 (us): size, cublas, gpu-cpasync, gpu-cpasync-any, % any")
    for p in FP32_SIZES:
        s = (p.m, p.n, p.k)
        b, c, a = (t.get(("", v, *s), float("nan")) for v in ("cublas", "gpu-cpasync", "gpu-cpasync-any"))
        print(
            f"  {'x'.join(map(str, s)):>16} {b:8.1f} {c:8.1f} {a:8.1f} {100 * b / a:6.1f}% (padded {100 * b / c:5.1f}%)"
        )
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
