"""The chart kinds as the Charts tab shows them (each kind's `make_panel`, ui/charts/kinds/): a chart, or a chart
with its controls, and how it redraws from what the workspace shows."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from gemmviz.core.charts.kinds import DEFAULT_BASELINE, ChartView
from gemmviz.core.kernels.variants import BASELINES
from gemmviz.ui.charts.base import ResultChart, source_label
from gemmviz.ui.charts.plots import SpeedupChart, key_label
from gemmviz.ui.text import tr
from gemmviz.ui.theme import Theme


class ChartPanel:
    """One chart in the tab: `widget` is what the tab lays out (the chart itself here)."""

    def __init__(self, chart: ResultChart, widget: QWidget | None = None):
        self.chart = chart
        self.widget = widget or chart

    def refresh(self, shown, source_of, max_new: int | None = None) -> bool | None:
        """Redraw from the shown results; False where a staged redraw (`max_new` new series a step) goes on."""
        return self.chart.set_results(shown, max_new=max_new, source_of=source_of)

    def set_four(self, four: bool) -> None:
        """The panel shares the tab with the others (its quarter's type scaled), or is shown alone."""

    def new_run(self) -> None:
        """A run starts."""


class SpeedupPanel(ChartPanel):
    """The speedup bars with their choice of source, baseline and size. The size follows the largest with the
    baseline until the user picks one (kept through a change of baseline, dropped with a change of source)."""

    def __init__(self, theme: Theme):
        super().__init__(SpeedupChart(theme), QWidget())
        layout = QVBoxLayout(self.widget)
        layout.setContentsMargins(0, 0, 0, 0)
        self.choices = QWidget()
        choose = QHBoxLayout(self.choices)
        choose.setContentsMargins(0, 0, 0, 0)
        self.baseline_combo = QComboBox()
        for b in BASELINES:
            self.baseline_combo.addItem(tr(b.label), b.key)
        self.baseline_combo.setCurrentIndex(self.baseline_combo.findData(DEFAULT_BASELINE))
        self.size_combo = QComboBox()
        self.source_combo = QComboBox()
        for w in (self.source_combo, QLabel(tr("vs")), self.baseline_combo, QLabel(tr("at")), self.size_combo):
            choose.addWidget(w)
        choose.addStretch()
        layout.addWidget(self.choices)
        layout.addWidget(self.chart)
        self.size_pinned = False
        for combo in self.combos:
            combo.currentIndexChanged.connect(lambda _i, c=combo: self.on_choice(c))

    @property
    def combos(self) -> tuple[QComboBox, QComboBox, QComboBox]:
        return self.source_combo, self.baseline_combo, self.size_combo

    def view(self, source_of) -> ChartView:
        """The baseline, size and source as shown, for exports."""
        chart = self.chart
        return ChartView(chart.baseline, chart.size_key, chart.source, source_of)

    def refresh(self, shown, source_of, max_new: int | None = None) -> None:
        self.chart.results = shown
        self.chart.source_of = source_of
        self._fill_combos(keep=self.size_pinned)

    def new_run(self) -> None:
        self.size_pinned = False  # the chart follows the largest size again until the user picks one

    def set_four(self, four: bool) -> None:
        # A quarter of a projector's window: the chart alone, its title naming the baseline and the size (the
        # choices, elided to a quarter's width, could not be read, and the bars' rows were too thin for the
        # type); the "speedup" view alone has them
        self.choices.setVisible(not four)
        if self.chart.compact != four:
            self.chart.compact = four
            self.chart.set_results(self.chart.results)
        for combo in self.combos:
            # scaled, long session names and baselines elide instead of widening their quarter
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
                if four
                else QComboBox.SizeAdjustPolicy.AdjustToContentsOnFirstShow
            )
            combo.setMinimumContentsLength(8 if four else 0)
            combo.setSizePolicy(
                QSizePolicy.Policy.Expanding if four else QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed
            )

    def _fill_combos(self, keep: bool) -> None:
        chart = self.chart
        source = self.source_combo.currentData()
        size = self.size_combo.currentData() if keep else None
        for combo in (self.source_combo, self.size_combo):
            combo.blockSignals(True)
        self.source_combo.clear()
        for s in chart.sources():
            self.source_combo.addItem(source_label(s) or tr("live"), s)
        index = self.source_combo.findData(source)
        self.source_combo.setCurrentIndex(max(index, 0))
        chart.source = self.source_combo.currentData()
        chart.baseline = self.baseline_combo.currentData()
        self.size_combo.clear()
        for key in chart.sizes():
            self.size_combo.addItem(key_label(key), key)  # 8192³, as the charts' titles write it
        index = self.size_combo.findData(size) if size is not None else -1
        if index < 0:
            index = self.size_combo.findData(chart.default_key())
        self.size_combo.setCurrentIndex(index)
        for combo in (self.source_combo, self.size_combo):
            combo.blockSignals(False)
        chart.set_view(chart.baseline, self.size_combo.currentData(), chart.source)

    def on_choice(self, sender: QComboBox) -> None:
        # A size the user picks is kept, and so is the size shown when the baseline changes (the chart then
        # says which sizes have the new baseline); otherwise the chart follows the largest size with one.
        if sender is self.size_combo:
            self.size_pinned = True
        elif sender is self.source_combo:
            self.size_pinned = False
        self._fill_combos(keep=self.size_pinned or sender is self.baseline_combo)
