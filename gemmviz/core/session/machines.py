"""Two GPUs side by side: what each session says of its machine (the GPU, its measured memory
bandwidth, its FP32 peak) and whether a kernel's speed ratio between two machines follows the ratio of their
bandwidths or of their peaks. Pure Python; the compare view (ui/charts/compare.py) shows it.

The bandwidth is the one `gemmviz ceilings` measured on that GPU (environment.ceilings.bandwidth_gbs, with how
it was measured), never a datasheet's; the FP32 peak is SMs × FP32 lanes × 2 × the maximum SM clock.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from gemmviz.core.messages import define, render
from gemmviz.core.numbers import times_text

MAX_GBS = 1e6  # the loader's own limits (core/session/bounds.py): a figure outside them is not shown
MAX_GFLOPS = 1e8
CLOSE = 1.15  # a kernel's speed ratio "follows" a machine ratio within this factor of it

FOLLOWS_BANDWIDTH = define("machines.follows.bandwidth", en="bandwidth", zh="带宽")
FOLLOWS_PEAK = define("machines.follows.peak", en="FP32 peak", zh="FP32 峰值")
FOLLOWS_BOTH = define("machines.follows.both", en="both (equal ratios)", zh="两者（比值相同）")
FOLLOWS_NEITHER = define("machines.follows.neither", en="neither", zh="都不接近")
CONFIGS_DIFFER = define("machines.configs_differ", en="configs differ", zh="配置不同")
CONFIGS_TIP = define(
    "machines.configs_tip",
    en="different block configurations, so this ratio compares configurations as well as GPUs: {configs}",
    zh="块配置不同，这个比值比较的不只是 GPU，还有配置：{configs}",
)
COLUMN_MS = define("machines.column.ms", en="{name} ms", zh="{name}（毫秒）")
COLUMN_VS = define("machines.column.vs", en="{other} vs {reference}", zh="{other} 对比 {reference}")


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


_MAKERS = {"NVIDIA", "GEFORCE", "TESLA", "QUADRO"}
_SPEC_WORD = re.compile(r"\d+GB|HBM\w*|PCIE|SXM\d*|NVL\d*|GPU", re.IGNORECASE)


def short_name(gpu: str | None) -> str | None:
    """A GPU as a column header names it: 'NVIDIA H100 80GB HBM3' -> 'H100', 'NVIDIA A100-SXM4-80GB' -> 'A100',
    'NVIDIA GeForce RTX 4060' -> 'RTX 4060' (the maker, the memory and the form factor left out; at most three
    words)."""
    if not gpu or not gpu.strip():
        return None
    words: list[str] = []
    for word in gpu.split():
        head = word.split("-")[0]
        if word.upper() in _MAKERS:
            continue
        if not head or head.startswith("(") or _SPEC_WORD.fullmatch(head) or len(words) == 3:
            break
        words.append(head)
        if head != word:
            break
    return " ".join(words) or gpu.strip()[:40]


@dataclass(frozen=True)
class Pair:
    """One kernel at one size on both machines: `speed` is the reference's time ÷ the other's (above 1: the
    other is faster); `same_config` False where the two ran different block configurations, or a library (cuBLAS)
    that chooses its kernel on each GPU unrecorded."""

    series: str
    size: str
    speed: float
    cuda: bool
    same_config: bool


@dataclass(frozen=True)
class Summary:
    """What the GPU pairs of two sessions say, computed from them: the machines' bandwidth and FP32 peak ratios
    (other ÷ reference), each same-configuration pair's verdict (`follows`), the pairs whose configurations
    differ (kept apart: they compare configurations as well as GPUs) and the kernel/size pairs measured on one
    machine only."""

    bandwidth: float | None
    peak: float | None
    verdicts: Mapping[str, tuple[float, ...]] = field(default_factory=dict)  # verdict key -> its pairs' speeds
    differing: tuple[float, ...] = ()  # speeds of GPU pairs whose configurations differ
    only_reference: int = 0
    only_other: int = 0

    @property
    def same(self) -> int:
        return sum(len(v) for v in self.verdicts.values())

    def main(self) -> str | None:
        """The verdict most same-configuration GPU pairs share (None where there is none)."""
        if not self.verdicts:
            return None
        return max(self.verdicts, key=lambda k: len(self.verdicts[k]))


def _library(variant: object) -> bool:
    """Whether a variant is a library call (cuBLAS): its kernel and configuration are the library's choice."""
    from gemmviz.core.kernels.variants import VARIANTS

    v = VARIANTS.get(variant) if isinstance(variant, str) else None
    return v is not None and v.library


