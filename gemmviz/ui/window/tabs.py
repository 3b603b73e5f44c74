"""The main window's tabs: those of ui/tabs.py's registry, each built when first needed (after the first frame,
when opened, or where code asks for it by name) in a stand-in's place, let go in a language switch and made again
with its old self's choices, and styled in the window's theme when shown. A part of MainWindow
(ui/window/main.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QMetaObject, QObject, Qt, Slot
from PySide6.QtWidgets import QMainWindow, QWidget

from gemmviz.ui import tabs
from gemmviz.ui.follow import WorkspaceFollower, unfollow_all

if TYPE_CHECKING:
    from gemmviz.core.session.workspace import Workspace
    from gemmviz.ui.accesses.tab import AccessTab
    from gemmviz.ui.charts.compare import ComparePanel
    from gemmviz.ui.charts.tab import ChartsTab
    from gemmviz.ui.exercise.tab import ExerciseTab
    from gemmviz.ui.hardware.tab import HardwareTab
    from gemmviz.ui.roofline.tab import RooflineTab
    from gemmviz.ui.status import Tabs
    from gemmviz.ui.tabs import TabContext, TabEntry
    from gemmviz.ui.theme import Theme
    from gemmviz.ui.tiling.view import TilingPanel

    _Window = QMainWindow
else:
    _Window = object  # a mixin: MainWindow is the QMainWindow


def queue_slot(window: QObject, slot: str) -> None:
    """The window's slot `slot` on the event loop's next turn, by name: a window closed and deleted before that
    drops the call, and nothing (a bound method held by a timer) keeps the window alive."""
    QMetaObject.invokeMethod(window, slot, Qt.ConnectionType.QueuedConnection)


class StandIn(QWidget):
    """A tab's place until it is built (ui/tabs.py: after the first frame, when opened, or again after a language
    switch). `initial`: held since the window was made; shown after the first frame (a lesson given at start
    ends, or the tab is chosen), it has the tabs the first frame did not show built on the next turn."""

    def __init__(self, window: WindowTabs, name: str, initial: bool) -> None:
        super().__init__()
        self._window = window
        self.name = name
        self.initial = initial

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.initial and self._window.painted:
            queue_slot(self._window, "_build_tabs")


class WindowTabs(_Window):
    """The tab bar's pages: built, asked for by name, made again, restyled."""

    if TYPE_CHECKING:  # the rest of the window this part uses (ui/window/main.py)
        workspace: Workspace
        tabs: Tabs
        tab_context: TabContext
        theme: Theme
        _built_theme: Theme
        tab_themes: dict[QWidget, Theme]
        painted: bool
        _kept: dict
        _built_tabs: dict[str, QWidget]
        _stand_ins: dict[str, StandIn]

    @Slot()
    def _build_tabs(self) -> None:
        """The tabs still standing in that are built after the first frame (ui/tabs.py's "first_paint") built in
        their places; the current tab stays current."""
        for name in [n for n in self._stand_ins if tabs.TABS[n].built == "first_paint"]:
            self._build_tab(name)

    def _build_tab(self, name: str) -> QWidget:
        """The tab `name` (built already, or made now in its stand-in's place); a tab made again in another
        language (retranslate) draws what the workspace holds and is given its old self's choices."""
        stand_in = self._stand_ins.pop(name, None)
        if stand_in is None:
            return self._built_tabs[name]
        entry = tabs.TABS[name]
        context = self.tab_context
        tab = self._built_tabs[name] = entry.factory(context)
        self._replace_tab(stand_in, tab, context.theme)
        self._given_back(entry, tab)
        if self.tabs.currentWidget() is tab:
            self._theme_current_tab()  # in the window's theme (projector mode), as a tab made current is
        return tab

    def tab(self, name: str) -> QWidget:
        """The tab `name` of ui/tabs.py's registry, built now if it is not yet (in its stand-in's place; asked for
        before the first frame's turn: with every tab that turn would build)."""
        stand_in = self._stand_ins.get(name)
        if stand_in is not None and stand_in.initial and tabs.TABS[name].built == "first_paint":
            self._build_tabs()
        return self._build_tab(name)

    def built_tab(self, name: str) -> QWidget | None:
        """The tab `name` if it is built now (asking for it through tab() would build it)."""
        return self._built_tabs.get(name)

    def _given_back(self, entry: TabEntry, tab: QWidget) -> None:
        """A tab made again in another language: it draws what the workspace holds, then takes the choices and
        selections its old self had (ui/keep.py)."""
        kept = self._kept.pop(entry.name, None)
        if kept is None:
            return
        from gemmviz.ui import keep

        if entry.catch_up is not None:
            entry.catch_up(tab, self.workspace)
        for follower in tab.findChildren(WorkspaceFollower):
            follower.refresh()
        if entry.explain is not None:
            entry.explain(tab, self.workspace)
        keep.restore(tab, kept)
        keep.restore(tab, kept)  # again: a choice made above can fill another's menu (the chart shown, its size)

    def _replace_tab(self, old: QWidget, tab: QWidget, theme: Theme) -> None:
        """`tab` takes `old`'s place and titles; the current tab stays current, nothing is told."""
        self.tabs.replace(old, tab)
        self.tab_themes.pop(old, None)
        self.tab_themes[tab] = theme  # restyled in the window's theme when it is shown
        if isinstance(old, StandIn):
            old.deleteLater()

    @property
    def charts_tab(self) -> ChartsTab:
        return cast("ChartsTab", self.tab("charts"))

    @property
    def roofline_tab(self) -> RooflineTab:
        return cast("RooflineTab", self.tab("roofline"))

    @property
    def hardware_tab(self) -> HardwareTab:
        """The Hardware tab, built on first use: where it is opened, or where code asks for it (the export
        dialog's hardware kinds, a test)."""
        return cast("HardwareTab", self.tab("hardware"))

    @property
    def tiling(self) -> TilingPanel:
        return cast("TilingPanel", self.tab("tiling"))

    @property
    def compare(self) -> ComparePanel:
        return cast("ComparePanel", self.tab("compare"))

    @property
    def access_tab(self) -> AccessTab:
        return cast("AccessTab", self.tab("accesses"))

    @property
    def exercise_tab(self) -> ExerciseTab:
        return cast("ExerciseTab", self.tab("exercise"))

    @property
    def tabs_built(self) -> bool:
        """Whether every tab built after the first frame ("first_paint" in ui/tabs.py) is built."""
        return not any(tabs.TABS[n].built == "first_paint" for n in self._stand_ins)

    def _on_current_tab(self) -> None:
        current = self.tabs.currentWidget()
        if isinstance(current, StandIn):  # opened for the first time, or again after a language switch
            self.tab(current.name)
        self._theme_current_tab()

    def _theme_current_tab(self) -> None:
        """The tab on screen in the window's theme, if it was drawn in another (see set_projector)."""
        tab = self.tabs.currentWidget()
        if self.tab_themes.get(tab) == self.theme:
            return
        self.tab_themes[tab] = self.theme
        name = next((n for n, t in self._built_tabs.items() if t is tab), None)
        entry = tabs.TABS.get(name) if name is not None else None  # (a stand-in is styled when its tab replaces it)
        if entry is not None and entry.apply_theme is not None:
            entry.apply_theme(tab, self.theme)

    def _rebuild_tabs(self) -> None:
        """The tabs whose language is "rebuild" (ui/tabs.py: the chart tabs) let go and made again in the window's
        language where they were: the one on screen now, the others when they are next shown or asked for; each is
        given the choices and selections its old self had (ui/keep.py). The current tab stays current."""
        from gemmviz.ui import keep

        for name, tab in list(self._built_tabs.items()):
            entry = tabs.TABS[name]
            if entry.language != "rebuild":
                continue
            self._kept[name] = keep.capture(tab)
            stand_in = self._stand_ins[name] = StandIn(self, name, initial=False)  # made again when shown or asked
            self._replace_tab(tab, stand_in, self._built_theme)
            del self._built_tabs[name]
            unfollow_all(tab)
            if entry.stop is not None:
                entry.stop(tab, None)
            tab.hide()
            tab.setParent(None)  # out of the window at once
            tab.deleteLater()
        self._on_current_tab()

    def refresh(self) -> None:
        """Redraw the tabs built (those with a `refresh` in ui/tabs.py: the charts, the roofline, the comparison)
        for what the workspace does not hold (the theme, new ceilings). Changes of the workspace reach every view
        by its own subscription (ui/follow.py)."""
        for name, tab in list(self._built_tabs.items()):
            entry = tabs.TABS[name]
            if entry.refresh is not None:
                entry.refresh(tab)
