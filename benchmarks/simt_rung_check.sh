# On the lent GPU machine (no package index) the carried wheels first; elsewhere pip install ".[cuda]".
if [ -f .device/env.sh ]; then source .device/env.sh || exit 1; fi
export GEMMVIZ_CACHE_DIR=/tmp/gc
# The gpu-cpasync rung (kernels/cpasync.cu) on the H200 in one device call, about 4-5 minutes (timeouts total 570 s):
#   1. verify the registry's config at 1x1x1, 33x17x65, 1000^3 (split-K, 4 slices), 2048x4096x3072;
#   2. tune its space at 4096^3 (48 configs; each is verified first at 257x383x200, split-K, 3 slices);
#   3. verify the tuned config at the same sizes, and run it under compute-sanitizer memcheck and racecheck;
#   4. time it beside gpu-warptile (its shipped H200 tuning) and cuBLAS FP32 at 1024-8192, print % of cuBLAS.
# Outputs under $OUT: ptxas.txt, verify-*.txt/json, tune.txt/csv, tuned.json (the winner), sanitize-*.txt,
# timing.txt/csv/json.
#   (device tool) carry [".device"], timeout_s 600: bash benchmarks/simt_rung_check.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" "$GEMMVIZ_CACHE_DIR"
V=gpu-cpasync
SIZES=(--mnk 1x1x1 --mnk 33x17x65 --sizes 1000 --mnk 2048x4096x3072)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  | tee "$OUT/nvidia-smi.txt"
nvcc -cubin -arch=sm_90 -O3 -Xptxas -v -o /tmp/cpasync.cubin kernels/cpasync.cu 2>&1 | grep -E "registers|spill" \
  | tee "$OUT/ptxas.txt"

echo "== 1. verify the default config"
timeout 100 python3 -m gemmviz bench --variants $V "${SIZES[@]}" --repeats 5 --seed 7 --quiet \
  --out "$OUT/verify-default.json" > "$OUT/verify-default.txt" 2>&1
echo "verify default rc=$?"; tail -8 "$OUT/verify-default.txt"

echo "== 2. tune at 4096"
timeout 170 python3 -m gemmviz tune --variants $V --size 4096 --repeats 5 --quiet \
  --csv "$OUT/tune.csv" --save-to "$OUT/tuned.json" 2>&1 | tee "$OUT/tune.txt"
echo "tune rc=${PIPESTATUS[0]}"
sort -t, -k5 -g -r "$OUT/tune.csv" 2>/dev/null | head -6

echo "== 3. verify the tuned config"
timeout 60 python3 -m gemmviz bench --variants $V "${SIZES[@]}" --repeats 5 --seed 8 --quiet \
  --out "$OUT/verify-tuned.json" > "$OUT/verify-tuned.txt" 2>&1
echo "verify tuned rc=$?"; tail -8 "$OUT/verify-tuned.txt"
cat > /tmp/sanitize_cpasync.py <<'PY'
from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem

jobs = plan_jobs(["gpu-cpasync"], [Problem(257, 383, 200), Problem(33, 17, 65)], {})
results = Engine({"cuda": CudaBackend()}, BenchSettings(warmup=0, repeats=1)).run(jobs)
for r in results:
    print(f"{r.series} {r.m}x{r.n}x{r.k} {r.status} {r.error or ''}")
raise SystemExit(0 if all(r.valid for r in results) else 1)
PY
for tool in memcheck racecheck; do
  timeout 45 compute-sanitizer --tool $tool python3 /tmp/sanitize_cpasync.py > "$OUT/sanitize-$tool.txt" 2>&1
  echo "$tool rc=$?"; tail -3 "$OUT/sanitize-$tool.txt"
done

echo "== 4. time beside gpu-warptile and cuBLAS FP32"
timeout 150 python3 -m gemmviz bench --variants $V,gpu-warptile,cublas --sizes 1024,2048,4096,8192 --seed 9 --quiet \
  --out "$OUT/timing.json" --csv "$OUT/timing.csv" > "$OUT/timing.txt" 2>&1
echo "timing rc=$?"
python3 - "$OUT/timing.csv" "$OUT/tuned.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = {(r["variant"], int(r["m"])): r for r in rows}
print(f"{'size':>6} {'cpasync us':>11} {'warptile us':>12} {'cublas us':>10} {'cpasync %':>10} {'warptile %':>11}  noise, valid")
for n in (1024, 2048, 4096, 8192):
    c, w, b = (t.get((v, n)) for v in ("gpu-cpasync", "gpu-warptile", "cublas"))
    if not (c and w and b) or not all(x["median_ms"] for x in (c, w, b)):
        print(n, "missing:", [x and (x["valid"], x["error"][:80]) for x in (c, w, b)])
        continue
    us = [1000 * float(x["median_ms"]) for x in (c, w, b)]
    print(f"{n:>6} {us[0]:>11.1f} {us[1]:>12.1f} {us[2]:>10.1f} {100 * us[2] / us[0]:>9.1f}% {100 * us[2] / us[1]:>10.1f}%"
          f"  {c['noise']}/{w['noise']}/{b['noise']}, {c['valid']}/{w['valid']}/{b['valid']}")
try:
    for gpu, per in json.load(open(sys.argv[2])).items():
        e = per["gpu-cpasync"]
        print(f"tuned on {gpu}: {e['config']} {e['gflops']:,.0f} GFLOP/s at {e['size']}^3 "
              f"({e['configs_valid']}/{e['configs_tried']} valid; default {e['default_gflops'] or 0:,.0f})")
except (OSError, KeyError, ValueError) as exc:
    print("no tuned config:", exc)
PY
