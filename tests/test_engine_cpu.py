import sys
import threading

import numpy as np
import pytest

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.measure.bench import BenchSettings, Cancelled, Engine, Inputs, plan_jobs, poisoned_output, verify
from gemmviz.core.problem import Problem


def cpu_engine(**kw):
    return Engine({"cpu": CpuBackend()}, BenchSettings(warmup=1, repeats=3, seed=1, **kw))


@pytest.mark.parametrize("size", [Problem(1, 1, 1), Problem(17, 33, 65), Problem(64, 48, 80)])
def test_cpu_variants_are_right_at_odd_sizes(size):
    results = cpu_engine().run(plan_jobs(["cpu-naive", "cpu-blas"], [size]))
    assert [r.status for r in results] == ["ok", "ok"]
    for r in results:
        assert r.valid and r.rel_error < 1e-5 and r.unwritten == 0
        assert len(r.samples_ms) >= r.repeats and r.median_ms > 0 and r.gflops > 0  # repeats: the fewest


def test_gpu_variants_without_a_gpu_are_reported_unavailable():
    results = cpu_engine().run(plan_jobs(["gpu-tiled"], [Problem(8, 8, 8)]))
    assert results[0].status == "unavailable" and not results[0].valid
    assert results[0].gflops is None


def test_verify_flags_unwritten_and_wrong_outputs():
    rng = np.random.default_rng(0)
    problem = Problem(20, 10, 30)
    inputs = Inputs.random(problem, rng)
    good = (inputs.a @ inputs.b).astype(np.float32)
    assert verify(good, inputs, "fp32").valid
    partly = poisoned_output(problem)
    partly[:19] = good[:19]
    check = verify(partly, inputs, "fp32")
    assert not check.valid and check.unwritten == 10 and "never written" in check.reason
    wrong = good.copy()
    wrong[3, 4] += 1.0
    check = verify(wrong, inputs, "fp32")
    assert (
        not check.valid and check.wrong == 1 and check.first_wrong[:2] == (3, 4) and "row 3, column 4" in check.reason
    )
    # TF32-sized error passes the TF32 bound but not the FP32 one
    ref = inputs.reference
    noisy = (ref * (1 + 3e-4 * rng.standard_normal(ref.shape))).astype(np.float32)
    assert verify(noisy, inputs, "tf32").valid and not verify(noisy, inputs, "fp32").valid


def test_slow_cpu_loop_is_refused_with_the_estimate():
    results = cpu_engine(cpu_limit_s=0.001).run(plan_jobs(["cpu-naive"], [Problem(256, 256, 256)]))
    r = results[0]
    assert r.status == "refused" and "would take at least" in r.error and "limit" in r.error


def test_slow_cpu_loop_runs_when_allowed():
    results = cpu_engine(cpu_limit_s=0.001, allow_slow_cpu=True).run(plan_jobs(["cpu-naive"], [Problem(96, 96, 96)]))
    assert results[0].valid


def test_cancel_keeps_results_so_far():
    cancel = threading.Event()
    seen = []

    def on_result(r):
        seen.append(r)
        cancel.set()

    jobs = plan_jobs(["cpu-blas"], [Problem(32, 32, 32), Problem(64, 64, 64), Problem(96, 96, 96)])
    results = cpu_engine().run(jobs, on_result=on_result, cancel=cancel)
    assert len(results) == 1 and results[0].valid and seen == results


def test_host_memory_too_small_is_refused_not_allocated(monkeypatch):
    import gemmviz.core.problem as problem

    monkeypatch.setattr(problem, "host_available_bytes", lambda: 1024)
    results = cpu_engine().run(plan_jobs(["cpu-blas"], [Problem(1000, 1000, 1000)]))
    assert results[0].status == "refused" and "host memory" in results[0].error


def test_a_failing_job_does_not_stop_the_sweep():
    class Broken(CpuBackend):
        def open(self):
            raise RuntimeError("boom")

    engine = Engine({"cpu": Broken()}, BenchSettings(repeats=1))
    results = engine.run(plan_jobs(["cpu-blas"], [Problem(8, 8, 8), Problem(9, 9, 9)]))
    assert [r.status for r in results] == ["failed", "failed"] and "boom" in results[0].error


def test_progress_reports_every_job():
    calls = []
    cpu_engine().run(
        plan_jobs(["cpu-blas"], [Problem(8, 8, 8), Problem(9, 9, 9)]), on_progress=lambda *a: calls.append(a)
    )
    assert [c[0] for c in calls] == [0, 1, 2] and calls[-1][2] == "done"


