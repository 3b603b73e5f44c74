"""The parser, dispatch to the command modules, exit codes and the one-line error style.

Building the parser imports only core (no Qt, PyCUDA or numba): each command imports its heavy
dependencies when it runs."""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import os
import re
import sys
import time
from collections.abc import Iterator

from gemmviz import __version__
from gemmviz.cli import app, bench, desktop, exercise, export, lesson, model, profile, tune
from gemmviz.cli.common import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, CommandError, UsageError, nonempty
from gemmviz.core import interrupt, paths
from gemmviz.core.fileio import FileFormatError, release_all
from gemmviz.core.numbers import LANGUAGES
from gemmviz.core.problem import ProblemError
from gemmviz.core.text import printable

EPILOG = """\
exit status:
  0    every job ran and verified (or the command did what was asked)
  1    some jobs were refused, failed, invalid or unavailable (the table says why; stderr names them),
       or the command could not finish (an output that cannot be written, no GPU for tune/ceilings/profile,
       ncu missing or GPU counters not permitted for profile; its timings are still saved), or stdout
       could not be written (a full disk, > /dev/full: one line on stderr says so)
  2    bad arguments or an unreadable input file (nothing was run)
  130  interrupted (Ctrl+C); results that finished are already in --out / --csv, an output being written
       is left as it was before (no partial file, lock or temporary file)
  143  terminated (SIGTERM), as for Ctrl+C

Outputs (--out, --csv, -o) are regular files (or links to one): they are checked, by creating a file beside
them, before the first job, and held so that a second gemmviz cannot write them at the same time. bench
rewrites them after every job; a write that fails keeps the previous file, and the writes go on to a fallback
file named on stderr (exit 1).
Set GEMMVIZ_DEBUG=1 to see the Python traceback of an unexpected error."""


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Every option's help ends with its default, unless the help already says it or there is none to say."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if "default" in text or default in (None, False, "", argparse.SUPPRESS) or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)
        # a value that starts with a minus and a digit is a value, not an option: `--thread -1,-1` (argparse's own
        # pattern takes only -1 or -1.5, so '-1,-1' was read as an unknown option); no option starts so
        self._negative_number_matcher = re.compile(r"^-[0-9.][-0-9.,x×]*$")

    def error(self, message: str):  # argparse's own errors: exit 2 in our one-line style
        self.print_usage(sys.stderr)
        print(f"gemmviz: error: {printable(message)}", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gemmviz", description="See why tiled matrix multiplication is fast.", epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"gemmviz {__version__}")
    parser.add_argument(
        "--install-desktop",
        action="store_true",
        help="add gemmviz and its icon to this user's application menu, then exit",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="log what gemmviz does on stderr: -v for progress notes, -vv for debugging detail",
    )
    parser.add_argument("--projector", action="store_true", help="start the app in projector mode")
    parser.add_argument(
        "--lesson",
        metavar="NAME",
        help="start the app in lesson mode: a shipped lesson's name (gemmviz lesson --list) or a lesson .toml file",
    )
    parser.add_argument(
        "--presenter",
        action="store_true",
        help="give a lesson with the presenter's window (slide, next slide, notes, clock) on this screen and the "
        "slide alone, full screen, on the projector: --lesson's lesson, else seed000",
    )
    parser.add_argument(
        "--open",
        metavar="FILE",
        action="append",
        type=nonempty,
        help="open FILE in the app where its kind opens, as File > Open does (a session, an exercise check, a "
        "lesson .toml); repeatable",
    )
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        help="the window's language (default: the one last chosen, "
        "else the system's) and the lesson's, where it has one; the CLI stays English",
    )
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    for module in (bench, model, tune, export, lesson, profile, exercise):
        module.add_parsers(sub)
    for command in sub.choices.values():  # `gemmviz bench -v` as well as `gemmviz -v bench`
        command.add_argument(
            "-v",
            "--verbose",
            action="count",
            default=argparse.SUPPRESS,
            help="as gemmviz -v: log on stderr (-vv: more)",
        )
    return parser


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is when a record comes (a test, or the app, may replace it)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


