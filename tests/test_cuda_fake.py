"""backends/cuda.py without a GPU: the real Engine and CudaBackend against the fake PyCUDA (tests/fake_pycuda).

The fake computes every kernel's C = A·B with numpy, so these tests check the backend's protocol, not the
kernels: verification, kernel-only timing behind the blocking kernel, batching, cold L2, host timing, cancel,
failed launches, out-of-memory, block traces, the cuBLAS call, the Hopper launcher and the tuner. The kernels
themselves are compiled by tests/test_kernels_compile.py and run by tests/test_gpu.py on a GPU.
"""

import sys
import threading
import time

import pytest

from gemmviz.backends import autotune
from gemmviz.backends.cuda import CudaBackend, CudaRun
from gemmviz.core.kernels.variants import VARIANTS, get_variant
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem
from gemmviz.core.session.results import TIMING_HOST_EVENTS, TIMING_KERNEL
from tests import fake_pycuda
from tests.fake_pycuda import driver
from tests.fake_pycuda.device import FakeGpu

CUDA_VARIANTS = [v.name for v in VARIANTS.values() if v.backend == "cuda"]
RAGGED = Problem(65, 33, 17)  # no kernel's multiple: the padding paths run too


@pytest.fixture
def gpu(monkeypatch):
    return fake_pycuda.install(monkeypatch)


def run(jobs, **settings):
    settings = {"warmup": 1, "repeats": 5, "seed": 3, **settings}
    return Engine({"cuda": CudaBackend()}, BenchSettings(**settings)).run(jobs)


def one(variant, problem=RAGGED, **settings):
    (result,) = run(plan_jobs([variant], [problem]), **settings)
    return result


def assert_clean(gpu):
    """Every context popped and destroyed, every allocation and cuBLAS handle freed in its own thread."""
    assert gpu.live_contexts() == [] and gpu.stack == []
    assert gpu.leaks == [], "device memory still allocated when its context was destroyed"
    assert gpu.cublas_handles == set()
    assert not [w for w in gpu.warnings if "thread" in w]


@pytest.mark.parametrize("name", CUDA_VARIANTS)
def test_every_gpu_variant_is_verified_and_timed_kernel_only(gpu, name):
    r = one(name)
    assert r.status == "ok", r.error
    assert r.valid and r.unwritten == 0 and r.wrong_elements == 0 and r.rel_error <= r.threshold
    assert r.timing == TIMING_KERNEL
    assert len(r.samples_ms) >= 5 and all(t > 0 for t in r.samples_ms)
    assert r.noise is not None and r.noise < 0.005
    assert r.clock_mhz == pytest.approx(1980, rel=1e-3)  # measured by the blocking kernel: cycles / ns
    assert 1 <= len(r.host_ms) <= 5 and all(t > 0 for t in r.host_ms)
    assert r.sm_clock_mhz_before == 1980 and r.temperature_c_after == 41  # through (fake) pynvml
    assert r.compile_cached is (None if get_variant(name).runner == "cublas" else False)
    assert_clean(gpu)


def test_samples_are_the_gpus_time_without_the_blocking_kernel_or_the_host(gpu):
    gpu.jitter = 0.0
    p = Problem(256, 256, 256)
    r = one("gpu-tiled", p)
    expected_ms = (gpu.launch_overhead_ns + 2 * p.m * p.n * p.k / gpu.gflops) / 1e6
    # The blocking kernel spins 150 µs before each sample; none of it is in the sample.
    assert r.samples_ms == pytest.approx([expected_ms] * len(r.samples_ms), rel=1e-3)
    # A 4 µs kernel is batched (about 0.1 ms of work per sample), each sample divided by the batch.
    assert r.launches_per_sample == int(0.1 / expected_ms)
    holds = gpu.launches["gemmviz_hold_stream"]
    assert holds == len(r.samples_ms) + len(r.dropped_ms) + 1  # + the probe that sized the batch


def test_a_second_run_loads_the_kernel_from_the_disk_cache(gpu):
    first, second = one("gpu-blocktile2d"), one("gpu-blocktile2d")
    assert (first.status, second.status) == ("ok", "ok")
    assert first.compile_cached is False and second.compile_cached is True
    assert "default config BM=128" in second.note and "zero-padded to 128x128x24" in second.note


