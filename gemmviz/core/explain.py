"""Plain-text explanations the app shows beside its charts: one result, two results, this machine's device."""

from __future__ import annotations

from gemmviz.core.results import Result
from gemmviz.core.rigor import compare, flags
from gemmviz.core.roofline import Ceilings, explain


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
