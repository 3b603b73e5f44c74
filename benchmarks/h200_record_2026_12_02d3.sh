#!/usr/bin/env bash
# 2026-12-02 (second session), device call 3: exercise check records with the gap metrics (issue 34 item 4: the
# gap view for an exercise check) and the first H200 records of the coalescing and banks exercises (issue 32's
# leftover); then tests/test_accesses_gpu.py in the time left.
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/h200_record_2026_12_02d3.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}
export GEMMVIZ_CACHE_DIR=/tmp/gc
mkdir -p "$OUT/records" "$GEMMVIZ_CACHE_DIR"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
timeout 170 python3 tools/exercise_records.py "$OUT/records" tiled_good,coalescing_good,banks_conflicts 2>&1 | tail -12
echo "records at ${SECONDS}s"; ls "$OUT/records"
left=$((285 - SECONDS))
echo "== pytest -m gpu tests/test_accesses_gpu.py ($left s left)"
timeout $left python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_accesses_gpu.py 2>&1 | grep -E "passed|failed|FAILED|Error" | tail -8
