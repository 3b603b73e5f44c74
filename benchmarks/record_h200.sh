#!/usr/bin/env bash
# The issue-14 H200 recording in one device command (about 8 minutes; see benchmarks/record_h200.py):
#   source .device/env.sh && bash benchmarks/record_h200.sh
# $OUT receives h200-<date>.json (the merged session), record.log, cpu.log, ceilings.json and cpu.json.
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/record_h200}
WORK=/tmp/record_h200_parts
mkdir -p "$OUT" "$WORK"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) cores)" | tee -a "$OUT/gpu.txt"
python3 benchmarks/record_h200.py --out "$WORK"
rc=$?
# only 8 files come back: the merged session, the logs and the small parts
cp "$WORK"/h200-*.json "$WORK"/record.log "$WORK"/cpu.log "$WORK"/ceilings.json "$WORK"/cpu.json "$OUT"/ 2>/dev/null
ls -la "$OUT"
exit $rc
