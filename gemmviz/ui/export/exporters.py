"""Export charts (PNG at any size, SVG) and the tiling animation (GIF, PNG frames, MP4 where ffmpeg is
installed), from the app or headless. A chart is laid out at the 1080p-equivalent size and painted scaled
to the output (device pixel ratio), so 4K is exactly the 1080p layout at twice the pixels. Every exported
chart carries a footer: where its numbers come from (GPU, date, measured / replayed / published) and the
gemmviz version. A chart with nothing to draw is refused, naming the sizes that have data. Files are written to a temporary name and renamed, so a
failure leaves nothing half-written behind."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter
from PySide6.QtWidgets import QWidget

from gemmviz.core import export_formats, fileio, interrupt
from gemmviz.core.charts.kinds import ChartKind, ChartView, NothingToDraw
from gemmviz.core.messages import render
from gemmviz.core.parsing import check_pixels
from gemmviz.core.problem import ProblemError
from gemmviz.core.session.results import Result
from gemmviz.ui.charts import kinds as chart_kinds
from gemmviz.ui.export import formats
from gemmviz.ui.theme import LIGHT, Theme

REFERENCE = (1920, 1080)  # the size at which a theme's font and line sizes are meant
FOOTER_SCALE = 0.8  # the footer's text, relative to the theme's
MIN_PX, MAX_PX = 16, 8192


class ExportError(Exception):
    """An export that cannot be done; the message says why."""


class NothingToExport(ExportError):
    """A chart with nothing to draw for these results (the CLI's bad input: refused before any file is written)."""


def scale_for(width: int, height: int) -> float:
    return min(width / REFERENCE[0], height / REFERENCE[1])


def check_size(width: int, height: int) -> None:
    if not (MIN_PX <= width <= MAX_PX and MIN_PX <= height <= MAX_PX):
        raise ProblemError(f"size {width}x{height} is out of range: each side must be {MIN_PX}…{MAX_PX} pixels")
    check_pixels(width, height)


def check_target(path: str | os.PathLike, suffixes: tuple[str, ...]) -> Path:
    try:
        return fileio.check_target(path, suffixes)
    except fileio.OutputError as exc:
        raise ExportError(str(exc)) from None


def footer_text(origins: list[tuple[str | None, str, str]], lang: str = "en") -> str:
    """One line: each source's GPU, date and how its numbers were got, then the gemmviz version, in `lang`.
    `origins` holds (gpu or None, date "YYYY-MM-DD" or "", how): "measured" | "replayed" | "published", a
    recording timed with the host's launch path adding ", host-inclusive timing" (core/session/workspace's
    ORIGIN_HOW, said in `lang`); other words (a caller's own, already in the window's language) as they are."""
    from gemmviz import __version__
    from gemmviz.core.session.workspace import NO_GPU

    # one part per machine and kind of figure, its dates together: two published sessions of one GPU said
    # "RTX 4060 published · RTX 4060 published"
    grouped: dict[tuple[str | None, str], list[str]] = {}
    for gpu, date, how in origins:
        dates = grouped.setdefault((gpu, how), [])
        if date and date not in dates:
            dates.append(date)
    parts = []
    for (gpu, how), dates in grouped.items():
        words = ", ".join(_how_word(h, lang) for h in how.split(", "))
        name = gpu or ("" if how == "model" else render(NO_GPU, lang))  # a model ran on no machine: say that only
        parts.append(" ".join(x for x in (name, ", ".join(dates), words) if x))
    return " · ".join([*parts, f"gemmviz {__version__}"])


def _how_word(word: str, lang: str) -> str:
    """One word of a footer's "how": an ORIGIN_HOW word or a provenance message key in `lang`, else as it is."""
    from gemmviz.core.session import provenance
    from gemmviz.core.session.workspace import ORIGIN_HOW, how_message

    if word in ORIGIN_HOW:
        return render(how_message(word), lang)
    return render(word, lang) if word == provenance.CUBLAS_UNKNOWN else word


def session_origin(session, replay: bool = False, shown: list[Result] | None = None) -> tuple[str | None, str, str]:
    """(GPU, date, how) of a session file: published, replayed (opened as a replay) or measured; a recording
    with cuBLAS among `shown` (default: all its results) adds which cuBLAS its percentages are of."""
    from gemmviz.core.session.workspace import session_gpu

    how = "published" if session.kind == "published" else ("replayed" if replay else "measured")
    cublas = cublas_words(session.results if shown is None else shown) if session.kind != "published" else None
    return session_gpu(session), (session.created or "")[:10], how + (f", {cublas}" if cublas else "")


def cublas_words(results: list[Result]) -> str | None:
    """Which cuBLAS a slide's percentages of cuBLAS are of: "cuBLAS 13.1", or the message key that says the
    session did not record it (footer_text renders it in the slide's language); None without cuBLAS results."""
    from gemmviz.core.session import provenance

    versions = {r.cublas_version for r in results if r.variant.startswith("cublas") and r.valid}
    if not versions:
        return None
    known = sorted(filter(None, {provenance.release(v) for v in versions}))
    return "cuBLAS " + "/".join(known) if known and None not in versions else provenance.CUBLAS_UNKNOWN


def workspace_footer(workspace, results: list[Result], lang: str = "en") -> str:
    """The footer for `results` as the workspace holds them: each result's session, or this machine live."""
    import datetime as _dt

    origins = []
    by_session: dict[str, list[Result]] = {}
    for r in results:
        loaded = workspace.session_of(r)
        if loaded is not None:
            by_session.setdefault(loaded.id, []).append(r)
    origin_of = {}  # once per session: its cuBLAS words look at its shown results
    for r in results:
        loaded = workspace.session_of(r)
        if loaded is not None:
            if loaded.id not in origin_of:
                origin_of[loaded.id] = session_origin(loaded.session, loaded.replay, by_session[loaded.id])
            gpu, date, how = origin_of[loaded.id]
            if r.timing == "host-events":  # an older recording: its GPU samples include the host's launch path
                how += ", host-inclusive timing"
            origins.append((gpu, date, how))
        else:
            gpu = workspace.device_gpu.get("name") if r.backend == "cuda" else None
            origins.append((gpu or workspace.environment.get("cpu") or None, _dt.date.today().isoformat(), "measured"))
    return footer_text(origins, lang)


def chart_kind(kind: str) -> type[ChartKind]:
    """The registered kind called `kind`, with its drawing (ui/charts/kinds/); ExportError names the kinds."""
    try:
        return chart_kinds.get(kind)
    except KeyError as exc:
        raise ExportError(exc.args[0]) from None


def check_drawable(kind: str, results: list[Result], view: ChartView | None = None) -> None:
    """Refuse (ExportError) a chart that would draw nothing, naming the sizes that do have data."""
    try:
        chart_kind(kind).check(chart_kinds.drawn(kind, results), view or ChartView())
    except NothingToDraw as exc:
        raise NothingToExport(str(exc)) from None


def make_chart(kind: str, results: list[Result], theme: Theme, ceilings=None, view: ChartView | None = None) -> QWidget:
    """A fresh chart widget of a registered kind (the 2x2 dashboard too) drawn with `theme`, for exports, the
    lessons and the tests: the kind's `render`, as `view` shows the results (the speedup chart's baseline, size
    and source, and where each result came from when several sessions are shown; ChartView's defaults if not
    given). Its legends are fitted when it is shown (layout_offscreen), at its size then (ResultChart.fit_legend)."""
    try:
        return chart_kind(kind).render(chart_kinds.drawn(kind, results), theme, ceilings, view or ChartView())
    except NothingToDraw as exc:  # a chart of one result, and no result has what it needs
        raise NothingToExport(str(exc)) from None


def render_widget(
    widget: QWidget, width: int, height: int, background: str, footer: str = "", theme: Theme = LIGHT
) -> QImage:
    """The widget laid out at the 1080p-equivalent size and painted at width x height pixels (scaled by
    the device pixel ratio, so cosmetic lines, fonts and markers all scale by the same factor)."""
    scale = scale_for(width, height)
    logical_w, logical_h = width / scale, height / scale
    footer_h = footer_height(theme) if footer else 0
    layout_offscreen(widget, round(logical_w), round(logical_h - footer_h))
    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.setDevicePixelRatio(scale)
    image.fill(QColor(background))
    with interrupt.deferred():  # Ctrl+C waits for the chart: a painter must end before its image goes
        painter = QPainter(image)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            paint_charts(widget, painter)
            if footer:
                paint_footer(painter, footer, QRectF(0, logical_h - footer_h, logical_w, footer_h), theme)
        finally:
            painter.end()
    image.setDevicePixelRatio(1.0)
    return image


def device_theme(theme: Theme, width: int, height: int) -> Theme:
    """The theme to lay a chart out with for a width x height export: fonts and markers as at 1080p (the
    painter scales them), but line widths in output pixels, because pyqtgraph's pens are cosmetic (drawn in
    device pixels, whatever the painter's scale)."""
    from dataclasses import replace

    return replace(theme, line_px=theme.line_px * scale_for(width, height))


def footer_height(theme: Theme) -> float:
    return theme.font_pt * FOOTER_SCALE * 96 / 72 * 1.8


def paint_footer(painter: QPainter, text: str, rect: QRectF, theme: Theme) -> None:
    """The footer at the right; a footer wider than the chart is set smaller (to 0.7 of its type), then cut
    in its middle with …, keeping its start and the version at its end (it was cut at the left edge)."""
    from PySide6.QtGui import QFontMetricsF

    inner = rect.adjusted(12, 0, -12, 0)
    font = QFont()
    pt = theme.font_pt * FOOTER_SCALE
    font.setPointSizeF(pt)
    while QFontMetricsF(font).horizontalAdvance(text) > inner.width() and font.pointSizeF() > 0.7 * pt:
        font.setPointSizeF(font.pointSizeF() * 0.95)
    text = QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideMiddle, inner.width())
    painter.save()
    painter.setFont(font)
    painter.setPen(QColor(theme.foreground))
    painter.drawText(inner, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)
    painter.restore()