class _Formatter(logging.Formatter):
    """'gemmviz: warning: ...', in the style of the CLI's 'gemmviz: error: ...' lines."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"gemmviz: {record.levelname.lower()}: {printable(record.getMessage())}"
        return f"{text}\n{self.formatException(record.exc_info)}" if record.exc_info else text


def setup_logging(verbosity: int) -> None:
    """The 'gemmviz' logger on stderr: warnings by default, info with -v, debug with -vv."""
    logger = logging.getLogger("gemmviz")
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(_Formatter())
        logger.addHandler(handler)
    logger.setLevel(logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG)


def _error(message: object) -> None:
    print(f"gemmviz: error: {printable(message)}", file=sys.stderr)


def _tolerant_streams() -> None:
    """stdout and stderr write what their encoding cannot hold as escapes (PYTHONIOENCODING=ascii, a lone
    surrogate from a file name) rather than failing with UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:  # not a TextIOWrapper (a test's capture): left as it is
            continue
        try:
            reconfigure(errors="backslashreplace")
        except (ValueError, OSError):
            pass


class StdoutError(OSError):
    """A write to stdout failed (a full disk, `> /dev/full`) while the command printed: with stdout unbuffered
    (PYTHONUNBUFFERED=1, `python -u`) that surfaces in the command, not at the final flush (_flushed)."""


class _GuardedStdout:
    """sys.stdout for the run of a command: its write errors become StdoutError, so the message names standard
    output rather than a bare "[Errno 28] No space left on device". A reader gone away stays BrokenPipeError."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.failed: StdoutError | None = None  # the first write that failed (argparse's --help drops the error)

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            self.failed = self.failed or StdoutError(exc.errno, exc.strerror)
            raise StdoutError(exc.errno, exc.strerror) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextlib.contextmanager
def _guarded_stdout() -> Iterator[_GuardedStdout | None]:
    real = sys.stdout
    if real is None or getattr(real, "reconfigure", None) is None:  # closed, or a test's capture: as it is
        yield None
        return
    guard = _GuardedStdout(real)
    sys.stdout = guard  # a proxy of the TextIOWrapper
    try:
        yield guard
    finally:
        sys.stdout = real


def main(argv: list[str] | None = None) -> int:
    if os.environ.get("GEMMVIZ_STARTUP_PROBE"):  # benchmarks/startup_time.py: the CLI's modules are imported
        print(f"cli-imported {time.monotonic():.6f}", flush=True)
    _tolerant_streams()
    paths.pin_folder_variables()
    with interrupt.quiet_exit():  # nothing is written yet: Ctrl+C ends at once, with its one line
        try:
            with _guarded_stdout() as guard:
                args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help, --version, a usage error: their text must reach stdout too
            if guard is not None and guard.failed is not None:  # argparse drops a write's error: said here
                raise SystemExit(_report(guard.failed)) from None
            raise SystemExit(_flushed(exc.code if isinstance(exc.code, int) else EXIT_USAGE)) from None
    if sys.stdout is None and args.command is not None:  # `gemmviz model … >&-`: every line would vanish, exit 0
        _error("standard output is closed: nothing this command prints could be read; run it with stdout open")
        return EXIT_FAILED
    with _guarded_stdout() if args.command is not None else contextlib.nullcontext():  # (the window prints not)
        code = _main(args)
    return _flushed(code)


def _flushed(code: int) -> int:
    """`code`, once stdout holds everything printed; else one line on stderr and exit 1 (stdout on a full disk,
    `> /dev/full`), with stdout pointed at devnull so that the interpreter's own flush at exit fails no more."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        if exc.errno == errno.EPIPE:  # the reader went away (`| head`): not an error to report
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return code
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        _error(f"cannot write to standard output: {exc.strerror or exc}")
        return EXIT_FAILED
    except (AttributeError, ValueError):  # no stdout, or a closed one
        pass
    return code


