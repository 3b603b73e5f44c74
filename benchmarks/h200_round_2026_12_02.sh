#!/usr/bin/env bash
# One device call (about 7-8 minutes; the timeouts add up to 560 s) for issue 34 and issue 31's microbenchmark:
#   1. gpu-cpasync-any (kernels/cpasync_any.cu): ptxas report and SASS instruction mix; verified at odd shapes
#      (1x1x1, 17x33x65, 257x383x200 split-K, 1001x999x1003 with N % 4 != 0, 1000^3, 2000x3000x1000,
#      2048x3072x4096), its small tuning space at 4096^3, compute-sanitizer memcheck and racecheck at odd shapes;
#   2. kernel-only timing beside cuBLAS (FP32 and TF32) at 1024-8192^3 and the odd sizes, % of cuBLAS;
#   3. benchmarks/latency.py (pointer chasing, register file, naive L1 hit rate from ncu);
#   4. benchmarks/gap_metrics.py (ncu metrics at 4096^3 for the gap view);
#   5. benchmarks/wgmma_pipeline.py (the instrumented Hopper kernel's pipeline on SM 0).
# Logs and files in $W, packed into $OUT/round.tgz at the end (the device tool returns at most 8 files); the JSON
# results are copied to $OUT as well.
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/h200_round_2026_12_02.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}
W=/tmp/round
export GEMMVIZ_CACHE_DIR=/tmp/gc
mkdir -p "$OUT" "$W" "$GEMMVIZ_CACHE_DIR"
finish() {
  tar czf "$OUT/round.tgz" -C "$W" .
  for f in microbench.json gap.json pipeline.json tuned.json timing.json; do [ -f "$W/$f" ] && cp "$W/$f" "$OUT/"; done
  ls -la "$OUT"
}
trap finish EXIT
V=gpu-cpasync-any
ODD=(--mnk 1x1x1 --mnk 17x33x65 --mnk 257x383x200 --mnk 1001x999x1003 --sizes 1000 --mnk 2000x3000x1000
     --mnk 2048x3072x4096)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  | tee "$W/nvidia-smi.txt"
T=128x256; CFG="-DBM=128 -DBN=256 -DBK=16 -DWM=64 -DWN=64 -DTM=8 -DTN=16 -DSTAGES=3"
for k in cpasync cpasync_any; do
  nvcc -cubin -arch=sm_90 -O3 -Xptxas -v $CFG -o /tmp/$k.cubin kernels/$k.cu 2>&1 | grep -E "registers|spill" \
    | sed "s/^/$k $T: /" >> "$W/ptxas.txt"
  cuobjdump -sass /tmp/$k.cubin | grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[A-Z][A-Z0-9.]*' | awk '{print $2}' \
    | sed 's/\..*//' | sort | uniq -c | sort -rn | head -14 | tr '\n' ' ' | sed "s/^/$k SASS: /" >> "$W/ptxas.txt"
  echo >> "$W/ptxas.txt"
done
cat "$W/ptxas.txt"

echo "== 0. latency microbenchmark"
timeout 70 python3 benchmarks/latency.py --out "$W/microbench.json" 2>&1 | tail -16

echo "== 1. verify the default config at odd shapes"
timeout 60 python3 -m gemmviz bench --variants $V "${ODD[@]}" --repeats 3 --seed 7 --quiet \
  --out "$W/verify-default.json" > "$W/verify-default.txt" 2>&1
echo "verify default rc=$?"; grep -E "gpu-cpasync" "$W/verify-default.txt" | cut -c1-110
echo "== tune at 4096"
timeout 70 python3 -m gemmviz tune --variants $V --size 4096 --repeats 10 --quiet \
  --csv "$W/tune.csv" --save-to "$W/tuned.json" > "$W/tune.txt" 2>&1
echo "tune rc=$?"; sort -t, -k5 -g -r "$W/tune.csv" 2>/dev/null | cut -c1-200 | head -9
echo "== verify the tuned config at odd shapes"
timeout 40 python3 -m gemmviz bench --variants $V "${ODD[@]}" --repeats 3 --seed 8 --quiet \
  --out "$W/verify-tuned.json" > "$W/verify-tuned.txt" 2>&1
echo "verify tuned rc=$?"; grep -E "gpu-cpasync" "$W/verify-tuned.txt" | cut -c1-110
cat > /tmp/sanitize.py <<'PY'
import sys
from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem

sizes = [Problem(257, 383, 200), Problem(33, 17, 65), Problem(1001, 999, 1003), Problem(2000, 3000, 1000), Problem(2001, 2999, 1001)]
jobs = plan_jobs(sys.argv[1].split(","), sizes, {})
results = Engine({"cuda": CudaBackend()}, BenchSettings(warmup=0, repeats=1)).run(jobs)
for r in results:
    print(f"{r.series} {r.m}x{r.n}x{r.k} {r.status} {r.error or ''} {r.note or ''}")
raise SystemExit(0 if all(r.valid for r in results) else 1)
PY
for tool in memcheck racecheck; do
  timeout 80 compute-sanitizer --tool $tool --error-exitcode 3 python3 /tmp/sanitize.py $V \
    > "$W/sanitize-$tool.txt" 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|gpu-|Error" "$W/sanitize-$tool.txt" | head -8
done

echo "== 2. kernel-only timing beside cuBLAS"
timeout 90 python3 -m gemmviz bench --variants gpu-cpasync,$V,cublas,gpu-wgmma-tf32,cublas-tf32 \
  --sizes 1024,2048,4096,8192,1000 --mnk 2000x3000x1000 --mnk 2048x3072x4096 --seed 9 --quiet \
  --out "$W/timing.json" --csv "$W/timing.csv" > "$W/timing.txt" 2>&1
echo "timing rc=$?"
python3 - "$W/timing.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = {(r["variant"], r["m"], r["n"], r["k"]): r for r in rows}
shapes = sorted({(r["m"], r["n"], r["k"]) for r in rows}, key=lambda s: (int(s[0]) * int(s[1]) * int(s[2])))
print(f"{'shape':>16} {'cpasync':>9} {'any':>9} {'cublas':>9} {'cp %':>6} {'any %':>6} | {'wgmma':>9} {'cublasTF':>9} {'%':>6}")
for s in shapes:
    g = lambda v: float(t[(v, *s)]["median_ms"]) * 1000 if (v, *s) in t and t[(v, *s)]["median_ms"] else float("nan")
    c, a, b, w, bt = (g(v) for v in ("gpu-cpasync", "gpu-cpasync-any", "cublas", "gpu-wgmma-tf32", "cublas-tf32"))
    print(f"{'x'.join(s):>16} {c:9.1f} {a:9.1f} {b:9.1f} {100*b/c:6.1f} {100*b/a:6.1f} | {w:9.1f} {bt:9.1f} {100*bt/w:6.1f}")
bad = [r for r in rows if r["valid"] != "True"]
print("invalid:", [(r["variant"], r["m"], r["error"][:60]) for r in bad])
PY

echo "== 5. wgmma pipeline trace"
timeout 40 python3 benchmarks/wgmma_pipeline.py --size 4096 --out "$W/pipeline.json" 2>&1 | tail -4
echo "== 4. gap metrics at 4096^3"
timeout 130 python3 benchmarks/gap_metrics.py --out "$W/gap.json" > "$W/gap.txt" 2>&1
echo "gap rc=$?"; tail -12 "$W/gap.txt"