def layout_offscreen(widget: QWidget, width: int, height: int) -> None:
    """Give the widget its real size and let Qt lay it out, without ever putting it on a screen."""
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QApplication

    widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    widget.resize(width, height)
    with _unpainted(widget) as learn:
        widget.show()
        for _ in range(3):
            learn()
            QApplication.processEvents()
        widget.resize(width, height)
        learn()
        QApplication.processEvents()
        for _ in range(10):  # and the work queued after the layout (the roofline places its notes once, after resizes)
            if not any(t.isActive() and t.interval() == 0 for t in widget.findChildren(QTimer)):
                break
            learn()
            QApplication.processEvents()


@contextmanager
def _unpainted(widget: QWidget):
    """While a chart is laid out offscreen, its chart views are not painted. It yields `learn()`, which does what a
    view's paint does before drawing: prepares its scene (auto-ranges, texts' transforms) and lets every plot's axes
    measure their tick labels, keeping the picture made (base.learn_tick_sizes). pyqtgraph's axes learn their widths
    from the labels they paint: the layout painted the charts three times over for them to (11 paints of the four
    views of a 4K dashboard). Called before each turn of the event loop, it leaves the layout as those paints did
    (every kind's export byte for byte as before); the export then paints the chart, whole."""
    import pyqtgraph as pg

    from gemmviz.ui.charts.base import learn_tick_sizes

    views = [widget] if isinstance(widget, pg.GraphicsView) else widget.findChildren(pg.GraphicsView)
    plots = [i for v in views for i in v.scene().items() if isinstance(i, pg.PlotItem)]
    for view in views:
        view.viewport().setUpdatesEnabled(False)

    def learn() -> None:
        for view in views:
            view.scene().prepareForPaint()  # what a view's paint does first (auto-ranges, texts' transforms)
        for plot in plots:
            learn_tick_sizes(plot, keep=True)

    try:
        yield learn
    finally:
        for view in views:
            view.viewport().setUpdatesEnabled(True)


