"""Charts as PNG (pixels at the asked size) and SVG (the same 1080p-equivalent layout as paths), drawn by
ui/export/exporters.py. A chart's writer: write(widget, target, width, height, theme, footer)."""

from __future__ import annotations

from gemmviz.core import export_formats, fileio, interrupt


@export_formats.register
class Png(export_formats.Png):
    @staticmethod
    def write(widget, target, width: int, height: int, theme, footer: str) -> None:
        from gemmviz.ui.export.exporters import png_bytes, render_widget

        with interrupt.deferred():  # laid out and painted whole (Qt calls back into Python); Ctrl+C then, unwritten
            data = png_bytes(render_widget(widget, width, height, theme.background, footer, theme))
        fileio.write_atomic(target, data)


@export_formats.register
class Svg(export_formats.Svg):
    @staticmethod
    def write(widget, target, width: int, height: int, theme, footer: str) -> None:
        from gemmviz.ui.export.exporters import svg_bytes

        with interrupt.deferred():  # laid out and painted whole (Qt calls back into Python); Ctrl+C then, unwritten
            data = svg_bytes(widget, width, height, theme.background, footer, theme)
        fileio.write_atomic(target, data)
