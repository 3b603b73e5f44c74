"""Exporting the animation (issue: animation export): a .png path writes one picture (the first frame in the CLI,
the frame shown in the app), a folder stays a folder of frames; in the app the export runs in a worker with a
progress dialog, Cancel stops it between frames and leaves no partial file, an unwritable path or a failing
writer is said in one line, and the window can be closed mid-export (the worker is stopped and joined).
Every wait is on a condition."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings
from PySide6.QtGui import QImage

from gemmviz.cli.main import main
from gemmviz.core import export_formats, fileio
from gemmviz.core.export_formats import ANIMATION
from gemmviz.ui.export import animation
from gemmviz.ui.export import formats as _formats  # noqa: F401 (the writers registered)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# ---- the CLI --------------------------------------------------------------------------------------------------


def test_a_png_path_writes_one_picture_the_first_frame(qapp, tmp_path, capsys):
    out = tmp_path / "x.png"
    assert main(["animate", "--mnk", "32", "--size", "640x360", "-o", str(out)]) == 0
    assert out.is_file() and out.read_bytes()[:8] == PNG_MAGIC
    image = QImage(str(out))
    assert (image.width(), image.height()) == (640, 360)
    assert "the first frame" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.png"]  # no folder, no frames beside it


def test_a_name_without_a_suffix_or_ending_in_a_slash_is_a_folder_of_frames(qapp, tmp_path):
    for name in ("frames", "more/"):
        assert main(["animate", "--mnk", "32", "--size", "320x180", "-o", str(tmp_path / name)]) == 0
        folder = tmp_path / name.rstrip("/")
        assert folder.is_dir() and (folder / "frame_0000.png").read_bytes()[:8] == PNG_MAGIC


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["-o", "x.gif/"], "the / makes it a folder of frames, but .gif names a file"),
        (["--frames", "x.png"], "a folder of frames named like a file"),
    ],
)
def test_a_folder_named_like_a_file_is_refused_as_usage(tmp_path, capsys, monkeypatch, args, words):
    monkeypatch.chdir(tmp_path)
    assert main(["animate", "--mnk", "32", *args]) == 2
    assert words in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_folder_that_cannot_be_written_is_refused_before_any_frame(tmp_path, capsys, monkeypatch):
    (tmp_path / "afile").write_text("mine", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for target in ("afile", "afile/sub/"):
        assert main(["animate", "--mnk", "32", "-o", target]) == 1  # an output that cannot be written: exit 1
        assert "is a file, not a folder" in capsys.readouterr().err
    assert (tmp_path / "afile").read_text(encoding="utf-8") == "mine"


def test_the_help_says_what_a_png_path_writes(capsys):
    with pytest.raises(SystemExit):
        main(["animate", "-h"])
    text = " ".join(capsys.readouterr().out.split())
    assert "A .png is one picture, the first frame" in text and "the frame it shows" in text


# ---- the app --------------------------------------------------------------------------------------------------


@pytest.fixture
def window(qtbot, tmp_path):
    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.window import MainWindow
    from tests.fakes import FakeGpuBackend

    w = MainWindow(
        {"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)},
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
    )
    qtbot.addWidget(w)
    errors = []
    w.show_error = lambda title, text, details="": errors.append((title, text))
    w.errors = errors
    qtbot.waitUntil(lambda: w.tiling.schedule is not None)
    yield w
    export = getattr(w, "animation_export", None)
    if export is not None:
        export.stop()
    w.close()


class Slow:
    """A registered animation format whose writer draws frames only as the test lets them through, streaming them
    to its target as GIF does (fileio.atomic_file: a temporary file, renamed when whole), one frame at a time.
    While it waits for the test it answers a cancel (progress raises), as every real step does."""

    def __init__(self, frames: int = 1000):
        self.frames, self.drawn, self.allowed = frames, 0, 0
        self.lock = threading.Condition()
        self.begun = threading.Event()
        slow = self

        @export_formats.register
        class SlowFormat(export_formats.ExportFormat):
            name = "zz-slow"
            target = ANIMATION
            suffix = ".zzs"
            title = "ZZ slow test animation"

            @staticmethod
            def write(schedule, path, thread, width, height, steps_per_second, theme, progress=None):
                with fileio.atomic_file(path) as f:
                    f.write(b"partial")
                    slow.begun.set()
                    for i in range(slow.frames):
                        with slow.lock:
                            while not slow.lock.wait_for(lambda: slow.drawn < slow.allowed, 0.05):
                                progress(i, slow.frames, "zz")  # waiting: a cancel (the window's shutdown) ends it
                            slow.drawn += 1
                        f.write(b"frame")
                        progress(i + 1, slow.frames, "zz")  # Cancel is checked here, between frames
                return slow.frames

        self.cls = SlowFormat

    def let(self, n: int) -> None:
        """Let `n` more frames be drawn."""
        with self.lock:
            self.allowed += n
            self.lock.notify_all()

    def close(self):
        self.let(10**9)
        export_formats.unregister(self.cls)


@pytest.fixture
def slow():
    s = Slow()
    yield s
    s.close()


def _settled(export):
    return export.outcome is not None


def test_the_app_writes_the_frame_it_shows_as_one_png(window, qtbot, tmp_path):
    window.tiling.go(2)
    out = tmp_path / "shown.png"
    export = animation.start_animation_export(window, str(out), 640, 360)
    assert export is not None
    qtbot.waitUntil(lambda: _settled(export))
    assert export.outcome == "finished" and export.frames == 1 and window.errors == []
    expected = tmp_path / "expected.png"
    animation.export_still(window.tiling.schedule, expected, (0, 0), 640, 360, window.theme, step=2)
    assert QImage(str(out)) == QImage(str(expected))
    assert "Exported frame 3" in window.statusBar().currentMessage()


def test_the_export_runs_in_a_worker_with_progress_and_the_window_keeps_working(window, qtbot, tmp_path, slow):
    export = animation.start_animation_export(window, str(tmp_path / "a.zzs"))
    assert export is not None and export.worker_thread.isRunning() and export.dialog.isVisible()
    slow.let(3)
    qtbot.waitUntil(lambda: export.dialog.value() >= 3)  # the window's thread handles the worker's progress
    assert export.dialog.maximum() == slow.frames and "frame" in export.dialog.labelText()
    window.tiling.go(1)  # the window answers while the frames are drawn
    assert window.tiling.step == 1
    from PySide6.QtWidgets import QPushButton

    export.dialog.findChild(QPushButton).click()  # the dialog's Cancel button
    slow.let(1)  # the frame under way ends
    qtbot.waitUntil(lambda: _settled(export))
    assert export.outcome == "cancelled" and slow.drawn == 4


def test_cancel_stops_between_frames_and_removes_the_partial_file(window, qtbot, tmp_path, slow):
    target = tmp_path / "a.zzs"
    export = animation.start_animation_export(window, str(target))
    qtbot.waitUntil(slow.begun.is_set)  # the writer has begun its (temporary) file
    slow.let(2)
    qtbot.waitUntil(lambda: export.dialog.value() >= 2)
    export.cancel()
    slow.let(1)  # the frame under way ends; the flag is checked before the next is drawn
    qtbot.waitUntil(lambda: _settled(export))
    assert export.outcome == "cancelled" and slow.drawn == 3
    assert not export.worker_thread.isRunning()
    assert "cancelled" in window.statusBar().currentMessage() and window.errors == []
    assert list(tmp_path.iterdir()) == [tmp_path / "s.ini"]  # no file, no temporary file: the partial one removed


def _cancel_after_the_first_frame(window, monkeypatch):
    """The export's cancel asked for as soon as its first frame is drawn, from the worker itself: the export
    cannot finish first, whatever the machine's speed."""
    from gemmviz.ui.export import exporters

    counted = exporters._counted

    def first_then_cancel(frames, total, progress, what):
        for i, frame in enumerate(counted(frames, total, progress, what)):
            yield frame
            if i == 0:
                window.animation_export.cancel_flag.set()

    monkeypatch.setattr(exporters, "_counted", first_then_cancel)


