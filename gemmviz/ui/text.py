"""Text from files shown as text: strings from session files (variant, label, GPU name, note, error) must never
be read as HTML by the widgets that render rich text (QLabel in auto format, tooltips, pyqtgraph legends and
labels, QGraphicsTextItem.setHtml): an <img> there loads a local file or an endless resource."""

from __future__ import annotations

import html

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

__all__ = ["QT_TRANSLATE_NOOP", "plain", "tooltip", "tr"]


LANGUAGE = ["en"]  # the window's language, as ui/i18n.install put it in place


def tr(text: str) -> str:
    """The window's language for `text` (issue 23). A module-level tr(): pyside6-lupdate files its strings, and
    QT_TRANSLATE_NOOP("", ...)'s (a class's title, translated where it is drawn), under the empty context."""
    out = QCoreApplication.translate("", text)
    if out == text and text and LANGUAGE[0] != "en":  # not in the catalogue: a variant may carry its own
        from gemmviz.core.kernels.variants import registry_translation

        return registry_translation(text, LANGUAGE[0]) or text
    return out


def plain(s: object) -> str:
    """`s` escaped for a widget that renders HTML (legend names, pyqtgraph labels, setHtml): shown literally."""
    return html.escape(str(s), quote=False)


def tooltip(s: object) -> str:
    """A tooltip that shows `s` literally. Qt guesses whether a tooltip is HTML (Qt.mightBeRichText), so an
    escaped string alone would show its entities; marking it as rich text and escaping it shows the text itself."""
    text = str(s)
    if not text:
        return ""
    return "<qt>" + plain(text).replace("\n", "<br>") + "</qt>"
