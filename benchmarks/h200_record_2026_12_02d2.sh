#!/usr/bin/env bash
# Issue 34, 2026-12-02 (second session), device call 2 of 2, after benchmarks/h200_record_2026_12_02d.sh, whose
# profile ran out of its 360 s before the last seven ncu steps:
#   1. the same profile for the TF32 pairs it missed where the TF32 rung is under cuBLAS: gpu-wgmma-tf32 and cuBLAS
#      TF32 at 8192^3 and 2000x3000x1000, seed 11 as before (2048x3072x4096 has 2026-12-02c's gap file);
#   2. the gpu tests the first call had no time for, each file under its own limit.
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/h200_record_2026_12_02d2.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}
export GEMMVIZ_CACHE_DIR=/tmp/gc
mkdir -p "$OUT" "$GEMMVIZ_CACHE_DIR"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
timeout 130 python3 -m gemmviz profile --variants gpu-wgmma-tf32,cublas-tf32 --sizes 8192 --mnk 2000x3000x1000 --gap \
  --seed 11 --quiet --out "$OUT/gap-tf32.json" > "$OUT/gap-tf32.txt" 2>&1
echo "gap tf32 rc=$? at ${SECONDS}s"; tail -6 "$OUT/gap-tf32.txt"
t() { local left=$(($1 - SECONDS)); shift; echo "== pytest -m gpu $* ($left s left)";
      timeout $left python3 -m pytest -m gpu -q -p no:cacheprovider "$@" 2>&1 | grep -E "passed|failed|FAILED|Error" | tail -8; }
t 420 tests/test_emulator_gpu.py
t 585 tests/test_exercise_gpu.py tests/test_gpu.py::test_kernel_only_medians_match_nsight_compute
