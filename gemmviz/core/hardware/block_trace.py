"""A block trace (kernels/trace.cuh): which SM ran each block and when, decoded from the kernel's u64 buffer and
checked, and what follows from it: the blocks resident over time, waves, blocks per SM and the tail of the last
wave. Whole-array numpy work, in steps a view can spread over event-loop turns. No Qt, no GPU."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, overload

from gemmviz.core.fileio import FileFormatError
from gemmviz.core.session.bounds import MAX_SMS, MAX_TRACE_NS

if TYPE_CHECKING:  # numpy is imported where it is used: not on the window's first frame's path
    import numpy as np

TRACE_FIELDS = 4  # block, sm, start, end (u64 each), as kernels/trace.cuh writes them
_UNWRITTEN = 0xFFFFFFFFFFFFFFFF  # (a u64) the host fills the buffer with this before the launch


class TraceError(FileFormatError):
    """A block trace is incomplete or inconsistent; the message says which block and why."""


def decode_trace(raw: Iterable[int] | np.ndarray) -> list[list[int]]:
    """[[block, sm, start_ns, end_ns], ...] from the u64 buffer of kernels/trace.cuh.

    Sorted by start time (then block); times relative to the earliest start. Refuses a buffer in which
    a block never wrote its record, a block id that is out of place, or an end before its start.
    """
    import numpy as np

    a = np.asarray(raw, dtype=np.uint64)
    if a.ndim != 1 or a.size % TRACE_FIELDS:
        raise TraceError(f"a block trace holds {TRACE_FIELDS} u64 per block; got {a.size} values")
    rec = a.reshape(-1, TRACE_FIELDS)
    if rec.shape[0] == 0:
        raise TraceError("the block trace is empty")
    missing = np.flatnonzero((rec == np.uint64(_UNWRITTEN)).any(axis=1))
    if missing.size:
        raise TraceError(f"{missing.size} blocks never wrote their record (first: block {int(missing[0])})")
    ids = rec[:, 0]
    wrong = np.flatnonzero(ids != np.arange(rec.shape[0], dtype=np.uint64))
    if wrong.size:
        i = int(wrong[0])
        raise TraceError(f"record {i} holds block {int(ids[i])}: each block must write its own slot once")
    if (rec[:, 3] < rec[:, 2]).any():
        i = int(np.flatnonzero(rec[:, 3] < rec[:, 2])[0])
        raise TraceError(f"block {i} ends before it starts")
    t0 = rec[:, 2].min()
    out = np.stack([ids, rec[:, 1], rec[:, 2] - t0, rec[:, 3] - t0], axis=1).astype(np.int64)
    # what the session loader would refuse (core/session/bounds.py) is refused here, and the result keeps no trace
    if (out[:, 3] == out[:, 2]).all():
        raise TraceError("every block ends as it starts: the GPU's timer is too coarse for this kernel")
    if int(out[:, 3].max()) > MAX_TRACE_NS or int(out[:, 1].max()) >= MAX_SMS:
        raise TraceError(f"the trace lasts over an hour or names an SM id of {MAX_SMS} or more")
    order = np.lexsort((out[:, 0], out[:, 2]))
    return out[order].tolist()


_TIME_BITS = 43  # trace times below 2^43 ns (2.4 hours; the loader allows one) pack beside an SM id or a flag


def _packable(t: np.ndarray) -> bool:
    return len(t) == 0 or (
        int(t[:, 2:].min()) >= 0
        and int(t[:, 3].max()) < 1 << _TIME_BITS
        and 0 <= int(t[:, 1].min())
        and int(t[:, 1].max()) < 1 << 10
    )


@overload
def _events(t: np.ndarray, by_sm: Literal[True]) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
@overload
def _events(t: np.ndarray, by_sm: Literal[False]) -> tuple[None, np.ndarray, np.ndarray]: ...
def _events(t: np.ndarray, by_sm: bool) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """(sm (None unless `by_sm`), time, +1/-1) of every block's start and end, in order of SM (when `by_sm`),
    then time, an end before a start at the same instant. One in-place sort of packed int64 keys (few
    temporaries: on a million blocks their first touch cost more than the sort)."""
    import numpy as np

    n = len(t)
    if not _packable(t):
        times = np.concatenate([t[:, 2], t[:, 3]])
        starts = np.concatenate([np.ones(n, np.int64), np.zeros(n, np.int64)])
        sms = np.concatenate([t[:, 1], t[:, 1]]) if by_sm else np.zeros(2 * n, np.int64)
        order = np.lexsort((starts, times, sms))
        return (sms[order] if by_sm else None), times[order], 2 * starts[order] - 1
    key = np.empty(2 * n, np.int64)
    np.left_shift(t[:, 2], 1, out=key[:n])
    key[:n] |= 1
    np.left_shift(t[:, 3], 1, out=key[n:])
    if by_sm:
        sm_bits = t[:, 1] << (_TIME_BITS + 1)
        key[:n] |= sm_bits
        key[n:] |= sm_bits
    key.sort()
    steps = (key & 1) * 2 - 1
    packed_sms = key >> (_TIME_BITS + 1) if by_sm else None
    if by_sm:
        key &= (1 << (_TIME_BITS + 1)) - 1
    key >>= 1
    return packed_sms, key, steps


def resident_timeline(
    trace: Sequence[Sequence[int]] | np.ndarray, sm: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(times_ns, resident blocks from each time to the next) on one SM, or on the whole GPU when sm is None.

    A block ending at the same instant another starts is counted out first.
    """
    import numpy as np

    t = np.asarray(trace, dtype=np.int64).reshape(-1, TRACE_FIELDS)
    if sm is not None:
        t = t[t[:, 1] == sm]
    _sms, times, steps = _events(t, by_sm=False)
    return times, np.cumsum(steps)


