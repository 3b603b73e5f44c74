"""The window's edges: one-line notices above the tabs (no GPU here, a replayed session), elided to the width
they get, their point first, with the whole text in the tooltip and a close button, so they never ask the window for more width;
the tabs, whose titles are cut longest first where the bar is too narrow for them all (1280×720 in projector
type with the control panel open needs about 1,200 px for seven titles and gets 790), each whole title in its
tab's tooltip, no title pushed behind scroll arrows; and the run's progress in the status bar."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QSizePolicy,
    QStackedWidget,
    QStatusBar,
    QTabBar,
    QTabWidget,
    QToolButton,
    QWidget,
)

from gemmviz.ui.text import tr


class ElidedLabel(QLabel):
    """Plain text on one line, cut with … where it does not fit."""

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.full_text = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(40)
        self.set_full_text(text)

    def set_full_text(self, text: str, tooltip: str | None = None) -> None:
        """`tooltip`: what the line stands for where it says less (default: the line itself, whole)."""
        self.full_text = " ".join(text.split())  # one line: newlines from the source become spaces
        self.setToolTip(self.full_text if tooltip is None else tooltip)
        self._elide()

    def _elide(self) -> None:
        width = self.contentsRect().width()
        super().setText(self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideRight, max(width, 20)))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (event.Type.FontChange, event.Type.StyleChange):
            self._elide()


class Banner(QWidget):
    """An ElidedLabel with a ✕ button that hides it until its text changes. A folded banner is not shown: another
    one says its news (it keeps its text and whether it was hidden, for when it is unfolded)."""

    def __init__(self, style: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.label = ElidedLabel()
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setToolTip(tr("Hide this notice"))
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.dismiss)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.close_button)
        self.dismissed = False
        self.folded = False
        self.set_style(style)

    def set_style(self, style: str) -> None:
        self.label.setStyleSheet(style)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            # a label with a style sheet keeps the font it was polished with: the projector's 20 pt never reached
            # the no-GPU notice (9 pt at the back of the room); the banner (no style sheet) follows the window's
            self.label.setFont(self.font())

    def set_text(self, text: str, tooltip: str | None = None) -> None:
        if " ".join(text.split()) != self.label.full_text:
            self.dismissed = False  # new news is shown again
        self.label.set_full_text(text, tooltip)
        self._show()

    setText = set_text

    def set_folded(self, folded: bool) -> None:
        self.folded = folded
        self._show()

    def _show(self) -> None:
        self.setVisible(bool(self.label.full_text) and not self.dismissed and not self.folded)

    def retranslate(self, text: str, tooltip: str | None = None) -> None:
        """The same notice in another language: only its words change (one the user hid stays hidden)."""
        self.close_button.setToolTip(tr("Hide this notice"))
        self.label.set_full_text(text, tooltip)

    def text(self) -> str:
        return self.label.full_text

    def dismiss(self) -> None:
        self.dismissed = True
        self.hide()


def fair_cap(widths: list[int], room: int) -> int | None:
    """The widest a tab may be so that the tabs, each `min(width, cap)`, fill `room` (water-filling: the widest
    give way first); None where every tab fits whole."""
    if sum(widths) <= room or not widths:
        return None
    rest, left = sorted(widths), room
    for i, w in enumerate(rest):
        share = left // (len(rest) - i)
        if w > share:
            return max(1, share)
        left -= w
    return None


class FairTabBar(QTabBar):
    """A tab bar that cuts the longest titles first (Qt shrank every tab alike: "Charts" became "C…")."""

    measuring = False  # inside minimumTabSizeHint, which asks tabSizeHint of the title cut short

    def tabSizeHint(self, index: int) -> QSize:
        hint = super().tabSizeHint(index)
        parent = self.parentWidget()
        if parent is None or self.measuring or self.elideMode() == Qt.TextElideMode.ElideNone:
            return hint
        room = parent.contentsRect().width() - 4
        viewport = getattr(parent, "viewport_shown", None)
        if viewport is not None:  # in a scroll area: the tabs fit the part of it shown
            room = min(room, viewport.width() - 4)
        cap = fair_cap([super(FairTabBar, self).tabSizeHint(i).width() for i in range(self.count())], room)
        if cap is None or hint.width() <= cap:
            return hint
        self.measuring = True
        try:
            least = self.minimumTabSizeHint(index).width()  # three letters and …
        finally:
            self.measuring = False
        return QSize(max(cap, least), hint.height())


class Tabs(QTabWidget):
    """A QTabWidget with a FairTabBar whose titles fit the width it gets: each tab's whole title where they all fit,
    else its short title (ui/tabs.py: "Tiling" for "Tiling animation"), in type made smaller down to
    `SMALLEST_TYPE` of the window's (a projector's 20 pt down to 15: still 20 px at 720p), and only then cut
    with …, longest first; each one's tooltip its whole title."""

    SMALLEST_TYPE = 0.75  # of the window's type, where that is larger than 12 pt (projector type)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setTabBar(FairTabBar(self))
        self.setElideMode(Qt.TextElideMode.ElideRight)
        self.setUsesScrollButtons(False)
        self.viewport_shown = None  # the scroll area's viewport where the tabs scroll sideways (show_in)
        self._titles: dict[QWidget, tuple[Callable[[], str], Callable[[], str] | None]] = {}
        self.short = False  # the short titles are shown
        self._laying_out = False

    # ---- titles --------------------------------------------------------------------------------------------
    def add_titled(self, tab: QWidget, title: Callable[[], str], short: Callable[[], str] | None = None) -> None:
        """Add `tab` with its titles: callables giving them in the window's language (retranslate_titles)."""
        self._titles[tab] = (title, short)
        self.addTab(tab, "")
        self.retranslate_titles()

    def replace(self, old: QWidget, tab: QWidget) -> None:
        """`tab` takes `old`'s place and titles; the current tab stays current, nothing is told."""
        index = self.indexOf(old)
        was_current = self.currentWidget() is old
        self.blockSignals(True)  # the same tab stays current: nothing to tell the window
        try:
            self._titles[tab] = self._titles.pop(old)
            self.insertTab(index, tab, self.tabText(index))  # before `old`, which moves to index + 1
            self.setTabToolTip(index, self.tabToolTip(index + 1))
            if was_current:
                self.setCurrentIndex(index)
            self.removeTab(index + 1)
        finally:
            self.blockSignals(False)

    def retranslate_titles(self) -> None:
        """Every title again, in the language of the moment, whole or short as the bar's width allows."""
        self._lay_out_tabs()

    def _room(self) -> int:
        room = self.contentsRect().width() - 4
        if self.viewport_shown is not None:
            room = min(room, self.viewport_shown.width() - 4)
        return room

    def _titles_of(self, index: int) -> tuple[Callable[[], str], Callable[[], str] | None] | None:
        tab = self.widget(index)
        return None if tab is None else self._titles.get(tab)

    def _text(self, index: int, short: bool) -> str:
        titles = self._titles_of(index)
        if titles is None:
            return self.tabText(index)
        title, short_title = titles
        return short_title() if short and short_title is not None else title()

    def _needed(self, short: bool, font: QFont) -> int:
        """The bar's width for every title, whole or short, in `font`: each tab's text and its frame."""
        bar = self.tabBar()
        now, metrics = QFontMetrics(bar.font()), QFontMetrics(font)
        total = 0
        for i in range(self.count()):
            frame = QTabBar.tabSizeHint(bar, i).width() - now.horizontalAdvance(self.tabText(i))
            total += metrics.horizontalAdvance(self._text(i, short)) + frame
        return total

    def _lay_out_tabs(self) -> None:
        """The titles and their type for the width the bar gets: whole, else short, else short in smaller type
        (not below SMALLEST_TYPE of the window's), else cut with … by the FairTabBar."""
        if self._laying_out:
            return
        self._laying_out = True
        try:
            bar, room = self.tabBar(), self._room()
            base = QFont(QApplication.font())
            points = base.pointSizeF()
            smallest = points if points <= 12 else max(12.0, points * self.SMALLEST_TYPE)
            self.short = self.isVisible() and room > 0 and self._needed(False, base) > room  # (hidden: whole)
            if self.short:
                while points > smallest and self._needed(True, _sized(base, points)) > room:
                    points = max(smallest, points - 1)
            chosen = _sized(base, points)
            if bar.font() != chosen:
                bar.setFont(chosen)
            for i in range(self.count()):
                text = self._text(i, self.short)
                if self.tabText(i) != text:
                    self.setTabText(i, text)
                titles = self._titles_of(i)
                self.setTabToolTip(i, titles[0]() if titles is not None else text)
            bar.setElideMode(bar.elideMode())  # the caps depend on the width: the bar lays its tabs out again
        finally:
            self._laying_out = False

    # ---- size --------------------------------------------------------------------------------------------
    def minimumSizeHint(self) -> QSize:
        """As wide as the tab shown needs (Qt's is the widest any tab needs, a hidden one's included: a tab still
        in projector type made every other one scroll sideways)."""
        full = super().minimumSizeHint()
        page, stack = self.currentWidget(), self.findChild(QStackedWidget)
        if page is None or stack is None:
            return full
        need = page.minimumSizeHint().expandedTo(page.minimumSize()).width()
        widest = stack.minimumSizeHint().width()
        return QSize(max(full.width() - widest + need, self.tabBar().minimumSizeHint().width()), full.height())

    def show_in(self, viewport) -> None:
        """The tabs are shown through `viewport` (a scroll area's): their titles fit its width."""
        self.viewport_shown = viewport
        viewport.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.viewport_shown and event.type() == QEvent.Type.Resize:
            self._lay_out_tabs()
        return False

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.ApplicationFontChange):  # projector type
            self._lay_out_tabs()

    def resizeEvent(self, event) -> None:
        self._lay_out_tabs()
        super().resizeEvent(event)


