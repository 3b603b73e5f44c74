"""`gemmviz model` (traffic, FLOPs and intensity from the closed form) and `gemmviz animate` (the tiling animation
without a window, written in any registered animation format: -o by its path's suffix, as File ▸ Export
animation; --frames, --gif and --mp4 name their format)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from gemmviz.cli.app import qt_app
from gemmviz.cli.common import EXIT_OK, CommandError, Progress, UsageError, check_outputs, number, whole_number
from gemmviz.core import export_formats
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.parsing import PIXEL_BUDGET_HELP, WHOLE, parse_pixels
from gemmviz.core.problem import parse_problem
from gemmviz.core.schedule.block import animated_variants
from gemmviz.core.text import printable
from gemmviz.ui.export import formats  # the animation formats with their writers, listed by -o (Qt-free likewise)

MAX_SPEED = 1000.0  # steps per second; a frame shows for at least 20 ms (GIF's resolution is 10 ms)
MIN_SPEED = 0.01  # a step shows for at most 100 s (a GIF frame holds at most 655.35 s: slower was clamped, silently)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("model", help="global/shared traffic, FLOPs and intensity of a variant, from the model")
    p.add_argument(
        "--variant",
        default="gpu-tiled",
        choices=list(VARIANTS),
        metavar="VARIANT",
        help=f"one of {', '.join(VARIANTS)} (default %(default)s)",
    )
    p.add_argument("--mnk", required=True, help="N or MxNxK")
    p.add_argument(
        "--tile", type=whole_number, default=None, help="the variant's tile or block edge (its one parameter)"
    )
    p.add_argument("--json", action="store_true", help="print the model as JSON instead of text")
    p.set_defaults(func=cmd_model)

    animated = list(animated_variants())  # the variants with a schedule kind (core/schedule/kinds.py)
    p = sub.add_parser("animate", help="render the tiling animation's frames (PNG) without a window")
    p.add_argument(
        "--variant", default="gpu-tiled", choices=animated, help=", ".join(animated) + " (default %(default)s)"
    )
    p.add_argument("--mnk", required=True, help="N or MxNxK")
    p.add_argument(
        "--tile",
        type=whole_number,
        default=None,
        help=f"the variant's tile or block edge (default {DEFAULT_TILE}); gpu-blocktile2d and gpu-wgmma-tf32 "
        "animate their configuration's tiles and take none",
    )
    p.add_argument("--block", default="0,0", help="which thread block: y,x (default %(default)s)")
    p.add_argument("--thread", default="0,0", help="which thread to highlight: y,x (default %(default)s)")
    p.add_argument(
        "--size", default="1280x720", help=f"frame size in pixels, WxH (default %(default)s; {PIXEL_BUDGET_HELP})"
    )
    p.add_argument(
        "-o",
        "--output",
        action="append",
        metavar="PATH",
        help=f"write the animation (may be repeated): {_formats_words()}. A .png is one picture, the first "
        "frame (the app's File ▸ Export animation writes the frame it shows); a name ending in / is a folder",
    )
    p.add_argument(
        "--frames", metavar="DIR", help="directory to write frame_0000.png … into (as -o DIR/; not a .png name)"
    )
    p.add_argument(
        "--gif",
        metavar="FILE",
        help="write an animated GIF (every step, the tiles gliding into shared memory before each load; as -o FILE)",
    )
    p.add_argument("--mp4", metavar="FILE", help="write an MP4 video (needs ffmpeg; as -o FILE)")
    p.add_argument("--speed", type=number, default=2.0, help="steps per second in GIF/MP4 (default %(default)s)")
    p.add_argument("--projector", action="store_true", help="large fonts and thick lines")
    p.add_argument("--dark", action="store_true", help="dark theme")
    p.set_defaults(func=cmd_animate)


ALIASES = {"frames": "frames", "gif": "gif", "mp4": "mp4"}  # option -> the registered animation format it writes


def _formats_words() -> str:
    """What -o writes, from the registered animation formats (core/export_formats.py, ui/export/formats/): "out.gif
    (Animated GIF) or out.mp4 (MP4 video, needs ffmpeg); a name without a suffix, or ending in /: PNG frames (folder)"."""
    folders = [f.title for f in export_formats.formats(export_formats.ANIMATION) if not f.suffix]
    rest = f"; a name without a suffix, or ending in /: {' or '.join(folders)}" if folders else ""
    return export_formats.describe(export_formats.ANIMATION) + rest


