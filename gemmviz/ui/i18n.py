"""The window's language: one catalogue mechanism for every word gemmviz shows, napari's `trans` as the model.

A `Catalogue` is one language: Qt's compiled catalogue (assets/i18n/gemmviz_zh_CN.qm, from the .ts that
pyside6-lupdate fills from every tr()/QT_TRANSLATE_NOOP), then a kernel variant's own translations (the
registry's `translations=`), then core's messages (`msg`: core/messages.py's templates); its terms are
core/glossary.py's. It is a QTranslator: installed in the application it is the window's language
(MainWindow.set_language installs it, Qt sends its own widgets, a dialog's buttons, a LanguageChange, and the
window sets its words again: MainWindow.retranslate); used without installing it (ui/text.speaking, paint_in)
it is a lesson's own language in any window. The language is chosen by `gemmviz --lang`,
else the one chosen last in View ▸ Language (settings), else the system's locale. The CLI stays English."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from PySide6.QtCore import QCoreApplication, QEvent, QLibraryInfo, QLocale, QObject, QSettings, QTimer, QTranslator
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QAbstractScrollArea, QMenu, QWidget

from gemmviz.core import messages, settings
from gemmviz.core.charts import explain
from gemmviz.core.paths import asset_path
from gemmviz.ui import settings_store, text
from gemmviz.ui.text import LANGUAGE_QUERY, spoken_language, tr

CATALOGUES = {"zh": "gemmviz_zh_CN.qm"}
NAMES = {"en": "English", "zh": "中文"}  # each in its own language, as language menus write them
_installed: list[QTranslator] = []


class CatalogueMissing(RuntimeError):
    """A language whose compiled catalogue is not in the package."""


class Catalogue(QTranslator):
    """One language's words: Qt's catalogue, a variant's own translation, core's messages (`msg`)."""

    def __init__(self, lang: str, parent=None):
        super().__init__(parent)
        self.lang = lang if lang in CATALOGUES else "en"
        self._qm: QTranslator | None = None
        if self.lang in CATALOGUES:
            self._qm = QTranslator(self)
            if not self._qm.load(str(asset_path("i18n", CATALOGUES[self.lang]))):
                raise CatalogueMissing(f"{CATALOGUES[self.lang]} is not in the package")

    def translate(self, context, source, disambiguation=None, n=-1):
        if (context, source) == LANGUAGE_QUERY:
            return self.lang
        if self._qm is not None:
            out = self._qm.translate(context, source, disambiguation, n)
            if out:
                return out
        if self.lang != "en":  # not in the catalogue: a variant may carry its own
            from gemmviz.core.kernels.variants import registry_translation

            return registry_translation(source, self.lang)
        return None

    def isEmpty(self) -> bool:
        return False  # it answers the language query, English too

    def msg(self, message, params=None) -> str:
        """A core message (a key and its parameters, core/messages.py) in this language."""
        return messages.render(message, self.lang, params)


@cache
def catalogue(lang: str) -> Catalogue:
    """The catalogue of `lang` (English for a language gemmviz has none of), made once."""
    return Catalogue(lang)


@contextmanager
def speaking(lang: str) -> Iterator[Catalogue]:
    """tr() speaks `lang` inside the block (ui/text.speaking): a lesson's slides in the lesson's language."""
    cat = catalogue(lang)
    with text.speaking(cat):
        yield cat


class _PaintsIn(QObject):
    """An event filter: what the objects it watches do when they paint, are resized, or their timers fire (a
    chart lays out its labels then), they do speaking `lang` (paint_in). It delivers those events itself, inside
    the scope; nothing else watches them there (a view's WorkspaceFollower watches Show, which passes)."""

    EVENTS = frozenset({QEvent.Type.Paint, QEvent.Type.Resize, QEvent.Type.Timer})

    def __init__(self, lang: str, parent: QObject) -> None:
        super().__init__(parent)
        self.lang = lang
        self._inside = False

    def eventFilter(self, watched, event) -> bool:
        if event.type() not in self.EVENTS or self._inside:
            return False
        self._inside = True
        try:
            with speaking(self.lang):
                watched.event(event)
        finally:
            self._inside = False
        return True


def paint_in(widget: QWidget, lang: str) -> None:
    """`widget` and its children paint, lay out and time their words speaking `lang` from now on: a lesson's view
    whose words are set or drawn after it is made (the animation's labels and captions, a chart's labels placed
    once it has its size) in the lesson's language, in a window of another. A scroll area's viewport is left
    alone (its area paints through a filter of its own; its items are made in `lang`)."""
    painter = _PaintsIn(lang, widget)
    for obj in (widget, *widget.findChildren(QObject)):
        if isinstance(obj, QWidget):
            parent = obj.parentWidget()
            if isinstance(parent, QAbstractScrollArea) and parent.viewport() is obj:
                continue
        elif not isinstance(obj, QTimer):
            continue
        obj.installEventFilter(painter)


def language() -> str:
    """The language of the catalogue installed in the application ("en" or "zh"): what a window is built in when
    it is not told (a test's window, after i18n.install)."""
    return spoken_language()


def system_language() -> str:
    return "zh" if QLocale.system().language() == QLocale.Language.Chinese else "en"


def chosen_language(qs: QSettings) -> str:
    """The language View ▸ Language saved ("" if none was chosen)."""
    return str(settings_store.read(qs, settings.LANGUAGE))


def resolve_language(cli: str | None, qs: QSettings) -> str:
    """--lang, else the one chosen in the menu, else the system's."""
    return cli or chosen_language(qs) or system_language()


def install(app: QCoreApplication, lang: str) -> bool:
    """Install the catalogue of `lang` (and Qt's own for its standard dialogs, where installed) in place of the
    ones installed before: Qt then sends every widget a LanguageChange. False if gemmviz's catalogue is missing
    (English is installed instead)."""
    try:
        ours = catalogue(lang if lang in CATALOGUES else "en")
    except CatalogueMissing:
        install(app, "en")
        return False
    if _installed and _installed[-1] is ours:
        return True
    while _installed:
        app.removeTranslator(_installed.pop())
    if ours.lang == "zh":
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
    return ours.lang == lang


def reason_words(gpu: dict, lang: str) -> str:
    """Why there is no GPU, in `lang`: the backend's message (backends/cuda_probe.py's templates, the driver's own
    detail as it is), else its reason as it came (an older session's, another backend's)."""
    from gemmviz.backends import cuda_probe  # its module defines the reasons' templates

    why = gpu.get("reason_message")
    if messages.valid(why):
        return messages.render(why, lang)
    reason = gpu.get("reason")
    return messages.render(cuda_probe.NO_BACKEND, lang) if reason is None else str(reason)


def device_banner(gpu: dict, lang: str, replay: str | None = None) -> tuple[str, str]:
    """The device line above the tabs and its tooltip: the GPU's figures, or what runs without one and why (the
    reason as the backend gave it), both core/charts/explain.py's words. `replay`: the recorded session replayed
    without a GPU, which the line names (the tooltip keeps the menu path and the reason)."""
    if gpu.get("available"):
        line = explain.device_summary(gpu, lang)
        return line, line
    gpu = {**gpu, "reason": reason_words(gpu, lang)}
    return explain.device_summary(gpu, lang, replay), explain.device_details(gpu, lang)


# core/charts/explain.py's explanations in `lang`; the registry's strings through the catalogue
def explain_result(r, lang: str, ceilings=None, source: str = "") -> str:
    return explain.explain_result(r, ceilings, source, lang, tr)


def explain_pair(a, b, lang: str) -> str:
    return explain.explain_pair(a, b, lang)


def explain_counters(r, lang: str) -> str:
    return explain.explain_counters(r, lang)


def explain_trace(r, lang: str, sm_count: int | None = None, summary=None, last=None) -> str:
    return explain.explain_trace(r, sm_count, summary, lang, last)


def add_menu(window) -> QMenu:
    """View ▸ Language: English, 中文, or the system's; saved, and the window speaks it at once (choose). Returns
    the menu (the window holds it)."""
    menu = window.view_menu.addMenu("")
    window.words.bind(menu.setTitle, lambda: tr("&Language"))
    group = QActionGroup(menu)
    chosen = chosen_language(window.settings)
    for code, name in (("", None), *NAMES.items()):
        action = QAction(menu, checkable=True)
        if name is None:
            window.words.bind(action.setText, lambda: tr("As the system"))
        else:
            action.setText(name)
        action.setChecked(code == chosen)
        action.triggered.connect(lambda _=False, c=code: choose(window, c))
        group.addAction(action)
        menu.addAction(action)
    return menu


def next_language(lang: str) -> str:
    """The language after `lang` in the View ▸ Language menu's order, round to the first (a lesson's L key)."""
    codes = list(NAMES)
    return codes[(codes.index(lang) + 1) % len(codes)] if lang in codes else codes[0]


def choose(window, code: str):
    """Save the choice and switch the window to that language in place (MainWindow.set_language: every widget
    keeps its state, a run and a lesson go on). Returns the window."""
    settings_store.write(window.settings, settings.LANGUAGE, code)
    window.set_language(resolve_language(code or None, window.settings))
    return window
