"""The Hopper pipeline on a timeline: a recorded `gemmviz-pipeline-trace` file, checked, and
what it says. No Qt.

The instrumented wgmma kernel stamps, on one SM, when each TMA copy is issued and lands, when each mbarrier
wait starts and ends and when each wgmma batch is issued and retires, per warpgroup and stage (`clock64`
cycles or `%globaltimer` ns). The producer warpgroup issues TMA copies and waits for a free stage (the "empty"
barrier); each consumer warpgroup waits for a stage's data (the "full" barrier) and runs wgmma on it. A bubble
is a time between the first wgmma and the last when no wgmma of any consumer is in flight: the tensor cores
idle while the pipeline waits.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gemmviz.core.messages import define, render
from gemmviz.core.session import recorded
from gemmviz.core.session.recorded import fail

SCHEMA = "gemmviz-pipeline-trace"
MAX_BYTES = 32 << 20
MAX_EVENTS = 200_000
MAX_WARPGROUPS = 16  # 2,048 threads: more than an SM holds
MAX_STAGES = 32
MAX_K_ITERS = 1 << 20
CLOCKS = {"clock64": 1e13, "globaltimer_ns": 3.6e12}  # clock -> the longest span it may record (an hour)
ROLES = ("producer", "consumer")
KINDS = ("tma", "wait", "wgmma")
EVENT_KEYS = {"warpgroup", "role", "kind", "stage", "k_iter", "start", "end"}


@dataclass(frozen=True)
class Event:
    warpgroup: int
    role: str
    kind: str
    stage: int
    k_iter: int
    start: float  # from the trace's first stamp, in the file's clock units
    end: float


@dataclass(frozen=True)
class PipelineTrace:
    header: recorded.Header
    variant: str
    params: dict
    m: int
    n: int
    k: int
    sm: int
    clock: str  # "clock64" (cycles) or "globaltimer_ns" (ns)
    events: tuple[Event, ...]

    @property
    def label(self) -> str:
        return recorded.label(self.variant, self.params)

    @property
    def span(self) -> float:
        return max((e.end for e in self.events), default=0.0)

    def lanes(self) -> list[tuple[int, str]]:
        """(warpgroup, role) of each lane, producers first, then by warpgroup."""
        return sorted({(e.warpgroup, e.role) for e in self.events}, key=lambda x: (x[1] != "producer", x[0]))

    @property
    def stages(self) -> int:
        return max((e.stage for e in self.events), default=-1) + 1


def _event(d: object, file: str, i: int) -> tuple:
    where = f"events[{i}]."
    if not isinstance(d, dict) or set(d) != EVENT_KEYS:
        raise fail(file, f"events[{i}]", f"must be an object with exactly {', '.join(sorted(EVENT_KEYS))}")
    if d["role"] not in ROLES:
        raise fail(file, where + "role", f"must be one of {', '.join(ROLES)}, got {str(d['role'])[:20]!r}")
    if d["kind"] not in KINDS:
        raise fail(file, where + "kind", f"must be one of {', '.join(KINDS)}, got {str(d['kind'])[:20]!r}")
    wg = recorded.whole(d, "warpgroup", file, 0, MAX_WARPGROUPS - 1, where)
    stage = recorded.whole(d, "stage", file, 0, MAX_STAGES - 1, where)
    k_iter = recorded.whole(d, "k_iter", file, 0, MAX_K_ITERS, where)
    start = recorded.number(d["start"], file, where + "start", 0, 2.0**63)
    end = recorded.number(d["end"], file, where + "end", 0, 2.0**63)
    if end < start:
        raise fail(file, where + "end", f"{end:g} is before its start {start:g}")
    return wg, d["role"], d["kind"], stage, k_iter, start, end


def read_pipeline(doc: object, file: str = "pipeline file") -> PipelineTrace:
    """A parsed pipeline trace, checked (RecordError: one line, the file and the field)."""
    head = recorded.header(doc, file, SCHEMA)
    assert isinstance(doc, dict)
    variant = recorded.variant_name(doc, file, "")
    p = recorded.params(doc, file, "")
    m, n, k = (recorded.whole(doc, x, file, 1, 65536) for x in "mnk")
    sm = recorded.whole(doc, "sm", file, 0, 1023)
    clock = doc.get("clock")
    if not isinstance(clock, str) or clock not in CLOCKS:  # a list or an object is no key of CLOCKS
        raise fail(file, "clock", f"must be one of {', '.join(CLOCKS)}, got {str(clock)[:20]!r}")
    raw = doc.get("events")
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_EVENTS:
        raise fail(file, "events", f"must be a list of 1 to {MAX_EVENTS:,} events")
    rows = [_event(d, file, i) for i, d in enumerate(raw)]
    t0 = min(r[5] for r in rows)
    span = max(r[6] for r in rows) - t0
    if span <= 0:
        raise fail(file, "events", "every event starts and ends at the same instant: the clock did not advance")
    if span > CLOCKS[clock]:
        raise fail(file, "events", f"the trace spans {span:g} {clock} units, over an hour")
    events = tuple(Event(wg, role, kind, st, ki, s - t0, e - t0) for wg, role, kind, st, ki, s, e in rows)
    return PipelineTrace(head, variant, p, m, n, k, sm, clock, events)


def load_pipeline_file(path: str | os.PathLike) -> PipelineTrace:
    name, doc = recorded.read_json(path, MAX_BYTES)
    return read_pipeline(doc, name)


def load_shipped_pipeline(lang: str = "en") -> tuple[PipelineTrace | None, str]:
    """(the newest shipped pipeline trace, "") or (None, why there is none, in `lang`)."""
    from gemmviz.core.paths import asset_files, asset_path

    files = sorted(f.name for f in asset_files("sessions", ".json") if f.name.endswith(recorded.RECORD_SUFFIXES[1]))
    if not files:
        return None, render("pipe.none_shipped", lang)
    try:
        return load_pipeline_file(asset_path("sessions", files[-1])), ""
    except recorded.RecordError as exc:
        return None, str(exc)


# ------------------------------------------------------------------------------------------------ summary


def union(intervals: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Overlapping or touching intervals merged, in order."""
    out: list[list[float]] = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def bubbles(trace: PipelineTrace) -> list[tuple[float, float]]:
    """Times between the first wgmma and the last when no consumer has a wgmma in flight."""
    busy = union([(e.start, e.end) for e in trace.events if e.kind == "wgmma"])
    return [(a[1], b[0]) for a, b in zip(busy, busy[1:]) if b[0] > a[1]]


