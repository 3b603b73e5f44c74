#!/usr/bin/env bash
# The CPU triple loop at 4096^3 on the GPU machine's CPU (one core; about 502 s on the H200 host's Xeon,
# 2026-11-30), one device command of its own, then merged into the recording here:
#   source .device/env.sh && bash benchmarks/record_cpu_4096.sh
#   python benchmarks/merge_session.py assets/sessions/h200-2026-11-30.json <files_at>/cpu4096.json --part cpu-4096
set -u
OUT=${OUT:-/tmp/record_cpu_4096}
mkdir -p "$OUT"
nproc
grep -m1 'model name' /proc/cpuinfo
timeout 585 python3 -m gemmviz bench --variants cpu-naive --sizes 4096 --repeats 1 --warmup 0 --allow-slow-cpu \
    --seed 0 --quiet --out "$OUT/cpu4096.json" 2>&1 | tee "$OUT/cpu4096.log"
