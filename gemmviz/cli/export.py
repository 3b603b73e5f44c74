"""`gemmviz export`: render a chart of a session file to an image or a drawing (the registered chart formats:
core/export_formats.py), without a window.

Everything that can be refused is checked on the session's results before Qt starts: the output path,
`--at` (a size the session has), and the chart kind's own check (core/charts/kinds.py: a speedup chart's, or the
dashboard's speedup quarter's, baseline at the size drawn; without `--baseline`, one the session has is used,
and named)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from gemmviz.cli.app import qt_app
from gemmviz.cli.common import EXIT_OK, CommandError, UsageError, check_outputs, nonempty, variant_list
from gemmviz.core import export_formats
from gemmviz.core.charts.kinds import DEFAULT_BASELINE, ChartView, NothingToDraw, is_baseline
from gemmviz.core.charts.style import PRESETS, preset_keys, preset_named
from gemmviz.core.kernels.variants import BASELINES, Baseline, baseline
from gemmviz.core.parsing import PIXEL_BUDGET_HELP, parse_pixels
from gemmviz.core.problem import Problem, parse_problem
from gemmviz.core.text import printable
from gemmviz.ui.charts import kinds as chart_kinds  # Qt-free: each kind loads Qt when it draws
from gemmviz.ui.export import formats as _formats  # noqa: F401 (the formats there, listed by -o; Qt-free likewise)

TRACE = export_formats.TRACE
TRACE_HELP = (
    "the session's block traces (a process per kernel run, a track per SM) and the Hopper pipeline timeline "
    "(TMA copies, waits, wgmma batches per warpgroup) as a Chrome trace (JSON) for ui.perfetto.dev or chrome://tracing"
)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="render a chart of a session file to "
        + " or ".join(f.suffix.lstrip(".").upper() for f in export_formats.formats(export_formats.CHART))
        + ", without a window",
    )
    p.add_argument(
        "session",
        help="a session JSON written by gemmviz bench or the app, or the name of a shipped "
        "session (e.g. h200-2026-12-01)",
    )
    p.add_argument(
        "--chart",
        default="time",
        choices=[TRACE, *(kind.name for kind in chart_kinds.kinds())],  # trace first: a new kind stays last
        help="; ".join(f"{kind.name}: {kind.description}" for kind in chart_kinds.kinds())
        + f"; {TRACE}: {TRACE_HELP} (default %(default)s)",
    )
    _look_options(p)
    _view_options(p)
    _series_options(p)
    p.add_argument(
        "-o",
        "--output",
        "--out",
        required=True,
        help=export_formats.describe(export_formats.CHART) + "; with --chart trace, " + export_formats.describe(TRACE),
    )
    _trace_options(p)
    p.set_defaults(func=cmd_export)


def _look_options(p: argparse.ArgumentParser) -> None:
    """How the image looks: its size in pixels, the projector's large fonts, the theme."""
    p.add_argument(
        "--size",
        default="1920x1080",
        help=f"pixels, WxH (fonts and lines scale with it; default %(default)s; {PIXEL_BUDGET_HELP})",
    )
    p.add_argument("--projector", action="store_true", help="large fonts and thick lines")
    p.add_argument("--dark", action="store_true", help="dark theme")


def _view_options(p: argparse.ArgumentParser) -> None:
    """What one chart kind shows: the speedup chart's baseline and size, the gap chart's pair of kernels."""
    p.add_argument(
        "--baseline",
        choices=[b.key for b in BASELINES],
        help=f"speedup chart (default {DEFAULT_BASELINE}, or the first the session has where it has not): "
        + ", ".join(f"{b.key} ({b.label})" for b in BASELINES),
    )
    p.add_argument("--at", help="speedup chart: the size, N or MxNxK (default: the largest with the baseline)")
    p.add_argument(
        "--pair",
        type=nonempty,
        help="gap chart: the kernel explained and the one it is measured against, A,B, as the gap file names "
        "them (e.g. 'gpu-cpasync-any,cublas'; add @MxNxK where it holds several sizes; default: the best FP32 "
        "rung against cuBLAS at the largest size with both). The gap file is the session's, SESSION-gap.json",
    )
    p.add_argument(
        "--gap",
        metavar="FILE",
        help="gap chart: this gap file instead of the session's, a path or a shipped one's name (e.g. "
        "h200-2026-12-02d-gap: seed001's waterfall, every size to 8192³)",
    )


