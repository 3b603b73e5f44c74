"""Ctrl+C (SIGINT) and SIGTERM, taken where they do no harm.

While a command runs (cli/main.py: `handled()`), either signal raises `Interrupted` (a KeyboardInterrupt, so
every `finally` and `except BaseException` that cleans up runs), except inside a `deferred()` block: a frame or
a slide being painted (a QPainter must end before its image goes), a file being renamed into place, a lock or
a temporary file being made or removed. There the signal is noted and raised when the outermost block ends,
between two frames. The command then ends with exit 128 + the signal's number (130, 143) and one line.

Before the command starts (Python still importing gemmviz), `quiet_exit()` makes either signal end the process
at once with that line and status: nothing has been written yet, and there is nothing to clean up.

A signal whose Interrupted is raised where Python cannot propagate it (a weakref callback or `__del__`, e.g. the
import system's module-lock clean-up) would be printed as "Exception ignored" and lost; `handled()` catches it in
`sys.unraisablehook` and notes it as pending instead, to be raised at the next safe point: the start or end of a
`deferred()` block, `check()`, or the command's end (`pending()`).

Signal handlers run in the main thread only; `deferred()` in another thread defers nothing (the main thread's
signal is not about that thread's work) and `handled()` there installs nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType, TracebackType

SIGNALS = (signal.SIGINT, signal.SIGTERM)
MESSAGES: dict[int, str] = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}


class Interrupted(KeyboardInterrupt):
    """Ctrl+C or SIGTERM while a command ran; `code` is the exit status it means (128 + the signal)."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(MESSAGES.get(signum, "interrupted"))
        self.signum = int(signum)
        self.code = 128 + int(signum)


def exit_code(exc: BaseException) -> int:
    """The exit status for an interrupt: 143 for SIGTERM, 130 for Ctrl+C (a plain KeyboardInterrupt too)."""
    return getattr(exc, "code", 128 + signal.SIGINT)


def message(exc: BaseException) -> str:
    return MESSAGES.get(getattr(exc, "signum", signal.SIGINT), "interrupted")


_depth = 0  # nesting of deferred() in the main thread
_pending: int | None = None  # a signal that came during a deferred() block
_raised: int | None = None  # the last signal raised as Interrupted during handled(): see raised()


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


AGAIN_S = 0.02  # a signal that came during an import is sent again this much later


def _handler(signum: int, frame: FrameType | None) -> None:
    global _pending, _raised
    if _depth > 0:
        if _pending is None:
            _pending = signum
        return
    if _importing(frame):  # see _importing: the same signal again, once the import is (likely) over
        again = threading.Timer(AGAIN_S, os.kill, (os.getpid(), signum))
        again.daemon = True
        again.start()
        return
    _raised = signum
    raise Interrupted(signum)


def _importing(frame: FrameType | None) -> bool:
    """Whether Python is importing a module at `frame`. An exception raised there can be lost: an extension
    module's initialisation (numpy.random's, imported lazily on first use) may swallow it and leave the module
    half made, and the command runs on to its end (seen in `exercise check` under SIGTERM while the emulator
    started)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """A block no signal breaks into; one that came during it is raised as it ends (the outermost block)."""
    global _depth, _pending
    if not _main_thread():
        yield
        return
    if _depth == 0:
        check()  # a swallowed signal (see the module's docstring): raised before the block starts any work
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0 and _pending is not None:
            signum, _pending = _pending, None
            raise Interrupted(signum)


def check() -> None:
    """Raise a signal noted so far (a loop calls it between frames inside a long deferred() stretch)."""
    global _pending
    if _pending is not None and _main_thread():
        signum, _pending = _pending, None
        raise Interrupted(signum)


def pending() -> int | None:
    """The exit status a noted signal means (128 + it), taken; None where there is none."""
    global _pending
    if _pending is None or not _main_thread():
        return None
    signum, _pending = _pending, None
    return 128 + signum


def raised() -> int | None:
    """The signal raised as Interrupted during handled(), or None. Where Python code that C code called (a
    binding converting an argument through `__index__`, e.g.) raised it, the C caller may have replaced it with
    its own error (PySide6: "SystemError: ... bad argument to internal function"): an error that escapes a
    command after a signal was raised is that signal's doing, and the command ends as interrupted."""
    return _raised if _main_thread() else None


def _unraisable(previous: Callable[[sys.UnraisableHookArgs], object]) -> Callable[[sys.UnraisableHookArgs], None]:
    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        global _pending
        exc = unraisable.exc_value
        if isinstance(exc, Interrupted):
            if _pending is None:
                _pending = exc.signum
            return
        previous(unraisable)

    return hook


ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], object]


def _excepthook(previous: ExceptHook) -> ExceptHook:
    def hook(kind: type[BaseException], value: BaseException, traceback: TracebackType | None) -> None:
        # A C++ binding reports an error of Python code it called (PySide6 prints it through sys.excepthook):
        # the Interrupted itself, or the binding's own error that followed it, is the signal's, said once.
        if isinstance(value, Interrupted) or _raised is not None:
            return
        previous(kind, value, traceback)

    return hook


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """Ctrl+C and SIGTERM raise Interrupted (or wait for the end of a deferred() block) during the block; the
    previous handlers are put back after it. Outside the main thread: nothing is installed."""
    global _pending, _raised
    if not _main_thread():
        yield
        return
    _raised = None
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    hook, excepthook = sys.unraisablehook, sys.excepthook
    sys.unraisablehook = _unraisable(hook)
    sys.excepthook = _excepthook(excepthook)
    for s in SIGNALS:
        signal.signal(s, _handler)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)
        sys.unraisablehook, sys.excepthook = hook, excepthook
        _pending = _raised = None


def _exit_now(signum: int, _frame: FrameType | None) -> None:
    os.write(2, f"gemmviz: {MESSAGES.get(signum, 'interrupted')}\n".encode())
    os._exit(128 + signum)


@contextlib.contextmanager
def quiet_exit() -> Iterator[None]:
    """During the block (gemmviz importing itself, before any command), either signal ends the process at once
    with one line and 130 or 143; the previous handlers are put back after it."""
    if not _main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    for s in SIGNALS:
        signal.signal(s, _exit_now)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)