def pairs(rows: Sequence[Mapping], other: str) -> list[Pair]:
    """The rows of results.compare_sources measured on `other` too, as pairs."""
    found = []
    for row in rows:
        if other not in row["others"]:
            continue
        _ms, speed = row["others"][other]
        same = dict(row.get("config") or {}) == dict(row.get("configs", {}).get(other) or {})
        if _library(row.get("variant")):  # a library picks its own kernel on each GPU, and does not say which
            same = False
        found.append(Pair(row["series"], row["size"], speed, row["backend"] == "cuda", same))
    return found


def summarize(found: Sequence[Pair], reference: Machine, other: Machine, only: tuple[int, int] = (0, 0)) -> Summary:
    """The GPU pairs' verdicts against the two machines' ratios; `only`: the kernel/size pairs measured in the
    reference only and in the other only."""
    bandwidth = ratio(other.bandwidth_gbs, reference.bandwidth_gbs)
    peak = ratio(other.fp32_peak_gflops, reference.fp32_peak_gflops)
    verdicts: dict[str, list[float]] = {}
    for p in found:
        key = follows(p.speed, bandwidth, peak) if p.cuda and p.same_config else None
        if key is not None:
            verdicts.setdefault(key, []).append(p.speed)
    differing = tuple(p.speed for p in found if p.cuda and not p.same_config)
    return Summary(bandwidth, peak, {k: tuple(v) for k, v in verdicts.items()}, differing, *only)


def only_in(results: Sequence, source_of: Callable, reference: str, other: str) -> tuple[int, int]:
    """How many valid kernel/size pairs are in the reference and not in the other, and the other way round."""
    keys: dict[str, set] = {reference: set(), other: set()}
    for r in results:
        source = source_of(r)
        if source in keys and r.valid and r.median_ms:
            keys[source].add((r.series, (r.m, r.n, r.k)))
    return len(keys[reference] - keys[other]), len(keys[other] - keys[reference])


HEADLINES = {
    FOLLOWS_PEAK: define(
        "machines.headline.peak",
        en="Same kernel, same configuration: the {other} runs at {low}–{high} the {reference}'s speed — the FP32 "
        "peak ratio ({peak}), not the bandwidth ratio ({bandwidth}): DRAM does not set these kernels' speed.",
        zh="同一核函数、同一配置：{other} 的速度是 {reference} 的 {low}–{high}，接近 FP32 峰值之比（{peak}），"
        "而不是带宽之比（{bandwidth}）：这些核函数的速度不由显存带宽决定。",
    ),
    FOLLOWS_BANDWIDTH: define(
        "machines.headline.bandwidth",
        en="Same kernel, same configuration: the {other} runs at {low}–{high} the {reference}'s speed — the "
        "bandwidth ratio ({bandwidth}), not the FP32 peak ratio ({peak}): these kernels wait on DRAM.",
        zh="同一核函数、同一配置：{other} 的速度是 {reference} 的 {low}–{high}，接近带宽之比（{bandwidth}），"
        "而不是 FP32 峰值之比（{peak}）：这些核函数在等显存。",
    ),
    FOLLOWS_BOTH: define(
        "machines.headline.both",
        en="Same kernel, same configuration: the {other} runs at {low}–{high} the {reference}'s speed; the "
        "bandwidth ({bandwidth}) and FP32 peak ({peak}) ratios are alike, so speed cannot tell memory-bound "
        "from compute-bound.",
        zh="同一核函数、同一配置：{other} 的速度是 {reference} 的 {low}–{high}；带宽之比（{bandwidth}）与 FP32 "
        "峰值之比（{peak}）相近，速度分不出访存受限还是计算受限。",
    ),
    FOLLOWS_NEITHER: define(
        "machines.headline.neither",
        en="Same kernel, same configuration: the {other} runs at {low}–{high} the {reference}'s speed — near "
        "neither the bandwidth ratio ({bandwidth}) nor the FP32 peak ratio ({peak}).",
        zh="同一核函数、同一配置：{other} 的速度是 {reference} 的 {low}–{high}，既不接近带宽之比（{bandwidth}），"
        "也不接近 FP32 峰值之比（{peak}）。",
    ),
}
HEADLINE_NONE = define(
    "machines.headline.none",
    en="No GPU kernel ran in the same configuration on both machines with their bandwidth and FP32 peak known.",
    zh="没有 GPU 核函数在两台机器上以同一配置运行，且两者的带宽与 FP32 峰值都已知。",
)
COUNTED = define(
    "machines.counted",
    en="“follows” is “{verdict}” for {n}/{total} same-configuration GPU pairs.",
    zh="{total} 对同配置 GPU 结果中 {n} 对“跟随”为“{verdict}”。",
)
REST = define("machines.rest", en="The other {n}: {verdicts:list}.", zh="其余 {n} 对：{verdicts:list}。")
REST_ITEM = define("machines.rest.item", en="{n} {verdict}", zh="{n} 对{verdict}")
DIFFERING = define(
    "machines.differing",
    en="{n} pairs ran different configurations (“configs differ”, {low}–{high}): not counted above.",
    zh="{n} 对结果配置不同（“配置不同”，{low}–{high}）：上面不计入。",
)
ONE_SIDE = define(
    "machines.one_side",
    en="In one session only, not compared: {reference} {a}, {other} {b}.",
    zh="只在一个会话中、不作比较：{reference} {a} 个，{other} {b} 个。",
)


