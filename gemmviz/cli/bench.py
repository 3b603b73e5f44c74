"""`gemmviz info` and `gemmviz bench`: devices and variants; run, verify and time jobs, saving as they finish."""

from __future__ import annotations

import argparse
import json
import sys

from gemmviz.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    Output,
    Progress,
    check_outputs,
    fmt,
    not_ok_summary,
    number,
    results_table,
    variant_list,
    whole_number,
)
from gemmviz.cli.limits import check_run_limits, param_grid, supported_jobs
from gemmviz.core import interrupt
from gemmviz.core.kernels.variants import VARIANTS, default_variants
from gemmviz.core.measure.timing import DEFAULT_MAX_NOISE, DEFAULT_MAX_SAMPLES, DEFAULT_MAX_TIME_S
from gemmviz.core.parsing import parse_sizes
from gemmviz.core.text import printable


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("info", help="devices, backends and kernel variants; without PyCUDA, what installing it needs")
    p.add_argument("--json", action="store_true", help="print the environment as JSON instead of text")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("bench", help="run, verify and time kernel variants; write a session file")
    for add in (_what_to_run, _how_to_time, _limits_and_extras, _outputs):
        add(p)
    p.set_defaults(func=cmd_bench)


def _what_to_run(p: argparse.ArgumentParser) -> None:
    """bench: the variants, sizes and their parameters."""
    p.add_argument(
        "--variants", default=",".join(default_variants()), help="comma-separated names (default %(default)s)"
    )
    p.add_argument(
        "--sizes",
        default="",
        help="square sizes, e.g. 512,1024,2048 (no default: give --sizes, --mnk or both)",
    )
    p.add_argument("--mnk", action="append", help="a non-square size MxNxK (repeatable)")
    p.add_argument(
        "--tile", default="", help="tile sizes for variants that have one, e.g. 8,16,32 (default: each variant's own)"
    )
    p.add_argument(
        "--block", default="", help="block edges for the naive kernels, e.g. 16,32 (default: each variant's own)"
    )


def _how_to_time(p: argparse.ArgumentParser) -> None:
    """bench: samples, warm-up, cache state, and when the GPU's sampling stops."""
    p.add_argument(
        "--repeats",
        type=whole_number,
        default=20,
        help="least number of timed samples per job (median reported; default %(default)s)",
    )
    p.add_argument(
        "--warmup", type=whole_number, default=3, help="untimed launches before timing (default %(default)s)"
    )
    p.add_argument("--cold", action="store_true", help="flush L2 before every timed launch")
    p.add_argument(
        "--max-noise",
        type=number,
        default=DEFAULT_MAX_NOISE,
        help="GPU: sample until the relative noise (stdev/mean) is under this (default %(default)s)",
    )
    p.add_argument(
        "--max-samples",
        type=whole_number,
        default=DEFAULT_MAX_SAMPLES,
        help="GPU: at most this many samples per job (default %(default)s)",
    )
    p.add_argument(
        "--max-time",
        type=number,
        default=DEFAULT_MAX_TIME_S,
        help="GPU: stop sampling after this many seconds once --repeats are in (default %(default)s)",
    )
    p.add_argument(
        "--max-batch",
        type=whole_number,
        default=64,
        help="GPU: launch a short kernel up to this many times back to back per sample (default %(default)s)",
    )
    p.add_argument(
        "--timing",
        choices=("kernel", "host"),
        default="kernel",
        help="GPU: 'kernel' times the GPU's work only (events behind a blocking kernel); 'host' puts "
        "events around the host's launch, for runs under a profiler (default %(default)s)",
    )


def _limits_and_extras(p: argparse.ArgumentParser) -> None:
    """bench: how long the CPU loop and a job may take, the inputs' seed, the block trace."""
    p.add_argument("--allow-slow-cpu", action="store_true", help="run the CPU loop even when estimated slow")
    p.add_argument(
        "--cpu-limit", type=number, default=60.0, help="seconds above which cpu-naive is refused (default %(default)s)"
    )
    p.add_argument("--seed", type=whole_number, default=None, help="random seed for the inputs")
    p.add_argument(
        "--trace",
        action="store_true",
        help="after timing, one untimed launch of an instrumented build records each block's SM and times",
    )
    p.add_argument(
        "--job-limit",
        type=number,
        default=600.0,
        help="seconds after which a job is stopped (checked between launches) and reported failed "
        "(default %(default)s)",
    )


def _outputs(p: argparse.ArgumentParser) -> None:
    """bench: the session and CSV written, progress, and the command recorded."""
    p.add_argument("--out", help="session JSON to write (rewritten after every finished job)")
    p.add_argument("--csv", help="CSV of the results to write (rewritten after every finished job)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--no-record-command",
        dest="record_command",
        action="store_false",
        help="leave the command line out of the session's settings (recorded by default)",
    )


