"""A small engine run for compute-sanitizer: every GPU kernel variant and param at an odd size.

compute-sanitizer --tool memcheck python3 tools/sanitize_job.py
compute-sanitizer --tool racecheck python3 tools/sanitize_job.py
"""

from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem

variants = [v for v in VARIANTS.values() if v.runner == "kernel"]
jobs = [job for v in variants for job in plan_jobs([v.name], [Problem(37, 53, 71)], dict(v.param_choices))]
results = Engine({"cuda": CudaBackend()}, BenchSettings(warmup=0, repeats=1)).run(jobs)
for r in results:
    print(f"{r.series:<24} {r.status} {r.error or ''}")
raise SystemExit(0 if all(r.valid for r in results) else 1)
