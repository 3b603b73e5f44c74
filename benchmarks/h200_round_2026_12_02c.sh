#!/usr/bin/env bash
# Issue 34/31/32 device call 1 of this session (2026-12-02, about 5 minutes):
#   1. ptxas report of the split-K wgmma build; benchmarks/wgmma_splitk.py (tile size and split-K sweep of
#      gpu-wgmma-tf32 beside cuBLAS TF32 at the small and odd sizes; gpu-cpasync(-any) at 1000^3 and neighbours);
#   2. compute-sanitizer memcheck and racecheck of gpu-wgmma-tf32 (split-K) and gpu-cpasync-any (shifted last
#      tiles) at odd shapes;
#   3. benchmarks/latency.py (adds the dependent-FFMA register latency).
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/h200_round_2026_12_02c.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}
W=/tmp/round
export GEMMVIZ_CACHE_DIR=/tmp/gc
mkdir -p "$OUT" "$W" "$GEMMVIZ_CACHE_DIR"
trap 'tar czf "$OUT/round.tgz" -C "$W" .; for f in microbench.json splitk.json; do [ -f "$W/$f" ] && cp "$W/$f" "$OUT/"; done' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee "$W/nvidia-smi.txt"
for cfg in "-DBM=256 -DCLUSTER=2" "-DBM=128 -DCLUSTER=1 -DSTAGES=6"; do
  nvcc -cubin -O3 -gencode=arch=compute_90a,code=sm_90a $cfg -Xptxas -v -o /tmp/w.cubin kernels/wgmma_tf32.cu 2>&1 \
    | grep -E "spill|error" | sed "s/^/wgmma $cfg: /"
done
if [ -n "${LATENCY:-}" ]; then echo "== latency"  # the first call ran it (LATENCY=1)
timeout 80 python3 benchmarks/latency.py --out "$W/microbench.json" > "$W/latency.txt" 2>&1; echo "latency rc=$?"
grep -E "_cycles|hit_rate" "$W/latency.txt"; fi
echo "== split-K sweep"
timeout 200 python3 benchmarks/wgmma_splitk.py --out "$W/splitk.json" 2>&1 | tee "$W/splitk.txt" | grep -vE "^\s*$" | tail -24
cat > /tmp/sanitize.py <<'PY'
from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem

import sys

sizes = [Problem(257, 383, 200), Problem(33, 17, 65), Problem(1000, 1000, 1000), Problem(1001, 999, 1003),
         Problem(2000, 3000, 1000)]
variants = sys.argv[1].split(",")
results = Engine({"cuda": CudaBackend()}, BenchSettings(warmup=0, repeats=1)).run(plan_jobs(variants, sizes))
for r in results:
    print(f"{r.variant} {r.m}x{r.n}x{r.k} {r.status} {r.error or ''} {r.note or ''}")
raise SystemExit(0 if all(r.valid for r in results) else 1)
PY
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 python3 /tmp/sanitize.py ${SANITIZE:-gpu-wgmma-tf32,gpu-cpasync-any} > "$W/sanitize-$tool.txt" 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|gpu-|rror" "$W/sanitize-$tool.txt" | cut -c1-200 | head -8
done
