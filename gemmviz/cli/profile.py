"""`gemmviz profile`: the normal event-timed bench, then Nsight Compute counters for the same jobs.

Step 1 times and verifies the jobs exactly as `gemmviz bench` does (optionally with the block trace); the
timings never come from ncu. Step 2 runs ncu over child `python -m gemmviz bench --repeats 1 --warmup 0`
processes of the same jobs and attaches each job's counters (keyed by ncu's metric names) to its result.

With --repeats 1 --warmup 0 a gemmviz kernel job launches its kernel twice when it verifies (the checked
launch, then the one timed launch), once when it is invalid, never when it is refused or failed. All jobs
of a kernel variant share one child; their launches are matched in order, by the kernel's name, and each
job takes its first (checked) launch. cuBLAS (and other library) jobs get a child each: its launches are
two identical calls, and the job takes the first half.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gemmviz.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    CommandError,
    Output,
    Progress,
    UsageError,
    check_outputs,
    variant_list,
    whole_number,
)
from gemmviz.cli.limits import check_run_limits, param_grid, supported_jobs
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.parsing import parse_sizes
from gemmviz.core.text import printable

MAX_LIBRARY_LAUNCHES = 64  # a cuBLAS call launches one kernel or a few; ncu stops after this many


def add_parsers(sub: argparse._SubParsersAction) -> None:
    gpu = [v.name for v in VARIANTS.values() if v.backend == "cuda"]
    p = sub.add_parser("profile", help="bench GPU variants, then attach Nsight Compute counters to each result")
    p.add_argument("--variants", required=True, help=f"comma-separated, among {', '.join(gpu)}")
    p.add_argument("--sizes", default="", help="square sizes, e.g. 1024,4096")
    p.add_argument("--mnk", action="append", help="a non-square size MxNxK (repeatable)")
    p.add_argument("--tile", default="", help="tile sizes for variants that have one, e.g. 8,16,32")
    p.add_argument("--block", default="", help="block edges for the naive kernels, e.g. 16,32")
    p.add_argument("--repeats", type=whole_number, default=20, help="timed launches per job in the bench step")
    p.add_argument("--warmup", type=whole_number, default=3, help="untimed launches before timing")
    p.add_argument("--seed", type=whole_number, default=0, help="random seed for the inputs (bench and ncu runs)")
    p.add_argument("--trace", action="store_true", help="also record each job's block trace (one untimed launch)")
    p.add_argument("--out", required=True, help="session JSON to write (after the bench, then after each ncu run)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--duration-only",
        action="store_true",
        help="only Nsight Compute's kernel duration (one replay pass per launch), no other counters",
    )
    p.add_argument(
        "--accesses",
        action="store_true",
        help="also record each kernel job's memory accesses (compute-sanitizer tracer) into "
        "OUT.accesses.json.gz: sectors, lines and bank conflicts from real addresses",
    )
    p.add_argument(
        "--access-blocks",
        default="auto",
        help="blocks to trace: 'auto' (one interior, one edge block) or 'x,y[,z];x,y[,z]'",
    )
    p.add_argument("--access-cap", type=whole_number, default=262_144, help="warp requests the tracer stores at most")
    p.add_argument(
        "--gap",
        action="store_true",
        help="also record the gap view's metrics (issue slots, pipes, stall reasons, waves, L2, DRAM) and write "
        "OUT-gap.json beside the session (a metric ncu does not know is dropped and named)",
    )
    p.add_argument(
        "--pipeline",
        action="store_true",
        help="also record gpu-wgmma-tf32's pipeline on one SM (an instrumented build: TMA copies, mbarrier waits, "
        "wgmma batches per warpgroup) at the first size, into OUT-pipeline.json",
    )
    p.add_argument("--pipeline-sm", type=whole_number, default=0, help="the SM whose first blocks --pipeline traces")
    p.set_defaults(func=cmd_profile)


@dataclass
class Step:
    """One ncu run: a child bench of `jobs` (all of one variant), and how to pick each job's launch."""

    jobs: list  # core.measure.bench.Job, in the order the child runs them
    argv: list[str]
    kernel_regex: str
    launch_count: int
    per_kernel: bool  # True: gemmviz kernel, launches matched by name in order; False: library, first half
    results: list = field(default_factory=list)  # the bench step's Result for each job


