"""The padded tiled kernel's frames (core/schedule/kind_padded.py): the tiled kernel's, with each shared array
drawn TILE × (TILE + 1), its extra column grey (words no thread loads or reads), and its bank figures beside the
counters (kind_tiled.TiledRenderer.bank_line), so that beside the tiled kernel it shows what the padding changes."""

from __future__ import annotations

from gemmviz.core.schedule.block import Schedule
from gemmviz.ui.text import tr
from gemmviz.ui.tiling.kind_tiled import TiledRenderer
from gemmviz.ui.tiling.layout import shared_pad
from gemmviz.ui.tiling.render import register_renderer


@register_renderer("padded")
class PaddedRenderer(TiledRenderer):
    def shape_words(self, s: Schedule, compact: bool = False) -> str:
        return tr("TILE {t}, pad {p}").format(t=s.bm, p=shared_pad(s))  # short: it stands beside tiled
