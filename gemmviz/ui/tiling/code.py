"""The kernel's code beside the animation, its highlighted lines following the frame: the load's lines at a
load, each `__syncthreads()` at its barrier, the bounds-checked store at the store. Drawn by one function
(`draw_code`) in the lesson's "code" view, its slide and handout pages, and the tests; the type is the largest
that fits the pane (long lines wrap, never cut), up to the animation's own size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter
from PySide6.QtWidgets import QHBoxLayout, QWidget

from gemmviz.core.kernels.code import Listing, kernel_listing
from gemmviz.ui.text import tr
from gemmviz.ui.theme import LIGHT, Theme
from gemmviz.ui.tiling.render import FONT_PER_PT, PROJECTOR_SHARE, Background, FrameState, render_frame

BARRIERS = ("sync", "sync2")  # the step kinds whose line is a __syncthreads()
MIN_PX = 8.0
LINE_PITCH = 1.15  # rows at this many times the type's size: the compact kernel whole at 16 px in half a 720p slide


def mono(px: float) -> QFont:
    # DejaVu Sans Mono first: its line box is 1.16 of its size (Noto Sans Mono's, 1.36, would not let rows at
    # LINE_PITCH stand clear of each other); any monospace font where it is not installed
    f = QFont(["DejaVu Sans Mono", "monospace"])
    f.setStyleHint(QFont.StyleHint.Monospace)
    f.setPixelSize(max(1, round(px)))
    return f


def listing_for(state: FrameState) -> Listing:
    s = state.schedule
    return kernel_listing(s.variant, s.tile, compact=True)


def wrap(lines: tuple[str, ...], columns: int) -> list[tuple[int, str]]:
    """(source line, row text): lines longer than `columns` broken at a space, continued 2 columns further in."""
    rows: list[tuple[int, str]] = []
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        rest, first = line, True
        while len(rest) > columns:
            floor = indent + 2 if not first else indent + 1
            cut = max(rest.rfind(mark, floor, columns - len(mark) + 1) + len(mark) - 1 for mark in ("? ", ", ", "= "))
            if cut < floor:
                cut = rest.rfind(" ", floor, columns)
            if cut <= 0:
                cut = columns
            rows.append((i, rest[:cut].rstrip()))
            rest = " " * (indent + 2) + rest[cut:].lstrip()
            first = False
        rows.append((i, rest))
    return rows


@dataclass(frozen=True)
class CodeLayout:
    px: float
    rows: list[tuple[int, str]]
    line_h: float
    char_w: float


def code_layout(listing: Listing, width: float, height: float, max_px: float, min_px: float = MIN_PX) -> CodeLayout:
    """The largest type up to `max_px` at which the listing, wrapped to the width, fits the height; never below
    `min_px` (a projector's smallest type), where the rows that do not fit are left to `visible_rows`."""
    px = max_px
    while True:
        fm = QFontMetricsF(mono(px))
        # rows at LINE_PITCH of the type's size, whatever the font's own (generous) line spacing: code has no accents
        # (at least the glyphs' own height less 1.5 px, so that no row's letters reach into the next one's)
        pitch = max(LINE_PITCH * round(px), fm.ascent() + fm.descent() - 1.5)
        char_w, line_h = max(1.0, fm.horizontalAdvance("x")), min(fm.lineSpacing(), pitch)
        columns = max(20, math.floor(width / char_w))
        rows = wrap(listing.lines, columns)
        if len(rows) * line_h <= height or px <= max(MIN_PX, min_px):
            return CodeLayout(px, rows, line_h, char_w)
        px -= 0.5


GAP_MARK = "⋮"  # the rows left out between the pinned #defines and the window that follows the step


def visible_rows(rows: list[tuple[int, str]], lit: set[int], fit: int) -> list[tuple[int, str]]:
    """The rows shown where only `fit` of them fit: the leading `#define` rows (the tile the code is compiled
    with), a ⋮ row, then a window that follows the highlighted lines (centred on them, kept inside the
    listing); all of them where they fit."""
    if len(rows) <= fit:
        return rows
    head = 0
    while head < min(2, len(rows)) and rows[head][1].startswith("#define"):
        head += 1
    if fit - head - 1 < 3:  # no room for the pinned rows: the window alone
        head = 0
    room = max(1, fit - head - (1 if head else 0))
    body = rows[head:]
    marked = [i for i, (line, _text) in enumerate(body) if line in lit]
    centre = (marked[0] + marked[-1]) / 2 if marked else 0
    first = int(max(0, min(len(body) - room, round(centre - (room - 1) / 2))))
    gap = [(-1, GAP_MARK)] if head and first > 0 else []
    if head and not gap:
        room += 1
    return rows[:head] + gap + body[first : first + room]


def code_min_px(theme: Theme) -> float:
    """The code's smallest type: the projector's (24 px at 1080p, as the slides scale the theme; render.py)."""
    return PROJECTOR_SHARE * theme.font_pt * FONT_PER_PT


def code_px(theme: Theme) -> float:
    """The code's type at most as large as the animation's labels."""
    return theme.font_pt * FONT_PER_PT


def draw_code(painter: QPainter, rect: QRectF, state: FrameState, theme: Theme) -> list[tuple[str, QRectF]]:
    """The kernel's listing in `rect`, the lines of the frame's step highlighted (a barrier in its own colour,
    with a note naming it); returns the texts drawn with their boxes."""
    listing = listing_for(state)
    step = state.schedule.steps[state.step]
    lit = set(listing.lines_of(step.kind))
    barrier = step.kind in BARRIERS
    painter.save()
    painter.fillRect(rect, QColor(theme.background))
    pad = max(4.0, 0.02 * rect.width())
    inner = rect.adjusted(pad, pad, -pad, -pad)
    note = tr("◀ barrier: every thread of the block waits here") if barrier else ""
    lay = code_layout(listing, inner.width(), inner.height(), code_px(theme), code_min_px(theme))
    fit = math.floor(inner.height() / lay.line_h)
    if len(lay.rows) > fit and note:  # a window of the listing: the barrier's note keeps a row under it
        fit -= 2
    shown = visible_rows(lay.rows, lit, fit)
    font = mono(lay.px)
    painter.setFont(font)
    fm = QFontMetricsF(font)
    hl = QColor(theme.palette[3 if barrier else 1])
    hl.setAlpha(110)
    texts: list[tuple[str, QRectF]] = []
    y = inner.top()
    fg = QColor(theme.foreground)
    for source_line, text in shown:
        row = QRectF(inner.left(), y, inner.width(), lay.line_h)
        if source_line in lit:
            painter.fillRect(row.adjusted(-pad / 2, 0, pad / 2, 0), hl)
        painter.setPen(fg)
        if text.strip():
            baseline = y + (lay.line_h - fm.ascent() - fm.descent()) / 2 + fm.ascent()
            painter.drawText(QPointF(row.left(), baseline), text)
            texts.append((text, QRectF(row.left(), y, fm.horizontalAdvance(text), lay.line_h)))
        y += lay.line_h
    if note:
        painter.setFont(mono(max(MIN_PX, code_min_px(theme), lay.px * 0.9)))
        note_rect = QRectF(
            inner.left(), min(y + 0.3 * lay.line_h, inner.bottom() - lay.line_h), inner.width(), lay.line_h
        )
        if note_rect.top() >= y:  # only where the listing leaves room for it
            painter.setPen(QColor(theme.palette[3]))
            painter.drawText(note_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), note)
            texts.append((note, painter.boundingRect(note_rect, int(Qt.AlignmentFlag.AlignLeft), note)))
    painter.restore()
    return texts


