#!/usr/bin/env bash
# Device run: re-tune the tensor-core kernel, record the full session, measure the roofline ceilings,
# run compute-sanitizer (memcheck, racecheck) over every kernel at an odd size.
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/device_final.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export GEMMVIZ_CACHE_DIR=/tmp/gemmviz-cache
date -u +%Y-%m-%dT%H:%MZ | tee "$OUT/date.txt"
python3 -m gemmviz tune --variants gpu-wmma-tf32 --size 4096 --repeats 5 \
  --csv "$OUT/tune-wmma-h200.csv" --save-to "$OUT/tuned-wmma-h200.json" 2>/dev/null
python3 -m gemmviz bench \
  --variants cpu-naive,cpu-blas,gpu-uncoalesced,gpu-naive,gpu-tiled,gpu-tiled-pad,gpu-blocktile1d,gpu-blocktile2d,gpu-vectorize,gpu-doublebuffer,gpu-warptile,gpu-wmma-tf32,cublas,cublas-tf32 \
  --tile 8,16,32 --block 16,32 --sizes 256,512,1024,2048,4096,8192 --mnk 2048x4096x3072 \
  --repeats 20 --warmup 3 --cpu-limit 40 --seed 5 --quiet --out "$OUT/h200-session.json" > "$OUT/session.txt"
grep -E "4096³|ERROR|INVALID|FAILED" "$OUT/session.txt" | grep -E "warptile|wmma|cublas|INVALID|FAILED|ERROR" | cut -c1-140
python3 -m gemmviz ceilings --save-to "$OUT/ceilings-h200.json" | grep -E "gbs|gflops\""
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool python3 tools/sanitize_job.py > "$OUT/sanitize-$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool.log")"; grep -c " ok" "$OUT/sanitize-$tool.log"
done
