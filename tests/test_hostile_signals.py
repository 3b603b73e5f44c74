"""Ctrl+C and SIGTERM at any moment of a command (issue 33): during imports, painting, encoding or writing, the
command ends with exit 130 (SIGINT) or 143 (SIGTERM) and one line, the previous output intact, and no
temporary file, lock or staging folder left. Each signal is sent when a condition is seen (an import line, a
temporary file, a progress line), never after a fixed sleep."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

ROOT = Path(__file__).resolve().parents[1]
LIMIT_S = 120.0  # a condition never seen within this is a failure, not a hang


def _env() -> dict:
    return {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT), "GEMMVIZ_DEBUG": ""}


def _run_until(
    argv: list[str], cwd: Path, seen: Callable[[str], bool], sig: int, extra: list[str] = (), repeat: int = 1
):
    """Start gemmviz, send `sig` once `seen(stderr so far)` holds (polled on the process's output and files),
    and return (exit status, stderr lines)."""
    proc = subprocess.Popen(
        [sys.executable, *extra, "-m", "gemmviz", *argv],
        cwd=cwd,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    )
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.extend(iter(proc.stderr.readline, "")), daemon=True)
    reader.start()
    deadline = time.monotonic() + LIMIT_S
    sent = False
    while proc.poll() is None and time.monotonic() < deadline:
        if seen("".join(got)):
            for _ in range(repeat):
                proc.send_signal(sig)
            sent = True
            break
        time.sleep(0.002)  # polling the condition, not waiting for a moment
    err = "".join(got)
    assert sent, f"the condition was never seen; stderr: {err[-2000:]}"
    try:
        proc.wait(LIMIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
    reader.join(LIMIT_S)
    err = "".join(got)
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("import time:")]
    return proc.returncode, lines


def _expect_clean(rc: int, lines: list[str], sig: int, folder: Path, before: dict[str, bytes]) -> None:
    word = "interrupted" if sig == signal.SIGINT else "terminated"
    assert rc == 128 + sig, (rc, lines)
    assert lines == [f"gemmviz: {word}"], lines
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert sorted(p.name for p in folder.iterdir()) == sorted(before), "a temporary file, lock or folder was left"
    assert after == before, "the previous output changed"


def _file_appears(folder: Path, prefix: str, suffix: str, min_bytes: int = 0) -> Callable[[str], bool]:
    def seen(_err: str) -> bool:
        return any(
            p.name.startswith(prefix) and p.name.endswith(suffix) and p.stat().st_size >= min_bytes
            for p in list(folder.iterdir())
            if p.exists()
        )

    return seen


@pytest.mark.parametrize(
    "sig, min_bytes",
    [(signal.SIGINT, 0), (signal.SIGTERM, 20_000)],
)
def test_animate_gif_interrupted_while_painting_and_encoding(tmp_path, sig, min_bytes):
    """The GIF's temporary file is there from the first frame to the rename: a signal while frames are painted
    and encoded (at its start, and once it holds a few frames) leaves the old a.gif and nothing else."""
    (tmp_path / "a.gif").write_bytes(b"GIF89a the previous animation")
    before = {"a.gif": (tmp_path / "a.gif").read_bytes()}
    rc, lines = _run_until(
        ["animate", "--mnk", "256", "--variant", "gpu-tiled", "--size", "640x360", "-o", "a.gif"],
        tmp_path,
        _file_appears(tmp_path, ".a.gif.", ".tmp", min_bytes),
        sig,
    )
    _expect_clean(rc, lines, sig, tmp_path, before)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_dashboard_export_interrupted(tmp_path, sig):
    """The output is held (its lock made) before the session is read and the charts painted: a signal from
    then on leaves the previous d.png and no lock."""
    (tmp_path / "d.png").write_bytes(b"the previous dashboard")
    before = {"d.png": (tmp_path / "d.png").read_bytes()}
    rc, lines = _run_until(
        ["export", "h200-2026-12-01", "--chart", "dashboard", "-o", "d.png"],
        tmp_path,
        _file_appears(tmp_path, ".d.png.", ".lock"),
        sig,
    )
    _expect_clean(rc, lines, sig, tmp_path, before)


@pytest.mark.parametrize("sig, slide", [(signal.SIGINT, 2), (signal.SIGTERM, 5)])
def test_lesson_export_interrupted_between_slides(tmp_path, sig, slide):
    """A lesson export signalled as its slides are drawn (the -v progress line) leaves the earlier export's
    slides and lesson.pdf as they were, and no staging folder."""
    out = tmp_path / "slides"
    out.mkdir()
    before = {"step-01.png": b"old slide 1", "lesson.pdf": b"%PDF old lesson"}
    for name, data in before.items():
        (out / name).write_bytes(data)
    rc, lines = _run_until(
        ["lesson", "seed000", "--export", str(out), "--size", "640x360", "-v"],
        tmp_path,
        lambda err: f"slide {slide} of" in err,
        sig,
    )
    lines = [line for line in lines if not line.startswith("gemmviz: info:")]  # -v's progress lines
    lines = [line for line in lines if "names no session" not in line and "warning" not in line]
    _expect_clean(rc, lines, sig, out, before)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_while_python_imports_gemmviz(tmp_path, sig):
    """Ctrl+C while gemmviz's own modules are still being imported: one line and 130/143, no traceback."""
    rc, lines = _run_until(
        ["animate", "--mnk", "256", "--variant", "gpu-tiled", "-o", "a.gif"],
        tmp_path,
        lambda err: "gemmviz.core.problem" in err,  # imported on the way to gemmviz.cli.main
        sig,
        extra=["-X", "importtime"],
    )
    word = "interrupted" if sig == signal.SIGINT else "terminated"
    assert rc == 128 + sig, (rc, lines)
    assert lines == [f"gemmviz: {word}"], lines
    assert list(tmp_path.iterdir()) == []


def test_frames_export_interrupted_while_frames_are_staged(tmp_path):
    """SIGTERM once a few frames lie in the hidden staging folder: the folder keeps the earlier export's frames
    and loses the staging folder."""
    out = tmp_path / "frames"
    out.mkdir()
    before = {"frame_0000.png": b"old frame", "notes.txt": b"mine"}
    for name, data in before.items():
        (out / name).write_bytes(data)

    def staged(_err: str) -> bool:
        return any(len(list(p.glob("frame_*.png"))) >= 3 for p in out.glob(".gemmviz-staging-*"))

    rc, lines = _run_until(
        ["animate", "--mnk", "256", "--variant", "gpu-tiled", "--size", "320x180", "--frames", str(out)],
        tmp_path,
        staged,
        signal.SIGTERM,
    )
    _expect_clean(rc, lines, signal.SIGTERM, out, before)


def test_a_second_ctrl_c_during_the_cleanup_changes_nothing(tmp_path):
    """Ctrl+C twice in a row (an impatient user): the cleanup still runs whole."""
    (tmp_path / "a.gif").write_bytes(b"GIF89a the previous animation")
    before = {"a.gif": (tmp_path / "a.gif").read_bytes()}
    seen = _file_appears(tmp_path, ".a.gif.", ".tmp", 10_000)
    proc_argv = ["animate", "--mnk", "256", "--variant", "gpu-tiled", "--size", "640x360", "-o", "a.gif"]
    rc, lines = _run_until(proc_argv, tmp_path, seen, signal.SIGINT, repeat=2)  # two signals at once
    _expect_clean(rc, lines, signal.SIGINT, tmp_path, before)
