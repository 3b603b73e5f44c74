"""A small engine run for compute-sanitizer: every GPU kernel variant and param at an odd size, or the variants
and shapes given (each variant with its default params).

compute-sanitizer --tool memcheck python3 tools/sanitize_job.py
compute-sanitizer --tool racecheck python3 tools/sanitize_job.py [VARIANT,... MxNxK,...]
"""

import sys

from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem

if len(sys.argv) == 3:
    sizes = [Problem(*map(int, s.split("x"))) for s in sys.argv[2].split(",")]
    jobs = plan_jobs(sys.argv[1].split(","), sizes)
else:
    variants = [v for v in VARIANTS.values() if v.runner == "kernel"]
    jobs = [job for v in variants for job in plan_jobs([v.name], [Problem(37, 53, 71)], dict(v.param_choices))]
results = Engine({"cuda": CudaBackend()}, BenchSettings(warmup=0, repeats=1)).run(jobs)
for r in results:
    print(f"{r.series:<24} {r.m}x{r.n}x{r.k} {r.status} {r.error or ''}")
raise SystemExit(0 if all(r.valid for r in results) else 1)
