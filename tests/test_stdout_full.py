"""Output sent to a full disk (`gemmviz ... > /dev/full`, issue 46 item 8): one line on stderr and exit 1, never
Python's "Exception ignored ... OSError: [Errno 28]" and exit 120 when the interpreter flushes stdout at exit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("argv", [["lesson", "--list"], ["--help"], ["model", "--variant", "gpu-naive", "--mnk", "64"]])
def test_a_full_stdout_is_one_line_and_exit_1(argv, unbuffered):
    """Buffered (a terminal's pipe), the final flush fails; unbuffered (PYTHONUNBUFFERED=1, `python -u`: this
    machine's own setting), the command's own print fails, and said a bare "[Errno 28] No space left on device"."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONPATH"] = str(ROOT)
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "gemmviz", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
        )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == ["gemmviz: error: cannot write to standard output: No space left on device"]