CALL_DURATION = "gemmviz__call_time_duration.sum"  # ns: every kernel of one library call, summed
CHILD_WARMUP = 3  # the child's warm-ups, as the timed samples had: its profiled launch sees the same warm state


def launches_per_job(status: str) -> int:
    """How often a gemmviz kernel job launches its kernel with --repeats 1 --warmup CHILD_WARMUP --timing host
    and no trace: the checked launch, the warm-ups, the timed one and the check after timing (an invalid job
    stops after the first)."""
    return {"ok": 3 + CHILD_WARMUP, "invalid": 1}.get(status, 0)


DURATION = "gpu__time_duration.sum"


def merge_passes(duration_rows: Sequence[dict], rows: Sequence[dict]) -> list[dict]:
    """The counters pass's rows with each launch's duration from the duration-only pass (same launches, in
    order); if the two passes saw different launches, the counters pass's rows alone (with its durations)."""
    if len(duration_rows) != len(rows):
        return list(rows)
    out = []
    for d, r in zip(duration_rows, rows):
        counters = dict(r["counters"])
        if d["counters"].get(DURATION) is not None:
            counters[DURATION] = d["counters"][DURATION]
        out.append({**r, "counters": counters})
    return out


def profiled_launch(status: str) -> int:
    """Which of a job's launches gets its counters: the timed one, after the warm-ups (the caches, TLBs and
    clocks as the timed samples saw them)."""
    return 1 + CHILD_WARMUP if status == "ok" else 0


def child_argv(jobs: Sequence, seed: int, python: str = sys.executable) -> list[str]:
    """`python -m gemmviz bench` that plans exactly `jobs` (one variant, its sizes and params in order)."""
    variant = jobs[0].variant
    # --timing host: under ncu every launch is serialised, so a blocking kernel would wait out its timeout.
    argv = [
        python,
        "-m",
        "gemmviz",
        "bench",
        "--variants",
        variant,
        "--repeats",
        "1",
        "--warmup",
        str(CHILD_WARMUP),
        "--seed",
        str(seed),
        "--quiet",
        "--no-record-command",
        "--job-limit",
        "600",
        "--timing",
        "host",
    ]
    for key in dict.fromkeys(j.problem.key for j in jobs):
        argv += ["--mnk", key]
    keys = dict.fromkeys(k for j in jobs for k, _ in j.params)
    for key in keys:
        if key in ("tile", "block"):
            values = dict.fromkeys(str(j.params_dict[key]) for j in jobs)
            argv += [f"--{key}", ",".join(values)]
    return argv


def plan_steps(jobs: Sequence, results: Sequence, seed: int, python: str = sys.executable) -> list[Step]:
    """The ncu runs that cover every job: one per gemmviz kernel variant, one per library job."""
    steps: list[Step] = []
    by_variant: dict[str, Step] = {}
    for job, result in zip(jobs, results):
        variant = VARIANTS[job.variant]
        if variant.runner == "kernel" and variant.kernel_name:
            step = by_variant.get(job.variant)
            if step is None:
                regex = f"^{re.escape(variant.kernel_name)}$"
                step = by_variant[job.variant] = Step([], [], regex, 0, True)
                steps.append(step)
            step.jobs.append(job)
            step.results.append(result)
            step.launch_count += launches_per_job(result.status)
        elif result.status in ("ok", "invalid"):
            steps.append(Step([job], [], ".", MAX_LIBRARY_LAUNCHES, False, [result]))
    for step in steps:
        step.argv = child_argv(step.jobs, seed, python)
    return [s for s in steps if s.launch_count > 0]


