# session 8, call 2: the GPU tests that only check results, side by side (xdist, one file per worker); then the
# timed exercise checks alone; then racecheck of the split-barrier builds
set -u
G=$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader); echo "GPU: $G"; date -u
echo "commit $(cat gpuq/COMMIT)"
export GEMMVIZ_CACHE_DIR=/tmp/gemmviz-cache
s=$(date +%s)
P="tests/test_exercise_corpus_gpu.py tests/test_tma_fp32.py tests/test_gpu_pbar.py tests/test_wgmma_streamk.py tests/test_gpu_streamk.py tests/test_gpu_last_wave.py tests/test_emulator_faithful_gpu.py"
if python3 -c "import xdist" 2>/dev/null; then N="-n 7 --dist loadfile"; else N=""; fi
timeout 330 python3 -m pytest -m gpu -q -p no:cacheprovider -rfEx $N $P > $OUT/pytest-parallel.txt 2>&1
echo "parallel group rc=$? $(( $(date +%s)-s ))s: $(tail -1 $OUT/pytest-parallel.txt | cut -c1-200)"
s=$(date +%s)
timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider -rfE tests/test_exercise_gpu.py > $OUT/pytest-test_exercise_gpu.txt 2>&1
echo "test_exercise_gpu rc=$? $(( $(date +%s)-s ))s: $(tail -1 $OUT/pytest-test_exercise_gpu.txt | cut -c1-200)"
timeout 80 compute-sanitizer --tool racecheck python3 benchmarks/fp32_round3.py --sizes "" --only pbar2,pbar2-fdb2 > $OUT/racecheck-pbar2.txt 2>&1; echo "racecheck rc=$?"; tail -3 $OUT/racecheck-pbar2.txt
date -u
