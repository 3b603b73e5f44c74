"""The lesson's handout (handout.pdf beside the slides, `gemmviz lesson NAME --export DIR`): an A4 page per
step with its slide and its speaker notes, and for a step that animates (an animation, its code, two kernels
side by side) a page of its key frames: the first frame of each kind of step (the loads, both barriers, the
multiply-adds, the store), where the slide alone freezes the animation at one frame. Vectors and text, as the
slides' PDF; the words of the page in the lesson's language.
"""

from __future__ import annotations

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPageLayout, QPageSize, QPainter, QPdfWriter, QPen, QPicture

from gemmviz import __version__
from gemmviz.core import interrupt
from gemmviz.core.lesson.lessons import Lesson, LessonSource
from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.lesson.render import chart_theme, render_slide
from gemmviz.ui.lesson.views import ViewContext, frame_state, ui_view
from gemmviz.ui.text import tr
from gemmviz.ui.theme import theme_for

PAGE_W, PAGE_H = 794, 1123  # A4 at 96 dpi
MARGIN = 48
MAX_KEY_FRAMES = 6
KEY_FRAME_W, KEY_FRAME_H = 860, 520  # the canvas of a key frame, at the type of a 1280×720 slide
BARRIERS = ("sync", "sync2")


def key_frames(step) -> list[int]:
    """The frames a handout shows of an animated step: its opening frame, then the first of each kind of step
    (load, barrier, multiply-adds, second barrier, store …), at most MAX_KEY_FRAMES, every barrier kept."""
    state = frame_state(step)
    steps = state.schedule.steps
    frames = [state.step]
    seen = {steps[state.step].kind}
    for i, s in enumerate(steps):
        if s.kind not in seen:
            seen.add(s.kind)
            frames.append(i)
    barriers = [i for i in frames if steps[i].kind in BARRIERS]
    others = [i for i in frames if steps[i].kind not in BARRIERS]
    kept = sorted(barriers + others[: max(0, MAX_KEY_FRAMES - len(barriers))])
    return kept


def _text_block(painter: QPainter, rect: QRectF, text: str, px: float, bold: bool = False) -> float:
    """Wrapped text from `rect`'s top; returns the height it took."""
    font = pixel_font(px, bold)
    painter.setFont(font)
    flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)
    need = QFontMetricsF(font).boundingRect(rect, flags, text)
    painter.drawText(rect, flags, text)
    return need.height()


def _slide_page(painter, lesson, index, source, size, look) -> None:
    w, h = size
    inner = PAGE_W - 2 * MARGIN
    scale = inner / w
    # the slide drawn at its own size into a picture, the picture scaled onto the page: a chart scene drawn through
    # a scaled painter kept its legend at the unscaled size (pyqtgraph's legend ignores the painter's
    # transformation), so legends came out twice too large and cut, "gpu-tilec" three times
    picture = QPicture()
    recorder = QPainter(picture)
    try:
        recorder.setRenderHint(QPainter.RenderHint.Antialiasing)
        recorder.setClipRect(QRectF(0, 0, w, h))
        render_slide(recorder, w, h, lesson, index, source, *look)
    finally:
        recorder.end()
    painter.save()
    painter.translate(MARGIN, MARGIN)
    painter.scale(scale, scale)
    painter.setClipRect(QRectF(0, 0, w, h))
    painter.drawPicture(0, 0, picture)
    painter.restore()
    painter.setPen(QPen(QColor("#808080")))
    painter.drawRect(QRectF(MARGIN, MARGIN, inner, h * scale))
    top = MARGIN + h * scale + 24
    painter.setPen(QPen(QColor("#202020")))
    top += _text_block(painter, QRectF(MARGIN, top, inner, 40), tr("Notes"), 18, True) + 8
    notes = lesson.steps[index].notes or tr("(no notes for this step)")
    _text_block(painter, QRectF(MARGIN, top, inner, PAGE_H - MARGIN - top - 24), notes, 14)
    _footer(painter, lesson, index)


