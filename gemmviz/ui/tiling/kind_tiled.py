"""The tiled kernel's frame: tiles of A and B copied into shared memory (zero-padded at the matrix's edges),
barriers, reads from them, and a line of the counters on its shared memory's bank conflicts."""

from __future__ import annotations

from gemmviz.core.numbers import sig
from gemmviz.core.schedule.block import Schedule
from gemmviz.core.schedule.counters import reuse_figure
from gemmviz.ui.text import QT_TRANSLATE_NOOP, tr
from gemmviz.ui.tiling.block import (
    BlockRenderer,
    Frame,
    draw_barrier,
    draw_copy,
    draw_padding,
    draw_shared_reads,
    draw_tiled,
)
from gemmviz.ui.tiling.layout import shared_pad
from gemmviz.ui.tiling.render import register_renderer


@register_renderer("tiled")
class TiledRenderer(BlockRenderer):
    """Tiles of A and B copied into shared memory (zero-padded at the matrix's edges), barriers, reads from them."""

    pads_tiles = True  # the part of a tile outside the matrix is zero-filled (hatched)
    shows_banks = True  # a line of the counters: the bank conflicts of its shared stores and reads

    def bank_line(self, s: Schedule, compact: bool = False) -> str | None:
        """Its shared stores' and reads' bank conflicts, worked out from the kernel's addresses at this tile and
        padding (core/schedule/accesses.shared_banks: the rule the recorded accesses are summarised by)."""
        if not self.shows_banks:
            return None
        from gemmviz.core.schedule.accesses import shared_banks  # numpy and the traces' code, on first use

        banks = shared_banks(s.bm, shared_pad(s))

        parts = [
            tr("{what} {n}-way").format(what=tr(what), n=sig(reuse_figure(banks.ways(kind)), 3))
            for kind, what in (("store", QT_TRANSLATE_NOOP("", "stores")), ("read", QT_TRANSLATE_NOOP("", "reads")))
            if banks.ways(kind) > 1.0
        ]  # short: beside another kernel the counters have half a slide
        return tr("bank conflicts: {which}").format(which=", ".join(parts) if parts else tr("none"))

    def draw_shared(self, f: Frame) -> None:
        draw_tiled(f)
        if self.pads_tiles:
            draw_padding(f)
        if f.step.kind == "load" and f.state.phase < 1.0:
            draw_copy(f)
        if f.step.kind == "compute":
            draw_shared_reads(f)
        if f.step.kind in ("sync", "sync2"):
            draw_barrier(f)
