"""Plain-text explanations the app shows beside its charts: one result, two results, this machine's device."""

from __future__ import annotations

from gemmviz.core.counters import Comparison, LevelRow, TraceSummary, trace_summary
from gemmviz.core.results import Result
from gemmviz.core.rigor import compare, flags
from gemmviz.core.roofline import Ceilings, explain
from gemmviz.core.variants import VARIANTS


def how_measured(r: Result) -> str:
    """The timing protocol of one result, in one sentence."""
    parts = [
        f"How it was measured: {r.warmup} warm-up(s), {len(r.samples_ms)} timed samples, "
        f"{'cold' if r.cold_l2 else 'warm'} L2"
    ]
    if r.sm_clock_mhz_before:
        parts.append(f", SM clock {r.sm_clock_mhz_before:.0f}→{r.sm_clock_mhz_after:.0f} MHz")
    if r.temperature_c_before:
        parts.append(f", {r.temperature_c_before:.0f}→{r.temperature_c_after:.0f} °C")
    return "".join(parts) + "."


def explain_result(r: Result, ceilings: Ceilings | None = None, source: str = "") -> str:
    """The seeds' arithmetic for this result next to what was measured, how, where from, and its warnings."""
    text = explain(r, ceilings)
    if r.samples_ms:
        text += "\n\n" + how_measured(r)
        if r.note:
            text += f"\nNote: {r.note}"
        if source:
            text += f"\nFrom: {source}"
    warnings = flags(r) if r.valid else []
    return text + "".join(f"\n⚠ {w}" for w in warnings)


def explain_pair(a: Result, b: Result) -> str:
    """Whether two results differ by more than their noise."""
    if a.valid and b.valid and a.samples_ms and b.samples_ms:
        return compare(a, b)[2]
    return "Both results must be valid measurements to compare them."


def device_summary(gpu: dict) -> str:
    """One line about this machine's GPU from the probed environment, or why there is none."""
    if gpu.get("available"):
        peak = gpu.get("fp32_peak_gflops") or 0
        clock = gpu.get("sm_clock_mhz") or gpu.get("max_sm_clock_mhz") or 0
        return (
            f"{gpu.get('name')} · {gpu.get('sms')} SMs · cc {gpu.get('compute_capability')} · "
            f"{gpu.get('memory_total_bytes', 0) / 2**30:.0f} GiB · FP32 peak {peak / 1e3:.1f} TFLOP/s · "
            f"SM clock {clock:.0f} MHz"
        )
    return (
        f"No CUDA GPU: {gpu.get('reason', 'no CUDA backend')}. CPU variants run live; GPU figures come from "
        "recorded sessions (File ▸ Open recorded or published session)."
    )


# ---- hardware counters and block traces (issue 14) ---------------------------------------------------


def comparison_of(r: Result) -> Comparison | None:
    """The model's traffic for this result beside its counters; None when it was not profiled."""
    if not r.counters or r.variant not in VARIANTS:
        return None
    traffic = VARIANTS[r.variant].traffic_model(r.problem, r.params, r.config or None)
    return Comparison.of(traffic, r.counters)


def _amount(x: float, unit: str) -> str:
    if unit == "byte":
        for scale, name in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
            if x >= scale:
                return f"{x / scale:,.2f} {name}"
        return f"{x:,.0f} B"
    return f"{x / 1e6:,.2f} M" if x >= 1e5 else f"{x:,.0f}"


def row_text(row: LevelRow) -> str:
    """One level of the comparison in one line: model, measured and their ratio."""
    model = "–" if row.model is None else _amount(row.model, row.unit)
    measured = "not counted" if row.measured is None else _amount(row.measured, row.unit)
    ratio = "" if row.ratio is None else f" ({row.ratio:.3g}× the model)"
    return f"{row.level}, {row.quantity}: model {model}, measured {measured}{ratio}"


def explain_counters(r: Result) -> str:
    """The model beside the hardware's counts, level by level, then one sentence per difference."""
    comp = comparison_of(r)
    if comp is None:
        return f"{r.series} at {r.problem.label}: no hardware counters (run `gemmviz profile` on a GPU)."
    lines = [f"{r.series} at {r.problem.label}: the model (what the code asks for) beside the counters", ""]
    lines += [row_text(row) for row in comp.rows]
    lines += ["", *comp.sentences]
    return "\n".join(lines)


def trace_sentence(s: TraceSummary, sm_count: int | None = None) -> str:
    """Waves, residency and the tail of a block trace, in plain words."""
    sms = f"{s.sms_used}" + (f" of {sm_count}" if sm_count and sm_count != s.sms_used else "")
    per_sm = (
        f"{s.blocks_per_sm_min}"
        if s.blocks_per_sm_min == s.blocks_per_sm_max
        else f"{s.blocks_per_sm_min}–{s.blocks_per_sm_max}"
    )
    return (
        f"{s.blocks:,} blocks ran on {sms} SMs in {s.waves:.2f} waves: up to {s.max_resident_per_sm} blocks resident "
        f"per SM ({s.max_resident_total:,} on the GPU at once), {per_sm} blocks per SM over the run. A block took "
        f"{s.block_ns_median / 1e3:,.1f} µs (median); the run {s.duration_ns / 1e3:,.1f} µs. In the last "
        f"{s.tail_pct:.1f}% of it (the tail of the last wave) some SMs sat idle while the last blocks finished."
    )


def explain_trace(r: Result, sm_count: int | None = None, summary: TraceSummary | None = None) -> str:
    """The trace's sentence; `summary`: its trace_summary where the caller has it already (a large trace)."""
    if not r.block_trace:
        return f"{r.series} at {r.problem.label}: no block trace (run `gemmviz profile` with tracing on a GPU)."
    return f"{r.series} at {r.problem.label}: " + trace_sentence(summary or trace_summary(r.block_trace), sm_count)
