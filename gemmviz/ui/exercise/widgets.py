"""The Exercise tab's own widgets: the map of wrong regions of C, the timing bars beside the reference, the
kernel's source with the lines a check cites, and a combo box that leaves the wheel to the scroll area."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen, QTextBlockFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QMessageBox,
    QSizePolicy,
    QTextEdit,
    QWidget,
)

from gemmviz.core.exercise.check import source_lines


class ErrorMap(QWidget):
    """C as a grid of regions; each region's shade is its share of wrong elements (from the record's map)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.error_map: dict | None = None
        self.caption = ""
        self.judged = True
        self.setMinimumSize(240, 220)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_map(self, error_map: dict | None, caption: str, judged: bool = True) -> None:
        """The map (None: no wrong region), its caption; `judged` False where C was never read back (a kernel
        that did not finish): grey, never the green of a right C."""
        self.error_map, self.caption, self.judged = error_map, caption, judged
        self.update()

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        try:
            self._draw(p)
        finally:
            p.end()  # a painter left active when drawing raised is what crashes Qt

    def _draw(self, p: QPainter) -> None:
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        fm = p.fontMetrics()
        side = min(self.width(), self.height() - 3 * fm.height()) - 4
        flags = Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap
        p.drawText(QRectF(0, 0, self.width(), fm.height() * 2.4), flags, self.caption)
        if side <= 10:
            return
        top = fm.height() * 2.6
        grid = (self.error_map or {}).get("wrong") or [[0]]
        rows, cols = len(grid), max(len(r) for r in grid)
        cell = side / max(rows, cols)
        peak = max(1, max((max(r) for r in grid if r), default=1))
        for i, row in enumerate(grid):
            for j, value in enumerate(row):
                shade = QColor("#D55E00") if value else QColor("#E8F4EE" if self.judged else "#D0D0D0")
                if value:
                    shade.setAlphaF(0.35 + 0.65 * value / peak)
                p.fillRect(QRectF(j * cell, top + i * cell, cell, cell), shade)
        p.setPen(QPen(QColor("#404040"), 1))
        p.drawRect(QRectF(0, top, cols * cell, rows * cell))


class TimingBars(QWidget):
    """Yours, the reference and cuBLAS as bars of GFLOP/s: each row's name and figure on a line of text (two where
    one is too narrow for them), its bar on the line below across the whole width, so a narrow column shortens the
    bars in proportion and never squeezes one to a pixel (the text took the width beside it before)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[tuple[str, float, str]] = []
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def row_height(self) -> float:
        return self.fontMetrics().height() * 2.6  # a line of text, a bar of 1.2 lines, a gap

    def _labels(self, width: int) -> list[list[str]]:
        """Each row's words on one line, or on two (its name, then its figure) where one is wider than `width`."""
        fm = self.fontMetrics()
        out = []
        for name, _value, text in self.rows:
            one = f"{name}: {text}"
            out.append([one] if fm.horizontalAdvance(one) <= width else [f"{name}:", text])
        return out

    def _height(self, width: int) -> int:
        line = self.fontMetrics().height()
        return int(sum(self.row_height() + (len(t) - 1) * line for t in self._labels(width))) or int(self.row_height())

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._height(width)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.height() != self._height(self.width()):
            self.updateGeometry()  # a row's words went onto two lines, or back onto one

    def set_rows(self, rows: list[tuple[str, float, str]]) -> None:
        self.rows = rows
        self.updateGeometry()
        self.update()

    def sizeHint(self):
        return QSize(self.fontMetrics().horizontalAdvance("M") * 24, self._height(max(1, self.width())))

    def minimumSizeHint(self):
        return QSize(self.fontMetrics().horizontalAdvance("M") * 8, self.sizeHint().height())

    def bar_spans(self) -> list[float]:
        """Each row's bar length in pixels at the widget's width (the fastest spans it)."""
        peak = max((v for _n, v, _t in self.rows), default=0.0) or 1.0
        return [max(2.0, (self.width() - 2) * value / peak) for _n, value, _t in self.rows]

    def paintEvent(self, _event) -> None:
        if not self.rows:
            return
        p = QPainter(self)
        try:
            self._draw(p)
        finally:
            p.end()

    def _draw(self, p: QPainter) -> None:
        line = self.fontMetrics().height()
        y = 0.0
        flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        for i, (texts, span) in enumerate(zip(self._labels(self.width()), self.bar_spans(), strict=True)):
            p.setPen(self.palette().windowText().color())
            for k, text in enumerate(texts):
                p.drawText(QRectF(0, y + k * line, self.width(), line), flags, text)
            y += (len(texts) - 1) * line
            p.fillRect(QRectF(0, y + line * 1.1, span, line * 1.2), QColor(("#0072B2", "#E69F00", "#000000")[i % 3]))
            y += self.row_height()


