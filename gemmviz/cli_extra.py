"""Sub-commands beyond info/bench: model (no Qt), and animate and the app (Qt, imported lazily)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from gemmviz.core.problem import ProblemError, parse_problem


def add_commands(sub) -> None:
    p = sub.add_parser("model", help="global/shared traffic, FLOPs and intensity of a variant, from the model")
    p.add_argument("--variant", default="gpu-tiled")
    p.add_argument("--mnk", required=True, help="N or MxNxK")
    p.add_argument("--tile", type=int, default=None, help="tile (gpu-tiled) or block edge (gpu-naive)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_model)

    p = sub.add_parser("export", help="render a chart of a session file to PNG or SVG, without a window")
    p.add_argument("session", help="a session JSON written by gemmviz bench or the app")
    p.add_argument("--chart", default="time", choices=["time", "gflops", "speedup", "roofline", "dashboard"])
    p.add_argument("--size", default="1920x1080", help="pixels, WxH (fonts and lines scale with it)")
    p.add_argument("--projector", action="store_true", help="large fonts and thick lines")
    p.add_argument("--dark", action="store_true", help="dark theme")
    p.add_argument("--baseline", default="cpu-naive", help="speedup chart: cpu-naive, gpu-naive or cublas")
    p.add_argument("--at", help="speedup chart: the size, N or MxNxK (default: the largest with the baseline)")
    p.add_argument("--variants", help="only these variants, comma-separated (default: all in the session)")
    p.add_argument("-o", "--output", required=True, help="out.png or out.svg")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("tune", help="search the block parameters of tiling kernels on this GPU, cache the best")
    p.add_argument("--variants", default="gpu-warptile,gpu-vectorize,gpu-doublebuffer")
    p.add_argument("--size", type=int, default=4096, help="square size to time at")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--csv", help="write every configuration's result here")
    p.add_argument("--save-to", help="also write the winners to this JSON file (e.g. assets/tuned/GPU.json)")
    p.set_defaults(func=cmd_tune)

    p = sub.add_parser("ceilings", help="measure this GPU's roofline ceilings (bandwidth, FP32, TF32) and cache them")
    p.add_argument("--save-to", help="also write them to this JSON file")
    p.set_defaults(func=cmd_ceilings)

    p = sub.add_parser("animate", help="render the tiling animation's frames (PNG) without a window")
    p.add_argument("--variant", default="gpu-tiled", help="gpu-naive, gpu-tiled or gpu-blocktile2d")
    p.add_argument("--mnk", required=True, help="N or MxNxK")
    p.add_argument(
        "--tile", type=int, default=16, help="tile (gpu-tiled) or block edge (gpu-naive); block tiling uses its config"
    )
    p.add_argument("--block", default="0,0", help="which thread block: y,x")
    p.add_argument("--thread", default="0,0", help="which thread to highlight: y,x")
    p.add_argument("--size", default="1280x720", help="frame size in pixels, WxH")
    p.add_argument("--frames", help="directory to write frame_0000.png … into")
    p.add_argument("--gif", help="write an animated GIF (one frame per step)")
    p.add_argument("--mp4", help="write an MP4 video (needs ffmpeg)")
    p.add_argument("--speed", type=float, default=2.0, help="steps per second in GIF/MP4")
    p.add_argument("--projector", action="store_true")
    p.add_argument("--dark", action="store_true")
    p.set_defaults(func=cmd_animate)


def _pair(text: str, what: str) -> tuple[int, int]:
    try:
        a, b = (int(x) for x in text.replace("x", ",").split(","))
    except ValueError:
        raise ProblemError(f"{what} must be two whole numbers like 1,2, got {text!r}") from None
    return a, b


def cmd_model(args) -> int:
    from gemmviz.core.model import naive_traffic
    from gemmviz.core.variants import get_variant

    variant = get_variant(args.variant)
    problem = parse_problem(args.mnk)
    given = {}
    if args.tile is not None:
        key = "tile" if "tile" in variant.param_choices else "block" if "block" in variant.param_choices else None
        if key is None:
            raise ProblemError(f"{variant.name} has no tile or block parameter")
        given[key] = args.tile
    params = variant.resolve_params(given)
    refusal = variant.refusal(problem, params)
    if refusal:
        raise ProblemError(refusal)
    t = variant.traffic_model(problem, params)
    naive = naive_traffic(problem)
    fmas = problem.m * problem.n * problem.k
    out = {
        "variant": variant.name,
        "params": params,
        "m": problem.m, "n": problem.n, "k": problem.k,
        "model": t.model,
        "flops": t.flops,
        "global_loads": t.global_loads,
        "global_stores": t.global_stores,
        "shared_loads": t.shared_loads,
        "shared_stores": t.shared_stores,
        "fmas_executed": t.fmas_executed,
        "global_bytes": t.global_bytes,
        "intensity_flop_per_byte": t.intensity,
        "reuse": 2 * fmas / t.global_loads,
        "naive_global_loads": naive.global_loads,
        "fewer_loads_than_naive": naive.global_loads / t.global_loads,
    }  # fmt: skip
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"{variant.name} ({variant.describe_params(params) or 'no params'}) at {problem.label}: {t.model}")
    print(f"  FLOPs                {t.flops:>22,}")
    print(f"  global loads         {t.global_loads:>22,}   ({out['fewer_loads_than_naive']:.1f}× fewer than naive)")
    print(f"  global stores        {t.global_stores:>22,}")
    print(f"  shared loads         {t.shared_loads:>22,}")
    print(f"  shared stores        {t.shared_stores:>22,}")
    print(f"  multiply-adds run    {t.fmas_executed:>22,}   (useful: {fmas:,})")
    print(f"  global bytes         {t.global_bytes:>22,}")
    print(f"  arithmetic intensity {t.intensity:>22.3f} FLOP/byte")
    print(f"  reuse                {out['reuse']:>22.1f} uses of each loaded value")
    return 0


def cmd_tune(args) -> int:
    import csv
    import io

    from gemmviz.backends.cuda import cuda_status
    from gemmviz.cli import ProgressBar, _variants
    from gemmviz.core.results import write_atomic
    from gemmviz.core.tuning import save_tuned
    from gemmviz.core.variants import get_variant

    names = _variants(args.variants)
    for name in names:
        if get_variant(name).tune_space is None:
            raise ProblemError(f"{name} has no tuning space (tunable: gpu-warptile, gpu-vectorize, gpu-doublebuffer)")
    if args.size < 128 or args.size % 128:
        raise ProblemError(f"--size must be a multiple of 128, at least 128; got {args.size}")
    ok, reason = cuda_status()
    if not ok:
        print(f"gemmviz: error: tuning needs a CUDA GPU: {reason}", file=sys.stderr)
        return 1
    from gemmviz.backends.autotune import tune

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["variant", "config", "status", "median_ms", "gflops", "error"])
    for name in names:
        report = tune(name, size=args.size, repeats=args.repeats, progress=ProgressBar())
        best = report["best"]
        cfg = " ".join(f"{k}={v}" for k, v in best["config"].items())
        default = best["default_gflops"]
        print(f"{name} on {report['gpu']}: best {best['gflops']:,.0f} GFLOP/s at {args.size}^3 with {cfg} "
              f"({best['configs_valid']} of {best['configs_tried']} configurations compiled and verified; "
              f"default config {default and format(default, ',.0f')} GFLOP/s)")  # fmt: skip
        for row in report["rows"]:
            writer.writerow([name, " ".join(f"{k}={v}" for k, v in row["config"].items()), row["status"],
                             row["median_ms"] or "", row["gflops"] or "", row.get("error", "")])  # fmt: skip
        if args.save_to:
            save_tuned(name, report["gpu"], best, Path(args.save_to))
    if args.csv:
        write_atomic(args.csv, out.getvalue())
    return 0


def cmd_ceilings(args) -> int:
    from gemmviz.backends.cuda import cuda_status

    ok, reason = cuda_status()
    if not ok:
        print(f"gemmviz: error: measuring ceilings needs a CUDA GPU: {reason}", file=sys.stderr)
        return 1
    from gemmviz.backends.ceilings import measure_ceilings, save_ceilings

    data = measure_ceilings()
    save_ceilings(data)
    if args.save_to:
        save_ceilings(data, Path(args.save_to))
    print(json.dumps(data, indent=1))
    return 0


def ensure_gui_platform() -> None:
    """Render without a screen when there is none (CI, ssh): Qt's offscreen platform."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and sys.platform.startswith("linux"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def parse_pixels(text: str, lo: int = 16, hi: int = 8192) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().replace("×", "x").split("x"))
    except ValueError:
        raise ProblemError(f"size must be WIDTHxHEIGHT in pixels, got {text!r}") from None
    if not (lo <= w <= hi and lo <= h <= hi):
        raise ProblemError(f"size {w}x{h} is out of range: each side must be {lo}…{hi} pixels")
    return w, h