def test_cancel_during_timing_lands_within_half_a_second(gpu):
    gpu.jitter = 0.01  # never under a zero noise target: sampling would go on for a minute
    jobs = plan_jobs(["gpu-tiled", "gpu-naive"], [RAGGED])
    engine = Engine(
        {"cuda": CudaBackend()}, BenchSettings(warmup=1, repeats=5, max_noise=0.0, max_samples=100_000, max_time_s=60)
    )
    cancel, out = threading.Event(), {}
    worker = threading.Thread(target=lambda: out.update(results=engine.run(jobs, cancel=cancel)))
    worker.start()
    try:
        assert gpu.wait_for(lambda: gpu.launches["gemmviz_hold_stream"] >= 20), "sampling never started"
    finally:
        t0 = time.monotonic()
        cancel.set()
        worker.join(timeout=10)
    assert not worker.is_alive() and time.monotonic() - t0 < 0.5
    (result,) = out["results"]  # the second job never starts
    assert result.status == "cancelled" and result.error == "cancelled by the user"
    assert_clean(gpu)


def test_a_job_past_its_time_limit_is_stopped_and_reported(gpu):
    gpu.jitter = 0.01
    r = one("gpu-naive", max_noise=0.0, max_samples=100_000, max_time_s=60, job_limit_s=0.3)
    assert r.status == "failed" and "per-job time limit of 0.3 s" in r.error
    assert_clean(gpu)


def crash_first_launch(kernel):
    def hook(launch):
        if launch.name == kernel and launch.index == 0:
            launch.crash("an illegal memory access was encountered")

    return hook


@pytest.mark.parametrize("variant, kernel", [("gpu-tiled", "gemm_tiled"), ("gpu-blocktile2d", "gemm_blocktile2d")])
def test_a_failed_launch_fails_its_job_and_the_next_job_runs_in_a_fresh_context(gpu, variant, kernel):
    gpu.launch_hook = crash_first_launch(kernel)
    failed, after = run(plan_jobs([variant, "gpu-naive"], [RAGGED]))
    assert failed.status == "failed"
    assert f"{variant} launch failed" in failed.error and "illegal memory access" in failed.error
    assert "(the cuda backend was reopened)" in failed.error
    assert after.status == "ok", after.error
    assert len(gpu.contexts) == 2 and gpu.contexts[0].broken  # the broken context was destroyed, not reused
    assert_clean(gpu)


def test_a_launch_failing_while_timed_fails_the_job(gpu):
    def hook(launch):
        if launch.name == "gemm_naive" and launch.index == 3:  # a warm-up or timed launch, after the check
            launch.crash()

    gpu.launch_hook = hook
    failed, after = run(plan_jobs(["gpu-naive", "cublas"], [RAGGED]))
    assert failed.status == "failed" and "launch failed while timing" in failed.error
    assert after.status == "ok", after.error
    assert_clean(gpu)


def test_a_hopper_launch_failing_while_timed_reopens_the_context(gpu):
    def hook(launch):
        if launch.name == "wgmma_tf32" and launch.index == 1:  # the first warm-up: the second one meets the fault
            launch.crash("an illegal memory access was encountered")

    gpu.launch_hook = hook
    failed, after = run(plan_jobs(["gpu-wgmma-tf32", "gpu-naive"], [RAGGED]), warmup=3)
    assert failed.status == "failed" and "(the cuda backend was reopened)" in failed.error
    assert after.status == "ok", after.error


def test_a_launch_refused_at_once_fails_the_job(gpu):
    def hook(launch):
        if launch.name == "gemm_tiled":
            raise driver.LogicError("cuLaunchKernel failed: too many resources requested for launch")

    gpu.launch_hook = hook
    failed, after = run(plan_jobs(["gpu-tiled", "gpu-naive"], [RAGGED]))
    assert failed.status == "failed" and "too many resources" in failed.error
    assert after.status == "ok"


def test_inputs_too_big_for_the_gpu_are_refused_with_the_sizes(gpu):
    gpu.total_bytes = 128 << 20  # C of 8192×8192 alone is 256 MiB (A and B are one column and one row)
    r = one("gpu-naive", Problem(8192, 8192, 1))
    assert r.status == "refused"
    assert r.error == "out of GPU memory: 8192×8192×1 needs 0.25 GiB, 0.12 GiB free"
    assert_clean(gpu)


