"""Drawing one lesson step: a header (lesson, step i / n, where the numbers come from), the step's title and
text in large type, its one view, and a footer naming the data source and the gemmviz version.

The same functions lay out and draw the step in the window (ui/lesson/mode.py), in the slide export (PNG and
PDF, `gemmviz lesson NAME --export`) and in the tests. Every text drawn is recorded as (text, QRectF), so
the tests can check that nothing overlaps and nothing leaves the slide.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QImageWriter, QPainter, QPen
from PySide6.QtWidgets import QWidget

from gemmviz import __version__
from gemmviz.core import fileio, interrupt
from gemmviz.core.lesson.lessons import FOOTER_QUOTED, NO_DATA, Lesson, LessonSource, Step, fill_text, step_quoted
from gemmviz.core.lesson.views import VIEW_KINDS, lesson_view
from gemmviz.core.messages import Message, msg, render
from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.i18n import paint_in, speaking
from gemmviz.ui.lesson.views import Text, ViewContext, kept_widgets, ui_view
from gemmviz.ui.text import tr
from gemmviz.ui.theme import Theme, theme_for

log = logging.getLogger("gemmviz")

# Body text in pixels at 1080 rows: at least 24 px in projector mode; everything scales with height.
BODY_PX_1080 = {True: 34.0, False: 26.0}
SMALL_PX_1080_PROJECTOR = 24.0  # DESIGN.md: no text under 24 px at 1080p in projector type (16 px at 720p)
WRAP = Qt.TextFlag.TextWordWrap
MIN_MARKER_PX = 12  # a chart's markers on a projected slide, at any size


@dataclass(frozen=True)
class Slide:
    """Everything a step shows in words, with its numbers already filled in."""

    lesson_title: str
    index: int  # 0-based
    count: int
    source_label: Message  # where the numbers come from (core/lesson's messages), said in the window's language
    title: str
    text: str
    footer: Message
    status: str = ""  # what the window adds on screen: "R runs these kernels live", progress
    lang: str = "en"  # the lesson's: every word of the slide is in it, whatever the window's language


@dataclass(frozen=True)
class SlideLayout:
    header: QRectF
    title: QRectF
    body: QRectF
    view: QRectF  # empty for a text-only step
    footer: QRectF
    small_px: float
    title_px: float
    body_px: float


SLIDES_MANIFEST = ".gemmviz-slides"  # in a lesson's export folder: the slides gemmviz wrote, "NAME SHA-256" a line
SLIDE_RE = re.compile(r"step-\d{2,}\.png")


def slide_for(lesson: Lesson, index: int, source: LessonSource, status: str = "") -> Slide:
    step = lesson.steps[index]
    kind = lesson_view(step.view)
    heading = kind.heading(step, source.results) if kind is not None and kind.heading is not None else None
    return Slide(
        lesson.title,
        index,
        len(lesson.steps),
        heading or source.label_message,
        step.title,
        fill_text(step.text, list(source.results), lesson.lang),
        _footer(step, source, lesson.lang),
        status,
        lesson.lang,
    )


def _footer(step, source: LessonSource, lang: str = "en") -> Message:
    """The data source, and where the step's quoted figures come from when it quotes any (they are published,
    not measured by the session the footer names)."""
    quoted = step_quoted(step, lang, results=source.results)
    return msg(FOOTER_QUOTED, footer=source.footer_message, quoted=quoted) if quoted else source.footer_message


def font(px: float, bold: bool = False) -> QFont:
    return pixel_font(px, bold, minimum=8, nearest=True)


WORD_JOINER = "\u2060"  # no line break on either side of it, drawn as nothing
_UNIT_SLASH = re.compile(r"(?<=\w)/(?=\w)")


def keep_together(text: str) -> str:
    """`text` with no line break inside a unit such as GFLOP/s or TB/s: a line may break after a slash (in
    Chinese text it did: "GFLOP/" / "s"), so a word joiner follows each slash between two letters or digits."""
    return _UNIT_SLASH.sub("/" + WORD_JOINER, text)


def _wrapped_height(text: str, f: QFont, width: float) -> float:
    return QFontMetricsF(f).boundingRect(QRectF(0, 0, width, 1e6), int(WRAP), keep_together(text)).height()


def footer_text(slide: Slide) -> str:
    """The footer's data source, in the lesson's language: "Data: NVIDIA H200, 2026-12-02, replayed · …"."""
    with speaking(slide.lang):
        return tr("Data: {0}").format(render(slide.footer, slide.lang))


def _status_width(slide: Slide, small: QFont, px: float, width: float) -> float:
    return min(QFontMetricsF(small).horizontalAdvance(slide.status) + px, width / 2) if slide.status else 0.0


def slide_layout(w: int, h: int, slide: Slide, projector: bool, has_view: bool) -> SlideLayout:
    """Header and footer lines, the title and text as tall as their wrapped lines, the view gets the rest.

    A step with no view shows its text larger, in the middle of the slide. If the words would leave the
    view less than half the slide (a long text at a small size), the type shrinks until they fit."""
    scale = h / 1080
    margin = max(10.0, 0.03 * min(w, h))
    body_px = BODY_PX_1080[projector] * scale * (1.0 if has_view else 1.35)
    # the header and footer name the lesson and the data: in projector type at the projector's minimum too
    small_px = max(12.0, (SMALL_PX_1080_PROJECTOR if projector else 0.58 * BODY_PX_1080[False]) * scale)
    inner_w = w - 2 * margin
    while True:
        title_px = body_px * 1.45
        title_h = _wrapped_height(slide.title, font(title_px, True), inner_w)
        body_h = _wrapped_height(slide.text, font(body_px), inner_w)
        line_small = QFontMetricsF(font(small_px)).height()
        # a footer too long for one line (a data source and the figures the slide quotes from elsewhere) takes
        # two: cut in its middle it lost "seed 000, published"
        room = inner_w - _status_width(slide, font(small_px), small_px, inner_w)
        footer_lines = 1 if QFontMetricsF(font(small_px)).horizontalAdvance(footer_text(slide)) <= room else 2
        top = margin + line_small + 0.5 * margin
        words_bottom = top + title_h + 0.4 * body_px + body_h
        view_top = words_bottom + 0.6 * margin
        footer_top = h - margin - footer_lines * line_small
        if not has_view or footer_top - view_top >= 0.5 * h or body_px <= 12:
            break
        body_px *= 0.92
    header = QRectF(margin, margin, inner_w, line_small)
    if has_view:
        title = QRectF(margin, top, inner_w, title_h)
    else:  # centred vertically between header and footer
        free = footer_top - top - (title_h + 0.4 * body_px + body_h)
        title = QRectF(margin, top + max(0.0, free / 2), inner_w, title_h)
    body = QRectF(margin, title.bottom() + 0.4 * body_px, inner_w, body_h)
    view = QRectF(margin, view_top, inner_w, max(0.0, footer_top - 0.5 * margin - view_top)) if has_view else QRectF()
    footer = QRectF(margin, footer_top, inner_w, footer_lines * line_small)
    return SlideLayout(header, title, body, view, footer, small_px, title_px, body_px)


def _draw(
    painter: QPainter,
    rect: QRectF,
    flags,
    text: str,
    f: QFont,
    texts: list[Text],
    elide: bool = False,
    elide_mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
) -> None:
    """One text in its rectangle; `elide`: one line cut with … to the rectangle's width, not clipped at its top
    and foot (a CJK fallback font's line is taller than the Latin one the rectangle was measured with: the
    tails of g and y were cut off)."""
    painter.setFont(f)
    if elide:
        text = QFontMetricsF(f).elidedText(text, elide_mode, rect.width())
        flags = int(flags) | int(Qt.TextFlag.TextDontClip)
    if not text:
        return
    shown = keep_together(text) if int(flags) & int(WRAP) else text
    need = painter.boundingRect(rect, int(flags), shown)
    painter.drawText(rect, int(flags), shown)
    texts.append((text, need))


def draw_slide_text(painter: QPainter, w: int, h: int, slide: Slide, theme: Theme, lay: SlideLayout) -> list[Text]:
    """Background, header, title, text and footer; returns what was drawn where."""
    texts: list[Text] = []
    painter.fillRect(QRectF(0, 0, w, h), QColor(theme.background))
    fg = QColor(theme.foreground)
    dim = QColor(fg)
    dim.setAlpha(170)
    small = font(lay.small_px)
    painter.setPen(QPen(dim))
    third = lay.header.width() / 3
    left = QRectF(lay.header.left(), lay.header.top(), third * 1.15, lay.header.height())
    mid = QRectF(left.right(), lay.header.top(), third * 0.6, lay.header.height())
    right = QRectF(mid.right(), lay.header.top(), lay.header.right() - mid.right(), lay.header.height())
    v = Qt.AlignmentFlag.AlignVCenter
    _draw(painter, left, Qt.AlignmentFlag.AlignLeft | v, slide.lesson_title, small, texts, elide=True)
    with speaking(slide.lang):  # header, footer: in the lesson's language
        step_of = tr("step {i} / {n}").format(i=slide.index + 1, n=slide.count)
    _draw(painter, mid, Qt.AlignmentFlag.AlignHCenter | v, step_of, small, texts)
    _draw(
        painter,
        right,
        Qt.AlignmentFlag.AlignRight | v,
        render(slide.source_label, slide.lang),
        small,
        texts,
        elide=True,
    )
    painter.setPen(QPen(fg))
    top_left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | WRAP
    _draw(painter, lay.title, top_left, slide.title, font(lay.title_px, True), texts)
    _draw(painter, lay.body, top_left, slide.text, font(lay.body_px), texts)
    painter.setPen(QPen(dim))
    # the status (a hint such as "P plays the animation") at the right, as wide as it needs up to half; the data
    # source gets the rest, cut in its middle where it must be, so that "quoted: …, published" at its end stays
    status_w = _status_width(slide, small, lay.small_px, lay.footer.width())
    foot_r = QRectF(lay.footer.right() - status_w, lay.footer.top(), status_w, lay.footer.height())
    foot_l = QRectF(lay.footer.left(), lay.footer.top(), lay.footer.width() - status_w, lay.footer.height())
    two_lines = lay.footer.height() > 1.5 * QFontMetricsF(small).height()
    _draw(
        painter,
        foot_l,
        Qt.AlignmentFlag.AlignLeft | (WRAP if two_lines else v),
        footer_text(slide),
        small,
        texts,
        elide=not two_lines,
        elide_mode=Qt.TextElideMode.ElideMiddle,
    )
    _draw(painter, foot_r, Qt.AlignmentFlag.AlignRight | v, slide.status, small, texts, elide=True)
    return texts


# ---- the step's view ----------------------------------------------------------------------------------
def has_view(step: Step) -> bool:
    return VIEW_KINDS[step.view].has_view


def chart_theme(projector: bool, dark: bool, w: int, h: int) -> Theme:
    """Charts in a lesson are read from the back of a room even in normal mode: larger than the app's."""
    base = theme_for(projector, dark)
    if not projector:
        base = replace(base, font_pt=14, line_px=3.0, symbol_px=11)
    scaled = base.scaled(min(w / 1920, h / 1080))
    # markers stay at least MIN_MARKER_PX: scaled to 720 rows the roofline's points were 9 px, too small to see
    return replace(scaled, symbol_px=max(MIN_MARKER_PX, scaled.symbol_px)) if projector else scaled


