"""The Charts tab: time, GFLOP/s, speedup (with its baseline, size and source) and the results table, and the
scheduler that redraws them while results stream in without freezing the window."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gemmviz.core.charts.kinds import ChartView
from gemmviz.core.charts.style import PRESETS, hidden_for, registry_series
from gemmviz.core.session.results import Result
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.charts import kinds as chart_kinds
from gemmviz.ui.charts.panels import ChartPanel, SpeedupPanel
from gemmviz.ui.charts.table import ResultsTable
from gemmviz.ui.follow import WorkspaceFollower
from gemmviz.ui.text import QT_TRANSLATE_NOOP, tr
from gemmviz.ui.theme import Theme

ALL = "all four"
ALL_FOUR_SCALE = 0.6  # of the theme's sizes, for each of the four panels (20 pt -> 12 pt) in a 720p window
ALL_FOUR_SCALE_1080 = 1.0  # in a window of 1080 rows four panels fit the theme's own type: 24 px at 1080p
ALL_FOUR_ROWS_1080 = 1000  # a window this tall or taller gets ALL_FOUR_SCALE_1080
ALL_FOUR_MIN_PT = 10  # the app's normal type: "all four" never scales below it
TWO_SCALE = 0.8  # of the theme's sizes, for each of the two charts the overview draws in a short projector window
TABLE = "table"  # the results table, shown after the registry's charts
# the "show" choices and the presets (core/charts/style.PRESETS) as the window names them: keys are the data, tr() the text
SHOWN_NAMES = (QT_TRANSLATE_NOOP("", "all four"), QT_TRANSLATE_NOOP("", "two charts"), QT_TRANSLATE_NOOP("", "table"), QT_TRANSLATE_NOOP("", "seed kernels"),
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
        # panels the "show" choice hides, not redrawn since the workspace changed: each is drawn when shown (or
        # asked for by name), so a run streaming in or a session opened redraws only the charts on screen
        self.stale: set[str] = set()
        # always followed, hidden or not: the table is the selection's source and the charts are exported as shown
        self.follower = WorkspaceFollower(self, workspace)
        self.follower.connect(workspace.events.shown_changed, self._on_shown_changed)
        self.stopped = False
        layout = QVBoxLayout(self)
        show_row = QHBoxLayout()
        self.show_combo = QComboBox()
        self.show_combo.setToolTip(tr("One chart at a time reads better on a projector"))
        show_row.addWidget(QLabel(tr("show")))
        show_row.addWidget(self.show_combo)
        show_row.addSpacing(16)
        show_row.addWidget(QLabel(tr("series")))
        self.preset_buttons: dict[str, QPushButton] = {}
        for name in PRESETS:
            button = QPushButton(tr(name))
            button.setToolTip(
                tr(
                    "Show the {name} series, in live results and loaded sessions alike "
                    "(click a legend entry to show or hide one series)"
                ).format(name=tr(name))
            )
            button.clicked.connect(lambda _checked=False, n=name: self.apply_preset(n))
            show_row.addWidget(button)
            self.preset_buttons[name] = button
        show_row.addStretch()
        layout.addLayout(show_row)
        self.grid_host = grid_host = QWidget()
        self.grid_layout = grid = QGridLayout(grid_host)
        grid.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(grid_host, 1)
        # the registry's panel kinds (ui/charts/kinds/) by name, then the table, row by row in two columns
        shown = chart_kinds.panels()
        self.panels: dict[str, ChartPanel] = {kind.name: kind.make_panel(theme) for kind in shown}
        for panel in self.panels.values():
            panel.chart.seriesToggled.connect(self.toggle_series)
        self.table = ResultsTable(gpu_of=workspace.gpu_entry)
        # the overview's panels and the table, row by row; a panel not in it after them (shown alone, by its choice)
        self.overview = [kind.name for kind in shown if kind.overview]
        # a projector's short window: the overview's panels marked overview_short, one row, no table
        self.overview_short = [kind.name for kind in shown if kind.overview and kind.overview_short]
        self.placed: tuple[str, ...] = ()
        self._place(self.overview)
        rows = -(-(len(self.overview) + 1) // 2)
        for name in self.panels:
            if name not in self.overview:  # shown alone: the whole grid, no row of its own in the overview
                grid.addWidget(self.panels[name].widget, 0, 0, rows, 2)
                self.panels[name].widget.setVisible(False)  # the first choice is the overview
        for key, label in ((ALL, ALL), *((kind.name, kind.tab_label or kind.name) for kind in shown), (TABLE, TABLE)):
            self.show_combo.addItem(tr(label), key)
        self.show_combo.currentIndexChanged.connect(lambda _i: self._show(self.show_combo.currentData()))

    def _place(self, names: list[str]) -> None:
        """The overview's panels `names` (and the table, unless it is the short overview) in the grid, row by
        row in two columns."""
        if tuple(names) == self.placed:
            return
        grid = self.grid_layout
        widgets = [self.panels[n].widget for n in names]
        if names == self.overview:
            widgets.append(self.table)
        for i, widget in enumerate(widgets):
            grid.addWidget(widget, i // 2, i % 2)  # added again: moved to its new cell
        self.placed = tuple(names)

    def short(self) -> bool:
        """Projector type in a window shorter than 1080 rows (1280×720): the overview is two charts."""
        return self.theme.font_pt > ALL_FOUR_MIN_PT and self.window().height() < ALL_FOUR_ROWS_1080

    def overview_now(self) -> list[str]:
        """The panels the overview choice draws now: all of the overview's, or the short overview's two."""
        return self.overview_short if self.short() and self.overview_short else self.overview

    def panel_chart(self, key: str):
        """The chart of the kind called `key` ("time", "gflops", "speedup"), if the tab has its panel, drawn with
        what the workspace shows (a hidden panel is brought up to date first)."""
        panel = self.panels.get(key)
        if panel is None:
            return None
        self._catch_up([key])
        return panel.chart

    @property
    def time_chart(self):
        return self.panel_chart("time")

    @property
    def gflops_chart(self):
        return self.panel_chart("gflops")

    @property
    def speedup_chart(self):
        return self.panel_chart("speedup")

    @property
    def baseline_combo(self) -> QComboBox:
        self._catch_up(["speedup"])
        panel = self.panels["speedup"]
        assert isinstance(panel, SpeedupPanel), "the speedup kind's panel has its choices"
        return panel.baseline_combo

    @property
    def charts(self) -> tuple:
        """Every panel's chart, each drawn with what the workspace shows."""
        self._catch_up(list(self.panels))
        return tuple(panel.chart for panel in self.panels.values())

    def first_view(self, small: bool) -> None:
        """What a first start without a GPU shows: the seed's kernels (not all 22 replayed series) and, on a
        small screen such as a 1280×720 projector, one chart (GFLOP/s) instead of four."""
        self.apply_preset("seed kernels")
        if small and self.show_combo.currentData() == ALL:
            self.show_combo.setCurrentIndex(self.show_combo.findData("gflops"))

    def _show(self, choice: str) -> None:
        overview = self.overview_now()
        self._place(overview)
        for name, panel in self.panels.items():
            panel.widget.setVisible(self._shows(choice, name))
        self._catch_up([name for name in self.panels if self._shows(choice, name)])
        self.table.setVisible(choice == TABLE or (choice == ALL and overview == self.overview))
        index = self.show_combo.findData(ALL)
        label = tr("all four") if overview == self.overview else tr("two charts")
        if self.show_combo.itemText(index) != label:
            self.show_combo.setItemText(index, label)
        self._scale_panels()

    def _shows(self, choice: str, name: str) -> bool:
        """Whether the "show" choice draws the panel `name`: its own choice, or the overview it is part of."""
        return choice == name or (choice == ALL and name in self.overview_now())

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.chart_themes = {}  # redraw with it even where the scale stays
        if self.show_combo.currentData() is not None:
            self._show(self.show_combo.currentData())  # projector type in a short window: two charts, not four
        else:
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
        for name, panel in self.panels.items():
            if self._shows(choice, name) and self.chart_themes.get(panel.chart) != theme:
                self.chart_themes[panel.chart] = theme
                panel.chart.apply_theme(theme)
            panel.set_four(four)
        grid = self.grid_layout
        used = -(-(len(self.placed) + (self.placed == tuple(self.overview))) // 2)  # rows the overview fills
        for i in range(grid.rowCount()):  # scaled, equal quarters, whatever their contents' sizes ask
            grid.setRowStretch(i, int(four and i < used))
        for i in range(grid.columnCount()):
            grid.setColumnStretch(i, int(four))
        font = QFont(self.font())
        if four:
            font.setPointSizeF(max(ALL_FOUR_MIN_PT, theme.font_pt))
            self.grid_host.setFont(font)
        else:
            self.grid_host.setFont(QFont())  # the window's font again (projector mode sets the app's)
        self.table.fit_columns()  # for the table's new type

    def _four_scale(self) -> float:
        if self.window().height() >= ALL_FOUR_ROWS_1080:
            return ALL_FOUR_SCALE_1080
        return TWO_SCALE if self.overview_now() != self.overview else ALL_FOUR_SCALE

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.show_combo.currentData() != ALL or self.theme.font_pt <= ALL_FOUR_MIN_PT:
            return
        first = self.panels[self.overview_now()[0]].chart
        if tuple(self.overview_now()) != self.placed:
            self._show(ALL)  # the window crossed 1080 rows: four charts or two
        elif self.chart_themes.get(first) != self.theme.scaled(self._four_scale()):
            self._scale_panels()  # the quarters' type follows

    def chart_view(self) -> ChartView:
        """How the tab shows the results (the speedup panel's choices), for an export of any kind."""
        panel = self.panels.get("speedup")
        source_of = self.workspace.source_of
        if not isinstance(panel, SpeedupPanel):
            return ChartView(source_of=source_of)
        self._catch_up(["speedup"])  # its choices follow what is shown, hidden or not
        return panel.view(source_of)

    # ---- which series are shown ---------------------------------------------------------------------
    def toggle_series(self, series: str) -> None:
        """Show a hidden series or hide a shown one (a legend click), in every chart and tab."""
        self.workspace.hidden ^= {series}  # announced: every view redraws

    def apply_preset(self, preset: str) -> None:
        """Show only the preset's series ("seed kernels", "ladder", "all"), loaded sessions included, and those
        of a session opened after it (so a preset chosen before the first session is drawn holds for it)."""
        self.workspace.set_hidden(hidden_for(preset, [*self.workspace.series(), *registry_series()]))

    def _set_hidden_series(self) -> None:
        hidden = [s for s in self.workspace.series() if s in self.workspace.hidden]
        for panel in self.panels.values():
            panel.chart.hidden_series = hidden

    def _drawn_now(self) -> list[str]:
        """The panels a redraw draws now: those the "show" choice puts on screen (the others go stale, and are
        drawn when shown); all of them before the choice exists."""
        choice = self.show_combo.currentData()
        names = [name for name in self.panels if choice is None or self._shows(choice, name)]
        self.stale = set(self.panels) - set(names)
        return names

    def _draw(self, names: list[str]) -> tuple[list[Result], Callable[[Result], str]]:
        """Redraw the panels `names` from what the workspace shows; returns that (the shown results, their sources)."""
        shown, source_of = self.workspace.shown(), self.workspace.source_of
        self._set_hidden_series()
        for name in names:
            self.panels[name].refresh(chart_kinds.drawn(name, shown), source_of)  # the kind's own filter
        return shown, source_of

    def _catch_up(self, names: list[str]) -> None:
        """Draw the stale panels among `names`."""
        due = [name for name in names if name in self.stale]
        if due:
            self.stale -= set(due)
            self._draw(due)

    # ---- redrawing ------------------------------------------------------------------------------------
    def _on_shown_changed(self, appended: bool) -> None:
        """Results streaming in from a run: a staged redraw, a few a second; anything else (a session opened or
        closed, a series shown or hidden): at once."""
        if appended:
            self.schedule_refresh()
        else:
            self.refresh()

    def refresh(self) -> None:
        """Redraw everything now (after opening or closing a session, a theme change): the panels on screen and
        the table (the others when shown)."""
        self.table.set_results(*self._draw(self._drawn_now()))

    def new_run(self) -> None:
        """A run starts: the speedup chart follows the largest size again until the user picks one."""
        for panel in self.panels.values():
            panel.new_run()

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
        def redraw(name: str) -> Callable[[], object]:
            return lambda: self.panels[name].refresh(chart_kinds.drawn(name, shown), source_of, max_new=2)

        steps: list[Callable[[], object]] = [
            *(redraw(name) for name in self._drawn_now()),
            lambda: self.table.set_results(shown, source_of),
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
