"""When to stop sampling a kernel, and which samples count: nvbench's rules, without the GPU.

A backend takes one sample at a time and feeds it here with the SM clock it measured around it. Sampling
stops once there are at least `min_samples` kept samples and their relative noise (standard deviation over
mean, nvbench's "noise") is under `max_noise`, or once `max_samples` samples or `max_time_s` of sampling are
reached (with at least `min_samples` kept). Samples taken while the SM clock had fallen more than
`clock_drop` below the run's level (a high percentile of the clocks seen) are kept aside, counted and stored,
and left out of the median; so are samples the backend marks as not kernel-only (a blocking kernel that timed
out). Backends: backends/cuda.py (CudaRun.measure); the CPU's BLAS (backends/cpu.py) samples the host's clock by
the same rules, with no SM clock, and names its outliers and a noise left over the target (`host_notes`).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

DEFAULT_MAX_NOISE = 0.005  # 0.5 %, nvbench's default
DEFAULT_MAX_SAMPLES = 500
DEFAULT_MAX_TIME_S = 0.5  # of sampling per job, once min_samples are in
CLOCK_DROP = 0.05  # a sample whose SM clock is more than 5 % under the run's level is left out
CLOCK_LEVEL_QUANTILE = 0.9
OUTLIER_RATIO = 3.0  # a host sample over 3× the median: the thread was preempted or the machine busy


def noise(samples: list[float]) -> float | None:
    """Relative standard deviation (stdev / mean); None under two samples."""
    if len(samples) < 2:
        return None
    mean = statistics.fmean(samples)
    return statistics.stdev(samples) / mean if mean > 0 else None


@dataclass
class SamplePolicy:
    min_samples: int = 20
    max_samples: int = DEFAULT_MAX_SAMPLES
    max_noise: float = DEFAULT_MAX_NOISE
    max_time_s: float = DEFAULT_MAX_TIME_S
    clock_drop: float = CLOCK_DROP

    def __post_init__(self) -> None:
        self.max_samples = max(self.max_samples, self.min_samples)


@dataclass
class Sampler:
    policy: SamplePolicy
    samples: list[float] = field(default_factory=list)
    clocks: list[float | None] = field(default_factory=list)
    rejected: list[bool] = field(default_factory=list)  # not kernel-only (e.g. the blocking kernel timed out)

    def add(self, ms: float, clock_mhz: float | None = None, rejected: bool = False) -> None:
        self.samples.append(ms)
        self.clocks.append(clock_mhz if clock_mhz is not None and math.isfinite(clock_mhz) and clock_mhz > 0 else None)
        self.rejected.append(rejected)

    def level_mhz(self) -> float | None:
        """The run's SM clock: a high percentile of the clocks measured (robust to one stray reading)."""
        seen = sorted(c for c, bad in zip(self.clocks, self.rejected, strict=True) if c is not None and not bad)
        if not seen:
            return None
        return seen[min(len(seen) - 1, int(CLOCK_LEVEL_QUANTILE * (len(seen) - 1) + 0.5))]

    def split(self) -> tuple[list[float], list[float], int]:
        """(kept samples, samples dropped for a fallen clock, samples rejected as not kernel-only)."""
        level = self.level_mhz()
        floor = None if level is None else (1 - self.policy.clock_drop) * level
        kept, dropped, rejected = [], [], 0
        for ms, clock, bad in zip(self.samples, self.clocks, self.rejected, strict=True):
            if bad:
                rejected += 1
            elif floor is not None and clock is not None and clock < floor:
                dropped.append(ms)
            else:
                kept.append(ms)
        return kept, dropped, rejected

    def done(self, elapsed_s: float) -> bool:
        kept, _dropped, _rejected = self.split()
        if len(self.samples) >= self.policy.max_samples and (kept or len(self.samples) >= 4 * self.policy.max_samples):
            return True
        if len(kept) < self.policy.min_samples:
            return False
        rel = noise(kept)
        return (rel is not None and rel <= self.policy.max_noise) or elapsed_s >= self.policy.max_time_s

    def summary(self) -> dict:
        """The Result fields this sampling fills in."""
        kept, dropped, _rejected = self.split()
        clocks = [c for c, bad in zip(self.clocks, self.rejected, strict=True) if c is not None and not bad]
        return {
            "samples_ms": kept,
            "dropped_ms": dropped,
            "noise": noise(kept),
            "clock_mhz": statistics.median(clocks) if clocks else None,
        }


def outliers(samples: list[float], ratio: float = OUTLIER_RATIO) -> list[float]:
    """Samples over `ratio` × the median: kept (they were measured) and named, never silently dropped."""
    if len(samples) < 3:
        return []
    median = statistics.median(samples)
    return [s for s in samples if s > ratio * median]


def host_notes(sampler: Sampler) -> list[str]:
    """What a reader of a host-timed figure must know: outlier samples, and a noise still over the target when
    the cap (samples or time) ended the sampling (the figure is then flagged, not hidden)."""
    kept, _dropped, _rejected = sampler.split()
    notes = []
    slow = outliers(kept)
    if slow:
        notes.append(
            f"{len(slow)} of {len(kept)} samples are outliers (over {OUTLIER_RATIO:g}× the median, up to "
            f"{max(slow):.3g} ms): the machine was busy"
        )
    rel = noise(kept)
    if rel is not None and rel > sampler.policy.max_noise:
        notes.append(
            f"noisy: {100 * rel:.1f}% (stdev/mean) after {len(kept)} samples, over the {100 * sampler.policy.max_noise:g}% "
            "target; run it again on a quieter machine"
        )
    return notes
