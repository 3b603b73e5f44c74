"""The chart kinds every part of gemmviz offers (app tabs, export dialog, `gemmviz export`): one list, and
which result a single-result chart (traffic, sm-trace) draws."""

from __future__ import annotations

from collections.abc import Sequence

# kind -> what it shows, in the words the export dialog and `gemmviz export --help` use
CHART_KINDS: dict[str, str] = {
    "time": "median time vs size (log-log)",
    "gflops": "GFLOP/s vs size (log-log)",
    "speedup": "speedup bars vs a baseline at one size",
    "roofline": "GFLOP/s vs arithmetic intensity under the GPU's ceilings",
    "dashboard": "time, GFLOP/s, speedup and roofline on one 2x2 page",
    "traffic": "the model's traffic beside the hardware counters, per memory level (a profiled result)",
    "sm-trace": "thread blocks on the SMs over time, in waves (a traced result)",
}

# single-result kinds -> the Result field they need, and how to get it
HARDWARE_KINDS: dict[str, tuple[str, str]] = {
    "traffic": ("counters", "hardware counters: run `gemmviz profile` on a GPU"),
    "sm-trace": ("block_trace", "block traces: run `gemmviz profile` with block tracing on a GPU"),
}


class NoHardwareData(ValueError):
    """No result has what a hardware chart needs; the message says what is missing and how to get it."""


def hardware_result(kind: str, results: Sequence, series: str | None = None, size_key: str | None = None):
    """The result a `traffic` or `sm-trace` chart draws: the first valid one (in the given order) that carries
    counters / a block trace, narrowed to a series label (Result.series, or a bare variant name) and a size
    key (\"MxNxK\") when given. Raises NoHardwareData naming what is missing."""
    attr, how = HARDWARE_KINDS[kind]
    having = [r for r in results if r.valid and getattr(r, attr, None)]
    if not having:
        raise NoHardwareData(f"no result in this session has {how}")
    chosen = [r for r in having if series is None or series in (r.series, r.variant)]
    chosen = [r for r in chosen if size_key is None or r.problem.key == size_key]
    if not chosen:
        offer = ", ".join(sorted({f"{r.series} at {r.problem.label}" for r in having}))
        wanted = " at ".join(x for x in (series, size_key) if x)
        raise NoHardwareData(f"no result of {wanted} has {attr.replace('_', ' ')}; results with it: {offer}")
    return chosen[0]


def times_text(x: float) -> str:
    """A ratio as charts and lessons write it: 1.53×, 15.3×, 153×, 15,300× (three figures up to 100)."""
    if round(x, 1) >= 100:
        return f"{x:,.0f}×"
    return f"{x:.1f}×" if round(x, 2) >= 10 else f"{x:.2f}×"
