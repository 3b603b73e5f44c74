"""Charts as images (PNG, JPEG, WebP: pixels at the asked size, one writer for all of them) and SVG (the same
1080p-equivalent layout as paths), drawn by ui/export/exporters.py. A chart format's writer:
write(widget, target, width, height, theme, footer).

ImageFormat is the one image exporter (pyqtgraph's ImageExporter is the model): any format Qt's QImageWriter
writes (QImageWriter.supportedImageFormats(): BMP, TIFF, PPM, ...) is a subclass naming Qt's format, its
suffixes and its writer's options; a new one is a few lines here (and its description in core/export_formats.py
where the CLI must list it without Qt)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from gemmviz.core import export_formats, fileio, interrupt

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from gemmviz.ui.theme import Theme


class ImageFormat(export_formats.ExportFormat):
    """A chart as pixels: the widget rendered at the asked size (4K is the 1080p layout scaled 2x), then encoded."""

    qt_format: ClassVar[str]  # Qt's name for the encoder: "PNG", "JPEG", "WEBP", "TIFF"
    quality: ClassVar[int] = -1  # the format's option: Qt's quality 0-100 (-1: Qt's default)
    # QImageWriter's other settings by name: {"compression": 1} (TIFF's LZW), {"optimizedWrite": True},
    # {"progressiveScanWrite": True}, {"subType": b"..."}
    options: ClassVar[dict[str, object]] = {}

    @classmethod
    def write(cls, widget: QWidget, target: str | Path, width: int, height: int, theme: Theme, footer: str) -> None:
        from gemmviz.ui.export.exporters import image_bytes, render_widget

        with interrupt.deferred():  # laid out and painted whole (Qt calls back into Python); Ctrl+C then, unwritten
            image = render_widget(widget, width, height, theme.background, footer, theme)
            data = image_bytes(image, cls.qt_format, cls.quality, cls.options)
        fileio.write_atomic(target, data)


@export_formats.register
class Png(ImageFormat, export_formats.Png):
    qt_format = "PNG"
    # lossless: encoded by exporters.png_encode (faster than Qt's writer), which takes no quality


@export_formats.register
class Jpeg(ImageFormat, export_formats.Jpeg):
    qt_format = "JPEG"
    quality = 92  # lines and text stay sharp enough for a slide; a chart compresses better as PNG


@export_formats.register
class Webp(ImageFormat, export_formats.Webp):
    qt_format = "WEBP"
    quality = 90


@export_formats.register
class Svg(export_formats.Svg):
    @staticmethod
    def write(widget: QWidget, target: str | Path, width: int, height: int, theme: Theme, footer: str) -> None:
        from gemmviz.ui.export.exporters import svg_bytes

        with interrupt.deferred():  # laid out and painted whole (Qt calls back into Python); Ctrl+C then, unwritten
            data = svg_bytes(widget, width, height, theme.background, footer, theme)
        fileio.write_atomic(target, data)
