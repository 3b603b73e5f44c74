"""Plain-text explanations the app shows beside its charts: one result, two results, this machine's device.

Each takes the reader's language (`lang`, "en" or "zh"). What to say is decided once, as messages (a key and its
parameters, core/messages.py), by the modules that know why (core/hardware/roofline.py, core/measure/rigor.py, core/hardware/counters.py)
and here; each language's template only says it, its figures formatted by core/numbers.py. The registry's
English strings (variant titles and explanations) come through `words`, the window's translation of them (core
has no Qt, the catalogue is the window's)."""

from __future__ import annotations

from collections.abc import Callable

from gemmviz.core.hardware.block_trace import TraceSummary, trace_summary
from gemmviz.core.hardware.comparison import Comparison, LevelRow
from gemmviz.core.hardware.last_wave import LastWave, last_wave
from gemmviz.core.hardware.roofline import Ceilings, explain
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.rigor import compare_message, flag_messages
from gemmviz.core.messages import Message, define, msg, render
from gemmviz.core.session.results import Result

Words = Callable[[str], str]


def _same(text: str) -> str:
    return text


def result_flags(r: Result, lang: str = "en") -> list[str]:
    """rigor.flags (too noisy, throttled, …) in the reader's language: the table's status and its tooltip."""
    return [render(m, lang) for m in flag_messages(r)]


def how_measured_message(r: Result) -> Message:
    """The timing protocol of one result, as a message."""
    clock = (
        msg("explain.how.clock", before=r.sm_clock_mhz_before, after=r.sm_clock_mhz_after)
        if r.sm_clock_mhz_before
        else None
    )
    temperature = (
        msg("explain.how.temperature", before=r.temperature_c_before, after=r.temperature_c_after)
        if r.temperature_c_before
        else None
    )
    l2 = "explain.how.cold" if r.cold_l2 else "explain.how.warm"
    return msg("explain.how", warmup=r.warmup, n=len(r.samples_ms), l2=l2, clock=clock, temperature=temperature)


def how_measured(r: Result, lang: str = "en") -> str:
    """The timing protocol of one result, in one sentence."""
    return render(how_measured_message(r), lang)


def explain_result(
    r: Result, ceilings: Ceilings | None = None, source: str = "", lang: str = "en", words: Words = _same
) -> str:
    """The seeds' arithmetic for this result next to what was measured, how, where from, and its warnings."""
    text = explain(r, ceilings, lang, words)
    if r.samples_ms:
        text += "\n\n" + how_measured(r, lang)
        if r.note:
            text += "\n" + render("explain.note", lang, {"text": r.note})
        if source:
            text += "\n" + render("explain.source", lang, {"text": source})
    warnings = flag_messages(r) if r.valid else []
    return text + "".join("\n" + render("explain.warning", lang, {"what": w}) for w in warnings)


def explain_pair(a: Result, b: Result, lang: str = "en") -> str:
    """Whether two results differ by more than their noise."""
    if a.valid and b.valid and a.samples_ms and b.samples_ms:
        return render(compare_message(a, b)[2], lang)
    return render("explain.pair.invalid", lang)


def device_summary(gpu: dict, lang: str = "en", replay: str | None = None) -> str:
    """One line about this machine's GPU from the probed environment, or why there is none. `replay`: the
    recorded session replayed without a GPU (its GPU and date), which the no-GPU line then names in place of the
    menu path and the reason (device_details holds them): one line a projector at 1280×720 shows whole."""
    if gpu.get("available"):
        return render(
            "explain.device",
            lang,
            {
                "name": gpu.get("name"),
                "sms": gpu.get("sms"),
                "cc": gpu.get("compute_capability"),
                "gib": gpu.get("memory_total_bytes", 0) / 2**30,
                "tflops": (gpu.get("fp32_peak_gflops") or 0) / 1e3,
                "clock": gpu.get("sm_clock_mhz") or gpu.get("max_sm_clock_mhz") or 0,
            },
        )
    if replay:
        return render("explain.no_gpu.replay", lang, {"label": replay})
    return device_details(gpu, lang)


def device_details(gpu: dict, lang: str = "en") -> str:
    """The no-GPU notice whole: where the GPU figures come from (the menu path), what runs, and why."""
    return render("explain.no_gpu", lang, {"reason": gpu.get("reason", "no CUDA backend")})


