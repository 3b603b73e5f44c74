"""Two kernels' blocks side by side, in lockstep (core/schedule/lockstep.py), each drawn by its own renderer with its
own counters: the lesson's "side" view and the Tiling tab's "beside" choice. The frame given is the leading
schedule's (the one with more steps); the other shows the step at the same progress along K."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QHBoxLayout, QWidget

from gemmviz.core.schedule.block import block_schedule, grid_and_threads
from gemmviz.core.schedule.lockstep import follower_step, leader_first
from gemmviz.core.schedule.records import Schedule
from gemmviz.ui.theme import LIGHT, Theme
from gemmviz.ui.tiling.render import FrameState, render_frame

GAP = 0.012  # of the width, between the two pictures (a rule is drawn in it)


def pair_schedules(a) -> tuple[Schedule, Schedule]:
    """The step's kernel and its `versus`, at the same size; the second's block is the same one where its
    grid has it (the last one in each direction otherwise)."""
    first = block_schedule(a.variant, a.problem, a.tile, a.block, a.bounds)
    variant, tile = a.versus
    (gy, gx), _threads = grid_and_threads(variant, a.problem, tile)
    block = (min(a.block[0], gy - 1), min(a.block[1], gx - 1))
    return first, block_schedule(variant, a.problem, tile, block)


def leader(first: Schedule, second: Schedule) -> Schedule:
    return first if leader_first(first, second) else second


def pair_states(first: Schedule, second: Schedule, state: FrameState) -> tuple[FrameState, FrameState]:
    """(first's frame, second's frame) for the leader's `state` (its glide phase goes to the leader only), each
    with the compact counters of half a view."""
    if leader_first(first, second):
        lead, other = (
            replace(state, schedule=first, compact=True),
            FrameState(second, follower_step(first, second, state.step), compact=True),
        )
        return lead, other
    return FrameState(first, follower_step(second, first, state.step), compact=True), replace(
        state, schedule=second, compact=True
    )


class SideBySide(QWidget):
    """The lesson's "side" view: two TilingViews following one frame of the leading schedule."""

    def __init__(self, first: Schedule, second: Schedule, theme: Theme = LIGHT, parent=None):
        super().__init__(parent)
        from gemmviz.ui.tiling.widgets import TilingView

        self.first, self.second = first, second
        self.left, self.right = TilingView(theme), TilingView(theme)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for view in (self.left, self.right):
            view.setMinimumSize(0, 0)
            layout.addWidget(view, 1)
        self.state: FrameState | None = None

    def set_state(self, state: FrameState | None) -> None:
        self.state = state
        if state is None:
            return
        a, b = pair_states(self.first, self.second, state)
        self.left.set_state(a)
        self.right.set_state(b)


def paint_side(
    painter: QPainter, rect: QRectF, pair: tuple[Schedule, Schedule], state: FrameState, theme: Theme, background_of
) -> list:
    """Both pictures into `rect`, halves of it, a thin rule between them; the texts drawn, with their boxes."""
    a, b = pair_states(*pair, state)
    gap = rect.width() * GAP
    half = (rect.width() - gap) / 2
    texts: list = []
    for x, frame in ((rect.left(), a), (rect.left() + half + gap, b)):
        painter.save()
        painter.translate(x, rect.top())
        painter.setClipRect(QRectF(0, 0, half, rect.height()))
        drawn: list = []
        render_frame(painter, int(half), int(rect.height()), frame, theme, background_of(), drawn)
        painter.restore()
        texts += [(text, box.translated(x, rect.top())) for text, box in drawn]
    pen = QPen(QColor(theme.foreground))
    pen.setWidthF(max(1.0, theme.line_px / 2))
    painter.setPen(pen)
    mid = rect.left() + half + gap / 2
    painter.drawLine(int(mid), int(rect.top()), int(mid), int(rect.bottom()))
    return texts