def _series_options(p: argparse.ArgumentParser) -> None:
    """Which of the session's results are drawn: variants, series, or a preset of the Charts tab."""
    p.add_argument("--variants", help="only these variants, comma-separated (default: all in the session)")
    p.add_argument(
        "--series",
        help="only these series, comma-separated, e.g. "
        "'cpu-naive,gpu-naive[block=16],gpu-tiled[tile=16],cublas' (the seed's kernels)",
    )
    p.add_argument(
        "--preset",
        choices=preset_keys(),
        help="the series drawn, as the Charts tab's buttons choose them (default: seed-kernels with --projector, "
        "where a view says one thing; else all). --variants/--series choose instead where given",
    )


def _trace_options(p: argparse.ArgumentParser) -> None:
    """--chart trace's own: the Hopper pipeline trace added and the clock that turns its cycles into time."""
    p.add_argument(
        "--pipeline",
        help="--chart trace: a Hopper pipeline trace (gemmviz profile --pipeline) to add, a file or a shipped name "
        "(default: the one beside the session, SESSION-pipeline.json, if there is one)",
    )
    p.add_argument(
        "--clock-mhz",
        type=float,
        help="--chart trace: the SM clock that turns a clock64 pipeline trace's cycles into µs (default: the "
        "session's measured clock for that kernel and size, else its GPU's SM clock)",
    )


def _sizes(problems: set[Problem]) -> str:
    return ", ".join(p.label for p in sorted(problems, key=lambda p: (p.m * p.n * p.k, p.m, p.n))) or "none"


def choose_baseline(results: list, chart: str, asked: str | None, at: Problem | None) -> tuple[Baseline, str]:
    """The baseline to draw with, and a note saying so where it is not the one asked for: `--baseline` as
    given; without one, the default where the session has it (at `--at`, if given), else the first of the
    registry's baselines that the session has there (a CPU-only session has no GPU naive kernel)."""
    default = baseline(asked or DEFAULT_BASELINE)
    if asked is not None or chart not in ("speedup", "dashboard"):  # the kinds that draw speedup bars
        return default, ""
    valid = [r for r in results if r.valid]

    def has(b: Baseline) -> bool:
        return any(is_baseline(r, b) and (at is None or r.problem == at) for r in valid)

    if has(default):
        return default, ""
    for b in BASELINES:
        if has(b):
            where = f" at {at.label}" if at is not None else ""
            return b, f"speedup vs {b.label} (--baseline {b.key}): the session has no {default.label} result{where}"
    return default, ""  # none at all: the kind's check refuses, naming what there is


def check_view(results: list, chart: str, view: ChartView, at: Problem | None) -> None:
    """Refuse (UsageError) an `--at` the session lacks, and a chart the kind's check finds nothing to draw for."""
    present = {r.problem for r in results if r.valid}
    if at is not None and at not in present:
        raise UsageError(f"--at {at.label}: the session has no valid results at that size; sizes: {_sizes(present)}")
    try:
        chart_kinds.get(chart).check(chart_kinds.drawn(chart, results), view)
    except NothingToDraw as exc:
        raise UsageError(str(exc)) from None


def _series(text: str) -> list:
    from gemmviz.core.lesson.lessons import parse_series
    from gemmviz.core.problem import ProblemError

    try:
        found = list(dict.fromkeys(parse_series(t) for t in text.split(",") if t.strip()))
    except ProblemError as exc:
        raise UsageError(f"--series: {exc}") from None
    if not found:
        raise UsageError("--series: no series given (leave the option out for the default)")
    return found


def shipped_session(name: str) -> str:
    """A path as given, or the shipped session of that name (assets/sessions/NAME.json) if no such file exists."""
    from pathlib import Path

    from gemmviz.core.paths import asset_files

    if Path(name).exists() or "/" in name or name.endswith((".json", ".gz")):
        return name
    for f in asset_files("sessions", ""):
        if f.name.split(".")[0] == name:
            return str(f)
    return name


def apply_preset(results: list, args: argparse.Namespace) -> list:
    """The preset's series of `results`: --preset as given (refused where it leaves nothing); without it, the seed's
    kernels in projector type (one message per view: 4 series, not all 23), where the session has any of them,
    unless --variants or --series chose already; else every result."""
    key = args.preset or ("seed-kernels" if args.projector and not (args.variants or args.series) else "all")
    keep = PRESETS[preset_named(key)]
    if keep is None:
        return results
    chosen = [r for r in results if r.series in keep]
    if chosen:
        return chosen
    if args.preset is not None:
        raise UsageError(f"--preset {key}: the session has none of its series ({', '.join(keep)})")
    return results


