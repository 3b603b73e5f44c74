"""`gemmviz exercise`: list the exercises, write one's starter, check a student's kernel on the GPU.

gemmviz exercise list                     (or --list)
gemmviz exercise start tiled [DIR]        writes DIR/tiled.cu and DIR/tiled.md (the task)
gemmviz exercise hint tiled N             the N-th hint (they unlock one at a time)
gemmviz exercise check DIR/tiled.cu       compile, run, verify, sanitize, time, count; writes DIR/tiled.check.json
gemmviz exercise show DIR/tiled.check.json
gemmviz exercise grade DIR --exercise tiled --csv grades.csv [--jobs N] [--shard I/N]
                                          every .cu under DIR checked, one CSV row each (docs/exercises-grading.md)
gemmviz exercise grade DIR --exercise tiled --csv grades.csv --slurm-script N > grade.sh
                                          the Slurm job array that does it in N tasks (core/exercise/slurm.py)
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import textwrap
from pathlib import Path

from gemmviz.cli.common import EXIT_FAILED, EXIT_OK, CommandError, UsageError, check_outputs, nonempty, whole_number
from gemmviz.core.fileio import FileFormatError, OutputError, staged_folder, write_atomic, write_new
from gemmviz.core.interrupt import Interrupted
from gemmviz.core.numbers import LANGUAGES
from gemmviz.core.text import printable

GRADE_EPILOG = """\
exit status:
  0    every file under DIR (in this shard) has its row in the CSV with a grade or the reason it has none
       (not a kernel, unreadable, a link out of DIR), whatever the grades
  1    the CSV could not be written (another gemmviz holds it: its lock file), or some file's row says "not
       checked" (the process checking it died): the same command checks those again
  2    bad arguments, an unknown exercise, a DIR that is no folder or cannot be listed, or an earlier CSV
       that cannot be resumed (malformed: other columns, or a row this gemmviz did not write, such as one
       with a note added; the message names its line); nothing was checked and the CSV is left as it was
  130  Ctrl+C, 143 SIGTERM (a batch system's stop): the CSV holds every row finished before it; the same
       command resumes"""

EPILOG = """\
exit status:
  0    done: the exercises listed, the starter written, the hints or the record shown, or a check whose every
       judged goal passed (correct, memory-safe, race-free, the access goal, and speed where a GPU timed it;
       without a GPU speed is not measured, and that alone does not fail the check)
  1    a check ran and some goal failed or could not be judged (the report says which and why: a kernel the
       emulator refused, --no-emulate without a GPU), or a file could not be written
  2    bad arguments, an unknown exercise (the message lists the known ones), or an input that cannot be used:
       a .cu that is not the exercise's kernel, a check record that is unreadable or malformed (the message
       names the field and what it must be); nothing was run"""


def _wrap(text: str) -> str:
    return textwrap.fill(text, 100, break_on_hyphens=False)


NAME_HELP = "an exercise's name (gemmviz exercise list) or an exercise .toml"


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
    for add in (_list_parser, _start_parser, _hint_parser, _check_parser, _show_parser, _grade_parser):
        add(actions)
    p.set_defaults(func=cmd_exercise)


def _list_parser(actions) -> None:
    actions.add_parser(
        "list",
        help="one exercise per line: name, title, languages, reference (as --list)",
        description=_wrap("List the shipped exercises, one per line: name, title, languages, reference."),
        epilog=EPILOG,
    )


def _start_parser(actions) -> None:
    start = actions.add_parser(
        "start",
        help="write the starter .cu and the task into DIR",
        description=_wrap("Write NAME's starter kernel (NAME.cu, with TODOs) and its task (NAME.md) into DIR."),
        epilog=EPILOG,
    )
    start.add_argument("name", help=NAME_HELP)
    start.add_argument("dir", nargs="?", default=".", type=nonempty, help="the folder to write into (default: here)")
    start.add_argument("--lang", choices=LANGUAGES, default="en", help="the task's language")
    start.add_argument("--force", action="store_true", help="replace a starter and a task already there")


def _hint_parser(actions) -> None:
    hint = actions.add_parser(
        "hint",
        help="show the exercise's hints up to N",
        description=_wrap("Print NAME's hints 1 to N: try each before asking for the next."),
        epilog=EPILOG,
    )
    hint.add_argument("name", help=NAME_HELP)
    hint.add_argument("n", type=whole_number, nargs="?", default=1, help="how many hints to show (default 1)")
    hint.add_argument("--lang", choices=LANGUAGES, default="en", help="the hints' language")


def _check_parser(actions) -> None:
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
        "--exercise",
        metavar="NAME",
        type=nonempty,
        help="which exercise (default: the one whose kernel the file defines)",
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
    check.add_argument(
        "--seed", type=whole_number, help="the random inputs' seed, 0 to 2^63 - 1 (default: fresh each check)"
    )
    check.add_argument(
        "--no-emulate",
        action="store_true",
        help="without a GPU, only compile (by default the kernel runs on the CPU emulator: correct, memory-safe, "
        "race-free, access figures; never speed)",
    )
    check.add_argument("--lang", choices=LANGUAGES, default="en", help="the verdicts' and the cause's language")


def _show_parser(actions) -> None:
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


def _grade_parser(actions) -> None:
    grade = actions.add_parser(
        "grade",
        help="check every .cu under DIR (a class's hand-ins) and write one CSV row per file; resumes",
        description=_wrap(
            "Check every .cu under DIR as `check` does and write one CSV row per file: each goal's status, "
            "whether it passed, the likeliest cause, the access figures. Checks run in parallel processes "
            "(one at a time where a GPU is found). A rerun skips the files whose row holds the same source "
            "hash, so an interrupted run resumes. Links out of DIR are not followed; nothing is written in DIR. "
            "See docs/exercises-grading.md (a Slurm job array: --shard)."
        ),
        epilog=GRADE_EPILOG,
    )
    grade.add_argument("dir", help="the folder of the students' .cu files (searched with its subfolders)")
    grade.add_argument("--exercise", metavar="NAME", type=nonempty, required=True, help=NAME_HELP)
    grade.add_argument("--csv", metavar="FILE", required=True, help="the grades: written, or resumed if it exists")
    grade.add_argument(
        "--jobs", type=whole_number, default=1, metavar="N", help="checks at a time without a GPU (default 1)"
    )
    grade.add_argument(
        "--shard", metavar="I/N", help="only this shard's files, I from 0 to N - 1 (a Slurm array task's share)"
    )
    grade.add_argument(
        "--slurm-script",
        type=int,
        metavar="N",
        help="grade nothing: print the Slurm job array that grades DIR in N tasks, each its --shard into its own "
        "CSV, with the command that joins them (sbatch it; docs/exercises-grading.md)",
    )
    grade.add_argument("--lang", choices=LANGUAGES, default="en", help="the language of the access goal's cause")
    grade.add_argument("--no-sanitize", action="store_true", help="skip compute-sanitizer")
    grade.add_argument("--no-time", action="store_true", help="skip the timing")
    grade.add_argument("--no-profile", action="store_true", help="skip Nsight Compute's counters")
    grade.add_argument(
        "--seed", type=whole_number, help="the random inputs' seed, 0 to 2^63 - 1 (default: fresh each check)"
    )


def _list() -> int:
    from gemmviz.core.exercise.exercises import shipped_exercises

    for e in shipped_exercises():
        print(printable(f"{e.name}\t{e.title}\t{', '.join(e.languages)}\tvs {e.reference}"))
    return EXIT_OK


def _exercise(name: str):
    from gemmviz.core.exercise.exercises import ExerciseError, find_exercise

    try:
        return find_exercise(name)
    except ExerciseError as exc:
        raise UsageError(str(exc)) from None


def _start(args) -> int:
    from gemmviz.core.exercise.exercises import ExerciseError

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
        code = exercise.starter_text()  # a starter that is a folder, a FIFO, too big or outside: refused first
    except ExerciseError as exc:
        raise UsageError(str(exc)) from None
    markdown = (
        f"# {printable(title)}\n\n{printable(text, lines=True)}\n\n{len(hints)} hints: "
        f"gemmviz exercise hint {exercise.name} N\n\nCheck: gemmviz exercise check {printable(starter)}\n"
    )
    try:
        # Both or neither; names gemmviz picks, so a link there is replaced, never written through (--force too)
        with staged_folder(folder) as staging:
            write_new(staging / exercise.starter, code.encode("utf-8", "surrogateescape"))
            write_new(staging / task.name, markdown.encode("utf-8", "backslashreplace"))
    except (OutputError, OSError) as exc:
        raise CommandError(str(exc)) from None
    print(printable(f"wrote {starter} and {task}"))
    print(printable(f"fill in the TODOs, then: gemmviz exercise check {starter}"))
    return EXIT_OK


def _hint(args) -> int:
    exercise = _exercise(args.name)
    _title, _task, hints = exercise.text(args.lang)
    if not hints:
        raise UsageError(f"{exercise.name} has no hints")
    if not 1 <= args.n <= len(hints):
        raise UsageError(f"{exercise.name} has hints 1 to {len(hints)}")
    for i, h in enumerate(hints[: args.n], 1):
        print(f"hint {i}/{len(hints)}: {printable(h)}")
    return EXIT_OK


def _check(args) -> int:
    from gemmviz.backends.exercise import Cancelled, CheckOptions, check_exercise
    from gemmviz.core.exercise.check import finish, judged
    from gemmviz.core.exercise.exercises import ExerciseError, find_exercise, guess_exercise, read_source
    from gemmviz.core.exercise.record import record_target

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
    if args.out is not None and Path(args.out).is_dir():
        raise UsageError(f"--out {args.out}: a folder; give a file name ending in .json (a check record)")
    if args.out is not None and Path(args.out).suffix.lower() != ".json":
        raise UsageError(f"--out {args.out}: give a file name ending in .json (a check record)")
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
        record = finish(check_exercise(path, exercise, options, progress), exercise)  # its access goal too
    except ExerciseError as exc:
        raise UsageError(str(exc)) from None
    except Cancelled:
        raise KeyboardInterrupt from None
    saved = True
    try:
        write_atomic(target, json.dumps(record, indent=1))
    except (OutputError, OSError) as exc:
        print(printable(f"gemmviz: warning: the check record could not be saved: {exc}"), file=sys.stderr)
        saved = False
    print(json.dumps(record, indent=1) if args.json else _report(record, args.lang))
    if not args.json and saved:
        print(f"\n{printable(f'saved {target}')} (open it in the app's Exercise tab)")
    # every judged goal passed; speed alone may go unmeasured (no GPU); an unsaved record is a failure too
    return EXIT_OK if judged(record) and saved else EXIT_FAILED


def _show(args) -> int:
    from gemmviz.core.exercise.record import load_check

    try:
        record = load_check(args.file)
    except FileFormatError as exc:  # the record's own refusal (CheckFileError) or the file's
        raise UsageError(str(exc)) from None
    print(_report(record, args.lang))
    return EXIT_OK


def _report(record: dict, lang: str) -> str:
    """The report as the terminal gets it: the file's name on one line, no control character of a name or of
    the student's code (core/text.printable)."""
    from gemmviz.core.exercise.report import report_text

    shown = {**record, "file": printable(record.get("file", ""))}
    return printable(report_text(shown, lang), lines=True)