def paint_charts(widget: QWidget, painter: QPainter) -> None:
    """Draw the chart scenes of `widget` (a chart, or a dashboard of charts) through `painter`, as
    vector items: the same path makes PNG pixels and SVG paths. A widget that draws with a painter of its own
    rather than in chart scenes (the access views' canvas) is written through its `paint_export(painter)`."""
    import pyqtgraph as pg
    from PySide6.QtGui import QPaintEngine

    paint_export = getattr(widget, "paint_export", None)
    if paint_export is not None:
        paint_export(painter)
        return

    views = [widget] if isinstance(widget, pg.GraphicsView) else widget.findChildren(pg.GraphicsView)
    # into a PDF or SVG, markers as paths too: pyqtgraph's export mode (its own exporters set it) draws each
    # symbol instead of stamping cached pixmaps, which would be embedded as images (a picture: the handout's slide,
    # replayed into its PDF)
    vector = painter.paintEngine().type() in (QPaintEngine.Type.Pdf, QPaintEngine.Type.SVG, QPaintEngine.Type.Picture)
    for view in views:
        origin = view.mapTo(widget, view.rect().topLeft()) if view is not widget else view.rect().topLeft()
        items = [i for i in view.scene().items() if hasattr(i, "setExportMode")] if vector else []
        for item in items:
            item.setExportMode(True, {"painter": painter, "antialias": True})
        painter.save()
        try:
            painter.translate(origin.x(), origin.y())
            view.render(painter, QRectF(0, 0, view.width(), view.height()), view.viewport().rect())
        finally:
            painter.restore()
            for item in items:
                item.setExportMode(False)


