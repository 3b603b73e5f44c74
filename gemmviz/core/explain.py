"""Plain-text explanations the app shows beside its charts: one result, two results, this machine's device.

Each takes the window's language (`lang`, "en" or "zh"); the Chinese sentences are written here, their figures
formatted by core/numbers.py, and the registry's English strings (variant titles and explanations) come through
`words`, the window's translation of them (core has no Qt, the catalogue is the window's)."""

from __future__ import annotations

import re
from collections.abc import Callable

from gemmviz.core import numbers
from gemmviz.core.counters import Comparison, LevelRow, TraceSummary, trace_summary
from gemmviz.core.model import naive_traffic
from gemmviz.core.results import Result
from gemmviz.core.rigor import CLOCK_DROP_LIMIT, NOISE_LIMIT, compare, flags, relative_spread
from gemmviz.core.roofline import Ceilings, explain
from gemmviz.core.variants import VARIANTS

# ---- Chinese (issue 23) ---------------------------------------------------------------------------
# The window passes lang="zh" and `words`, its translation of the registry's English strings (a variant's title
# and explanation: the catalogue has them); figures inside sentences read the Chinese way (core/numbers.py).
Words = Callable[[str], str]


def _same(text: str) -> str:
    return text


def _params(r: Result) -> str:
    return f" ({', '.join(f'{k} {x}' for k, x in r.params.items())})" if r.params else ""


def _arithmetic_zh(r: Result, ceilings: Ceilings | None, words: Words) -> str:
    """roofline.explain in Chinese: the seeds' arithmetic for this result, then what was measured."""
    v = VARIANTS[r.variant]
    p = r.problem
    t = v.traffic_model(p, r.params, r.config or None)
    naive = naive_traffic(p)
    reuse = 2 * p.m * p.n * p.k / t.global_loads if t.global_loads else 0
    lines = [
        f"{words(v.title)}，规模 {p.label}{_params(r)}",
        words(v.explanation),
        "",
        f"计算量：2·M·N·K = {p.flops:,} 次浮点运算（约 {numbers.count(p.flops, 'zh')}次）。",
        f"代码向全局内存请求的读取：{t.global_loads:,} 个 float"
        f"（比朴素核函数的 {naive.global_loads:,} 个少 {naive.global_loads / t.global_loads:,.1f} 倍）。",
        f"从全局内存读出的每个值被使用 {reuse:,.1f} 次；朴素核函数每个值只用一次。",
        f"算术强度：{t.intensity:,.2f} FLOP/字节（朴素核函数：{naive.intensity:.2f}；"
        f"若每个矩阵恰好只搬运一次：{p.flops / p.matrix_bytes:,.1f}）。",
    ]
    if r.valid and r.median_ms:
        lines += [
            "",
            f"实测：{len(r.samples_ms)} 次采样的中位数 {numbers.duration(r.median_ms, 'zh')} → "
            f"{r.gflops:,.0f} GFLOP/s。",
        ]
        lines += _roof_zh(r, ceilings, t, v.backend)
    elif not r.valid:
        lines += ["", f"未测出：{r.status}：{r.error}"]
    return "\n".join(lines)


def _roof_zh(r: Result, ceilings: Ceilings | None, t, backend: str) -> list[str]:
    if not (ceilings and ceilings.bandwidth_gbs and backend == "cuda"):
        return []
    roof = ceilings.roof(t.intensity, r.precision)
    lines = [
        f"在这个算术强度下，屋顶线模型在 {ceilings.device} 上允许 {roof:,.0f} GFLOP/s；"
        f"这次运行达到了其中的 {100 * r.gflops / roof:.0f}%。"
    ]
    moved = t.global_bytes / (r.median_ms * 1e-3) / 1e9
    if moved > ceilings.bandwidth_gbs:
        lines.append(
            f"代码请求的流量需要 {moved:,.0f} GB/s，超过了实测的 {ceilings.bandwidth_gbs:,.0f} GB/s 显存带宽："
            "其中很大一部分一定由缓存（L1、L2）提供，所以核函数比它的全局内存流量模型预测的更快。"
        )
    elif r.gflops < 0.5 * roof:
        per_fma = t.shared_loads / t.fmas_executed if t.fmas_executed else 0
        lines.append(
            "这远低于屋顶：限制这个核函数的既不是这里统计的全局内存流量，也不是峰值算力，而是它发出工作的方式"
            "（延迟、每次 FMA 所需的指令数"
            + (f"；每次 FMA 读共享内存 {per_fma:.2f} 次" if per_fma else "")
            + "）。让每个线程用寄存器做更多工作（寄存器分块、更宽的加载）才有帮助。"
        )
    elif ceilings.ridge and t.intensity < ceilings.ridge:
        lines.append(
            f"在脊点（{ceilings.ridge:.1f} FLOP/字节）左侧，核函数受内存流量限制："
            "提高数据复用（更大的分块、寄存器分块）才有帮助。"
        )
    else:
        lines.append(
            "在脊点右侧，限制来自算力：现在要做的是让 FMA 单元一直忙碌"
            "（每个线程更多独立的工作、每次 FMA 更少的指令、张量核心）。"
        )
    return lines


