"""Where everything goes in one frame of the tiling animation: the matrices, the zoomed block, shared memory,
the counters and the caption, fitted to the view at the largest type that keeps every text whole (and cached:
fitting measures text many times). ui/tiling/render.py draws into this layout."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetricsF

from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.schedule.block import Schedule
from gemmviz.core.schedule.kinds import schedule_kind
from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.text import QT_TRANSLATE_NOOP, spoken_language, tr
from gemmviz.ui.tiling.captions import caption_words

LINE = 1.3  # line pitch, in font heights
COLUMN_GAP = 0.6  # between the counters' two columns, in font heights
PICTURE_KEPT = 0.5  # two columns of counters may shrink the matrices to half their size (see fit_layout)
CAPTION_PLACES = ("right", "wide", "under")  # with two columns of counters: where the caption may go (_two_columns)
MIN_CELL_720P = 12.0  # the highlighted thread's cell in the zoomed block, at 720p (scaled with the height)


@dataclass(frozen=True)
class Layout:
    scale: float
    a: QRectF
    b: QRectF
    c: QRectF
    smem_a: QRectF
    smem_b: QRectF
    regs: QRectF | None  # the highlighted thread's registers (block-tiling kernels)
    text: QRectF  # the counters, one line each
    caption: QRectF  # the step in words, below A and C
    barrier_y: float  # the __syncthreads() line, in its own row under the tiles' labels
    inset: QRectF | None  # the zoomed block of C with the thread's cell (top-left corner, beside A and B)
    inset_cell: float  # one thread's cell in the inset, pixels
    inset_threads: tuple[int, int]  # how many threads (rows, cols) it shows
    font_px: float
    column_right: float = 0.0  # right end of the shared-memory column (the barrier line's end)
    inset_name: tuple[str, ...] = ()  # the zoomed block's name, one or two lines above it
    min_px: float = 0.0  # no text of the frame is set smaller (render.min_text_px)
    text_columns: int = 1  # the counters in one column beside the matrices, or two along the bottom (a short view)
    first_column: float = 0.0  # with two: the first one's width (0: half)


def _fm(px: float, bold: bool = False) -> QFontMetricsF:
    return QFontMetricsF(pixel_font(px, bold))


def shared_pad(s: Schedule) -> int:
    """Extra columns per row of the kernel's shared arrays (its PAD define: tile_A[TILE][TILE + PAD]), drawn."""
    return int(VARIANTS[s.variant].defines.get("PAD", 0))


def _shared_labels(s: Schedule) -> tuple[str, str]:
    name_a, name_b = VARIANTS[s.variant].shared_names or (tr("A tile"), tr("B tile"))  # the kernel's own array names
    pad = shared_pad(s)
    return f"{name_a}[{s.bm}][{s.bk + pad}]", f"{name_b}[{s.bk}][{s.bn + pad}]"


SMALLEST = 0.9  # the smallest share of the frame's font a text is set in (the tiles' and the inset's names)


class Floors(NamedTuple):
    """The smallest type a frame's text may take: `min_px` keeps the frame's hierarchy (70% of its type:
    render.min_text_px); `legible_px`, at or under it, is what a projector needs (render.legible_text_px)."""

    min_px: float = 0.0
    legible_px: float = 0.0