def chart_writer(path: str | os.PathLike) -> tuple[Path, type[export_formats.ExportFormat]]:
    """The checked path of a chart (or of any picture written as charts are) and the registered chart format its
    suffix names, whose `write(widget, target, width, height, theme, footer)` writes it (ui/export/formats/)."""
    target = check_target(path, export_formats.suffixes(export_formats.CHART))
    return target, formats.writer(export_formats.CHART, target)


def export_chart(
    kind: str,
    results: list[Result],
    path: str | os.PathLike,
    width: int = 1920,
    height: int = 1080,
    theme: Theme = LIGHT,
    ceilings=None,
    view: ChartView | None = None,
    footer: str | None = None,
) -> Path:
    """Write one chart of a registered kind (or the dashboard) at width x height pixels in the registered format
    its path's suffix names (PNG, SVG), drawn as `view` shows the results (the speedup chart's baseline, size
    and source, and where each result came from), with `footer` (where the numbers come from: see footer_text,
    session_origin, workspace_footer) under it; without one, the footer names only the gemmviz version.
    A chart that picks its own data says where it came from instead (its `origins()`)."""
    check_size(width, height)
    target, writer = chart_writer(path)
    view = view or ChartView()
    check_drawable(kind, results, view)
    widget = make_chart(kind, results, device_theme(theme, width, height), ceilings, view)
    origins = getattr(widget, "origins", None)
    if callable(origins):  # a chart that draws data of its own choosing (the last-wave cases) names its source
        from gemmviz.ui import i18n

        footer = footer_text(origins(), i18n.language())  # in the language the chart itself was drawn in
    try:
        writer.write(widget, target, width, height, theme, footer or footer_text([]))
    finally:
        widget.hide()
        widget.deleteLater()
    return target


# PNG goes through png_encode below, not Qt's writer (kept for JPEG and WebP): zlib level 2 after the "Up" filter
# encodes a 3840x2160 dashboard in ~0.13 s to 726 KiB; Qt's writer at its fastest ("quality" 80, zlib level 1)
# took 0.5-1.2 s for 822 KiB on the same 2-core machine (benchmarks/README.md, export_time.py).
PNG_LEVEL = 2


