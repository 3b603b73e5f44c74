"""The last wave of a block trace and the SM-time it leaves idle: what the block-trace view states and shades.

A GPU holds `slots` blocks at once (SMs × blocks per SM); a grid of blocks runs in waves of that many, and the last
wave holds what is left over (`core/hardware/waves.waves_of`, whose arithmetic this reuses). An SM is busy while at
least one block is resident on it (Nsight Compute's `sm__cycles_active`); the idle share is the SM-time of the
whole GPU (every SM, used or not, over the whole run) that no block used. 64 blocks of one wave on 132 SMs leave
68 SMs idle for the whole run: 52% of SM-time. No Qt, no GPU.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence
from dataclasses import dataclass

import numpy as np

from gemmviz.core.hardware.block_trace import (
    TRACE_FIELDS,
    TraceError,
    TraceSummary,
    trace_summary,
    trace_summary_steps,
)
from gemmviz.core.hardware.waves import waves_of


@dataclass(frozen=True)
class LastWave:
    """A trace's waves, its last wave and the SM-time nobody used."""

    blocks: int
    sms: int  # the GPU's SMs: the idle share counts those no block ran on
    slots: int  # blocks the GPU holds at once
    waves: float  # blocks / slots
    last_blocks: int  # blocks in the last wave: the last of them to start
    last_sms: int  # SMs the last wave's blocks ran on
    last_start_ns: int  # when the first of the last wave's blocks started
    duration_ns: int
    busy_sm_ns: int  # SM-time with at least one block resident, summed over the SMs

    @property
    def idle_share(self) -> float:
        """The share of SM-time (sms × duration) with no block resident."""
        whole = self.sms * self.duration_ns
        return 1.0 - self.busy_sm_ns / whole if whole else 0.0

    @property
    def partial(self) -> bool:
        """The last wave leaves slots empty."""
        return self.last_blocks < self.slots


def _array(trace: Sequence[Sequence[int]] | np.ndarray) -> np.ndarray:
    t = np.asarray(trace, dtype=np.int64).reshape(-1, TRACE_FIELDS)
    if len(t) == 0:
        raise TraceError("the block trace is empty")
    return t


def busy_sm_ns(trace: Sequence[Sequence[int]] | np.ndarray) -> int:
    """SM-time with at least one block resident, summed over the SMs (the trace's summary counts it)."""
    return trace_summary(_array(trace)).busy_sm_ns


def busiest_first(trace: Sequence[Sequence[int]] | np.ndarray) -> np.ndarray:
    """The trace with its SMs renumbered by the time they held blocks, busiest first (ties by SM number): a
    GPU that spreads 64 blocks over every other SM (one per TPC) draws them as stripes across all 132 rows; so
    numbered, the used SMs are one band and the idle ones another. Every per-SM sum is the same."""
    t = _array(trace).copy()
    count = int(t[:, 1].max()) + 1
    busy = np.zeros(count, np.int64)
    np.add.at(busy, t[:, 1], t[:, 3] - t[:, 2])
    rank = np.empty(count, np.int64)
    rank[np.lexsort((np.arange(count), -busy))] = np.arange(count)
    t[:, 1] = rank[t[:, 1]]
    return t


def idle_tails(trace: Sequence[Sequence[int]] | np.ndarray, sms: int | None = None) -> np.ndarray:
    """[[sm, from_ns, to_ns], ...]: each SM idle from its last block's end to the run's end, and every SM below
    `sms` that ran no block idle for the whole run. The area the last wave leaves idle, as the view shades it."""
    t = _array(trace)
    end = int(t[:, 3].max())
    count = max(int(t[:, 1].max()) + 1, sms or 0)
    last_end = np.full(count, -1, np.int64)
    np.maximum.at(last_end, t[:, 1], t[:, 3])
    start = np.where(last_end < 0, 0, last_end)
    keep = start < end
    sm = np.flatnonzero(keep)
    return np.stack([sm, start[keep], np.full(len(sm), end)], axis=1)


def last_wave(
    trace: Sequence[Sequence[int]] | np.ndarray,
    sms: int | None = None,
    blocks_per_sm: int | None = None,
    summary: TraceSummary | None = None,
) -> LastWave:
    """The last wave of a decoded trace on a GPU of `sms` SMs (at least every SM the trace used), each holding
    `blocks_per_sm` of the kernel's blocks at once; `summary`: the trace's summary where the caller has it.

    Without `blocks_per_sm` (a recorded trace whose kernel's occupancy is not known) the trace's own: the most
    blocks one SM held at once, or the most the GPU held over its SMs, whichever is more. A trace cannot show
    slots it never filled: one block per SM that could hold two counts as a full SM.
    """
    steps = last_wave_steps(trace, sms, blocks_per_sm, summary)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def last_wave_steps(
    trace: Sequence[Sequence[int]] | np.ndarray,
    sms: int | None = None,
    blocks_per_sm: int | None = None,
    summary: TraceSummary | None = None,
) -> Generator[None, None, LastWave]:
    """last_wave in steps of one sort each (a view that must not stall runs one per event-loop turn)."""
    t = _array(trace)
    sm_count = max(int(t[:, 1].max()) + 1, sms or 0)
    if summary is None:
        summary = yield from trace_summary_steps(t)
    if blocks_per_sm is None:
        most_at_once = math.ceil(summary.max_resident_total / sm_count)
        blocks_per_sm = max(1, summary.max_resident_per_sm, most_at_once)
    w = waves_of(len(t), blocks_per_sm, sm_count)
    order = np.lexsort((t[:, 0], t[:, 2]))  # by start, then block
    last = t[order[len(t) - w.last_blocks :]]
    return LastWave(
        blocks=len(t),
        sms=sm_count,
        slots=blocks_per_sm * sm_count,
        waves=w.waves,
        last_blocks=w.last_blocks,
        last_sms=len(np.unique(last[:, 1])),
        last_start_ns=int(last[:, 2].min()),
        duration_ns=int(t[:, 3].max()),
        busy_sm_ns=summary.busy_sm_ns,
    )