def test_an_allocation_failing_despite_the_free_figure_is_refused_and_freed(gpu):
    gpu.total_bytes = 500_000  # A (360 kB) fits, B does not
    gpu.free_bytes_reported = 10 << 30  # the driver's free figure says it fits (other processes allocate too)
    r = one("gpu-naive", Problem(300, 300, 300))
    assert r.status == "refused" and r.error.startswith("out of GPU memory")
    assert any(kind == "alloc" for kind, _ in gpu.log) and gpu.used_bytes() == 0
    assert_clean(gpu)


@pytest.mark.parametrize("free_figure", [None, 10 << 30], ids=["checked", "allocation-fails"])
def test_padded_inputs_too_big_for_the_gpu_are_refused(gpu, free_figure):
    p = Problem(129, 129, 9)  # blocktile2d pads to 256x256x16: 4.3x the bytes
    gpu.total_bytes = 3 * p.matrix_bytes
    gpu.free_bytes_reported = free_figure
    r = one("gpu-blocktile2d", p)
    assert r.status == "refused" and "the padded 256×256×16" in r.error
    assert_clean(gpu)


def test_a_kernel_wrong_after_its_first_launch_is_invalid(gpu):
    def hook(launch):
        if launch.name == "gemm_tiled" and launch.index > 0:
            launch.c[3, 4] += 1.0  # e.g. leaning on what the previous launch left in C

    gpu.launch_hook = hook
    r = one("gpu-tiled")
    assert r.status == "invalid" and not r.valid
    assert r.error.startswith("right on the first launch, wrong after ")
    assert "1 of 2,145 elements of C are outside the FP32 error bound; first at row 3, column 4" in r.error
    assert r.wrong_elements == 1 and r.first_wrong[:2] == [3, 4]


def test_a_kernel_wrong_at_once_is_invalid_and_not_timed(gpu):
    def hook(launch):
        if launch.name == "cublasSgemm":
            launch.c[-1, -1] = float("nan")  # an element never written

    gpu.launch_hook = hook
    r = one("cublas")
    assert r.status == "invalid" and "1 element(s) of C were never written" in r.error
    assert r.samples_ms == [] and gpu.launches["gemmviz_hold_stream"] == 0


def test_host_timing_takes_exactly_the_repeats(gpu):
    r = one("gpu-tiled", timing="host", repeats=7)
    assert r.status == "ok" and r.timing == TIMING_HOST_EVENTS
    assert len(r.samples_ms) == 7 and r.dropped_ms == [] and r.host_ms == []
    assert r.launches_per_sample == 1 and r.clock_mhz is None
    assert gpu.launches["gemmviz_hold_stream"] == 0
    assert gpu.launches["gemm_tiled"] == 1 + 1 + 7 + 1  # check, warm-up, samples, check again


def test_cold_l2_flushes_before_every_sample_and_times_one_launch(gpu):
    r = one("gpu-tiled", cold_l2=True)
    assert r.status == "ok" and r.cold_l2 and r.launches_per_sample == 1
    flush_bytes = max(2 * gpu.attributes["L2_CACHE_SIZE"], 64 << 20)
    assert ("alloc", flush_bytes) in gpu.log
    ops = [entry for entry in gpu.log if entry[0] in ("memset", "launch", "record")]
    holds = [i for i, op in enumerate(ops) if op == ("launch", "gemmviz_hold_stream")]
    assert len(holds) == len(r.samples_ms) + len(r.dropped_ms)  # no batch probe in cold mode
    for i in holds:
        # flush, hold the stream, start event, one launch, end event
        assert ops[i - 1] == ("memset", flush_bytes)
        assert [op[0] for op in ops[i + 1 : i + 4]] == ["record", "launch", "record"]
    # the launch-inclusive samples are flushed too
    after = ops[holds[-1] + 4 :]
    flushed = [ops_i for ops_i, op in enumerate(after) if op == ("launch", "gemm_tiled")]
    assert len(flushed) >= len(r.host_ms) and all(after[i - 1][0] == "memset" for i in flushed[: len(r.host_ms)])


def test_samples_at_a_fallen_clock_are_dropped(gpu):
    gpu.sm_clock = lambda i: 1500.0 if i % 4 == 2 else 1980.0
    r = one("gpu-tiled", repeats=8)
    assert r.status == "ok" and r.dropped_ms and len(r.samples_ms) >= 8
    assert min(r.dropped_ms) > max(r.samples_ms)  # slower at the lower clock
    assert "the SM clock had fallen over 5% below 1980 MHz" in r.note