def test_plan_expands_params_only_for_variants_that_have_them():
    jobs = plan_jobs(["gpu-naive", "gpu-tiled", "cublas"], [Problem(8, 8, 8)], {"tile": [8, 16, 32]})
    assert [j.label for j in jobs] == [
        "gpu-naive (block 16) 8³",
        "gpu-tiled (tile 8) 8³",
        "gpu-tiled (tile 16) 8³",
        "gpu-tiled (tile 32) 8³",
        "cublas 8³",
    ]


def test_cpu_loop_estimate_uses_the_problems_own_rows():
    """The in-cache calibration is a floor; the probe times real rows of the problem (strided walks down B)."""
    import numpy as np

    from gemmviz.backends.cpu import probe_seconds_per_fma, seconds_per_fma

    rng = np.random.default_rng(0)
    a = rng.standard_normal((512, 1024), dtype=np.float32)
    b = rng.standard_normal((1024, 1024), dtype=np.float32)
    per_fma = probe_seconds_per_fma(a, b)
    assert per_fma >= seconds_per_fma() > 0


def test_asking_whether_the_loop_can_run_does_not_import_numba():
    """numba's import takes seconds; the window's start asks every variant's availability before its first
    paint, so the answer comes from the installed package, not from importing it (issue 35)."""
    import subprocess

    code = (
        "import sys\n"
        "from gemmviz.backends.cpu import CpuBackend\n"
        "from gemmviz.core.kernels.variants import VARIANTS\n"
        "b = CpuBackend()\n"
        "print(b.availability(), [b.variant_availability(v) for v in VARIANTS.values() if v.backend == 'cpu'])\n"
        "assert 'numba' not in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "(True, 'ok')" in out.stdout


@pytest.fixture
def slow_compiler(monkeypatch):
    """numba's import and compile, made as slow as the test wants: they wait for `gate` (then fail, or succeed
    with a stand-in kernel). `started` is set once the compile thread runs."""
    from gemmviz.backends import cpu

    gate, started, done = threading.Event(), threading.Event(), threading.Event()
    outcome = {}

    def compile_slowly(finished: threading.Event):
        started.set()
        gate.wait()
        if "error" in outcome:
            monkeypatch.setattr(cpu, "_warm_error", outcome["error"])
        else:
            monkeypatch.setattr(cpu, "_seconds_per_fma", 1e-9)
        finished.set()

    if cpu.warming():  # a real compile still in flight (an earlier window's warm-up) ends before the stand-in
        cpu._warmed.wait()
    monkeypatch.setattr(cpu, "_warming", None)
    monkeypatch.setattr(cpu, "_warm_error", None)
    monkeypatch.setattr(cpu, "_seconds_per_fma", None)
    monkeypatch.setattr(cpu, "_warmed", done)
    monkeypatch.setattr(cpu, "_compile_and_calibrate", compile_slowly)
    yield gate, started, outcome
    gate.set()  # never leave the stand-in compiler waiting


def test_the_loops_warm_up_stops_at_a_cancel_while_the_compiler_carries_on(slow_compiler):
    """Closing the window during the warm-up must not wait for numba (seconds, tens under load): the warm-up
    waits for the compile thread with the cancel flag in hand (the teardown flake of tests/test_app.py)."""
    from gemmviz.backends import cpu

    gate, started, _outcome = slow_compiler
    cancel = threading.Event()
    stopped = threading.Event()
    caught = []

    def warm():
        try:
            CpuBackend().warm_up(cancel=cancel)
        except Cancelled as exc:
            caught.append(exc)
        stopped.set()

    threading.Thread(target=warm, daemon=True).start()
    assert started.wait(30)
    assert cpu.warming() and not stopped.is_set()
    cancel.set()
    assert stopped.wait(0.5) and caught  # within a poll of the flag, though the compiler still runs
    assert cpu.warming()
    gate.set()
    assert CpuBackend().warm_up() is None and cpu.seconds_per_fma() == 1e-9  # the compile's result, kept


def test_a_failed_compile_is_reported_and_tried_again(slow_compiler):
    from gemmviz.backends import cpu

    gate, _started, outcome = slow_compiler
    outcome["error"] = RuntimeError("llvm broke")
    gate.set()
    with pytest.raises(RuntimeError, match="llvm broke"):
        cpu.seconds_per_fma()
    assert cpu._warming is None  # the next caller starts a fresh compile
