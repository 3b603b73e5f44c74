"""The drawing of each kind of lesson view, registered under the name its Qt-free part has in
`core/lesson/views.py`: the live widget lesson mode shows under the words (ui/lesson/mode.py) and the
painting of it on a slide (ui/lesson/render.py, PNG and PDF). Neither of those modules names a view.

A view is a subclass of `LessonViewUi` with `@register_ui("name")`: `widget(ctx)` builds the live widget
(None: nothing under the words), `paint(painter, rect, ctx)` draws it into `rect` of a slide and returns the
texts it drew that the slide's layout tests should see. The default `paint` lays the widget out offscreen
and paints its charts, which serves every pyqtgraph chart. A new view's drawing is a module of its own,
`gemmviz/ui/lesson/view_NAME.py`, imported by `ui_view(NAME)` the first time the view is drawn.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol, cast

from PySide6.QtCore import QRect, QRectF
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import QWidget

from gemmviz.core.fileio import FileMemo
from gemmviz.core.hardware.roofline import load_ceilings
from gemmviz.core.lesson.lessons import LessonSource, Step, step_results, step_table
from gemmviz.core.problem import Problem
from gemmviz.core.registry import Registry, import_if_present
from gemmviz.core.schedule.block import block_schedule
from gemmviz.core.schedule.records import Schedule
from gemmviz.ui.text import tr
from gemmviz.ui.theme import Theme
from gemmviz.ui.tiling.render import Background, FrameState, draw_background, render_frame

Text = tuple[str, QRectF]


@dataclass(frozen=True)
class ViewContext:
    """What a view is built and painted from: the step, where its numbers come from, the lesson's chart theme
    (larger than the app's, scaled to the slide) and the lesson's language."""

    step: Step
    source: LessonSource
    theme: Theme
    lang: str = "en"
    frame: int | None = None  # an animation's schedule step to draw, if not the one the step opens on


class LessonViewUi:
    """A lesson view's drawing; the default paints the widget's charts (pyqtgraph views) onto the slide."""

    def hint(self, _step: Step) -> str:
        """What the window says at the foot of the slide while this view is shown ("" for nothing)."""
        return ""

    def widget(self, ctx: ViewContext) -> QWidget | None:
        return None

    def paint(self, painter: QPainter, rect: QRect, ctx: ViewContext) -> list[Text]:
        from gemmviz.ui.export.exporters import paint_charts

        kept = _KEPT[-1] if _KEPT else None
        widget = kept.laid_out(self, ctx, rect.width(), rect.height()) if kept else _laid_out(self, ctx, rect)
        if widget is None:
            return []
        try:
            painter.save()
            painter.translate(rect.topLeft())
            paint_charts(widget, painter)
            painter.restore()
        finally:
            if kept is None:
                _drop(widget)
        return []


def _laid_out(view: LessonViewUi, ctx: ViewContext, rect: QRect) -> QWidget | None:
    """`view`'s widget for `ctx`, laid out offscreen at `rect`'s size (None for a view with no widget)."""
    from gemmviz.ui.export.exporters import layout_offscreen

    widget = view.widget(ctx)
    if widget is not None:
        try:
            layout_offscreen(widget, rect.width(), rect.height())
        except BaseException:
            _drop(widget)
            raise
    return widget


def _drop(widget: QWidget) -> None:
    widget.hide()
    widget.deleteLater()


class _KeptWidgets:
    """The widgets the default `paint` laid out while `kept_widgets()` is open, one per (view, step, source,
    theme, language, frame, size): an export draws each slide three times (its PNG, its PDF page, its handout
    page), the same scene at the same size, and built and laid the chart out anew for each (about 0.3 s a
    chart). Painting only reads a widget: its chart scenes are drawn as they are (export mode is put back)."""

    def __init__(self) -> None:
        self.widgets: dict[tuple, tuple[QWidget | None, ViewContext]] = {}

    def laid_out(self, view: LessonViewUi, ctx: ViewContext, w: int, h: int) -> QWidget | None:
        # by identity: a step and a source are the same objects for the whole export (the context is held below,
        # so an id is never reused while the entry lives); the theme and the rest are values
        key = (id(view), id(ctx.step), id(ctx.source), ctx.theme, ctx.lang, ctx.frame, w, h)
        if key not in self.widgets:
            self.widgets[key] = (_laid_out(view, ctx, QRect(0, 0, w, h)), ctx)
        return self.widgets[key][0]

    def close(self) -> None:
        for widget, _ctx in self.widgets.values():
            if widget is not None:
                _drop(widget)
        self.widgets.clear()


_KEPT: list[_KeptWidgets] = []


@contextlib.contextmanager
def kept_widgets() -> Iterator[None]:
    """While open, a view painted again with the same context at the same size reuses the widget laid out the
    first time (slides, their PDF and the handout: tests/test_lesson_ui.py); all are dropped when it closes.
    Nested: the outermost keeps them."""
    if _KEPT:
        yield
        return
    kept = _KeptWidgets()
    _KEPT.append(kept)
    try:
        yield
    finally:
        _KEPT.remove(kept)
        kept.close()


UI_VIEWS: Registry[str, LessonViewUi] = Registry("drawing of lesson view")


def register_ui(name: str):
    """Class decorator: the drawing of lesson view `name` (its core part registered under the same name)."""

    def add(cls: type[LessonViewUi]) -> type[LessonViewUi]:
        UI_VIEWS.add(cls(), name)
        return cls

    return add


def unregister_ui(name: str) -> None:
    UI_VIEWS.remove(name)


def ui_view(name: str) -> LessonViewUi:
    """The drawing of lesson view `name`; one not registered yet is looked for in
    `gemmviz/ui/lesson/view_NAME.py` (a hyphen in NAME an underscore), a module of its own that registers it
    when imported."""
    module = f"gemmviz.ui.lesson.view_{name.replace('-', '_')}"
    if name not in UI_VIEWS:
        import_if_present(module)
    if name not in UI_VIEWS:
        raise KeyError(f"lesson view {name!r} has no drawing registered (ui/lesson/views.py)")
    return UI_VIEWS[name]


def _clipped(painter: QPainter, rect: QRect):
    """The painter moved to `rect`'s corner and clipped to it (restore() afterwards)."""
    painter.save()
    painter.translate(rect.topLeft())
    painter.setClipRect(QRectF(0, 0, rect.width(), rect.height()))
    return QRectF(0, 0, rect.width(), rect.height())


# ---- the shipped views ---------------------------------------------------------------------------------------
@register_ui("text")
class TextView(LessonViewUi):
    """Words only: nothing under them."""


class _Colourable(Protocol):
    """A chart that can give each series of one kernel a colour of its own (ui/charts' series charts)."""

    colour_each: bool
    theme: Theme

    def apply_theme(self, theme: Theme) -> None: ...


@register_ui("chart")
class ChartStepView(LessonViewUi):
    def widget(self, ctx: ViewContext) -> QWidget:
        from gemmviz.core.charts import kinds as chart_kinds
        from gemmviz.ui.export.exporters import make_chart

        step = ctx.step
        view = chart_kinds.ChartView()
        if step.chart == "speedup" and step.baseline is not None and step.at is not None:  # its baseline, its size
            view = chart_kinds.ChartView(step.baseline, Problem(step.at, step.at, step.at).key, "")
        chart = make_chart(step.chart, step_results(step, list(ctx.source.results)), ctx.theme, None, view)
        if len(step.series) > 1 and len({s.variant for s in step.series}) == 1 and hasattr(chart, "colour_each"):
            colourable = cast(_Colourable, chart)
            colourable.colour_each = True  # one kernel's params (TILE 8, 16, 32): a colour each, not one green
            colourable.apply_theme(colourable.theme)
        return chart


@register_ui("roofline")
class RooflineView(LessonViewUi):
    """Only the step's points: the others are absent, which reads as highlighted."""

    def widget(self, ctx: ViewContext) -> QWidget:
        from gemmviz.ui.export.exporters import make_chart

        ceilings = load_ceilings(ctx.source.gpu) if ctx.source.gpu else None
        return make_chart("roofline", step_results(ctx.step, list(ctx.source.results)), ctx.theme, ceilings)


@register_ui("hardware")
class HardwareView(LessonViewUi):
    """The step's one result as model-vs-counters traffic or blocks on SMs; where the results lack it, the
    chart's own empty state (its title says what is missing) rather than a blank view."""

    def widget(self, ctx: ViewContext) -> QWidget:
        from gemmviz.core.charts.kinds import NoHardwareData
        from gemmviz.ui.hardware.tab import hardware_chart
        from gemmviz.ui.hardware.trace import SmTraceChart
        from gemmviz.ui.hardware.traffic import TrafficChart

        step = ctx.step
        results = step_results(step, list(ctx.source.results))
        if step.chart == "traffic" and len(step.series) == 2:
            from gemmviz.ui.hardware.traffic import compare_chart

            ordered = [r for ref in step.series for r in results if ref.matches(r)]  # the step's order: first, second
            return compare_chart(ordered, ctx.theme)
        try:
            return hardware_chart(step.chart, results, ctx.theme, sm_count=ctx.source.sms)
        except NoHardwareData:
            chart = TrafficChart(ctx.theme) if step.chart == "traffic" else SmTraceChart(ctx.theme)
            chart.set_result(None)
            return chart


@register_ui("table")
class TableStepView(LessonViewUi):
    """The seed's table: a row per series, a column per size, each cell the time and × the baseline."""

    def widget(self, ctx: ViewContext) -> QWidget:
        from gemmviz.ui.lesson.seed_table import TableView

        return TableView(step_table(ctx.step, list(ctx.source.results), ctx.lang, ctx.source.how), ctx.theme)

    def paint(self, painter: QPainter, rect: QRect, ctx: ViewContext) -> list[Text]:
        from gemmviz.ui.lesson.seed_table import draw_table

        return draw_table(
            painter, QRectF(rect), step_table(ctx.step, list(ctx.source.results), ctx.lang, ctx.source.how), ctx.theme
        )


@register_ui("accesses")
class AccessesView(LessonViewUi):
    """The shipped access records of the H200, the step's view of them, drawn as vectors."""

    def widget(self, ctx: ViewContext) -> QWidget:
        from gemmviz.ui.accesses.canvas import AccessCanvas
        from gemmviz.ui.accesses.views import default_panels

        canvas = AccessCanvas()
        canvas.setMinimumSize(0, 0)
        records = shipped_accesses()
        canvas.kind, canvas.theme = ctx.step.chart, ctx.theme
        canvas.panels = default_panels(ctx.step.chart, records) if records else []
        return canvas

    def paint(self, painter: QPainter, rect: QRect, ctx: ViewContext) -> list[Text]:
        from gemmviz.ui.accesses.views import draw_access_view

        inner = _clipped(painter, rect)
        try:
            draw_access_view(painter, inner, ctx.step.chart, ctx.theme, shipped_accesses())
        finally:
            painter.restore()
        return []


_SHIPPED_ACCESSES = FileMemo()  # the shipped access records, while their file stays the same


def shipped_accesses():
    """The shipped H200 access records (core.hardware.accesses.shipped_file), read once per process while the
    file stays the same (name, time, size): every access step's slide, handout page and window view drew them
    after parsing the whole file again (0.34 s each). The lesson views only read them."""
    from gemmviz.core.hardware.accesses import load_file, shipped_path

    path = shipped_path()
    return None if path is None else _SHIPPED_ACCESSES.get([path], lambda: load_file(path))


@functools.lru_cache(maxsize=32)
def step_schedule(a) -> Schedule:
    """An animation step's schedule (a core.lesson AnimationState, frozen: the same state, the same schedule),
    built once per process: a slide, its handout page and its key frames, the window's view and the presenter's
    all draw it, and one object keeps the animation's layout and background caches (keyed by the schedule) hit
    (built anew for each, a lesson's export fitted the same layout 36 times). Drawing only reads it."""
    return block_schedule(a.variant, a.problem, a.tile, a.block, a.bounds)


@functools.lru_cache(maxsize=32)
def step_pair(a) -> tuple[Schedule, Schedule]:
    """A side-by-side step's two schedules (ui/tiling/side.py's pair_schedules), kept as step_schedule keeps one."""
    from gemmviz.ui.tiling.side import pair_schedules

    return pair_schedules(a)


def frame_state(step: Step, frame: int | None = None) -> FrameState:
    """The animation step's frame: its kernel, size, tile and block, at the schedule step it names (or at
    `frame`, clamped to the schedule)."""
    a = step.animation
    if a is None:
        raise ValueError(f"step {step.title!r} has no animation to draw a frame of")
    if a.versus is not None:  # side by side: the frame is the leading schedule's (ui/tiling/side.py)
        from gemmviz.ui.tiling.side import leader

        schedule = leader(*step_pair(a))
    else:
        schedule = step_schedule(a)
    at = a.step if frame is None else frame
    return FrameState(schedule, max(0, min(at, len(schedule.steps) - 1)), 1.0, (0, 0))


def _is_vector(painter: QPainter) -> bool:
    from PySide6.QtGui import QPaintEngine

    return painter.paintEngine().type() in (QPaintEngine.Type.Pdf, QPaintEngine.Type.SVG)


class _VectorBackground(Background):
    """The animation's static part (outlines, tile grid, labels) drawn straight through a PDF page's painter,
    as lines and text, where the window caches it as a pixmap; the cell grid is drawn the same way."""

    def __init__(self, painter: QPainter):
        super().__init__()
        self.painter = painter

    def get(self, w, h, s, theme, lay, dpr=1.0) -> QPixmap:
        self.painter.save()
        self.painter.fillRect(QRectF(0, 0, w, h), QColor(theme.background))
        draw_background(self.painter, s, theme, lay)
        self.painter.restore()
        return QPixmap()  # nothing left for render_frame to draw (a null pixmap draws nothing)

    def grids(self, s, theme, lay, dpr=1.0) -> QPixmap:
        from gemmviz.ui.tiling.render import draw_grids

        self.painter.save()
        draw_grids(self.painter, s, theme, lay)
        self.painter.restore()
        return QPixmap()


@register_ui("animation")
class AnimationView(LessonViewUi):
    """The tiling animation at the step's frame; P plays it in lesson mode (ui/lesson/mode.py)."""

    def hint(self, _step: Step) -> str:
        return tr("P plays the animation · . , one frame")

    def widget(self, ctx: ViewContext) -> QWidget:
        from gemmviz.ui.tiling.widgets import TilingView

        widget = TilingView(ctx.theme)
        widget.setMinimumSize(0, 0)
        widget.set_state(frame_state(ctx.step))
        return widget

    def paint(self, painter: QPainter, rect: QRect, ctx: ViewContext) -> list[Text]:
        _clipped(painter, rect)
        try:
            background = _VectorBackground(painter) if _is_vector(painter) else Background()
            state = frame_state(ctx.step, ctx.frame)
            render_frame(painter, rect.width(), rect.height(), state, ctx.theme, background)
        finally:
            painter.restore()
        return []


def _gap_view(ctx: ViewContext):
    from gemmviz.ui.hardware.gap import GapView

    view = GapView(ctx.theme, ctx.lang)
    if len(ctx.step.series) == 2:
        view.select(*(ref.text for ref in ctx.step.series))
    return view


@register_ui("gap")
class GapStepView(LessonViewUi):
    """The recorded gap between two kernels as a waterfall: the step's two series, or the best FP32 rung
    against cuBLAS, in the lesson's language ("what the last 5% is")."""

    def widget(self, ctx: ViewContext) -> QWidget:
        view = _gap_view(ctx)
        for combo in (view.a_combo, view.b_combo):  # the step says which two: no picking on a slide
            combo.hide()
        return view

    def paint(self, painter: QPainter, rect: QRect, ctx: ViewContext) -> list[Text]:
        texts: list[Text] = []
        view = _gap_view(ctx)
        try:
            painter.save()
            view.chart.draw(painter, QRectF(rect), texts)
            painter.restore()
        finally:
            view.deleteLater()
        return texts


@register_ui("code")
class CodeStepView(LessonViewUi):
    """The animation and, beside it, its kernel's code, the lines of the step shown highlighted (both
    `__syncthreads()` in turn at the barriers); . and , step its frames (ui/tiling/code.py)."""

    def hint(self, step: Step) -> str:
        return AnimationView().hint(step)

    def widget(self, ctx: ViewContext) -> QWidget:
        from gemmviz.ui.tiling.code import AnimationWithCode

        widget = AnimationWithCode(ctx.theme)
        widget.setMinimumSize(0, 0)
        widget.set_state(frame_state(ctx.step, ctx.frame))
        return widget

    def paint(self, painter: QPainter, rect: QRect, ctx: ViewContext) -> list[Text]:
        from gemmviz.ui.tiling.code import paint_with_code

        background = _VectorBackground(painter) if _is_vector(painter) else Background()
        return paint_with_code(painter, QRectF(rect), frame_state(ctx.step, ctx.frame), ctx.theme, background)


@register_ui("side")
class SideStepView(LessonViewUi):
    """Two kernels' blocks in lockstep, each with its counters: the step's `animation` and its `versus`."""

    def hint(self, step: Step) -> str:
        return AnimationView().hint(step)

    def widget(self, ctx: ViewContext) -> QWidget:
        from gemmviz.ui.tiling.side import SideBySide

        widget = SideBySide(*step_pair(ctx.step.animation), ctx.theme)
        widget.setMinimumSize(0, 0)
        widget.set_state(frame_state(ctx.step, ctx.frame))
        return widget

    def paint(self, painter: QPainter, rect: QRect, ctx: ViewContext) -> list[Text]:
        from gemmviz.ui.tiling.side import paint_side

        vector = _is_vector(painter)
        background = (lambda: _VectorBackground(painter)) if vector else Background
        pair = step_pair(ctx.step.animation)
        return paint_side(painter, QRectF(rect), pair, frame_state(ctx.step, ctx.frame), ctx.theme, background)