def test_samples_the_blocking_kernel_gave_up_on_are_left_out(gpu):
    gpu.hold_released = lambda i: i % 3 != 1
    r = one("gpu-tiled")
    assert r.status == "ok" and len(r.samples_ms) >= 5
    assert "sample(s) left out: the host took over 1 s to queue them" in r.note


def test_a_blocking_kernel_that_always_times_out_fails_the_job(gpu):
    gpu.hold_released = lambda i: False
    r = one("gpu-tiled", max_samples=10)
    assert r.status == "failed" and "the blocking kernel timed out in all 40 samples" in r.error


@pytest.mark.parametrize("variant", ["gpu-tiled", "gpu-blocktile2d", "gpu-wgmma-tf32"])
def test_a_block_trace_has_one_record_per_block(gpu, variant):
    v = get_variant(variant)
    r = one(variant, trace=True)
    assert r.status == "ok", r.error
    rp = v.run_problem(RAGGED, v.config)
    grid, _block = v.geometry(rp, r.params, v.config)
    assert len(r.block_trace) == grid[0] * grid[1]
    assert sorted(rec[0] for rec in r.block_trace) == list(range(grid[0] * grid[1]))
    assert all(end >= start >= 0 for _b, _sm, start, end in r.block_trace)


def test_a_trace_buffer_that_does_not_fit_leaves_the_trace_out(gpu):
    gpu.total_bytes = RAGGED.matrix_bytes + 16  # the inputs fit; the trace's 32 bytes per block do not
    r = one("gpu-tiled", trace=True)
    assert r.status == "ok" and r.block_trace is None and "no block trace: out of GPU memory" in r.note


def test_a_block_that_never_wrote_its_record_refuses_the_trace(gpu):
    gpu.trace_hook = lambda records: records.__setitem__((-1, slice(None)), 0xFFFFFFFFFFFFFFFF)
    r = one("gpu-tiled", trace=True)
    assert r.status == "ok" and r.block_trace is None
    assert "block trace refused: 1 blocks never wrote their record" in r.note


def test_cublas_has_no_block_trace_and_says_so(gpu):
    r = one("cublas", trace=True)
    assert r.status == "ok" and r.block_trace is None
    assert "no block trace: cublas is not a gemmviz kernel" in r.note


def test_a_cublas_error_status_fails_the_job(gpu, monkeypatch):
    from gemmviz.backends import cublas

    monkeypatch.setattr(cublas._cublas_lib, "cublasSetMathMode", lambda handle, mode: 7)
    r = one("cublas-tf32")
    assert r.status == "failed" and r.error == "RuntimeError: cublasSetMathMode failed with cuBLAS status 7"
    assert_clean(gpu)


def test_cublas_is_unavailable_where_the_library_is_missing(gpu, monkeypatch, tmp_path):
    from gemmviz.backends import cublas

    monkeypatch.setattr(cublas, "_cublas_lib", None)
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setattr(cublas.ctypes, "CDLL", lambda name: (_ for _ in ()).throw(OSError(f"{name}: no")))
    monkeypatch.setattr(cublas.ctypes.util, "find_library", lambda name: None)
    r, tiled = run(plan_jobs(["cublas", "gpu-tiled"], [RAGGED]))
    assert r.status == "unavailable" and r.error.startswith("libcublas not found (looked in $CUDA_HOME/lib64")
    assert tiled.status == "ok"


def test_a_compile_error_fails_the_job_with_nvccs_log(gpu):
    def hook(source, options):
        if "-DTILE=16" in options:
            raise driver.CompileError("nvcc failed", stderr='tiled.cu(20): error: identifier "TILE" is undefined')

    gpu.compile_hook = hook
    failed, after = run(plan_jobs(["gpu-tiled", "gpu-naive"], [RAGGED]))
    assert failed.status == "failed"
    assert "nvcc failed to compile tiled.cu" in failed.error and 'identifier "TILE" is undefined' in failed.error
    assert after.status == "ok"


def test_the_hopper_kernel_is_unavailable_elsewhere(monkeypatch):
    gpu = fake_pycuda.install(monkeypatch, FakeGpu(name="Fake A100", compute_capability=(8, 0)))
    r = one("gpu-wgmma-tf32")
    assert r.status == "unavailable" and "needs Hopper (sm_90); this GPU is sm_80" in r.error
    assert one("gpu-mma-tf32").status == "ok"
    assert_clean(gpu)


