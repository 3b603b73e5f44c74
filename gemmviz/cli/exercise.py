"""`gemmviz exercise`: list the exercises, write one's starter, check a student's kernel on the GPU.

gemmviz exercise --list
gemmviz exercise start tiled [DIR]        writes DIR/tiled.cu and DIR/tiled.md (the task)
gemmviz exercise hint tiled N             the N-th hint (they unlock one at a time)
gemmviz exercise check DIR/tiled.cu       compile, run, verify, sanitize, time, count; writes DIR/tiled.check.json
gemmviz exercise show DIR/tiled.check.json
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path

from gemmviz.cli.common import EXIT_FAILED, EXIT_OK, CommandError, UsageError
from gemmviz.core.check_record import CheckFileError, load_check, record_target, report_text
from gemmviz.core.exercises import ExerciseError, find_exercise, guess_exercise, read_source, shipped_exercises
from gemmviz.core.fileio import InputFileError, OutputError, check_target, write_atomic
from gemmviz.core.numbers import LANGUAGES

EPILOG = """\
exit status:
  0    done: the exercises listed, the starter written, the hints or the record shown, every goal of a check met
  1    a check ran and some goal failed (the report says which and why), or a file could not be written
  2    bad arguments, an unknown exercise (the message lists the known ones), or an input that cannot be used:
       a .cu that is not the exercise's kernel, a check record that is unreadable or malformed (the message
       names the field and what it must be); nothing was run"""


def _wrap(text: str) -> str:
    return textwrap.fill(text, 100, break_on_hyphens=False)


NAME_HELP = "an exercise's name (gemmviz exercise --list) or an exercise .toml"


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "exercise",
        help="write a kernel yourself: list exercises, start one, check your kernel on "
        "the GPU (correct, race-free, how fast, and why)",
        description=_wrap(
            "Write a GEMM kernel yourself and check it: `start` writes the starter and the task, `hint` "
            "unlocks the hints one at a time, `check` runs your kernel on the GPU, `show` prints a saved check."
        ),
        epilog=EPILOG,
    )
    p.add_argument("--list", action="store_true", help="one exercise per line: name, title, languages, reference")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    start = actions.add_parser(
        "start",
        help="write the starter .cu and the task into DIR",
        description=_wrap("Write NAME's starter kernel (NAME.cu, with TODOs) and its task (NAME.md) into DIR."),
        epilog=EPILOG,
    )
    start.add_argument("name", help=NAME_HELP)
    start.add_argument("dir", nargs="?", default=".", help="the folder to write into (default: here)")
    start.add_argument("--lang", choices=LANGUAGES, default="en", help="the task's language")
    start.add_argument("--force", action="store_true", help="replace a starter and a task already there")
    hint = actions.add_parser(
        "hint",
        help="show the exercise's hints up to N",
        description=_wrap("Print NAME's hints 1 to N: try each before asking for the next."),
        epilog=EPILOG,
    )
    hint.add_argument("name", help=NAME_HELP)
    hint.add_argument("n", type=int, nargs="?", default=1, help="how many hints to show (default 1)")
    hint.add_argument("--lang", choices=LANGUAGES, default="en", help="the hints' language")
    check = actions.add_parser(
        "check",
        help="compile, run on fixed sizes, verify every element, run "
        "compute-sanitizer, time beside the reference and cuBLAS, read ncu's counters",
        description=_wrap(
            "Check your kernel: compiles, correct at every size (every element verified), race-free "
            "(compute-sanitizer), and how fast beside the reference; the likeliest cause of a failure in one sentence. "
            "Without a GPU it runs your kernel on the CPU emulator (correct, memory-safe, race-free, access "
            "figures; speed is not measured there)."
        ),
        epilog=EPILOG,
    )
    check.add_argument("file", help="your .cu file")
    check.add_argument(
        "--exercise", metavar="NAME", help="which exercise (default: the one whose kernel the file defines)"
    )
    check.add_argument("--json", action="store_true", help="print the check record as JSON (for a grading script)")
    check.add_argument(
        "--out",
        metavar="FILE",
        help="where to save the check record (default: FILE.check.json beside the .cu; the app opens it)",
    )
    check.add_argument("--no-sanitize", action="store_true", help="skip compute-sanitizer")
    check.add_argument("--no-time", action="store_true", help="skip the timing")
    check.add_argument("--no-profile", action="store_true", help="skip Nsight Compute's counters")
    check.add_argument("--no-accesses", action="store_true", help="skip recording the memory accesses of two blocks")
    check.add_argument("--seed", type=int, help="the random inputs' seed, 0 to 2^63 - 1 (default: fresh each check)")
    check.add_argument(
        "--no-emulate",
        action="store_true",
        help="without a GPU, only compile (by default the kernel runs on the CPU emulator: correct, memory-safe, "
        "race-free, access figures; never speed)",
    )
    check.add_argument("--lang", choices=LANGUAGES, default="en", help="the verdicts' and the cause's language")
    show = actions.add_parser(
        "show",
        help="print a saved check record",
        description=_wrap(
            "Print a check record as `check` printed it; a malformed record is refused, naming the field."
        ),
        epilog=EPILOG,
    )
    show.add_argument("file", help="a check record: the NAME.check.json that gemmviz exercise check wrote")
    show.add_argument("--lang", choices=LANGUAGES, default="en", help="the verdicts' and the cause's language")
    p.set_defaults(func=cmd_exercise)


def _list() -> int:
    for e in shipped_exercises():
        print(f"{e.name}\t{e.title}\t{', '.join(e.languages)}\tvs {e.reference}")
    return EXIT_OK


def _exercise(name: str):
    try:
        return find_exercise(name)
    except ExerciseError as exc:
        raise UsageError(str(exc)) from None


def _start(args) -> int:
    exercise = _exercise(args.name)
    folder = Path(args.dir)
    if folder.exists() and not folder.is_dir():
        raise CommandError(f"{folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"cannot create {folder}: {exc.strerror or exc}") from None
    starter, task = folder / exercise.starter, folder / f"{exercise.name}.md"
    title, text, hints = exercise.text(args.lang)
    there = [p for p in (starter, task) if p.exists() or p.is_symlink()]
    if there and not args.force:
        raise CommandError(
            f"{', '.join(map(str, there))} already there (your work?); give --force to replace "
            "them with the starter and the task"
        )
    try:
        targets = [check_target(starter, (".cu",)), check_target(task, (".md",))]  # both, before writing either
        write_atomic(targets[0], exercise.starter_text())
        write_atomic(
            targets[1],
            f"# {title}\n\n{text}\n\n{len(hints)} hints: "
            f"gemmviz exercise hint {exercise.name} N\n\nCheck: gemmviz exercise check {starter}\n",
        )
    except (OutputError, OSError) as exc:
        raise CommandError(str(exc)) from None
    print(f"wrote {starter} and {task}\nfill in the TODOs, then: gemmviz exercise check {starter}")
    return EXIT_OK


def _hint(args) -> int:
    exercise = _exercise(args.name)
    _title, _task, hints = exercise.text(args.lang)
    if not hints:
        raise UsageError(f"{exercise.name} has no hints")
    if not 1 <= args.n <= len(hints):
        raise UsageError(f"{exercise.name} has hints 1 to {len(hints)}")
    for i, h in enumerate(hints[: args.n], 1):
        print(f"hint {i}/{len(hints)}: {h}")
    return EXIT_OK


def _check(args) -> int:
    from gemmviz.backends.exercise import Cancelled, CheckOptions, check_exercise

    path = Path(args.file)
    try:
        source = read_source(path)
        exercise = find_exercise(args.exercise) if args.exercise else guess_exercise(source)
    except ExerciseError as exc:
        raise UsageError(str(exc)) from None
    if exercise is None:
        raise UsageError(f"{path} defines none of the exercises' kernels; name one with --exercise")
    if args.out is not None and not args.out.strip():
        raise UsageError("--out: an empty file name; give the file to write the check record into")
    if args.out is not None and (Path(args.out).is_dir() or Path(args.out).suffix.lower() != ".json"):
        raise UsageError(f"--out {args.out}: give a file name ending in .json (a check record), not a folder")
    if args.seed is not None and not 0 <= args.seed < 2**63:
        raise UsageError(f"--seed must be from 0 to 2^63 - 1, got {args.seed}")
    try:
        target = record_target(path, Path(args.out) if args.out else None)
    except OutputError as exc:
        raise CommandError(str(exc)) from None
    options = CheckOptions(
        sanitize=not args.no_sanitize,
        time=not args.no_time,
        profile=not args.no_profile,
        accesses=not args.no_accesses,
        seed=args.seed,
        emulate=not args.no_emulate,
    )

    def progress(i, n, what):
        if not args.json:
            print(f"[{i}/{n}] {what}", file=sys.stderr)

    try:
        record = check_exercise(path, exercise, options, progress)
    except ExerciseError as exc:
        raise UsageError(str(exc)) from None
    except Cancelled:
        raise KeyboardInterrupt from None
    saved = True
    try:
        write_atomic(target, json.dumps(record, indent=1))
    except (OutputError, OSError) as exc:
        print(f"gemmviz: warning: the check record could not be saved: {exc}", file=sys.stderr)
        saved = False
    print(json.dumps(record, indent=1) if args.json else report_text(record, args.lang))
    if not args.json and saved:
        print(f"\nsaved {target} (open it in the app's Exercise tab)")
    passed = all(v["status"] == "pass" for v in record["verdicts"])
    return EXIT_OK if passed and saved else EXIT_FAILED  # the record asked for, unsaved, is a failure too


def _show(args) -> int:
    try:
        record = load_check(args.file)
    except (CheckFileError, InputFileError) as exc:
        raise UsageError(str(exc)) from None
    print(report_text(record, args.lang))
    return EXIT_OK


def cmd_exercise(args: argparse.Namespace) -> int:
    if args.list:
        if args.action:
            raise UsageError("--list takes no action")
        return _list()
    actions = {"start": _start, "hint": _hint, "check": _check, "show": _show}
    if args.action not in actions:
        raise UsageError("give --list, or an action: start, hint, check, show (gemmviz exercise -h)")
    return actions[args.action](args)
