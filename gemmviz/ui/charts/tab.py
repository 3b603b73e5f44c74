"""The Charts tab: time, GFLOP/s, speedup (with its baseline, size and source) and the results table, and the
scheduler that redraws them while results stream in without freezing the window."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gemmviz.core.style import PRESETS, hidden_for
from gemmviz.core.variants import BASELINES
from gemmviz.core.workspace import Workspace
from gemmviz.ui.charts.base import source_label
from gemmviz.ui.charts.plots import DEFAULT_BASELINE, GflopsChart, SpeedupChart, TimeChart
from gemmviz.ui.charts.table import ResultsTable
from gemmviz.ui.text import QT_TRANSLATE_NOOP, tr
from gemmviz.ui.theme import Theme

ALL = "all four"
ALL_FOUR_SCALE = 0.6  # of the theme's sizes, for each of the four panels (20 pt -> 12 pt) in a 720p window
ALL_FOUR_SCALE_1080 = 1.0  # in a window of 1080 rows four panels fit the theme's own type: 24 px at 1080p
ALL_FOUR_ROWS_1080 = 1000  # a window this tall or taller gets ALL_FOUR_SCALE_1080
ALL_FOUR_MIN_PT = 10  # the app's normal type: "all four" never scales below it
PANELS = ("time", "GFLOP/s", "speedup", "table")
# the "show" choices and the presets (core/style.PRESETS) as the window names them: keys are the data, tr() the text
SHOWN_NAMES = (QT_TRANSLATE_NOOP("", "all four"), QT_TRANSLATE_NOOP("", "table"), QT_TRANSLATE_NOOP("", "seed kernels"),
               QT_TRANSLATE_NOOP("", "ladder"), QT_TRANSLATE_NOOP("", "all"))  # fmt: skip
REFRESH_MS = 150  # at most a few redraws a second while a sweep streams results in
STEP_MS = 20  # between the steps of one redraw: painting, input and timers get a turn


class ChartsTab(QWidget):
    refreshed = Signal()  # a staged redraw finished: other views may redraw too

    def __init__(self, workspace: Workspace, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.workspace = workspace
        self.theme = theme
        self.chart_themes: dict = {}  # chart -> the theme it was last drawn with (hidden charts catch up when shown)
        self.refresh_pending = False
        self.refresh_dirty = False
        workspace.events.shown_changed.connect(self._on_shown_changed)
        self.stopped = False
        self.speedup_size_pinned = False
        layout = QVBoxLayout(self)
        show_row = QHBoxLayout()
        self.show_combo = QComboBox()
        for key in (ALL, *PANELS):
            self.show_combo.addItem(tr(key), key)
        self.show_combo.setToolTip(tr("One chart at a time reads better on a projector"))
        show_row.addWidget(QLabel(tr("show")))
        show_row.addWidget(self.show_combo)
        show_row.addSpacing(16)
        show_row.addWidget(QLabel(tr("series")))
        self.preset_buttons: dict[str, QPushButton] = {}
        for name in PRESETS:
            button = QPushButton(tr(name))
            button.setToolTip(tr("Show the {name} series, in live results and loaded sessions alike "
                                 "(click a legend entry to show or hide one series)").format(name=tr(name)))  # fmt: skip
            button.clicked.connect(lambda _checked=False, n=name: self.apply_preset(n))
            show_row.addWidget(button)
            self.preset_buttons[name] = button
        show_row.addStretch()
        layout.addLayout(show_row)
        self.grid_host = grid_host = QWidget()
        grid = QGridLayout(grid_host)
        grid.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(grid_host, 1)
        self.time_chart = TimeChart(theme)
        self.gflops_chart = GflopsChart(theme)
        self.speedup_chart = SpeedupChart(theme)
        speed_panel = QWidget()
        speed_layout = QVBoxLayout(speed_panel)
        speed_layout.setContentsMargins(0, 0, 0, 0)
        choose = QHBoxLayout()
        self.baseline_combo = QComboBox()
        for b in BASELINES:
            self.baseline_combo.addItem(tr(b.label), b.key)
        self.baseline_combo.setCurrentIndex(self.baseline_combo.findData(DEFAULT_BASELINE))
        self.speedup_size_combo = QComboBox()
        self.speedup_source_combo = QComboBox()
        for w in (self.speedup_source_combo, QLabel(tr("vs")), self.baseline_combo, QLabel(tr("at")), self.speedup_size_combo):
            choose.addWidget(w)
        choose.addStretch()
        speed_layout.addLayout(choose)
        speed_layout.addWidget(self.speedup_chart)
        for chart in self.charts:
            chart.seriesToggled.connect(self.toggle_series)
        self.table = ResultsTable()
        grid.addWidget(self.time_chart, 0, 0)
        grid.addWidget(self.gflops_chart, 0, 1)
        grid.addWidget(speed_panel, 1, 0)
        grid.addWidget(self.table, 1, 1)

        self.panels = dict(zip(PANELS, (self.time_chart, self.gflops_chart, speed_panel, self.table)))
        self.show_combo.currentIndexChanged.connect(lambda _i: self._show(self.show_combo.currentData()))
        self.baseline_combo.currentIndexChanged.connect(self._on_speedup_choice)
        self.speedup_size_combo.currentIndexChanged.connect(self._on_speedup_choice)
        self.speedup_source_combo.currentIndexChanged.connect(self._on_speedup_choice)

    @property
    def charts(self) -> tuple:
        return self.time_chart, self.gflops_chart, self.speedup_chart

    def first_view(self, small: bool) -> None:
        """What a first start without a GPU shows: the seed's kernels (not all 22 replayed series) and, on a
        small screen such as a 1280×720 projector, one chart (GFLOP/s) instead of four."""
        self.apply_preset("seed kernels")
        if small and self.show_combo.currentData() == ALL:
            self.show_combo.setCurrentIndex(self.show_combo.findData("GFLOP/s"))

    def _show(self, choice: str) -> None:
        for name, panel in self.panels.items():
            panel.setVisible(choice in (ALL, name))
        self._scale_panels()

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.chart_themes = {}  # redraw with it even where the scale stays
        self._scale_panels()

    def _scale_panels(self) -> None:
        """All four panels share the view: their charts' type, lines and the table's text are scaled down with
        their quarter of it where the theme's type is larger than the app's normal (a projector's 20 pt
        clipped the charts' labels and left the table one column); one panel alone gets the theme's size.
        Only the charts on screen are redrawn in it now (a chart's restyle is its full redraw, ~0.1 s at 22
        series); a hidden one is when the "show" choice brings it back."""
        choice = self.show_combo.currentData()  # the key, whatever the language
        four = choice == ALL and self.theme.font_pt > ALL_FOUR_MIN_PT
        theme = self.theme.scaled(self._four_scale()) if four else self.theme
        for name, chart in zip(PANELS, self.charts):
            if choice in (ALL, name) and self.chart_themes.get(chart) != theme:
                self.chart_themes[chart] = theme
                chart.apply_theme(theme)
        grid = self.grid_host.layout()
        for i in (0, 1):  # scaled, four equal quarters, whatever their contents' sizes ask
            grid.setColumnStretch(i, int(four))
            grid.setRowStretch(i, int(four))
        for combo in (self.speedup_source_combo, self.baseline_combo, self.speedup_size_combo):
            # scaled, long session names and baselines elide instead of widening their quarter
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon if four
                                      else QComboBox.SizeAdjustPolicy.AdjustToContentsOnFirstShow)  # fmt: skip
            combo.setMinimumContentsLength(8 if four else 0)
            combo.setSizePolicy(QSizePolicy.Policy.Expanding if four else QSizePolicy.Policy.Preferred,
                                QSizePolicy.Policy.Fixed)  # fmt: skip
        font = QFont(self.font())
        if four:
            font.setPointSizeF(max(ALL_FOUR_MIN_PT, theme.font_pt))
            self.grid_host.setFont(font)
        else:
            self.grid_host.setFont(QFont())  # the window's font again (projector mode sets the app's)
        self.table.resizeColumnsToContents()  # for the table's new type

    def _four_scale(self) -> float:
        return ALL_FOUR_SCALE_1080 if self.window().height() >= ALL_FOUR_ROWS_1080 else ALL_FOUR_SCALE

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        four = self.show_combo.currentData() == ALL and self.theme.font_pt > ALL_FOUR_MIN_PT
        if four and self.chart_themes.get(self.time_chart) != self.theme.scaled(self._four_scale()):
            self._scale_panels()  # the window crossed 1080 rows: the quarters' type follows

    def speedup_view(self) -> tuple[str, str | None, str | None]:
        """(baseline key, size key, source) as shown, for exports."""
        chart = self.speedup_chart
        return chart.baseline, chart.size_key, chart.source

    # ---- which series are shown ---------------------------------------------------------------------
    def toggle_series(self, series: str) -> None:
        """Show a hidden series or hide a shown one (a legend click), in every chart and tab."""
        self.workspace.hidden ^= {series}  # announced: every view redraws

    def apply_preset(self, preset: str) -> None:
        """Show only the preset's series ("seed kernels", "ladder", "all"), loaded sessions included."""
        self.workspace.set_hidden(hidden_for(preset, self.workspace.series()))

    def _set_hidden_series(self) -> None:
        hidden = [s for s in self.workspace.series() if s in self.workspace.hidden]
        for chart in self.charts:
            chart.hidden_series = hidden

    # ---- redrawing ------------------------------------------------------------------------------------
    def _on_shown_changed(self, appended: bool) -> None:
        """Results streaming in from a run: a staged redraw, a few a second; anything else (a session opened or
        closed, a series shown or hidden): at once."""
        if appended:
            self.schedule_refresh()
        else:
            self.refresh()

    def refresh(self) -> None:
        """Redraw everything now (after opening or closing a session, a theme change)."""
        shown, source_of = self.workspace.shown(), self.workspace.source_of
        self._set_hidden_series()
        self.time_chart.set_results(shown, source_of=source_of)
        self.gflops_chart.set_results(shown, source_of=source_of)
        self.table.set_results(shown, source_of)
        self._set_speedup_results(shown)

    def new_run(self) -> None:
        """A run starts: the speedup chart follows the largest size again until the user picks one."""
        self.speedup_size_pinned = False

    def schedule_refresh(self) -> None:
        """Redraw soon, at most a few times a second, one chart per event-loop turn, so a burst of
        results never freezes the window (each step is a few tens of ms)."""
        self.refresh_dirty = True
        if self.refresh_pending:
            return  # the staged refresh under way sees the flag and goes round once more
        self.refresh_pending = True
        QTimer.singleShot(REFRESH_MS, self._staged_refresh)

    def stop(self) -> None:
        """No more redraws (the window is closing); timers already queued find nothing to do."""
        self.stopped = True

    def _staged_refresh(self) -> None:
        self.refresh_dirty = False
        shown, source_of = self.workspace.shown(), self.workspace.source_of
        self._set_hidden_series()
        # A chart that gains many series at once creates two per step and is called again until complete.
        steps = [
            lambda: self.time_chart.set_results(shown, max_new=2, source_of=source_of),
            lambda: self.gflops_chart.set_results(shown, max_new=2, source_of=source_of),
            lambda: self.table.set_results(shown, source_of),
            lambda: self._set_speedup_results(shown),
            self.refreshed.emit,
        ]

        def run(i: int) -> None:
            if self.stopped:
                self.refresh_pending = False
                return
            if steps[i]() is False:
                QTimer.singleShot(STEP_MS, lambda: run(i))
                return
            if i + 1 < len(steps):
                QTimer.singleShot(STEP_MS, lambda: run(i + 1))
            elif self.refresh_dirty:
                QTimer.singleShot(REFRESH_MS, self._staged_refresh)
            else:
                self.refresh_pending = False

        run(0)

    # ---- the speedup chart's choices ------------------------------------------------------------------
    def _set_speedup_results(self, shown) -> None:
        self.speedup_chart.results = shown
        self.speedup_chart.source_of = self.workspace.source_of
        self._fill_speedup_combos(keep=self.speedup_size_pinned)

    def _fill_speedup_combos(self, keep: bool) -> None:
        chart = self.speedup_chart
        source = self.speedup_source_combo.currentData()
        size = self.speedup_size_combo.currentData() if keep else None
        for combo in (self.speedup_source_combo, self.speedup_size_combo):
            combo.blockSignals(True)
        self.speedup_source_combo.clear()
        for s in chart.sources():
            self.speedup_source_combo.addItem(source_label(s) or tr("live"), s)
        index = self.speedup_source_combo.findData(source)
        self.speedup_source_combo.setCurrentIndex(max(index, 0))
        chart.source = self.speedup_source_combo.currentData()
        chart.baseline = self.baseline_combo.currentData()
        self.speedup_size_combo.clear()
        for key in chart.sizes():
            self.speedup_size_combo.addItem(key.replace("x", "×"), key)
        index = self.speedup_size_combo.findData(size) if size is not None else -1
        if index < 0:
            index = self.speedup_size_combo.findData(chart.default_key())
        self.speedup_size_combo.setCurrentIndex(index)
        for combo in (self.speedup_source_combo, self.speedup_size_combo):
            combo.blockSignals(False)
        chart.set_view(chart.baseline, self.speedup_size_combo.currentData(), chart.source)

    def _on_speedup_choice(self, *_args) -> None:
        # A size the user picks is kept, and so is the size shown when the baseline changes (the chart then
        # says which sizes have the new baseline); otherwise the chart follows the largest size with one.
        sender = self.sender()
        if sender is self.speedup_size_combo:
            self.speedup_size_pinned = True
        elif sender is self.speedup_source_combo:
            self.speedup_size_pinned = False
        keep = self.speedup_size_pinned or sender is self.baseline_combo
        self._fill_speedup_combos(keep=keep)
