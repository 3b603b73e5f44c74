#!/usr/bin/env bash
# The H200 recording in two device commands (see benchmarks/record_h200.py):
#   source .device/env.sh && bash benchmarks/record_h200.sh bench            # call 1
#   source .device/env.sh && bash benchmarks/record_h200.sh rest bench.json  # call 2 (carry call 1's bench.json)
# then here: python benchmarks/record_h200.py --merge CALL1_FILES CALL2_FILES --out assets/sessions
set -u
export PYTHONUNBUFFERED=1 GEMMVIZ_CACHE_DIR=${GEMMVIZ_CACHE_DIR:-/tmp/gemmviz-cache}
OUT=${OUT:-/tmp/record_h200}
mkdir -p "$OUT"
part=${1:?bench or rest}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT/gpu-$part.txt"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) cores); $(date -u +%FT%TZ)" | tee -a "$OUT/gpu-$part.txt"
if [ "$part" = rest ] && [ -n "${2:-}" ]; then
  python3 benchmarks/record_h200.py --part rest --bench "$2" --out "$OUT"
else
  python3 benchmarks/record_h200.py --part "$part" --out "$OUT"
fi
rc=$?
tail -5 "$OUT/record.log"
ls -la "$OUT"
exit $rc
