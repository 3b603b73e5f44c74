"""Provenance on every GPU number (issue 47 item 3), without a GPU: the cuBLAS version, the SM clock NVML read
while the samples ran and the kernels cuBLAS launched are recorded by the CUDA backend (against the fake PyCUDA,
tests/fake_pycuda), by `gemmviz bench` and by `gemmviz profile`; the session file keeps them, refuses nonsense in
them, and an older session loads and says what it does not know."""

from __future__ import annotations

import json

import pytest

from gemmviz.backends.cuda import CudaBackend
from gemmviz.cli import profile
from gemmviz.cli.main import main
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.messages import render
from gemmviz.core.paths import asset_path
from gemmviz.core.problem import Problem
from gemmviz.core.session import provenance
from gemmviz.core.session.results import Result, Session, SessionError
from tests import fake_pycuda

P = Problem(64, 48, 32)


@pytest.fixture
def gpu(monkeypatch):
    return fake_pycuda.install(monkeypatch)


def run(names, **settings):
    settings = {"warmup": 1, "repeats": 5, "seed": 3, **settings}
    return Engine({"cuda": CudaBackend()}, BenchSettings(**settings)).run(plan_jobs(names, [P]))


def texts(messages):
    return [render(m, "en") for m in messages]


def test_every_gpu_result_records_the_cublas_version_and_the_clock_during_its_samples(gpu, monkeypatch):
    import sys

    nvml = sys.modules["pynvml"]
    readings = iter(range(1700, 1800))  # a clock that moves: the median of the readings, not one of them
    monkeypatch.setattr(nvml, "nvmlDeviceGetClockInfo", lambda handle, kind: next(readings))
    tiled, cublas = run(["gpu-tiled", "cublas"], timing="kernel")
    for r in (tiled, cublas):
        assert r.status == "ok", r.error
        assert r.cublas_version == "13.1.0"
        # one reading per sample while its launches ran, besides the before/after readings
        assert 1700 < r.sm_clock_nvml_mhz < 1800 and r.sm_clock_nvml_mhz != r.sm_clock_mhz_before
    assert tiled.cublas_kernels is None  # only `gemmviz profile` (ncu) sees which kernels cuBLAS launched
    assert texts(provenance.details(cublas)) == [
        "cuBLAS 13.1.0",
        f"SM clock {cublas.sm_clock_nvml_mhz:,.0f} MHz during the samples (NVML)",
        "cuBLAS's kernels not recorded (gemmviz profile records them)",
    ]


def test_host_timed_samples_read_the_clock_too(gpu):
    (r,) = run(["gpu-naive"], timing="host")
    assert r.sm_clock_nvml_mhz == pytest.approx(1980)


def test_without_nvml_or_cublas_the_fields_stay_unknown(monkeypatch, tmp_path):
    import gemmviz.backends.cublas as cublas

    fake_pycuda.install(monkeypatch, nvml=False)
    monkeypatch.setattr(cublas, "_cublas_lib", None)
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))  # nowhere to find a libcublas
    monkeypatch.setattr(cublas.ctypes.util, "find_library", lambda name: None)
    monkeypatch.setattr(cublas.ctypes, "CDLL", _no_library)
    (r,) = run(["gpu-tiled"])
    assert r.status == "ok" and r.cublas_version is None and r.sm_clock_nvml_mhz is None
    assert texts(provenance.details(r)) == [
        "cuBLAS version not recorded",
        "SM clock during the samples not recorded (NVML)",
    ]


def _no_library(name, *args, **kw):
    raise OSError(f"{name}: cannot open shared object file")


def test_a_cublas_that_does_not_answer_leaves_the_version_unknown(gpu, monkeypatch):
    import gemmviz.backends.cublas as cublas

    monkeypatch.setattr(cublas._cublas_lib, "cublasGetProperty", lambda prop, ref: 7)
    (r,) = run(["cublas"])
    assert r.status == "ok" and r.cublas_version is None


def test_gemmviz_bench_records_them_in_its_session(gpu, tmp_path):
    out = tmp_path / "s.json"
    argv = ["bench", "--variants", "gpu-tiled,cublas", "--mnk", P.key, "--repeats", "3", "--warmup", "1"]
    assert main([*argv, "--quiet", "--out", str(out)]) == 0
    results = Session.load(out).results
    assert [r.variant for r in results] == ["gpu-tiled", "cublas"]
    assert all(r.cublas_version == "13.1.0" and r.sm_clock_nvml_mhz == pytest.approx(1980) for r in results)
    env = json.loads(out.read_text())["environment"]["backends"]["cuda"]
    assert env["cublas_version"] == "13.1.0"


