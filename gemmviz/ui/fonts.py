"""Fonts: the bundled CJK font, and one helper for the views drawn with QPainter (animation, slides, tables).

The shipped Chinese text (the lessons, the zh_CN window) must render on a machine with no CJK font at all
: a subset of Noto Sans CJK SC (assets/fonts, SIL OFL 1.1, made by tools/cjk_font.py), its
regular and bold faces, is registered with Qt's font database and appended to the application font's families, so every QFont made
from it (widgets, charts, pixel_font's slides and animation, exports) falls back to it for the characters the
system's font lacks, and Latin text keeps the system's font. (Qt's per-script
QFontDatabase.addApplicationFallbackFontFamily needs QChar.Script, which PySide6 does not bind.)

Sizes are pixels, so a view's type scales with its own height, not with the screen's DPI.

Text from the user (a copied lesson, a session's labels and notes) may be in a script no font here has: Korean,
rare hanzi, a font-less emoji. `missing_characters` asks Qt, for each character, whether the application font
or any family Qt falls back to can draw it (QFontMetrics.inFontUcs4 on the font's fallback engine), and
`missing_font_warning` names those characters and the package that has them, for the status bar
(`warn_missing`) and for `gemmviz lesson … --export` (stderr): never silent boxes."""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QFontMetrics, QGuiApplication

from gemmviz.core.paths import asset_path
from gemmviz.ui.text import tr

log = logging.getLogger("gemmviz")

CJK_FONT_FILE = "gemmviz-NotoSansSC-Regular.otf"
# a real bold face: Qt synthesizes bold only for glyphs it caches (under 64 px), so a slide's title at 1920×1080
# drawn from the regular face alone would lose its weight
CJK_BOLD_FILE = "gemmviz-NotoSansSC-Bold.otf"
_registered: list[str] = []  # the bundled family, once registered in this process


def bundled_cjk_family() -> str | None:
    """Register the bundled CJK font's two faces (once per process; a QGuiApplication must exist) and return its
    family; None if Qt refused the regular face (without the bold one, Qt synthesizes bold where it can)."""
    if not _registered:
        font_id = QFontDatabase.addApplicationFont(str(asset_path("fonts", CJK_FONT_FILE)))
        families = QFontDatabase.applicationFontFamilies(font_id) if font_id >= 0 else []
        if not families:
            return None
        if QFontDatabase.addApplicationFont(str(asset_path("fonts", CJK_BOLD_FILE))) < 0:
            log.warning("Qt refused the bundled bold CJK face %s: bold Chinese is synthesized", CJK_BOLD_FILE)
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


# ---- characters no font here can draw -----------------------------------------------------------
SHOWN_MAX = 12  # characters a warning names; the rest are counted
# (first, last code point, the Debian/Ubuntu package with a font for them); the first match wins
FONT_PACKAGES = (
    (0x1100, 0x11FF, "fonts-noto-cjk"),  # Hangul jamo
    (0x2E80, 0x9FFF, "fonts-noto-cjk"),  # CJK radicals, kana, Hangul compatibility jamo, CJK ideographs
    (0xA960, 0xA97F, "fonts-noto-cjk"),
    (0xAC00, 0xD7FF, "fonts-noto-cjk"),  # Hangul syllables
    (0xF900, 0xFAFF, "fonts-noto-cjk"),
    (0xFE30, 0xFE4F, "fonts-noto-cjk"),
    (0xFF00, 0xFFEF, "fonts-noto-cjk"),  # full-width forms
    (0x1F000, 0x1FAFF, "fonts-noto-color-emoji"),
    (0x20000, 0x3FFFF, "fonts-noto-cjk-extra"),  # CJK extension B and later
)
OTHER_PACKAGE = "fonts-noto-core"  # Noto for most other scripts (Thai, Devanagari, Arabic, …)


def _drawn(c: str) -> bool:
    """Whether a character is drawn at all (not a space, a control or a format character)."""
    return not c.isspace() and unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp", "Zs")


def missing_characters(text: str, font: QFont | None = None) -> list[str]:
    """The characters of `text` (each once, in order) that neither `font` (the application's by default, with
    the bundled CJK family) nor any font Qt falls back to has: they would be drawn as boxes. Needs a
    QGuiApplication."""
    metrics = QFontMetrics(font if font is not None else QFont())
    seen: dict[str, None] = {}
    for c in text:
        if c not in seen and _drawn(c):
            seen[c] = None
    return [c for c in seen if not metrics.inFontUcs4(ord(c))]


def font_package(c: str) -> str:
    code = ord(c)
    return next((pkg for lo, hi, pkg in FONT_PACKAGES if lo <= code <= hi), OTHER_PACKAGE)


def missing_font_warning(text: str, where: str = "", font: QFont | None = None) -> str:
    """A warning naming the characters of `text` no font here can draw and the fix; "" when every one can.
    In the window's language (tr); the CLI installs no translation, so it prints the English."""
    missing = missing_characters(text, font)
    if not missing:
        return ""
    shown = " ".join(missing[:SHOWN_MAX]) + (f" … (+{len(missing) - SHOWN_MAX})" if len(missing) > SHOWN_MAX else "")
    codes = ", ".join(f"U+{ord(c):04X}" for c in missing[:3]) + (", …" if len(missing) > 3 else "")
    packages = " ".join(dict.fromkeys(font_package(c) for c in missing))
    return tr(
        "{where}no installed font has {n} of its characters, so they would show as boxes: {chars} ({codes}). "
        "Install a font that has them, e.g. sudo apt install {packages}, and start gemmviz again."
    ).format(where=f"{where}: " if where else "", n=len(missing), chars=shown, codes=codes, packages=packages)


def lesson_text(lesson) -> str:
    """Every word of a lesson that its slides show (core.lesson.lessons.Lesson)."""
    return "\n".join([lesson.title, lesson.summary, *(f"{s.title}\n{s.text}\n{s.quoted}" for s in lesson.steps)])


def warn_missing(show_status: Callable[[str, int], object], text: str, where: str = "") -> str:
    """Show missing_font_warning in the window's status bar (`show_status(text, ms)`, for a minute) and the log;
    returns it."""
    warning = missing_font_warning(text, where)
    if warning:
        log.warning("%s", warning)
        show_status("⚠ " + warning, 60000)
    return warning