def _not_a_file(path: str | os.PathLike) -> str:
    """Why `path` is not a file to read: missing, a folder, or something else (a FIFO, a device)."""
    p = Path(path)
    if not p.exists():
        return "no such file"
    return "a folder, not a file" if p.is_dir() else "not a regular file (a FIFO, a device?)"


def gap_options(args: argparse.Namespace) -> dict:
    """The gap chart's pair and file (the gap metrics recorded beside the session); --pair with another chart
    is refused, as is a gap chart of a session with no gap file beside it."""
    if args.chart != "gap":
        for option, given in (("--pair", args.pair), ("--gap", args.gap)):
            if given is not None:
                raise UsageError(f"{option} is for --chart gap")
        return {}
    from gemmviz.core.hardware.gap import gap_path

    if args.gap is not None:
        if not args.gap.strip():
            raise UsageError("--gap: an empty file name; give a gap file")
        path = shipped_session(args.gap)
        if not Path(path).is_file():
            raise UsageError(
                f"--gap {args.gap}: {_not_a_file(path)} (give a gap file's path, or a shipped name such as "
                "h200-2026-12-02d-gap)"
            )
        return {"pair": args.pair, "gap_file": path}
    session = shipped_session(args.session)
    path = gap_path(session)
    if not Path(path).is_file():
        raise UsageError(
            f"--chart gap: no gap metrics beside {session} (looked for {path}); record them on a GPU with "
            "`gemmviz profile --gap`, or name a gap file with --gap"
        )
    return {"pair": args.pair, "gap_file": path}


def cmd_export(args: argparse.Namespace) -> int:
    from gemmviz.core.hardware.roofline import load_ceilings
    from gemmviz.core.session.results import Session, SessionError

    if args.chart == TRACE:
        return cmd_trace(args)
    for option, given in (("--pipeline", args.pipeline), ("--clock-mhz", args.clock_mhz)):
        if given is not None:
            raise UsageError(f"{option} is for --chart trace")
    width, height = parse_pixels(args.size)
    at = parse_problem(args.at) if args.at else None
    keep = set(variant_list(args.variants)) if args.variants is not None else None  # '' is refused, not 'all'
    series = _series(args.series) if args.series is not None else None
    suffixes = export_formats.suffixes(export_formats.CHART)
    if args.output.strip() and Path(args.output).suffix.lower() not in suffixes:  # usage, as a wrong --chart is
        raise UsageError(f"{args.output}: the file name must end in {' or '.join(suffixes)}")
    check_outputs(("--output", args.output, suffixes))
    try:
        session = Session.load(shipped_session(args.session))
    except SessionError as exc:
        raise UsageError(str(exc)) from None
    results = [
        r
        for r in session.results
        if (keep is None or r.variant in keep) and (series is None or any(s.matches(r) for s in series))
    ]
    if not session.results:
        raise UsageError(f"{args.session}: the session holds no results; nothing to chart")
    if not results:
        raise UsageError(
            "no results left after --variants/--series; the session has: "
            + ", ".join(sorted({r.series for r in session.results}))
        )
    results = apply_preset(results, args)
    base, note = choose_baseline(results, args.chart, args.baseline, at)
    view = ChartView(base.key, at.key if at else None, "", **gap_options(args))
    check_view(results, args.chart, view, at)
    app = qt_app()
    from gemmviz.ui.export.exporters import ExportError, NothingToExport, export_chart, footer_text, session_origin
    from gemmviz.ui.theme import theme_for

    gpu = session.environment.get("backends", {}).get("cuda", {})
    ceilings = load_ceilings(gpu["name"]) if gpu.get("available") and gpu.get("name") else None
    try:
        path = export_chart(
            args.chart,
            results,
            args.output,
            width,
            height,
            theme_for(args.projector, args.dark),
            ceilings,
            view,
            footer_text([session_origin(session)]),
        )
    except NothingToExport as exc:  # the session has nothing this chart draws: bad input, as for --chart roofline
        raise UsageError(str(exc)) from None
    except ExportError as exc:
        raise CommandError(str(exc)) from None
    del app
    if note:
        print(printable(note))
    print(printable(f"wrote {path} ({width}x{height})"))
    return EXIT_OK


