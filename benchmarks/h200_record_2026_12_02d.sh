#!/usr/bin/env bash
# Issue 34, session of 2026-12-02 (second): one device call of about 9 minutes.
#   1. `gemmviz profile --gap` of the best FP32 rungs (gpu-cpasync, gpu-cpasync-any), cuBLAS FP32, the best TF32 rung
#      (gpu-wgmma-tf32) and cuBLAS TF32 at every size the issue names, in one run: its bench gives the percentages
#      and its ncu passes the gap view's metrics (-> assets/sessions/h200-2026-12-02d-gap.json);
#   2. compute-sanitizer memcheck of gpu-wgmma-tf32 and gpu-cpasync-any at odd shapes;
#   3. pytest -m gpu tests/test_gpu.py in the time left.
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/h200_record_2026_12_02d.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}
export GEMMVIZ_CACHE_DIR=/tmp/gc
mkdir -p "$OUT" "$GEMMVIZ_CACHE_DIR"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) cores); $(date -u +%FT%TZ)" | tee -a "$OUT/gpu.txt"
V=gpu-cpasync,gpu-cpasync-any,cublas,gpu-wgmma-tf32,cublas-tf32
timeout 360 python3 -m gemmviz profile --variants $V --sizes 1000,1024,2048,4096,8192 --mnk 2048x3072x4096 \
  --mnk 2000x3000x1000 --gap --seed 11 --quiet --out "$OUT/gap-session.json" > "$OUT/gap.txt" 2>&1
echo "gap rc=$? at ${SECONDS}s"; tail -40 "$OUT/gap.txt"
cat > /tmp/sanitize.py <<'PY'
from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem

sizes = [Problem(257, 383, 200), Problem(33, 17, 65), Problem(1001, 999, 1003)]
results = Engine({"cuda": CudaBackend()}, BenchSettings(warmup=0, repeats=1)).run(
    plan_jobs(["gpu-wgmma-tf32", "gpu-cpasync-any"], sizes))
for r in results:
    print(f"{r.series} {r.m}x{r.n}x{r.k} {r.status} {r.error or ''} {r.note or ''}")
raise SystemExit(0 if all(r.valid for r in results) else 1)
PY
timeout 80 compute-sanitizer --tool memcheck --error-exitcode 3 python3 /tmp/sanitize.py > "$OUT/memcheck.txt" 2>&1
echo "memcheck rc=$? at ${SECONDS}s"; grep -E "ERROR SUMMARY|gpu-|rror" "$OUT/memcheck.txt" | grep -v "^tuning" | cut -c1-160 | head -10
left=$((575 - SECONDS))
echo "== pytest -m gpu tests/test_gpu.py ($left s left)"
timeout $left python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gpu.py 2>&1 | tail -15
