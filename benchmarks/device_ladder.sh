#!/usr/bin/env bash
# Device run for the kernel ladder: GPU tests, autotuning, and the ladder benchmark beside cuBLAS.
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/device_ladder.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export GEMMVIZ_CACHE_DIR=/tmp/gemmviz-cache
date -u +%Y-%m-%dT%H:%MZ | tee "$OUT/date.txt"
python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gpu.py 2>&1 | tail -8
python3 -m gemmviz tune --variants gpu-warptile,gpu-vectorize,gpu-doublebuffer --size 4096 --repeats 5 \
  --csv "$OUT/tune-h200.csv" --save-to "$OUT/tuned-h200.json" 2>/dev/null
python3 -m gemmviz bench --variants gpu-uncoalesced,gpu-naive,gpu-tiled,gpu-tiled-pad,gpu-blocktile1d,gpu-blocktile2d,gpu-vectorize,gpu-doublebuffer,gpu-warptile,gpu-wmma-tf32,cublas,cublas-tf32 \
  --tile 32 --block 32 --sizes 1024,2048,4096,8192 --repeats 20 --warmup 3 --seed 3 --quiet \
  --out "$OUT/h200-ladder.json" --csv "$OUT/h200-ladder.csv" | cut -c1-150