def pipeline_beside(session: str) -> Path | None:
    """The pipeline trace recorded with a session: SESSION-pipeline.json beside it, where a traces session
    (NAME-traces-4096.json.gz) looks for NAME-pipeline.json too."""
    import re

    path = Path(session)
    stem = re.sub(r"\.json(\.gz)?$", "", path.name)
    for name in dict.fromkeys([stem, re.sub(r"-traces-\d+$", "", stem)]):
        candidate = path.with_name(f"{name}-pipeline.json")
        if candidate.is_file():
            return candidate
    return None


MIN_CLOCK_MHZ = 100  # no GPU's SM clock runs slower under load; 1e-300 MHz stretched a trace to 1e305 µs


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether the two names reach one file (through links, or `..`): what the command reads is not overwritten."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): not the same file
        return os.path.realpath(a) == os.path.realpath(b)


def cmd_trace(args: argparse.Namespace) -> int:
    """`gemmviz export SESSION --chart trace --out FILE.json`: the block traces and the pipeline as a Chrome trace."""
    from gemmviz.core.hardware.chrome_trace import chrome_trace, pipeline_clock
    from gemmviz.core.hardware.pipeline_trace import load_pipeline_file
    from gemmviz.core.session.recorded import RecordError
    from gemmviz.core.session.results import Session, SessionError
    from gemmviz.core.session.workspace import session_gpu

    if args.output.strip() and Path(args.output).suffix.lower() != ".json":
        raise UsageError(f"{args.output}: a trace is written as .json (the Chrome Trace Event format)")
    check_outputs(("--output", args.output, (".json",)))
    path = shipped_session(args.session)
    try:
        session = Session.load(path)
    except SessionError as exc:
        raise UsageError(str(exc)) from None
    keep = set(variant_list(args.variants)) if args.variants else None
    series = _series(args.series) if args.series else None
    runs = [
        r
        for r in session.results
        if r.block_trace
        and (keep is None or r.variant in keep)
        and (series is None or any(s.matches(r) for s in series))
    ]
    if args.pipeline is not None and not args.pipeline.strip():
        raise UsageError("--pipeline: an empty file name; give a pipeline file")
    where = Path(shipped_session(args.pipeline)) if args.pipeline else pipeline_beside(path)
    if args.pipeline and not (where and where.is_file()):
        raise UsageError(f"--pipeline {args.pipeline}: {_not_a_file(where or args.pipeline)}")
    for what, read in (("the session", path), ("the pipeline file", where)):
        if read is not None and same_file(args.output, read):  # the output's lock is held: it is not written yet
            raise UsageError(f"--output {args.output}: it is {what} this command reads; write the trace elsewhere")
    try:
        pipeline = load_pipeline_file(where) if where is not None else None
    except RecordError as exc:
        raise UsageError(str(exc)) from None
    if not runs and pipeline is None:
        raise UsageError(
            f"--chart trace: {path} holds no block traces{' of the chosen series' if keep or series else ''} "
            "(record them with `gemmviz profile --trace`) and no pipeline trace is beside it (looked for "
            "SESSION-pipeline.json; record one with `gemmviz profile --pipeline`, or give --pipeline FILE)"
        )
    clock = args.clock_mhz
    if pipeline is not None and pipeline.clock == "clock64" and clock is None:
        clock = pipeline_clock(pipeline, session.results, session.environment)
        if clock is None:
            raise UsageError(
                f"--chart trace: {where} counts SM cycles and the session records no SM clock: give --clock-mhz"
            )
    if clock is not None and not MIN_CLOCK_MHZ <= clock <= 10_000:
        hint = f" (in GHz? {clock:g} GHz is {clock * 1000:g} MHz)" if 0 < clock < 10 else ""
        raise UsageError(f"--clock-mhz {clock:g}: an SM clock is from {MIN_CLOCK_MHZ} to 10,000 MHz{hint}")
    gpu = session_gpu(session) or ""
    doc = chrome_trace(runs, pipeline, clock, gpu, source=Path(path).name)
    export_formats.get(TRACE, "chrome-trace").write(doc, args.output)
    parts = [f"{len(runs)} block trace(s)"] + ([f"the pipeline of {where.name}"] if pipeline and where else [])
    print(
        f"wrote {args.output}: {' and '.join(parts)}; open it at ui.perfetto.dev (Open trace file) or chrome://tracing"
    )
    return EXIT_OK
