"""`gemmviz tune` (search block-tiling configurations on this GPU) and `gemmviz ceilings` (roofline ceilings)."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

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
from gemmviz.core.kernels.variants import VARIANTS, tunable_variants

MAX_TUNE_SIZE = 16384  # three 16384² float matrices are 3 GiB; every configuration is timed at this size
MAX_TUNE_REPEATS = 1000


def add_parsers(sub: argparse._SubParsersAction) -> None:
    tunable = tunable_variants()
    p = sub.add_parser("tune", help="search the block parameters of tiling kernels on this GPU, cache the best")
    p.add_argument(
        "--variants",
        default=",".join(tunable),
        help=f"comma-separated, among {', '.join(tunable)} (default: all of them)",
    )
    p.add_argument(
        "--size",
        type=whole_number,
        default=4096,
        help="square size to time at (a multiple of 128; default %(default)s)",
    )
    p.add_argument(
        "--repeats",
        type=whole_number,
        default=5,
        help="timed samples per configuration, their median kept (default %(default)s)",
    )
    p.add_argument("--csv", help="write every configuration's result here")
    p.add_argument("--save-to", help="also write the winners to this JSON file (e.g. assets/tuned/GPU.json)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_tune)

    p = sub.add_parser("ceilings", help="measure this GPU's roofline ceilings (bandwidth, FP32, TF32) and cache them")
    p.add_argument("--save-to", help="also write them to this JSON file")
    p.set_defaults(func=cmd_ceilings)


def _needs_gpu(what: str) -> None:
    from gemmviz.backends.cuda_probe import cuda_status

    ok, reason = cuda_status()
    if not ok:
        raise CommandError(f"{what} needs a CUDA GPU: {reason}")


def cmd_tune(args: argparse.Namespace) -> int:
    from gemmviz.core.fileio import write_atomic
    from gemmviz.core.kernels.tuning import save_tuned

    names = variant_list(args.variants)
    untunable = [n for n in names if VARIANTS[n].tune_space is None]
    if untunable:
        raise UsageError(f"{', '.join(untunable)} has no tuning space (tunable: {', '.join(tunable_variants())})")
    if not 128 <= args.size <= MAX_TUNE_SIZE or args.size % 128:
        raise UsageError(f"--size must be a multiple of 128 from 128 to {MAX_TUNE_SIZE}; got {args.size}")
    if not 1 <= args.repeats <= MAX_TUNE_REPEATS:
        raise UsageError(f"--repeats must be a whole number 1..{MAX_TUNE_REPEATS}, got {args.repeats}")
    csv_path, save_to = check_outputs(("--csv", args.csv, (".csv",)), ("--save-to", args.save_to, (".json",)))
    _needs_gpu("tuning")
    from gemmviz.backends.autotune import tune

    out = io.StringIO()
    table = Output("CSV", csv_path, lambda path: write_atomic(path, out.getvalue()))
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["variant", "config", "status", "median_ms", "gflops", "error"])
    for name in names:
        with Progress(enabled=False if args.quiet else None) as progress:
            report = tune(name, size=args.size, repeats=args.repeats, progress=progress)
        best = report["best"]
        cfg = " ".join(f"{k}={v}" for k, v in best["config"].items())
        default = best["default_gflops"]
        print(
            f"{name} on {report['gpu']}: best {best['gflops']:,.0f} GFLOP/s at {args.size}^3 with {cfg} "
            f"({best['configs_valid']} of {best['configs_tried']} configurations compiled and verified; "
            f"default config {default and format(default, ',.0f')} GFLOP/s)"
        )
        for row in report["rows"]:
            writer.writerow(
                [
                    name,
                    " ".join(f"{k}={v}" for k, v in row["config"].items()),
                    row["status"],
                    row["median_ms"] or "",
                    row["gflops"] or "",
                    row.get("error", ""),
                ]
            )
        if save_to:
            save_tuned(name, report["gpu"], best, save_to)
        table.save()  # after every variant, so an interrupt keeps the variants already tuned
    if csv_path:
        print(table.report(), file=sys.stderr)
    return EXIT_FAILED if table.failed else EXIT_OK


def cmd_ceilings(args: argparse.Namespace) -> int:
    (save_to,) = check_outputs(("--save-to", args.save_to, (".json",)))
    _needs_gpu("measuring ceilings")
    from gemmviz.backends.ceilings import measure_ceilings, save_ceilings
    from gemmviz.core.hardware.roofline import CeilingsError

    data = measure_ceilings()
    try:
        save_ceilings(data)
        if save_to:
            save_ceilings(data, save_to)
    except CeilingsError as exc:
        raise CommandError(f"the measured ceilings are not sensible ({exc}); nothing was saved") from None
    print(json.dumps(data, indent=1))
    return EXIT_OK