@pytest.mark.parametrize("name", ["t.gif", "frames", "t.png"])
def test_cancelling_a_real_export_leaves_nothing_behind(window, qtbot, tmp_path, monkeypatch, name):
    folder = tmp_path / "out"
    folder.mkdir()
    if name == "t.png":  # one frame: a cancel asked for while it is drawn writes nothing
        from gemmviz.ui.export import exporters

        real = exporters.png_bytes

        def drawn_then_cancel(image):
            window.animation_export.cancel_flag.set()
            return real(image)

        monkeypatch.setattr(exporters, "png_bytes", drawn_then_cancel)
    else:
        _cancel_after_the_first_frame(window, monkeypatch)
    export = animation.start_animation_export(window, str(folder / name), 320, 180)
    qtbot.waitUntil(lambda: _settled(export))
    assert export.outcome == "cancelled"
    assert list(folder.iterdir()) == []  # no file, no temporary file, no frames, no folder
    assert f"{folder / name} was not written" in window.statusBar().currentMessage()


def test_a_cancelled_export_into_a_folder_leaves_it_as_it_was(window, qtbot, tmp_path, monkeypatch):
    folder = tmp_path / "frames"
    folder.mkdir()
    before = {"frame_0000.png": b"old 0", "frame_0001.png": b"old 1", "notes.txt": b"mine"}
    for name, data in before.items():
        (folder / name).write_bytes(data)
    _cancel_after_the_first_frame(window, monkeypatch)
    export = animation.start_animation_export(window, str(folder), 320, 180)
    qtbot.waitUntil(lambda: _settled(export))
    assert export.outcome == "cancelled"
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # the old frames kept, nothing added


