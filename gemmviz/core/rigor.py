"""How far to trust a measurement: noise and throttling flags, and whether two results really differ."""

from __future__ import annotations

import statistics

from gemmviz.core.results import Result

NOISE_LIMIT = 0.10  # interquartile range over median above which a result is flagged noisy
CLOCK_DROP_LIMIT = 0.10  # SM clock falling by more than this during the samples flags throttling


def quartiles(samples: list[float]) -> tuple[float, float, float]:
    if len(samples) < 2:
        x = samples[0] if samples else float("nan")
        return x, x, x
    q1, q2, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    return q1, q2, q3


def relative_spread(r: Result) -> float | None:
    """Interquartile range of the samples over their median."""
    if len(r.samples_ms) < 4:
        return None
    q1, q2, q3 = quartiles(r.samples_ms)
    return (q3 - q1) / q2 if q2 else None


def flags(r: Result) -> list[str]:
    """Short warnings for a valid result: too noisy to trust, or the clock dropped while timing."""
    out = []
    if r.timing == "host-events":
        out.append("host-inclusive: timed by an older method whose samples include the host's launch path")
    if r.dropped_ms:
        out.append(f"clock fell: {len(r.dropped_ms)} sample(s) taken at a lower SM clock were left out of the median")
    spread = relative_spread(r)
    if spread is not None and spread > NOISE_LIMIT:
        out.append(f"noisy: the middle half of the samples spans {100 * spread:.0f}% of the median; re-run")
    before, after = r.sm_clock_mhz_before, r.sm_clock_mhz_after
    if before and after and after < (1 - CLOCK_DROP_LIMIT) * before:
        out.append(f"throttled: SM clock fell from {before:.0f} to {after:.0f} MHz while timing; re-run when cool")
    return out


def compare(a: Result, b: Result) -> tuple[float, bool, str]:
    """(a's time / b's time, whether the difference is beyond the noise, a sentence saying so).

    Beyond the noise means the interquartile ranges of the two sets of samples do not overlap."""
    ratio = a.median_ms / b.median_ms
    qa, qb = quartiles(a.samples_ms), quartiles(b.samples_ms)
    separate = qa[2] < qb[0] or qb[2] < qa[0]
    faster, slower, x = (b, a, ratio) if ratio >= 1 else (a, b, 1 / ratio)
    if separate:
        text = f"{faster.series} is {x:.2f}× faster than {slower.series}: beyond the noise (the middle halves of the samples do not overlap)"
    else:
        text = f"{faster.series} and {slower.series} differ by {x:.2f}×, within the noise (the middle halves of the samples overlap)"
    return ratio, separate, text
