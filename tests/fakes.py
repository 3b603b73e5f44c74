"""A slow fake GPU backend for UI tests: real numpy results, verified, with a sleep per job."""

import time

import numpy as np

from gemmviz.core.measure.bench import Backend, Cancelled, new_result, poisoned_output, verify


class FakeGpuBackend(Backend):
    name = "cuda"

    def __init__(self, delay_s=0.2, available=True, fail_m=None):
        self.delay_s = delay_s
        self.available = available
        self.fail_m = fail_m

    def availability(self):
        return (True, "ok") if self.available else (False, "no CUDA device: fake backend switched off")

    def device_info(self):
        return {
            "name": "Fake GPU",
            "sms": 4,
            "compute_capability": "9.0",
            "memory_total_bytes": 2**33,
            "fp32_peak_gflops": 1000.0,
            "sm_clock_mhz": 1000.0,
            "max_sm_clock_mhz": 1000.0,
        }

    def open(self):
        return _FakeRun(self)


class _FakeRun:
    def __init__(self, backend):
        self.backend = backend

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def run(self, job, variant, inputs, settings, cancel):
        if self.backend.fail_m is not None and job.problem.m == self.backend.fail_m:
            raise RuntimeError("nvcc failed to compile fake.cu:\nfake.cu(1): error: expected a ';'")
        end = time.monotonic() + self.backend.delay_s
        while time.monotonic() < end:
            if cancel.is_set():
                raise Cancelled
            time.sleep(0.005)
        c = poisoned_output(job.problem)
        np.matmul(inputs.a, inputs.b, out=c)
        check = verify(c, inputs, variant.precision)
        samples = [self.backend.delay_s * 1e3 / 10] * settings.repeats
        return new_result(
            job,
            variant,
            "ok" if check.valid else "invalid",
            check.reason,
            **check.result_fields(),
            samples_ms=samples,
            warmup=settings.warmup,
            repeats=settings.repeats,
        )


class InstantGpu(Backend):
    """A 'cuda' backend whose jobs finish at once as ok; `before(job)` runs first (to break things mid-run).
    `ran` lists the sizes it ran."""

    name = "cuda"

    def __init__(self, before=None):
        self.before = before
        self.ran: list[int] = []

    def availability(self):
        return True, "ok"

    def device_info(self):
        return {"name": "Scripted GPU"}

    def open(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def run(self, job, variant, inputs, settings, cancel):
        if self.before:
            self.before(job)
        self.ran.append(job.problem.m)
        return new_result(
            job,
            variant,
            "ok",
            rel_error=0.0,
            samples_ms=[0.01] * settings.repeats,
            warmup=settings.warmup,
            repeats=settings.repeats,
        )
