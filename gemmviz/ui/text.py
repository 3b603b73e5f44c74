"""Text from files shown as text: strings from session files (variant, label, GPU name, note, error) must never
be read as HTML by the widgets that render rich text (QLabel in auto format, tooltips, pyqtgraph legends and
labels, QGraphicsTextItem.setHtml): an <img> there loads a local file or an endless resource."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

__all__ = ["QT_TRANSLATE_NOOP", "origin_words", "plain", "tooltip", "tr"]


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


# Where numbers come from, as core writes it in English (core/lesson/lessons.py's LessonSource label and footer,
# ui/export.footer_text): each form as a pattern and its English template, which the catalogue translates.
_ORIGINS = (
    (re.compile(r"^Replayed: recorded on (?P<gpu>.+), (?P<date>[^,]+)$"),
     QT_TRANSLATE_NOOP("", "Replayed: recorded on {gpu}, {date}")),
    (re.compile(r"^Measured on (?P<gpu>.+), (?P<date>[^,]+)$"), QT_TRANSLATE_NOOP("", "Measured on {gpu}, {date}")),
    (re.compile(r"^Published figures: (?P<gpu>.+), (?P<date>[^,]+)$"),
     QT_TRANSLATE_NOOP("", "Published figures: {gpu}, {date}")),
    (re.compile(r"^Live on (?P<gpu>.+)$"), QT_TRANSLATE_NOOP("", "Live on {gpu}")),
    (re.compile(r"^No recorded results for this lesson$"), QT_TRANSLATE_NOOP("", "No recorded results for this lesson")),
)  # fmt: skip
_HOW = {  # the footers' words for how figures were got
    "replayed": QT_TRANSLATE_NOOP("", "replayed"),
    "measured": QT_TRANSLATE_NOOP("", "measured"),
    "published": QT_TRANSLATE_NOOP("", "published"),
    "host-inclusive timing": QT_TRANSLATE_NOOP("", "host-inclusive timing"),
    "no GPU": QT_TRANSLATE_NOOP("", "no GPU"),
    "no results": QT_TRANSLATE_NOOP("", "no results"),
    "undated": QT_TRANSLATE_NOOP("", "undated"),
    "quoted:": QT_TRANSLATE_NOOP("", "quoted:"),  # a slide's footer: "· quoted: seed 001, A100, published"
}
_HOW_WORDS = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, _HOW)) + r")(?![\w-])")


def origin_words(text: str) -> str:
    """A data source's line (a slide's header or footer, an export's footer) in the window's language: core
    writes it in English; GPU names, dates and the version stay as they are."""
    for pattern, template in _ORIGINS:
        m = pattern.match(text)
        if m:
            return tr(template).format(**{k: origin_words(v) for k, v in m.groupdict().items()})
    words = _HOW_WORDS.sub(lambda m: tr(_HOW[m.group(1)]), text)
    return re.sub(r"([：，；）])\s+", r"\1", words)  # a CJK full-width mark carries its own space: "引用：原文"
