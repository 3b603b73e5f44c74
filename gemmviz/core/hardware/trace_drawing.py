"""What the SMs × time view (ui/hardware/trace.py) draws of one block trace, prepared without Qt: the blocks
sorted by start, each given a lane on its SM and a wave, the trace's summary, the residency staircase, the last
wave and each SM's idle tail, and, for more than DRAW_BARS_MAX blocks, one image of SM lanes × time bins (the
colour of the block at each bin's middle). Preparing a large trace is cut into steps of STEP_ROWS rows
(`prepare_steps` yields between them), so a window can run one step per event-loop turn and never stall.
"""

from __future__ import annotations

import heapq
from collections.abc import Generator, Sequence
from dataclasses import dataclass

import numpy as np

from gemmviz.core.hardware.counters import TRACE_FIELDS, TraceSummary, resident_timeline, trace_summary_steps
from gemmviz.core.hardware.last_wave import LastWave, idle_tails, last_wave_steps

WAVE_COLOURS = 4  # colours cycle every 4 waves: enough to tell neighbours apart, few enough to read
DRAW_BARS_MAX = 20_000  # blocks drawn as bars; a larger trace is drawn as an image
STEP_ROWS = 25_000  # rows converted or given lanes per step (about 40 ms on a loaded 2-core machine)
IMAGE_BINS = 2048  # time bins across the image: wider than the plot on a 4K screen
IMAGE_ROWS_MAX = 4096  # SM lanes down the image; beyond it an SM's lanes share rows
QUERIES_PER_STEP = 1 << 19  # image pixels looked up per step


