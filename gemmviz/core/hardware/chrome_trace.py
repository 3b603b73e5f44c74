"""gemmviz's traces in the Chrome Trace Event format, which Perfetto (ui.perfetto.dev) and
chrome://tracing open, as they open PyTorch's and JAX's profiles. No Qt.

- A block trace (Result.block_trace: [[block, sm, start_ns, end_ns], ...], times from the kernel's first block)
  is one process per kernel run, one track per SM, and a slice per block named by its index. Where several
  blocks are resident on one SM at once, the SM has a track per slot ("SM 12 · slot 2"): a track's slices never
  overlap (a viewer nests or hides overlapping slices of one track).
- The Hopper pipeline timeline (core/hardware/pipeline_trace.py) is one process: each warpgroup's tracks, the
  producer's first, with its TMA copies, its waits for a free stage, and each consumer's waits for data and its
  wgmma batches. Copies and batches in flight at once go on numbered tracks of their warpgroup, for the same
  reason.

Timestamps (`ts`) and durations (`dur`) are in µs from the kernel's start; metadata events ("ph": "M") name each
process and track and order them. The format: "Trace Event Format" (Google, the document chrome://tracing links
to); complete events ("ph": "X") carry ts and dur.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence

from gemmviz import __version__
from gemmviz.core.hardware.pipeline_trace import PipelineTrace
from gemmviz.core.session.results import Result

NS_PER_US = 1000.0
DIGITS = 6  # µs to the picosecond: a clock64 cycle at 2 GHz is 0.0005 µs
KIND_NAMES = {"tma": "TMA copy", "wait": "wait", "wgmma": "wgmma batch"}
TRACK_NAMES = {
    ("producer", "tma"): "TMA copies",
    ("producer", "wait"): "waits for a free stage (empty barrier)",
    ("consumer", "wait"): "waits for data (full barrier)",
    ("consumer", "wgmma"): "wgmma batches",
}


def _us(x: float) -> float:
    return round(x, DIGITS)


def pack(intervals: Sequence[tuple[float, float]]) -> list[int]:
    """A slot for each interval (in the given order) such that no two intervals of one slot overlap (touching is
    allowed), with as few slots as any packing needs (the greedy packing by start time)."""
    order = sorted(range(len(intervals)), key=lambda i: (intervals[i][0], intervals[i][1]))
    free: list[int] = []  # slots whose last interval has ended, smallest first
    busy: list[tuple[float, int]] = []  # (end, slot) of the slots in use
    slots = [0] * len(intervals)
    count = 0
    for i in order:
        start, end = intervals[i]
        while busy and busy[0][0] <= start:
            heapq.heappush(free, heapq.heappop(busy)[1])
        if free:
            slot = heapq.heappop(free)
        else:
            slot, count = count, count + 1
        slots[i] = slot
        heapq.heappush(busy, (end, slot))
    return slots


def _meta(name: str, pid: int, tid: int | None, args: dict) -> dict:
    event = {"name": name, "ph": "M", "pid": pid, "args": args}
    if tid is not None:
        event["tid"] = tid
    return event


def block_trace_events(r: Result, pid: int, gpu: str = "") -> list[dict]:
    """One kernel run's block trace: its process, a track per SM (per SM slot where blocks shared an SM at once)
    and a slice per block."""
    rows = r.block_trace or []
    intervals = [(float(s), float(e)) for _b, _sm, s, e in rows]
    by_sm: dict[int, list[int]] = {}
    for i, row in enumerate(rows):
        by_sm.setdefault(int(row[1]), []).append(i)
    slot_of = [0] * len(rows)
    slots_per_sm = {}
    for sm, idx in by_sm.items():
        slots = pack([intervals[i] for i in idx])
        for i, slot in zip(idx, slots):
            slot_of[i] = slot
        slots_per_sm[sm] = max(slots) + 1
    width = max(slots_per_sm.values(), default=1)
    name = f"{r.series} {r.problem.label}" + (f" · {gpu}" if gpu else "") + " · block trace"
    events = [
        _meta("process_name", pid, None, {"name": name}),
        _meta("process_sort_index", pid, None, {"sort_index": pid}),
        _meta("process_labels", pid, None, {"labels": f"{len(rows):,} blocks on {len(by_sm)} SMs"}),
    ]
    for sm in sorted(by_sm):
        for slot in range(slots_per_sm[sm]):
            tid = sm * width + slot
            track = f"SM {sm}" if slots_per_sm[sm] == 1 else f"SM {sm} · slot {slot + 1}"
            events.append(_meta("thread_name", pid, tid, {"name": track}))
            events.append(_meta("thread_sort_index", pid, tid, {"sort_index": tid}))
    for i, (block, sm, start, end) in enumerate(rows):
        ts = _us(start / NS_PER_US)
        events.append(
            {
                "name": f"block {block}",
                "cat": "block",
                "ph": "X",
                "pid": pid,
                "tid": int(sm) * width + slot_of[i],
                "ts": ts,
                "dur": _us(_us(end / NS_PER_US) - ts),
                "args": {"block": int(block), "sm": int(sm)},
            }
        )
    return events


def cycles_per_us(trace: PipelineTrace, clock_mhz: float | None) -> float:
    """How many of the trace's clock units make a µs: 1000 for %globaltimer ns, the SM clock in MHz for clock64
    cycles (ValueError where a clock64 trace is given no clock)."""
    if trace.clock == "globaltimer_ns":
        return NS_PER_US
    if not clock_mhz or clock_mhz <= 0:
        raise ValueError("the pipeline trace counts SM cycles (clock64): its SM clock in MHz is needed")
    return float(clock_mhz)


def pipeline_events(trace: PipelineTrace, pid: int, clock_mhz: float | None = None, gpu: str = "") -> list[dict]:
    """The Hopper pipeline on one SM: a process, each warpgroup's tracks (producer first), a slice per TMA copy,
    wait and wgmma batch."""
    per_us = cycles_per_us(trace, clock_mhz)
    lanes: dict[tuple[int, str, str], list[int]] = {}
    for i, e in enumerate(trace.events):
        lanes.setdefault((e.warpgroup, e.role, e.kind), []).append(i)
    order = sorted(lanes, key=lambda k: (k[1] != "producer", k[0], ("tma", "wait", "wgmma").index(k[2])))
    clock = "%globaltimer" if trace.clock == "globaltimer_ns" else f"clock64 at {per_us:,.0f} MHz"
    name = f"{trace.label} pipeline on SM {trace.sm}, {trace.m}×{trace.n}×{trace.k}" + (f" · {gpu}" if gpu else "")
    events = [
        _meta("process_name", pid, None, {"name": name}),
        _meta("process_sort_index", pid, None, {"sort_index": pid}),
        _meta("process_labels", pid, None, {"labels": f"{trace.stages} stages; times from {clock}"}),
    ]
    tid = 0
    for key in order:
        warpgroup, role, kind = key
        idx = lanes[key]
        slots = pack([(trace.events[i].start, trace.events[i].end) for i in idx])
        count = max(slots) + 1
        for slot in range(count):
            track = f"WG{warpgroup} {role} · {TRACK_NAMES.get((role, kind), kind)}" + (
                f" {slot + 1}" if count > 1 else ""
            )
            events.append(_meta("thread_name", pid, tid + slot, {"name": track}))
            events.append(_meta("thread_sort_index", pid, tid + slot, {"sort_index": tid + slot}))
        for i, slot in zip(idx, slots):
            e = trace.events[i]
            ts = _us(e.start / per_us)
            events.append(
                {
                    "name": f"{KIND_NAMES[e.kind]} stage {e.stage}",
                    "cat": e.kind,
                    "ph": "X",
                    "pid": pid,
                    "tid": tid + slot,
                    "ts": ts,
                    "dur": _us(_us(e.end / per_us) - ts),
                    "args": {"warpgroup": e.warpgroup, "stage": e.stage, "k_iter": e.k_iter},
                }
            )
        tid += count
    return events


def chrome_trace(
    runs: Iterable[Result],
    pipeline: PipelineTrace | None = None,
    clock_mhz: float | None = None,
    gpu: str = "",
    source: str = "",
) -> dict:
    """The whole file: each traced result's block trace, then the pipeline (with its SM clock for clock64)."""
    events: list[dict] = []
    pid = 0
    for r in runs:
        if r.block_trace:
            pid += 1
            events += block_trace_events(r, pid, gpu)
    if pipeline is not None:
        pid += 1
        events += pipeline_events(pipeline, pid, clock_mhz, gpu)
    return {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {"writer": f"gemmviz {__version__}", "source": source, "time_unit": "µs from the kernel's start"},
    }


def pipeline_clock(trace: PipelineTrace, results: Sequence[Result], environment: dict) -> float | None:
    """The SM clock (MHz) a clock64 pipeline trace's cycles are turned into µs with: the measured clock of the
    session's result of that kernel at that size, else the session GPU's SM clock, else its maximum."""
    same = [
        r for r in results if r.variant == trace.variant and (r.m, r.n, r.k) == (trace.m, trace.n, trace.k) and r.valid
    ]
    for r in same:
        if r.sm_clock_nvml_mhz or r.clock_mhz:
            return r.sm_clock_nvml_mhz or r.clock_mhz
    gpu = environment.get("backends", {}).get("cuda", {})
    for key in ("sm_clock_mhz", "max_sm_clock_mhz"):
        value = gpu.get(key)
        if isinstance(value, int | float) and value > 0:
            return float(value)
    return None
