"""Provenance on a real GPU (issue 47 item 3): run on the GPU machine with
`python -m pytest -m gpu tests/test_provenance_gpu.py`. Skips where there is no GPU."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem
from gemmviz.core.session.results import Session

pytestmark = pytest.mark.gpu


def test_a_gpu_result_records_the_cublas_version_and_the_nvml_clock_during_its_samples():
    import pynvml  # nvidia-ml-py: the GPU machine has it; without it the clock cannot be recorded

    assert pynvml
    settings = BenchSettings(warmup=2, repeats=5, seed=1, max_time_s=0.2, max_samples=20)
    results = Engine({"cuda": CudaBackend()}, settings).run(
        plan_jobs(["gpu-tiled", "cublas"], [Problem(1024, 1024, 1024)])
    )
    for r in results:
        assert r.status == "ok", r.error
        assert re.fullmatch(r"\d+\.\d+\.\d+", r.cublas_version or ""), r.cublas_version
        assert int(r.cublas_version.split(".")[0]) >= 11
        assert r.sm_clock_nvml_mhz is not None and 100 < r.sm_clock_nvml_mhz < 5000, r.sm_clock_nvml_mhz
        # the blocking kernel's clock (cycles / ns) and NVML's agree within a tenth
        if r.clock_mhz:
            assert abs(r.sm_clock_nvml_mhz - r.clock_mhz) < 0.1 * r.clock_mhz, (r.sm_clock_nvml_mhz, r.clock_mhz)
        print(
            f"{r.variant}: cuBLAS {r.cublas_version}, NVML SM clock {r.sm_clock_nvml_mhz:.0f} MHz, "
            f"blocking kernel {r.clock_mhz} MHz"
        )


def test_gemmviz_bench_writes_them(tmp_path):
    out = tmp_path / "s.json"
    argv = ["bench", "--variants", "cublas", "--sizes", "512", "--repeats", "3", "--quiet", "--out", str(out)]
    subprocess.run([sys.executable, "-m", "gemmviz", *argv], check=True, timeout=300)
    (r,) = Session.load(out).results
    assert r.status == "ok" and r.cublas_version and r.sm_clock_nvml_mhz


def test_gemmviz_profile_records_the_kernels_cublas_launched(tmp_path):
    """Needs Nsight Compute (ncu) and permission for counters; skips, saying which, where either is missing."""
    out = tmp_path / "p.json"
    argv = ["profile", "--variants", "cublas,cublas-tf32", "--sizes", "1024", "--repeats", "3", "--duration-only"]
    proc = subprocess.run(
        [sys.executable, "-m", "gemmviz", *argv, "--quiet", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0 and re.search(r"ncu\) not found|ERR_NVGPUCTRPERM|not permitted", proc.stderr):
        pytest.skip(proc.stderr.strip().splitlines()[-1])
    assert proc.returncode == 0, proc.stderr
    for r in Session.load(out).results:
        assert r.cublas_kernels and all(isinstance(k, str) and k for k in r.cublas_kernels), r.note
        print(f"{r.variant}: cuBLAS {r.cublas_version} launched {r.cublas_kernels}")