def _sized(font: QFont, points: float) -> QFont:
    out = QFont(font)
    out.setPointSizeF(points)
    return out


class RunProgress:
    """A progress bar and the time left, at the right of the status bar while a run goes."""

    def __init__(self, status_bar: QStatusBar):
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(300)
        self.bar.setVisible(False)
        self.eta_label = QLabel()
        status_bar.addPermanentWidget(self.eta_label)
        status_bar.addPermanentWidget(self.bar)

    def start(self, total: int) -> None:
        self.bar.setRange(0, total)
        self.bar.setValue(0)
        self.bar.setVisible(True)

    def update(self, done: int, total: int, seconds_left: float) -> None:
        self.bar.setValue(done)
        left = tr("~{seconds} s left").format(seconds=f"{seconds_left:.0f}")
        self.eta_label.setText(left if seconds_left >= 0 and done < total else "")

    def stop(self) -> None:
        self.bar.setVisible(False)
        self.eta_label.setText("")


def fit_screen(width: int, height: int) -> QSize:
    """The window's first size: `width`×`height`, or the screen's free area if that is smaller (a 1280×720
    projector must show the whole window without a window manager to shrink it)."""
    screen = QGuiApplication.primaryScreen()
    if screen is None:
        return QSize(width, height)
    area = screen.availableGeometry()
    return QSize(min(width, area.width()), min(height, area.height()))


def show_normal_within_screen(window: QWidget) -> None:
    """A full-screen window shown normal again, inside its screen: a normal geometry larger than that screen (the
    1500×900 it was restored with, on a 1280×720 projector) would come back cut by the screen's edges, so it is
    fitted into the screen's free area first (fit_screen's rule for the first size) and maximised there."""
    normal = window.normalGeometry()  # the geometry it goes back to (read before: shown normal, it is the current)
    window.showNormal()
    screen = window.screen()
    if screen is None or screen.availableGeometry().contains(normal):
        return
    room = screen.availableGeometry()
    size = normal.size().boundedTo(room.size())
    x = min(max(normal.x(), room.left()), room.right() + 1 - size.width())
    y = min(max(normal.y(), room.top()), room.bottom() + 1 - size.height())
    window.setGeometry(x, y, size.width(), size.height())
    window.showMaximized()
