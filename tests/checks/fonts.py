"""The bundled CJK font's coverage (tools/cjk_font.py makes it)."""

import re

from PySide6.QtGui import QFont, QRawFont

from gemmviz.core.paths import asset_path
from gemmviz.ui.fonts import CJK_FONT_FILE

CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")


def bundled_font() -> QRawFont:
    return QRawFont(str(asset_path("fonts", CJK_FONT_FILE)), 20, QFont.HintingPreference.PreferNoHinting)


def missing_from_bundled_font(text: str) -> list[str]:
    """The Chinese characters of `text` the bundled font lacks (a QGuiApplication must exist)."""
    raw = bundled_font()
    return sorted(c for c in set(CJK.findall(text)) if not raw.supportsCharacter(ord(c)))