def _qt_app():
    ensure_gui_platform()
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication(sys.argv[:1])


def cmd_export(args) -> int:
    from gemmviz.core.results import Session, SessionError
    from gemmviz.core.roofline import load_ceilings

    width, height = parse_pixels(args.size)
    try:
        session = Session.load(args.session)
    except SessionError as exc:
        raise ProblemError(str(exc)) from None
    if args.baseline not in ("cpu-naive", "gpu-naive", "cublas"):
        raise ProblemError(f"--baseline must be cpu-naive, gpu-naive or cublas, got {args.baseline!r}")
    at = parse_problem(args.at).key if args.at else None
    results = session.results
    if args.variants:
        from gemmviz.cli import _variants

        keep = set(_variants(args.variants))
        results = [r for r in results if r.variant in keep]
    app = _qt_app()
    from gemmviz.ui.export import ExportError, export_chart
    from gemmviz.ui.theme import theme_for

    gpu = session.environment.get("backends", {}).get("cuda", {})
    ceilings = load_ceilings(gpu["name"]) if gpu.get("available") else None
    try:
        path = export_chart(args.chart, results, args.output, width, height,
                            theme_for(args.projector, args.dark), ceilings, (args.baseline, at, ""))  # fmt: skip
    except (ExportError, OSError) as exc:
        print(f"gemmviz: error: {exc}", file=sys.stderr)
        return 1
    del app
    print(f"wrote {path} ({width}x{height})")
    return 0


