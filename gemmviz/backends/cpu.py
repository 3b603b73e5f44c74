"""CPU backend: the seeds' triple loop (numba, one thread) and numpy's BLAS."""

from __future__ import annotations

import importlib.util
import threading
import time
from typing import TYPE_CHECKING

from gemmviz.core.kernels.variants import Variant
from gemmviz.core.measure.bench import (
    Backend,
    BenchSettings,
    Cancelled,
    Inputs,
    Job,
    cpu_name,
    new_result,
    poisoned_output,
    sample_host,
    sample_policy,
    time_host,
    verify,
)
from gemmviz.core.measure.timing import host_notes, noise
from gemmviz.core.numbers import sig
from gemmviz.core.problem import ProblemError
from gemmviz.core.session.results import TIMING_HOST_CLOCK, Result

if TYPE_CHECKING:  # numpy is imported where it is used: not on the window's first frame's path
    import numpy as np

# The triple loop at 4096^3 takes minutes: never more than this many timed runs of it.
CPU_NAIVE_MAX_REPEATS = 3
CALIBRATION_SIZE = 192

_naive_kernel = None
_seconds_per_fma: float | None = None
_lock = threading.Lock()
# Importing numba and compiling the loop takes seconds (tens under load) in calls that cannot be interrupted.
# They run once per process in a daemon thread of their own, and every caller waits for it with its cancel flag
# in hand: a window closed during the app's warm-up (or a run cancelled while the loop still compiles) stops
# within one poll, and the compile finishes in the background for whoever asks next.
_warming: threading.Thread | None = None
_warmed = threading.Event()
_warm_error: BaseException | None = None
WARM_POLL_S = 0.05


def _numba_status() -> tuple[bool, str]:
    """Whether numba is installed, without importing it: its import takes seconds (2.7 s of a loaded start-up),
    so it is paid by the first run of the triple loop, not by the window's first paint."""
    if importlib.util.find_spec("numba") is None:
        return False, "numba is not installed (pip install numba): the compiled CPU triple loop needs it"
    return True, "ok"


def _compile_naive():
    """The seeds' V0 loop: for i, for j, sum over k, float32 accumulator (numba's decorator; compiled lazily)."""
    import numba
    import numpy as np

    @numba.njit(cache=False, fastmath=False, nogil=True)  # the app's UI thread keeps running
    def gemm_cpu_naive(a, b, c):
        m, k = a.shape
        n = b.shape[1]
        for i in range(m):
            for j in range(n):
                s = np.float32(0.0)
                for p in range(k):
                    s += a[i, p] * b[p, j]
                c[i, j] = s

    return gemm_cpu_naive


def _compile_and_calibrate(done: threading.Event) -> None:
    """The warm-up thread's body: compile, then time a small product; then set `done` (the event it was started
    with, whatever `_warmed` is by then)."""
    import numpy as np

    global _naive_kernel, _seconds_per_fma, _warm_error
    try:
        kernel = _compile_naive()
        n = CALIBRATION_SIZE
        a = np.ones((n, n), np.float32)
        c = np.empty((n, n), np.float32)
        # Compile for contiguous arrays, the layout every run passes (row blocks of C-ordered inputs): a
        # strided 2x2 view would compile another specialisation and leave the contiguous one to be compiled
        # inside the timed call below, which then measured the compiler (about 30x too slow an estimate).
        small = np.ones((2, 2), np.float32)
        kernel(small, small, np.empty_like(small))
        t0 = time.perf_counter()
        kernel(a, a, c)
        _seconds_per_fma = (time.perf_counter() - t0) / n**3
        _naive_kernel = kernel
    except BaseException as exc:  # handed to the waiter, who raises it
        _warm_error = exc
    finally:
        done.set()


def _await_warm(cancel=None) -> None:
    """Start the compile-and-calibrate thread once and wait for it, checking `cancel` every WARM_POLL_S:
    raises Cancelled when it is set first (the thread carries on), or the thread's error (the next call retries)."""
    global _warming, _warm_error
    with _lock:
        if _warming is None:
            _warmed.clear()
            _warming = threading.Thread(
                target=_compile_and_calibrate, args=(_warmed,), name="gemmviz-cpu-compile", daemon=True
            )
            _warming.start()
    while not _warmed.wait(WARM_POLL_S):
        if cancel is not None and cancel.is_set():
            raise Cancelled
    with _lock:
        error = _warm_error
        if error is not None and _warmed.is_set() and _warming is not None and not _warming.is_alive():
            _warming, _warm_error = None, None  # a failed compile is tried again by the next caller
    if error is not None:
        raise error


def warming() -> bool:
    """Whether the compile thread is still at work (the app's exit need not wait for it: it is a daemon)."""
    return _warming is not None and _warming.is_alive()


def naive_kernel(cancel=None):
    """The seeds' V0 loop, compiled once per process (waits for the warm-up thread; see `_await_warm`)."""
    _await_warm(cancel)
    return _naive_kernel


def seconds_per_fma(cancel=None) -> float:
    """The loop's in-cache rate, calibrated once per process with its compile."""
    _await_warm(cancel)
    assert _seconds_per_fma is not None  # set by the compile thread before it sets the event
    return _seconds_per_fma


def estimate_naive_seconds(m: int, n: int, k: int, runs: int = 1, cancel=None) -> float:
    return seconds_per_fma(cancel) * m * n * k * runs


