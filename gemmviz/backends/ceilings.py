"""The roofline's ceilings, measured on the current GPU: memory bandwidth (a large device-to-device
copy, bytes read + written), L2 and shared-memory read bandwidth (kernels/membw.cu), the FP32 peak
computed from the hardware, and the best FP32 and TF32 GEMM rates (cuBLAS, verified like every other
result). Cached per GPU."""

from __future__ import annotations

import datetime as _dt
import json
import statistics
import threading

import numpy as np

from gemmviz.backends.cuda import CudaBackend, CudaRun
from gemmviz.core.fileio import write_atomic
from gemmviz.core.hardware.roofline import check_ceilings, user_ceilings_file
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.paths import kernel_source
from gemmviz.core.problem import Problem

COPY_BYTES = 2 << 30
GEMM_SIZE = 8192
L2_BUFFER_BYTES = 16 << 20  # fits the H200's L2 (50 MB) with room; 8-32 MiB all read 8.0-8.4 TB/s there
L2_BYTES_PER_LAUNCH = 4 << 30
SHARED_REPS = 4096
THREADS = 256  # shared_read needs 256 threads per block
BLOCKS_PER_SM = 8


def measure_memory_levels(run: CudaRun, repeats: int = 20) -> dict:
    """L2 and shared-memory read bandwidth in GB/s: median of `repeats` event-timed launches each."""
    from pycuda.compiler import SourceModule

    cuda = run.cuda
    sms = run.device.get_attribute(cuda.device_attribute.MULTIPROCESSOR_COUNT)
    module = SourceModule(kernel_source("membw.cu"), options=["-O3"], no_extern_c=True, arch=run.arch)
    l2, shared = module.get_function("l2_read"), module.get_function("shared_read")
    grid = (sms * BLOCKS_PER_SM, 1, 1)
    n_vec = L2_BUFFER_BYTES // 16
    reps = L2_BYTES_PER_LAUNCH // L2_BUFFER_BYTES
    out = cuda.mem_alloc(grid[0] * THREADS * 4)
    buf = cuda.mem_alloc(L2_BUFFER_BYTES)
    try:
        cuda.memset_d32(buf, 0x3F800000, n_vec * 4)
        args = (buf, np.uint32(n_vec), np.int32(reps), out)
        timing, never = BenchSettings(repeats=repeats), threading.Event()  # 3 warm-ups, then event-timed launches
        l2_ms = statistics.median(run.time_launches(lambda: l2(*args, block=(THREADS, 1, 1), grid=grid), timing, never))
        shared_args = (np.int32(SHARED_REPS), out)
        sh_ms = statistics.median(
            run.time_launches(lambda: shared(*shared_args, block=(THREADS, 1, 1), grid=grid), timing, never)
        )
    finally:
        buf.free()
        out.free()
    shared_bytes = grid[0] * THREADS * SHARED_REPS * 4 * 16
    return {
        "l2_gbs": L2_BUFFER_BYTES * reps / (l2_ms * 1e-3) / 1e9,
        "l2_how": f"kernels/membw.cu l2_read: {L2_BUFFER_BYTES >> 20} MiB read {reps} times with __ldcg float4 loads "
        f"by {grid[0]} blocks x {THREADS}, median of {repeats} event-timed launches",
        "shared_gbs": shared_bytes / (sh_ms * 1e-3) / 1e9,
        "shared_how": f"kernels/membw.cu shared_read: conflict-free LDS.128 on all {sms} SMs, {grid[0]} blocks x "
        f"{THREADS}, median of {repeats} event-timed launches",
    }


def measure_ceilings(repeats: int = 20) -> dict:
    with CudaRun() as run:
        info = run.device_info()
        cuda = run.cuda
        src, dst = cuda.mem_alloc(COPY_BYTES), cuda.mem_alloc(COPY_BYTES)
        try:
            cuda.memset_d32(src, 0x3F800000, COPY_BYTES // 4)
            for _ in range(3):
                cuda.memcpy_dtod(dst, src, COPY_BYTES)
            start, end = cuda.Event(), cuda.Event()
            samples = []
            for _ in range(repeats):
                start.record()
                cuda.memcpy_dtod_async(dst, src, COPY_BYTES)
                end.record()
                end.synchronize()
                samples.append(end.time_since(start))
        finally:
            src.free()
            dst.free()
        levels = measure_memory_levels(run, repeats)
    copy_ms = statistics.median(samples)
    gemm = Engine({"cuda": CudaBackend()}, BenchSettings(warmup=3, repeats=10)).run(
        plan_jobs(["cublas", "cublas-tf32"], [Problem(GEMM_SIZE, GEMM_SIZE, GEMM_SIZE)])
    )
    by = {r.variant: r for r in gemm}
    return {
        "device": info["name"],
        "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "bandwidth_gbs": 2 * COPY_BYTES / (copy_ms * 1e-3) / 1e9,
        "bandwidth_how": f"device-to-device copy of {COPY_BYTES >> 30} GiB, bytes read + written, median of {repeats} event-timed copies",
        "fp32_peak_gflops": info["fp32_peak_gflops"],
        "fp32_peak_how": f"{info['sms']} SMs x {info['fp32_lanes_per_sm']} FP32 lanes x 2 (FMA) x {info['max_sm_clock_mhz']:.0f} MHz",
        "fp32_gemm_gflops": by["cublas"].gflops,
        "fp32_gemm_how": f"cuBLAS SGEMM at {GEMM_SIZE}^3, verified, median of 10",
        "tf32_gemm_gflops": by["cublas-tf32"].gflops,
        "tf32_gemm_how": f"cuBLAS SGEMM with TF32 tensor-core math at {GEMM_SIZE}^3, verified, median of 10",
        **levels,
    }


def save_ceilings(data: dict, path=None) -> None:
    """Write ceilings that pass the check they are read with (CeilingsError names a field that does not)."""
    check_ceilings(data)
    path = path or user_ceilings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(data, indent=1, allow_nan=False))
