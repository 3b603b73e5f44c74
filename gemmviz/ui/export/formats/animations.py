"""The tiling animation as an animated GIF, an MP4 (ffmpeg) or a folder of PNG frames (ui/export/exporters.py).
An animation's writer: write(schedule, path, thread, width, height, steps_per_second, theme, progress) -> frames."""

from __future__ import annotations

from gemmviz.core import export_formats


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