def test_a_folder_holds_exactly_one_animation_after_a_shorter_one(qapp, tmp_path):
    folder = tmp_path / "stale"
    assert main(["animate", "--mnk", "64", "--tile", "8", "--size", "160x90", "-o", str(folder)]) == 0
    long = sorted(p.name for p in folder.iterdir() if p.name != ".gemmviz-frames")  # the manifest aside
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["animate", "--mnk", "32", "--size", "160x90", "-o", str(folder)]) == 0
    short = sorted(p.name for p in folder.iterdir() if p.name not in ("notes.txt", ".gemmviz-frames"))
    assert len(short) < len(long)
    assert short == [animation_frame(i) for i in range(len(short))]  # frames 0…n-1 of this one, none of the old
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "mine"  # not a frame: left alone


def animation_frame(i: int) -> str:
    from gemmviz.ui.export.exporters import FRAME_NAME

    return FRAME_NAME.format(i)


@pytest.mark.parametrize("name", ["x.jpg", ".png", "x.gif.bak"])
def test_an_unknown_file_suffix_is_refused_not_made_a_folder(tmp_path, capsys, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    assert main(["animate", "--mnk", "32", "-o", name]) == 2
    err = capsys.readouterr().err
    assert ".gif" in err and ".png" in err and ".mp4" in err  # the known ones listed
    assert list(tmp_path.iterdir()) == []


def test_a_refused_close_leaves_the_export_running(window, qtbot, tmp_path, slow, monkeypatch):
    export = animation.start_animation_export(window, str(tmp_path / "a.zzs"))
    slow.let(1)
    qtbot.waitUntil(lambda: export.dialog.value() >= 1)
    monkeypatch.setattr(window.recovery, "confirm_close", lambda: False)  # Save / Discard / Cancel: Cancel
    window.close()
    assert export.running and not export.cancel_flag.is_set() and export.worker_thread.isRunning()
    slow.let(2)
    qtbot.waitUntil(lambda: export.dialog.value() >= 3)  # still drawing
    monkeypatch.setattr(window.recovery, "confirm_close", lambda: True)  # now accepted: stopped and joined
    window.close()
    assert export.outcome == "cancelled" and not export.worker_thread.isRunning()


def test_an_unwritable_path_is_refused_at_once_in_one_line(window, tmp_path):
    export = animation.start_animation_export(window, str(tmp_path / "missing" / "x.gif"))
    assert export is None
    assert len(window.errors) == 1 and "does not exist" in window.errors[0][1] and "\n" not in window.errors[0][1]


def test_a_writer_that_fails_is_said_and_leaves_the_window_working(window, qtbot, tmp_path, monkeypatch):
    from gemmviz.ui.export import exporters

    def broken(*_args):
        raise OSError("No space left on device")

    monkeypatch.setattr(exporters, "export_gif", broken)
    export = animation.start_animation_export(window, str(tmp_path / "x.gif"))
    qtbot.waitUntil(lambda: _settled(export))
    assert export.outcome == "failed" and window.errors == [("Cannot export the animation", "No space left on device")]
    assert not (tmp_path / "x.gif").exists()


def test_one_export_at_a_time(window, qtbot, tmp_path, slow):
    first = animation.start_animation_export(window, str(tmp_path / "a.zzs"))
    assert animation.start_animation_export(window, str(tmp_path / "b.zzs")) is None
    assert "already running" in window.errors[-1][1]
    first.cancel()
    slow.let(1)
    qtbot.waitUntil(lambda: _settled(first))


def test_closing_the_window_mid_export_stops_and_joins_the_worker(window, qtbot, tmp_path, slow):
    export = animation.start_animation_export(window, str(tmp_path / "a.zzs"))
    slow.let(2)
    qtbot.waitUntil(lambda: export.dialog.value() >= 2)
    slow.let(1)  # a frame under way as the window closes: the close waits for it, then the worker stops
    window.close()
    assert not export.worker_thread.isRunning() and export.outcome == "cancelled"
    assert slow.drawn < slow.frames
    assert not (tmp_path / "a.zzs").exists()


# ---- MP4: ffmpeg cancellable -----------------------------------------------------------------------------------

FAKE_FFMPEG = """#!{python}
import os, sys, threading
open(sys.argv[-1], "wb").write(b"partial mp4")
with open({marker!r} + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.replace({marker!r} + ".tmp", {marker!r})
threading.Event().wait()  # encodes forever, until it is ended
"""


def test_cancel_while_ffmpeg_runs_ends_it_and_leaves_no_file(window, qtbot, tmp_path, monkeypatch):
    import os
    import sys

    from gemmviz.ui.export import exporters

    marker = tmp_path / "ffmpeg.pid"
    fake = tmp_path / "ffmpeg"
    fake.write_text(FAKE_FFMPEG.format(python=sys.executable, marker=str(marker)), encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setattr(exporters, "ffmpeg_path", lambda: str(fake))
    out = tmp_path / "out"
    out.mkdir()
    export = animation.start_animation_export(window, str(out / "a.mp4"), 160, 90)
    qtbot.waitUntil(marker.exists)  # every frame drawn, ffmpeg running
    pid = int(marker.read_text(encoding="utf-8"))
    export.cancel()
    qtbot.waitUntil(lambda: _settled(export))
    assert export.outcome == "cancelled" and not export.worker_thread.isRunning()
    assert list(out.iterdir()) == []
    with pytest.raises(ProcessLookupError):  # ended and reaped
        os.kill(pid, 0)


# ---- exit codes of gemmviz export ------------------------------------------------------------------------------


def _cpu_session(tmp_path):
    from gemmviz.core.session.results import Result, Session

    path = tmp_path / "cpu.json"
    results = [
        Result(
            variant="cpu-naive",
            params={},
            m=64,
            n=64,
            k=64,
            backend="cpu",
            precision="fp32",
            valid=True,
            samples_ms=[1.0, 1.1],
        )
    ]
    Session(results=results, created="2025-01-01T00:00:00+00:00").save(path)
    return str(path)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["-o", "x.pdf"], "the file name must end in .png or "),  # then every registered chart suffix
        (["-o", "x6"], "the file name must end in .png or "),
        (["--chart", "traffic", "-o", "t.png"], "hardware counters"),
        (["--chart", "sm-trace", "-o", "t.png"], "block traces"),
        (["--chart", "roofline", "-o", "t.png"], "roofline"),
    ],
)
def test_export_refusals_of_bad_input_exit_2(qapp, tmp_path, capsys, monkeypatch, args, words):
    session = _cpu_session(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["export", session, "--size", "320x180", *args]) == 2
    assert words in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cpu.json"]
