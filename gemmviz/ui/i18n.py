"""The window's language (issue 23): Qt's translation system with a zh_CN catalogue (assets/i18n), chosen by
`gemmviz --lang`, else the one chosen last in View ▸ Language (settings), else the system's locale.

Strings are marked with self.tr / QCoreApplication.translate where they are made; the catalogue's source is
assets/i18n/gemmviz_zh_CN.ts, updated with pyside6-lupdate and built into the .qm the app loads with
pyside6-lrelease (see docs/guide/teaching.md). A language chosen in the menu rebuilds the window in it at once, keeping the
workspace (switch_language): every widget is built in one language. The CLI stays English."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QSettings, QTranslator
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from gemmviz.core import messages, settings
from gemmviz.core.charts import explain
from gemmviz.core.paths import asset_path
from gemmviz.ui import settings_store
from gemmviz.ui.text import LANGUAGE, tr

CATALOGUES = {"zh": "gemmviz_zh_CN.qm"}
NAMES = {"en": "English", "zh": "中文"}  # each in its own language, as language menus write them
_installed: list[QTranslator] = []
_language = LANGUAGE  # the language install() put in place last (held in ui/text.py, which tr() reads)


def language() -> str:
    """The window's language now ("en" or "zh"): what core's explanations and figures are asked for."""
    return _language[0]


def system_language() -> str:
    return "zh" if QLocale.system().language() == QLocale.Language.Chinese else "en"


def chosen_language(qs: QSettings) -> str:
    """The language View ▸ Language saved ("" if none was chosen)."""
    return settings_store.read(qs, settings.LANGUAGE)


def resolve_language(cli: str | None, qs: QSettings) -> str:
    """--lang, else the one chosen in the menu, else the system's."""
    return cli or chosen_language(qs) or system_language()


def install(app: QCoreApplication, lang: str) -> bool:
    """Load the catalogues of `lang` (gemmviz's, and Qt's own for its standard dialogs where installed);
    English needs none. Replaces what an earlier call installed. False if gemmviz's catalogue is missing."""
    while _installed:
        app.removeTranslator(_installed.pop())
    _language[0] = lang if lang in CATALOGUES else "en"
    if lang not in CATALOGUES:
        return lang == "en"
    ours = QTranslator(app)
    if not ours.load(str(asset_path("i18n", CATALOGUES[lang]))):
        _language[0] = "en"
        return False
    qt = QTranslator(app)
    if qt.load(
        QLocale(QLocale.Language.Chinese, QLocale.Country.China),
        "qtbase",
        "_",
        QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath),
    ):
        app.installTranslator(qt)
        _installed.append(qt)
    app.installTranslator(ours)
    _installed.append(ours)
    return True


def reason_words(gpu: dict) -> str:
    """Why there is no GPU, in the window's language: the backend's message (backends/cuda.py's templates, the
    driver's own detail as it is), else its reason as it came (an older session's, another backend's)."""
    from gemmviz.backends import cuda  # its module defines the reasons' templates

    why = gpu.get("reason_message")
    if messages.valid(why):
        return messages.render(why, language())
    reason = gpu.get("reason")
    return messages.render(cuda.NO_BACKEND, language()) if reason is None else str(reason)


def device_banner(gpu: dict) -> str:
    """The device line above the tabs: the GPU's figures, or why there is none (the reason as the backend
    gave it)."""
    if gpu.get("available"):
        return explain.device_summary(gpu, language())
    return tr(
        "No CUDA GPU: {reason}. CPU variants run live; GPU figures come from recorded sessions "
        "(File ▸ Open recorded or published session)."
    ).format(reason=reason_words(gpu))


# core/charts/explain.py's explanations in the window's language; the registry's strings through the catalogue
def explain_result(r, ceilings=None, source: str = "") -> str:
    return explain.explain_result(r, ceilings, source, language(), tr)


def explain_pair(a, b) -> str:
    return explain.explain_pair(a, b, language())


def explain_counters(r) -> str:
    return explain.explain_counters(r, language())


def explain_trace(r, sm_count: int | None = None, summary=None) -> str:
    return explain.explain_trace(r, sm_count, summary, language())


