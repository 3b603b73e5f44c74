"""The last wave, before and after the small-size fix: gpu-cpasync-any at 1024³ in its default tiles (one block
per tile: part of one wave, most SMs idle), in the registry's fit (smaller tiles, K split) and in Stream-K, each
with its idle SM-time hatched and stated, on one time axis: in turn on one SMs × time chart (the Hardware tab's
view), or one above the other (`LastWaveStack`, the `last-wave` chart an export draws).

Recorded traces of the three builds are drawn where the workspace shows them (`benchmarks/traces_small.py` on a
GPU), else where the package ships them (assets/sessions/GPU-DATE-traces-small-1024.json.gz); otherwise the
model's (core/hardware/model_trace.py), labelled so: a teacher's laptop has no GPU. Which: core/hardware/fix_pick.py.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QLayout, QPushButton, QVBoxLayout, QWidget

from gemmviz.core.hardware.fix_pick import SIZE, Pick, Shown, pick_cases
from gemmviz.core.hardware.last_wave import busiest_first
from gemmviz.core.hardware.model_trace import FixCase, fix_messages, shipped_fix_session
from gemmviz.core.messages import render
from gemmviz.core.problem import Problem
from gemmviz.core.session.results import Result, Session
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.hardware.trace import COMPACT_LINES, SmTraceChart
from gemmviz.ui.text import tr
from gemmviz.ui.theme import LIGHT, Theme


def draw_case(chart: SmTraceChart, pick: Pick, s: Shown, name_recording: bool = False) -> None:
    """One case on `chart` as both the view and the export draw it: on the cases' shared time axis (named as the
    model's where it is, and with `name_recording` as the recording's: the Hardware tab draws H100 traces under an
    H200 session's banner; a slide's footer names it), SMs busiest first, its idle SM-time the one share stated
    (no "tail")."""
    chart.span_us = pick.span_us
    chart.time_words = model_time_words(pick) or (recorded_time_words(pick) if name_recording else None)
    chart.show_tail = False
    chart.sm_words = tr("SMs by load")
    chart.set_result(busiest_first_result(s.result), s.sms, s.case.launch.blocks_per_sm)


def busiest_first_result(r: Result) -> Result:
    """The result with its trace's SMs numbered busiest first (core/hardware/last_wave.busiest_first): the used
    SMs one band, the idle ones another, where the GPU spread the blocks over every other SM."""
    return replace(r, block_trace=busiest_first(r.block_trace).tolist()) if r.block_trace else r


def model_time_words(pick: Pick) -> str | None:
    """The time axis's name where the traces are the model's: its times assume every SM at its FP32 peak, so a
    case that fills more SMs looks much faster than it measures (an SM's lone block is far from its peak)."""
    return None if pick.recorded_on is not None else tr("model time (µs), not measured")


def recorded_time_words(pick: Pick) -> str | None:
    """The time axis's name with where the traces were recorded ("time (µs), recorded on H100, 2026-12-07")."""
    where = ", ".join(x for x in (pick.gpu_short, pick.origin[1]) if x)
    return tr("time (µs), recorded on {where}").format(where=where) if where else None


def case_label(case: FixCase) -> str:
    """A case in a few words, as its toggle and its chart in the export say it."""
    if case.launch.stream_k:
        return tr("Stream-K")
    if case.launch.split > 1:
        return tr("{tile} + split-K").format(tile=case.tile)
    return tr("{tile} tiles, one block each").format(tile=case.tile)


def pick_sentences(p: Problem, pick: Pick, lang: str) -> str:
    """The sentences beside the cases (core/hardware/model_trace.fix_messages), one paragraph each."""
    shown = [(s.case, s.last) for s in pick.shown]
    return "\n\n".join(render(m, lang) for m in fix_messages(p, shown, pick.recorded_on))


class LastWaveView(QWidget):
    """Before / after toggles over one SMs × time chart; `sentences()` says each case's figures."""

    def __init__(self, workspace: Workspace | None = None, theme: Theme = LIGHT, lang: str = "en", parent=None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.lang = lang
        self.problem = SIZE
        self.pick = Pick([])
        self._shipped: Session | None = None  # the shipped recording of the builds, if the package has one
        self._shipped_read = False
        # the traced results the pick was made of (held, so compared by identity)
        self._picked_from: list[Result] | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.buttons: list[QPushButton] = []
        for i in range(3):
            button = QPushButton()
            button.setCheckable(True)
            self.group.addButton(button, i)
            self.buttons.append(button)
            row.addWidget(button)
        layout.addLayout(row)
        self.chart = SmTraceChart(theme)
        self.chart.heading = ""  # the toggles name the case, the sentences the kernel and size: a short title
        layout.addWidget(self.chart, 1)
        self.apply_button_font(theme)
        self.group.idClicked.connect(self.show_case)
        self.buttons[0].setChecked(True)
        self.refresh()

    @property
    def shown(self) -> list[Shown]:
        return self.pick.shown

    @property
    def recorded(self) -> bool:
        return self.pick.recorded_on is not None

    @property
    def recorded_on(self) -> str | None:
        """The recording's GPU and date, where the traces are recorded."""
        return self.pick.recorded_on

    def refresh(self) -> None:
        """The cases (pick_cases) of the workspace's shown results, else the shipped recording, else the model."""
        results = [r for r in self.workspace.shown() if r.block_trace] if self.workspace is not None else []
        before = self._picked_from
        if before is not None and len(before) == len(results) and all(a is b for a, b in zip(before, results)):
            return  # the same traces as last time: the same cases (a workspace change elsewhere costs nothing)
        self._picked_from = results
        self.pick = pick_cases(self.problem, results, self._session_of, self._shipped_session)
        for button, s in zip(self.buttons, self.shown):
            button.setText(case_label(s.case))
        self.show_case(self.current())

    def _session_of(self, r: Result) -> Session | None:
        loaded = self.workspace.session_of(r) if self.workspace is not None else None
        return loaded.session if loaded is not None else None

    def _shipped_session(self) -> Session | None:
        """The package's recording of the builds, read once."""
        if not self._shipped_read:
            self._shipped, self._shipped_read = shipped_fix_session(self.problem), True
        return self._shipped

    def show_case(self, index: int) -> None:
        if not self.shown:
            return
        s = self.shown[index]
        self.buttons[index].setChecked(True)
        draw_case(self.chart, self.pick, s, name_recording=True)

    def current(self) -> int:
        return max(0, self.group.checkedId())

    def sentences(self) -> str:
        return pick_sentences(self.problem, self.pick, self.lang)

    def apply_theme(self, theme: Theme) -> None:
        self.chart.apply_theme(theme)
        self.apply_button_font(theme)

    def apply_button_font(self, theme: Theme) -> None:
        """The toggles in the charts' type: at a projector's size as readable as the axes."""
        for button in self.buttons:
            font = button.font()
            font.setPointSizeF(theme.font_pt)
            button.setFont(font)


class LastWaveStack(QWidget):
    """The three cases one above the other on one time axis, each chart headed by its case: the `last-wave`
    chart an export draws (a slide's before / after at a glance)."""

    def __init__(self, pick: Pick, theme: Theme = LIGHT, parent=None, one_line: bool = False) -> None:
        """`one_line`: each chart's title in one line, its case, blocks and idle SM-time (a slide's, whose words
        say the rest)."""
        super().__init__(parent)
        self.pick = pick
        self._layout = layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        # no minimum size pushed up to a window: shown alone offscreen (an export, a slide) the platform has no
        # size hints to take, and Qt's warning about that on stderr broke the CLI's one-line error contract
        layout.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        self.charts: list[SmTraceChart] = []
        for i, s in enumerate(pick.shown):
            chart = SmTraceChart(theme)
            chart.heading = case_label(s.case)
            chart.one_line = one_line
            chart.time_label = i == len(pick.shown) - 1  # one axis, named once under the lowest
            draw_case(chart, pick, s)
            layout.addWidget(chart, 1)
            self.charts.append(chart)

    def resizeEvent(self, event) -> None:
        """Every case's SMs the same height (the lowest's looked fewer): one choice of compact layout for all the
        charts (a chart alone would choose by its own height, and the lowest, taller, chose otherwise), and where
        they are compact the lowest taller by its time axis's name."""
        if self.charts:
            px = self.charts[-1].theme.font_pt * 96 / 72
            extra = 2.8 * px  # the lowest's time axis, numbers and name, against the others' bare line (_fit_rows)
            share = max(1.0, (event.size().height() - extra) / len(self.charts))
            compact = share < COMPACT_LINES * px
            for i, chart in enumerate(self.charts):
                lowest = compact and i == len(self.charts) - 1
                self._layout.setStretch(i, round(100 * (share + (extra if lowest else 0))))
                chart.set_compact(compact)
        super().resizeEvent(event)

    def origins(self) -> list[tuple[str | None, str, str]]:
        """Where the drawn traces came from, for the export's footer: the recording's GPU and date, or the model
        (not the session's the export was asked of: the traces may come from the shipped recording or none)."""
        return [self.pick.origin]