def cmd_info(args: argparse.Namespace) -> int:
    from gemmviz.backends import default_backends
    from gemmviz.core.measure.bench import environment

    backends = default_backends()
    env = environment(backends)
    needs = None
    if env["backends"]["cuda"]["reason"].startswith("PyCUDA is not installed"):
        from gemmviz.core.cuda_needs import pycuda_build_needs

        needs = pycuda_build_needs()
    if args.json:
        if needs is not None:
            env["pycuda_build_needs"] = [{"what": n.what, "ok": n.ok, "how": n.how} for n in needs]
        print(json.dumps(env, indent=1))
        return EXIT_OK
    print(f"gemmviz {env['gemmviz']}  Python {env['python']}  numpy {env['numpy']}")
    print(f"CPU: {env['cpu']} ({env['cpu_count']} logical cores)")
    gpu = env["backends"]["cuda"]
    if gpu["available"]:
        peak = gpu.get("fp32_peak_gflops")
        print(
            f"GPU: {gpu['name']}, {gpu['sms']} SMs, cc {gpu['compute_capability']}, "
            f"{gpu['memory_total_bytes'] / 2**30:.1f} GiB, driver CUDA {gpu['driver_cuda_version']}, "
            f"PyCUDA {gpu['pycuda']}, cuBLAS {gpu.get('cublas_version') or 'not found'}, "
            f"FP32 peak {fmt(peak, ',.0f')} GFLOP/s "
            f"(max clock {gpu['max_sm_clock_mhz']:.0f} MHz); now {fmt(gpu.get('sm_clock_mhz'), '.0f')} MHz, "
            f"{fmt(gpu.get('temperature_c'), '.0f')} °C"
        )
    else:
        print(f"No CUDA GPU: {gpu['reason']}")
    if needs is not None:
        from gemmviz.core.cuda_needs import pycuda_missing_text

        print(pycuda_missing_text(needs))
    print("Variants:")
    for v in VARIANTS.values():
        ok, reason = backends[v.backend].variant_availability(v)
        params = "; ".join(f"{k} {'/'.join(map(str, c))}" for k, c in v.param_choices.items())
        state = "available" if ok else f"unavailable: {reason}"
        print(f"  {v.name:<12} {state}{f'  [{params}]' if params else ''}\n      {v.explanation}")
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from gemmviz.backends import default_backends
    from gemmviz.core.fileio import write_atomic
    from gemmviz.core.measure.bench import BenchSettings, Engine, make_session, plan_jobs
    from gemmviz.core.session.results import results_csv

    variants = variant_list(args.variants)
    check_run_limits(args)
    problems = parse_sizes(args.sizes, args.mnk)
    grid = param_grid(args, variants)
    settings = BenchSettings(
        warmup=args.warmup,
        repeats=args.repeats,
        cold_l2=args.cold,
        allow_slow_cpu=args.allow_slow_cpu,
        cpu_limit_s=args.cpu_limit,
        seed=args.seed,
        trace=args.trace,
        job_limit_s=args.job_limit,
        max_noise=args.max_noise,
        max_samples=args.max_samples,
        max_time_s=args.max_time,
        timing=args.timing,
        max_batch=args.max_batch,
    )
    out, csv = check_outputs(("--out", args.out, (".json",)), ("--csv", args.csv, (".csv",)))
    jobs = plan_jobs(variants, problems, grid)
    jobs, skipped = supported_jobs(jobs, grid)
    for note in skipped:
        print(f"note: {note}: skipped", file=sys.stderr)
    backends = default_backends()
    cuda_ok, reason = backends["cuda"].availability()
    if not cuda_ok and any(VARIANTS[v].backend == "cuda" for v in variants):
        print(f"note: No CUDA GPU: {reason}; GPU variants will be reported unavailable", file=sys.stderr)
    command = "gemmviz " + " ".join(sys.argv[1:]) if args.record_command else None
    # The environment is probed once, before the first job; each finished result is appended and saved,
    # so the files on disk always hold a valid session of everything that finished.
    session = make_session([], backends, settings, {"variants": variants, "command": command})

    outputs = [
        Output("session", out, session.save),
        Output("CSV", csv, lambda path: write_atomic(path, results_csv(session.results))),
    ]

    def save(result) -> None:
        session.results.append(result)
        save_all()

    def save_all() -> None:
        for output in outputs:
            output.save()

    engine = Engine(backends, settings)
    with Progress(enabled=False if args.quiet else None) as progress:
        try:
            engine.run(jobs, on_result=save, on_progress=progress)
        except KeyboardInterrupt as exc:  # Ctrl+C (130) or SIGTERM (143): core/interrupt.py
            progress.close()
            if session.results:  # the interrupt may have landed inside a write: write everything once more
                save_all()
            print(results_table(session.results))
            saved = ", ".join(str(o.path) for o in outputs if o.path and not o.lost)
            where = f"; saved in {saved}" if saved else ""
            if not session.results and saved:  # nothing ran: nothing was written, an earlier file is as it was
                where = f"; nothing written ({saved} left as it was)"
            done = f"{len(session.results)} of {len(jobs)} jobs{where}"
            print(printable(f"gemmviz: {interrupt.message(exc)} after {done}"), file=sys.stderr)
            return interrupt.exit_code(exc)
    print(results_table(session.results))
    for output in outputs:
        if output.report():
            print(printable(output.report()), file=sys.stderr)
    unwritten = [str(o.asked) for o in outputs if o.failed]
    if unwritten:
        print(printable(f"gemmviz: could not write {', '.join(unwritten)} (see above)"), file=sys.stderr)
    if all(r.valid for r in session.results) and not unwritten:
        return EXIT_OK
    if not all(r.valid for r in session.results):
        print(f"gemmviz: {not_ok_summary(session.results, len(jobs))}", file=sys.stderr)
    return EXIT_FAILED
