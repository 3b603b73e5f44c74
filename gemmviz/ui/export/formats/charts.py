"""Charts as PNG (pixels at the asked size) and SVG (the same 1080p-equivalent layout as paths), drawn by
ui/export/exporters.py. A chart's writer: write(widget, target, width, height, theme, footer)."""

from __future__ import annotations

from gemmviz.core import export_formats, fileio


@export_formats.register
class Png(export_formats.Png):
    @staticmethod
    def write(widget, target, width: int, height: int, theme, footer: str) -> None:
        from gemmviz.ui.export.exporters import png_bytes, render_widget

        fileio.write_atomic(target, png_bytes(render_widget(widget, width, height, theme.background, footer, theme)))


@export_formats.register
class Svg(export_formats.Svg):
    @staticmethod
    def write(widget, target, width: int, height: int, theme, footer: str) -> None:
        from gemmviz.ui.export.exporters import svg_bytes

        fileio.write_atomic(target, svg_bytes(widget, width, height, theme.background, footer, theme))