def image_bytes(image: QImage, qt_format: str, quality: int = -1, options: dict | None = None) -> bytes:
    """`image` encoded by Qt's QImageWriter for `qt_format` (any of QImageWriter.supportedImageFormats(): "JPEG",
    "WEBP", "TIFF", ...) at `quality` (-1: Qt's default), with the writer's other `options` by name
    ({"compression": 1} calls setCompression(1)); a plain "PNG" by png_encode (lossless, faster than Qt's)."""
    from PySide6.QtGui import QImageWriter

    if qt_format == "PNG" and not options:
        return png_encode(image)
    supported = [bytes(f.data()).decode().upper() for f in QImageWriter.supportedImageFormats()]
    if qt_format.upper() not in supported:
        raise ExportError(f"Qt here cannot write {qt_format} images (it writes {', '.join(sorted(set(supported)))})")
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QImageWriter(buf, qt_format.encode())
    if quality >= 0:
        writer.setQuality(quality)
    for name, value in (options or {}).items():
        setter = getattr(writer, "set" + name[:1].upper() + name[1:], None)
        if setter is None:
            raise ExportError(f"{qt_format}: QImageWriter has no option {name!r}")
        setter(value)
    if not writer.write(image):
        raise ExportError(f"{qt_format} encoding failed: {writer.errorString()}")
    buf.close()
    return bytes(data.data())


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    import struct
    import zlib

    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_encode(image: QImage, level: int = PNG_LEVEL) -> bytes:
    """`image` as a PNG of exactly its pixels: 8-bit RGB where every pixel is opaque (a chart on its theme's
    background), RGBA otherwise; every row filtered "Up" (the row above subtracted: a chart's flat background
    and straight lines become zeros) and compressed by zlib at `level`. Qt's own writer (libpng, RGBA, adaptive
    filters) took 0.5-1.2 s for a 4K chart on a 2-core machine; this takes ~0.15 s, for a smaller file."""
    import struct
    import zlib

    import numpy as np

    if image.isNull():
        raise ExportError("PNG encoding failed: no image")
    width, height = image.width(), image.height()
    if image.format() in (
        QImage.Format.Format_ARGB32,
        QImage.Format.Format_ARGB32_Premultiplied,
        QImage.Format.Format_RGB32,
    ):
        # a chart's own image (render_widget): its alpha read in place (a pixel's 32-bit word, alpha in its top
        # byte), and an opaque one converted once, straight to RGB (via RGBA8888 took a second 4K conversion)
        argb = np.frombuffer(image.constBits(), np.uint32, image.bytesPerLine() // 4 * height).reshape(height, -1)
        opaque = image.format() == QImage.Format.Format_RGB32 or bool((argb[:, :width] >= 0xFF000000).all())
        rgba = None if opaque else image.convertToFormat(QImage.Format.Format_RGBA8888)
    else:
        rgba = image.convertToFormat(QImage.Format.Format_RGBA8888)  # un-premultiplied, bytes in R G B A order
        alpha = np.frombuffer(rgba.constBits(), np.uint8, rgba.bytesPerLine() * height).reshape(height, -1)
        opaque = bool((alpha[:, 3 : width * 4 : 4] == 255).all())
    channels = 3 if opaque else 4
    # whole rows: a fast subtract
    pixels = rgba if rgba is not None and not opaque else image.convertToFormat(QImage.Format.Format_RGB888)
    rows = np.frombuffer(pixels.constBits(), np.uint8, pixels.bytesPerLine() * height).reshape(height, -1)
    rows = rows[:, : width * channels]
    raw = np.empty((height, width * channels + 1), np.uint8)
    raw[:, 0] = 2  # filter type Up (the first row's "above" is zeros: the row as it is)
    raw[0, 1:] = rows[0]
    np.subtract(rows[1:], rows[:-1], out=raw[1:, 1:])  # modulo 256, as PNG's filter is
    header = struct.pack(">IIBBBBB", width, height, 8, 2 if opaque else 6, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _png_chunk(b"IHDR", header),
            _png_chunk(b"IDAT", zlib.compress(raw.data, level)),
            _png_chunk(b"IEND", b""),
        )
    )


def png_bytes(image: QImage) -> bytes:
    with interrupt.deferred():  # Ctrl+C waits for the encoding: a signal raised inside Qt's or numpy's C calls
        return png_encode(image)  # surfaced as a SystemError (seen in CI), not as the interrupt