class CodeCanvas(QWidget):
    """The listing of the frame's kernel, its step's lines highlighted (draw_code)."""

    def __init__(self, theme: Theme = LIGHT, parent=None):
        super().__init__(parent)
        self.theme = theme
        self.state: FrameState | None = None
        self.texts: list[tuple[str, QRectF]] = []
        self.setMinimumSize(120, 80)

    def set_state(self, state: FrameState | None) -> None:
        self.state = state
        self.update()

    def highlighted(self) -> list[str]:
        """The texts of the highlighted lines now (for the tests)."""
        if self.state is None:
            return []
        listing = listing_for(self.state)
        kind = self.state.schedule.steps[self.state.step].kind
        return [listing.lines[i].strip() for i in listing.lines_of(kind)]

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.fillRect(self.rect(), QColor(self.theme.background))
        if self.state is not None:
            self.texts = draw_code(painter, QRectF(self.rect()), self.state, self.theme)
        painter.end()


CODE_SHARE = 0.44  # of the view's width, for the code (the animation needs a little more for its counters at 720p)


class AnimationWithCode(QWidget):
    """The animation and, beside it, its kernel's code following the frame: the lesson's "code" view."""

    def __init__(self, theme: Theme = LIGHT, parent=None):
        super().__init__(parent)
        from gemmviz.ui.tiling.widgets import TilingView

        self.theme = theme
        self.animation, self.code = TilingView(theme), CodeCanvas(theme)
        self.animation.setMinimumSize(0, 0)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.animation, round(100 * (1 - CODE_SHARE)))
        layout.addWidget(self.code, round(100 * CODE_SHARE))

    @property
    def state(self) -> FrameState | None:
        return self.animation.state

    def set_state(self, state: FrameState | None) -> None:
        self.animation.set_state(replace(state, compact=True) if state is not None else None)
        self.code.set_state(state)


def paint_with_code(painter: QPainter, rect: QRectF, state: FrameState, theme: Theme, background=None) -> list:
    """The "code" view onto a slide: the frame at the left, the code at the right."""
    split = rect.width() * (1 - CODE_SHARE)
    painter.save()
    painter.translate(rect.topLeft())
    painter.setClipRect(QRectF(0, 0, split, rect.height()))
    render_frame(
        painter, int(split), int(rect.height()), replace(state, compact=True), theme, background or Background()
    )
    painter.restore()
    return draw_code(
        painter, QRectF(rect.left() + split, rect.top(), rect.width() - split, rect.height()), state, theme
    )
