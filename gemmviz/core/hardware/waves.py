"""Blocks against a GPU's slots: how many waves a launch takes and how full its last one is, from a recorded
kernel's launch figures (core/hardware/gap_file.py) and what the files do not carry of the GPU (its SM count). No Qt."""

from __future__ import annotations

import math
from dataclasses import dataclass

from gemmviz.core.hardware.gap_file import BLOCK, GRID, LIMIT_REGISTERS, LIMIT_SHARED, WAVES, Kernel


@dataclass(frozen=True)
class GpuShape:
    """What the gap arithmetic needs of a GPU and the files do not carry."""

    sms: int
    smsp_per_sm: int = 4
    max_warps_per_sm: int = 64
    max_blocks_per_sm: int = 32


GPUS = {"NVIDIA H200": GpuShape(132), "NVIDIA H100 80GB HBM3": GpuShape(132), "NVIDIA H100 PCIe": GpuShape(114)}


def gpu_shape(gpu: str) -> GpuShape | None:
    return GPUS.get(gpu)


@dataclass(frozen=True)
class Waves:
    """Blocks against the GPU's slots: how many waves, and how full the last one is."""

    grid: int
    blocks_per_sm: int
    sms: int
    waves: float
    last_blocks: int  # blocks in the last wave (all slots: a full last wave)
    last_sms: int  # SMs the last wave keeps busy

    @property
    def efficiency(self) -> float:
        """waves / the whole waves they take: the share of SM-time a uniform block length would keep busy."""
        return self.waves / math.ceil(self.waves)


def waves_of(grid: int, blocks_per_sm: int, sms: int) -> Waves:
    """The wave arithmetic of a launch: `grid` blocks, `blocks_per_sm` resident at once, `sms` SMs. The block
    scheduler hands the last wave's blocks out one per SM first, so `last_sms` = min(last blocks, SMs)."""
    if grid < 1 or blocks_per_sm < 1 or sms < 1:
        raise ValueError("grid, blocks per SM and SMs must be at least 1")
    slots = blocks_per_sm * sms
    last = grid % slots or slots
    return Waves(grid, blocks_per_sm, sms, grid / slots, last, min(last, sms))


def blocks_per_sm(k: Kernel, shape: GpuShape) -> int | None:
    """Resident blocks per SM: the tightest of the register, shared-memory, warp and block limits; or, where the
    limits are not recorded, what ncu's waves per SM imply."""
    grid, block = k.get(GRID), k.get(BLOCK)
    registers, shared = k.get(LIMIT_REGISTERS), k.get(LIMIT_SHARED)
    if block is not None and registers is not None and shared is not None:
        warps = math.ceil(block / 32)
        bound = min(int(registers), int(shared), shape.max_warps_per_sm // warps, shape.max_blocks_per_sm)
        return bound if bound >= 1 else None
    waves = k.get(WAVES)
    if grid and waves:
        return max(1, round(grid / (waves * shape.sms)))
    return None


def kernel_waves(k: Kernel, shape: GpuShape | None) -> Waves | None:
    grid = k.get(GRID)
    if shape is None or not grid:
        return None
    bps = blocks_per_sm(k, shape)
    return None if bps is None else waves_of(int(grid), bps, shape.sms)