def column_time(intervals: Sequence[tuple[float, float]], lo: float, hi: float, columns: int) -> np.ndarray:
    """How much of each of `columns` equal slices of [lo, hi] the intervals cover, as a share of the slice (0 to
    1 where they do not overlap). Where a batch is narrower than a pixel, boxes drawn one by one blend two colours
    into a third; a slice's share is what it spent, whatever the width.

    The covered length below p is Σ max(p − start, 0) − max(p − end, 0) over the intervals: two sorted sums."""
    if columns <= 0 or hi <= lo:
        return np.zeros(max(columns, 0))
    edges = np.linspace(lo, hi, columns + 1)
    if not len(intervals):
        return np.zeros(columns)
    pairs = np.asarray(intervals, dtype=float)
    below = np.zeros(columns + 1)
    for ends, sign in ((np.sort(pairs[:, 0]), 1.0), (np.sort(pairs[:, 1]), -1.0)):
        count = np.searchsorted(ends, edges, side="right")
        total = np.concatenate([[0.0], np.cumsum(ends)])[count]
        below += sign * (count * edges - total)
    return np.diff(below) / (edges[1] - edges[0])


def most_in_flight(trace: PipelineTrace, kind: str = "tma") -> int:
    """The most events of `kind` in flight at once (an end before a start at the same instant)."""
    marks = sorted(
        [(e.start, 1) for e in trace.events if e.kind == kind] + [(e.end, -1) for e in trace.events if e.kind == kind]
    )
    most = now = 0
    for _t, step in marks:
        now += step
        most = max(most, now)
    return most


FIRST_K_STEPS = 8  # the "start" window: the ring filling up and the first batches, readable box by box


def windows(trace: PipelineTrace) -> dict[str, tuple[float, float]]:
    """Spans of the trace worth a look, (from, to) in its clock: "all"; "start", the first FIRST_K_STEPS k-steps
    (where there are more); "bubble", around the longest bubble (where there is one)."""
    out = {"all": (0.0, trace.span)}
    first = [e for e in trace.events if e.k_iter < FIRST_K_STEPS]
    if first and len({e.k_iter for e in trace.events}) > FIRST_K_STEPS:
        out["start"] = (0.0, max(e.end for e in first))
    gaps = bubbles(trace)
    if gaps:
        s, e = max(gaps, key=lambda g: g[1] - g[0])
        margin = max(2 * (e - s), trace.span / 40)
        out["bubble"] = (max(0.0, s - margin), min(trace.span, e + margin))
    return out


