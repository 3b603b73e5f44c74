"""Where everything goes in one frame of the tiling animation: the matrices, the zoomed block, shared memory,
the counters and the caption, fitted to the view at the largest type that keeps every text whole (and cached:
fitting measures text many times). ui/tiling/render.py draws into this layout."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetricsF

from gemmviz.core.schedule import Schedule
from gemmviz.core.variants import VARIANTS
from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.text import tr
from gemmviz.ui.tiling.captions import caption_words

LINE = 1.3  # line pitch, in font heights
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


def _fm(px: float, bold: bool = False) -> QFontMetricsF:
    return QFontMetricsF(pixel_font(px, bold))


def _shared_labels(s: Schedule) -> tuple[str, str]:
    name_a, name_b = VARIANTS[s.variant].shared_names or (tr("A tile"), tr("B tile"))  # the kernel's own array names
    return f"{name_a}[{s.bm}][{s.bk}]", f"{name_b}[{s.bk}][{s.bn}]"


def fit_layout(w: int, h: int, s: Schedule, font_px: float, lines: list[str], caption: str = "") -> Layout:
    """The layout at the largest font (at most `font_px`, at least 70% of it) at which the counters, the tiles'
    labels and the caption fit beside and below the matrices: texts are shrunk before any is cut with …."""
    f = font_px
    flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)
    for _ in range(24):
        need_w = max((_fm(f * 0.95, True).horizontalAdvance(t) for t in lines), default=0.0)
        lay = layout_for(w, h, s, f, need_w, len(lines))
        # everything inside the view: a must, down to 7 px; no text cut with …: shrink for it down to 70%
        inside = lay.text.bottom() <= h - 2 and lay.text.right() <= w - 2 and lay.scale > 0
        whole = need_w <= lay.text.width() + 1
        if caption:
            whole = (
                whole and _fm(f, True).boundingRect(lay.caption, flags, caption).height() <= lay.caption.height() + 1
            )
        if (inside and (whole or f <= 0.7 * font_px)) or f <= 7:
            return lay
        f *= 0.93
    return lay


_LAYOUTS: dict[tuple, tuple[Schedule, Layout]] = {}


def _cached_layout(w: int, h: int, s: Schedule, font_px: float, measured: list[str]) -> Layout:
    """The fitted layout, measured once per view size, schedule and thread (fitting measures text many times:
    per frame it cost the animation its 16 ms budget)."""
    key = (w, h, id(s), font_px, tuple(measured))
    hit = _LAYOUTS.get(key)
    if hit is not None and hit[0] is s:
        return hit[1]
    longest = max((caption_words(st.text) for st in s.steps), key=len, default="")  # one layout for every step
    lay = fit_layout(w, h, s, font_px, measured, longest)
    if len(_LAYOUTS) > 64:
        _LAYOUTS.clear()
    _LAYOUTS[key] = (s, lay)
    return lay


NAME_PX = 0.9  # the zoomed block's name, in font heights: the size of the shared tiles' names


@dataclass(frozen=True)
class _Matrices:
    scale: float
    a: QRectF
    b: QRectF
    c: QRectF
    gap: float


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
        width = max(width, _fm(f * 0.9, True).horizontalAdvance(_registers_label(s)) + margin)
    return width


def _matrices(w: int, h: int, s: Schedule, f: float, margin: float, sx: float) -> _Matrices:
    """B above C and A left of C, to one scale, left of `sx`; a row for the names above B and above A, and
    room for the two-line caption below."""
    p = s.run_problem
    caption_h = 2 * LINE * f
    left_w = sx - 2 * margin
    avail_h = h - 2 * margin - 2 * LINE * f - caption_h - margin - 0.4 * f  # two name rows, the caption
    gap_units = 0.05 * max(p.k + p.n, p.k + p.m)
    scale = max(1e-3, min(left_w / (p.k + p.n + gap_units), avail_h / (p.k + p.m + gap_units)))
    gap = gap_units * scale + f * 0.2
    x0, y0 = margin, margin + LINE * f  # a row for the matrices' names above B
    a = QRectF(x0, y0 + p.k * scale + gap + LINE * f, p.k * scale, p.m * scale)
    b = QRectF(x0 + p.k * scale + gap, y0, p.n * scale, p.k * scale)
    return _Matrices(scale, a, b, QRectF(b.left(), a.top(), p.n * scale, p.m * scale), gap)


def wrap_name(text: str, px: float, width: float) -> tuple[str, ...]:
    """`text` on one line, or on two where one is wider than `width`: broken after its colon where the first
    part fits, else after the last space (in Chinese, any character) that keeps the first line inside it."""
    fm = _fm(px)
    if fm.horizontalAdvance(text) <= width:
        return (text,)
    colons = [i + 1 for i, ch in enumerate(text) if ch in ":："]  # "block of C:" / "a cell per thread"
    spaces = [i + 1 for i, ch in enumerate(text) if ch == " "]
    breaks = spaces or list(range(1, len(text)))
    fitting = [i for i in colons + breaks if fm.horizontalAdvance(text[:i].rstrip()) <= width]
    cut = (
        fitting[0]
        if fitting and fitting[0] in colons
        else fitting[-1]
        if fitting
        else breaks[0]
        if breaks
        else len(text)
    )
    return tuple(part for part in (text[:cut].rstrip(), text[cut:].strip()) if part)


def _inset(
    h: int, s: Schedule, f: float, m: _Matrices
) -> tuple[QRectF | None, float, tuple[int, int], tuple[str, ...]]:
    """The zoomed block in the corner left of B and above A's name, under its name (one or two lines): the
    rectangle, a thread's cell, the threads it shows and its name's lines."""
    threads = (max(1, s.bm // s.tm), max(1, s.bn // s.tn))
    min_cell = MIN_CELL_720P * h / 720
    room = m.b.left() - m.a.left() - f * 0.5  # the name stays left of B's
    top, lines = m.b.top() + LINE * f, (tr("block of C: a cell per thread"),)
    for _ in range(2):  # the name's lines decide the corner's height, which decides the name
        corner = QRectF(m.a.left(), top, m.b.left() - m.gap - m.a.left(), m.a.top() - LINE * f - m.gap - top)
        side = min(corner.width(), corner.height())
        if side < 4 * min_cell:
            return None, 0.0, threads, ()
        cell = max(min_cell, side / max(threads))
        shown = (min(threads[0], int(side // cell)), min(threads[1], int(side // cell)))
        name = (
            tr("block of C: a cell per thread") if shown == threads else tr("part of the block of C: a cell per thread")
        )
        lines = wrap_name(name, f * NAME_PX, room)
        top = m.b.top() + LINE * f + (len(lines) - 1) * LINE * NAME_PX * f
        if corner.top() == top:
            break
    return QRectF(corner.left(), corner.top(), shown[1] * cell, shown[0] * cell), cell, shown, lines


def layout_for(w: int, h: int, s: Schedule, font_px: float, text_w: float = 0.0, n_lines: int = 14) -> Layout:
    """B above C and A left of C; in the corner above A the zoomed block; on the right shared memory, the
    barrier row, registers and the counters; the step in words along the bottom, under A and C only."""
    f = font_px
    margin = max(6.0, 0.015 * min(w, h))
    smem_w = _shared_width(s, f, margin)
    right_w = min(max(text_w, _column_need(s, f, margin)) + margin, 0.5 * w)
    m = _matrices(w, h, s, f, margin, w - right_w)
    caption = QRectF(
        margin, min(h - margin - 2 * LINE * f, m.a.bottom() + f * 0.4), w - right_w - 2 * margin, 2 * LINE * f
    )
    inset, cell, shown, name = _inset(h, s, f, m)
    # A wide, short view (a projector's window) has room beside the matrices: shared memory then gets its own
    # column there and the counters start at the top of theirs, instead of under shared memory.
    used = m.c.right() + 2 * margin
    text_col = text_w + 2 * margin
    two_columns = w - used >= smem_w + text_col
    sx = w - text_col if two_columns else w - right_w
    col_w = min(right_w, sx - used) if two_columns else right_w
    mx = used + (sx - used - col_w) / 2 if two_columns else sx
    column = _shared_column(h, s, f, margin, mx, col_w)
    top = margin + LINE * f
    if two_columns:
        text = QRectF(sx, top - f * 0.8, text_col - margin, n_lines * LINE * f)
        if column.bottom > caption.top():  # the middle column reaches down to the caption: keep the caption left of it
            caption = QRectF(caption.left(), caption.top(), mx - margin - caption.left(), caption.height())
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
    )


@dataclass(frozen=True)
class _Column:
    smem_a: QRectF
    smem_b: QRectF
    barrier_y: float
    regs: QRectF | None
    bottom: float  # where the column's last row ends


def _shared_column(h: int, s: Schedule, f: float, margin: float, mx: float, col_w: float) -> _Column:
    """Shared memory from `mx`: both tiles on one scale so their shapes are true, names under them, then the
    barrier row and the registers of the highlighted thread."""
    top = margin + LINE * f
    label_a = _shared_labels(s)[0]
    cell_s = min((col_w - 3 * margin) / (s.bk + s.bn), 0.22 * h / max(s.bm, s.bk))
    smem_a = QRectF(mx, top, max(cell_s * s.bk, f * 0.6), cell_s * s.bm)
    b_left = max(smem_a.right(), mx + _fm(f * 0.9).horizontalAdvance(label_a)) + 1.5 * margin
    smem_b = QRectF(b_left, top, cell_s * s.bn, max(cell_s * s.bk, f * 0.6))
    barrier_y = max(smem_a.bottom(), smem_b.bottom()) + 2 * LINE * f
    bottom = barrier_y + 0.4 * f
    regs = None
    if has_registers(s):
        r = f * 0.9
        regs = QRectF(mx, bottom + LINE * f + r, r * (s.tn + 2), r * (s.tm + 1))
        bottom = regs.bottom() + 0.4 * f
    return _Column(smem_a, smem_b, barrier_y, regs, bottom)


def inset_window(lay: Layout, s: Schedule, thread: tuple[int, int]) -> tuple[int, int]:
    """The first thread (row, col) the inset shows: a window of the block's threads around the highlighted one."""
    threads = (max(1, s.bm // s.tm), max(1, s.bn // s.tn))
    return tuple(max(0, min(t - n // 2, total - n)) for t, n, total in zip(thread, lay.inset_threads, threads))


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


def _registers_label(s: Schedule) -> str:
    return tr("registers of the thread: {tm}+{tn} operands, {tm}×{tn} sums").format(tm=s.tm, tn=s.tn)