def make_view_widget(step: Step, source: LessonSource, theme: Theme, lang: str = "en") -> QWidget | None:
    """A fresh live widget of the step's view (ui/lesson/views.py), filtered to the step's series and sizes;
    None for a step of words only."""
    with speaking(lang):  # the words it sets now (a chart's title, axes, legend) in the lesson's language
        widget = ui_view(step.view).widget(ViewContext(step, source, theme, lang))
    if widget is not None:
        paint_in(widget, lang)  # and those it draws when it paints (the animation's)
    return widget


def render_slide(
    painter: QPainter,
    w: int,
    h: int,
    lesson: Lesson,
    index: int,
    source: LessonSource,
    projector: bool = False,
    dark: bool = False,
    frame: int | None = None,
) -> list[Text]:
    """Draw step `index` as one slide; returns the texts drawn (a chart's own texts are not included).
    Through a PDF painter everything is drawn as vectors and text: the animation's static part included.
    `frame`: an animation's schedule step, where not the one the step opens on."""
    step = lesson.steps[index]
    slide = slide_for(lesson, index, source)
    lay = slide_layout(w, h, slide, projector, has_view(step))
    texts = draw_slide_text(painter, w, h, slide, theme_for(projector, dark), lay)
    if has_view(step):
        ctx = ViewContext(step, source, chart_theme(projector, dark, w, h), lesson.lang, frame)
        with speaking(lesson.lang):
            texts += ui_view(step.view).paint(painter, lay.view.toAlignedRect(), ctx)
    return texts


