#!/usr/bin/env bash
# The access tracer on the GPU machine (issue 25): build it, trace the seed kernels and the ladder's key rungs
# with `gemmviz profile --accesses` (each beside Nsight Compute's counters of the same launch), run the gpu
# tests, and pack everything into $OUT/accesses.tar.gz (the device tool returns at most 8 files).
#   source .device/env.sh && bash benchmarks/record_accesses.sh [all|main|rungs|tests]
# tools/ship_accesses.py then makes assets/sessions/h200-*.accesses.json.gz from the packed files.
set -u
out=${OUT:-/tmp/gemmviz-accesses}
work=$(mktemp -d /tmp/gemmviz-accesses-XXXX)
what=${1:-all}
export GEMMVIZ_CACHE_DIR=$work/cache
export GEMMVIZ_ACCESS_KEEP=$work/raw  # the tracer's own files of each job, for the CPU tests
py=${PYTHON:-python3}
pack() { rm -rf "$work/cache"; find "$work/raw" -name "*.bin" -size +4M -delete 2>/dev/null; tar -C "$work" -czf "$out/accesses.tar.gz" . ; ls -la "$out"; }
trap pack EXIT  # what finished comes back even when a step runs out of time
step() { echo "== $(date -u +%H:%M:%S) $*"; }
step "tools"
ls "${CUDA_HOME:-/usr/local/cuda}/compute-sanitizer" 2>&1 | head -20
command -v nvcc nvdisasm ncu compute-sanitizer
nvcc --version | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
step "build"
timeout 120 $py -m gemmviz.backends.accesses build || echo "BUILD FAILED"
profile() {
    local name=$1 limit=$2; shift 2
    step "profile $name: $*"
    timeout $limit $py -m gemmviz profile --repeats 3 --warmup 1 --quiet --accesses --out "$work/$name.json" "$@" \
        > "$work/$name.txt" 2> "$work/$name.err"
    echo "exit $?"; cat "$work/$name.txt"; grep -v "gemmviz tracer: gemm\|tracer: module" "$work/$name.err" | tail -25
}
GEMMVIZ_ACCESS_DEBUG=1 profile smoke 60 --variants gpu-naive,gpu-tiled --sizes 64 --duration-only
if [[ ! -s $work/smoke.accesses.json.gz ]]; then
    echo "SMOKE FAILED: no access records; the rest is skipped"
    exit 1
fi
if [[ $what == all || $what == main ]]; then
    profile s1024 150 --variants gpu-naive,gpu-uncoalesced,gpu-tiled,gpu-tiled-pad --sizes 1024 --tile 16,32
    profile s1000 70 --variants gpu-naive,gpu-tiled --sizes 1000 --tile 16
fi
if [[ $what == all || $what == rungs ]]; then
    profile rungs1024 120 --variants gpu-blocktile2d,gpu-vectorize,gpu-cpasync,gpu-wgmma-tf32 --sizes 1024 \
        --access-cap 2000000
fi
if [[ $what == all || $what == tests ]]; then
    step "gpu tests"
    timeout 130 $py -m pytest -q -m gpu tests/test_accesses_gpu.py -p no:cacheprovider 2>&1 | tail -30
fi
