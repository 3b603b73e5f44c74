"""GPU tests: run on the GPU machine with `python3 -m pytest -m gpu`. They skip where there is no GPU."""

import threading
from dataclasses import replace

import pytest

from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem

pytestmark = pytest.mark.gpu

GPU_VARIANTS = [v for v in VARIANTS.values() if v.backend == "cuda"]
# seed 001's own shape is M=2048, N=3072, K=4096; 1001x999x1003 has N % 4 != 0 (gpu-cpasync-any's 4-byte B copies)
SIZES = [
    Problem(1, 1, 1),
    Problem(17, 33, 65),
    Problem(1000, 1000, 1000),
    Problem(1001, 999, 1003),
    Problem(2048, 3072, 4096),
]
GRID = {"tile": [8, 16, 32], "block": [8, 16, 32]}


def engine(**kw):
    kw = {"max_time_s": 0.05, "max_samples": 50, **kw}
    return Engine({"cuda": CudaBackend()}, BenchSettings(warmup=1, repeats=3, seed=7, **kw))


@pytest.mark.parametrize("size", SIZES, ids=lambda p: p.key)
def test_every_gpu_variant_is_right(size):
    jobs = [
        j
        for v in GPU_VARIANTS
        for j in plan_jobs(
            [v.name],
            [size],
            {
                k: [x for x in vals if x in v.param_choices.get(k, ())] or [v.param_defaults[k]]
                for k, vals in GRID.items()
                if k in v.param_choices
            },
        )
    ]
    results = engine().run(jobs)
    assert len(results) == len(jobs)
    for r in results:
        assert r.status == "ok", f"{r.series} {size.label}: {r.error}"
        assert r.unwritten == 0 and r.rel_error <= r.threshold
        assert len(r.samples_ms) >= 3 and all(t > 0 for t in r.samples_ms)


def test_jobs_in_two_threads_one_after_the_other():
    out = {}

    def work(name):
        out[name] = engine().run(plan_jobs(["gpu-tiled", "cublas"], [Problem(300, 200, 100)]))

    for name in ("first", "second"):
        t = threading.Thread(target=work, args=(name,))
        t.start()
        t.join()
    assert all(r.valid for rs in out.values() for r in rs) and len(out) == 2


def test_second_run_compiles_nothing():
    jobs = plan_jobs(["gpu-tiled"], [Problem(64, 64, 64)], {"tile": [16]})
    engine().run(jobs)
    again = engine().run(jobs)
    assert again[0].compile_cached is True


def test_cold_l2_mode_runs_and_is_recorded():
    r = engine(cold_l2=True).run(plan_jobs(["gpu-tiled"], [Problem(512, 512, 512)]))[0]
    assert r.valid and r.cold_l2


def test_compile_error_is_reported_with_the_nvcc_log(monkeypatch):
    from gemmviz.core import paths

    shipped = paths.kernel_source
    bad = 'extern "C" __global__ void gemm_tiled(float* A) { this is not C; }'
    monkeypatch.setattr(paths, "kernel_source", lambda name: bad if name == "bad.cu" else shipped(name))
    with VARIANTS.substitute(replace(VARIANTS["gpu-tiled"], source="bad.cu")):
        results = engine().run(plan_jobs(["gpu-tiled", "cublas"], [Problem(32, 32, 32)]))
    assert results[0].status == "failed" and "nvcc failed" in results[0].error and "error" in results[0].error
    assert results[1].valid  # the engine keeps working after a compile error


def test_device_info_names_the_gpu_and_its_peak():
    info = CudaBackend().device_info()
    assert info["name"] and info["sms"] > 0 and info["fp32_peak_gflops"] > 1000


def test_tuning_picks_a_verified_config_and_the_engine_uses_it():
    from gemmviz.backends.autotune import tune
    from gemmviz.core.kernels.tuning import tuned_entry

    space = VARIANTS["gpu-warptile"].tune_space()[:4]
    report = tune("gpu-warptile", size=512, repeats=2, space=space)
    assert report["best"]["config"] in space and report["best"]["configs_tried"] == 4
    assert tuned_entry("gpu-warptile", report["gpu"])["config"] == report["best"]["config"]
    r = engine().run(plan_jobs(["gpu-warptile"], [Problem(300, 200, 100)]))[0]
    assert r.valid and "tuned config" in r.note and "zero-padded" in r.note


# ------------------------------------------------------------------------------ faults and the block trace