@dataclass(frozen=True)
class Summary:
    stages: int
    consumers: int
    k_iters: int
    tensor_busy: float  # share of first wgmma .. last wgmma with a wgmma in flight
    bubbles: int
    longest_bubble: float  # clock units
    consumer_wait: float  # share of the consumers' time (their first to last stamp) spent in waits
    producer_wait: float
    tma_in_flight: int


def _wait_share(trace: PipelineTrace, role: str) -> float:
    lanes = {e.warpgroup for e in trace.events if e.role == role}
    total = waited = 0.0
    for wg in lanes:
        mine = [e for e in trace.events if e.role == role and e.warpgroup == wg]
        total += max(e.end for e in mine) - min(e.start for e in mine)
        waited += sum(e - s for s, e in union([(e.start, e.end) for e in mine if e.kind == "wait"]))
    return waited / total if total else 0.0


def summarise(trace: PipelineTrace) -> Summary:
    mma = [e for e in trace.events if e.kind == "wgmma"]
    gaps = bubbles(trace)
    window = (max(e.end for e in mma) - min(e.start for e in mma)) if mma else 0.0
    idle = sum(e - s for s, e in gaps)
    return Summary(
        stages=trace.stages,
        consumers=len({e.warpgroup for e in trace.events if e.role == "consumer"}),
        k_iters=len({e.k_iter for e in trace.events}),
        tensor_busy=(window - idle) / window if window else 0.0,
        bubbles=len(gaps),
        longest_bubble=max((e - s for s, e in gaps), default=0.0),
        consumer_wait=_wait_share(trace, "consumer"),
        producer_wait=_wait_share(trace, "producer"),
        tma_in_flight=most_in_flight(trace),
    )


_ = define
_(
    "pipe.none_shipped",
    en="no recorded pipeline trace is shipped: run `gemmviz profile --pipeline` on a GPU",
    zh="没有随附录制的流水线记录：在 GPU 上运行 `gemmviz profile --pipeline`",
)
_(
    "pipe.head",
    en="{label} at {size} on SM {sm:int}: {stages:int} stages, {consumers:int} consumer warpgroups, "
    "{iters:int} k-steps",
    zh="{label}，规模 {size}，SM {sm:int}：{stages:int} 级流水，{consumers:int} 个消费者 warpgroup，"
    "{iters:int} 个 k 步",
)
_(
    "pipe.busy",
    en="Tensor cores busy {busy:pct} of the time from the first wgmma to the last; bubbles: {n:int}, "
    "the longest {longest:sig3} {unit:msg}",
    zh="从第一个 wgmma 到最后一个，张量核心有 {busy:pct} 的时间在工作：{n:int} 个气泡，最长 {longest:sig3} {unit:msg}",
)
_(
    "pipe.wait_consumer",
    en="Consumers waited for TMA data (full barrier) {share:pct} of their time",
    zh="消费者等待 TMA 数据（full 屏障）占其时间的 {share:pct}",
)
_(
    "pipe.wait_producer",
    en="The producer waited for a free stage (empty barrier) {share:pct} of its time",
    zh="生产者等待空闲的流水级（empty 屏障）占其时间的 {share:pct}",
)
_("pipe.tma", en="Up to {n:int} TMA copies in flight at once", zh="同时最多有 {n:int} 个 TMA 拷贝在途")
_("pipe.unit.clock64", en="cycles", zh="个周期")
_("pipe.unit.globaltimer_ns", en="ns", zh="纳秒")


def sentences(trace: PipelineTrace, lang: str = "en") -> list[str]:
    s = summarise(trace)
    size = f"{trace.m}×{trace.n}×{trace.k}"
    return [
        render(
            "pipe.head",
            lang,
            {
                "label": trace.label.replace(",", ", "),  # a side panel wraps it at its commas, not mid-word
                "size": size,
                "sm": trace.sm,
                "stages": s.stages,
                "consumers": s.consumers,
                "iters": s.k_iters,
            },
        ),
        render(
            "pipe.busy",
            lang,
            {"busy": s.tensor_busy, "n": s.bubbles, "longest": s.longest_bubble, "unit": f"pipe.unit.{trace.clock}"},
        ),
        render("pipe.wait_consumer", lang, {"share": s.consumer_wait}),
        render("pipe.wait_producer", lang, {"share": s.producer_wait}),
        render("pipe.tma", lang, {"n": s.tma_in_flight}),
    ]


