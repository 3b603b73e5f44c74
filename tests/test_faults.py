"""Fault injection (issue 13): a fake GPU backend that fails compiles, launches (context lost), allocations
(out of memory) and hangs. Each fault becomes a Result that says why, and the next job runs, on a reopened
context after a lost one. Also: cancelling a long CPU loop, and the kernel cache's safety checks."""

from __future__ import annotations

import os
import stat
import threading
import time

import numpy as np
import pytest

from gemmviz.core.measure.bench import Backend, BackendFatal, BenchSettings, Engine, new_result, plan_jobs
from gemmviz.core.problem import Problem, ProblemError

SIZES = [Problem(8, 8, 8), Problem(9, 9, 9), Problem(10, 10, 10), Problem(11, 11, 11), Problem(12, 12, 12)]


class FaultyGpu(Backend):
    """Fails the job whose m is a key of `faults` in that way; records every context it opens."""

    name = "cuda"

    def __init__(self, faults: dict[int, str]):
        self.faults = faults
        self.contexts: list[_Context] = []

    def availability(self):
        return True, "ok"

    def open(self):
        ctx = _Context(self, len(self.contexts))
        self.contexts.append(ctx)
        return ctx


class _Context:
    def __init__(self, backend: FaultyGpu, number: int):
        self.backend, self.number = backend, number
        self.broken = self.closed = False
        self.ran: list[int] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.closed = True
        return False

    def run(self, job, variant, inputs, settings, cancel):
        assert not self.broken, "a job ran on a lost context"
        m = job.problem.m
        self.ran.append(m)
        fault = self.backend.faults.get(m)
        if fault == "compile":
            raise RuntimeError('nvcc failed to compile tiled.cu:\ntiled.cu(12): error: identifier "TILEX" is undefined')
        if fault == "launch":
            self.broken = True
            raise BackendFatal(f"{variant.name} launch failed: cuLaunchKernel failed: an illegal memory access")
        if fault == "oom":
            raise ProblemError("out of GPU memory: 10³ needs 140.00 GiB, 3.20 GiB free")
        if fault == "hang":  # a job that never finishes on its own, but checks the flag between launches
            while not cancel.is_set():
                time.sleep(0.005)
            from gemmviz.core.measure.bench import Cancelled

            raise Cancelled
        return new_result(
            job,
            variant,
            "ok",
            rel_error=0.0,
            unwritten=0,
            samples_ms=[1.0],
            warmup=0,
            repeats=1,
            note=f"context {self.number}",
        )


def run_faulty(faults, **settings):
    backend = FaultyGpu(faults)
    engine = Engine({"cuda": backend}, BenchSettings(repeats=1, warmup=0, **settings))
    return backend, engine.run(plan_jobs(["gpu-tiled"], SIZES))


def test_each_fault_becomes_a_result_that_says_why_and_the_next_job_runs():
    backend, results = run_faulty({8: "compile", 9: "launch", 10: "oom", 11: "hang"}, job_limit_s=0.2)
    assert [r.status for r in results] == ["failed", "failed", "refused", "failed", "ok"]
    assert "nvcc failed" in results[0].error and "TILEX" in results[0].error
    assert "illegal memory access" in results[1].error and "reopened" in results[1].error
    assert results[2].error.startswith("out of GPU memory: ") and "GiB free" in results[2].error
    assert "time limit of 0.2 s" in results[3].error
    assert results[4].valid


def test_a_lost_context_is_closed_and_the_next_job_runs_on_a_new_one():
    backend, results = run_faulty({9: "launch"})
    first, second = backend.contexts
    assert first.broken and first.closed and first.ran == [8, 9]
    assert second.ran == [10, 11, 12] and not second.broken and second.closed
    assert [r.note for r in results if r.valid] == ["context 0", "context 1", "context 1", "context 1"]


def test_a_user_cancel_is_reported_as_cancelled_not_as_a_time_out():
    backend = FaultyGpu({8: "hang"})
    cancel = threading.Event()
    timer = threading.Timer(0.05, cancel.set)
    timer.start()
    results = Engine({"cuda": backend}, BenchSettings(repeats=1, job_limit_s=60)).run(
        plan_jobs(["gpu-tiled"], SIZES), cancel=cancel
    )
    timer.join()
    assert [r.status for r in results] == ["cancelled"] and "cancelled by the user" in results[0].error


def test_a_size_too_big_for_host_memory_refuses_every_job_of_it_and_the_next_size_runs(monkeypatch):
    import gemmviz.core.problem as problem

    real = problem.check_host_memory

    def check(p):
        if p.m == 9:
            raise ProblemError("9³ needs more host memory than is available")
        return real(p)

    monkeypatch.setattr("gemmviz.core.measure.bench.check_host_memory", check)
    backend = FaultyGpu({})
    results = Engine({"cuda": backend}, BenchSettings(repeats=1)).run(plan_jobs(["gpu-naive", "gpu-tiled"], SIZES[:3]))
    assert [r.status for r in results] == ["ok", "ok", "refused", "refused", "ok", "ok"]
    assert "host memory" in results[2].error


