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

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402

from gemmviz.cli.main import main  # noqa: E402
from gemmviz.core import export_formats  # noqa: E402
from gemmviz.core.export_formats import ANIMATION  # noqa: E402
from gemmviz.ui.export import animation  # noqa: E402
from gemmviz.ui.export import formats as _formats  # noqa: E402, F401 (the writers registered)

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
    """A registered animation format whose writer draws frames only as the test lets them through: it writes a
    partial file first (as a writer streaming to its target would), then one frame at a time."""

    def __init__(self, frames: int = 1000):
        self.frames, self.drawn, self.allowed = frames, 0, 0
        self.lock = threading.Condition()
        slow = self

        @export_formats.register
        class SlowFormat(export_formats.ExportFormat):
            name = "zz-slow"
            target = ANIMATION
            suffix = ".zzs"
            title = "ZZ slow test animation"

            @staticmethod
            def write(schedule, path, thread, width, height, steps_per_second, theme, progress=None):
                with open(path, "wb") as f:
                    f.write(b"partial")
                    for i in range(slow.frames):
                        with slow.lock:
                            slow.lock.wait_for(lambda: slow.drawn < slow.allowed)
                            slow.drawn += 1
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
    assert export is not None and export.thread.isRunning() and export.dialog.isVisible()
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
    qtbot.waitUntil(target.exists)  # the writer has begun its file
    slow.let(2)
    qtbot.waitUntil(lambda: export.dialog.value() >= 2)
    export.cancel()
    slow.let(1)  # the frame under way ends; the flag is checked before the next is drawn
    qtbot.waitUntil(lambda: _settled(export))
    assert export.outcome == "cancelled" and slow.drawn == 3
    assert not export.thread.isRunning()
    assert "cancelled" in window.statusBar().currentMessage() and window.errors == []
    # a streaming format's own file: the real writers leave none (GIF, MP4 and PNG write a temporary file)
    target.unlink(missing_ok=True)


@pytest.mark.parametrize("name", ["t.gif", "frames"])
def test_cancelling_a_real_export_leaves_nothing_behind(window, qtbot, tmp_path, name):
    from gemmviz.core.problem import parse_problem
    from gemmviz.core.schedule import block_schedule

    window.tiling.schedule = block_schedule("gpu-tiled", parse_problem("256"), 16, (0, 0))  # 16 k-steps
    folder = tmp_path / "out"
    folder.mkdir()
    export = animation.start_animation_export(window, str(folder / name), 320, 180)
    qtbot.waitUntil(lambda: export.dialog.value() >= 1 or _settled(export))
    export.cancel()
    qtbot.waitUntil(lambda: _settled(export))
    assert export.outcome == "cancelled"
    assert list(folder.iterdir()) == []  # no GIF, no temporary file, no frames, no folder


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
    assert not export.thread.isRunning() and export.outcome == "cancelled"
    assert slow.drawn < slow.frames
