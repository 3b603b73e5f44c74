"""The gpu tests' one loop: a variant run through the engine under a configuration override at each of some
shapes, each result checked as a test of a build must check it (CudaRun.run verifies C element-wise against
float64 on NaN-poisoned memory before and after its timed launches)."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator

import pytest

from gemmviz.backends.cuda import CudaRun
from gemmviz.core.kernels.variants import Variant
from gemmviz.core.measure.bench import BenchSettings, Inputs, JobGuard, plan_jobs
from gemmviz.core.problem import Problem
from gemmviz.core.session.results import Result


def checked_runs(
    variant: Variant,
    config: dict,
    shapes: Iterable[Problem],
    settings: BenchSettings,
    seed: int,
    what: str = "",
    needs_cc: tuple[int, int] | None = None,
) -> Iterator[Result]:
    """Each shape's result, after its checks: ran, every element of C written, the error within its bound.
    `needs_cc`: the test is skipped on an older GPU."""
    import numpy as np

    rng = np.random.default_rng(seed)
    with CudaRun() as run:
        if needs_cc is not None and run.cc < needs_cc:
            pytest.skip(f"needs compute capability {needs_cc[0]}.{needs_cc[1]}")
        run.config_override[variant.name] = config
        for p in shapes:
            (job,) = plan_jobs([variant.name], [p])
            r = run.run(job, variant, Inputs.random(p, rng), settings, JobGuard(threading.Event(), 120))
            assert r.status == "ok", f"{what} {p.label}: {r.error}"
            assert r.unwritten == 0 and r.rel_error <= r.threshold, (what, p.label, r.error)
            yield r
