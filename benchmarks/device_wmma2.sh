#!/usr/bin/env bash
# Device run: the tensor-core kernel's configurations with BK=64 (and the previous best), no explicit
# rounding, then a bench beside cuBLAS with the winner.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export GEMMVIZ_CACHE_DIR=/tmp/gemmviz-cache
date -u +%Y-%m-%dT%H:%MZ | tee "$OUT/date.txt"
python3 - <<'PY'
import json, os
from gemmviz.backends.autotune import tune
from gemmviz.core.variants import wmma_space
space = [c for c in wmma_space() if c["ROUND_TF32"] == 0 and (c["BK"] == 64 or (c["BK"] == 32 and c["BM"] * c["BN"] >= 128 * 128))]
print(len(space), "configurations")
r = tune("gpu-wmma-tf32", size=4096, repeats=10, space=space)
for row in sorted(r["rows"], key=lambda x: -(x["gflops"] or 0))[:8]:
    print(row["config"], row["status"], round(row["gflops"] or 0))
json.dump(r["best"], open(os.environ["OUT"] + "/tuned-wmma-bk64.json", "w"), indent=1)
import csv
with open(os.environ["OUT"] + "/tune-wmma-bk64.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["config", "status", "median_ms", "gflops"])
    for row in r["rows"]:
        w.writerow([" ".join(f"{k}={v}" for k, v in row["config"].items()), row["status"], row["median_ms"], row["gflops"]])
PY
python3 -m gemmviz bench --variants gpu-wmma-tf32,cublas,cublas-tf32 --sizes 1024,2048,4096,8192 --repeats 20 --warmup 3 \
  --seed 7 --quiet --out "$OUT/h200-wmma.json" | cut -c1-140