def _span(speeds: Sequence[float]) -> dict[str, str]:
    """0.96–1.10×: one × for the range."""
    return {"low": times_text(min(speeds)).removesuffix("×"), "high": times_text(max(speeds))}


def headline(summary: Summary, reference: str, other: str, lang: str = "en") -> str:
    """One sentence answering "why is the same kernel faster (or not) on one of them?": the verdict most
    same-configuration GPU pairs share, with their speed range and the two machine ratios."""
    main = summary.main()
    if main is None or summary.bandwidth is None or summary.peak is None:
        return render(HEADLINE_NONE, lang)
    speeds = summary.verdicts[main]
    params = {
        "other": other,
        "reference": reference,
        "n": len(speeds),
        "total": summary.same,
        "bandwidth": times_text(summary.bandwidth),
        "peak": times_text(summary.peak),
        **_span(speeds),
    }
    return render(HEADLINES[main], lang, params)


def details(summary: Summary, reference: str, other: str, lang: str = "en") -> str:
    """What the headline leaves out, each computed: the other same-configuration pairs' verdicts, the pairs
    whose configurations differ, the kernels measured on one machine only."""
    main = summary.main()
    lines = []
    if main is not None:
        params = {"n": len(summary.verdicts[main]), "total": summary.same, "verdict": render(main, lang)}
        lines.append(render(COUNTED, lang, params))
    rest = {k: v for k, v in summary.verdicts.items() if k != main}
    if rest:
        items = [render(REST_ITEM, lang, {"n": len(v), "verdict": render(k, lang)}) for k, v in rest.items()]
        n = sum(len(v) for v in rest.values())
        lines.append(render(REST, lang, {"n": n, "verdicts": items}))
    if summary.differing:
        lines.append(render(DIFFERING, lang, {"n": len(summary.differing), **_span(summary.differing)}))
    if summary.only_reference or summary.only_other:
        params = {"reference": reference, "other": other, "a": summary.only_reference, "b": summary.only_other}
        lines.append(render(ONE_SIDE, lang, params))
    return " ".join(lines)


def config_text(config: Mapping[str, int]) -> str:
    """A block configuration in one line: 'BM 128, BN 256, BK 16' ('—' for none)."""
    return ", ".join(f"{k} {v}" for k, v in config.items()) or "—"


def short_names(gpus: Mapping[str, str | None], labels: Mapping[str, str]) -> dict[str, str]:
    """Each source's column name: its GPU's short name, or its label where it has no GPU or shares the short
    name with another source (two H200 sessions)."""
    names = {s: short_name(g) or labels[s] for s, g in gpus.items()}
    seen = Counter(names.values())
    return {s: labels[s] if seen[n] > 1 else n for s, n in names.items()}