def _grade(args) -> int:
    from gemmviz.backends.grade_cache import check_once
    from gemmviz.backends.grading import GradeOptions, grade
    from gemmviz.core.exercise.grading import GradeError, parse_shard

    exercise = _exercise(args.exercise)
    folder = Path(args.dir)
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder; give the folder of the students' .cu files")
    if not 1 <= args.jobs <= 256:
        raise UsageError(f"--jobs must be from 1 to 256, got {args.jobs}")
    if args.seed is not None and not 0 <= args.seed < 2**63:
        raise UsageError(f"--seed must be from 0 to 2^63 - 1, got {args.seed}")
    if args.slurm_script is not None:
        return _slurm_script(args, folder)
    try:
        shard = parse_shard(args.shard) if args.shard is not None else None
        (target,) = check_outputs(("--csv", args.csv, (".csv",)))  # held: a second grading run of it is refused
        assert target is not None  # --csv is required
    except GradeError as exc:
        raise UsageError(str(exc)) from None
    except OutputError as exc:
        raise CommandError(str(exc)) from None
    options = GradeOptions(
        sanitize=not args.no_sanitize,
        time=not args.no_time,
        profile=not args.no_profile,
        seed=args.seed,
        lang=args.lang,
    )

    def progress(i: int, n: int, row: dict) -> None:
        verdict = row["error"] or f"passed: {row['passed']}"
        print(printable(f"[{i}/{n}] {row['file']}: {verdict}"), file=sys.stderr)

    # Ctrl+C and SIGTERM (a batch system's stop, Slurm's time limit) are cli/main's: exit 130 and 143
    try:
        # a hand-in with the same text as one before it is checked once (backends/grade_cache.py)
        run = grade(folder, exercise, target, args.jobs, shard, options, checker=check_once, progress=progress)
    except GradeError as exc:
        raise UsageError(str(exc)) from None
    except (OutputError, OSError) as exc:
        raise CommandError(f"the grades could not be written: {exc}") from None
    where = f"on {run.gpu}, one at a time" if run.gpu else f"without a GPU, {run.jobs} at a time"
    print(
        printable(
            f"{run.found} file(s) under {folder}: {run.checked} checked now ({where}), {run.kept} kept from "
            f"{target}; grades in {target}"
        )
    )
    if run.interrupted:
        left = run.found - run.kept - run.checked
        print(f"interrupted: run the same command again to grade the other {left}", file=sys.stderr)
        raise Interrupted(run.signum)
    if run.not_checked:
        print(
            f"gemmviz: {run.not_checked} file(s) not checked (the process checking it died): run the same "
            "command again to check them",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return EXIT_OK


def _slurm_script(args, folder: Path) -> int:
    """--slurm-script N: print the job array (core/exercise/slurm.py) with this machine's paths."""
    from gemmviz.core.exercise.slurm import MAX_TASKS, SlurmJob, import_root, script

    if not 1 <= args.slurm_script <= MAX_TASKS:
        raise UsageError(f"--slurm-script must be from 1 to {MAX_TASKS} tasks, got {args.slurm_script}")
    if args.shard is not None:
        raise UsageError("--shard with --slurm-script: the script gives each task its shard")
    csv = Path(os.path.abspath(args.csv))
    if csv.suffix.lower() != ".csv" or not csv.parent.is_dir():
        raise UsageError(f"--csv {args.csv}: give a file name ending in .csv in a folder that exists")
    exercise = str(Path(args.exercise).resolve()) if args.exercise.lower().endswith(".toml") else args.exercise
    options = [o for o, on in (("--no-sanitize", args.no_sanitize), ("--no-time", args.no_time)) if on]
    options += ["--no-profile"] * args.no_profile + ["--seed", str(args.seed)] * (args.seed is not None)
    options += ["--lang", args.lang]  # every task speaks the language asked for
    given = [args.dir, "--exercise", args.exercise, "--csv", args.csv, "--slurm-script", str(args.slurm_script)]
    given += ["--jobs", str(args.jobs)] * (args.jobs != 1)
    job = SlurmJob(
        python=sys.executable,
        folder=folder.resolve(),
        exercise=exercise,
        csv=csv,
        tasks=args.slurm_script,
        jobs=args.jobs,
        options=tuple(options),
        pythonpath=import_root(),
        command=shlex.join(["gemmviz", "exercise", "grade", *given, *options]),
    )
    print(script(job), end="")
    return EXIT_OK


def cmd_exercise(args: argparse.Namespace) -> int:
    if args.list:
        if args.action:
            raise UsageError("--list takes no action")
        return _list()
    actions = {"list": lambda _args: _list(), "start": _start, "hint": _hint, "check": _check, "show": _show}
    actions["grade"] = _grade
    if args.action not in actions:
        raise UsageError("give an action: list, start, hint, check, show, grade (gemmviz exercise -h)")
    return actions[args.action](args)