def test_gemmviz_profile_records_the_kernels_one_cublas_call_launched():
    (job,) = plan_jobs(["cublas-tf32"], [P])
    r = Result(variant="cublas-tf32", params={}, m=64, n=48, k=32, backend="cuda", precision="tf32", valid=True)
    (step,) = profile.plan_steps([job], [r], seed=0)
    calls = profile.launches_per_job("ok")
    rows = [
        {"kernel": name, "counters": {"gpu__time_duration.sum": 5.0 + i}}
        for i in range(calls)
        for name in ("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32", "splitKreduce_kernel")
    ]
    profile.attach(step, rows)
    assert r.cublas_kernels == ["sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32", "splitKreduce_kernel"]
    assert "cuBLAS launched sm90_xmma" in texts(provenance.details(r))[-1]


def test_the_fields_survive_a_save_and_nonsense_in_them_is_refused(tmp_path):
    r = Result(
        variant="cublas",
        params={},
        m=8,
        n=8,
        k=8,
        backend="cuda",
        precision="fp32",
        valid=True,
        samples_ms=[0.01],
        cublas_version="13.1.0",
        sm_clock_nvml_mhz=1980.0,
        cublas_kernels=["sgemm_128x64_nn"],
    )
    path = tmp_path / "s.json"
    Session(results=[r]).save(path)
    (back,) = Session.load(path).results
    assert (back.cublas_version, back.sm_clock_nvml_mhz, back.cublas_kernels) == ("13.1.0", 1980.0, ["sgemm_128x64_nn"])
    d = r.to_dict()
    for key, bad, said in [
        ("cublas_version", "thirteen", "not a version"),
        ("cublas_version", 13, "not a string"),
        ("sm_clock_nvml_mhz", -5, "sm_clock_nvml_mhz"),
        ("sm_clock_nvml_mhz", 1e9, "sm_clock_nvml_mhz"),
        ("cublas_kernels", "sgemm", "not a list"),
        ("cublas_kernels", ["k"] * 65, "over the 64 limit"),
    ]:
        with pytest.raises(SessionError, match=said):
            Result.from_dict({**d, key: bad})


def test_an_old_session_loads_and_says_what_it_does_not_know():
    s = Session.load(asset_path("sessions", "h200-2026-12-02.json"))
    gpu = [r for r in s.results if r.backend == "cuda" and r.valid]
    assert gpu and all(r.cublas_version is None and r.sm_clock_nvml_mhz is None for r in gpu)
    cublas = next(r for r in gpu if r.variant == "cublas")
    said = texts(provenance.details(cublas))
    assert said == [
        "cuBLAS version not recorded",
        "SM clock during the samples not recorded (NVML)",
        "cuBLAS's kernels not recorded (gemmviz profile records them)",
    ]
    assert render(provenance.of_cublas(cublas.cublas_version), "en") == "of cuBLAS (version not recorded)"
    assert render(provenance.of_cublas("13.1.0"), "en") == "of cuBLAS 13.1"
    cpu = next(r for r in s.results if r.backend == "cpu")
    assert provenance.details(cpu) == []


def test_gemmviz_info_names_the_cublas(gpu, capsys):
    assert main(["info"]) == 0
    assert "cuBLAS 13.1.0, FP32 peak" in capsys.readouterr().out


def test_the_csv_says_which_cublas_and_the_clock(tmp_path):
    from gemmviz.core.session.results import results_csv

    def make(variant, ms):
        return Result(
            variant=variant,
            params={},
            m=8,
            n=8,
            k=8,
            backend="cuda",
            precision="fp32",
            valid=True,
            samples_ms=[ms],
            cublas_version="13.1.0",
            sm_clock_nvml_mhz=1755.0,
        )

    lines = results_csv([make("cublas", 0.01), make("gpu-vectorize", 0.02)]).splitlines()
    header = lines[0].split(",")
    row = dict(zip(header, lines[2].split(",")))
    assert row["pct_of_cublas"] == "50.0" and row["cublas_version"] == "13.1.0" and row["sm_clock_nvml_mhz"] == "1755.0"
