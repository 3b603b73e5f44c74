"""A SIGTERM whose Interrupted is raised inside a weakref callback (where Python prints "Exception ignored" and
drops it: seen once in a full run, during an import's module-lock clean-up) is not lost: it is noted and raised
at the next safe point, with nothing printed."""

from __future__ import annotations

import os
import signal
import sys
import weakref

import pytest

from gemmviz.core import interrupt

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


class _Thing:
    pass


def _signal_inside_a_weakref_callback() -> None:
    thing = _Thing()
    ref = weakref.ref(thing, lambda _ref: os.kill(os.getpid(), signal.SIGTERM) or _spin())
    del thing  # the callback runs here; its exception cannot propagate
    assert ref() is None


def _spin() -> None:
    for _ in range(1000):  # the handler runs at the next bytecode boundary, still inside the callback
        pass


def test_a_signal_swallowed_by_a_callback_is_raised_at_the_next_deferred_block(capsys):
    with interrupt.handled():
        _signal_inside_a_weakref_callback()
        with pytest.raises(interrupt.Interrupted) as caught, interrupt.deferred():
            pytest.fail("the block started though a signal was pending")
    assert caught.value.code == 143
    assert "Exception ignored" not in capsys.readouterr().err


def test_a_signal_swallowed_at_the_end_is_the_commands_exit_status():
    with interrupt.handled():
        _signal_inside_a_weakref_callback()
        assert interrupt.pending() == 143
        assert interrupt.pending() is None


def test_other_unraisable_exceptions_still_reach_the_previous_hook():
    seen = []
    previous = sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        with interrupt.handled():
            thing = _Thing()
            ref = weakref.ref(thing, lambda _ref: 1 / 0)
            del thing
            assert ref() is None
    finally:
        sys.unraisablehook = previous
    assert [type(u.exc_value) for u in seen] == [ZeroDivisionError]
