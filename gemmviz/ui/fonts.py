"""Fonts: the bundled CJK font, and one helper for the views drawn with QPainter (animation, slides, tables).

The shipped Chinese text (the lessons, the zh_CN window) must render on a machine with no CJK font at all
(issue 23): a subset of Noto Sans CJK SC (assets/fonts, SIL OFL 1.1, made by tools/cjk_font.py) is
registered with Qt's font database and appended to the application font's families, so every QFont made
from it (widgets, charts, pixel_font's slides and animation, exports) falls back to it for the characters the
system's font lacks, and Latin text keeps the system's font. (Qt's per-script
QFontDatabase.addApplicationFallbackFontFamily needs QChar.Script, which PySide6 does not bind.)

Sizes are pixels, so a view's type scales with its own height, not with the screen's DPI."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QGuiApplication

from gemmviz.core.paths import asset_path

CJK_FONT_FILE = "gemmviz-NotoSansSC-Regular.otf"
_registered: list[str] = []  # the bundled family, once registered in this process


def bundled_cjk_family() -> str | None:
    """Register the bundled CJK font (once per process; a QGuiApplication must exist) and return its family;
    None if Qt refused the file."""
    if not _registered:
        font_id = QFontDatabase.addApplicationFont(str(asset_path("fonts", CJK_FONT_FILE)))
        families = QFontDatabase.applicationFontFamilies(font_id) if font_id >= 0 else []
        if not families:
            return None
        _registered.append(families[0])
    return _registered[0]


def install_cjk_fallback(app: QGuiApplication) -> str | None:
    """Make the bundled CJK font the application font's last family (the fallback); returns the family."""
    family = bundled_cjk_family()
    if family is None:
        return None
    font = app.font()
    if family not in font.families():
        # the family the system resolved, not its alias: Qt does not resolve "Sans Serif" inside a list, and
        # would draw all text, Latin too, with the bundled font and its taller lines
        font.setFamilies([QFontInfo(font).family(), family])
        app.setFont(font)
    return family


def pixel_font(px: float, bold: bool = False, *, minimum: int = 6, nearest: bool = False) -> QFont:
    """A font `px` pixels tall (never under `minimum`): truncated to whole pixels, or the nearest with `nearest`
    (the slides' words and tables are laid out with it)."""
    f = QFont()
    f.setPixelSize(max(minimum, round(px) if nearest else int(px)))
    f.setBold(bold)
    return f