def fit_layout(
    w: int,
    h: int,
    s: Schedule,
    font_px: float,
    lines: list[str],
    caption: str | tuple[str, ...] = "",
    floors: Floors = Floors(),
    bold: tuple[bool, ...] = (),
    compact: bool = False,
) -> Layout:
    """The layout at the largest font (at most `font_px`) at which the counters (`lines`, those `bold` set in
    bold: all where not given), the tiles' labels and the caption fit beside and below the matrices, shrunk no
    further than keeps every text at `floors.min_px` (70% of `font_px` when not given); only a view too small
    for even that shrinks further, to keep inside it. In a `compact` frame (half a view: FrameState.compact),
    where the counters in one column would take the type below `min_px` (half a 720p window: too short for
    eleven lines), they go along the bottom in two columns, if that keeps a larger type with every text whole,
    and keeps the matrices at least PICTURE_KEPT of their size where one column is still `floors.legible_px`."""
    min_px = floors.min_px or 0.7 * font_px
    legible_px = floors.legible_px or min_px
    heavy = (True,) * len(lines)  # one column: as wide as its widest line set in bold
    one, one_whole = _fit(w, h, s, font_px, lines, heavy, caption, min_px, 1)
    if not compact or (one_whole and SMALLEST * one.font_px >= min_px - 0.01) or len(lines) < 4:
        return one
    bold = bold or heavy

    def kept(floor_px: float) -> Layout | None:
        """The counters in two columns along the bottom, at no text under `floor_px`, where that is better than
        one column; else None."""
        two, two_whole = _fit(w, h, s, font_px, lines, bold, caption, floor_px, 2)
        inside = two.scale > 0 and two.text.bottom() <= h - 2 and _column_bottom(two) <= two.text.top()
        # whole, or whole once its longest lines are set at the frame's smallest type (render's text does that)
        floor = math.ceil(two.min_px) / (0.95 * two.font_px)  # fonts are set in whole pixels
        needs = _needs(lines, bold, two.font_px, 2)
        shrunk = _captioned(two, caption) and all(
            n * floor <= width + 1 for n, (_x, width) in zip(needs, text_columns(two))
        )
        # the picture is what the frame is about: seed000's Chinese code slide at 720p drew A, B and C as
        # thumbnails (a third of their size) for 23 px counters, where one column set them at 18.5 px, 16.7 px at
        # the smallest, over the 15.8 px a projector needs there
        keeps_picture = two.scale >= PICTURE_KEPT * one.scale or SMALLEST * one.font_px < legible_px
        better = two_whole or shrunk or not one_whole
        return two if inside and better and two.font_px > one.font_px and keeps_picture else None

    two = kept(min_px)
    if two is None and SMALLEST * one.font_px < legible_px:
        # one column sets its texts below what a projector needs, and two fail only at the floor this view's
        # height sets (a taller view raises it, while its width holds no more): a floor a tenth lower keeps them
        # whole. The 720p window's block-tiling pair drew its counters at 10-11 px when 46 px more height came
        two = kept(0.9 * min_px)
    return two or one


def _captioned(lay: Layout, caption: str | tuple[str, ...]) -> bool:
    """Every caption whole in the layout's caption box, at the frame's type in bold."""
    flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)
    fm = _fm(lay.font_px, True)
    captions = (caption,) if isinstance(caption, str) else caption
    return all(fm.boundingRect(lay.caption, flags, c).height() <= lay.caption.height() + 1 for c in captions if c)


def _column_bottom(lay: Layout) -> float:
    """Where the shared-memory column's last row ends (its registers', or the barrier's row)."""
    return lay.regs.bottom() + 0.4 * lay.font_px if lay.regs is not None else lay.barrier_y + 0.4 * lay.font_px


def text_columns(lay: Layout) -> list[tuple[float, float]]:
    """(left, width) of each column of the counters: one, or two COLUMN_GAP apart, the first as wide as its
    lines need (Layout.first_column) and the second the rest."""
    if lay.text_columns < 2:
        return [(lay.text.left(), lay.text.width())]
    gap = COLUMN_GAP * lay.font_px
    first = lay.first_column or (lay.text.width() - gap) / 2
    second = lay.text.left() + first + gap
    return [(lay.text.left(), first), (second, lay.text.right() - second)]


def _needs(lines: list[str], bold: tuple[bool, ...], f: float, columns: int) -> list[float]:
    """The width each column of the counters needs at their type (0.95 of the frame's), each line in its weight."""
    fms = {weight: _fm(f * 0.95, weight) for weight in (False, True)}
    widths = [fms[b].horizontalAdvance(t) for t, b in zip(lines, bold)]
    return [max(part, default=0.0) for part in column_lines(widths, columns, bold)]


