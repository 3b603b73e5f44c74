"""The dashboard: time, GFLOP/s, speedup and roofline on one 2x2 page, each drawn as its own kind draws it."""

from __future__ import annotations

from gemmviz.core import views


@views.register
class Dashboard(views.Dashboard):
    @classmethod
    def render(cls, results, theme, ceilings, view):
        from PySide6.QtWidgets import QGridLayout, QWidget

        widget = QWidget()
        widget.setStyleSheet(f"background: {theme.background};")
        grid = QGridLayout(widget)
        for i, name in enumerate(cls.panels):
            grid.addWidget(views.get(name).render(results, theme, ceilings, view), i // 2, i % 2)
        return widget
