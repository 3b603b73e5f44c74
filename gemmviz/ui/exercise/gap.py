"""The exercise check's gap view: the waterfall of where the time between the student's kernel and the
reference goes (core/exercise/gap.py), with a sentence per bar under it; where the check has no counters for
it, one line says why (an older check, no GPU, ncu not run)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gemmviz.core.exercise.gap import check_gap
from gemmviz.core.hardware.gap import sentences
from gemmviz.core.messages import render
from gemmviz.core.session.recorded import Header
from gemmviz.ui.hardware.gap import GapChart
from gemmviz.ui.hardware.painted import font
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
        # the waterfall alone, as tall as its rows need; its sentences in a label under it, which the tab's
        # column scrolls (drawn inside the chart, at 720p in projector type they left the bars no room at all)
        self.chart = GapChart(lang=lang)
        self.sentences = QLabel()
        self.sentences.setWordWrap(True)
        self.sentences.setMinimumWidth(1)  # a many-line label's own minimum is ~80 characters: it wraps instead
        self.note = QLabel()
        self.note.setWordWrap(True)
        for w in (self.title, self.chart, self.sentences, self.note):
            layout.addWidget(w)
        self.setVisible(False)

    def set_language(self, lang: str) -> None:
        """Its words in `lang` (the catalogue installed); the record shown is drawn again by the tab."""
        self.lang = self.chart.lang = lang
        self.title.setText(tr("Where the time to the reference goes (Nsight Compute's counters)"))

    def show_record(self, record: dict) -> None:
        """The record's gap; nothing at all for a check that timed nothing (a wrong kernel is never profiled)."""
        g, why = check_gap(record)
        profiled = bool((record.get("counters") or {}).get("yours"))
        self.chart.set_gap(g, header(record) if g is not None else None)
        self.chart.setVisible(g is not None)
        self.sentences.setText("" if g is None else "\n".join(plain(x) for x in sentences(g, self.lang)[1:]))
        self.sentences.setVisible(g is not None)
        self.fit_height()
        self.note.setText("" if why is None else plain(render(why, self.lang)))
        self.note.setVisible(why is not None)
        self.setVisible(g is not None or profiled)

    def fit_height(self) -> None:
        """The waterfall's height from its rows (title, source, a row per bar and the total, the axis) in the
        chart's type, so every bar shows at any window size."""
        g = self.chart.gap
        line = QFontMetricsF(font(self.chart.theme.font_pt)).height()
        self.chart.setMinimumHeight(int(line * (7 + 2 * (len(g.parts) + 1))) if g is not None else 0)

    def apply_theme(self, theme) -> None:
        self.chart.apply_theme(theme)
        self.fit_height()


def header(record: dict) -> Header:
    """Where the waterfall's figures come from, as its source line says it: the check's GPU and day."""
    gpu = str((record.get("environment") or {}).get("gpu") or "?")
    return Header("gemmviz.check", gpu, record["created"], "gemmviz exercise check", Path(record["file"]).name)
