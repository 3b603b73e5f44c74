"""The tiled kernel with padded shared memory (kernels/tiled.cu with PAD=1: tile_A and tile_B are TILE × (TILE + 1)):
the same steps as the tiled kind (core/schedule/block.py's `tiled_steps`), the same traffic; its drawing
(ui/tiling/kind_padded.py) shows the extra column and the bank figures of both layouts (core/schedule/accesses.py's
`shared_banks`), so that "tiled beside tiled-pad" shows what the padding changes and what it does not."""

from __future__ import annotations

from gemmviz.core.schedule.block import TILED_STEPS, blocked_kind, square_shape, tiled_steps
from gemmviz.core.schedule.kinds import register

register(blocked_kind("padded", TILED_STEPS, tiled_steps, square_shape, glides=("load",), bounds_checked=True))