def match_rows(step: Step, rows: Sequence[dict]) -> list[tuple[dict | None, str | None]]:
    """For each job of the step: (ncu row of its checked launch, None) or (None, why not)."""
    if not step.per_kernel:
        calls = launches_per_job(step.results[0].status)
        if not rows or not calls or len(rows) % calls:
            return [(None, f"ncu saw {len(rows)} kernel launches, expected {calls} identical calls")]
        timed = library_call(step, rows)
        per_call = len(timed)
        main = max(timed, key=lambda r: r["counters"].get("gpu__time_duration.sum") or 0)
        if per_call > 1:  # the call's GPU time is all its kernels: kept beside the main kernel's counters
            total = sum(r["counters"].get("gpu__time_duration.sum") or 0 for r in timed)
            main = {**main, "counters": {**main["counters"], CALL_DURATION: total}}
        return [
            (
                main,
                None
                if per_call == 1
                else f"counters of {main['kernel']}, the longest of {per_call} kernels one call launched",
            )
        ]
    expected = sum(launches_per_job(r.status) for r in step.results)
    if len(rows) != expected:
        why = f"ncu saw {len(rows)} launches of {step.kernel_regex}, expected {expected}; counters not attached"
        return [(None, why)] * len(step.jobs)
    out: list[tuple[dict | None, str | None]] = []
    i = 0
    for result in step.results:
        n = launches_per_job(result.status)
        out.append(
            (rows[i + profiled_launch(result.status)], None)
            if n
            else (None, f"no counters: the job was {result.status}")
        )
        i += n
    return out


def library_call(step: Step, rows: Sequence[dict]) -> list[dict]:
    """The rows of a library job's timed call (after its warm-ups): every kernel that one call launched, in
    order. The caller has checked that the rows are whole calls."""
    per_call = len(rows) // launches_per_job(step.results[0].status)
    pick = profiled_launch(step.results[0].status)
    return list(rows[pick * per_call : (pick + 1) * per_call])


Runner = Callable[..., list[dict]]


def attach(step: Step, rows: Sequence[dict]) -> int:
    """Put each matched row's counters on its result (and say why not in the note). Returns how many got none."""
    missing = 0
    for result, (row, why) in zip(step.results, match_rows(step, rows)):
        if row is not None:
            result.counters = dict(row["counters"])
            if not step.per_kernel and VARIANTS[result.variant].runner == "cublas":
                # which kernels cuBLAS chose for this shape: what a percentage of cuBLAS is a percentage of
                result.cublas_kernels = [str(r["kernel"]) for r in library_call(step, rows)]
        else:
            missing += 1
        if why:
            result.note = "; ".join(filter(None, [result.note, why]))
    return missing


