"""The benchmark protocol: plan jobs, generate inputs, verify against float64, time, collect results.

Backends do the launching and timing; this module owns what every backend must honour: fresh random
inputs per size, a poisoned output, the float64 reference and the per-precision threshold, and that a
failed or refused job becomes a Result that says why, never an exception that stops a sweep.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import platform
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Protocol

import gemmviz
from gemmviz.core.kernels.variants import THRESHOLDS, VARIANTS, Variant, get_variant
from gemmviz.core.measure.timing import (
    DEFAULT_MAX_NOISE,
    DEFAULT_MAX_SAMPLES,
    DEFAULT_MAX_TIME_S,
    SamplePolicy,
    Sampler,
)
from gemmviz.core.measure.verify import Check, abs_product
from gemmviz.core.measure.verify import verify as verify_elements
from gemmviz.core.problem import Problem, ProblemError, check_host_memory
from gemmviz.core.session.results import Result, Session

if TYPE_CHECKING:  # numpy is imported where it is used: not on the window's first frame's path
    import numpy as np

DEFAULT_WARMUP = 3
DEFAULT_REPEATS = 20


@dataclass(frozen=True)
class Job:
    variant: str
    params: tuple[tuple[str, int], ...]
    problem: Problem

    @property
    def params_dict(self) -> dict[str, int]:
        return dict(self.params)

    @property
    def label(self) -> str:
        p = ", ".join(f"{k} {v}" for k, v in self.params)
        return f"{self.variant}{f' ({p})' if p else ''} {self.problem.label}"


@dataclass
class BenchSettings:
    warmup: int = DEFAULT_WARMUP
    repeats: int = DEFAULT_REPEATS
    cold_l2: bool = False
    allow_slow_cpu: bool = False
    cpu_limit_s: float = 60.0  # CPU-loop jobs estimated longer than this are refused unless allowed
    seed: int | None = None
    # A job still running after this many seconds is stopped at its next check (between launches or CPU
    # chunks) and reported failed; a kernel already running on the GPU cannot be interrupted.
    job_limit_s: float | None = 600.0
    trace: bool = False  # after the timed runs, one untimed launch of the instrumented build: Result.block_trace
    # GPU sampling (core/measure/timing.py): `repeats` is the least number of kept samples; more are taken until their
    # noise is under max_noise, or max_samples or max_time_s is reached.
    max_noise: float = DEFAULT_MAX_NOISE
    max_samples: int = DEFAULT_MAX_SAMPLES
    max_time_s: float = DEFAULT_MAX_TIME_S
    # "kernel": events queued behind a blocking kernel (the GPU's time only); "host": events around the host's
    # launch (what profilers need: ncu serialises launches, so a blocking kernel would wait out its timeout).
    timing: str = "kernel"
    # Kernel-only timing launches a short kernel up to this many times back to back per sample (1: never).
    max_batch: int = 64

    def __post_init__(self) -> None:
        if self.warmup < 0:
            raise ProblemError(f"warm-up must be 0 or more, got {self.warmup}")
        if self.repeats < 1:
            raise ProblemError(f"repeats must be at least 1, got {self.repeats}")
        if self.job_limit_s is not None and not self.job_limit_s > 0:
            raise ProblemError(f"the per-job time limit must be above 0 s, got {self.job_limit_s}")
        if self.timing not in ("kernel", "host"):
            raise ProblemError(f"timing must be 'kernel' or 'host', got {self.timing!r}")
        if not (0 <= self.max_noise <= 1) or not (0 < self.max_time_s < 3600) or not 1 <= self.max_samples <= 100_000:
            raise ProblemError("max noise must be within 0..1, max time within 0..3600 s, max samples within 1..100000")
        if not 1 <= self.max_batch <= 1000:
            raise ProblemError(f"max batch must be within 1..1000, got {self.max_batch}")
        if self.repeats > self.max_samples:
            self.max_samples = self.repeats
        if not (self.cpu_limit_s >= 0 and math.isfinite(self.cpu_limit_s)):  # NaN compares false: no limit at all
            raise ProblemError(
                f"the CPU-loop limit must be a finite number of seconds, 0 or more, got {self.cpu_limit_s}"
            )


def sample_policy(settings: BenchSettings) -> SamplePolicy:
    return SamplePolicy(settings.repeats, settings.max_samples, settings.max_noise, settings.max_time_s)


class Cancelled(Exception):
    """Raised inside a backend's timing loop when the user cancels; the engine records it."""


