"""Two GPUs side by side (issue 47 item 4): what each session says of its machine (the GPU, its measured memory
bandwidth, its FP32 peak) and whether a kernel's speed ratio between two machines follows the ratio of their
bandwidths or of their peaks. Pure Python; the compare view (ui/charts/compare.py) shows it.

The bandwidth is the one `gemmviz ceilings` measured on that GPU (environment.ceilings.bandwidth_gbs, with how
it was measured), never a datasheet's; the FP32 peak is SMs × FP32 lanes × 2 × the maximum SM clock.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from gemmviz.core.messages import define

MAX_GBS = 1e6  # the loader's own limits (core/session/bounds.py): a figure outside them is not shown
MAX_GFLOPS = 1e8
CLOSE = 1.15  # a kernel's speed ratio "follows" a machine ratio within this factor of it

FOLLOWS_BANDWIDTH = define("machines.follows.bandwidth", en="bandwidth", zh="带宽")
FOLLOWS_PEAK = define("machines.follows.peak", en="FP32 peak", zh="FP32 峰值")
FOLLOWS_BOTH = define("machines.follows.both", en="both (equal ratios)", zh="两者（比值相同）")
FOLLOWS_NEITHER = define("machines.follows.neither", en="neither", zh="都不接近")


@dataclass(frozen=True)
class Machine:
    gpu: str | None
    bandwidth_gbs: float | None  # measured (gemmviz ceilings)
    bandwidth_how: str
    fp32_peak_gflops: float | None
    fp32_peak_how: str


def _figure(v: object, hi: float) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or not 0 < v <= hi:
        return None
    return float(v)


def _text(v: object) -> str:
    return v[:300] if isinstance(v, str) else ""


def machine(environment: Mapping) -> Machine:
    """The machine a session's environment describes: its GPU, its ceilings' measured bandwidth and FP32 peak
    (the CUDA backend's peak where the session holds no ceilings); None for what it does not say."""
    ceilings = environment.get("ceilings")
    ceilings = ceilings if isinstance(ceilings, Mapping) else {}
    backends = environment.get("backends")
    cuda = backends.get("cuda") if isinstance(backends, Mapping) else None
    cuda = cuda if isinstance(cuda, Mapping) else {}
    gpu = cuda.get("name") or ceilings.get("device")
    bandwidth = _figure(ceilings.get("bandwidth_gbs"), MAX_GBS)
    how = _text(ceilings.get("bandwidth_how"))
    if bandwidth is None:
        bandwidth, how = _figure(environment.get("bandwidth_gbs"), MAX_GBS), ""
    peak = _figure(ceilings.get("fp32_peak_gflops"), MAX_GFLOPS)
    peak_how = _text(ceilings.get("fp32_peak_how"))
    if peak is None:
        peak = _figure(cuda.get("fp32_peak_gflops"), MAX_GFLOPS) or _figure(
            environment.get("fp32_peak_gflops"), MAX_GFLOPS
        )
        peak_how = _text(cuda.get("fp32_peak_how"))
    return Machine(gpu if isinstance(gpu, str) else None, bandwidth, how, peak, peak_how)


def ratio(other: float | None, reference: float | None) -> float | None:
    """other / reference, None where either is missing."""
    return other / reference if other and reference else None


def follows(speed: float | None, bandwidth: float | None, peak: float | None) -> str | None:
    """Which machine ratio a kernel's speed ratio (reference time / other time) is nearer, on a log scale, as a
    message key: the bandwidth's, the FP32 peak's, both (the two ratios within CLOSE of each other and of the
    speed's), or neither (further than CLOSE from both). None where a ratio is missing."""
    if not speed or not bandwidth or not peak:
        return None
    gap_bw, gap_peak = abs(math.log(speed / bandwidth)), abs(math.log(speed / peak))
    limit = math.log(CLOSE)
    if min(gap_bw, gap_peak) > limit:
        return FOLLOWS_NEITHER
    if abs(math.log(bandwidth / peak)) <= limit:
        return FOLLOWS_BOTH
    return FOLLOWS_BANDWIDTH if gap_bw < gap_peak else FOLLOWS_PEAK
