"""The window's tabs: where the bar is too narrow for every title (1280×720 in projector type with the control
panel open needs about 1,200 px for seven titles and gets 790), the longest titles are cut with … first and
the short ones stay whole, each whole title in its tab's tooltip; no title is pushed behind scroll arrows."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QStackedWidget, QTabBar, QTabWidget


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
    """A QTabWidget with a FairTabBar, its titles cut with … where they do not fit, each one's tooltip its title."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setTabBar(FairTabBar(self))
        self.setElideMode(Qt.TextElideMode.ElideRight)
        self.setUsesScrollButtons(False)

        self.viewport_shown = None  # the scroll area's viewport where the tabs scroll sideways (show_in)

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

    def _lay_out_tabs(self) -> None:
        bar = self.tabBar()
        bar.setElideMode(bar.elideMode())  # the caps depend on the width: the bar lays its tabs out again

    def resizeEvent(self, event) -> None:
        self._lay_out_tabs()
        super().resizeEvent(event)