def _how_measured_zh(r: Result) -> str:
    parts = [f"测量方式：预热 {r.warmup} 次，计时采样 {len(r.samples_ms)} 次，{'冷' if r.cold_l2 else '热'} L2"]
    if r.sm_clock_mhz_before:
        parts.append(f"，SM 时钟 {r.sm_clock_mhz_before:.0f}→{r.sm_clock_mhz_after:.0f} MHz")
    if r.temperature_c_before:
        parts.append(f"，{r.temperature_c_before:.0f}→{r.temperature_c_after:.0f} °C")
    return "".join(parts) + "。"


def _flags_zh(r: Result) -> list[str]:
    """rigor.flags in Chinese (the same tests)."""
    out = []
    if r.timing == "host-events":
        out.append("含主机时间：用旧方法计时，采样中包含了主机发射核函数的开销")
    if r.dropped_ms:
        out.append(f"时钟下降：有 {len(r.dropped_ms)} 个采样在较低的 SM 时钟下测得，未计入中位数")
    spread = relative_spread(r)
    if spread is not None and spread > NOISE_LIMIT:
        out.append(f"噪声大：中间一半采样的范围达到中位数的 {100 * spread:.0f}%；请重新运行")
    before, after = r.sm_clock_mhz_before, r.sm_clock_mhz_after
    if before and after and after < (1 - CLOCK_DROP_LIMIT) * before:
        out.append(f"降频：计时期间 SM 时钟从 {before:.0f} 降到 {after:.0f} MHz；等 GPU 冷却后重新运行")
    return out


def result_flags(r: Result, lang: str = "en") -> list[str]:
    """rigor.flags (too noisy, throttled, …) in the window's language: the table's status and its tooltip."""
    return _flags_zh(r) if lang == "zh" else flags(r)


def _pair_zh(a: Result, b: Result) -> str:
    ratio, separate, _ = compare(a, b)
    faster, slower, x = (b, a, ratio) if ratio >= 1 else (a, b, 1 / ratio)
    if separate:
        return f"{faster.series} 比 {slower.series} 快 {x:.2f} 倍：超出噪声（两组采样的中间一半不重叠）"
    return f"{faster.series} 与 {slower.series} 相差 {x:.2f} 倍，在噪声之内（两组采样的中间一半有重叠）"


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


def explain_result(
    r: Result, ceilings: Ceilings | None = None, source: str = "", lang: str = "en", words: Words = _same
) -> str:
    """The seeds' arithmetic for this result next to what was measured, how, where from, and its warnings."""
    zh = lang == "zh"
    text = _arithmetic_zh(r, ceilings, words) if zh else explain(r, ceilings)
    if r.samples_ms:
        text += "\n\n" + (_how_measured_zh(r) if zh else how_measured(r))
        if r.note:
            text += f"\n{'备注：' if zh else 'Note: '}{r.note}"
        if source:
            text += f"\n{'来源：' if zh else 'From: '}{source}"
    warnings = (_flags_zh(r) if zh else flags(r)) if r.valid else []
    return text + "".join(f"\n⚠ {w}" for w in warnings)


def explain_pair(a: Result, b: Result, lang: str = "en") -> str:
    """Whether two results differ by more than their noise."""
    if a.valid and b.valid and a.samples_ms and b.samples_ms:
        return _pair_zh(a, b) if lang == "zh" else compare(a, b)[2]
    return (
        "两个结果都必须是有效的测量才能比较。"
        if lang == "zh"
        else "Both results must be valid measurements to compare them."
    )


