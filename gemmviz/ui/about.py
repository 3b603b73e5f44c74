"""Help ▸ About and the app's identity: `install(window)` sets the window's title and icon and adds the Help menu.

The text comes from core/session/about.py and is shown as plain text (file names and GPU names are data)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, qVersion
from PySide6.QtGui import QAction, QGuiApplication, QIcon, QPixmap
from PySide6.QtWidgets import QMainWindow, QMessageBox

from gemmviz.core.paths import shipped
from gemmviz.core.session import about
from gemmviz.ui.text import Words

DESKTOP_ID = "gemmviz"  # the .desktop file's name: Wayland shells match the window to it (and to its icon)


def tr(text: str) -> str:
    return QCoreApplication.translate("", text)  # the context pyside6-lupdate gives a module-level tr()


def app_icon() -> QIcon:
    """assets/icons/gemmviz.svg (an empty icon where the SVG image plugin is missing)."""
    svg = shipped("assets").joinpath("icons").joinpath("gemmviz.svg")
    pixmap = QPixmap()
    pixmap.loadFromData(svg.read_bytes(), "SVG")
    return QIcon(pixmap) if not pixmap.isNull() else QIcon()


def about_text(lang: str = "en") -> str:
    import pyqtgraph

    lines = [
        tr("gemmviz {version}: see why tiled matrix multiplication is fast.").format(version=about.version()),
        tr("Licence: {licence} (see the LICENSE file). Qt {qt}, pyqtgraph {pg}.").format(
            licence=about.LICENSE, qt=qVersion(), pg=pyqtgraph.__version__
        ),
        "",
        tr("Where the numbers come from:"),
        tr("• live results: measured on this computer when you press Run, verified against a float64 reference"),
    ]
    for source in about.data_sources():
        where = ", ".join(filter(None, (source.gpu, source.date)))
        if source.kind == "measured":
            lines.append(tr("• {file}: measured by gemmviz on {where}").format(file=source.file, where=where))
        elif source.kind == "published":
            lines.append(
                tr("• {file}: the table {seed} published ({where}), not measured by gemmviz").format(
                    file=source.file, seed=source.seed or tr("a seed"), where=where
                )
            )
        else:
            lines.append(tr("• {file}: roofline ceilings measured on {where}").format(file=source.file, where=where))
    lines += ["", tr("The seeds: the two blog posts whose kernels and arithmetic gemmviz implements and checks:")]
    # the seeds' own (Chinese) titles, with their English translation for English readers
    lines += [f"• {seed.key}: {seed.title}" + (f"\n   {seed.english}" if lang == "en" else "") for seed in about.SEEDS]
    return "\n".join(lines)


def show_about(window: QMainWindow, lang: str = "en") -> QMessageBox:
    box = QMessageBox(window)
    box.setWindowTitle(tr("About gemmviz"))
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(about_text(lang))
    icon = window.windowIcon()
    if not icon.isNull():
        box.setIconPixmap(icon.pixmap(64, 64))
    box.setStandardButtons(QMessageBox.StandardButton.Close)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def install(window, words: Words) -> QAction:
    """The window's identity (title, icon, the desktop entry it belongs to) and its Help menu with About, its
    words bound to `words` (the window's: set again when its language changes); returns the About action."""
    window.setWindowTitle("gemmviz")
    icon = app_icon()
    window.setWindowIcon(icon)
    QGuiApplication.setDesktopFileName(DESKTOP_ID)
    if QGuiApplication.windowIcon().isNull():
        QGuiApplication.setWindowIcon(icon)  # dialogs and the task bar too
    action = QAction(window)
    action.setMenuRole(QAction.MenuRole.AboutRole)
    action.triggered.connect(lambda: show_about(window, window.lang))  # in the language it speaks then
    menu = window.menuBar().addMenu("")
    menu.addAction(action)
    words.bind(action.setText, lambda: tr("&About gemmviz"))
    words.bind(menu.setTitle, lambda: tr("&Help"))
    return action