class BackendFatal(Exception):
    """The backend's state is lost (e.g. a failed launch poisoned the CUDA context); reopen it."""


class JobGuard:
    """The flag a backend checks between launches or CPU chunks (`is_set()`, like threading.Event): set when
    the user cancels, or when the job has run past its time limit. Backends raise Cancelled when it is set;
    the engine tells the two apart."""

    def __init__(self, cancel: threading.Event, limit_s: float | None):
        self.cancel = cancel
        self.limit_s = limit_s
        self.deadline = None if limit_s is None else time.monotonic() + limit_s

    @property
    def timed_out(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def is_set(self) -> bool:
        return self.cancel.is_set() or self.timed_out

    def wait(self, timeout: float) -> bool:
        """Sleep up to `timeout` s, waking early when the flag is set; returns is_set()."""
        end = time.monotonic() + timeout
        while not self.is_set() and time.monotonic() < end:
            self.cancel.wait(min(0.01, max(0.0, end - time.monotonic())))
        return self.is_set()


def plan_jobs(
    variants: Iterable[str], problems: Iterable[Problem], param_grid: Mapping[str, Iterable[int]] | None = None
) -> list[Job]:
    """Every variant at every size, and for each variant every combination of the params it has
    among `param_grid` (others at their defaults). Unknown variant names raise KeyError."""
    grid = {k: list(v) for k, v in (param_grid or {}).items()}
    chosen = [get_variant(v) for v in variants]
    jobs = []
    for problem in problems:
        for v in chosen:
            combos = [v.resolve_params()]
            for key, values in grid.items():
                if key in v.param_choices:
                    combos = [{**c, key: value} for c in combos for value in values]
            for c in combos:
                jobs.append(Job(v.name, tuple(sorted(c.items())), problem))
    return jobs


def verify(c: np.ndarray, inputs: Inputs, precision: str) -> Check:
    """Element-wise and norm check of c (m×n, the kernel's output) against the inputs' float64 reference."""
    return verify_elements(c, inputs.reference, inputs.bound, precision, inputs.problem.k)


def poisoned_output(problem: Problem) -> np.ndarray:
    import numpy as np

    return np.full((problem.m, problem.n), np.nan, dtype=np.float32)


@dataclass
class Inputs:
    """Fresh random inputs for one size, and their float64 reference (computed on first use)."""

    problem: Problem
    a: np.ndarray
    b: np.ndarray
    _reference: np.ndarray | None = field(default=None, repr=False)
    _bound: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def random(cls, problem: Problem, rng: np.random.Generator) -> Inputs:
        import numpy as np

        a = rng.standard_normal((problem.m, problem.k), dtype=np.float32)
        b = rng.standard_normal((problem.k, problem.n), dtype=np.float32)
        return cls(problem, a, b)

    @property
    def reference(self) -> np.ndarray:
        import numpy as np

        if self._reference is None:
            self._reference = self.a.astype(np.float64) @ self.b.astype(np.float64)
        return self._reference

    @property
    def bound(self) -> np.ndarray:
        """|A|·|B|, the scale of each element's rounding error (core/measure/verify.py)."""
        if self._bound is None:
            self._bound = abs_product(self.a, self.b)
        return self._bound


class Backend:
    """What the engine needs from a backend. `open()` returns a context manager whose object has
    `run(job, variant, inputs, settings, cancel) -> Result`; it lives in the calling thread."""

    name = "?"

    def availability(self) -> tuple[bool, str]:
        raise NotImplementedError

    def availability_message(self) -> dict | None:
        """Why it is unavailable, as a message (core/messages: a key and its parameters) the window says in its
        language; None where it has none (its reason is then shown as it is)."""
        return None

    def variant_availability(self, variant: Variant) -> tuple[bool, str]:
        return self.availability()

    def open(self):
        raise NotImplementedError

    def device_info(self) -> dict:
        return {}


class OpenBackend(Protocol):
    """What `Backend.open()` gives once entered: it runs jobs, and is closed with `__exit__` when the run ends or
    its state is lost (BackendFatal)."""

    def run(self, job: Job, variant: Variant, inputs, settings: BenchSettings, guard: JobGuard) -> Result: ...

    def __exit__(self, *exc: object) -> object: ...


def new_result(job: Job, variant: Variant, status: str, error: str | None = None, **kw) -> Result:
    return Result(
        variant=job.variant,
        params=job.params_dict,
        m=job.problem.m,
        n=job.problem.n,
        k=job.problem.k,
        backend=variant.backend,
        precision=variant.precision,
        valid=status == "ok",
        status=status,
        error=error,
        threshold=THRESHOLDS[variant.precision],
        **kw,
    )


ProgressFn = Callable[[int, int, str], None]
ResultFn = Callable[[Result], None]


class Engine:
    """Runs jobs in the calling thread. Backends are opened lazily and closed before `run` returns,
    so a CUDA context lives exactly as long as one run, in the thread that made it."""

    def __init__(self, backends: dict[str, Backend], settings: BenchSettings | None = None):
        # Core never imports the backends: the app and the CLI compose them (gemmviz.backends.default_backends).
        self.backends = backends
        self.settings = settings or BenchSettings()

    def run(
        self,
        jobs: list[Job],
        on_result: ResultFn | None = None,
        on_progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> list[Result]:
        import numpy as np

        cancel = cancel or threading.Event()
        rng = np.random.default_rng(self.settings.seed)
        results: list[Result] = []
        opened: dict[str, OpenBackend] = {}
        inputs: Inputs | ProblemError | None = None
        inputs_for: Problem | None = None
        try:
            for index, job in enumerate(jobs):
                if on_progress:
                    on_progress(index, len(jobs), job.label)
                if cancel.is_set():
                    break
                variant = get_variant(job.variant)
                if inputs_for != job.problem:
                    inputs = None  # free the previous size's arrays before making new ones
                    inputs, inputs_for = self._inputs(job.problem, rng), job.problem
                result = self._run_one(job, variant, inputs, opened, cancel)
                results.append(result)
                if on_result:
                    on_result(result)
            if on_progress and not cancel.is_set():
                on_progress(len(jobs), len(jobs), "done")
        finally:
            for ctx in opened.values():
                try:
                    ctx.__exit__(None, None, None)
                except Exception:  # a broken backend must not hide the results (or the exception) above
                    pass
        return results

    def _inputs(self, problem: Problem, rng: np.random.Generator) -> Inputs | ProblemError:
        """The size's inputs, or the refusal every job of that size reports (too big for host memory)."""
        try:
            check_host_memory(problem)
            return Inputs.random(problem, rng)
        except ProblemError as exc:
            return exc
        except MemoryError:
            return ProblemError(f"{problem.label}: out of host memory generating the inputs")

    def _run_one(
        self, job: Job, variant: Variant, inputs, opened: dict[str, OpenBackend], cancel: threading.Event
    ) -> Result:
        guard = JobGuard(cancel, self.settings.job_limit_s)
        result = self._attempt(job, variant, inputs, opened, guard)
        if result.status == "cancelled" and not cancel.is_set() and guard.timed_out:
            return new_result(
                job,
                variant,
                "failed",
                f"stopped after the per-job time limit of {guard.limit_s:g} s "
                "(a hung or very slow job); raise the limit to let it run",
            )
        return result

    def _attempt(self, job: Job, variant: Variant, inputs, opened: dict[str, OpenBackend], guard: JobGuard) -> Result:
        backend = self.backends.get(variant.backend)
        if backend is None:
            return new_result(job, variant, "unavailable", f"no {variant.backend} backend")
        ok, reason = backend.variant_availability(variant)
        if not ok:
            return new_result(job, variant, "unavailable", reason)
        refusal = variant.refusal(job.problem, job.params_dict)
        if refusal:
            return new_result(job, variant, "refused", refusal)
        if isinstance(inputs, ProblemError):
            return new_result(job, variant, "refused", str(inputs))
        try:
            ctx = opened.get(variant.backend)
            if ctx is None:
                ctx = backend.open().__enter__()
                opened[variant.backend] = ctx
            return ctx.run(job, variant, inputs, self.settings, guard)
        except Cancelled:
            return new_result(job, variant, "cancelled", "cancelled by the user")
        except ProblemError as exc:
            return new_result(job, variant, "refused", str(exc))
        except BackendFatal as exc:
            # Close the broken state now; the next job of this backend opens a fresh one in this thread.
            ctx = opened.pop(variant.backend, None)
            if ctx is not None:
                try:
                    ctx.__exit__(None, None, None)
                except Exception:  # the context is already broken; what matters is the next job
                    pass
            return new_result(job, variant, "failed", f"{exc} (the {variant.backend} backend was reopened)")
        except MemoryError:
            return new_result(job, variant, "refused", f"out of host memory running {job.label}")
        except Exception as exc:  # one broken job must not stop a sweep
            return new_result(job, variant, "failed", f"{type(exc).__name__}: {exc}")


def environment(backends: dict[str, Backend]) -> dict:
    import numpy as np

    env: dict[str, object] = {
        "gemmviz": gemmviz.__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "os": platform.platform(),
        "cpu": cpu_name(),
        "cpu_count": os.cpu_count(),
    }
    per_backend: dict[str, dict] = {}
    env["backends"] = per_backend
    for name, backend in backends.items():
        ok, reason = backend.availability()
        entry: dict[str, object] = {"available": ok, "reason": reason}
        if ok:
            entry.update(backend.device_info())
        elif (why := backend.availability_message()) is not None:
            entry["reason_message"] = why
        per_backend[name] = entry
    env["variants"] = {
        v.name: list(backends[v.backend].variant_availability(v))
        if v.backend in backends
        else [False, f"no {v.backend} backend"]
        for v in VARIANTS.values()
    }
    return env


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def make_session(results: list[Result], backends: dict[str, Backend], settings: BenchSettings, extra=None) -> Session:
    return Session(
        results=results,
        environment=environment(backends),
        settings={**asdict(settings), **(extra or {})},
        created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        kind="measured",
    )


def sample_host(
    fn: Callable[[], None], warmup: int, policy: SamplePolicy, cancel: threading.Event | JobGuard
) -> Sampler:
    """Wall-clock samples of a synchronous host function, after warm-ups, by the GPU's rules (core/measure/timing.py):
    at least `policy.min_samples`, then until the noise is under the target or the cap of samples or time."""
    for _ in range(warmup):
        if cancel.is_set():
            raise Cancelled
        fn()
    sampler = Sampler(policy)
    start = time.perf_counter()
    while not sampler.done(time.perf_counter() - start):
        if cancel.is_set():
            raise Cancelled
        t0 = time.perf_counter()
        fn()
        sampler.add((time.perf_counter() - t0) * 1e3)
    return sampler


def time_host(fn: Callable[[], None], warmup: int, repeats: int, cancel: threading.Event | JobGuard) -> list[float]:
    """Wall-clock samples in ms of a synchronous host function, after warm-ups."""
    for _ in range(warmup):
        if cancel.is_set():
            raise Cancelled
        fn()
    samples = []
    for _ in range(repeats):
        if cancel.is_set():
            raise Cancelled
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e3)
    return samples
