#!/usr/bin/env bash
# One device run on the GPU machine: GPU tests, the benchmark sessions, the timing cross-check,
# the bandwidth ceiling and compute-sanitizer. Outputs under $OUT.
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/device_run.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export GEMMVIZ_CACHE_DIR=/tmp/gemmviz-cache
date -u +%Y-%m-%dT%H:%MZ | tee "$OUT/date.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT/nvidia-smi.txt"
python3 -m gemmviz info | tee "$OUT/info.txt"
python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gpu.py 2>&1 | tail -15 | tee "$OUT/pytest-gpu.txt"
python3 -m gemmviz bench --variants gpu-naive,gpu-tiled,cublas,cublas-tf32 --tile 8,16,32 --block 16,32 \
  --sizes 1024,2048,4096,8192 --repeats 20 --warmup 3 --seed 1 --quiet \
  --out "$OUT/h200-ladder.json" --csv "$OUT/h200-ladder.csv" | tee "$OUT/ladder.txt"
python3 -m gemmviz bench --variants cpu-naive,cpu-blas,gpu-naive,gpu-tiled,cublas,cublas-tf32 --tile 8,16,32 \
  --sizes 256,512,1024,2048,4096,8192 --mnk 2048x4096x3072 --repeats 20 --warmup 3 --cpu-limit 40 --seed 2 --quiet \
  --out "$OUT/h200-session.json" > "$OUT/session.txt"; tail -3 "$OUT/session.txt"
python3 benchmarks/event_check.py 4096 16 | tee "$OUT/event_check.txt"
python3 -m gemmviz ceilings | tee "$OUT/ceilings.json"
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool python3 tools/sanitize_job.py > "$OUT/sanitize-$tool.txt" 2>&1
  echo "$tool rc=$?"; tail -3 "$OUT/sanitize-$tool.txt"
done