def test_the_hopper_kernel_with_a_transposed_b(gpu, monkeypatch):
    v = get_variant("gpu-wgmma-tf32")
    config = {**v.config, "B_REGS": 0}
    monkeypatch.setattr(CudaRun, "config", lambda self, variant: (dict(config), False))
    r = one("gpu-wgmma-tf32")
    assert r.status == "ok", r.error
    assert gpu.launches["transpose_kn"] == gpu.launches["wgmma_tf32"]  # each timed launch transposes B first


def test_device_info(gpu):
    info = CudaBackend().device_info()
    assert info["name"] == gpu.name and info["compute_capability"] == "9.0" and info["sms"] == 132
    assert info["fp32_peak_gflops"] == pytest.approx(132 * 128 * 2 * 1980 / 1e3)
    assert info["driver_cuda_version"] == "13.0" and info["pycuda"] == fake_pycuda.VERSION_TEXT
    assert info["memory_total_bytes"] == 141 << 30 and info["sm_clock_mhz"] == 1980
    assert_clean(gpu)


def test_device_info_without_nvml(monkeypatch):
    gpu = fake_pycuda.install(monkeypatch, nvml=False)
    info = CudaBackend().device_info()
    assert info["sm_clock_mhz"] is None and info["temperature_c"] is None
    assert_clean(gpu)


@pytest.mark.parametrize(
    "setup, reason",
    [
        (lambda g: setattr(g, "count", 0), "no CUDA device: the driver found no NVIDIA GPU"),
        (lambda g: setattr(g, "init_error", "no CUDA-capable device is detected"), "no usable NVIDIA driver"),
    ],
)
def test_availability_says_what_is_missing(monkeypatch, setup, reason):
    gpu = fake_pycuda.install(monkeypatch)
    setup(gpu)
    ok, why = CudaBackend().availability()
    assert not ok and why.startswith(reason)
    (r,) = run(plan_jobs(["gpu-naive"], [RAGGED]))
    assert r.status == "unavailable" and r.error.startswith(reason)
    assert CudaBackend().device_info() == {"reason": why}
    with pytest.raises(RuntimeError, match=reason):
        CudaRun().__enter__()


class _FailingImport:
    """A meta-path finder for which importing pycuda.driver raises `exc` (as a missing libcuda.so does)."""

    def __init__(self, exc):
        self.exc = exc

    def find_spec(self, name, path=None, target=None):
        if name == "pycuda.driver":
            raise self.exc
        return None


@pytest.mark.parametrize(
    "exc, reason",
    [
        (None, "PyCUDA is not installed"),
        (ImportError("libcuda.so.1: cannot open shared object file"), "no NVIDIA driver: PyCUDA is installed but"),
        (OSError("libcuda.so.1: wrong ELF class"), "no NVIDIA driver: libcuda.so.1: wrong ELF class"),
    ],
)
def test_availability_without_pycuda_or_the_driver(monkeypatch, exc, reason):
    fake_pycuda.install(monkeypatch)
    if exc is None:
        monkeypatch.setitem(sys.modules, "pycuda.driver", None)
    else:
        monkeypatch.delitem(sys.modules, "pycuda.driver")
        monkeypatch.setattr(sys, "meta_path", [_FailingImport(exc), *sys.meta_path])
    ok, why = CudaBackend().availability()
    assert not ok and why.startswith(reason)


def test_nvml_errors_leave_the_clock_and_temperature_unknown(monkeypatch):
    gpu = fake_pycuda.install(monkeypatch)

    def fail(*_args):
        raise OSError("NVML: not supported")

    nvml = sys.modules["pynvml"]
    for name in ("nvmlDeviceGetClockInfo", "nvmlDeviceGetMaxClockInfo", "nvmlDeviceGetTemperature"):
        monkeypatch.setattr(nvml, name, fail)
    with CudaRun() as cuda_run:
        info = cuda_run.device_info()
    assert info["sm_clock_mhz"] is None and info["temperature_c"] is None
    r = one("gpu-naive")
    assert r.status == "ok" and r.sm_clock_mhz_before is None and r.clock_mhz == pytest.approx(1980, rel=1e-3)
    assert_clean(gpu)