def add_menu(window) -> QMenu:
    """View ▸ Language: English, 中文, or the system's; saved, and the window rebuilt in it at once. Returns the
    menu (the window holds it)."""
    menu = window.view_menu.addMenu(tr("&Language"))
    group = QActionGroup(menu)
    chosen = chosen_language(window.settings)
    for code, name in (("", tr("As the system")), *NAMES.items()):
        action = QAction(name, menu, checkable=True)
        action.setChecked(code == chosen)
        action.triggered.connect(lambda _=False, c=code: choose(window, c))
        group.addAction(action)
        menu.addAction(action)
    return menu


_window: list = []  # the window the last switch made; held here, so it lives as long as the app
_adopters: list = []  # what the app does to each window it shows (ui/app.py: the GC's freeze, the X11 watch)


def adopt(window, hook) -> None:
    """The app's window, and what to do to each one a language switch makes instead (`hook(window)`)."""
    _window[:] = [window]
    _adopters[:] = [hook]


def current_window():
    """The window shown now: the app's, or the one the last language switch made."""
    return _window[0] if _window else None


def switch_language(old, lang: str):
    """Rebuild the window in `lang` ("en", "zh") keeping what the user has: the live results (saved or not, and
    the recovery file of unsaved ones), the loaded sessions, the hidden series, the probed environment, the
    projector and dark themes, the tab, the window's geometry. Every widget is made anew in the new language
    (no widget keeps an English string it was built with). Returns the new window, the old one when `lang` is
    already the window's, None while a run or a lesson is on (the caller says so)."""
    from PySide6.QtWidgets import QApplication

    if lang == language():
        return old
    if old.running or old.lesson_mode.active:
        return None
    app = QApplication.instance()
    projector, dark = old.projector_action.isChecked(), old.dark_action.isChecked()
    old._save_settings()  # geometry, splitter and run panel: the new window restores them from the settings
    old.shutdown()  # the worker ends (it owns the CUDA context); the new window starts its own
    font = app.font()
    font.setPointSize(old._base_font_pt)  # projector mode enlarged it: the new window must see the normal size
    app.setFont(font)
    install(app, lang)
    new = type(old)(old.backends, settings=old.settings, load_recorded_without_gpu=False)  # a MainWindow
    ws, kept = new.workspace, old.workspace
    ws.hidden = set(kept.hidden)  # first, while nothing is open: one full redraw of the sessions below, not two
    ws.add_live(*kept.live)
    ws.restore(kept.snapshot())
    if kept.environment:  # until the new worker's probe reports: the banner, the variants' availability
        new._on_environment(dict(kept.environment))
    new.take_over(old)
    new.recovery.ask, new.recovery.saved = old.recovery.ask, list(old.recovery.saved)
    new.files.show_replay_banner()
    new.setGeometry(old.geometry())  # where the old one is, as it is (restoreGeometry clamps to the screen's size)
    if old.isFullScreen():
        new.showFullScreen()
    elif old.isMaximized():
        new.showMaximized()
    else:
        new.show()
    new.fullscreen_action.setChecked(new.isFullScreen())
    if projector or dark:  # once shown: before, hiding the control panel shrank the window by its width
        new.set_projector(projector, dark)
        new.refresh()  # in the new type (restore above drew the views in the window's first theme, as they follow)
    new.tabs.setCurrentIndex(old.tabs.currentIndex())
    old.recovery.ask = False  # the results live on in the new window: closing the old one asks nothing
    old.close()  # removes the recovery file: the new window writes it again below if results are unsaved
    old.deleteLater()
    if new.recovery.unsaved:
        new.recovery.write()
    _window[:] = [new]
    for hook in _adopters:
        hook(new)
    return new


def choose(window, code: str):
    """Save the choice and rebuild the window in that language, keeping the workspace (switch_language);
    during a run or a lesson the window stays as it is and says when the language changes. Returns the
    window now shown."""
    settings_store.write(window.settings, settings.LANGUAGE, code)
    new = switch_language(window, resolve_language(code or None, window.settings))
    if new is None:
        window.statusBar().showMessage(
            tr(
                "The language changes after the run or the lesson: choose it again then, "
                "or it applies when gemmviz starts again"
            ),
            15000,
        )
        return window
    return new