define(
    "explain.how",
    en="How it was measured: {warmup} warm-up(s), {n} timed samples, {l2:msg} L2{clock:msg}{temperature:msg}.",
    zh="测量方式：预热 {warmup} 次，计时采样 {n} 次，{l2:msg} L2{clock:msg}{temperature:msg}。",
)
define("explain.how.cold", en="cold", zh="冷")
define("explain.how.warm", en="warm", zh="热")
define("explain.how.clock", en=", SM clock {before:.0f}→{after:.0f} MHz", zh="，SM 时钟 {before:.0f}→{after:.0f} MHz")
define("explain.how.temperature", en=", {before:.0f}→{after:.0f} °C", zh="，{before:.0f}→{after:.0f} °C")
define("explain.note", en="Note: {text}", zh="备注：{text}")
define("explain.source", en="From: {text}", zh="来源：{text}")
define("explain.warning", en="⚠ {what:msg}", zh="⚠ {what:msg}")
define(
    "explain.pair.invalid",
    en="Both results must be valid measurements to compare them.",
    zh="两个结果都必须是有效的测量才能比较。",
)
define(
    "explain.device",
    en="{name} · {sms} SMs · cc {cc} · {gib:.0f} GiB · FP32 peak {tflops:.1f} TFLOP/s · SM clock {clock:.0f} MHz",
    zh="{name} · {sms} 个 SM · cc {cc} · {gib:.0f} GiB · FP32 峰值 {tflops:.1f} TFLOP/s · SM 时钟 {clock:.0f} MHz",
)
define(
    "explain.no_gpu",
    # what to do first (the menu path), before what runs anyway: at 1280x720 a projector's one line ends there
    en="No CUDA GPU: GPU figures are replayed (File ▸ Open recorded or published session); CPU variants run "
    "live. Why: {reason}.",
    zh="没有 CUDA GPU：GPU 数据为录制回放（文件 ▸ 打开录制或公开的会话）；CPU 版本照常实时运行。原因：{reason}。",
)
define(
    "explain.no_gpu.replay",
    # the replay banner's news and the no-GPU notice's in one line (two lines of notices left a 720p chart 60 px);
    # "new" CPU runs: the replayed session's own cpu-naive line was measured on the recording's host
    en="No CUDA GPU: replaying {label}; new CPU runs are live",
    zh="没有 CUDA GPU：回放 {label} 的录制；新的 CPU 运行为实时",
)


# ---- hardware counters and block traces ---------------------------------------------------


def comparison_of(r: Result) -> Comparison | None:
    """The model's traffic for this result beside its counters; None when it was not profiled."""
    if not r.counters or r.variant not in VARIANTS:
        return None
    traffic = VARIANTS[r.variant].traffic_model(r.problem, r.params, r.config or None)
    p = r.problem
    return Comparison.of(traffic, r.counters, input_bytes=4.0 * (p.m * p.k + p.k * p.n))


def _amount(x: float, unit: str) -> str:
    if unit == "byte":
        for scale, name in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
            if x >= scale:
                return f"{x / scale:,.2f} {name}"
        return f"{x:,.0f} B"
    return f"{x / 1e6:,.2f} M" if x >= 1e5 else f"{x:,.0f}"


def row_message(row: LevelRow) -> Message:
    """One level of the comparison: model, measured and their ratio."""
    return msg(
        "counters.row",
        level="counters.level." + row.level,
        quantity="counters.quantity." + row.quantity,
        model="–" if row.model is None else _amount(row.model, row.unit),
        measured=msg("counters.not_counted")
        if row.measured is None
        else msg("roof.text", text=_amount(row.measured, row.unit)),
        ratio=None if row.ratio is None else msg("counters.row.ratio", ratio=row.ratio),
    )


def row_text(row: LevelRow, lang: str = "en") -> str:
    """One level of the comparison in one line: model, measured and their ratio."""
    return render(row_message(row), lang)


def explain_counters(r: Result, lang: str = "en") -> str:
    """The model beside the hardware's counts, level by level, then one sentence per difference (core/hardware/counters.py
    decides them; each language's templates say them)."""
    comp = comparison_of(r)
    if comp is None:
        return render("counters.none", lang, {"series": r.series, "size": r.problem.label})
    lines = [render("counters.head", lang, {"series": r.series, "size": r.problem.label}), ""]
    lines += [row_text(row, lang) for row in comp.rows]
    lines += ["", *comp.sentences(lang)]
    return "\n".join(lines)


def trace_message(s: TraceSummary, sm_count: int | None = None) -> Message:
    """Waves, residency and the tail of a block trace, as a message."""
    partly = sm_count and sm_count != s.sms_used
    per_sm = (
        f"{s.blocks_per_sm_min}"
        if s.blocks_per_sm_min == s.blocks_per_sm_max
        else f"{s.blocks_per_sm_min}–{s.blocks_per_sm_max}"
    )
    sms = msg("trace.sms_of", used=s.sms_used, count=sm_count) if partly else msg("trace.sms", used=s.sms_used)
    return msg(
        "trace.sentence",
        blocks=s.blocks,
        sms=sms,
        waves=s.waves,
        per_sm_max=s.max_resident_per_sm,
        total=s.max_resident_total,
        per_sm=per_sm,
        block_us=s.block_ns_median / 1e3,
        run_us=s.duration_ns / 1e3,
        tail=s.tail_pct,
    )


