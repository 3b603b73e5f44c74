#!/usr/bin/env bash
# 2026-12-02 (third session), device call 1: the exercise check records again, now that the check's parser keeps
# the gap metrics (issue 34 item 4's gap view for an exercise check had no H200 record with them); each record's
# gap decomposition printed; then tests/test_exercise_gpu.py in the time left.
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/h200_record_2026_12_02e.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}
export GEMMVIZ_CACHE_DIR=/tmp/gc
mkdir -p "$OUT/records" "$GEMMVIZ_CACHE_DIR"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
timeout 200 python3 tools/exercise_records.py "$OUT/records" tiled_good,coalescing_good,banks_conflicts 2>&1 | tail -12
echo "records at ${SECONDS}s"; ls "$OUT/records"
for f in "$OUT"/records/*.check.json; do
  python3 - "$f" <<'PY'
import json, sys
from gemmviz.core.exercise.gap import check_gap
from gemmviz.core.exercise.record import gap_lines
rec = json.load(open(sys.argv[1]))
g, why = check_gap(rec)
print(sys.argv[1].rsplit("/", 1)[-1], "gap:", "none, " + str(why) if g is None else "ok")
for line in gap_lines(rec):
    print("   ", line)
PY
done
left=$((330 - SECONDS))
echo "== pytest -m gpu tests/test_exercise_gpu.py ($left s left)"
timeout $left python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_exercise_gpu.py 2>&1 | grep -E "passed|failed|FAILED|Error" | tail -8
