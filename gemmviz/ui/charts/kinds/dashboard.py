"""The dashboard: time, GFLOP/s, speedup and roofline on one 2x2 page, each drawn as its own kind draws it; a quarter
with nothing to draw (the roofline of a CPU-only session) says why in its place."""

from __future__ import annotations

from gemmviz.core.catalogue import QT_TRANSLATE_NOOP
from gemmviz.core.charts import kinds as chart_kinds

# what the roofline's quarter says for a CPU-only session (Dashboard.empty_reason), in the window's language
NO_GPU_ROOFLINE = QT_TRANSLATE_NOOP(
    "", "No roofline: a CPU-only session has no GPU results to place under a GPU's roof"
)


@chart_kinds.register
class Dashboard(chart_kinds.Dashboard):
    @classmethod
    def render(cls, results, theme, ceilings, view):
        from PySide6.QtWidgets import QGridLayout, QWidget

        widget = QWidget()
        widget.setStyleSheet(f"background: {theme.background};")
        grid = QGridLayout(widget)
        for i, name in enumerate(cls.quarters):
            if cls.empty_reason(name, results, view):
                quarter = empty_quarter(name, QT_TRANSLATE_NOOP("", "Roofline"), NO_GPU_ROOFLINE, theme)
            else:
                quarter = chart_kinds.get(name).render(chart_kinds.drawn(name, results), theme, ceilings, view)
            grid.addWidget(quarter, i // 2, i % 2)
        return widget


def empty_quarter(name: str, title: str, why: str, theme):
    """A quarter with its chart's title and, where the chart would be, why it is empty (`title`, `why`: English
    source texts, drawn through tr()), wrapped to the quarter: a chart scene, as exports paint them."""
    import pyqtgraph as pg
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QFont, QTextOption

    from gemmviz.ui.text import plain, tr

    class EmptyQuarter(pg.PlotWidget):
        def resizeEvent(self, event) -> None:
            super().resizeEvent(event)
            note = getattr(self, "note", None)  # None while pyqtgraph sets the view up
            if note is not None:
                note.setTextWidth(max(60.0, self.width() * 0.8))

    view = EmptyQuarter(background=theme.background, enableMenu=False)  # NO_MENU (charts/base.py)
    view.setObjectName(f"empty-{name}")
    plot = view.getPlotItem()
    plot.setTitle(plain(tr(title)), color=theme.foreground, size=f"{theme.font_pt + 2}pt")
    for axis in ("left", "bottom"):
        plot.hideAxis(axis)
    plot.setMouseEnabled(x=False, y=False)
    plot.setXRange(0, 1, padding=0)
    plot.setYRange(0, 1, padding=0)
    note = pg.TextItem(tr(why), color=theme.foreground, anchor=(0.5, 0.5))
    note.textItem.document().setDefaultTextOption(QTextOption(Qt.AlignmentFlag.AlignHCenter))
    font = QFont()
    font.setPointSize(theme.font_pt)
    note.setFont(font)
    note.setPos(0.5, 0.5)
    plot.addItem(note)
    view.note = note
    return view
