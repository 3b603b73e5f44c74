"""The roofline's ceilings, measured on the current GPU: memory bandwidth (a large device-to-device
copy, bytes read + written), the FP32 peak computed from the hardware, and the best FP32 and TF32
GEMM rates (cuBLAS, verified like every other result). Cached per GPU."""

from __future__ import annotations

import datetime as _dt
import json
import statistics

from gemmviz.backends.cuda import CudaBackend, CudaRun
from gemmviz.core.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.fileio import write_atomic
from gemmviz.core.problem import Problem
from gemmviz.core.roofline import user_ceilings_file

COPY_BYTES = 2 << 30
GEMM_SIZE = 8192


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
    }


def save_ceilings(data: dict, path=None) -> None:
    path = path or user_ceilings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(data, indent=1))
