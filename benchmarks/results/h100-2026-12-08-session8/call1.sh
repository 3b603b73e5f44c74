# session 8, call 1: the GPU tests that time or profile, one after the other (ncu and events want the GPU alone)
set -u
G=$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader); echo "GPU: $G"; date -u
echo "commit $(cat gpuq/COMMIT)"; python3 -c "import pytest; print('pytest', pytest.__version__)"
export GEMMVIZ_CACHE_DIR=/tmp/gemmviz-cache
t() { local f=$1 lim=$2; local s=$(date +%s); timeout $lim python3 -m pytest -m gpu -q -p no:cacheprovider -rfE $f > $OUT/pytest-$(basename $f .py).txt 2>&1; echo "$f rc=$? $(( $(date +%s)-s ))s: $(tail -1 $OUT/pytest-$(basename $f .py).txt | cut -c1-200)"; }
t tests/test_gpu.py 340
t tests/test_provenance_gpu.py 40
t tests/test_accesses_gpu.py 110
t tests/test_emulator_gpu.py 90
date -u
