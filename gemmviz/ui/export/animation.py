"""Exporting the tiling animation away from the window's thread: one frame as a PNG (the frame the app shows, or
the first in the CLI), the folder of frames checked before any work, and AnimationExport, which writes any
registered animation format in a QThread with a progress dialog, a Cancel that stops it between frames (within
a frame's time, well under half a second) and leaves no partial file, its errors shown in one line, and a window
that can be closed mid-export (the worker is stopped and joined first).

The worker touches no widget: everything it needs (the schedule, the thread highlighted, the size, the speed,
the theme, the step shown) is read on the window's thread before it starts, and the frames are rendered by the
pure functions of ui/tiling (QImage and QPainter, which Qt allows off the GUI thread).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QApplication, QLabel, QProgressDialog

from gemmviz.core import fileio
from gemmviz.core.export_formats import ExportFormat
from gemmviz.ui.text import tr
from gemmviz.ui.theme import LIGHT, Theme
from gemmviz.ui.worker import WorkerThread


class Cancelled(Exception):
    """The export was cancelled between two frames."""


# ---- one frame ------------------------------------------------------------------------------------------------


def export_still(
    schedule,
    path,
    thread=(0, 0),
    width: int = 1280,
    height: int = 720,
    theme: Theme = LIGHT,
    step: int = 0,
    phase: float = 1.0,
    progress=None,
) -> int:
    """One frame of the animation as a PNG file: step `step` at `phase` (1.0: settled), as the app draws it;
    returns 1 (the frames written). A failed write leaves any previous file as it was. `progress` is called once
    the frame is drawn and before the file is written (a cancel there writes nothing), never after."""
    from gemmviz.ui.export.exporters import check_size, check_target, png_bytes, scale_for
    from gemmviz.ui.tiling.frames import frame_image
    from gemmviz.ui.tiling.render import FrameState

    target = check_target(path, (".png",))
    check_size(width, height)
    step = max(0, min(step, len(schedule.steps) - 1))
    scaled = theme.scaled(scale_for(width, height))
    data = png_bytes(frame_image(FrameState(schedule, step, phase, tuple(thread)), width, height, scaled))
    if progress is not None:
        progress(1, 1, "PNG")
    fileio.write_atomic(target, data)
    return 1


def check_animation_budget(fmt, schedule, width: int, height: int) -> None:
    """ProblemError where the frames `fmt` writes of `schedule` at width×height pass the animation's pixel budget
    (core/parsing.check_animation_pixels); a still (a .png of one frame) is within it. The CLI and the window ask
    the same."""
    from gemmviz.core.parsing import check_animation_pixels
    from gemmviz.ui.tiling.frames import frame_count

    if not getattr(fmt, "still", False):
        check_animation_pixels(width, height, frame_count(schedule))


def check_frames_folder(path) -> Path:
    """A folder of frames can be made or written into: OutputError (the user's path named) before any work."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise fileio.OutputError(f"cannot write frames into {out}: it is a file, not a folder")
    existing = next((p for p in [out, *out.parents] if p.exists()), Path("."))
    if not existing.is_dir():
        raise fileio.OutputError(f"cannot write frames into {out}: {existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise fileio.OutputError(f"cannot write frames into {out}: {existing} is not writable")
    return out


# ---- in a worker ---------------------------------------------------------------------------------------------


@dataclass
class Job:
    """What an export writes, read on the window's thread before the worker starts."""

    writer: type[ExportFormat]  # a registered animation format (core/export_formats.py, ui/export/formats/)
    path: str
    schedule: object
    thread: tuple[int, int]
    width: int
    height: int
    steps_per_second: float
    theme: Theme
    step: int = 0
    phase: float = 1.0

    @property
    def still(self) -> bool:
        return getattr(self.writer, "still", False)

    def write(self, progress) -> int:
        if self.still:
            return self.writer.write(
                self.schedule,
                self.path,
                self.thread,
                self.width,
                self.height,
                self.steps_per_second,
                self.theme,
                progress,
                step=self.step,
                phase=self.phase,
            )
        return self.writer.write(
            self.schedule, self.path, self.thread, self.width, self.height, self.steps_per_second, self.theme, progress
        )

    def prepare(self) -> None:
        """Before any work: the target checked (OutputError names it). Nothing is left to clean up after a cancel
        or a failure: GIF, MP4 and PNG are written to a temporary file and renamed only when whole, a folder's
        frames to a hidden folder inside it and moved in only when all are drawn (exporters.export_frames)."""
        from gemmviz.ui.export.exporters import check_target

        if self.writer.suffix:
            check_target(self.path, (self.writer.suffix,))
        else:
            check_frames_folder(self.path)


class _Worker(QObject):
    progress = Signal(int, int)
    finished = Signal(int)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, job: Job, cancel: threading.Event):
        super().__init__()
        self.job, self.cancel = job, cancel

    def _progress(self, done: int, total: int, _what: str = "") -> None:
        if self.cancel.is_set():
            raise Cancelled
        self.progress.emit(done, total)

    @Slot()
    def run(self) -> None:
        try:
            if self.cancel.is_set():
                raise Cancelled
            n = self.job.write(self._progress)
        except Cancelled:
            self.cancelled.emit()
        except Exception as exc:  # an unwritable file, a full disk, ffmpeg failing: said in one line
            self.failed.emit(" ".join(str(exc).split()) or type(exc).__name__)
        else:
            self.finished.emit(n)


class AnimationExport(QObject):
    """One export under way: its worker thread and its progress dialog. The window's shutdown (a close it has
    accepted: MainWindow.shutdown) and quitting call `stop`, which cancels and joins the worker; a close the
    window refuses (Save / Discard / Cancel answered Cancel) leaves the export running. `done` carries (outcome, frames, message): outcome is
    "finished", "cancelled" or "failed"."""

    done = Signal(str, int, str)

    def __init__(self, window, job: Job):
        super().__init__(window)
        self.window, self.job = window, job
        self.cancel_flag = threading.Event()
        self.outcome: str | None = None
        self.frames = 0
        self.message = ""
        self.shown = 0  # the last frame the dialog shows
        self.worker = _Worker(job, self.cancel_flag)
        self.runner = WorkerThread(self.worker, "gemmviz-animation-export", self.cancel_flag, self.worker.run)
        self.worker_thread = self.runner.thread
        self.worker.progress.connect(self._progress, Qt.ConnectionType.QueuedConnection)
        self.worker.finished.connect(self._finished, Qt.ConnectionType.QueuedConnection)
        self.worker.failed.connect(self._failed, Qt.ConnectionType.QueuedConnection)
        self.worker.cancelled.connect(self._cancelled, Qt.ConnectionType.QueuedConnection)
        self.dialog = QProgressDialog(
            tr("Exporting the animation to {0}…").format(job.path), tr("Cancel"), 0, 0, window
        )
        label = QLabel(self.dialog.labelText())
        label.setWordWrap(True)  # a long path wraps: the dialog never grows past the screen
        label.setTextFormat(Qt.TextFormat.PlainText)
        self.dialog.setLabel(label)
        self.dialog.setWindowTitle(tr("Export animation"))
        self.dialog.setAutoClose(False)
        self.dialog.setAutoReset(False)
        self.dialog.setMinimumDuration(0)
        self.dialog.canceled.connect(self.cancel)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)

    def start(self) -> None:
        self.dialog.open()  # window-modal, not blocking: the window keeps painting, Cancel answers at once
        self.runner.start()

    @property
    def running(self) -> bool:
        return self.outcome is None

    def cancel(self) -> None:
        """Stop between two frames; the partial file is removed by the worker."""
        self.runner.cancel()
        self.dialog.setLabelText(tr("Cancelling…"))

    def stop(self, wait_ms: int | None = None) -> None:
        """Cancel and join the worker (the window's shutdown, quitting): it stops after the frame it is drawing,
        or ends ffmpeg within its poll (exporters._encode). A close's join has no time limit: every step of the
        worker answers the cancel. A signal's stop waits at most `wait_ms`; a worker still busy then is left
        behind, never destroyed while it runs (ui/worker.py: the process ends with os._exit)."""
        if self.runner.running:
            self.runner.shutdown(wait_ms)
        QApplication.processEvents()  # the worker's last signal, queued here
        if self.outcome is None:
            self._settle("cancelled", 0, "")

    # -- the worker's signals, on the window's thread --
    def _progress(self, done: int, total: int) -> None:
        # QProgressDialog.setValue handles pending events itself (the later frames' signals among them): the
        # label is set first, and a frame older than the one shown is dropped, so neither goes backwards
        if self.cancel_flag.is_set() or done <= self.shown:
            return
        self.shown = done
        self.dialog.setLabelText(
            tr("Exporting the animation to {0}: frame {1} of {2}").format(self.job.path, done, total)
        )
        if self.dialog.maximum() != total:
            self.dialog.setMaximum(total)
        self.dialog.setValue(min(done, total))

    def _finished(self, n: int) -> None:
        self._settle("finished", n, "")

    def _failed(self, message: str) -> None:
        self._settle("failed", 0, message)

    def _cancelled(self) -> None:
        self._settle("cancelled", 0, "")

    def _settle(self, outcome: str, n: int, message: str) -> None:
        if self.outcome is not None:
            return
        self.outcome, self.frames, self.message = outcome, n, message
        self.runner.join()
        app = QApplication.instance()
        if app is not None:
            try:
                app.aboutToQuit.disconnect(self.stop)
            except (RuntimeError, TypeError):
                pass
        self.dialog.canceled.disconnect(self.cancel)
        self.dialog.reset()
        self.dialog.hide()
        self.dialog.deleteLater()
        self.done.emit(outcome, n, message)