def svg_bytes(
    widget: QWidget, width: int, height: int, background: str, footer: str = "", theme: Theme = LIGHT
) -> bytes:
    """The same 1080p-equivalent layout as the PNG, in a view box that the viewer scales to width x height."""
    from PySide6.QtSvg import QSvgGenerator

    scale = scale_for(width, height)
    logical_w, logical_h = width / scale, height / scale
    footer_h = footer_height(theme) if footer else 0
    layout_offscreen(widget, round(logical_w), round(logical_h - footer_h))
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator()
    gen.setOutputDevice(buf)
    gen.setSize(QSize(width, height))
    gen.setViewBox(QRectF(0, 0, logical_w, logical_h))
    gen.setTitle("gemmviz chart")
    if footer:
        gen.setDescription(footer)
    with interrupt.deferred():  # Ctrl+C waits for the chart: a painter must end before its device goes
        painter = QPainter(gen)
        try:
            painter.fillRect(QRectF(0, 0, logical_w, logical_h), QColor(background))
            paint_charts(widget, painter)
            if footer:
                paint_footer(painter, footer, QRectF(0, logical_h - footer_h, logical_w, footer_h), theme)
        finally:
            painter.end()
    buf.close()
    return bytes(data.data())


# ---- animation --------------------------------------------------------------------------------
Progress = Callable[[int, int, str], None]  # (frames done, frames in all, what) for a long export


def _counted(frames, total: int, progress: Progress | None, what: str):
    """The frames, calling `progress` after each one (the CLI's bar; Ctrl+C stops the export between frames)."""
    for i, frame in enumerate(frames, 1):
        yield frame
        if progress is not None:
            progress(i, total, what)


def export_gif(
    schedule,
    path,
    thread=(0, 0),
    width=960,
    height=540,
    steps_per_second: float = 2.0,
    theme: Theme = LIGHT,
    progress: Progress | None = None,
) -> int:
    """Animated GIF: every step, with the tiles gliding into shared memory before each load (frames made by
    ui/tiling/frames.py), streamed to the file frame by frame; returns the number of frames. An export
    that fails or is interrupted leaves no file and any previous one as it was."""
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise ExportError("GIF export needs Pillow (pip install pillow)") from None
    from gemmviz.ui.tiling.frames import frame_count, timed_frames, write_gif

    target = check_target(path, (".gif",))
    check_size(width, height)
    scaled = theme.scaled(scale_for(width, height))
    frames = timed_frames(schedule, thread, width, height, scaled, steps_per_second)
    with fileio.atomic_file(target) as f:
        return write_gif(_counted(frames, frame_count(schedule), progress, "GIF"), f)


FRAME_NAME = "frame_{:04d}.png"  # the frames' names, in a folder and in the MP4's list
FRAME_RE = re.compile(r"frame_(\d{4,})\.png")  # a frame of an earlier export (frame_0000.png …, frame_10000.png)


def _write_frames(
    schedule,
    out: Path,
    thread,
    width: int,
    height: int,
    theme: Theme,
    steps_per_second: float,
    progress: Progress | None = None,
    total: int | None = None,
) -> list[int]:
    """The timed frames (tiles gliding as in the GIF) as frame_0000.png … in `out`; their durations in ms.
    `total`: the count the progress is out of (the frames, or more where work follows them)."""
    from gemmviz.ui.tiling.frames import frame_count, timed_frames

    check_size(width, height)
    scaled = theme.scaled(scale_for(width, height))
    durations = []
    frames = timed_frames(schedule, thread, width, height, scaled, steps_per_second)
    for i, frame in enumerate(_counted(frames, total or frame_count(schedule), progress, "frames")):
        fileio.write_atomic(out / FRAME_NAME.format(i), png_bytes(frame.image))
        durations.append(frame.duration_ms)
    return durations