def probe_seconds_per_fma(a: np.ndarray, b: np.ndarray, cancel=None) -> float:
    """The loop's rate on this problem's own rows: time a few rows of C (about 20 ms) after one untimed row.

    The in-cache calibration is only a floor: each row of C walks down every column of B, a stride of N floats,
    and once B outgrows the caches and the TLB every step is a miss. On the H200 host the loop took 1.0 ns per
    FMA at 192^3 but 7.3 ns at 4096^3 (502 s measured where the calibration alone predicted 67 s)."""
    import numpy as np

    kernel = naive_kernel(cancel)
    m, k = a.shape
    n = b.shape[1]
    scratch = np.empty((min(m, 64), n), np.float32)  # never the poisoned output: the verified run writes that
    kernel(a[:1], b, scratch[:1])
    if cancel is not None and cancel.is_set():
        raise Cancelled
    rows = min(len(scratch), max(1, int(0.02 / max(seconds_per_fma() * n * k, 1e-12))))
    t0 = time.perf_counter()
    kernel(a[:rows], b, scratch[:rows])
    return max((time.perf_counter() - t0) / (rows * n * k), seconds_per_fma())


def _too_slow(name: str, label: str, how: str, seconds: float, runs: int, settings: BenchSettings) -> str:
    return (
        f"{name} at {label} would take {how} {sig(seconds, 3)} s ({runs} run{'s' if runs != 1 else ''}; "
        f"limit {sig(settings.cpu_limit_s)} s); allow slow CPU runs to do it anyway"  # 1,120 s, not 1.12e+03
    )


def _check_job_limit(name: str, label: str, how: str, seconds: float, settings: BenchSettings) -> None:
    if settings.job_limit_s is not None and seconds > settings.job_limit_s:
        raise ProblemError(
            f"{name} at {label} would take {how} {seconds:.3g} s, more than the per-job time "
            f"limit of {settings.job_limit_s:g} s; raise the limit to run it"
        )


class CpuBackend(Backend):
    name = "cpu"

    def availability(self) -> tuple[bool, str]:
        return True, "ok"

    def variant_availability(self, variant: Variant) -> tuple[bool, str]:
        if variant.runner == "cpu-loop":
            return _numba_status()
        return True, "ok"

    def device_info(self) -> dict:
        return {"name": cpu_name()}

    def warm_up(self, cancel=None) -> None:
        """Compile and calibrate the triple loop now (the worker does it after probing, while the window is
        idle) rather than inside the first run, where the compiler's garbage collections stall the window.
        Raises Cancelled as soon as `cancel` is set: the compile goes on in its own thread (`_await_warm`)."""
        if _numba_status()[0]:
            seconds_per_fma(cancel)

    def open(self):
        return _CpuRun()


class _CpuRun:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def run(self, job: Job, variant: Variant, inputs: Inputs, settings: BenchSettings, cancel) -> Result:
        import numpy as np

        p = job.problem
        a, b = inputs.a, inputs.b
        c = poisoned_output(p)
        warmup, repeats, note = settings.warmup, settings.repeats, None
        if variant.runner == "cpu-loop":
            repeats = min(repeats, CPU_NAIVE_MAX_REPEATS)
            warmup = 0  # compiled during calibration; the first run is as fast as the rest
            # The verified run is also the first timed sample (minutes at 4096^3: not run twice for one figure).
            floor = estimate_naive_seconds(p.m, p.n, p.k, runs=repeats, cancel=cancel)  # in-cache rate: a lower bound
            if floor > settings.cpu_limit_s and not settings.allow_slow_cpu:
                raise ProblemError(_too_slow(variant.name, p.label, "at least", floor, repeats, settings))
            _check_job_limit(variant.name, p.label, "at least", floor, settings)
            kernel = naive_kernel(cancel)
            per_fma = probe_seconds_per_fma(a, b, cancel)
            estimate = per_fma * p.m * p.n * p.k * repeats
            if estimate > settings.cpu_limit_s and not settings.allow_slow_cpu:
                raise ProblemError(_too_slow(variant.name, p.label, "about", estimate, repeats, settings))
            _check_job_limit(variant.name, p.label, "about", estimate, settings)
            # Run in row chunks of about 50 ms so a cancel lands within one chunk, not after minutes.
            rows = max(1, int(0.05 / max(per_fma * p.n * p.k, 1e-12)))

            def fn():
                for i0 in range(0, p.m, rows):
                    if cancel.is_set():
                        raise Cancelled
                    kernel(a[i0 : i0 + rows], b, c[i0 : i0 + rows])

            note = f"single thread, numba; estimated {estimate:.1f} s before the run; the verified run is timed"
        elif variant.runner == "numpy-blas":

            def fn():
                np.matmul(a, b, out=c)

        else:
            raise ValueError(f"the CPU backend cannot run {variant.name}")
        t0 = time.perf_counter()
        fn()  # the verified run, on the poisoned output
        first_ms = (time.perf_counter() - t0) * 1e3
        check = verify(c, inputs, variant.precision)
        if not check.valid:
            return new_result(job, variant, "invalid", check.reason, **check.result_fields())
        if variant.runner == "cpu-loop":
            samples = [first_ms] + time_host(fn, 0, repeats - 1, cancel)
        else:
            # the GPU's rules: until the noise is under the target or the cap, outliers and noise named
            sampler = sample_host(fn, warmup, sample_policy(settings), cancel)
            samples = sampler.summary()["samples_ms"]
            note = "; ".join(host_notes(sampler)) or None
            c.fill(np.nan)  # verify the last run too, on a fresh poison (the loop's minutes are not run again)
            fn()
            again = verify(c, inputs, variant.precision)
            if not again.valid:
                return new_result(
                    job,
                    variant,
                    "invalid",
                    f"right on the first run, wrong after: {again.reason}",
                    **again.result_fields(),
                )
        return new_result(
            job,
            variant,
            "ok",
            **check.result_fields(),
            noise=noise(samples),
            timing=TIMING_HOST_CLOCK,
            samples_ms=samples,
            warmup=warmup,
            repeats=repeats,
            note=note,
        )
