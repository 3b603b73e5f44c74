"""Command line: info, bench, model, and (with Qt installed) the app, export and animate."""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time

from gemmviz.core.problem import Problem, ProblemError, parse_problem
from gemmviz.core.variants import VARIANTS

EXIT_USAGE = 2


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's own errors exit 2 with our one-line style
        self.print_usage(sys.stderr)
        print(f"gemmviz: error: {message}", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def _int_list(text: str, what: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{what} must be a comma-separated list of whole numbers, got {text!r}") from None
    if not values:
        raise UsageError(f"{what} is empty")
    return values


def _problems(args) -> list[Problem]:
    problems = []
    for text in (args.sizes.split(",") if args.sizes else []) + (args.mnk or []):
        if text.strip():
            problems.append(parse_problem(text))
    if not problems:
        raise UsageError("give at least one size (--sizes 512,1024 or --mnk 2048x4096x3072)")
    return problems


def _variants(text: str) -> list[str]:
    names = [v.strip() for v in text.split(",") if v.strip()]
    unknown = [v for v in names if v not in VARIANTS]
    if unknown:
        raise UsageError(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(VARIANTS)}")
    if not names:
        raise UsageError("no variants given")
    return names


def _fmt(value, spec: str, empty: str = "—") -> str:
    return empty if value is None else format(value, spec)


def results_table(results) -> str:
    from gemmviz.core.results import results_rows

    header = ["variant", "params", "size", "median ms", "GFLOP/s", "×CPU", "×naive", "% cuBLAS", "rel.err", "status"]
    rows = []
    for r, row in zip(results, results_rows(results)):
        rows.append(
            [
                r.variant,
                row["params"] or "-",
                r.problem.label,
                _fmt(r.median_ms, ".4g"),
                _fmt(r.gflops, ",.0f"),
                _fmt(row["speedup_vs_cpu"], ",.1f"),
                _fmt(row["speedup_vs_naive"], ".2f"),
                _fmt(row["pct_of_cublas"], ".1f"),
                _fmt(r.rel_error, ".1e"),
                r.status if r.valid else f"{r.status.upper()}: {r.error}",
            ]
        )
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    widths[-1] = len(header[-1])
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(header, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


class ProgressBar:
    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.t0 = time.monotonic()

    def __call__(self, done: int, total: int, label: str) -> None:
        width = 30
        filled = int(width * done / max(total, 1))
        elapsed = time.monotonic() - self.t0
        eta = f" ~{elapsed / done * (total - done):.0f}s left" if 0 < done < total else ""
        line = f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {label[:40]:<40}{eta}"
        self.stream.write(line)
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def cmd_info(args) -> int:
    from gemmviz.backends import default_backends
    from gemmviz.core.bench import environment

    backends = default_backends()
    env = environment(backends)
    if args.json:
        print(json.dumps(env, indent=1))
        return 0
    print(f"gemmviz {env['gemmviz']}  Python {env['python']}  numpy {env['numpy']}")
    print(f"CPU: {env['cpu']} ({env['cpu_count']} logical cores)")
    gpu = env["backends"]["cuda"]
    if gpu["available"]:
        peak = gpu.get("fp32_peak_gflops")
        print(
            f"GPU: {gpu['name']}, {gpu['sms']} SMs, cc {gpu['compute_capability']}, "
            f"{gpu['memory_total_bytes'] / 2**30:.1f} GiB, driver CUDA {gpu['driver_cuda_version']}, "
            f"PyCUDA {gpu['pycuda']}, FP32 peak {_fmt(peak, ',.0f')} GFLOP/s "
            f"(max clock {gpu['max_sm_clock_mhz']:.0f} MHz); now {_fmt(gpu.get('sm_clock_mhz'), '.0f')} MHz, "
            f"{_fmt(gpu.get('temperature_c'), '.0f')} °C"
        )
    else:
        print(f"No CUDA GPU: {gpu['reason']}")
    print("Variants:")
    for v in VARIANTS.values():
        ok, reason = backends[v.backend].variant_availability(v)
        params = "; ".join(f"{k} {'/'.join(map(str, c))}" for k, c in v.param_choices.items())
        state = "available" if ok else f"unavailable: {reason}"
        print(f"  {v.name:<12} {state}{f'  [{params}]' if params else ''}\n      {v.explanation}")
    return 0


def cmd_bench(args) -> int:
    from gemmviz.backends import default_backends
    from gemmviz.core.bench import BenchSettings, Engine, make_session, plan_jobs
    from gemmviz.core.results import results_csv, write_atomic

    variants = _variants(args.variants)
    problems = _problems(args)
    grid = {}
    if args.tile:
        grid["tile"] = _int_list(args.tile, "--tile")
    if args.block:
        grid["block"] = _int_list(args.block, "--block")
    settings = BenchSettings(
        warmup=args.warmup,
        repeats=args.repeats,
        cold_l2=args.cold,
        allow_slow_cpu=args.allow_slow_cpu,
        cpu_limit_s=args.cpu_limit,
        seed=args.seed,
    )
    jobs = plan_jobs(variants, problems, grid)
    backends = default_backends()
    cuda_ok, reason = backends["cuda"].availability()
    if not cuda_ok and any(VARIANTS[v].backend == "cuda" for v in variants):
        print(f"note: No CUDA GPU: {reason}; GPU variants will be reported unavailable", file=sys.stderr)
    cancel = threading.Event()
    engine = Engine(backends, settings)
    progress = ProgressBar() if not args.quiet else None
    try:
        results = engine.run(jobs, on_progress=progress, cancel=cancel)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    command = "gemmviz " + " ".join(sys.argv[1:]) if args.record_command else None
    session = make_session(results, backends, settings, {"variants": variants, "command": command})
    print(results_table(results))
    try:
        if args.out:
            session.save(args.out)
            print(f"session written to {args.out}", file=sys.stderr)
        if args.csv:
            write_atomic(args.csv, results_csv(results))
            print(f"CSV written to {args.csv}", file=sys.stderr)
    except OSError as exc:
        print(f"gemmviz: error: {exc}", file=sys.stderr)
        return 1
    return 0 if all(r.valid or r.status in ("unavailable", "refused") for r in results) else 1


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gemmviz", description="See why tiled matrix multiplication is fast.")
    parser.add_argument("--projector", action="store_true", help="start the app in projector mode")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    p = sub.add_parser("info", help="devices, backends and kernel variants")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("bench", help="run, verify and time kernel variants; write a session file")
    p.add_argument("--variants", default="cpu-blas,gpu-naive,gpu-tiled,cublas", help="comma-separated names")
    p.add_argument("--sizes", default="", help="square sizes, e.g. 512,1024,2048")
    p.add_argument("--mnk", action="append", help="a non-square size MxNxK (repeatable)")
    p.add_argument("--tile", default="", help="tile sizes for variants that have one, e.g. 8,16,32")
    p.add_argument("--block", default="", help="block edges for the naive kernel, e.g. 16,32")
    p.add_argument("--repeats", type=int, default=20, help="timed launches per job (median reported)")
    p.add_argument("--warmup", type=int, default=3, help="untimed launches before timing")
    p.add_argument("--cold", action="store_true", help="flush L2 before every timed launch")
    p.add_argument("--allow-slow-cpu", action="store_true", help="run the CPU loop even when estimated slow")
    p.add_argument("--cpu-limit", type=float, default=60.0, help="seconds above which cpu-naive is refused")
    p.add_argument("--seed", type=int, default=None, help="random seed for the inputs")
    p.add_argument("--out", help="session JSON to write")
    p.add_argument("--csv", help="CSV of the results to write")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--no-record-command", dest="record_command", action="store_false")
    p.set_defaults(func=cmd_bench)

    from gemmviz import cli_extra

    cli_extra.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        from gemmviz import cli_extra

        return cli_extra.run_app(args)
    try:
        return args.func(args)
    except (UsageError, ProblemError, KeyError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"gemmviz: error: {message}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