class SourceView(QTextEdit):
    """The student's source, numbered, the lines a check cites highlighted (the cause's in orange, the emulator's
    findings' in yellow), scrolled to the first one; long lines wrap, never cut."""

    CAUSE, FINDING = QColor("#F5C6A5"), QColor("#FFF0B3")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setReadOnly(True)
        self.setAcceptRichText(False)
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.highlighted: list[int] = []  # the source lines highlighted now, in order (for the tests)
        self.setMinimumHeight(self.fontMetrics().height() * 5)
        # SHOWN lines of the type it has now (projector type too): at 1280×720 the cause above it and 14 lines
        # of code stay on one screen; a longer kernel scrolls here, the cited line a third of the way down
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        self.shown_line: int | None = None  # the line scrolled to (the first cited one, or the one clicked)

    SHOWN = 14

    def sizeHint(self) -> QSize:
        frame = 2 * self.frameWidth() + 2 * int(self.document().documentMargin())
        return QSize(super().sizeHint().width(), self.fontMetrics().lineSpacing() * self.SHOWN + frame)

    def set_source(self, source: str, cause: list[int], findings: list[int]) -> None:
        lines = source_lines(source)
        width = len(str(len(lines)))
        self.setPlainText("\n".join(f"{i:>{width}} │ {text}" for i, text in enumerate(lines, 1)))
        # a wrapped line continues right of the numbers (a hanging indent, which QTextEdit's layout keeps and
        # QPlainTextEdit's drops), never under them
        hang = QTextBlockFormat()
        margin = self.fontMetrics().horizontalAdvance(f"{len(lines):>{width}} │ ")
        hang.setLeftMargin(margin)
        hang.setTextIndent(-margin)
        whole = QTextCursor(self.document())
        whole.select(QTextCursor.SelectionType.Document)
        whole.mergeBlockFormat(hang)
        marks = [(n, self.CAUSE) for n in cause if 0 < n <= len(lines)]
        marks += [(n, self.FINDING) for n in findings if 0 < n <= len(lines) and n not in cause]
        selections = []
        for n, colour in marks:
            sel = QTextEdit.ExtraSelection()
            sel.format.setBackground(colour)
            sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            sel.cursor = QTextCursor(self.document().findBlockByNumber(n - 1))
            sel.cursor.movePosition(
                QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor
            )  # wrapped too
            selections.append(sel)
        self.setExtraSelections(selections)
        self.highlighted = sorted(n for n, _c in marks)
        cited = [n for n in cause if 0 < n <= len(lines)]  # the cause's line first: it is the one to fix
        self.shown_line = cited[0] if cited else self.highlighted[0] if self.highlighted else None
        self._scroll()

    def show_line(self, n: int) -> bool:
        """Scroll source line `n` (a finding's or the cause's, clicked) into view; False if there is no such line."""
        if not 0 < n <= self.document().blockCount():
            return False
        self.shown_line = n
        self._scroll()
        return True

    def line_visible(self, n: int) -> bool:
        """Whether source line `n` is wholly inside the view now (for the tests)."""
        block = self.document().findBlockByNumber(n - 1)
        if not block.isValid():
            return False
        rect = self.cursorRect(QTextCursor(block))
        return rect.top() >= 0 and rect.bottom() <= self.viewport().height()

    def _scroll(self) -> None:
        """The shown line a third of the way down the view (the lines above it give its context)."""
        if self.shown_line is None:
            return
        self.setTextCursor(QTextCursor(self.document().findBlockByNumber(self.shown_line - 1)))
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + self.cursorRect().top() - self.viewport().height() // 3)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._scroll()


class FoldingLabel(QLabel):
    """A label that takes no room while it says nothing: four empty ones left a gap of four lines above the code
    at 1280×720, where the column has none to spare. Wrapped; plain text unless `rich` (then built from escaped
    parts only)."""

    def __init__(self, rich: bool = False) -> None:
        super().__init__()
        self.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setVisible(False)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setVisible(bool(text))

    def clear(self) -> None:
        super().clear()
        self.setVisible(False)


class ClickableLabel(FoldingLabel):
    """A label that says when it is clicked (the verdicts and the cause: a click shows the cause's line)."""

    clicked = Signal()

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()


class NoWheelComboBox(QComboBox):
    """A combo box the mouse wheel changes only once it has focus (a click or Tab): scrolling the column over it
    scrolls the column, and never changes the access view or the exercise by accident."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def wheelEvent(self, event) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()  # to the scroll area around it


def warn(parent: QWidget, title: str, text: str) -> None:
    """A warning whose text is shown as text: a file name or message holding <img> or <b> is never rich text."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()  # not modal: the app keeps working while it is up
