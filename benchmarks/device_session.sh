#!/usr/bin/env bash
# Device run: GPU tests, tensor-core kernel tuning, and the full recorded session (every variant,
# 256...8192 and the seeds' 2048x4096x3072, tiles 8/16/32) that the app replays and the docs quote.
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/device_session.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export GEMMVIZ_CACHE_DIR=/tmp/gemmviz-cache
date -u +%Y-%m-%dT%H:%MZ | tee "$OUT/date.txt"
python3 -m pytest -m gpu -q -p no:cacheprovider -x tests/test_gpu.py 2>&1 | tail -4
python3 -m gemmviz tune --variants gpu-wmma-tf32 --size 4096 --repeats 5 \
  --csv "$OUT/tune-wmma-h200.csv" --save-to "$OUT/tuned-wmma-h200.json" 2>/dev/null
python3 -m gemmviz bench \
  --variants cpu-naive,cpu-blas,gpu-uncoalesced,gpu-naive,gpu-tiled,gpu-tiled-pad,gpu-blocktile1d,gpu-blocktile2d,gpu-vectorize,gpu-doublebuffer,gpu-warptile,gpu-wmma-tf32,cublas,cublas-tf32 \
  --tile 8,16,32 --block 16,32 --sizes 256,512,1024,2048,4096,8192 --mnk 2048x4096x3072 \
  --repeats 20 --warmup 3 --cpu-limit 40 --seed 4 --quiet --out "$OUT/h200-session.json" > "$OUT/session.txt"
grep -E "4096³|ERROR|INVALID|FAILED" "$OUT/session.txt" | cut -c1-140
