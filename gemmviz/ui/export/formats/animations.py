"""The tiling animation as an animated GIF, an MP4 (ffmpeg), a folder of PNG frames (ui/export/exporters.py) or
one frame as a PNG (ui/export/animation.py). An animation's writer: write(schedule, path, thread, width, height,
steps_per_second, theme, progress) -> frames; a still's also takes the step and phase to draw."""

from __future__ import annotations

from gemmviz.core import export_formats
from gemmviz.core.catalogue import QT_TRANSLATE_NOOP


@export_formats.register
class Gif(export_formats.Gif):
    @staticmethod
    def write(schedule, path, thread, width: int, height: int, steps_per_second: float, theme, progress=None) -> int:
        from gemmviz.ui.export.exporters import export_gif

        return export_gif(schedule, path, thread, width, height, steps_per_second, theme, progress)


@export_formats.register
class Mp4(export_formats.Mp4):
    @staticmethod
    def write(schedule, path, thread, width: int, height: int, steps_per_second: float, theme, progress=None) -> int:
        from gemmviz.ui.export.exporters import export_mp4

        return export_mp4(schedule, path, thread, width, height, steps_per_second, theme, progress)


@export_formats.register
class PngFrames(export_formats.PngFrames):
    @staticmethod
    def write(schedule, path, thread, width: int, height: int, steps_per_second: float, theme, progress=None) -> int:
        from gemmviz.ui.export.exporters import export_frames

        return export_frames(schedule, path, thread, width, height, theme, steps_per_second, progress)


@export_formats.register
class PngStill(export_formats.ExportFormat):
    """One frame as a PNG image: the frame the app shows (File ▸ Export animation), the first in the CLI (a
    .png path used to make a folder named like a file)."""

    name = "png"
    target = export_formats.ANIMATION
    suffix = ".png"
    title = QT_TRANSLATE_NOOP("", "PNG image, one frame")
    still = True

    @staticmethod
    def write(  # noqa: PLR0913 (an animation writer's eight, and the frame to draw)
        schedule,
        path,
        thread,
        width: int,
        height: int,
        steps_per_second: float,
        theme,
        progress=None,
        step: int = 0,
        phase: float = 1.0,
    ) -> int:
        from gemmviz.ui.export.animation import export_still

        return export_still(schedule, path, thread, width, height, theme, step, phase, progress)
