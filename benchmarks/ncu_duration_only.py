"""Nsight Compute's duration of every launch of one job, with gpu__time_duration alone (one replay pass), to see
whether the full counter set's replay changes the duration and which launch differs from the app's median.

    python3 benchmarks/ncu_duration_only.py gpu-warptile 1024 [--cache-control none|all]
"""

from __future__ import annotations

import argparse

from gemmviz.backends.profile import run_profile
from gemmviz.cli.profile import child_argv, launches_per_job
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.bench import plan_jobs
from gemmviz.core.problem import Problem


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("variant")
    ap.add_argument("size", type=int)
    ap.add_argument("--cache-control", default="none", choices=("none", "all"))
    a = ap.parse_args()
    jobs = plan_jobs([a.variant], [Problem(a.size, a.size, a.size)])
    v = VARIANTS[a.variant]
    regex = f"^{v.kernel_name}$" if v.runner == "kernel" else "."
    rows = run_profile(
        child_argv(jobs, 0),
        regex,
        ["gpu__time_duration.sum"],
        launch_count=launches_per_job("ok"),
        cache_control=a.cache_control,
    )
    names = ["check", *(f"warm-up {i + 1}" for i in range(launches_per_job("ok") - 3)), "timed", "check after"]
    for name, row in zip(names, rows):
        print(
            f"{a.variant} {a.size}^3 {name:12} {row['kernel'][:40]:40} {row['counters']['gpu__time_duration.sum'] / 1e3:9.2f} us"
        )


if __name__ == "__main__":
    main()
