"""A block trace the model predicts, where no GPU recorded one: which SM would run each block, and when.

The model is the one the waves' arithmetic assumes (`core/hardware/waves.py`): an SM holds `blocks_per_sm` blocks
at once, each in its own slot running at that share of the SM's FP32 rate whether or not the other slots are
full (a block cannot use more than its share), so a block's time is its FMAs over its share. The block
scheduler hands blocks out in launch order to the slot free soonest, one per SM before a second on any (the
first wave spreads over the SMs). Split-K runs one block per tile and slice of K; Stream-K (kernels/cpasync_any.cu
with SCHED=1) runs SMs × blocks per SM blocks, each an even share of the tiles' K-slices
(`core/kernels/cpasync_model.streamk_segments`, the kernel's own schedule). No memory stalls, no launch cost:
a model to see the waves by, not a prediction of the time. No Qt, no GPU.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass

from gemmviz.core.kernels import cpasync_model as cm
from gemmviz.core.kernels.model import ceil_div
from gemmviz.core.problem import Problem

# One FMA per FP32 lane per cycle: 128 lanes per SM at the H100's and H200's boost clock, 1.98 GHz
SM_FMA_PER_NS = 128 * 1.98
MAX_MODEL_BLOCKS = 200_000  # a model trace at most this long (the view draws a million; the model need not)


@dataclass(frozen=True)
class ModelLaunch:
    """One launch as the model sees it."""

    tiles: int  # tiles of C
    ktiles: int  # K-slices per tile
    blocks_per_sm: int
    sms: int
    split: int = 1  # slices of K per tile (split-K): one block per tile and slice
    stream_k: bool = False  # Stream-K: sms × blocks_per_sm blocks, each an even share of the K-slices
    kslice_fmas: int = 1  # FMAs of one K-slice of one tile (BM · BN · BK)

    @property
    def grid(self) -> int:
        return self.sms * self.blocks_per_sm if self.stream_k else self.tiles * self.split

    def block_kslices(self) -> list[int]:
        """K-slices each block multiplies, in launch order: split-K's slices after every tile's first (the
        kernel's grid.y holds the slices, M/BM rows apart), Stream-K's per block from the kernel's schedule."""
        if self.stream_k:
            segments = cm.streamk_segments(self.tiles, self.ktiles, self.grid)
            return [sum(end - first for _tile, first, end, _slot in block) for block in segments]
        k = self.ktiles
        return [k * (s + 1) // self.split - k * s // self.split for s in range(self.split) for _ in range(self.tiles)]


def model_trace(launch: ModelLaunch, sm_fma_per_ns: float = SM_FMA_PER_NS) -> list[list[int]]:
    """[[block, sm, start_ns, end_ns], ...] as a decoded trace (`core/hardware/block_trace.decode_trace`), sorted
    by start, then block."""
    if launch.grid > MAX_MODEL_BLOCKS:
        raise ValueError(f"{launch.grid:,} blocks: the model traces at most {MAX_MODEL_BLOCKS:,}")
    if min(launch.tiles, launch.ktiles, launch.blocks_per_sm, launch.sms, launch.split, launch.kslice_fmas) < 1:
        raise ValueError("tiles, K-slices, blocks per SM, SMs, split and FMAs must each be at least 1")
    slot_rate = sm_fma_per_ns / launch.blocks_per_sm  # FMAs per ns of one block
    free = [(0, lane, sm) for lane in range(launch.blocks_per_sm) for sm in range(launch.sms)]  # a sorted heap
    rows = []
    for block, kslices in enumerate(launch.block_kslices()):
        start, lane, sm = heapq.heappop(free)
        end = start + max(1, round(kslices * launch.kslice_fmas / slot_rate))
        rows.append([block, sm, start, end])
        heapq.heappush(free, (end, lane, sm))
    rows.sort(key=lambda r: (r[2], r[0]))
    return rows


# ---- gpu-cpasync-any at a small size: the tiles before the fit, the fit, Stream-K -------------------------------
@dataclass(frozen=True)
class FixCase:
    """One configuration of the small-size pair: its registry config, how many slices of K, and the launch."""

    name: str  # "tiles", "split", "stream-k"
    config: dict[str, int]
    launch: ModelLaunch

    @property
    def tile(self) -> str:
        return f"{self.config['BM']}×{self.config['BN']}"


def any_launch(p: Problem, c: Mapping[str, int], sms: int, split: int | None = None) -> ModelLaunch:
    """gpu-cpasync-any's launch at `p` in config `c` (SCHED 1: Stream-K) on `sms` SMs; `split`: the slices of K,
    the registry's split-K choice (`cpasync_model.any_splits`) where not given."""
    tiles = ceil_div(p.m, c["BM"]) * ceil_div(p.n, c["BN"])
    stream_k = c.get("SCHED", 0) >= 1
    return ModelLaunch(
        tiles=tiles,
        ktiles=ceil_div(p.k, c["BK"]),
        blocks_per_sm=cm.blocks_per_sm(c),
        sms=sms,
        split=1 if stream_k else (cm.any_splits(p, c) if split is None else split),
        stream_k=stream_k,
        kslice_fmas=c["BM"] * c["BN"] * c["BK"],
    )


def small_size_fix(p: Problem, sms: int = cm.SPLIT_K_SMS) -> list[FixCase]:
    """The before / after of gpu-cpasync-any at `p`: its default tiles one block per tile (before the fit), the
    registry's fit (`cpasync_model.any_fit`: smaller tiles, K split as `any_splits` picks) and Stream-K on the
    fit's tiles. Every figure from the registry's rules, none typed in."""
    default = dict(cm.ANY_CONFIG)
    fitted, _why = cm.any_fit(p, default)
    fitted.pop("SCHED", None)
    streamk = {**fitted, "SCHED": 1}
    return [
        FixCase("tiles", default, any_launch(p, default, sms, split=1)),
        FixCase("split", fitted, any_launch(p, fitted, sms)),
        FixCase("stream-k", streamk, any_launch(p, streamk, sms)),
    ]
