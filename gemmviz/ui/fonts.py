"""One font helper for the views drawn with QPainter (animation, slides, tables): sizes are pixels, so a
view's type scales with its own height, not with the screen's DPI."""

from __future__ import annotations

from PySide6.QtGui import QFont


def pixel_font(px: float, bold: bool = False, *, minimum: int = 6, nearest: bool = False) -> QFont:
    """A font `px` pixels tall (never under `minimum`): truncated to whole pixels, or the nearest with `nearest`
    (the slides' words and tables are laid out with it)."""
    f = QFont()
    f.setPixelSize(max(minimum, round(px) if nearest else int(px)))
    f.setBold(bold)
    return f