def start_animation_export(window, path: str, width: int = 1280, height: int = 720) -> AnimationExport | None:
    """Export the Tiling tab's animation in the registered format `path` names (GIF, MP4, one PNG of the frame
    shown, or a folder of PNG frames for a path without a format's suffix) in a worker, with a progress dialog;
    the export under way, or None where it is refused at once (said in the window: no animation, an
    unwritable path, an export already running)."""
    from gemmviz.core import export_formats
    from gemmviz.core.problem import ProblemError
    from gemmviz.ui.export import formats
    from gemmviz.ui.export.exporters import ExportError, check_size

    title = tr("Cannot export the animation")
    running = window.animation_exports.current
    if running is not None and running.running:
        window.show_error(title, tr("An export is already running: wait for it, or cancel it."))
        return None
    tiling = window.tiling
    if tiling.schedule is None:
        window.show_error(
            tr("Cannot export"), tr("There is no animation to export: choose a valid size and tile first.")
        )
        return None
    try:
        writer = formats.writer(export_formats.ANIMATION, path)
        check_size(width, height)
        check_animation_budget(writer, tiling.schedule, width, height)
        job = Job(
            writer,
            path,
            tiling.schedule,
            (tiling.thread_y.value(), tiling.thread_x.value()),
            width,
            height,
            tiling.speed_spin.value(),
            window.theme,
            tiling.step,
            tiling.phase,
        )
        job.prepare()
    except (ExportError, ProblemError, OSError, ValueError) as exc:
        window.show_error(title, str(exc))
        return None
    export = AnimationExport(window, job)
    window.animation_exports.current = export

    def done(outcome: str, n: int, message: str) -> None:
        if outcome == "finished":
            text = (
                tr("Exported frame {0} to {1}").format(job.step + 1, path)
                if job.still
                else tr("Exported {n} frames to {path}").format(n=n, path=path)
            )
            window.statusBar().showMessage(text, 5000)
        elif outcome == "failed":
            window.show_error(title, message)
        else:
            window.statusBar().showMessage(tr("Export cancelled: {0} was not written").format(path), 5000)

    export.done.connect(done)
    export.start()
    return export


class AnimationExports:
    """The window's animation export: the one under way or the last one (`current`). The window creates it and
    stops it when it shuts down (a close it has accepted)."""

    def __init__(self) -> None:
        self.current: AnimationExport | None = None

    @property
    def running(self) -> bool:
        return self.current is not None and self.current.running

    def cancel_now(self) -> None:
        """Set an export's cancel flag (a signal's stop sets every worker's before waiting for any)."""
        if self.current is not None and self.current.running:
            self.current.runner.cancel()

    def stop(self, wait_ms: int | None = None) -> None:
        """Cancel and join an export under way (at most `wait_ms`: AnimationExport.stop)."""
        if self.current is not None:
            self.current.stop(wait_ms)