def export_frames(
    schedule,
    directory,
    thread=(0, 0),
    width=1280,
    height=720,
    theme: Theme = LIGHT,
    steps_per_second: float = 2.0,
    progress: Progress | None = None,
) -> int:
    """Numbered PNG frames frame_0000.png … into `directory` (made if missing), the same frames as the GIF
    (a load's in-between frames included); returns the count. The frames are written to a hidden folder inside
    it and moved in only when all are drawn, and an earlier export's frames beyond the new count are removed:
    the folder then holds exactly this animation's frames (its other files untouched). An export that fails or
    is interrupted leaves the folder as it was (and no folder where there was none)."""
    check_size(width, height)
    out = Path(directory)
    made = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportError(f"cannot create {out}: {exc.strerror or exc}") from None
    if not os.access(out, os.W_OK):
        raise ExportError(f"cannot write into {out}: not writable")
    try:
        with fileio.staged_folder(out) as staging:  # moved in whole, or the folder left as it was
            n = len(_write_frames(schedule, staging, thread, width, height, theme, steps_per_second, progress))
    except BaseException:
        if made:
            try:
                out.rmdir()  # only if empty: nothing else was put there meanwhile
            except OSError:
                pass
        raise
    with interrupt.deferred():
        _forget_frames(out, n)
    return n


FRAMES_MANIFEST = ".gemmviz-frames"  # in a frames folder: the frames gemmviz wrote there, "NAME SHA-256" a line


def _forget_frames(out: Path, n: int) -> None:
    """Remove an earlier export's frames past this one's last, only those gemmviz wrote and nobody changed since
    (fileio.tidy_written); then note this export's frames in the manifest."""
    fileio.tidy_written(out, FRAMES_MANIFEST, [FRAME_NAME.format(i) for i in range(n)], FRAME_RE)


ENCODE_POLL_S = 0.1  # how often a running ffmpeg is asked whether the export was cancelled


def _encode(command: list[str], check: Callable[[], None]) -> None:
    """Run ffmpeg, calling `check` while it runs (it raises to cancel: the app's Cancel, Ctrl+C); a cancel or
    a failure ends ffmpeg (terminated, killed if it lingers) before it is raised, its partial file left in the
    caller's temporary folder."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        try:
            while True:
                try:
                    proc.wait(ENCODE_POLL_S)
                    break
                except subprocess.TimeoutExpired:
                    check()
        except BaseException:
            proc.terminate()
            try:
                proc.wait(2)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            raise
        if proc.returncode != 0:
            err.seek(0)
            text = err.read().decode("utf-8", "replace").strip()[-500:]
            raise ExportError(f"ffmpeg failed: {text or f'exit status {proc.returncode}'}")


def ffmpeg_path() -> str | None:
    return shutil.which("ffmpeg")


def export_mp4(
    schedule,
    path,
    thread=(0, 0),
    width=1280,
    height=720,
    steps_per_second: float = 2.0,
    theme: Theme = LIGHT,
    progress: Progress | None = None,
) -> int:
    """An MP4 of the GIF's frames, each shown for its own duration (ffmpeg's concat list), at 30 fps."""
    ffmpeg = ffmpeg_path()
    if ffmpeg is None:
        raise ExportError("MP4 export needs ffmpeg on the PATH; GIF and PNG frames work without it")
    from gemmviz.ui.tiling.frames import frame_count

    target = check_target(path, (".mp4",))
    with tempfile.TemporaryDirectory() as tmp:
        frames = Path(tmp)
        total = frame_count(schedule) + 1  # the frames, then ffmpeg's encoding as the last unit of progress
        durations = _write_frames(
            schedule, frames, thread, width - width % 2, height - height % 2, theme, steps_per_second, progress, total
        )
        listing = [f"file '{FRAME_NAME.format(i)}'\nduration {ms / 1000:.3f}" for i, ms in enumerate(durations)]
        listing.append(f"file '{FRAME_NAME.format(len(durations) - 1)}'")  # concat drops the last duration otherwise
        (frames / "frames.txt").write_text("\n".join(listing) + "\n")
        out = frames / "out.mp4"
        command = [ffmpeg, "-loglevel", "error", "-y", "-f", "concat", "-safe", "0", "-i", str(frames / "frames.txt")]
        command += ["-pix_fmt", "yuv420p", "-vf", "fps=30", str(out)]
        _encode(command, lambda: progress(len(durations), total, "MP4") if progress is not None else None)
        if progress is not None:  # encoded: the last chance to cancel, before the file is written
            progress(total, total, "MP4")
        fileio.write_atomic(target, out.read_bytes())
    return len(durations)