def test_device_out_of_memory_is_refused_and_the_next_job_runs():
    import pycuda.driver as cuda

    cuda.init()
    holder = cuda.Device(0).make_context()
    free, _total = cuda.mem_get_info()
    # leave 3 GiB: room for the engine's own context and a small job, not for 16384³ (3 GiB of matrices)
    hold = cuda.mem_alloc(free - (3 << 30))
    holder.pop()
    try:
        results = engine().run(plan_jobs(["gpu-tiled"], [Problem(16384, 16384, 16384), Problem(256, 256, 256)]))
    finally:
        holder.push()
        hold.free()
        holder.pop()
        holder.detach()
    assert results[0].status == "refused", results[0].error
    assert results[0].error.startswith("out of GPU memory: ")
    assert "GiB free" in results[0].error
    assert results[1].valid


def test_a_failed_launch_is_reported_and_the_next_job_runs():
    absurd = replace(VARIANTS["gpu-tiled"], dynamic_smem=lambda config: 1 << 30)
    with VARIANTS.substitute(absurd):
        results = engine().run(plan_jobs(["gpu-tiled", "gpu-naive"], [Problem(256, 256, 256)]))
    assert results[0].status == "failed" and results[0].error
    assert results[1].valid


@pytest.mark.parametrize("variant, params", [("gpu-naive", {"block": [16]}), ("gpu-tiled", {"tile": [16, 32]})])
def test_block_trace_holds_every_block_once_on_a_real_sm(variant, params):
    sms = CudaBackend().device_info()["sms"]
    results = engine(trace=True).run(plan_jobs([variant], [Problem(1000, 1000, 1000)], params))
    for r in results:
        assert r.valid and r.block_trace, r.note
        side = r.params.get("tile") or r.params.get("block")
        blocks = (-(-1000 // side)) ** 2
        trace = r.block_trace
        assert sorted(row[0] for row in trace) == list(range(blocks))
        assert all(start < end for _b, _sm, start, end in trace)
        assert all(0 <= sm < sms for _b, sm, _s, _e in trace)


def test_cublas_skips_the_trace_with_a_note():
    r = engine(trace=True).run(plan_jobs(["cublas"], [Problem(256, 256, 256)]))[0]
    assert r.valid and r.block_trace is None and "no block trace" in r.note


@pytest.mark.parametrize(
    "variant", ["gpu-blocktile2d", "gpu-vectorize", "gpu-warptile", "gpu-mma-tf32", "gpu-wgmma-tf32"]
)
def test_block_trace_of_launch_bounds_and_hopper_kernels(variant):
    """`__launch_bounds__` declarations are instrumented; the Hopper kernel's own stamps (END after the
    consumers' stores, its producer warpgroup having returned) give every block a record too."""
    v = VARIANTS[variant]
    sms = CudaBackend().device_info()["sms"]
    p = Problem(1000, 1000, 1000)
    r = engine(trace=True).run(plan_jobs([variant], [p]))[0]
    if r.status == "unavailable":
        pytest.skip(r.error or r.note or "unavailable on this GPU")
    assert r.valid and r.block_trace, r.note
    config = r.config or v.config
    grid, _block = v.geometry(v.run_problem(p, config), r.params, config)
    trace = r.block_trace
    assert sorted(row[0] for row in trace) == list(range(grid[0] * grid[1]))
    assert all(start < end for _b, _sm, start, end in trace)
    assert all(0 <= sm < sms for _b, sm, _s, _e in trace)


def test_kernel_only_medians_match_nsight_compute(tmp_path):
    """Issue 19: each job's median (events behind a blocking kernel) within 5% + 1 us of ncu's
    gpu__time_duration at the same clocks and warm caches, at 256^3, 1024^3 and 4096^3."""
    import sys
    from pathlib import Path

    from gemmviz.backends.profile import find_ncu

    if find_ncu() is None:
        pytest.skip("no ncu")
    sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
    import timing_vs_ncu

    rows = timing_vs_ncu.compare(folder=tmp_path)
    print(timing_vs_ncu.table(rows))
    assert rows and all(x["status"] == "ok" and x["timing"] == "kernel" for x in rows)
    assert [x for x in rows if not x["ok"]] == []


def test_a_kernel_right_first_and_wrong_after_is_refused(monkeypatch):
    """The check after the timed launches (on a fresh poison) catches a kernel that goes wrong on later launches."""
    from gemmviz.backends import cuda as cuda_backend

    real = cuda_backend.CudaRun._launcher

    def launcher(self, variant, params, p, bufs, config, trace_buffer=None):
        launch, cached = real(self, variant, params, p, bufs, config, trace_buffer)
        calls = {"n": 0}

        def flaky():
            launch()
            calls["n"] += 1
            if calls["n"] > 1:  # from the second launch on, one row of C is zeroed after the kernel
                self.cuda.memset_d32_async(int(bufs["c"]) + 4 * p.n * 5, 0, p.n)

        return flaky, cached

    monkeypatch.setattr(cuda_backend.CudaRun, "_launcher", launcher)
    (r,) = engine().run(plan_jobs(["gpu-tiled"], [Problem(256, 256, 256)]))
    assert r.status == "invalid" and "right on the first launch, wrong after" in r.error
    assert r.first_wrong[0] == 5 and r.error_map is not None


def test_kernel_only_timing_records_its_method_and_clock():
    (r,) = engine(max_time_s=0.2, max_samples=200).run(plan_jobs(["gpu-tiled"], [Problem(512, 512, 512)]))
    assert r.valid and r.timing == "kernel" and len(r.samples_ms) >= 3 and r.noise is not None
    assert r.clock_mhz and 200 < r.clock_mhz < 5000 and 1 <= len(r.host_ms) <= 5
    assert r.error_margin is not None and r.error_margin < 1


def test_latency_microbenchmark_orders_the_memory_hierarchy():
    """benchmarks/latency.py (kernels/latency.cu) on this GPU: shared < L1 hit < L2 hit < DRAM, each a plausible
    number of cycles, and the register file a whole number of KiB."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "latency.py"
    spec = importlib.util.spec_from_file_location("gemmviz_latency_bench", path)
    latency = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(latency)
    lat = latency.measure_latencies()
    c = lat["latency_cycles"]
    assert 5 < c["shared"] < c["l1"] < c["l2"] < c["dram"] < 5000
    assert lat["register_file_kib_per_sm"] >= 64 and lat["shared_bytes_per_sm_max"] >= 48 * 1024


WGMMA_BASE = {"BM": 256, "CONSUMERS": 2, "STAGES": 4, "GROUP_M": 8, "B_REGS": 1, "DEPTH": 1, "CLUSTER": 1, "SPLITS": 0}


@pytest.mark.parametrize(
    "config",
    [
        {**WGMMA_BASE, "PERSIST": 1},
        {**WGMMA_BASE, "PERSIST": 1, "CLUSTER": 2, "ORDER": 1},
        {**WGMMA_BASE, "BM": 128, "STAGES": 6, "PERSIST": 1, "CLUSTER": 2},
        {**WGMMA_BASE, "BM": 128, "STAGES": 6, "ORDER": 1},
        {**WGMMA_BASE, "B_REGS": 0},
        {**WGMMA_BASE, "BM": 192, "STAGES": 5, "PERSIST": 1, "CLUSTER": 2, "ORDER": 1},
        {**WGMMA_BASE, "BM": 128, "CONSUMERS": 1, "STAGES": 8},
    ],
    ids=[
        "persist",
        "persist-x2-hilbert",
        "bm128-persist-x2",
        "bm128-hilbert",
        "transposed-b",
        "bm192-fit",
        "narrow-fit",
    ],
)
def test_hopper_options_at_odd_shapes(config):
    """Issue 48: gpu-wgmma-tf32's persistent grid, clusters and Hilbert order at shapes whose K or N is not a
    multiple of 4 (the launcher's row-pitch copy, no engine padding), ragged tiles and more tiles than SMs."""
    import numpy as np

    from gemmviz.backends.cuda import CudaRun
    from gemmviz.core.measure.bench import Inputs, JobGuard

    v = VARIANTS["gpu-wgmma-tf32"]
    settings = BenchSettings(warmup=0, repeats=1, seed=0, max_samples=1, max_time_s=0.001, timing="host", max_batch=1)
    rng = np.random.default_rng(5)
    with CudaRun() as run:
        if run.cc < (9, 0):
            pytest.skip("needs a Hopper GPU")
        run.config_override[v.name] = config
        for p in (Problem(1001, 999, 1003), Problem(33, 17, 65), Problem(257, 383, 200), Problem(2500, 3001, 130)):
            inputs = Inputs.random(p, rng)
            (job,) = plan_jobs([v.name], [p])
            r = run.run(job, v, inputs, settings, JobGuard(threading.Event(), 120))
            assert r.status == "ok" and r.unwritten == 0 and r.rel_error <= r.threshold, (p.label, r.error)