def cmd_profile(args: argparse.Namespace, runner: Runner | None = None, pipeline_recorder=None) -> int:
    from gemmviz.backends import default_backends
    from gemmviz.backends.profile import NCU_MISSING, ProfileError, find_ncu, run_profile
    from gemmviz.core.measure.bench import BenchSettings, Engine, make_session, plan_jobs

    variants = variant_list(args.variants)
    check_run_limits(args)
    not_gpu = [v for v in variants if VARIANTS[v].backend != "cuda"]
    if not_gpu:
        raise UsageError(f"{', '.join(not_gpu)} does not run on the GPU: Nsight Compute profiles GPU kernels only")
    problems = parse_sizes(args.sizes, args.mnk)
    grid = param_grid(args, variants)
    settings = BenchSettings(warmup=args.warmup, repeats=args.repeats, seed=args.seed, trace=args.trace)
    out, access_out = check_profile_outputs(args)
    backends = default_backends()
    ok, reason = backends["cuda"].availability()
    if not ok:
        raise CommandError(f"profiling needs a CUDA GPU: {reason}")
    if runner is None:
        if find_ncu() is None:
            raise CommandError(NCU_MISSING)
        runner = run_profile
    jobs = plan_jobs(variants, problems, grid)
    jobs, skipped = supported_jobs(jobs, grid)
    for note in skipped:
        print(f"note: {note}: skipped", file=sys.stderr)
    command = "gemmviz " + " ".join(sys.argv[1:])
    session = make_session(
        [],
        backends,
        settings,
        {
            "variants": variants,
            "command": command,
            "counters": "Nsight Compute, replayed launches of a separate --repeats 1 run; timings from CUDA events",
        },
    )

    output = Output("session", out, session.save)

    def save(result) -> None:
        session.results.append(result)
        output.save()

    with Progress(enabled=False if args.quiet else None) as progress:
        Engine(backends, settings).run(jobs, on_result=save, on_progress=progress)
    results = session.results
    steps = plan_steps(jobs, results, args.seed)
    missing = sum(1 for r in results if r.status not in ("ok", "invalid"))
    dropped: list[str] = []  # gap metrics ncu does not know on this GPU
    for n, step in enumerate(steps, 1):
        print(f"ncu {n}/{len(steps)}: {step.jobs[0].variant}, {len(step.jobs)} job(s)", file=sys.stderr)
        cache = "all" if settings.cold_l2 else "none"
        try:
            # The duration in a pass of its own: replaying a launch for the other counters' passes changed it
            # (gpu-warptile at 1024^3 on the H200: 72.8 us alone, 86 us among 19 metrics; its median 74.3 us).
            rows = runner(step.argv, step.kernel_regex, [DURATION], launch_count=step.launch_count, cache_control=cache)
            if not args.duration_only:
                full = counters_pass(runner, step, counter_metrics(args.gap), cache, dropped)
                rows = merge_passes(rows, full)
        except ProfileError as exc:
            where = "are not saved" if output.lost else f"are saved in {output.path}"
            raise CommandError(f"{exc} (timings {where})") from None
        missing += attach(step, rows)
        output.save()
    access_failures = record_accesses_into(args, jobs, results, session, runner, access_out) if args.accesses else []
    access_failures += write_hardware_files(args, session, problems, dropped, pipeline_recorder)
    for r in results:
        shown = "no counters" if r.counters is None else f"{len(r.counters)} counters"
        print(f"{r.series:<28} {r.problem.label:<14} {r.status:<10} {shown}  {r.note or r.error or ''}".rstrip())
    print(printable(output.report()), file=sys.stderr)
    if output.failed:
        print(printable(f"gemmviz: could not write {out} (see above)"), file=sys.stderr)
    for line in access_failures:
        print(f"gemmviz: {line}", file=sys.stderr)
    if missing or output.failed or access_failures or not all(r.valid for r in results):
        print(f"gemmviz: {missing} of {len(results)} jobs have no counters or did not verify", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def counter_metrics(gap: bool) -> list[str]:
    """The counters pass's metrics: gemmviz's, and with --gap the gap view's (core/hardware/gap.py) too; the duration has a
    pass of its own."""
    from gemmviz.core.hardware.counters import METRIC_NAMES
    from gemmviz.core.hardware.gap import GAP_METRICS

    names = [*METRIC_NAMES, *(GAP_METRICS if gap else ())]
    return [m for m in dict.fromkeys(names) if m != DURATION]


def counters_pass(runner: Runner, step: Step, metrics: list[str], cache: str, dropped: list[str]) -> list[dict]:
    """One ncu run of the step's counters. A gap metric ncu does not know on this GPU is dropped (and noted in
    `dropped`) and the run repeated without it; any other failure is raised."""
    from gemmviz.backends.profile import ProfileError, droppable_gap_metric

    metrics = [m for m in metrics if m not in dropped]
    while True:
        try:
            return runner(step.argv, step.kernel_regex, metrics, launch_count=step.launch_count, cache_control=cache)
        except ProfileError as exc:
            name = droppable_gap_metric(exc.missing_metric, metrics)
            if name is None:
                raise
            print(f"note: ncu does not know {name} on this GPU: dropped from the gap metrics", file=sys.stderr)
            dropped.append(name)
            metrics = [m for m in metrics if m != name]


def write_hardware_files(args, session, problems, dropped: list[str], recorder=None) -> list[str]:
    """--gap's and --pipeline's files beside the session; returns a line per failure."""
    from gemmviz.core.fileio import OutputError, write_atomic

    failures = []
    command = "gemmviz " + " ".join(sys.argv[1:])
    gpu = session.environment.get("backends", {}).get("cuda", {}).get("name") or "unknown GPU"
    made = []
    if args.gap:
        from gemmviz.core.hardware.gap import gap_document, gap_path

        if dropped:
            command += f"  # ncu did not know: {', '.join(dropped)}"
        made.append((gap_path(args.out), lambda: gap_document(session.results, gpu, session.created, command)))
    if args.pipeline:
        from gemmviz.core.hardware.pipeline_trace import pipeline_path

        made.append((pipeline_path(args.out), lambda: pipeline_file(args, problems[0], command, recorder)))
    for path, build in made:
        try:
            doc = build()
            write_atomic(path, json.dumps(doc, indent=1 if args.gap and path.endswith("-gap.json") else None) + "\n")
            print(printable(f"wrote {path}"), file=sys.stderr)
        except (ValueError, OutputError, RuntimeError, OSError) as exc:  # the driver's errors are RuntimeErrors
            failures.append(f"{path}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
    return failures


def pipeline_file(args, problem, command: str, recorder=None) -> dict:
    """The pipeline trace of gpu-wgmma-tf32 at `problem` on SM --pipeline-sm, recorded and checked (a launch whose
    checked rows are wrong is refused, not written)."""
    import datetime as _dt

    from gemmviz.core.hardware.pipeline_trace import events_from_stamps, pipeline_document

    if recorder is None:
        from gemmviz.backends.pipeline import record_stamps as recorder
    from gemmviz.backends.pipeline import TF32_TOLERANCE

    stamps = recorder(problem.m, problem.n, problem.k, sm=args.pipeline_sm, seed=args.seed)
    if not stamps.rel_error <= TF32_TOLERANCE:
        raise ValueError(f"the instrumented launch computed a wrong C (relative error {stamps.rel_error:.2e})")
    events = events_from_stamps(stamps.events, stamps.tiles, int(stamps.config.get("STAGES", 1)))
    if not events:
        raise ValueError(f"no block of gpu-wgmma-tf32 ran on SM {args.pipeline_sm}: nothing was traced")
    meta = {
        "gpu": stamps.gpu,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "command": command,
        "variant": "gpu-wgmma-tf32",
        "params": {k: int(v) for k, v in stamps.config.items()},
        "m": problem.m,
        "n": problem.n,
        "k": problem.k,
        "sm": args.pipeline_sm,
        "clock": "clock64",
    }
    return pipeline_document(events, meta)


def check_profile_outputs(args: argparse.Namespace) -> tuple:
    """(--out, the access-record file beside it or None), checked and held before any work, with --gap's and
    --pipeline's files beside it."""
    from gemmviz.core.hardware.gap import gap_path
    from gemmviz.core.hardware.pipeline_trace import pipeline_path

    outputs = [("--out", args.out, (".json",))]
    if getattr(args, "gap", False):
        outputs.append(("--gap", gap_path(args.out), (".json",)))
    if getattr(args, "pipeline", False):
        if not 0 <= args.pipeline_sm < 1024:
            raise UsageError("--pipeline-sm: give an SM number from 0")
        outputs.append(("--pipeline", pipeline_path(args.out), (".json",)))
    if not args.accesses:
        return check_outputs(*outputs)[0], None
    from gemmviz.core.hardware.accesses import companion_path

    if not 1 <= args.access_cap <= 2**24:
        raise UsageError("--access-cap: give 1 .. 16,777,216 warp requests")
    if not re.fullmatch(r"auto|[0-9]+,[0-9]+(,[0-9]+)?(;[0-9]+,[0-9]+(,[0-9]+)?){0,3}", args.access_blocks):
        raise UsageError(f"--access-blocks {args.access_blocks!r}: give 'auto' or up to 4 blocks 'x,y[,z];x,y[,z]'")
    held = check_outputs(*outputs, ("--accesses", companion_path(args.out), (".gz",)))
    return held[0], held[-1]


def record_accesses_into(args, jobs, results, session, runner, path) -> list[str]:
    """The access tracer's step (cli/profile_accesses.py): its file written, its failures as lines."""
    from gemmviz.cli.profile_accesses import access_file, print_summary, record_accesses
    from gemmviz.core.hardware.accesses import save_file

    outcome = record_accesses(args, jobs, results, session, runner, child_argv)
    failures = list(outcome.failures)
    if outcome.traces:
        print_summary(outcome.traces)
        output = Output(
            "access records",
            path,
            lambda p: save_file(access_file(outcome.traces, session, "gemmviz " + " ".join(sys.argv[1:])), p),
        )
        output.save()
        print(printable(output.report()), file=sys.stderr)
        if output.failed:
            failures.append(f"could not write {path}")
    return failures