def device_summary(gpu: dict, lang: str = "en") -> str:
    """One line about this machine's GPU from the probed environment, or why there is none."""
    if gpu.get("available"):
        peak = gpu.get("fp32_peak_gflops") or 0
        clock = gpu.get("sm_clock_mhz") or gpu.get("max_sm_clock_mhz") or 0
        sms, peak_word, clock_word = (
            ("个 SM", "FP32 峰值", "SM 时钟") if lang == "zh" else ("SMs", "FP32 peak", "SM clock")
        )
        return (
            f"{gpu.get('name')} · {gpu.get('sms')} {sms} · cc {gpu.get('compute_capability')} · "
            f"{gpu.get('memory_total_bytes', 0) / 2**30:.0f} GiB · {peak_word} {peak / 1e3:.1f} TFLOP/s · "
            f"{clock_word} {clock:.0f} MHz"
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


# core/counters.py's sentences in Chinese: each form it writes, matched with its figures (a test holds every
# sentence the shipped sessions make to one of these)
_N = r"[\d.,]+ ?[A-Za-z%]*"  # a figure as counters.py writes it: "10.4 GB", "0.06x" without the x, "24"
COUNTER_SENTENCES_ZH: tuple[tuple[re.Pattern, str], ...] = tuple(
    (re.compile(pattern), zh)
    for pattern, zh in (
        (
            rf"^DRAM moved (?P<a>{_N}), (?P<r>{_N}) of the (?P<b>{_N}) the code asks of global memory: L1 and L2 serve "
            r"the re-reads of A and B, so most loads never reach DRAM\.$",
            "DRAM 实际搬运了 {a}，只是代码向全局内存请求的 {b} 的 {r}：A 和 B 的重复读取由 L1 和 L2 提供，"
            "大多数读取根本到不了 DRAM。",
        ),
        (
            rf"^DRAM moved (?P<a>{_N}), (?P<r>[\d.,]+)x what the code asks: scattered accesses fetch whole 32-byte "
            r"sectors and evict data before it is reused\.$",
            "DRAM 搬运了 {a}，是代码请求量的 {r} 倍：分散的访问每次都取整个 32 字节的扇区，数据还没被复用就被换出了。",
        ),
        (
            rf"^DRAM writes (?P<a>{_N}) of the (?P<b>{_N}) of C the kernel stores: the results are still in L2 when "
            r"the kernel ends, and reach DRAM later\.$",
            "核函数写出的 C 共 {b}，DRAM 只写了 {a}：核函数结束时结果还留在 L2 中，之后才写到 DRAM。",
        ),
        (
            rf"^L2 handled (?P<a>{_N}), (?P<r>[\d.,]+)x the requested global bytes: L1 hits never reach L2\.$",
            "L2 处理了 {a}，是请求的全局内存字节数的 {r} 倍：命中 L1 的访问不会到达 L2。",
        ),
        (
            rf"^L2 handled (?P<a>{_N}), (?P<r>[\d.,]+)x the requested global bytes: L2 counts whole sectors, writes and "
            r"DRAM fills as well\.$",
            "L2 处理了 {a}，是请求的全局内存字节数的 {r} 倍：L2 按整个扇区计数，还包括写入和从 DRAM 的填充。",
        ),
        (
            rf"^Global loads asked L1 for (?P<a>{_N}) of sectors, (?P<r>[\d.,]+)x the model's bytes: threads of a warp "
            r"that read the same element share one sector \(a broadcast\), so a warp asks for fewer bytes than its 32 "
            r"threads count\.$",
            "全局加载向 L1 请求了 {a} 的扇区，是模型字节数的 {r} 倍：同一个 warp 中读同一个元素的线程共用一个扇区"
            "（广播），所以一个 warp 请求的字节比 32 个线程各算各的要少。",
        ),
        (
            rf"^Global loads asked L1 for (?P<a>{_N}) of sectors, (?P<r>[\d.,]+)x the model's bytes: a warp's loads "
            r"are not coalesced, so each 4-byte load costs a whole 32-byte sector\.$",
            "全局加载向 L1 请求了 {a} 的扇区，是模型字节数的 {r} 倍：warp 的加载没有合并，每次 4 字节的读取都要花掉"
            "整个 32 字节的扇区。",
        ),
        (
            rf"^(?P<a>{_N}) shared-load warp instructions where scalar loads would need (?P<b>{_N}): the compiler fused "
            r"neighbouring shared loads into 64- or 128-bit vector loads\.$",
            "共享内存加载的 warp 指令有 {a} 条，而逐个标量加载需要 {b} 条：编译器把相邻的共享内存加载合并成了 "
            "64 位或 128 位的向量加载。",
        ),
        (
            r"^(?P<x>[\d.,]+) wavefronts per shared-load instruction: a vector load of distinct words needs several "
            r"passes of the 32 banks, and bank conflicts add more\.$",
            "每条共享内存加载指令 {x} 个波前（wavefront）：读取不同字的向量加载要分几次经过 32 个 bank，"
            "bank 冲突还会再增加次数。",
        ),
        (
            rf"^Bank conflicts cost (?P<a>{_N}) extra wavefronts \((?P<r>{_N}) of shared traffic\): threads of a warp "
            r"hit the same bank at different addresses; padding or another layout spreads them\.$",
            "bank 冲突多花了 {a} 个波前（占共享内存流量的 {r}）：同一个 warp 的线程访问了同一个 bank 的不同地址；"
            "填充或换一种布局可以把它们分散开。",
        ),
        (
            r"^No bank conflicts to speak of: this access pattern is conflict-free already, so padding cannot speed it "
            r"up \(and a padded row can stop 128-bit shared loads\)\.$",
            "几乎没有 bank 冲突：这种访问模式本来就没有冲突，所以填充不会让它变快（填充过的行还可能用不了 128 位的"
            "共享内存加载）。",
        ),
        (
            r"^Achieved occupancy (?P<occ>\d+)% of the SM's warp slots(?: \((?P<detail>[^)]*)\))?: enough warps to "
            r"hide memory latency\.$",
            "实际占用率为 SM 的 warp 槽位的 {occ}%{detail}：有足够的 warp 来隐藏内存延迟。",
        ),
        (
            r"^Achieved occupancy (?P<occ>\d+)% of the SM's warp slots(?: \((?P<detail>[^)]*)\))?: few warps to hide "
            r"memory latency\.$",
            "实际占用率为 SM 的 warp 槽位的 {occ}%{detail}：用来隐藏内存延迟的 warp 太少。",
        ),
    )
)


def _occupancy_detail_zh(detail: str | None) -> str:
    """ "32 registers per thread, 0 B shared memory per block" in Chinese, in brackets."""
    if not detail:
        return ""
    detail = re.sub(r"(\d+) registers per thread", r"每个线程 \1 个寄存器", detail)
    detail = re.sub(r"([\d,]+) B shared memory per block", r"每个线程块 \1 B 共享内存", detail)
    return f"（{detail.replace(', ', '，')}）"


def counter_sentence_zh(sentence: str) -> str:
    """One of core/counters.py's sentences in Chinese (as it is where its form is not listed)."""
    for pattern, zh in COUNTER_SENTENCES_ZH:
        m = pattern.match(sentence)
        if m:
            figures = m.groupdict()
            if "detail" in figures:
                figures["detail"] = _occupancy_detail_zh(figures["detail"])
            return zh.format(**figures)
    return sentence


LEVELS_ZH = {"L1/TEX global": "L1/TEX 全局", "shared": "共享内存"}
QUANTITIES_ZH = {
    "bytes read + written": "读写字节数",
    "bytes through L2": "经过 L2 的字节数",
    "bytes of global-load sectors": "全局加载扇区的字节数",
    "global load requests": "全局加载请求",
    "load instructions": "加载指令",
    "store instructions": "存储指令",
    "load wavefronts": "加载波前（wavefront）",
    "bank conflicts (ld + st)": "bank 冲突（加载 + 存储）",
}


def row_text(row: LevelRow, lang: str = "en") -> str:
    """One level of the comparison in one line: model, measured and their ratio."""
    model = "–" if row.model is None else _amount(row.model, row.unit)
    if lang == "zh":
        measured = "未统计" if row.measured is None else _amount(row.measured, row.unit)
        ratio = "" if row.ratio is None else f"（{numbers.of_model(row.ratio, lang)}）"
        level, quantity = LEVELS_ZH.get(row.level, row.level), QUANTITIES_ZH.get(row.quantity, row.quantity)
        return f"{level}，{quantity}：模型 {model}，实测 {measured}{ratio}"
    measured = "not counted" if row.measured is None else _amount(row.measured, row.unit)
    ratio = "" if row.ratio is None else f" ({numbers.of_model(row.ratio)})"  # core/numbers: one wording
    return f"{row.level}, {row.quantity}: model {model}, measured {measured}{ratio}"


def explain_counters(r: Result, lang: str = "en") -> str:
    """The model beside the hardware's counts, level by level, then one sentence per difference (core/counters.py
    writes them in English; counter_sentence_zh puts them in Chinese)."""
    comp = comparison_of(r)
    zh = lang == "zh"
    if comp is None:
        if zh:
            return f"{r.series}，规模 {r.problem.label}：没有硬件计数器（在 GPU 上运行 `gemmviz profile`）。"
        return f"{r.series} at {r.problem.label}: no hardware counters (run `gemmviz profile` on a GPU)."
    head = (
        f"{r.series}，规模 {r.problem.label}：模型（代码请求的量）与硬件计数器对照"
        if zh
        else f"{r.series} at {r.problem.label}: the model (what the code asks for) beside the counters"
    )
    lines = [head, ""]
    lines += [row_text(row, lang) for row in comp.rows]
    lines += ["", *(counter_sentence_zh(x) if zh else x for x in comp.sentences)]
    return "\n".join(lines)


def _trace_sentence_zh(s: TraceSummary, sms: str, per_sm: str) -> str:
    return (
        f"{s.blocks:,} 个线程块在 {sms} 个 SM 上分 {s.waves:.2f} 波运行：每个 SM 同时最多驻留 "
        f"{s.max_resident_per_sm} 个线程块（整个 GPU 同时 {s.max_resident_total:,} 个），整次运行每个 SM 执行 "
        f"{per_sm} 个线程块。一个线程块耗时 {s.block_ns_median / 1e3:,.1f} µs（中位数）；整次运行 "
        f"{s.duration_ns / 1e3:,.1f} µs。在最后 {s.tail_pct:.1f}% 的时间里（最后一波的尾部），"
        "一些 SM 空闲着，等待最后的线程块完成。"
    )


def trace_sentence(s: TraceSummary, sm_count: int | None = None, lang: str = "en") -> str:
    """Waves, residency and the tail of a block trace, in plain words."""
    partly = sm_count and sm_count != s.sms_used
    per_sm = (
        f"{s.blocks_per_sm_min}"
        if s.blocks_per_sm_min == s.blocks_per_sm_max
        else f"{s.blocks_per_sm_min}–{s.blocks_per_sm_max}"
    )
    if lang == "zh":
        return _trace_sentence_zh(s, f"{sm_count} 个中的 {s.sms_used}" if partly else f"{s.sms_used}", per_sm)
    sms = f"{s.sms_used}" + (f" of {sm_count}" if partly else "")
    return (
        f"{s.blocks:,} blocks ran on {sms} SMs in {s.waves:.2f} waves: up to {s.max_resident_per_sm} blocks resident "
        f"per SM ({s.max_resident_total:,} on the GPU at once), {per_sm} blocks per SM over the run. A block took "
        f"{s.block_ns_median / 1e3:,.1f} µs (median); the run {s.duration_ns / 1e3:,.1f} µs. In the last "
        f"{s.tail_pct:.1f}% of it (the tail of the last wave) some SMs sat idle while the last blocks finished."
    )


def explain_trace(r: Result, sm_count: int | None = None, summary: TraceSummary | None = None, lang: str = "en") -> str:
    """The trace's sentence; `summary`: its trace_summary where the caller has it already (a large trace)."""
    zh = lang == "zh"
    head = f"{r.series}，规模 {r.problem.label}：" if zh else f"{r.series} at {r.problem.label}: "
    if not r.block_trace:
        return head + (
            "没有线程块轨迹（在 GPU 上运行带轨迹记录的 `gemmviz profile`）。"
            if zh
            else "no block trace (run `gemmviz profile` with tracing on a GPU)."
        )
    return head + trace_sentence(summary or trace_summary(r.block_trace), sm_count, lang)