def _outputs(args: argparse.Namespace) -> list[tuple[str, type[export_formats.ExportFormat], str]]:
    """(option, format, path) of every output asked for: -o's by the path's suffix (export_formats.for_path, as
    File ▸ Export animation), then --frames, --gif and --mp4 as the formats they name."""
    outputs = []
    folder = export_formats.get(export_formats.ANIMATION, "frames")
    for path in args.output or ():
        if not path.strip():
            raise UsageError("-o: an empty file name; give the file or folder to write")
        try:
            fmt = formats.writer(export_formats.ANIMATION, path)
        except ValueError as exc:
            raise UsageError(f"-o: {exc}") from None
        if path.endswith(("/", os.sep)):  # a folder asked for, whatever its name looks like
            if fmt.suffix:
                raise UsageError(
                    f"-o {path}: the / makes it a folder of frames, but {fmt.suffix} names a file "
                    f"({fmt.title}); drop the / for one file, or name the folder without {fmt.suffix}"
                )
            fmt = folder
        outputs.append(("-o", fmt, path))
    for option, name in ALIASES.items():
        path = getattr(args, option)
        if path is not None:
            outputs.append((f"--{option}", export_formats.get(export_formats.ANIMATION, name), path))
    for option, fmt, path in outputs:
        if not fmt.suffix and Path(path).suffix.lower() in export_formats.suffixes(export_formats.ANIMATION):
            raise UsageError(
                f"{option} {path}: a folder of frames named like a file; for one file give -o {path}, "
                "for frames a folder name without a file suffix"
            )
    if not outputs:
        raise UsageError(f"give -o PATH, --frames DIR, --gif FILE or --mp4 FILE; -o writes {_formats_words()}")
    return outputs


def pair(text: str, what: str) -> tuple[int, int]:
    parts = text.replace("x", ",").split(",")
    if len(parts) != 2 or not all(WHOLE.fullmatch(x.strip()) for x in parts):
        raise UsageError(f"{what} must be two whole numbers like 1,2 (digits 0-9), got {text!r}")
    a, b = (int(x) for x in parts)
    return a, b


def cmd_model(args: argparse.Namespace) -> int:
    from gemmviz.core.kernels.model import naive_traffic

    variant = VARIANTS[args.variant]
    problem = parse_problem(args.mnk)
    given = {}
    if args.tile is not None:
        keys = list(variant.param_choices)
        if len(keys) != 1:
            raise UsageError(f"{variant.name} has no tile or block parameter")
        given[keys[0]] = args.tile
    params = variant.resolve_params(given)
    refusal = variant.refusal(problem, params)
    if refusal:
        raise UsageError(refusal)
    t = variant.traffic_model(problem, params)
    naive = naive_traffic(problem)
    fmas = problem.m * problem.n * problem.k
    out = {
        "variant": variant.name,
        "params": params,
        "m": problem.m,
        "n": problem.n,
        "k": problem.k,
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
    }
    if args.json:
        print(json.dumps(out, indent=1))
        return EXIT_OK
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
    return EXIT_OK


DEFAULT_TILE = 16


def animation_tile(variant: str, tile: int | None) -> int:
    """The tile edge the animation takes: --tile where the variant has one to choose (DEFAULT_TILE when not
    given); a --tile given to a variant whose tiles are its configuration's is refused, not ignored."""
    from gemmviz.core.kernels.variants import VARIANTS

    v = VARIANTS[variant]
    if tile is not None and not v.schedule_param:
        raise UsageError(f"--tile {tile}: {variant} animates the tiles of its own configuration; leave out --tile")
    return DEFAULT_TILE if tile is None else tile


def cmd_animate(args: argparse.Namespace) -> int:
    from gemmviz.core.schedule.block import block_schedule

    problem = parse_problem(args.mnk)
    width, height = parse_pixels(args.size)
    schedule = block_schedule(
        args.variant, problem, animation_tile(args.variant, args.tile), pair(args.block, "--block")
    )
    ty, tx = pair(args.thread, "--thread")
    dy, dx = schedule.thread_dims
    if not (0 <= ty < dy and 0 <= tx < dx):
        raise UsageError(f"--thread {ty},{tx} is outside the block's {dy}×{dx} threads")
    if args.frames is not None and not args.frames.strip():
        raise UsageError("--frames: an empty folder name; give the folder to write the frames into")
    outputs = _outputs(args)
    if not (MIN_SPEED <= args.speed <= MAX_SPEED):
        raise UsageError(
            f"--speed must be from {MIN_SPEED:g} to {MAX_SPEED:g} steps per second (at most 100 s a step), "
            f"got {args.speed}"
        )
    from gemmviz.ui.export.animation import check_animation_budget, check_frames_folder

    for _option, fmt, _path in outputs:
        check_animation_budget(fmt, schedule, width, height)
    check_outputs(*((option, path, export_formats.all_suffixes(fmt)) for option, fmt, path in outputs if fmt.suffix))

    for _option, fmt, path in outputs:
        if not fmt.suffix:
            check_frames_folder(path)  # as check_outputs for files: an output that cannot be written, exit 1
    app = qt_app()
    from gemmviz.ui.export.exporters import ExportError
    from gemmviz.ui.theme import theme_for

    theme = theme_for(args.projector, args.dark)
    try:  # a bar on stderr when it is a terminal: a long K takes minutes; Ctrl+C stops between frames
        for _option, fmt, path in outputs:
            with Progress() as bar:
                n = fmt.write(schedule, path, (ty, tx), width, height, args.speed, theme, bar)
            if getattr(fmt, "still", False):
                print(printable(f"wrote {path}: the first frame ({width}x{height})"))
            elif not fmt.suffix:
                print(printable(f"wrote {n} frames ({width}x{height}) to {path}"))
            else:
                print(printable(f"wrote {path}: {n} frames ({width}x{height})"))
    except ExportError as exc:
        raise CommandError(str(exc)) from None
    del app
    return EXIT_OK