def _frames_page(painter, lesson, index, source, size, look) -> None:
    step = lesson.steps[index]
    frames = key_frames(step)
    schedule = frame_state(step).schedule
    inner = PAGE_W - 2 * MARGIN
    painter.setPen(QPen(QColor("#202020")))
    top = MARGIN + _text_block(
        painter, QRectF(MARGIN, MARGIN, inner, 60), tr("{title}: key frames").format(title=step.title), 18, True
    )
    top += 12
    cols = 2 if step.view != "side" else 1
    rows = -(-len(frames) // cols)
    cell_w = (inner - (cols - 1) * 16) / cols
    cell_h = (PAGE_H - MARGIN - 30 - top) / max(rows, 1)
    # a frame drawn on a canvas smaller than the slide's view, in the slide's type: larger on paper
    view_w, view_h = (KEY_FRAME_W * 2, KEY_FRAME_H) if step.view == "side" else (KEY_FRAME_W, KEY_FRAME_H)
    projector, dark = look
    theme = chart_theme(projector, dark, 1280, 720)
    for n, frame in enumerate(frames):
        x = MARGIN + (n % cols) * (cell_w + 16)
        y = top + (n // cols) * cell_h
        s = schedule.steps[frame]
        caption = tr("frame {i} of {n}: {kind}").format(i=frame + 1, n=len(schedule.steps), kind=s.kind)
        if s.kind in BARRIERS:
            caption += " · __syncthreads()"
        painter.setPen(QPen(QColor("#202020")))
        cap_h = _text_block(painter, QRectF(x, y, cell_w, 30), caption, 12, s.kind in BARRIERS) + 4
        scale = min(cell_w / view_w, (cell_h - cap_h - 12) / view_h)
        painter.save()
        painter.translate(x, y + cap_h)
        painter.scale(scale, scale)
        painter.setClipRect(QRectF(0, 0, view_w, view_h))
        ctx = ViewContext(step, source, theme, lesson.lang, frame)
        ui_view(step.view).paint(painter, QRectF(0, 0, view_w, view_h).toAlignedRect(), ctx)
        painter.restore()
        painter.setPen(QPen(QColor("#B0B0B0")))
        painter.drawRect(QRectF(x, y + cap_h, view_w * scale, view_h * scale))
    _footer(painter, lesson, index)


def _footer(painter: QPainter, lesson: Lesson, index: int) -> None:
    painter.setPen(QPen(QColor("#707070")))
    painter.setFont(pixel_font(11))
    rect = QRectF(MARGIN, PAGE_H - MARGIN + 8, PAGE_W - 2 * MARGIN, 20)
    step_of = tr("step {i} / {n}").format(i=index + 1, n=len(lesson.steps))
    painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft), f"{lesson.title} · {step_of}")
    painter.drawText(rect, int(Qt.AlignmentFlag.AlignRight), f"gemmviz {__version__}")


def handout_pages(lesson: Lesson) -> list[tuple[int, bool]]:
    """(step, is its key-frames page) for each page of the handout."""
    pages = []
    for i, step in enumerate(lesson.steps):
        pages.append((i, False))
        if step.animation is not None and ui_view(step.view) is not None:
            pages.append((i, True))
    return pages


def handout_pdf(
    lesson: Lesson, source: LessonSource, width: int, height: int, projector: bool = True, dark: bool = False
) -> bytes:
    """The handout as PDF bytes."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    pdf = QPdfWriter(buffer)
    pdf.setTitle(tr("{title}: handout").format(title=lesson.title))
    pdf.setCreator(f"gemmviz {__version__}")
    pdf.setPageLayout(
        QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0))
    )
    pdf.setResolution(96)
    painter = QPainter()
    look = (projector, dark)
    try:
        for n, (index, frames) in enumerate(handout_pages(lesson)):
            # Ctrl+C or SIGTERM between pages, never inside one: a signal raised inside a chart's paint (Python
            # called from Qt's C++) ended the export with a SystemError instead of "interrupted"
            with interrupt.deferred():
                if n == 0:
                    painter.begin(pdf)
                else:
                    pdf.newPage()
                painter.fillRect(QRectF(0, 0, PAGE_W, PAGE_H), QColor(theme_for(False, False).background))
                painter.setRenderHint(QPainter.RenderHint.Antialiasing)
                (_frames_page if frames else _slide_page)(painter, lesson, index, source, (width, height), look)
    finally:
        if painter.isActive():
            painter.end()
        buffer.close()
    return bytes(data.data())


def handout_page_image(
    lesson: Lesson, source: LessonSource, page: int, width: int, height: int, projector: bool = True, dark: bool = False
):
    """One page of the handout as an image (what the PDF page draws, for a preview and the tests)."""
    from PySide6.QtGui import QImage

    index, frames = handout_pages(lesson)[page]
    image = QImage(PAGE_W, PAGE_H, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(theme_for(False, False).background))
    with interrupt.deferred():  # a painter must end before its image goes
        painter = QPainter(image)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            (_frames_page if frames else _slide_page)(
                painter, lesson, index, source, (width, height), (projector, dark)
            )
        finally:
            painter.end()
    return image