def test_runs_in_two_threads_each_own_their_context(gpu):
    out = {}

    def work(name):
        out[name] = run(plan_jobs(["gpu-tiled", "cublas"], [RAGGED]))

    for name in ("first", "second"):
        t = threading.Thread(target=work, args=(name,))
        t.start()
        t.join()
    assert [r.status for rs in out.values() for r in rs] == ["ok"] * 4
    assert len(gpu.contexts) == 2 and threading.get_ident() not in {c.thread for c in gpu.contexts}
    assert_clean(gpu)


def test_the_fake_refuses_a_buffer_used_from_another_thread(gpu):
    """The fake's own rule: CUDA work from a thread without the context fails, as it does in PyCUDA."""
    errors = []
    with CudaRun() as cuda_run:
        buf = cuda_run.cuda.mem_alloc(64)

        def other():
            try:
                cuda_run.cuda.memset_d32(buf, 0, 16)
            except driver.LogicError as exc:
                errors.append(str(exc))

        t = threading.Thread(target=other)
        t.start()
        t.join()
        buf.free()
        with pytest.raises(driver.LogicError, match="freed twice"):
            buf.free()
    assert errors and "no current context" in errors[0]
    assert_clean(gpu)


def test_the_tuner_compiles_verifies_times_and_keeps_the_best(gpu):
    space = get_variant("gpu-vectorize").tune_space()[:3]

    def hook(source, options):
        if all(f"-D{key}={value}" in options for key, value in space[1].items()):
            raise driver.CompileError("nvcc failed", stderr="ptxas error: too much shared data")

    gpu.compile_hook = hook
    out = autotune.tune("gpu-vectorize", size=64, repeats=3, warmup=0, space=space, seed=1)
    statuses = [row["status"] for row in out["rows"]]
    assert statuses == ["ok", "compile error", "ok"]
    assert out["best"]["config"] in (space[0], space[2]) and out["best"]["configs_valid"] == 2
    assert out["gpu"] == gpu.name
    small = one("gpu-vectorize")  # at 65x33 one 128x128 tile leaves most of 132 SMs idle: the default runs
    assert small.status == "ok" and "tiles would fill under half the SMs" in small.note
    assert small.config == get_variant("gpu-vectorize").config
    gpu.attributes["MULTIPROCESSOR_COUNT"] = 2
    tuned = one("gpu-vectorize")  # the bench now compiles the tuned configuration
    assert tuned.status == "ok" and tuned.note.startswith("tuned config") and tuned.config == out["best"]["config"]
    assert_clean(gpu)


def test_ceilings_are_measured_and_pass_their_own_check(gpu, monkeypatch, tmp_path):
    from gemmviz.backends import ceilings

    # the real sizes (2 GiB copies, 8192³ GEMMs) are for a GPU; the protocol is the same at these
    monkeypatch.setattr(ceilings, "COPY_BYTES", 4 << 20)
    monkeypatch.setattr(ceilings, "L2_BUFFER_BYTES", 1 << 20)
    monkeypatch.setattr(ceilings, "GEMM_SIZE", 128)
    data = ceilings.measure_ceilings(repeats=3)
    assert data["device"] == gpu.name and data["fp32_peak_gflops"] == pytest.approx(132 * 128 * 2 * 1980 / 1e3)
    assert data["bandwidth_gbs"] > 0 and data["l2_gbs"] > 0 and data["shared_gbs"] > 0
    assert data["fp32_gemm_gflops"] > 0 and data["tf32_gemm_gflops"] > 0
    assert gpu.launches["l2_read"] >= 3 and gpu.launches["shared_read"] >= 3
    ceilings.save_ceilings(data, tmp_path / "ceilings.json")
    assert_clean(gpu)


def test_a_trace_a_session_could_not_hold_is_left_out_and_the_result_kept(gpu, monkeypatch):
    """decode_trace took any number of blocks; a session holds at most MAX_TRACE_ROWS. At 8192³ in 8×8 blocks
    (a million blocks) the session writer refused the result, its fallback too, and nothing was saved."""
    from gemmviz.core.session import checks

    monkeypatch.setattr(checks, "MAX_TRACE_ROWS", 3)  # RAGGED's grid has more blocks than that
    r = one("gpu-tiled", trace=True)
    assert r.status == "ok" and r.block_trace is None
    assert "no block trace:" in r.note and "over the 3 rows a session holds" in r.note