def test_cancelling_a_long_cpu_loop_returns_within_half_a_second():
    pytest.importorskip("numba")
    from gemmviz.backends.cpu import CpuBackend, seconds_per_fma

    seconds_per_fma()  # compile and calibrate first: only the loop itself is measured here
    cancel = threading.Event()
    started = threading.Event()
    engine = Engine({"cpu": CpuBackend()}, BenchSettings(repeats=1, warmup=0, allow_slow_cpu=True, job_limit_s=None))
    out = {}

    def work():
        out["results"] = engine.run(
            plan_jobs(["cpu-naive"], [Problem(1024, 1024, 1024)]), on_progress=lambda *a: started.set(), cancel=cancel
        )

    worker = threading.Thread(target=work)
    worker.start()
    assert started.wait(30)
    time.sleep(0.3)  # inside the loop (1024³ takes seconds)
    t0 = time.monotonic()
    cancel.set()
    worker.join(5)
    elapsed = time.monotonic() - t0
    assert not worker.is_alive()
    assert [r.status for r in out["results"]] == ["cancelled"]
    # The promise is for a machine to itself: with more runnable processes than cores (a loaded CI box), the
    # loop's thread gets its share of a core only, and the bound stretches by that much.
    share = max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    assert elapsed < 0.5 * share, f"the cancel took {elapsed:.2f} s (load {share:.1f}× the cores)"


def test_cpu_loop_longer_than_the_job_limit_is_refused_up_front():
    pytest.importorskip("numba")
    from gemmviz.backends.cpu import CpuBackend

    engine = Engine({"cpu": CpuBackend()}, BenchSettings(repeats=1, allow_slow_cpu=True, job_limit_s=0.001))
    r = engine.run(plan_jobs(["cpu-naive"], [Problem(512, 512, 512)]))[0]
    assert r.status == "refused" and "per-job time limit" in r.error


# ------------------------------------------------------------------------------------------ kernel cache


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """compile_cubin with a fake nvcc (counting compiles) and a fixed toolchain, caching under tmp_path."""
    from gemmviz.backends import kernel_cache

    monkeypatch.setenv("GEMMVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(kernel_cache, "toolchain_id", lambda: {"nvcc": "fake 13.0", "driver": 13000, "pycuda": "x"})
    compiles = []

    def fake_nvcc(source, options, arch, name):
        compiles.append(options)
        return b"CUBIN:" + " ".join(options).encode()

    monkeypatch.setattr(kernel_cache, "nvcc", fake_nvcc)
    return kernel_cache, compiles, tmp_path / "cache" / "kernels"


def _compile(kernel_cache, tile=16):
    from gemmviz.core.kernels.variants import VARIANTS

    return kernel_cache.compile_cubin(VARIANTS["gpu-tiled"], {"tile": tile}, None, "sm_90", "Fake GPU")


def test_the_cache_folder_is_private_and_a_second_compile_reads_the_file(cache):
    kernel_cache, compiles, folder = cache
    key, cubin, cached = _compile(kernel_cache)
    assert not cached and cubin.startswith(b"CUBIN:")
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    (path,) = folder.glob("*.cubin")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and key[:32] in path.name
    assert _compile(kernel_cache) == (key, cubin, True) and len(compiles) == 1


def test_a_corrupted_cache_file_is_recompiled(cache):
    kernel_cache, compiles, folder = cache
    _key, cubin, _ = _compile(kernel_cache)
    (path,) = folder.glob("*.cubin")
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    _key, again, cached = _compile(kernel_cache)
    assert not cached and again == cubin and len(compiles) == 2
    assert kernel_cache.read_cached(path) == cubin  # rewritten with a good hash


def test_a_symlink_in_place_of_a_cache_file_is_not_followed(cache, tmp_path):
    kernel_cache, compiles, folder = cache
    _compile(kernel_cache)
    (path,) = folder.glob("*.cubin")
    target = tmp_path / "elsewhere.cubin"
    target.write_bytes(path.read_bytes())  # a valid cubin file, but reached through a link
    path.unlink()
    path.symlink_to(target)
    _key, _cubin, cached = _compile(kernel_cache)
    assert not cached and len(compiles) == 2
    assert not path.is_symlink() and target.read_bytes().startswith(kernel_cache.CACHE_MAGIC)
    assert kernel_cache.read_cached(target) is not None  # untouched: the rename replaced the link itself


def test_a_cache_folder_others_can_write_is_refused_and_nothing_is_cached(cache, caplog):
    kernel_cache, compiles, folder = cache
    folder.mkdir(parents=True)
    folder.chmod(0o777)
    _compile(kernel_cache)
    _compile(kernel_cache)
    assert len(compiles) == 2 and not list(folder.iterdir())
    assert "writable by other users" in caplog.text and "chmod 700" in caplog.text


def test_a_symlinked_cache_folder_is_refused(cache, tmp_path):
    kernel_cache, compiles, folder = cache
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    folder.parent.mkdir(parents=True)
    folder.symlink_to(real)
    with pytest.raises(kernel_cache.CacheRefused, match="symbolic link"):
        kernel_cache.secure_cache_dir(folder)
    _compile(kernel_cache)
    assert not list(real.iterdir())


def test_the_key_changes_with_everything_that_decides_the_cubin():
    from gemmviz.backends.kernel_cache import cache_key

    base = ("src", ["-O3", "-DTILE=16"], "sm_90", {"nvcc": "13.0", "driver": 13000, "pycuda": "2026.1"})
    keys = {
        cache_key(*base),
        cache_key("src2", *base[1:]),
        cache_key(base[0], ["-O3", "-DTILE=32"], *base[2:]),
        cache_key(*base[:2], "sm_80", base[3]),
        cache_key(*base[:3], {**base[3], "driver": 12080}),
        cache_key(*base[:3], {**base[3], "pycuda": "2025.1"}),
    }
    assert len(keys) == 6 and all(len(k) == 64 for k in keys)
    assert np.unique([k[:32] for k in keys]).size == 6
