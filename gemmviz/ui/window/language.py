"""The main window's language: View ▸ Language switches it in place (Qt's LanguageChange), and every part of the
window sets its words again. A part of MainWindow (ui/window/main.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QApplication, QMainWindow

from gemmviz.ui import i18n
from gemmviz.ui.window.lesson import lesson_module

if TYPE_CHECKING:
    from gemmviz.ui.files import SessionFiles
    from gemmviz.ui.run.panel import RunPanel
    from gemmviz.ui.status import Banner, Tabs
    from gemmviz.ui.tabs import TabContext
    from gemmviz.ui.text import Words

    _Window = QMainWindow
else:
    _Window = object  # a mixin: MainWindow is the QMainWindow


class WindowLanguage(_Window):
    """set_language and retranslate."""

    if TYPE_CHECKING:  # the rest of the window this part uses (ui/window/main.py)
        lang: str
        words: Words
        device_label: Banner
        replay_banner: Banner
        files: SessionFiles
        run_panel: RunPanel
        tabs: Tabs
        tab_context: TabContext
        languageChanged: ClassVar[Signal]

        def _device_words(self) -> tuple[str, str | None]: ...
        def _tab_context(self) -> TabContext: ...
        def _rebuild_tabs(self) -> None: ...
        def validate(self, *_args) -> str | None: ...

    def set_language(self, lang: str) -> None:
        """Speak `lang` ("en", "zh") from now on, in place: its catalogue is installed (Qt sends each widget a
        LanguageChange) and every part of the window sets its words again (retranslate). The window stays where
        and as it is (screen, geometry, full screen), and so do a run, a lesson and its presenter's window, the
        open files and sessions, the Exercise tab's kernel and check, and each tab's choices and selections."""
        lang = lang if lang in i18n.NAMES else "en"
        if lang == self.lang:
            return
        self.lang = lang
        app = QApplication.instance()
        assert app is not None  # (a window needs one)
        i18n.install(app, lang)
        self.retranslate()

    def retranslate(self) -> None:
        """Every word of the window again, in self.lang: the menus and tab titles (self.words), the banners, the
        control panel and the tiling tab in place; the Exercise tab in place (its kernel, check and running
        check go on); the chart tabs (Charts, Roofline, Compare, Accesses, Hardware) built again where they are,
        with their choices and selections (ui/keep.py); the lesson on screen in its version of this language."""
        self.words.retranslate()
        self.device_label.retranslate(*self._device_words())
        replay = self.files.replay_words()
        self.replay_banner.retranslate(replay if replay is not None else self.replay_banner.text())
        self.run_panel.retranslate()
        self.tabs.retranslate_titles()
        self.tab_context = self._tab_context()  # the tabs made from now on: in this language
        self.languageChanged.emit(self.lang)  # the tabs that follow it: in place (the tiling and Exercise tabs)
        self._rebuild_tabs()
        lesson_module().speak(self, self.lang)
        self.validate()