def cmd_animate(args) -> int:
    from gemmviz.core.schedule import block_schedule

    problem = parse_problem(args.mnk)
    width, height = parse_pixels(args.size)
    schedule = block_schedule(args.variant, problem, args.tile, _pair(args.block, "--block"))
    ty, tx = _pair(args.thread, "--thread")
    dy, dx = schedule.thread_dims
    if not (0 <= ty < dy and 0 <= tx < dx):
        raise ProblemError(f"--thread {ty},{tx} is outside the block's {dy}×{dx} threads")
    if not (args.frames or args.gif or args.mp4):
        raise ProblemError("give --frames DIR, --gif FILE or --mp4 FILE")
    if args.speed <= 0:
        raise ProblemError(f"--speed must be positive, got {args.speed}")
    app = _qt_app()
    from gemmviz.ui.export import ExportError, export_frames, export_gif, export_mp4
    from gemmviz.ui.theme import theme_for

    theme = theme_for(args.projector, args.dark)
    try:
        if args.frames:
            n = export_frames(schedule, args.frames, (ty, tx), width, height, theme)
            print(f"wrote {n} frames ({width}x{height}) to {args.frames}")
        if args.gif:
            n = export_gif(schedule, args.gif, (ty, tx), width, height, args.speed, theme)
            print(f"wrote {args.gif}: {n} frames ({width}x{height})")
        if args.mp4:
            n = export_mp4(schedule, args.mp4, (ty, tx), width, height, args.speed, theme)
            print(f"wrote {args.mp4}: {n} steps ({width}x{height})")
    except (ExportError, OSError) as exc:
        print(f"gemmviz: error: {exc}", file=sys.stderr)
        return 1
    del app
    return 0


def run_app(args) -> int:
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or os.environ.get("QT_QPA_PLATFORM")
    ):
        print(
            "gemmviz: error: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset). "
            "Without a screen use the headless commands: gemmviz info | bench | model | export | animate.",
            file=sys.stderr,
        )
        return 1
    try:
        from gemmviz.ui.app import run
    except ImportError as exc:
        print(f"gemmviz: error: the desktop app needs PySide6 and pyqtgraph ({exc})", file=sys.stderr)
        return 1
    return run(projector=args.projector)
