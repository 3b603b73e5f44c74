"""Block tiling's frame (blocktile2d): drawn as the tiled kernel's, on the zero-padded problem the kernel runs,
with each thread's TM×TN tile in registers (ui/tiling/block.py draws them)."""

from __future__ import annotations

from gemmviz.core.schedule.block import Schedule
from gemmviz.ui.text import tr
from gemmviz.ui.tiling.kind_tiled import TiledRenderer
from gemmviz.ui.tiling.render import register_renderer


@register_renderer("blocktile2d")
class BlockTileRenderer(TiledRenderer):
    """Block tiling: the kernel runs a zero-padded problem, and each thread keeps a TM×TN tile in registers."""

    pads_tiles = False
    shows_banks = False

    def shape_words(self, s: Schedule, compact: bool = False) -> str:
        if compact:  # beside another picture: its figures only (the whole view says what they are)
            return f"{s.bm}×{s.bn}×{s.bk}, {s.tm}×{s.tn}"
        return tr("{bm}×{bn}×{bk}, {tm}×{tn} per thread").format(bm=s.bm, bn=s.bn, bk=s.bk, tm=s.tm, tn=s.tn)
