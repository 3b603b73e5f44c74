"""The dashboard: time, GFLOP/s, speedup and roofline on one 2x2 page, each drawn as its own kind draws it."""

from __future__ import annotations

from gemmviz.core import chart_kinds


@chart_kinds.register
class Dashboard(chart_kinds.Dashboard):
    @classmethod
    def render(cls, results, theme, ceilings, view):
        from PySide6.QtWidgets import QGridLayout, QWidget

        widget = QWidget()
        widget.setStyleSheet(f"background: {theme.background};")
        grid = QGridLayout(widget)
        for i, name in enumerate(cls.quarters):
            grid.addWidget(chart_kinds.get(name).render(results, theme, ceilings, view), i // 2, i % 2)
        return widget
