#!/usr/bin/env bash
# Issue 34 device call 2 of this session (2026-12-02, about 5 minutes), after benchmarks/h200_round_2026_12_02c.sh:
#   1. the recorded run: gpu-cpasync, gpu-cpasync-any, cuBLAS FP32, gpu-wgmma-tf32 (128-row tiles where 256-row
#      ones fill their last wave under 80%), cuBLAS TF32 at 256-8192^3 and the odd sizes, kernel-only timing;
#   2. compute-sanitizer racecheck of gpu-cpasync-any and gpu-wgmma-tf32 at two odd shapes;
#   3. `gemmviz profile --gap` (ncu) of the best FP32 and TF32 rungs and cuBLAS at 1024^3, 1000^3, 2048x3072x4096.
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/h200_record_2026_12_02c.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}
export GEMMVIZ_CACHE_DIR=/tmp/gc
mkdir -p "$OUT" "$GEMMVIZ_CACHE_DIR"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) cores); $(date -u +%FT%TZ)" | tee -a "$OUT/gpu.txt"
V=gpu-cpasync,gpu-cpasync-any,cublas,gpu-wgmma-tf32,cublas-tf32
timeout 170 python3 -m gemmviz bench --variants $V --sizes 256,512,1000,1024,2048,4096,8192 --mnk 2048x3072x4096 \
  --mnk 2000x3000x1000 --seed 11 --quiet --out "$OUT/bench.json" > "$OUT/bench.txt" 2>&1
echo "bench rc=$?"
python3 - "$OUT/bench.json" <<'PY'
import json, statistics as st, sys
d = json.load(open(sys.argv[1]))
t = {(r["variant"], r["m"], r["n"], r["k"]): r for r in d["results"]}
print(f"{'size':>16} {'cpasync':>9} {'any':>9} {'cublas':>9} {'cp%':>6} {'any%':>6} | {'wgmma':>8} {'tf32':>8} {'%':>6}")
for s in [(256,)*3, (512,)*3, (1000,)*3, (1024,)*3, (2048,)*3, (4096,)*3, (8192,)*3, (2048, 3072, 4096), (2000, 3000, 1000)]:
    g = lambda v: st.median((t.get((v, *s)) or {}).get("samples_ms") or [float("nan")]) * 1000
    c, a, b, w, bt = (g(v) for v in ("gpu-cpasync", "gpu-cpasync-any", "cublas", "gpu-wgmma-tf32", "cublas-tf32"))
    print(f"{'x'.join(map(str, s)):>16} {c:9.1f} {a:9.1f} {b:9.1f} {100*b/c:6.1f} {100*b/a:6.1f} | {w:8.1f} {bt:8.1f} {100*bt/w:6.1f}")
print("not valid:", [(r["variant"], r["m"], r["n"], r["k"], r["status"]) for r in d["results"] if not r["valid"]])
PY
cat > /tmp/race.py <<'PY'
from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem

sizes = [Problem(257, 383, 200), Problem(1001, 999, 1003)]
jobs = plan_jobs(["gpu-cpasync-any", "gpu-wgmma-tf32"], sizes)
results = Engine({"cuda": CudaBackend()}, BenchSettings(warmup=0, repeats=1)).run(jobs)
for r in results:
    print(f"{r.variant} {r.m}x{r.n}x{r.k} {r.status} {r.error or ''}")
raise SystemExit(0 if all(r.valid for r in results) else 1)
PY
timeout 75 compute-sanitizer --tool racecheck --error-exitcode 3 python3 /tmp/race.py > "$OUT/racecheck.txt" 2>&1
echo "racecheck rc=$?"; grep -E "ERROR SUMMARY|gpu-|rror" "$OUT/racecheck.txt" | grep -v "^tuning" | cut -c1-160 | head -8
left=$((300 - SECONDS))
echo "== gap metrics ($left s left)"
timeout $left python3 -m gemmviz profile --variants gpu-cpasync-any,cublas,gpu-wgmma-tf32,cublas-tf32 --sizes 1024,1000 \
  --mnk 2048x3072x4096 --gap --seed 11 --quiet --out "$OUT/gap-session.json" > "$OUT/gap.txt" 2>&1
echo "gap rc=$?"; tail -5 "$OUT/gap.txt"; ls -la "$OUT"
