"""The counters behind the gap view (issue 34, item 4): kernel-only timing and Nsight Compute metrics of each
kernel at 4096^3, in one run, into assets/sessions/h200-DATE-gap.json (schema gemmviz-gap-metrics).

    source .device/env.sh && python3 benchmarks/gap_metrics.py --out $OUT/gap.json

Step 1 times every kernel with gemmviz's engine (CUDA events around the kernel alone, median of at least 20
samples, the bench's verification). Step 2 runs Nsight Compute over a child `gemmviz bench` of each job (the
same child `gemmviz profile` uses: warm-ups first, the timed launch profiled, --clock-control none) with the
metrics below; a metric ncu rejects is dropped, named under "rejected" in the command line's log.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import re
import shlex
import sys
from pathlib import Path

STALLS = (
    "long_scoreboard short_scoreboard mio_throttle math_pipe_throttle barrier wait not_selected selected dispatch_stall "
    "lg_throttle no_instruction membar sleeping branch_resolving drain misc tex_throttle imc_miss"
).split()
METRICS = [
    "sm__cycles_elapsed.avg",
    "gpu__time_duration.sum",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "sm__inst_executed.avg.per_cycle_active",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
    "smsp__inst_executed.sum",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "lts__t_sector_hit_rate.pct",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "launch__grid_size",
    "launch__block_size",
    "launch__waves_per_multiprocessor",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    *[f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio" for r in STALLS],
]
# (variant, params) in the order of the brief
KERNELS = [
    ("cublas", {}),
    ("gpu-cpasync", {}),
    ("gpu-cpasync-any", {}),
    ("gpu-warptile", {}),
    ("gpu-tiled", {"tile": 16}),
    ("gpu-wgmma-tf32", {}),
    ("cublas-tf32", {}),
]


def profile_all(jobs, results, metrics: list[str], seed: int) -> tuple[list[dict | None], list[str]]:
    """Each job's counters (None where ncu gave none) and the metric names ncu rejected."""
    from gemmviz.backends.profile import ProfileError, run_profile
    from gemmviz.cli.profile import match_rows, plan_steps

    rejected: list[str] = []
    out: list[dict | None] = []
    for step in plan_steps(jobs, results, seed):
        while True:
            try:
                rows = run_profile(step.argv, step.kernel_regex, metrics, launch_count=step.launch_count)
                break
            except ProfileError as exc:
                bad = re.search(r"does not know the metric (\S+)", str(exc))
                name = bad and bad.group(1).strip(",.")
                if name and name in metrics:
                    rejected.append(name)
                    metrics = [m for m in metrics if m != name]
                    print(f"ncu rejected {name}; dropped", file=sys.stderr)
                    continue
                print(f"ncu failed for {step.jobs[0].variant}: {exc}", file=sys.stderr)
                rows = []
                break
        matched = match_rows(step, rows) if rows else [(None, "no rows")] * len(step.jobs)
        for job, (row, why) in zip(step.jobs, matched):
            print(f"{job.variant}: {'counters' if row else why}", file=sys.stderr)
            out.append({m: row["counters"].get(m) for m in metrics if m in row["counters"]} if row else None)
    return out, rejected


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--out", required=True)
    ap.add_argument("--variants", help="only these of KERNELS (comma-separated)")
    ap.add_argument("--metrics", help="only these metrics (comma-separated), e.g. a name ncu left empty, again")
    args = ap.parse_args()
    chosen = [(v, p) for v, p in KERNELS if not args.variants or v in args.variants.split(",")]
    metrics = args.metrics.split(",") if args.metrics else list(METRICS)

    from gemmviz.backends import default_backends
    from gemmviz.core.bench import BenchSettings, Engine, Job
    from gemmviz.core.problem import Problem

    p = Problem(args.size, args.size, args.size)
    jobs = [Job(v, tuple(sorted(params.items())), p) for v, params in chosen]
    backends = default_backends()
    results = Engine(backends, BenchSettings(warmup=3, repeats=20, seed=0)).run(jobs)
    for r in results:
        print(f"{r.series:<28} {r.status:<8} {r.median_ms} ms  {r.error or ''}", file=sys.stderr)
    counters, rejected = profile_all(jobs, results, metrics, 0)
    kernels = []
    for (variant, params), r, c in zip(chosen, results, counters):
        kernels.append(
            {
                "variant": variant,
                "params": params,
                "m": p.m,
                "n": p.n,
                "k": p.k,
                "median_ms": r.median_ms if r.valid else None,
                "metrics": {k: v for k, v in (c or {}).items() if v is not None},
            }
        )
    doc = {
        "schema": "gemmviz-gap-metrics",
        "schema_version": 1,
        "gpu": backends["cuda"].device_info().get("name"),
        "created": _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat(),
        "command": "python3 " + " ".join(shlex.quote(x) for x in ["benchmarks/gap_metrics.py", *sys.argv[1:]]),
        "kernels": kernels,
    }
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    if rejected:
        print("rejected metrics: " + ", ".join(rejected))
    for k in kernels:
        mt = k["metrics"]
        print(
            f"{k['variant']:<16} {k['median_ms']} ms  fma {mt.get(METRICS[4])}  gmma {mt.get(METRICS[5])}  "
            f"issue {mt.get(METRICS[2])}  L2 hit {mt.get(METRICS[8])}  ({len(mt)} metrics)  {mt if args.metrics else ''}"
        )


if __name__ == "__main__":
    main()
