"""What a run step (`run = true`) measures live on a GPU: its series, missing params at their defaults, at its
sizes (RUN_SIZES where it names none), less the jobs the registry refuses."""

from __future__ import annotations

from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.lesson.model import Step
from gemmviz.core.measure.bench import Job
from gemmviz.core.problem import Problem

RUN_SIZES = (1024, 2048, 4096)  # what a run step measures when it names no sizes


def step_jobs(step: Step) -> list[Job]:
    """The jobs a run step measures: its series (missing params at their defaults) at its sizes, less
    the ones the registry refuses (a CPU loop that would take minutes, say)."""
    jobs = []
    for ref in step.series:
        v = VARIANTS[ref.variant]
        params = {**v.param_defaults, **dict(ref.params)}
        for n in step.sizes or RUN_SIZES:
            problem = Problem(n, n, n)
            if v.refusal(problem, params) is None:
                jobs.append(Job(ref.variant, tuple(sorted(params.items())), problem))
    return jobs
