#!/usr/bin/env bash
# Device run: tensor-core kernel with and without explicit TF32 rounding, on the best configurations
# of the full tuning run (docs/tune-wmma-h200-2026-11-30.csv), then a bench beside cuBLAS.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export GEMMVIZ_CACHE_DIR=/tmp/gemmviz-cache
date -u +%Y-%m-%dT%H:%MZ | tee "$OUT/date.txt"
python3 - <<'PY'
import json, os
from gemmviz.backends.autotune import tune
from gemmviz.core.variants import wmma_space
best = [dict(BM=128, BN=128, BK=32, WARPS_M=2, WARPS_N=2, STAGES=2), dict(BM=256, BN=128, BK=32, WARPS_M=4, WARPS_N=2, STAGES=2),
        dict(BM=128, BN=256, BK=32, WARPS_M=2, WARPS_N=4, STAGES=2), dict(BM=128, BN=128, BK=32, WARPS_M=2, WARPS_N=2, STAGES=3)]
space = [c for c in wmma_space() if {k: c[k] for k in best[0]} in best]
r = tune("gpu-wmma-tf32", size=4096, repeats=10, space=space)
for row in sorted(r["rows"], key=lambda x: -(x["gflops"] or 0)):
    print(row["config"], row["status"], round(row["gflops"] or 0))
json.dump(r["best"], open(os.environ["OUT"] + "/tuned-wmma-round.json", "w"), indent=1)
PY
python3 -m gemmviz bench --variants gpu-wmma-tf32,cublas,cublas-tf32 --sizes 1024,2048,4096,8192 --repeats 20 --warmup 3 \
  --seed 6 --quiet --out "$OUT/h200-wmma.json" | cut -c1-140
