"""The window's language (issue 23): Qt's translation system with a zh_CN catalogue (assets/i18n), chosen by
`gemmviz --lang`, else the one chosen last in View ▸ Language (settings), else the system's locale.

Strings are marked with self.tr / QCoreApplication.translate where they are made; the catalogue's source is
assets/i18n/gemmviz_zh_CN.ts, updated with pyside6-lupdate and built into the .qm the app loads with
pyside6-lrelease (see the README). A language chosen in the menu rebuilds the window in it at once, keeping the
workspace (ui/app.switch_language): every widget is built in one language. The CLI stays English."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QSettings, QTranslator
from PySide6.QtGui import QAction, QActionGroup

from gemmviz.core import explain, settings
from gemmviz.core.paths import asset_path
from gemmviz.ui import settings_store
from gemmviz.ui.text import tr

CATALOGUES = {"zh": "gemmviz_zh_CN.qm"}
NAMES = {"en": "English", "zh": "中文"}  # each in its own language, as language menus write them
_installed: list[QTranslator] = []
_language = ["en"]  # the language install() put in place last


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
    if qt.load(QLocale(QLocale.Language.Chinese, QLocale.Country.China), "qtbase", "_",
               QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):  # fmt: skip
        app.installTranslator(qt)
        _installed.append(qt)
    app.installTranslator(ours)
    _installed.append(ours)
    return True


def device_banner(gpu: dict) -> str:
    """The device line above the tabs: the GPU's figures, or why there is none (the reason as the backend
    gave it)."""
    if gpu.get("available"):
        return explain.device_summary(gpu, language())
    return tr("No CUDA GPU: {reason}. CPU variants run live; GPU figures come from recorded sessions "
              "(File ▸ Open recorded or published session).").format(reason=gpu.get("reason", "no CUDA backend"))  # fmt: skip


# core/explain.py's explanations in the window's language; the registry's strings through the catalogue
def explain_result(r, ceilings=None, source: str = "") -> str:
    return explain.explain_result(r, ceilings, source, language(), tr)


def explain_pair(a, b) -> str:
    return explain.explain_pair(a, b, language())


def explain_counters(r) -> str:
    return explain.explain_counters(r, language())


def explain_trace(r, sm_count: int | None = None, summary=None) -> str:
    return explain.explain_trace(r, sm_count, summary, language())


def add_menu(window) -> None:
    """View ▸ Language: English, 中文, or the system's; saved, and the window rebuilt in it at once."""
    menu = window.view_menu.addMenu(tr("&Language"))
    group = QActionGroup(menu)
    chosen = chosen_language(window.settings)
    for code, name in (("", tr("As the system")), *NAMES.items()):
        action = QAction(name, menu, checkable=True)
        action.setChecked(code == chosen)
        action.triggered.connect(lambda _=False, c=code: choose(window, c))
        group.addAction(action)
        menu.addAction(action)
    window.language_menu = menu


def choose(window, code: str):
    """Save the choice and rebuild the window in that language, keeping the workspace (ui/app.switch_language);
    during a run or a lesson the window stays as it is and says when the language changes. Returns the
    window now shown."""
    from gemmviz.ui.app import switch_language

    settings_store.write(window.settings, settings.LANGUAGE, code)
    new = switch_language(window, resolve_language(code or None, window.settings))
    if new is None:
        window.statusBar().showMessage(tr("The language changes after the run or the lesson: choose it again then, "
                                          "or it applies when gemmviz starts again"), 15000)  # fmt: skip
        return window
    return new