def column_lines(lines: list, columns: int, bold: Sequence[bool] = ()) -> list[list]:
    """The counters' lines per column: the first half (rounded up) in the first, the rest in the second; a heading
    (a bold line, not the first) never ends the first column: it moves to the top of the second, over its lines."""
    if columns < 2:
        return [list(lines)]
    half = -(-len(lines) // 2)
    headings = bool(bold) and not all(bold)  # all bold (a layout measured in its widest weight): no heading known
    while headings and half > 1 and half - 1 < len(bold) and bold[half - 1]:
        half -= 1
    return [list(lines[:half]), list(lines[half:])]


def _fit(
    w: int,
    h: int,
    s: Schedule,
    font_px: float,
    lines: list[str],
    bold: tuple[bool, ...],
    caption: str | tuple[str, ...],
    min_px: float,
    columns: int,
) -> tuple[Layout, bool]:
    """fit_layout with the counters in `columns` columns (1: beside the matrices, 2: along the bottom), and
    whether every text of the layout returned is whole."""
    f = font_px
    flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)
    captions = (caption,) if isinstance(caption, str) else caption
    captions = tuple(c for c in captions if c)
    for _ in range(24):
        two_captioned = False
        needs = _needs(lines, bold, f, columns)
        # the caption gets two lines, three to five where it needs them (with two columns of counters: under
        # shared memory, else the view's width, else under A and C, the first that keeps it whole)
        places = CAPTION_PLACES if columns == 2 else ("",)
        for caption_lines, place in ((n, p) for n in (2, 3, 4, 5) for p in places):
            low = min(min_px, SMALLEST * f)
            if columns == 2:
                rows = max(len(c) for c in column_lines(lines, 2, bold))
                lay = _two_columns(w, h, s, f, rows, low, caption_lines, place)
            else:
                lay = layout_for(w, h, s, f, max(needs), len(lines), low, caption_lines)
            if columns == 2:  # each column as wide as its lines need, the slack shared between them
                room = lay.text.width() - COLUMN_GAP * f
                spare = room - sum(needs)
                lay = replace(lay, first_column=needs[0] + spare / 2 if spare >= 0 else room * needs[0] / sum(needs))
            # everything inside the view: a must, down to 7 px; no text cut with …: shrink for it down to min_px
            inside = lay.text.bottom() <= h - 2 and lay.text.right() <= w - 2 and lay.scale > 0
            if columns == 2:  # the counters under the shared-memory column, not over it
                inside = inside and _column_bottom(lay) <= lay.text.top()
            fm = _fm(f, True)
            captioned = all(
                fm.boundingRect(lay.caption, flags, c).height() <= lay.caption.height() + 1 for c in captions
            )
            whole = captioned and all(need <= width + 1 for need, (_x, width) in zip(needs, text_columns(lay)))
            if inside and whole:
                return lay, True
            if caption_lines == 2 or (inside and captioned and not two_captioned):
                # what is returned where neither is whole: two lines, or more where they keep the caption whole
                two, two_inside, two_captioned = lay, inside, inside and captioned
        lay, inside = two, two_inside
        if (inside and 0.93 * SMALLEST * f < min_px) or f <= 7:
            return lay, False
        f *= 0.93
    return lay, False


_LAYOUTS: dict[tuple, tuple[Schedule, Layout]] = {}


def _cached_layout(
    w: int,
    h: int,
    s: Schedule,
    font_px: float,
    measured: list[str],
    floors: Floors = Floors(),
    bold: tuple[bool, ...] = (),
    compact: bool = False,
    lang: str | None = None,
) -> Layout:
    """The fitted layout, measured once per view size, schedule and thread (fitting measures text many times:
    per frame it cost the animation its 16 ms budget)."""
    key = (
        w,
        h,
        id(s),
        font_px,
        tuple(measured),
        bold,
        compact,
        floors,
        lang or spoken_language(),
    )  # the captions' language too
    hit = _LAYOUTS.get(key)
    if hit is not None and hit[0] is s:
        return hit[1]
    # one layout for every step: the widest caption of each kind, as drawn (in the language spoken: the widest
    # English caption's step need not be the widest Chinese one)
    fm = QFontMetricsF(pixel_font(font_px, True))
    longest: dict[str, tuple[float, str]] = {}
    for st in s.steps:
        if st.wrong:  # the bounds bug's store has a frame of its own (ui/tiling/bounds_bug.py)
            continue
        words = caption_words(st, lang)
        wide = fm.horizontalAdvance(words)
        if st.kind not in longest or wide > longest[st.kind][0]:
            longest[st.kind] = (wide, words)
    captions = tuple(words for _, words in longest.values())
    lay = fit_layout(w, h, s, font_px, measured, captions, floors, bold, compact)
    if len(_LAYOUTS) > 64:
        _LAYOUTS.clear()
    _LAYOUTS[key] = (s, lay)
    return lay