_("view.pipe.title", en="The Hopper pipeline of {label} on SM {sm:int}", zh="{label} 在 SM {sm:int} 上的 Hopper 流水线")
_("view.pipe.producer", en="WG{wg:int} producer", zh="WG{wg:int} 生产者")
_("view.pipe.consumer", en="WG{wg:int} consumer", zh="WG{wg:int} 消费者")
_("view.pipe.bubbles", en="tensor idle", zh="张量核心空闲")
_("view.pipe.tma", en="TMA copy (a row per stage)", zh="TMA 拷贝（每级一行）")
_("view.pipe.wait_full", en="wait: data (full barrier)", zh="等待数据（full 屏障）")
_("view.pipe.wait_empty", en="wait: free stage (empty barrier)", zh="等待空闲级（empty 屏障）")
_("view.pipe.wgmma", en="wgmma batch", zh="wgmma 批次")
_("view.pipe.bubble", en="bubble: no wgmma in flight", zh="气泡：没有 wgmma 在执行")
_(
    "view.pipe.dense",
    en="height: share of time",  # (shown where the boxes are thinner than a pixel: each column's share)
    zh="高度：所占时间的比例",
)
_("view.pipe.axis.clock64", en="cycles from the first stamp", zh="自第一个时间戳起的周期数")
_("view.pipe.axis.globaltimer_ns", en="ns from the first stamp", zh="自第一个时间戳起的纳秒数")
_("view.pipe.none", en="No pipeline trace to draw: {why}", zh="没有可画的流水线记录：{why}")


# ------------------------------------------------------------------------------------------------ writing
STAMP_KINDS = ("tma", "wait", "wgmma")  # the instrumented kernel's slot order (kernels/wgmma_tf32.cu)


def events_from_stamps(stamps, tiles, stages: int) -> list[dict]:
    """The trace's events from the instrumented kernel's stamps: `stamps` [tile][warpgroup][k-block][kind][start,
    end] (0: not recorded), `tiles` [tile][block, row, column, k-blocks]. Warpgroup 0 is the producer; k_iter
    counts the SM's k-blocks across its traced tiles (tile t's k-block kb is t·KT + kb); stage is the ring slot
    (kb mod stages); times from the first stamp."""
    import numpy as np

    ev = np.asarray(stamps, dtype=np.int64)
    recorded = [t for t in range(ev.shape[0]) if ev[t].any()]
    if not recorded:
        return []
    t0 = min(int(ev[t][ev[t] > 0].min()) for t in recorded)
    events = []
    for t in recorded:
        kt = int(tiles[t][3])
        for wg in range(ev.shape[1]):
            for kb in range(min(kt, ev.shape[2])):
                for kind, name in enumerate(STAMP_KINDS):
                    start, end = (int(x) for x in ev[t, wg, kb, kind])
                    if start == 0 or end == 0:
                        continue
                    events.append(
                        {
                            "warpgroup": wg,
                            "role": "producer" if wg == 0 else "consumer",
                            "kind": name,
                            "stage": kb % stages,
                            "k_iter": t * kt + kb,
                            "start": start - t0,
                            "end": end - t0,
                        }
                    )
    return events


def pipeline_document(events: list[dict], meta: dict) -> dict:
    """A gemmviz-pipeline-trace file: `meta` holds gpu, created, command, variant, params, m, n, k, sm and clock.
    Checked by the loader before it is returned, so a file gemmviz writes is one it reads."""
    doc = {"schema": SCHEMA, "schema_version": 1, **meta, "events": events}
    read_pipeline(doc, "the pipeline trace")
    return doc


def pipeline_path(session_path: str | os.PathLike) -> str:
    """Where `gemmviz profile --pipeline` writes: h200-DATE.json -> h200-DATE-pipeline.json."""
    text = os.fspath(session_path)
    return (text[: -len(".json")] if text.endswith(".json") else text) + "-pipeline.json"
