"""The exercise check's gap view: the waterfall of where the time between the student's kernel and the
reference goes (core/exercise/gap.py), with a sentence per bar under it; where the check has no counters for
it, one line says why (an older check, no GPU, ncu not run)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gemmviz.core.exercise.gap import check_gap
from gemmviz.core.messages import render
from gemmviz.ui.hardware.gap import GapChart
from gemmviz.ui.text import plain, tr


class ExerciseGap(QWidget):
    """A title, the waterfall (hidden without a gap) and the reason there is none."""

    def __init__(self, lang: str = "en", parent=None):
        super().__init__(parent)
        self.lang = lang
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel(tr("Where the time to the reference goes (Nsight Compute's counters)"))
        self.title.setWordWrap(True)
        self.chart = GapChart(lang=lang, sentences=True)
        self.chart.setMinimumHeight(self.fontMetrics().height() * 26)
        self.note = QLabel()
        self.note.setWordWrap(True)
        for w in (self.title, self.chart, self.note):
            layout.addWidget(w)
        self.setVisible(False)

    def show_record(self, record: dict) -> None:
        """The record's gap; nothing at all for a check that timed nothing (a wrong kernel is never profiled)."""
        g, why = check_gap(record)
        profiled = bool((record.get("counters") or {}).get("yours"))
        self.chart.set_gap(g)
        self.chart.setVisible(g is not None)
        self.note.setText("" if why is None else plain(render(why, self.lang)))
        self.note.setVisible(why is not None)
        self.setVisible(g is not None or profiled)
