"""The Tiling tab's own widgets: the view that paints frames (TilingView), the kernel's source fitted to its
pane (CodeView), and the presenter's keys wherever the focus is (PresenterKeys, is_text_entry). The tab that
holds them and their controls is ui/tiling/view.py's TilingPanel."""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from gemmviz.ui.theme import LIGHT, Theme
from gemmviz.ui.tiling.render import Background, FrameState, render_frame

CODE_COLUMNS = 60  # the kernel's lines the code panel fits to its width (most are shorter; longer ones scroll)
CODE_MIN_PT = 7.0
PRESENTER_KEYS = (Qt.Key.Key_Right, Qt.Key.Key_Left, Qt.Key.Key_Space, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown,
                  Qt.Key.Key_Home, Qt.Key.Key_End)  # fmt: skip
# every event of the application passes PresenterKeys.eventFilter: a set answers in half the time of a tuple
_KEY_EVENTS = frozenset((QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride))


def is_text_entry(widget) -> bool:
    """A field where the user types text: it keeps its own arrow, space and Home/End keys. Spin boxes, sliders,
    buttons, lists and read-only text hand them to the presentation."""
    if isinstance(widget, QLineEdit):
        return not widget.isReadOnly() and not isinstance(widget.parent(), QAbstractSpinBox)
    if isinstance(widget, (QPlainTextEdit, QTextEdit)):
        return not widget.isReadOnly()
    return isinstance(widget, QComboBox) and widget.isEditable()


class PresenterKeys(QObject):
    """An application-wide event filter: →, ←, Space, PgUp/PgDn (a clicker), Home, End go to `handler(key)`
    wherever the focus is in `window` (after a click in a spin box too), except in a text field."""

    def __init__(self, window, handler: Callable[[Qt.Key], bool]):
        super().__init__(window)
        self.window = window
        self.handler = handler  # returns True if it used the key

    def eventFilter(self, obj, event) -> bool:
        if event.type() not in _KEY_EVENTS:
            return False
        if event.key() not in PRESENTER_KEYS or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        focus = QApplication.focusWidget()
        target = focus or obj
        if not isinstance(target, QWidget) or target.window() is not self.window or is_text_entry(focus):
            return False
        if obj is not target and obj is not self.window.windowHandle():
            return False  # the same key bubbling up to the parents: handled once
        if event.type() is QEvent.Type.ShortcutOverride:
            event.accept()  # no widget and no shortcut takes it: the KeyPress comes to us
            return True
        return self.handler(Qt.Key(event.key()))


class TilingView(QWidget):
    def __init__(self, theme: Theme = LIGHT, parent=None):
        super().__init__(parent)
        self.theme = theme
        self.state: FrameState | None = None
        self.background = Background()
        self.setMinimumSize(320, 200)

    def set_state(self, state: FrameState | None) -> None:
        self.state = state
        self.update()

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        if self.state is None:
            painter.fillRect(self.rect(), QColor(self.theme.background))
        else:
            render_frame(painter, self.width(), self.height(), self.state, self.theme, self.background)
        painter.end()


class CodeView(QPlainTextEdit):
    """The kernel's source, read-only, its type fitted to the panel's width: as large as the window's text
    (a projector's 20 pt) where CODE_COLUMNS columns fit, smaller down to CODE_MIN_PT where they do not (at
    the window's size a panel of 470 px showed about 20 characters of each line)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setReadOnly(True)
        # long lines (the loads' bounds checks) wrap: nothing of them is cut off at the pane's edge
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.max_pt = float(QApplication.font().pointSizeF() if QApplication.instance() else 10)
        self.min_pt = CODE_MIN_PT

    def set_max_pt(self, pt: float, min_pt: float = CODE_MIN_PT) -> None:
        self.max_pt, self.min_pt = pt, min(pt, min_pt)
        self.fit_font()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_font()
        self.ensureCursorVisible()  # the highlighted line, once the pane has its size (it opened at the top)

    def fit_font(self) -> None:
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        mono.setPointSizeF(10.0)
        per_pt = QFontMetricsF(mono).horizontalAdvance("x" * CODE_COLUMNS) / 10.0  # width of the columns per point
        room = self.viewport().width() - 2 * self.document().documentMargin()
        pt = max(self.min_pt, min(self.max_pt, room / per_pt if per_pt > 0 else self.max_pt))
        pt = max(self.min_pt, math.floor(pt * 2) / 2)  # half points, rounded down
        mono.setPointSizeF(pt)
        # glyph widths are hinted per size, not proportional: step down until the columns really fit
        while pt > self.min_pt and QFontMetricsF(mono).horizontalAdvance("x" * CODE_COLUMNS) > room:
            pt -= 0.5
            mono.setPointSizeF(pt)
        if self.font() != mono:
            self.setFont(mono)
