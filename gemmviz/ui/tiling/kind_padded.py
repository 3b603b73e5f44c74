"""The padded tiled kernel's frames (core/schedule/kind_padded.py): the tiled kernel's, with each shared array
drawn TILE × (TILE + 1), its extra column grey (words no thread loads or reads), and its bank figures beside the
counters (kind_tiled.TiledRenderer.bank_line) with what the same tile has unpadded, so that it says what the
padding changes: at TILE 32 nothing (this kernel has no conflicts to remove), at TILE 16 a 2-way store conflict
it adds."""

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

    def bank_line(self, s: Schedule, compact: bool = False) -> str | None:
        """The padded tile's bank conflicts, and whether the tile unpadded had any for the padding to remove:
        both said "none" at TILE 32, and nothing said why one would pad. `compact` (beside the unpadded kernel,
        which says its own): the figures alone."""
        line = super().bank_line(s, compact)
        if line is None or compact or not shared_pad(s):
            return line
        from gemmviz.core.schedule.accesses import shared_banks

        unpadded, padded = shared_banks(s.bm, 0), shared_banks(s.bm, shared_pad(s))
        if max(unpadded.ways("store"), unpadded.ways("read")) > 1.0:
            return line  # the padding's work: the unpadded kernel beside it shows what it removes
        if max(padded.ways("store"), padded.ways("read")) > 1.0:
            return tr("{line} (none unpadded: the padding adds them)").format(line=line)
        return tr("{line} (none unpadded either: nothing to fix)").format(line=line)