def last_wave_message(last: LastWave) -> Message:
    """The last wave and the SM-time nobody used, as a sentence (the block-trace view hatches that time)."""
    return msg(
        "trace.last_wave",
        last=last.last_blocks,
        used=last.last_sms,
        sms=last.sms,
        idle=last.idle_share,
    )


def explain_trace(
    r: Result,
    sm_count: int | None = None,
    summary: TraceSummary | None = None,
    lang: str = "en",
    last: LastWave | None = None,
) -> str:
    """The trace's sentences; `summary` and `last`: its trace_summary and last_wave where the caller has them
    already (a large trace)."""
    if not r.block_trace:
        return render("trace.head", lang, {"series": r.series, "size": r.problem.label, "what": msg("trace.none")})
    summary = summary or trace_summary(r.block_trace)
    last = last or last_wave(r.block_trace, sm_count, summary=summary)
    head = render(
        "trace.head", lang, {"series": r.series, "size": r.problem.label, "what": trace_message(summary, sm_count)}
    )
    return head + " " + render(last_wave_message(last), lang)


# the rows' levels and quantities (core/hardware/counters.Comparison names them in English)
for _en, _zh in {"DRAM": "DRAM", "L2": "L2", "L1/TEX global": "L1/TEX 全局", "shared": "共享内存"}.items():
    define("counters.level." + _en, en=_en, zh=_zh)
for _en, _zh in {
    "bytes read + written": "读写字节数",
    "bytes through L2": "经过 L2 的字节数",
    "bytes of global-load sectors": "全局加载扇区的字节数",
    "global load requests": "全局加载请求",
    "load instructions": "加载指令",
    "store instructions": "存储指令",
    "load wavefronts": "加载波前（wavefront）",
    "bank conflicts (ld + st)": "bank 冲突（加载 + 存储）",
}.items():
    define("counters.quantity." + _en, en=_en, zh=_zh)
define(
    "counters.row",
    en="{level:msg}, {quantity:msg}: model {model}, measured {measured:msg}{ratio:msg}",
    zh="{level:msg}，{quantity:msg}：模型 {model}，实测 {measured:msg}{ratio:msg}",
)
define("counters.row.ratio", en=" ({ratio:of_model})", zh="（{ratio:of_model}）")
define("counters.not_counted", en="not counted", zh="未统计")
define(
    "counters.none",
    en="{series} at {size}: no hardware counters (run `gemmviz profile` on a GPU).",
    zh="{series}，规模 {size}：没有硬件计数器（在 GPU 上运行 `gemmviz profile`）。",
)
define(
    "counters.head",
    en="{series} at {size}: the model (what the code asks for) beside the counters",
    zh="{series}，规模 {size}：模型（代码请求的量）与硬件计数器对照",
)
define("trace.head", en="{series} at {size}: {what:msg}", zh="{series}，规模 {size}：{what:msg}")
define(
    "trace.none",
    en="no block trace (run `gemmviz profile` with tracing on a GPU).",
    zh="没有线程块轨迹（在 GPU 上运行带轨迹记录的 `gemmviz profile`）。",
)
define("trace.sms", en="{used}", zh="{used}")
define(
    "trace.last_wave",
    en="The last wave, {last:int} blocks, ran on {used:int} of {sms:int} SMs; over the run {idle:.0%} of the GPU's "
    "SM-time was idle (hatched: each SM after its last block).",
    zh="最后一波 {last:int} 个线程块，用了 {sms:int} 个 SM 中的 {used:int} 个；整次运行中 GPU 的 SM 时间有 {idle:.0%} 空闲"
    "（斜线：每个 SM 最后一个线程块之后）。",
)
define("trace.sms_of", en="{used} of {count}", zh="{count} 个中的 {used}")
define(
    "trace.sentence",
    en="{blocks:int} blocks ran on {sms:msg} SMs in {waves:.2f} waves: up to {per_sm_max} blocks resident per SM "
    "({total:int} on the GPU at once), {per_sm} blocks per SM over the run. A block took {block_us:,.1f} µs "
    "(median); the run {run_us:,.1f} µs. In the last {tail:.1f}% of it (the tail of the last wave) some SMs sat "
    "idle while the last blocks finished.",
    zh="{blocks:int} 个线程块在 {sms:msg} 个 SM 上分 {waves:.2f} 波运行：每个 SM 同时最多驻留 {per_sm_max} 个线程块"
    "（整个 GPU 同时 {total:int} 个），整次运行每个 SM 执行 {per_sm} 个线程块。一个线程块耗时 {block_us:,.1f} µs"
    "（中位数）；整次运行 {run_us:,.1f} µs。在最后 {tail:.1f}% 的时间里（最后一波的尾部），一些 SM 空闲着，"
    "等待最后的线程块完成。",
)
