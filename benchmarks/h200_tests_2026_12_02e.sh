#!/usr/bin/env bash
# 2026-12-02 (third session): every `gpu` test file on the H200, on the tree that lands (after the session's
# speed work on the emulator, the check pipeline, the charts and the start-up). Two device calls, each ≤ 600 s:
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/h200_tests_2026_12_02e.sh 1
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/h200_tests_2026_12_02e.sh 2
# Run 2026-12-02 12:00-12:11 UTC on main 5bfd247: call 1 test_emulator_gpu 16 passed (97 s), test_accesses_gpu
# 9 passed (80 s), test_exercise_gpu 14 passed (113 s); call 2 test_gpu 25 passed (314 s).
set -uo pipefail
export GEMMVIZ_CACHE_DIR=/tmp/gc
mkdir -p "$GEMMVIZ_CACHE_DIR"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
if [ "${1:-1}" = 1 ]; then files="tests/test_emulator_gpu.py tests/test_accesses_gpu.py tests/test_exercise_gpu.py"
else files="tests/test_gpu.py"; fi
for f in $files; do
  left=$((570 - SECONDS))
  echo "== pytest -m gpu $f ($left s left)"
  timeout $left python3 -m pytest -m gpu -q -p no:cacheprovider "$f" 2>&1 | grep -E "passed|failed|FAILED|Error|skipped" | tail -8
done