def _main(args: argparse.Namespace) -> int:
    setup_logging(args.verbose)
    logging.getLogger("gemmviz").debug(
        "gemmviz %s, Python %s, command %s", __version__, sys.version.split()[0], args.command or "(the app)"
    )
    command = app.run_app if args.command is None else args.func
    if args.install_desktop:
        command = desktop.cmd_install
    # A command takes Ctrl+C and SIGTERM between frames and writes, never inside one (core/interrupt.py); the
    # window keeps Qt's and Python's own handling.
    signals = contextlib.nullcontext() if command is app.run_app else interrupt.handled()
    with signals:
        try:
            return _run(command, args)
        except KeyboardInterrupt as exc:  # one that came during the command's own cleanup
            print(f"gemmviz: {interrupt.message(exc)}", file=sys.stderr)
            return EXIT_INTERRUPTED if exc.__class__ is KeyboardInterrupt else interrupt.exit_code(exc)


def _run(command, args) -> int:
    try:
        code = command(args)
        late = interrupt.pending()  # a signal Python could not raise where it came (core/interrupt.py)
        if late is not None:
            raise interrupt.Interrupted(late - 128)
        swallowed = interrupt.raised()  # raised, then lost in C code that called Python (an extension's import)
        if swallowed is not None and code < 128:  # (a command that handled it returned 130 or 143 itself)
            raise interrupt.Interrupted(swallowed)
        return code
    except KeyboardInterrupt as exc:
        return _interrupted(exc)
    except BrokenPipeError:
        # The reader went away (`gemmviz info | head -1`): not an error to report, and the same status however
        # much was printed before (a short output fails at the final flush instead: _flushed). Point stdout at
        # devnull so the interpreter's final flush does not fail again (the recipe in Python's signal docs).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except MemoryError:
        _error("out of memory (an input too large for this machine?); nothing was written")
        return EXIT_FAILED
    except Exception as exc:
        signum = interrupt.raised()
        if signum is not None:  # the Interrupted replaced by a C caller's error (core/interrupt.py: raised())
            return _interrupted(interrupt.Interrupted(signum))
        if os.environ.get("GEMMVIZ_DEBUG") == "1":
            raise
        return _report(exc)
    finally:
        with interrupt.deferred():
            release_all()  # the outputs the command held (check_outputs): another gemmviz may write them now


def _interrupted(exc: KeyboardInterrupt) -> int:
    """The one line an interrupted command ends with, and its exit status (130, 143)."""
    print(f"gemmviz: {interrupt.message(exc)}", file=sys.stderr)
    return interrupt.exit_code(exc)


def _report(exc: Exception) -> int:
    """One line on stderr for an exception that escaped a command, and the exit status it means."""
    if isinstance(exc, StdoutError):
        with contextlib.suppress(OSError, AttributeError, ValueError):  # nothing more is written there, nor fails
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        _error(f"cannot write to standard output: {exc.strerror or exc}")
        return EXIT_FAILED
    if isinstance(exc, (UsageError, ProblemError, FileFormatError)) or getattr(exc, "exit_status", None) == EXIT_USAGE:
        _error(exc)  # a bad argument, input file (any format's refusal) or environment variable (GEMMVIZ_CACHE_DIR)
        return EXIT_USAGE
    missing = _missing_system_libraries(exc)
    if missing:
        _error(missing)
        return EXIT_FAILED
    if isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG:  # a path no file system holds: an argument
        _error(f"{exc.filename}: the file name is too long ({len(os.fsencode(exc.filename or ''))} bytes)")
        return EXIT_USAGE
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:  # "[Errno 36] …: '…'" as a sentence
        _error(f"{exc.filename}: {exc.strerror}")
        return EXIT_FAILED
    if isinstance(exc, (CommandError, OSError)):  # OutputError and OS errors name the user's path
        _error(exc)
        return EXIT_FAILED
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    _error(f"{type(exc).__name__}: {first} (a bug in gemmviz? GEMMVIZ_DEBUG=1 shows the traceback)")
    return EXIT_FAILED


def _missing_system_libraries(exc: Exception) -> str | None:
    """For Qt (or pyqtgraph, which needs it) failing to import, the Debian packages of what the loader lacks."""
    if not (isinstance(exc, ImportError) or "cannot open shared object file" in str(exc)):
        return None
    from gemmviz.core.startup import qt_problem

    return qt_problem()
