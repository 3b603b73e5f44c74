"""`gemmviz lesson`: list the shipped lessons, or export one as slides (step-01.png, … and lesson.pdf), headless.

The slides are drawn by the same code as the window's lesson mode (ui/lesson/render.py); Qt starts only
when there is something to draw, after the lesson, the session and the output folder have been checked."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from gemmviz.cli.common import EXIT_OK, CommandError, UsageError, nonempty
from gemmviz.cli.export import shipped_session
from gemmviz.core.fileio import hold
from gemmviz.core.numbers import LANGUAGES
from gemmviz.core.parsing import MAX_EXPORT_PIXELS, check_pixels, parse_pixels, pixel_budget_help
from gemmviz.core.text import printable

MIN_PX, MAX_PX = 320, 8192


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lesson", help="list the guided lessons, or export one as slides (PNG per step and a PDF)")
    p.add_argument("name", nargs="?", help="a shipped lesson's name (see --list) or a path to a lesson .toml")
    p.add_argument("--list", action="store_true", help="one lesson per line: name, title, number of steps, languages")
    p.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=argparse.SUPPRESS,
        help="the lesson's language, where it has one (default: en)",
    )
    p.add_argument(
        "--export",
        metavar="DIR",
        help="write step-01.png, step-02.png, …, lesson.pdf and handout.pdf (notes, key frames) into DIR",
    )
    p.add_argument(
        "--size",
        default="1920x1080",
        help=f"slide size in pixels, WxH (default 1920x1080; {pixel_budget_help(MIN_PX, MAX_PX)}, and "
        f"{MAX_EXPORT_PIXELS // 10**6:,} megapixels over all the slides)",
    )
    p.add_argument(
        "--projector",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="slides in projector type: larger text, thicker lines, bigger markers (the default; "
        "--no-projector for a screen or a printed hand-out)",
    )
    p.add_argument("--dark", action="store_true", help="dark theme")
    p.add_argument(
        "--session",
        metavar="FILE",
        type=nonempty,
        help="take the figures from this session JSON instead of the lesson's recorded one",
    )
    p.set_defaults(func=cmd_lesson)


def list_lessons() -> list[str]:
    from gemmviz.core.lesson.lessons import LessonError, all_shipped_lessons  # (numpy, psygnal: not for --help)

    try:
        lessons = all_shipped_lessons()
    except LessonError as exc:
        raise UsageError(str(exc)) from None
    return [
        f"{name}\t{by_lang.get('en', next(iter(by_lang.values()))).title}\t"
        f"{len(next(iter(by_lang.values())).steps)} steps\t{', '.join(by_lang)}"
        for name, by_lang in lessons.items()
    ]


def output_dir(path: str) -> Path:
    """Make DIR if missing; refuse it clearly if it is a file or not writable (before any drawing)."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise CommandError(f"cannot write slides into {out}: it is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"cannot create {out}: {exc.strerror or exc}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise CommandError(f"cannot write slides into {out}: the folder is not writable")
    return out


def cmd_lesson(args: argparse.Namespace) -> int:
    if args.list:
        if args.name or args.export:
            raise UsageError("--list takes no lesson name and no --export")
        print("\n".join(list_lessons()))
        return EXIT_OK
    if not args.name:
        raise UsageError("name a lesson (gemmviz lesson --list shows them), or give --list")
    if args.export is None:
        raise UsageError(
            f"nothing to do: add --export DIR to write slides, or give it live with gemmviz --lesson {args.name}"
        )
    if not args.export.strip():
        raise UsageError("--export: an empty folder name; give the folder to write the slides into")
    width, height = parse_pixels(args.size, MIN_PX, MAX_PX)
    from gemmviz.core.lesson.lessons import NO_DATA, LessonError, find_lesson, lesson_gaps, lesson_session

    try:
        lesson = find_lesson(args.name, getattr(args, "lang", None))
        source = lesson_session(lesson, shipped_session(args.session) if args.session else None)
    except LessonError as exc:
        raise UsageError(str(exc)) from None
    check_pixels(width, height, len(lesson.steps), "slide")  # before any drawing
    for line in lesson_gaps(lesson, source):  # the slides are still written; the teacher hears of it now
        print(printable(f"gemmviz: warning: {line}"), file=sys.stderr)
    out = output_dir(args.export)
    from gemmviz.cli.app import qt_app

    app = qt_app()
    from gemmviz.ui import i18n
    from gemmviz.ui.fonts import lesson_text, missing_font_warning
    from gemmviz.ui.lesson.handout import handout_pdf
    from gemmviz.ui.lesson.render import SLIDES_MANIFEST, export_slides
    from gemmviz.ui.lesson.views import kept_widgets

    # the folder held for the run, as the CLI holds every output (released at exit): a second gemmviz exporting
    # into it meanwhile is refused, where the two ran together and the folder held whichever finished last
    hold(out / SLIDES_MANIFEST)

    warning = missing_font_warning(lesson_text(lesson), lesson.path or lesson.name)  # never silent boxes
    if warning:
        print(printable(f"gemmviz: warning: {warning}"), file=sys.stderr)
    i18n.install(app, lesson.lang)  # the slides' words (header, footer, charts) in the lesson's; the CLI's stay English
    try:
        with kept_widgets():  # each chart laid out once for its PNG, its PDF page and its handout page

            def handout() -> bytes:  # notes and key frames, drawn once the slides are
                return handout_pdf(lesson, source or NO_DATA, width, height, args.projector, args.dark)

            paths = export_slides(
                lesson, source, out, width, height, args.projector, args.dark, extra={"handout.pdf": handout}
            )
    finally:
        i18n.install(app, "en")  # the process's language as it was (a caller in the same process, e.g. a test)
    del app
    pngs = [p for p in paths if p.suffix == ".png"]
    pdfs = " and ".join(p.name for p in paths if p.suffix == ".pdf")
    print(printable(f"wrote {len(pngs)} slides, {pdfs} into {out} ({width}x{height})"))
    return EXIT_OK
