"""How far to trust a measurement: noise and throttling flags, and whether two results really differ."""

from __future__ import annotations

import statistics

from gemmviz.core.messages import Message, define, msg, render
from gemmviz.core.session.results import Result

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


def flag_messages(r: Result) -> list[Message]:
    """Short warnings for a valid result: too noisy to trust, or the clock dropped while timing (as messages)."""
    out = []
    if r.timing == "host-events":
        out.append(msg("rigor.host_inclusive"))
    if r.dropped_ms:
        out.append(msg("rigor.clock_fell", n=len(r.dropped_ms)))
    spread = relative_spread(r)
    if spread is not None and spread > NOISE_LIMIT:
        out.append(msg("rigor.noisy", spread=spread))
    before, after = r.sm_clock_mhz_before, r.sm_clock_mhz_after
    if before and after and after < (1 - CLOCK_DROP_LIMIT) * before:
        out.append(msg("rigor.throttled", before=before, after=after))
    return out


def flags(r: Result, lang: str = "en") -> list[str]:
    """flag_messages in `lang`: the table's status and its tooltip."""
    return [render(m, lang) for m in flag_messages(r)]


def compare_message(a: Result, b: Result) -> tuple[float, bool, Message]:
    """(a's time / b's time, whether the difference is beyond the noise, a message saying so).

    Beyond the noise means the interquartile ranges of the two sets of samples do not overlap. Both must be timed
    (ValueError otherwise)."""
    if not a.median_ms or not b.median_ms:
        raise ValueError(f"{(b if a.median_ms else a).series} has no median time to compare")
    ratio = a.median_ms / b.median_ms
    qa, qb = quartiles(a.samples_ms), quartiles(b.samples_ms)
    separate = qa[2] < qb[0] or qb[2] < qa[0]
    faster, slower, x = (b, a, ratio) if ratio >= 1 else (a, b, 1 / ratio)
    key = "rigor.beyond_noise" if separate else "rigor.within_noise"
    return ratio, separate, msg(key, faster=faster.series, slower=slower.series, x=x)


def compare(a: Result, b: Result, lang: str = "en") -> tuple[float, bool, str]:
    """compare_message with its sentence in `lang`."""
    ratio, separate, m = compare_message(a, b)
    return ratio, separate, render(m, lang)


define(
    "rigor.host_inclusive",
    en="host-inclusive: timed by an older method whose samples include the host's launch path",
    zh="含主机时间：用旧方法计时，采样中包含了主机发射核函数的开销",
)
define(
    "rigor.clock_fell",
    en="clock fell: {n} sample(s) taken at a lower SM clock were left out of the median",
    zh="时钟下降：有 {n} 个采样在较低的 SM 时钟下测得，未计入中位数",
)
define(
    "rigor.noisy",
    en="noisy: the middle half of the samples spans {spread:.0%} of the median; re-run",
    zh="噪声大：中间一半采样的范围达到中位数的 {spread:.0%}；请重新运行",
)
define(
    "rigor.throttled",
    en="throttled: SM clock fell from {before:.0f} to {after:.0f} MHz while timing; re-run when cool",
    zh="降频：计时期间 SM 时钟从 {before:.0f} 降到 {after:.0f} MHz；等 GPU 冷却后重新运行",
)
define(
    "rigor.beyond_noise",
    en="{faster} is {x:.2f}× faster than {slower}: beyond the noise (the middle halves of the samples do not overlap)",
    zh="{faster} 比 {slower} 快 {x:.2f} 倍：超出噪声（两组采样的中间一半不重叠）",
)
define(
    "rigor.within_noise",
    en="{faster} and {slower} differ by {x:.2f}×, within the noise (the middle halves of the samples overlap)",
    zh="{faster} 与 {slower} 相差 {x:.2f} 倍，在噪声之内（两组采样的中间一半有重叠）",
)