REGISTER_CELL = 0.55  # a register's square, in font heights (small: the column must leave the caption room)
NAME_PX = 0.9  # the zoomed block's name, in font heights: the size of the shared tiles' names


@dataclass(frozen=True)
class _Matrices:
    scale: float
    a: QRectF
    b: QRectF
    c: QRectF
    gap: float


def spill_rows(s: Schedule) -> int:
    """How many rows of N elements past C's end the schedule's wrong writes reach (bounds "or"; 0: none)."""
    n, m = s.run_problem.n, s.run_problem.m
    last = max((w.offset for st in s.steps for w in st.wrong), default=-1)
    return max(0, last // n + 1 - m) if last >= 0 else 0


def _column_need(s: Schedule, f: float, margin: float) -> float:
    """The right-hand column's width without the counters: the tiles' names side by side, or its heading."""
    fm = _fm(f * 0.9)
    label_a, label_b = _shared_labels(s)
    return max(
        fm.horizontalAdvance(label_a) + fm.horizontalAdvance(label_b) + 3 * margin,
        _fm(f, True).horizontalAdvance(tr("shared memory (on chip)")),
    )


def _shared_width(s: Schedule, f: float, margin: float) -> float:
    """The width shared memory's own column needs (a projector's wide view): the registers' label too."""
    width = _column_need(s, f, margin) + margin
    if has_registers(s):  # the registers' label sits in the shared-memory column too
        width = max(width, *(_fm(f * 0.9, True).horizontalAdvance(t) + margin for t in _registers_label(s)))
    return width


def _matrices(w: int, h: int, s: Schedule, f: float, margin: float, sx: float, caption_lines: int = 2) -> _Matrices:
    """B above C and A left of C, to one scale, left of `sx`; a row for the names above B and above A, and
    room for the two-line caption below."""
    p = s.run_problem
    caption_h = caption_lines * LINE * f
    left_w = sx - 2 * margin
    avail_h = h - 2 * margin - 2 * LINE * f - caption_h - margin - 0.4 * f  # two name rows, the caption
    gap_units = 0.05 * max(p.k + p.n, p.k + p.m)
    scale = max(1e-3, min(left_w / (p.k + p.n + gap_units), avail_h / (p.k + p.m + gap_units)))
    gap = gap_units * scale + f * 0.2
    x0, y0 = margin, margin + LINE * f  # a row for the matrices' names above B
    a = QRectF(x0, y0 + p.k * scale + gap + LINE * f, p.k * scale, p.m * scale)
    b = QRectF(x0 + p.k * scale + gap, y0, p.n * scale, p.k * scale)
    c = QRectF(b.left(), a.top(), p.n * scale, p.m * scale)
    return _Matrices(scale, a, b, c, gap)


def wrap_name(text: str, px: float, width: float, max_lines: int = 3) -> tuple[str, ...] | None:
    """`text` in lines no wider than `width`, broken at spaces (in Chinese, between any characters), at most
    `max_lines` of them; None where it does not go into so few."""
    colon = next((i + 1 for i, ch in enumerate(text) if ch in ":："), 0)  # "block of C:" / "a cell per thread"
    if colon and colon < len(text):
        head, tail = wrap_name(text[:colon], px, width, 1), wrap_name(text[colon:].strip(), px, width, max_lines)
        if head and tail and 1 + len(tail) <= max_lines:
            return head + tail
    fm = _fm(px)
    words = text.split(" ") if " " in text else list(text)
    glue = " " if " " in text else ""
    lines: list[str] = []
    for word in words:
        joined = f"{lines[-1]}{glue}{word}" if lines else word
        if lines and fm.horizontalAdvance(joined) <= width:
            lines[-1] = joined
        elif fm.horizontalAdvance(word) <= width:
            lines.append(word)
        else:
            return None
    return tuple(lines) if len(lines) <= max_lines else None


INSET_NAMES = (  # the zoomed block's name, the first that fits over it (shown: whole block, part of it)
    (QT_TRANSLATE_NOOP("", "block of C: a cell per thread"), QT_TRANSLATE_NOOP("", "part of the block of C: a cell per thread")),
    (QT_TRANSLATE_NOOP("", "a cell per thread"), QT_TRANSLATE_NOOP("", "a cell per thread")),
)  # fmt: skip


def _inset_name(whole: bool, px: float, room: float) -> tuple[str, ...] | None:
    """The zoomed block's name in lines over it, or None where even the short one does not fit."""
    for names in INSET_NAMES:
        lines = wrap_name(tr(names[0] if whole else names[1]), px, room)
        if lines is not None:
            return lines
    return None


def _inset(
    h: int, s: Schedule, f: float, m: _Matrices, min_px: float = 0.0
) -> tuple[QRectF | None, float, tuple[int, int], tuple[str, ...]]:
    """The zoomed block in the corner left of B and above A's name, under its name (one to three lines): the
    rectangle, a thread's cell, the threads it shows and its name's lines. None where its name does not fit."""
    threads = (max(1, s.bm // s.tm), max(1, s.bn // s.tn))
    min_cell = MIN_CELL_720P * h / 720
    px = max(f * NAME_PX, min_px)
    room = m.b.left() - m.a.left() - f * 0.5  # the name stays left of B's
    top = m.b.top() + LINE * f
    lines: tuple[str, ...] = ("",)
    for _ in range(3):  # the name's lines decide the corner's height, which decides the name
        corner = QRectF(m.a.left(), top, m.b.left() - m.gap - m.a.left(), m.a.top() - LINE * f - m.gap - top)
        side = min(corner.width(), corner.height())
        if side < 4 * min_cell:
            return None, 0.0, threads, ()
        cell = max(min_cell, side / max(threads))
        shown = (min(threads[0], int(side // cell)), min(threads[1], int(side // cell)))
        named = _inset_name(shown == threads, px, room)
        if named is None:
            return None, 0.0, threads, ()
        lines = named
        top = m.b.top() + LINE * f + (len(lines) - 1) * LINE * px
        if corner.top() == top:
            break
    return QRectF(corner.left(), corner.top(), shown[1] * cell, shown[0] * cell), cell, shown, lines


def layout_for(
    w: int,
    h: int,
    s: Schedule,
    font_px: float,
    text_w: float = 0.0,
    n_lines: int = 14,
    min_px: float = 0.0,
    caption_lines: int = 2,
) -> Layout:
    """B above C and A left of C; in the corner above A the zoomed block; on the right shared memory, the
    barrier row, registers and the counters; the step in words along the bottom, under A and C only (a short
    view's counters in two columns along the bottom instead: _two_columns)."""
    f = font_px
    margin = max(6.0, 0.015 * min(w, h))
    smem_w = _shared_width(s, f, margin)
    right_w = min(max(text_w, _column_need(s, f, margin)) + margin, 0.5 * w)
    m = _matrices(w, h, s, f, margin, w - right_w, caption_lines)
    bottom = m.a.bottom()
    caption_top = min(h - margin - 2 * LINE * f, bottom + f * 0.4)
    caption_h = min(max(3, caption_lines) * LINE * f, h - margin - caption_top)  # a third line where there is room
    caption = QRectF(margin, caption_top, w - right_w - 2 * margin, caption_h)
    inset, cell, shown, name = _inset(h, s, f, m, min_px)
    # A wide, short view (a projector's window) has room beside the matrices: shared memory then gets its own
    # column there and the counters start at the top of theirs, instead of under shared memory.
    used = m.c.right() + 2 * margin
    text_col = text_w + 2 * margin
    two_columns = w - used >= smem_w + text_col
    sx = w - text_col if two_columns else w - right_w
    col_w = min(right_w, sx - used) if two_columns else right_w
    mx = used + (sx - used - col_w) / 2 if two_columns else sx
    # its own column reaches down to the caption: the tiles take that height (a padded strip at an edge block
    # shows), the barrier's row and the registers below them
    tall = h - margin - caption.height() - (margin + LINE * f) - 2 * LINE * f - 0.6 * f if two_columns else 0.0
    if not schedule_kind(s.kind).shared_memory:  # the naive kernel's boxes stay empty: small
        tall = 0.0
    column = _shared_column(h, s, f, margin, mx, col_w, tall)
    top = margin + LINE * f
    if two_columns:
        text = QRectF(sx, top - f * 0.8, text_col - margin, n_lines * LINE * f)
        # the caption runs under the middle column too, unless that column reaches down to it
        lowest = h - margin - caption.height()  # the caption may move down under A and C to clear it
        right = mx - margin if column.bottom > lowest else sx - margin
        top = caption.top() if column.bottom > lowest else max(caption.top(), column.bottom)
        if column.bottom <= lowest and text.bottom() <= top:  # the counters end above it: under them too
            right = w - margin
        caption = QRectF(caption.left(), top, right - caption.left(), caption.height())
    else:
        text = QRectF(sx, column.bottom + 0.2 * f, right_w - margin, n_lines * LINE * f)
    return Layout(
        m.scale,
        m.a,
        m.b,
        m.c,
        column.smem_a,
        column.smem_b,
        column.regs,
        text,
        caption,
        column.barrier_y,
        inset,
        cell,
        shown,
        f,
        mx + col_w - margin,
        name,
        min_px,
    )


def _two_columns(
    w: int, h: int, s: Schedule, f: float, rows: int, min_px: float, caption_lines: int, caption_at: str = ""
) -> Layout:
    """A short view (half a 720p window): the matrices and shared memory in the top part as in layout_for, the
    step in words under A and C, and the counters along the bottom in two columns of at most `rows` lines, the
    view's width."""
    margin = max(6.0, 0.015 * min(w, h))
    text = QRectF(margin, h - margin - rows * LINE * f - 0.2 * f, w - 2 * margin, rows * LINE * f)
    top_h = int(text.top())  # what the matrices, shared memory and the caption share
    barrier = _fm(f, True).horizontalAdvance(tr("__syncthreads()  — barrier"))  # its row's whole width
    right_w = min(max(_shared_width(s, f, margin), barrier + margin) + margin, 0.5 * w)
    mx = w - right_w
    share = 0.15 if has_registers(s) else 0.22  # block tiling: its registers' rows under the tiles too
    column = _shared_column(top_h, s, f, margin, mx, right_w, 0.0, top_h, share)
    right = caption_at in ("", "right") and top_h - column.bottom >= caption_lines * LINE * f
    wide = caption_at in ("", "right", "wide") and column.bottom <= top_h - caption_lines * LINE * f
    if right:  # under shared memory: the matrices keep the height
        m = _matrices(w, top_h, s, f, margin, mx, 0)
        caption = QRectF(mx, column.bottom, right_w - margin, top_h - column.bottom)
    elif wide:  # the view's width, under the matrices and the column
        caption_top = top_h - caption_lines * LINE * f
        m = _matrices(w, int(caption_top), s, f, margin, mx, 0)
        caption = QRectF(margin, caption_top, w - 2 * margin, top_h - caption_top)
    else:  # under A and C (the column reaches down: block tiling's registers)
        m = _matrices(w, top_h, s, f, margin, mx, caption_lines)
        caption_top = min(top_h - margin - 2 * LINE * f, m.a.bottom() + f * 0.4)
        caption = QRectF(margin, caption_top, mx - 2 * margin, top_h - caption_top)
    inset, cell, shown, name = _inset(h, s, f, m, min_px)
    return Layout(
        m.scale,
        m.a,
        m.b,
        m.c,
        column.smem_a,
        column.smem_b,
        column.regs,
        text,
        caption,
        column.barrier_y,
        inset,
        cell,
        shown,
        f,
        mx + right_w - margin,
        name,
        min_px,
        text_columns=2,
    )


@dataclass(frozen=True)
class _Column:
    smem_a: QRectF
    smem_b: QRectF
    barrier_y: float
    regs: QRectF | None
    bottom: float  # where the column's last row ends


def _shared_column(
    h: int,
    s: Schedule,
    f: float,
    margin: float,
    mx: float,
    col_w: float,
    tall: float = 0.0,
    end: float = 0.0,
    share: float = 0.22,
) -> _Column:
    """Shared memory from `mx`: both tiles on one scale so their shapes are true, names under them, then the
    barrier row and the registers of the highlighted thread; the tiles at most `tall` high where the column
    has the view's height to itself (`share` of the height otherwise, the counters going under it). Given an
    `end`, the registers' squares shrink (to 3 px) to end above it."""
    top = margin + LINE * f
    label_a = _shared_labels(s)[0]
    pad = shared_pad(s)  # a padded array's extra column, drawn right of each tile (inside its box)
    if has_registers(s):  # the registers' two-line name and squares go under the barrier's row
        tall -= LINE * f + LINE * f * 0.9 + f * REGISTER_CELL * (s.tm + 2) + 0.4 * f
    most = max(tall, share * h)
    cell_s = min((col_w - 3 * margin) / (s.bk + s.bn + 2 * pad), most / max(s.bm, s.bk))
    smem_a = QRectF(mx, top, max(cell_s * (s.bk + pad), f * 0.6), cell_s * s.bm)
    b_left = max(smem_a.right(), mx + _fm(f * 0.9).horizontalAdvance(label_a)) + 1.5 * margin
    smem_b = QRectF(b_left, top, cell_s * (s.bn + pad), max(cell_s * s.bk, f * 0.6))
    barrier_y = max(smem_a.bottom(), smem_b.bottom()) + 2 * LINE * f
    bottom = barrier_y + 0.4 * f
    regs = None
    if has_registers(s):
        r, cell = f * 0.9, f * REGISTER_CELL
        if end:  # the squares start under their two-line name, TM + 2 of them down to the column's end
            cell = max(3.0, min(cell, (end - 0.4 * f - bottom - LINE * f - LINE * r) / (s.tm + 2)))
        regs = QRectF(mx, bottom + LINE * f + LINE * r + cell, cell * (s.tn + 2), cell * (s.tm + 1))  # 2-line name
        bottom = regs.bottom() + 0.4 * f
    return _Column(smem_a, smem_b, barrier_y, regs, bottom)


def inset_window(lay: Layout, s: Schedule, thread: tuple[int, int]) -> tuple[int, int]:
    """The first thread (row, col) the inset shows: a window of the block's threads around the highlighted one."""
    threads = (max(1, s.bm // s.tm), max(1, s.bn // s.tn))
    (ty, tx), (ny, nx) = thread, lay.inset_threads
    return max(0, min(ty - ny // 2, threads[0] - ny)), max(0, min(tx - nx // 2, threads[1] - nx))


def thread_cell(lay: Layout, s: Schedule, thread: tuple[int, int]) -> QRectF | None:
    """The highlighted thread's cell in the zoomed block (None when the frame has no room for the inset)."""
    if lay.inset is None:
        return None
    oy, ox = inset_window(lay, s, thread)
    return QRectF(
        lay.inset.left() + (thread[1] - ox) * lay.inset_cell,
        lay.inset.top() + (thread[0] - oy) * lay.inset_cell,
        lay.inset_cell,
        lay.inset_cell,
    )


def has_registers(s: Schedule) -> bool:
    """Each thread computes a tile of C in registers (block tiling): the frame shows them."""
    return s.tm * s.tn > 1


def _registers_label(s: Schedule) -> tuple[str, str]:
    """The registers' name, on two lines (on one it set the shared-memory column's width)."""
    return tr("registers of the thread:"), tr("{tm}+{tn} operands, {tm}×{tn} sums").format(tm=s.tm, tn=s.tn)