@dataclass(frozen=True)
class TraceSummary:
    blocks: int
    sms_used: int
    duration_ns: int
    blocks_per_sm_min: int
    blocks_per_sm_max: int
    max_resident_per_sm: int  # the most blocks one SM held at once
    max_resident_total: int  # the most blocks the GPU held at once
    waves: float  # blocks / max_resident_total
    tail_pct: float  # share of the run after the last moment the most SMs were busy at once
    block_ns_median: float
    busy_sm_ns: int  # SM-time with at least one block resident, summed over the SMs (core/hardware/last_wave.py)


def trace_summary(trace: Sequence[Sequence[int]] | np.ndarray) -> TraceSummary:
    """Waves, blocks per SM, residency and the tail of the last wave, from a decoded trace.

    The tail starts when the number of busy SMs falls for the last time from its maximum: from then on
    some SMs sit idle while the last blocks finish (the partly filled last wave, plus end-of-run jitter).
    Whole-array work only (sorts of packed keys), so a million-block trace takes a fraction of a second.
    """
    steps = trace_summary_steps(trace)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def trace_summary_steps(trace: Sequence[Sequence[int]] | np.ndarray) -> Generator[None, None, TraceSummary]:
    """trace_summary in steps of a few tens of milliseconds each for a million blocks (a view that must not
    stall runs one per event-loop turn); yields between them, returns the TraceSummary."""
    import numpy as np

    t = np.asarray(trace, dtype=np.int64).reshape(-1, TRACE_FIELDS)
    if len(t) == 0:
        raise TraceError("the block trace is empty")
    per_sm = np.bincount(t[:, 1]) if int(t[:, 1].min()) >= 0 else np.unique(t[:, 1], return_counts=True)[1]
    per_sm = per_sm[per_sm > 0]
    sm, times, steps = _events(t, by_sm=True)
    yield
    total_then = np.cumsum(steps)
    first = np.flatnonzero(np.r_[True, sm[1:] != sm[:-1]])  # where each SM's events begin
    before_sm = np.repeat(np.r_[0, total_then[first[1:] - 1]], np.diff(np.r_[first, len(sm)]))
    resident = total_then - before_sm  # blocks on this event's SM after it
    max_per_sm = int(resident.max())
    # an SM turns busy when its count leaves 0 and idle when it returns there; summed per instant over all SMs
    change = (resident > 0).astype(np.int64) - (resident - steps > 0).astype(np.int64)
    yield
    if _packable(t):  # the order within an instant does not matter: only the count after its last event
        key = np.sort((times << 2) | (change + 1))
        at, change = key >> 2, (key & 3) - 1
    else:
        order = np.argsort(times, kind="stable")
        at, change = times[order], change[order]
    last = np.flatnonzero(np.r_[at[1:] != at[:-1], True])  # the last event at each instant
    busy_times, busy = at[last], np.cumsum(change)[last]
    busy_sm_ns = int((busy[:-1] * np.diff(busy_times)).sum())  # busy SMs × how long, instant to instant
    last_full = busy_times[min(np.flatnonzero(busy == busy.max())[-1] + 1, len(busy_times) - 1)]
    yield
    _, total = resident_timeline(t)
    end = int(t[:, 3].max())
    most = int(total.max())
    if most == 0:
        raise TraceError("every block ends as it starts: no block was ever resident")
    yield
    return TraceSummary(
        blocks=len(t),
        sms_used=len(per_sm),
        duration_ns=end,
        blocks_per_sm_min=int(per_sm.min()),
        blocks_per_sm_max=int(per_sm.max()),
        max_resident_per_sm=max_per_sm,
        max_resident_total=most,
        waves=len(t) / most,
        tail_pct=100.0 * (end - int(last_full)) / end if end else 0.0,
        block_ns_median=float(np.median(t[:, 3] - t[:, 2])),
        busy_sm_ns=busy_sm_ns,
    )
