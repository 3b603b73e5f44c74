"""Text for the widgets: tr() through the catalogue in force (ui/i18n.py), and text from files shown as text.

Strings from session files (variant, label, GPU name, note, error) must never be read as HTML by the widgets
that render rich text (QLabel in auto format, tooltips, pyqtgraph legends and labels, QGraphicsTextItem.setHtml):
an <img> there loads a local file or an endless resource."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from PySide6.QtCore import QCoreApplication, QTranslator

from gemmviz.core.catalogue import QT_TRANSLATE_NOOP  # typed: a str (Qt's stub says object); lupdate reads either

__all__ = ["QT_TRANSLATE_NOOP", "Words", "plain", "speaking", "spoken_language", "tooltip", "tr"]

# what an installed ui/i18n.Catalogue answers with its language's code ("en", "zh"); no catalogue file holds it
LANGUAGE_QUERY = ("gemmviz", "language-code")
# the catalogues of the `speaking` scopes entered and not yet left, innermost last; per thread (a check's worker
# thread says its words in the application's language while a lesson paints in its own)
_speaking: ContextVar[tuple[QTranslator, ...]] = ContextVar("speaking", default=())


def tr(text: str) -> str:
    """`text` in the language spoken here: the catalogue of the innermost `speaking` scope (a lesson drawn in its
    own language), else the application's (ui/i18n.install: Qt's catalogue, then a variant's own translation).
    A module-level tr(): pyside6-lupdate files its strings, and QT_TRANSLATE_NOOP("", ...)'s (a class's title,
    translated where it is drawn), under the empty context."""
    scopes = _speaking.get()
    if scopes:
        return scopes[-1].translate("", text) or text
    return QCoreApplication.translate("", text)


@contextmanager
def speaking(catalogue: QTranslator) -> Iterator[None]:
    """tr() speaks `catalogue` (ui/i18n.Catalogue: one language) inside the block: what a lesson draws in its own
    language, whatever the window's is. Nothing is installed, so no widget is told of a language change."""
    token = _speaking.set((*_speaking.get(), catalogue))
    try:
        yield
    finally:
        _speaking.reset(token)


def spoken_language(default: str = "en") -> str:
    """The language of the innermost `speaking` scope, else of the catalogue the application has installed
    (`default` when none says): what painting code renders core's messages in (a caption of the animation)."""
    scopes = _speaking.get()
    if scopes:
        return getattr(scopes[-1], "lang", default)
    code = QCoreApplication.translate(*LANGUAGE_QUERY)
    return default if code == LANGUAGE_QUERY[1] else code


class Words:
    """A widget's words, set again when the language changes (Qt Designer's retranslateUi, kept beside the widgets
    it names): each setter is bound to a callable that gives its text, so the tr() in it runs in the language of
    the moment and pyside6-lupdate still reads its literal.

        words.bind(button.setText, lambda: self.tr("Run"))
        words.retranslate()  # after a new catalogue is installed
    """

    def __init__(self) -> None:
        self._bound: list[tuple[Callable[[str], object], Callable[[], str]]] = []

    def bind(self, setter: Callable[[str], object], text: Callable[[], str]) -> None:
        setter(text())
        self._bound.append((setter, text))

    def retranslate(self) -> None:
        kept = []
        for setter, text in self._bound:
            try:
                setter(text())
            except RuntimeError:  # its widget was deleted (a menu rebuilt): forgotten
                continue
            kept.append((setter, text))
        self._bound = kept


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


# a space between two CJK characters (hanzi, kana, full-width punctuation) that a template put around a name:
# "相对 {name} 的加速比" with a Chinese name read "相对 原文的 GPU 朴素版 的加速比"; beside a Latin name it stays
_CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
_SPACE_BETWEEN_CJK = re.compile(f"(?<=[{_CJK}]) (?=[{_CJK}])")


def join_cjk(text: str) -> str:
    """`text` without the single spaces that stand between two CJK characters; Latin words keep theirs."""
    return _SPACE_BETWEEN_CJK.sub("", text)
