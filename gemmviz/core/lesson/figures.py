"""The figures a lesson's placeholders write (core/lesson/placeholders.py reads the syntax): from the results a
step shows (a kernel's rate, time or speedup at a size), the traffic model, the hardware counters and block
traces, and the shipped ceilings; each written as the lesson's language writes it (core/numbers.py), or None
where the results lack it."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from gemmviz.core.hardware.block_trace import TraceSummary, trace_summary
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.lesson.series import COUNT_PLACEHOLDERS, COUNTER_PLACEHOLDERS, SeriesRef, best, counter_value
from gemmviz.core.messages import define, render
from gemmviz.core.numbers import byte_size, count, duration, ratio
from gemmviz.core.paths import asset_files
from gemmviz.core.problem import FLOAT32_BYTES, Problem
from gemmviz.core.session.results import Result

RESULT_FIGURES = ("gflops", "tflops", "ms")  # {{KIND SERIES at N}}
define("lesson.times", en="{x:.1f}×", zh="{x:.1f} 倍")


def result_figure(kind: str, ref: SeriesRef, problem: Problem, results: list[Result], lang: str = "en") -> str | None:
    """The fastest result of `ref` at `problem`: its GFLOP/s, TFLOP/s or median time (`kind`); None if none."""
    r = best(results, ref, problem)
    if r is None or r.median_ms is None or r.gflops is None:
        return None
    if kind == "ms":
        return duration(r.median_ms, lang)
    if kind == "tflops":
        return f"{r.gflops / 1000:,.1f} TFLOP/s"
    return f"{r.gflops:,.0f} GFLOP/s" if r.gflops >= 100 else f"{r.gflops:.3g} GFLOP/s"  # the CPU loop: 0.274


def speedup_figure(
    faster: SeriesRef, than: SeriesRef, problem: Problem, results: list[Result], lang: str
) -> str | None:
    """How many times faster `faster`'s best result is than `than`'s at `problem`; None if either is missing."""
    a, b = best(results, faster, problem), best(results, than, problem)
    if a is None or b is None or a.median_ms is None or b.median_ms is None:
        return None
    return ratio(b.median_ms / a.median_ms, lang)


def flops_figure(n: int, lang: str) -> str:
    """The floating-point operations of an N³ product, 2·N³: arithmetic, not a measurement."""
    return count(2 * n**3, lang)


SECTOR_BYTES = 32
WARP = 32
# shared_per_fma: shared-memory load instructions per multiply-add of one thread (the shared_loads counter counts
# warp instructions: × 32 lanes ÷ M·N·K): 1.25 where A's reads merge into LDS.128, 2 where none merge
HARDWARE_PLACEHOLDERS = ("model", *COUNTER_PLACEHOLDERS, "shared_per_fma", "blocks", "waves", "resident")


def hardware_figure(kind: str, ref: SeriesRef, problem: Problem, results: list[Result], lang: str = "en") -> str | None:
    """A figure from the model, the counters or the block trace of `ref` at `problem`; None if the results lack it."""
    if kind == "model":  # arithmetic: what the code asks for, every global load counted
        v = VARIANTS[ref.variant]
        if v.traffic is None:
            return None
        t = v.traffic_model(problem, dict(ref.params))
        return byte_size(FLOAT32_BYTES * t.global_loads, lang)
    if kind == "shared_per_fma":
        value = counter_value(results, ref, problem, "shared_loads")
        return None if value is None else f"{value * WARP / (problem.m * problem.n * problem.k):.2f}"
    if kind in COUNTER_PLACEHOLDERS:
        value = counter_value(results, ref, problem, kind)
        if value is None:
            return None
        if kind in COUNT_PLACEHOLDERS:
            return count(int(value), lang)
        return byte_size(value * (SECTOR_BYTES if kind == "l1" else 1), lang)
    traces = [r.block_trace for r in results if ref.matches(r) and r.valid and r.problem == problem and r.block_trace]
    if not traces:
        return None
    summary = _trace_summary(traces[0])
    if kind == "blocks":
        return f"{summary.blocks:,}"
    return f"{summary.max_resident_per_sm}" if kind == "resident" else f"{summary.waves:.2f}"


# id(trace) -> (the trace, its summary), the newest 16
_SUMMARIES: dict[int, tuple[Sequence[Sequence[int]], TraceSummary]] = {}


def _trace_summary(trace: Sequence[Sequence[int]]) -> TraceSummary:
    """trace_summary of a result's block trace, worked out once per trace: every {{blocks …}}, {{waves …}} and
    {{resident …}} of a step (and each repaint of its words in the window) turned the whole trace (3,969 blocks
    of lists) into an array again. Traces are read from files and never changed; the trace is held with its
    summary, so its id is not reused while the entry lives."""
    hit = _SUMMARIES.get(id(trace))
    if hit is not None and hit[0] is trace:
        return hit[1]
    summary = trace_summary(trace)
    while len(_SUMMARIES) >= 16:
        del _SUMMARIES[next(iter(_SUMMARIES))]
    _SUMMARIES[id(trace)] = (trace, summary)
    return summary


CEILING_PLACEHOLDERS = ("shared", "l2", "dram", "shared/dram", "fp32_peak", "ridge")


@functools.cache
def shipped_ceilings() -> dict[str, Any] | None:
    """The newest shipped ceilings file (assets/ceilings), checked: the one set of ceilings every slide quotes
    ({{ceiling …}}) and the roofline draws; None if none is shipped."""
    import json

    from gemmviz.core.hardware.roofline import check_ceilings

    files = asset_files("ceilings", ".json")
    return check_ceilings(json.loads(files[-1].read_text(encoding="utf-8"))) if files else None


define("lesson.quoted.ceilings", en="ceilings: {gpu}, measured {date}", zh="性能上限：{gpu}，测量于 {date}")


def ceilings_footer(lang: str = "en") -> str | None:
    """Where a slide's ceilings come from (its roofline's roofs, its {{ceiling …}} figures): the shipped file's GPU
    and date, which need not be the session's; None where none is shipped."""
    c = shipped_ceilings()
    if not c:
        return None
    from gemmviz.core.session.machines import short_name

    gpu = str(c.get("device") or "?")
    return render("lesson.quoted.ceilings", lang, {"gpu": short_name(gpu) or gpu, "date": str(c.get("date", ""))[:10]})


def ceiling_text(key: str, lang: str = "en") -> str | None:
    """A shipped ceiling as a slide writes it: 'shared' 32.9 TB/s, 'dram' 4.25 TB/s, 'shared/dram' 7.7×,
    'fp32_peak' 66.9 TFLOP/s, 'ridge' 15.7 FLOP/B; None where the file lacks it."""
    c = shipped_ceilings() or {}
    tb = {"shared": "shared_gbs", "l2": "l2_gbs", "dram": "bandwidth_gbs"}
    if key in tb:
        v = c.get(tb[key])
        return None if v is None else f"{v / 1000:.{1 if key != 'dram' else 2}f} TB/s"
    if key == "shared/dram":
        a, b = c.get("shared_gbs"), c.get("bandwidth_gbs")
        return None if not (a and b) else render("lesson.times", lang, {"x": a / b})
    if key == "fp32_peak":
        v = c.get("fp32_peak_gflops")
        return None if v is None else f"{v / 1000:.1f} TFLOP/s"
    a, b = c.get("fp32_peak_gflops"), c.get("bandwidth_gbs")
    return f"{a / b:.1f} FLOP/B" if a and b else None