def render_slide_image(
    w: int,
    h: int,
    lesson: Lesson,
    index: int,
    source: LessonSource,
    projector: bool = False,
    dark: bool = False,
    frame: int | None = None,
) -> QImage:
    image = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(theme_for(projector, dark).background))
    with interrupt.deferred():  # Ctrl+C waits for the slide: a painter must end before its image goes
        painter = QPainter(image)
        try:  # a painter left active on a failed step would crash Qt when the image goes
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            render_slide(painter, w, h, lesson, index, source, projector, dark, frame)
        finally:
            painter.end()
    return image


def png_bytes(image: QImage) -> bytes:
    """`image` as PNG: opaque RGB (a slide has no transparency) at zlib's fastest level, five times faster than
    Qt's default of ARGB at level 6 (0.17 s to 0.03 s a 1280×720 slide) and a smaller file."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    # Qt maps PNG quality q to zlib level (100 - q) * 9 // 91: 80 is level 1
    writer = QImageWriter(buf, QByteArray(b"png"))
    writer.setQuality(80)
    writer.write(image.convertToFormat(QImage.Format.Format_RGB888))
    buf.close()
    return bytes(data.data())


def export_slides(
    lesson: Lesson,
    source: LessonSource | None,
    directory: Path,
    width: int,
    height: int,
    projector: bool = False,
    dark: bool = False,
    extra: dict[str, bytes | Callable[[], bytes]] | None = None,
) -> list[Path]:
    """step-01.png, step-02.png, … and lesson.pdf (one page per step, the same scenes as vectors and text)
    into `directory`, and the `extra` files given (name: bytes, or a callable that makes them once the slides
    are drawn), e.g. the handout (ui/lesson/handout.py): drawn after the slides, it reuses their charts, and a
    Ctrl+C at slide 2 stops an export that has not drawn a whole handout first.

    All or nothing: every slide is drawn first, every target is checked, and only then is anything written;
    slides left from a longer lesson exported there before (step-NN.png past this lesson's end) are removed,
    so the folder holds one lesson."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QSizeF
    from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter

    source = source or NO_DATA
    extra = extra or {}
    for name in [f"step-{i + 1:02d}.png" for i in range(len(lesson.steps))] + [*extra, "lesson.pdf"]:
        fileio.own_name(directory / name)  # a folder or a FIFO at a name: refused before any drawing
    pdf_data = QByteArray()
    pdf_buffer = QBuffer(pdf_data)
    pdf_buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    pdf = QPdfWriter(pdf_buffer)
    pdf.setTitle(lesson.title)
    pdf.setCreator(f"gemmviz {__version__}")
    # a page with the slide's aspect, 1 px = 0.75 pt (96 dpi), so the PDF page matches the PNG
    page = QPageSize(QSizeF(width * 0.75, height * 0.75), QPageSize.Unit.Point, "slide")
    pdf.setPageLayout(QPageLayout(page, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
    pdf.setResolution(96)
    pngs: list[bytes] = []
    painter = QPainter()
    try:
        for i in range(len(lesson.steps)):
            with kept_widgets():  # the PNG's chart laid out once, drawn again on the PDF page (and the handout's)
                pngs.append(png_bytes(render_slide_image(width, height, lesson, i, source, projector, dark)))
                with interrupt.deferred():  # Ctrl+C between pages, then the painter ends (finally)
                    if i == 0:
                        painter.begin(pdf)
                    else:
                        pdf.newPage()
                    # the same scene as the PNG, as vectors: real text (searchable, its fonts embedded), lines as paths
                    painter.fillRect(QRectF(0, 0, width, height), QColor(theme_for(projector, dark).background))
                    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
                    render_slide(painter, width, height, lesson, i, source, projector, dark)
            log.info("slide %d of %d drawn", i + 1, len(lesson.steps))  # -v: the export's progress
    finally:
        if painter.isActive():
            painter.end()
        pdf_buffer.close()
    extra_data = [data() if callable(data) else data for data in extra.values()]
    names = [f"step-{i + 1:02d}.png" for i in range(len(pngs))] + [*extra, "lesson.pdf"]
    targets = [directory / name for name in names]
    # All or none: written into a hidden folder inside `directory`, moved in only when every file is whole (a
    # full disk or Ctrl+C at slide 9 leaves the old slides, handout and lesson.pdf); a link at a name is replaced
    # by the file, never followed.
    with fileio.staged_folder(directory) as staging:
        for name, data in zip(names, [*pngs, *extra_data, bytes(pdf_data.data())]):
            fileio.write_new(staging / name, data)
    with interrupt.deferred():
        # an earlier export's slides past this one's last: only those gemmviz wrote and nobody changed since (a
        # step-02-my-diagram.png, or a step-99.png of the teacher's own, stays)
        fileio.tidy_written(directory, SLIDES_MANIFEST, names, SLIDE_RE)
    return targets