def trace_lanes(trace: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(records sorted by start, lane, wave) for a decoded trace.

    Blocks resident on one SM at the same time get different lanes (its rows are split among them); a
    block's wave is how many blocks held its lane before it, so wave 0 is the first block each slot ran.
    """
    steps = _lane_steps(_as_array(trace))
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def _as_array(trace: Sequence[Sequence[int]]) -> np.ndarray:
    return np.asarray(trace, dtype=np.int64).reshape(-1, TRACE_FIELDS)


def _lane_steps(t: np.ndarray) -> Generator[None, None, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """trace_lanes in steps: yields between chunks of STEP_ROWS rows, returns (t, lane, wave)."""
    if (
        len(t)
        and int(t[:, 0].min()) >= 0
        and int(t[:, 0].max()) < 1 << 20
        and int(t[:, 2].min()) >= 0
        and int(t[:, 2].max()) < 1 << 43
    ):
        t = t[np.argsort((t[:, 2] << 20) | t[:, 0])]  # by start, then block: one sort of packed keys
    else:
        t = t[np.lexsort((t[:, 0], t[:, 2]))]
    yield
    lane = np.zeros(len(t), np.int64)
    wave = np.zeros(len(t), np.int64)
    free: dict[int, list[int]] = {}  # per SM: lanes free now (a heap)
    busy: dict[int, list[tuple[int, int]]] = {}  # per SM: (end, lane) of resident blocks (a heap)
    used: dict[tuple[int, int], int] = {}  # (sm, lane) -> blocks it held so far
    for first in range(0, len(t), STEP_ROWS):
        for i, (_block, sm, start, end) in enumerate(t[first : first + STEP_ROWS, :].tolist(), start=first):
            running, spare = busy.setdefault(sm, []), free.setdefault(sm, [])
            while running and running[0][0] <= start:  # a block ending as another starts frees its lane first
                heapq.heappush(spare, heapq.heappop(running)[1])
            slot = heapq.heappop(spare) if spare else len(running)
            heapq.heappush(running, (end, slot))
            lane[i] = slot
            n = used.get((sm, slot), 0)
            wave[i] = n
            used[(sm, slot)] = n + 1
        yield
    return t, lane, wave


@dataclass
class TraceDrawing:
    """What the SMs × time view draws of one trace, prepared without Qt."""

    t: np.ndarray  # records sorted by start
    lane: np.ndarray
    wave: np.ndarray
    summary: TraceSummary
    rows: int  # SM rows: every SM the trace used, and the session's SM count
    resident_us: tuple[np.ndarray, np.ndarray]  # the residency staircase (at most about 2 × IMAGE_BINS points)
    image: np.ndarray | None  # rows × IMAGE_BINS of wave colour + 1 (0: idle); None: drawn as bars
    lanes_drawn: int  # image rows per SM
    last: LastWave  # the last wave and the SM-time left idle
    idle: np.ndarray  # [[sm, from_ns, to_ns], ...]: each SM idle after its last block (core/hardware/last_wave.py)


def prepare_steps(
    trace: Sequence[Sequence[int]], sm_count: int | None = None, blocks_per_sm: int | None = None
) -> Generator[None, None, TraceDrawing]:
    """The drawing of a trace on `sm_count` SM rows (at least every SM it used), in steps of tens of
    milliseconds; yields between them, returns a TraceDrawing. `blocks_per_sm`: the kernel's occupancy where
    known (its waves count the slots it left empty), else the trace's own."""
    chunks = []
    for first in range(0, len(trace), STEP_ROWS):  # a list of a million rows becomes an array in pieces
        chunks.append(_as_array(trace[first : first + STEP_ROWS]))
        yield
    t, lane, wave = yield from _lane_steps(np.concatenate(chunks) if chunks else _as_array([]))
    sm_rows = max(int(t[:, 1].max()) + 1, sm_count or 0)
    summary = yield from trace_summary_steps(t)
    times, resident = resident_timeline(t)
    resident_us = _decimated_steps(times / 1e3, resident, summary.duration_ns / 1e3)
    yield
    last = yield from last_wave_steps(t, sm_rows, blocks_per_sm, summary)
    idle = idle_tails(t, sm_rows)
    yield
    image, lanes_drawn = None, max(summary.max_resident_per_sm, 1)
    if len(t) > DRAW_BARS_MAX:
        image, lanes_drawn = yield from _image_steps(t, lane, wave, summary, sm_rows)
    return TraceDrawing(t, lane, wave, summary, sm_rows, resident_us, image, lanes_drawn, last, idle)


def prepare(
    trace: Sequence[Sequence[int]], sm_count: int | None = None, blocks_per_sm: int | None = None
) -> TraceDrawing:
    steps = prepare_steps(trace, sm_count, blocks_per_sm)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def _decimated_steps(times: np.ndarray, values: np.ndarray, duration: float) -> tuple[np.ndarray, np.ndarray]:
    """A staircase's points; over 2 × IMAGE_BINS steps, the highest value in each of IMAGE_BINS time bins (the
    peak, which the 'most at once' line marks, survives)."""
    if len(times) <= 2 * IMAGE_BINS or duration <= 0:
        return _step(times, values)
    edges = np.linspace(0.0, duration, IMAGE_BINS + 1)
    first = np.searchsorted(times, edges[:-1], side="left")
    keep = np.r_[first[:-1] < first[1:], first[-1] < len(times)]
    peak = np.maximum.reduceat(values, first[keep])
    return _step(np.r_[edges[:-1][keep], duration], np.r_[peak, 0])


def _image_steps(
    t: np.ndarray, lane: np.ndarray, wave: np.ndarray, summary: TraceSummary, sm_rows: int
) -> Generator[None, None, tuple[np.ndarray, int]]:
    """The image of a large trace: row = an SM's lane (lanes share rows past IMAGE_ROWS_MAX), pixel = wave
    colour + 1 of the block whose lane holds it at the bin's middle, and every block at least at its first bin."""
    lanes = max(summary.max_resident_per_sm, 1)
    per_sm = max(1, min(lanes, IMAGE_ROWS_MAX // max(sm_rows, 1)))
    rows = sm_rows * per_sm
    duration = max(summary.duration_ns, 1)
    row = t[:, 1] * per_sm + lane * per_sm // lanes
    colour = (wave % WAVE_COLOURS + 1).astype(np.uint8)
    span = duration + 1
    key = row * span + t[:, 2]
    order = np.argsort(key)
    key, ends, colour_sorted = key[order], t[order, 3], colour[order]
    yield
    image = np.zeros((rows, IMAGE_BINS), np.uint8)
    centres = ((np.arange(IMAGE_BINS) + 0.5) * duration / IMAGE_BINS).astype(np.int64)
    rows_per_step = max(1, QUERIES_PER_STEP // IMAGE_BINS)
    for r0 in range(0, rows, rows_per_step):
        r = np.arange(r0, min(rows, r0 + rows_per_step))
        q = (r[:, None] * span + centres[None, :]).ravel()
        idx = np.searchsorted(key, q, side="right") - 1
        ok = (
            (idx >= 0)
            & (key[np.maximum(idx, 0)] // span == np.repeat(r, IMAGE_BINS))
            & (ends[np.maximum(idx, 0)] > q % span)
        )
        image[r0 : r0 + len(r)] = np.where(ok, colour_sorted[np.maximum(idx, 0)], 0).reshape(len(r), IMAGE_BINS)
        yield
    first_bin = np.minimum(t[:, 2] * IMAGE_BINS // duration, IMAGE_BINS - 1)
    image[row, first_bin] = colour  # a block shorter than a bin still shows
    return image, per_sm


def _step(times: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points of a staircase that holds each value from its time to the next."""
    xs = np.repeat(times, 2)[1:]
    ys = np.repeat(values, 2)[:-1]
    return xs, ys
