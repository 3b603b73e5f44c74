#!/usr/bin/env bash
# Device run: correctness of every GPU variant (pytest -m gpu), tuning of the mma.sync TF32 kernel,
# and a bench of the tensor-core kernels beside cuBLAS.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export GEMMVIZ_CACHE_DIR=/tmp/gemmviz-cache
date -u +%Y-%m-%dT%H:%MZ | tee "$OUT/date.txt"
python3 -m pytest -m gpu -q -p no:cacheprovider -x tests/test_gpu.py -k "every_gpu_variant" 2>&1 | tail -3
python3 -m gemmviz tune --variants gpu-mma-tf32 --size 4096 --repeats 5 \
  --csv "$OUT/tune-mma-h200.csv" --save-to "$OUT/tuned-mma-h200.json" 2>/dev/null
python3 -m gemmviz bench --variants gpu-warptile,gpu-wmma-tf32,gpu-mma-tf32,cublas,cublas-tf32 --sizes 1024,2048,4096,8192 \
  --repeats 20 --warmup 3 --seed 8 --quiet --out "$OUT/h200-tensor.json" | cut -c1-140
