#!/usr/bin/env bash
# The re-recording of 2026-12-02 in one device call (about 8-9 minutes), after benchmarks/h200_round_2026_12_02.sh:
#   1. compute-sanitizer memcheck and racecheck of gpu-cpasync-any (the final kernel) at odd shapes, with the
#      registry's config (small grids) and the H200's tuned config (1100x2100x40, 1100x2101x40: N % 4 == 0, != 0);
#   2. the Hopper tensor-pipe metric ncu left empty under its first name, found with --query-metrics;
#   4. python3 -m pytest -m gpu -q in the time left (the command ends by 570 s).
#   3. benchmarks/record_h200.py --part bench (every registry variant, 256-8192, 1000^3, 2048x3072x4096,
#      2000x3000x1000; kernel-only timing), without `gemmviz ceilings` (the session carries 2026-12-01's).
# Then here: python benchmarks/rerecord_h200.py (merge with 2026-12-01's counters and traces).
#   (device tool) carry [".device"]: source .device/env.sh && bash benchmarks/h200_record_2026_12_02.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}
W=/tmp/extra
export GEMMVIZ_CACHE_DIR=/tmp/gc GEMMVIZ_BENCH_BUDGET_S=${GEMMVIZ_BENCH_BUDGET_S:-400}
mkdir -p "$OUT" "$W" "$GEMMVIZ_CACHE_DIR"
trap 'tar czf "$OUT/extra.tgz" -C "$W" .; ls -la "$OUT"' EXIT
cat > /tmp/sanitize.py <<'PY'
from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem

sizes = [Problem(257, 383, 200), Problem(33, 17, 65), Problem(1001, 999, 1003), Problem(1100, 2100, 40),
         Problem(1100, 2101, 40)]
results = Engine({"cuda": CudaBackend()}, BenchSettings(warmup=0, repeats=1)).run(plan_jobs(["gpu-cpasync-any"], sizes))
for r in results:
    print(f"{r.series} {r.m}x{r.n}x{r.k} {r.status} {r.error or ''} {r.note or ''}")
raise SystemExit(0 if all(r.valid for r in results) else 1)
PY
for tool in memcheck racecheck; do
  timeout 45 compute-sanitizer --tool $tool --error-exitcode 3 python3 /tmp/sanitize.py > "$W/sanitize-$tool.txt" 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|gpu-|rror" "$W/sanitize-$tool.txt" | cut -c1-150 | head -8
done
ncu --query-metrics --chip gh100 2>&1 | grep -iE "gmma|tensor_op" | cut -c1-120 > "$W/query-gmma.txt"
head -12 "$W/query-gmma.txt"
names=$(grep -oE "^sm__pipe_tensor_op_gmma_cycles_active|^sm__inst_executed_pipe_tensor_op_gmma|^sm__pipe_tensor_op_hmma_cycles_active" "$W/query-gmma.txt" | sort -u | sed 's/$/.avg.pct_of_peak_sustained_active/' | paste -sd, -)
echo "gmma metrics: $names"
[ -n "$names" ] && timeout 40 python3 benchmarks/gap_metrics.py --variants gpu-wgmma-tf32,cublas-tf32,cublas \
  --metrics "$names" --out "$OUT/gap-gmma.json" > "$W/gap-gmma.txt" 2>&1; tail -4 "$W/gap-gmma.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT/gpu-bench.txt"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) cores); $(date -u +%FT%TZ)" | tee -a "$OUT/gpu-bench.txt"
python3 benchmarks/record_h200.py --part bench --no-ceilings --out "$OUT"
tail -3 "$OUT/record.log"
python3 - "$OUT/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = {(r["variant"], r["m"], r["n"], r["k"]): r for r in d["results"] if not r.get("params") or r["params"] in ({"tile": 16}, {"block": 16})}
for s in [(1000,) * 3, (1024,) * 3, (2048,) * 3, (4096,) * 3, (8192,) * 3, (2000, 3000, 1000), (2048, 3072, 4096), (256,) * 3]:
    g = lambda v: (t.get((v, *s)) or {}).get("samples_ms") or [float("nan")]
    import statistics as st
    c, a, b, w, bt, nv = (st.median(g(v)) * 1000 for v in ("gpu-cpasync", "gpu-cpasync-any", "cublas", "gpu-wgmma-tf32", "cublas-tf32", "gpu-naive"))
    print(f"{'x'.join(map(str, s)):>16} cp {c:9.1f} any {a:9.1f} cublas {b:9.1f} {100*b/c:5.1f}% {100*b/a:5.1f}% | wgmma {w:8.1f} tf32 {bt:8.1f} {100*bt/w:5.1f}% | naive {nv:9.1f}")
bad = [(r["variant"], r["m"], r["n"], r["k"], r["status"]) for r in d["results"] if not r["valid"]]
print(len(d["results"]), "results; not valid:", bad[:12])
PY
left=$((570 - SECONDS))
echo "== pytest -m gpu ($left s left)"
[ $left -gt 20 ] && timeout $left python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gpu.py 2>&1 | tail -15 | tee "$W/pytest-gpu.txt"
