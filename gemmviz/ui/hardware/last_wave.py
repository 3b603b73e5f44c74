"""The last wave, before and after the small-size fix: gpu-cpasync-any at 1024³ in its default tiles (one block
per tile: part of one wave, most SMs idle), in the registry's fit (smaller tiles, K split) and in Stream-K, shown
in turn on one SMs × time chart whose time axis they share, each with its idle SM-time hatched and stated.

Recorded traces of the three builds are drawn where the workspace shows them (`benchmarks/traces_small.py` on a
GPU), else where the package ships them (assets/sessions/GPU-DATE-traces-small-1024.json.gz); otherwise the
model's (core/hardware/model_trace.py), labelled so: a teacher's laptop has no GPU.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from gemmviz.core.hardware.last_wave import LastWave, last_wave
from gemmviz.core.hardware.model_trace import (
    VARIANT,
    FixCase,
    fix_messages,
    model_result,
    shipped_fix_session,
    small_size_fix,
)
from gemmviz.core.messages import render
from gemmviz.core.problem import Problem
from gemmviz.core.session.results import Result, Session
from gemmviz.core.session.workspace import Workspace, session_gpu
from gemmviz.ui.hardware.trace import SmTraceChart
from gemmviz.ui.text import tr
from gemmviz.ui.theme import LIGHT, Theme

SIZE = Problem(1024, 1024, 1024)  # the small size: 128×128 tiles fill under half of 132 SMs
MODEL_SMS = 132  # the H100's and H200's SMs: the GPUs the fix was measured on


def session_sms(session: Session) -> int | None:
    """The SMs of the GPU a session was recorded on, where it says."""
    sms = session.environment.get("backends", {}).get("cuda", {}).get("sms")
    return sms if isinstance(sms, int) and sms > 0 else None


@dataclass(frozen=True)
class Shown:
    """One case as the view draws it: its trace's Result (recorded or the model's), the SMs and occupancy."""

    case: FixCase
    result: Result
    sms: int
    last: LastWave


def recorded_match(case: FixCase, results: list[Result], p: Problem) -> Result | None:
    """A recorded, valid, traced result of this case's build at `p`: its tiles, its schedule and as many
    blocks as the case launches (which tells the split of K)."""
    for r in results:
        if r.variant != VARIANT or r.problem != p or not r.valid or not r.block_trace:
            continue
        c = r.config
        same = (c.get("BM"), c.get("BN"), c.get("SCHED", 0)) == (
            case.config["BM"],
            case.config["BN"],
            case.config.get("SCHED", 0),
        )
        if same and len(r.block_trace) == case.launch.grid:
            return r
    return None


class LastWaveView(QWidget):
    """Before / after toggles over one SMs × time chart; `sentences()` says each case's figures."""

    def __init__(self, workspace: Workspace | None = None, theme: Theme = LIGHT, lang: str = "en", parent=None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.lang = lang
        self.problem = SIZE
        self.shown: list[Shown] = []
        self.recorded = False
        self.recorded_on: str | None = None  # the recording's GPU and date, where the traces are recorded
        self._shipped: Session | None = None  # the shipped recording of the builds, if the package has one
        self._shipped_read = False
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
        layout.addWidget(self.chart, 1)
        self.apply_button_font(theme)
        self.group.idClicked.connect(self.show_case)
        self.buttons[0].setChecked(True)
        self.refresh()

    def refresh(self) -> None:
        """The cases: recorded where the workspace shows all three builds' traces, else where the package ships
        a recording of them, else the model's (recorded and model traces are never mixed: like with like)."""
        cases = small_size_fix(self.problem, MODEL_SMS)
        found, session = self._recorded(cases)
        self.recorded = session is not None
        self.recorded_on = None
        if session is not None:
            self.recorded_on = f"{session_gpu(session) or '?'}, {(session.created or '')[:10]}".rstrip(", ")
        sms = (session_sms(session) if session is not None else None) or MODEL_SMS
        shown = []
        for case, r in zip(cases, found):
            result = r if r is not None else model_result(self.problem, case)
            case_sms = sms if r is not None else MODEL_SMS
            trace = result.block_trace or []
            shown.append(Shown(case, result, case_sms, last_wave(trace, case_sms, case.launch.blocks_per_sm)))
        self.shown = shown
        self.chart.span_us = max(s.last.duration_ns for s in shown) / 1e3
        for button, s in zip(self.buttons, shown):
            button.setText(self._label(s.case))
        self.show_case(max(0, self.group.checkedId()))

    def _recorded(self, cases: list[FixCase]) -> tuple[list[Result | None], Session | None]:
        """Each case's recorded result and the session they came from: the workspace's shown results, else the
        shipped recording (read once); all None and None where either lacks a case."""
        if self.workspace is not None:
            results = [r for r in self.workspace.shown() if r.block_trace]
            found = [recorded_match(case, results, self.problem) for case in cases]
            first = found[0]
            if first is not None and all(r is not None for r in found):
                loaded = self.workspace.session_of(first)
                return found, loaded.session if loaded is not None else Session(results=results)
        if not self._shipped_read:
            self._shipped, self._shipped_read = shipped_fix_session(self.problem), True
        if self._shipped is not None:
            found = [recorded_match(case, self._shipped.results, self.problem) for case in cases]
            if all(r is not None for r in found):
                return found, self._shipped
        return [None] * len(cases), None

    @staticmethod
    def _label(case: FixCase) -> str:
        if case.launch.stream_k:
            return tr("Stream-K")
        if case.launch.split > 1:
            return tr("After: {tile} + split-K").format(tile=case.tile)
        return tr("Before: {tile} tiles").format(tile=case.tile)

    def show_case(self, index: int) -> None:
        if not self.shown:
            return
        s = self.shown[index]
        self.buttons[index].setChecked(True)
        self.chart.set_result(s.result, s.sms, s.case.launch.blocks_per_sm)

    def current(self) -> int:
        return max(0, self.group.checkedId())

    def sentences(self) -> str:
        shown = [(s.case, s.last) for s in self.shown]
        return "\n\n".join(render(m, self.lang) for m in fix_messages(self.problem, shown, self.recorded_on))

    def apply_theme(self, theme: Theme) -> None:
        self.chart.apply_theme(theme)
        self.apply_button_font(theme)

    def apply_button_font(self, theme: Theme) -> None:
        """The toggles in the charts' type: at a projector's size as readable as the axes."""
        for button in self.buttons:
            font = button.font()
            font.setPointSizeF(theme.font_pt)
            button.setFont(font)
