"""The shared-memory tiled kernel's schedule kind (kernels/tiled.cu): per tile of K, tiles of A and B loaded into
shared memory, gliding there when stepped onto; its steps are core/schedule/block.py's `tiled_steps`."""

from __future__ import annotations

from gemmviz.core.schedule.block import TILED_STEPS, blocked_kind, square_shape, tiled_steps
from gemmviz.core.schedule.kinds import register

register(blocked_kind("tiled", TILED_STEPS, tiled_steps, square_shape, glides=("load",), bounds_checked=True))
