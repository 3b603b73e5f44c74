"""Start the desktop app."""

from __future__ import annotations

import sys


def run(projector: bool = False, argv: list[str] | None = None) -> int:
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    from gemmviz.ui.window import MainWindow

    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("gemmviz")
    app.setOrganizationName("gemmviz")
    pg.setConfigOptions(antialias=True)
    window = MainWindow()
    if projector and hasattr(window, "set_projector"):
        window.set_projector(True)
    window.show()
    return app.exec()
