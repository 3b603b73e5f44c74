"""Drawing one frame of the tiling animation: A, B and C in global memory, the kernel's shared tiles, and the
steps of one thread block moving between them. It only draws a schedule that `core` computed.

`render_frame(painter, w, h, state, theme)` is a pure function of the state (schedule, step, phase,
thread), so stepping to frame i from anywhere draws the same image: on screen (ui/tiling/view.py), into a PNG,
GIF or video (ui/export/exporters.py) and in the tests.

Each schedule kind (core/schedule/kinds.py) is drawn by the renderer registered under its name, in a module of
its own, ui/tiling/kind_NAME.py, imported the first time a frame of the kind is drawn. The block-tiled kinds
(naive, tiled, padded, blocktile2d) share ui/tiling/block.py: BlockRenderer and the public parts a new
block-tiled kind draws its shared memory from (draw_tiled, draw_padding, draw_copy, draw_shared_reads,
draw_barrier, each drawing from a Frame); kind_hopper.py draws a picture of its own. The static part of a
frame is ui/tiling/background.py, where everything goes ui/tiling/layout.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtGui import QColor, QImage, QPainter

from gemmviz.core import interrupt
from gemmviz.core.registry import Registry, import_if_present
from gemmviz.core.schedule.block import Schedule
from gemmviz.ui.theme import LIGHT, Theme
from gemmviz.ui.tiling.background import Background, draw_background, draw_grids
from gemmviz.ui.tiling.paint import Texts

__all__ = [
    "Background",
    "Canvas",
    "FrameState",
    "ScheduleRenderer",
    "Texts",
    "draw_background",
    "draw_grids",
    "font_px_for",
    "legible_text_px",
    "min_text_px",
    "register_renderer",
    "render_frame",
    "render_image",
    "renderer_for",
]


@dataclass(frozen=True)
class FrameState:
    schedule: Schedule
    step: int
    # t in [0, 1]: how far the step has gone. In-between frames (the app's 250 ms glide, a GIF's move frames)
    # use it; a load's tiles travel from global to shared memory as it grows. 1.0 is the step's settled frame.
    phase: float = 1.0
    thread: tuple[int, int] = (0, 0)  # (ty, tx) within the block
    # beside another picture (side by side, the code view: half a slide): the counters that tell the kernels
    # apart only, so that the rest stays at projector size (no bytes, no single thread's sum)
    compact: bool = False
    lang: str | None = None  # the language its words are drawn in ("en", "zh"; None: the one spoken where drawn)


FONT_PER_PT = 1.9  # pixels of animation font per theme point at 1080p (the theme is scaled for exports)


def font_px_for(w: int, h: int, theme: Theme) -> float:
    """The animation's font: the theme's size (exports scale the theme, so 4K is 1080p doubled), made smaller
    only where the view is too small for it."""
    return max(7.0, min(theme.font_pt * FONT_PER_PT, h / 18))


PROJECTOR_SHARE = 0.64  # a projector's smallest text, 24 px at 1080p, of the projector theme's 38 px type
SHORT_VIEW_LINES = 24  # a short view's smallest text: 1/24 of its height (16 px in the window at 1280×720)


def legible_text_px(h: int, theme: Theme) -> float:
    """The smallest type a projected frame can use and still be read from the back: the projector's 24 px at
    1080p (0.64 of the theme's type), or in a view too short for that, 1/24 of its height. min_text_px may ask
    more (70% of the frame's type, to keep its hierarchy); this is the floor that legibility sets."""
    return min(PROJECTOR_SHARE * theme.font_pt * FONT_PER_PT, math.ceil(h / SHORT_VIEW_LINES))


def min_text_px(w: int, h: int, theme: Theme) -> float:
    """The smallest type any text of a frame is set in: never below 70% of the frame's font, nor below the
    projector's 24 px at 1080p (0.64 of the theme's type; exports scale the theme), except in a view too short
    for that type (the window at 1280×720 gives it about 400 px), where it is 1/24 of the view's height."""
    base = font_px_for(w, h, theme)
    short = math.ceil(h / SHORT_VIEW_LINES)  # whole pixels: fonts are set in them
    return min(base, max(0.7 * base, min(PROJECTOR_SHARE * theme.font_pt * FONT_PER_PT, short)))


@dataclass(frozen=True)
class Canvas:
    """Where a frame is drawn: the painter and its size, the theme, the cached background and, for the layout
    tests, the list every text drawn is appended to (None: not recorded)."""

    painter: QPainter
    w: int
    h: int
    theme: Theme
    background: Background
    texts: Texts | None = None


class ScheduleRenderer:
    """The drawing of one kind of schedule: `draw(canvas, state)` draws one frame, a pure function of the state."""

    def draw(self, canvas: Canvas, state: FrameState) -> None:
        raise NotImplementedError


RENDERERS: Registry[str, ScheduleRenderer] = Registry("renderer of schedule kind")


def register_renderer(name: str):
    """Class decorator: the renderer of schedule kind `name` (its core part registered under the same name)."""

    def add(cls: type[ScheduleRenderer]) -> type[ScheduleRenderer]:
        RENDERERS.add(cls(), name)
        return cls

    return add


def unregister_renderer(name: str) -> None:
    RENDERERS.remove(name)


def renderer_for(kind: str) -> ScheduleRenderer:
    """The renderer of schedule kind `kind`, its module (ui/tiling/kind_KIND.py, a name no other module of the
    package has) imported on first use."""
    module = f"gemmviz.ui.tiling.kind_{kind}"
    if kind not in RENDERERS:
        import_if_present(module)
    if kind not in RENDERERS:
        raise KeyError(f"schedule kind {kind!r} has no renderer registered (ui/tiling/render.py)")
    return RENDERERS[kind]


def render_frame(
    painter: QPainter,
    w: int,
    h: int,
    state: FrameState,
    theme: Theme = LIGHT,
    background: Background | None = None,
    texts: Texts | None = None,
) -> None:
    """Draw one frame. Pure: the same state gives the same picture. If `texts` is a list, every text drawn is
    appended to it with its box (for the layout tests)."""
    canvas = Canvas(painter, w, h, theme, background or Background(), texts)
    renderer_for(state.schedule.kind).draw(canvas, state)


def render_image(
    state: FrameState,
    width: int,
    height: int,
    theme: Theme = LIGHT,
    background: Background | None = None,
    texts: Texts | None = None,
) -> QImage:
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(theme.background))
    with interrupt.deferred():  # Ctrl+C waits for the frame: a painter must end before its image goes
        painter = QPainter(image)
        try:
            render_frame(painter, width, height, state, theme, background, texts)
        finally:
            painter.end()
    return image
