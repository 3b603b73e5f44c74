"""The gap between two kernels, explained from Nsight Compute's counters. No Qt.

`load_gap_file` reads a recorded `gemmviz-gap-metrics` file (assets/sessions/*-gap.json) and checks every
field. `decompose(a, b)` splits the time difference T_a - T_b into parts that sum to it exactly, each one bar
of a waterfall with one sentence; docs/gap-view.md says how each part is computed and what is an attribution:

    T = C / f                   (C: cycles elapsed per SM, f: the SM clock, both measured)
    C = idle + active           (active = instructions per SM / instructions per active cycle)
    active = I * Σ_r s_r / W    (I: instructions per SMSP; s_r: warps stalled on reason r per issued instruction;
                                 W: resident warps per SMSP; Little's law on the issue slot)

The clock, idle-SM (wave and tail), instruction, occupancy and stall-reason parts come from these identities
(a product's change split symmetrically between its factors, so no order is preferred); what the identities
do not close (the measured active cycles against I * Σ s_r / W, a metric not recorded) is the "other / not
attributed" bar. The L2 hit rate, DRAM and L2 throughput and the pipes' utilisation are measured context,
written beside the bars: they are why a stall grew, not a time of their own.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gemmviz.core.messages import define, render
from gemmviz.core.session import recorded
from gemmviz.core.session.recorded import RecordError, fail

SCHEMA = "gemmviz-gap-metrics"
MAX_BYTES = 2 << 20
MAX_KERNELS = 512  # a file of several sizes: every kernel at each (7 kernels at 10 sizes are 70)
MAX_METRICS = 256
MAX_N = 65536
METRIC_NAME = re.compile(r"[a-z0-9]+__[a-z0-9_]+(\.[a-z0-9_]+)*")

STALL_REASONS = (
    "long_scoreboard", "short_scoreboard", "mio_throttle", "math_pipe_throttle", "barrier", "wait",
    "not_selected", "selected", "dispatch_stall", "lg_throttle", "no_instruction", "membar", "sleeping",
    "branch_resolving", "drain", "misc", "tex_throttle", "imc_miss",
)  # fmt: skip


def stall_metric(reason: str) -> str:
    return f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"


CYCLES = "sm__cycles_elapsed.avg"
DURATION = "gpu__time_duration.sum"
ISSUE = "smsp__issue_active.avg.pct_of_peak_sustained_active"
IPC = "sm__inst_executed.avg.per_cycle_active"
FMA_PIPE = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"
TENSOR_PIPE = "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"
INSTRUCTIONS = "smsp__inst_executed.sum"
FFMA = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"
L2_HIT = "lts__t_sector_hit_rate.pct"
DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
L2 = "lts__throughput.avg.pct_of_peak_sustained_elapsed"
GRID = "launch__grid_size"
BLOCK = "launch__block_size"
WAVES = "launch__waves_per_multiprocessor"
LIMIT_REGISTERS = "launch__occupancy_limit_registers"
LIMIT_SHARED = "launch__occupancy_limit_shared_mem"
WARPS = "sm__warps_active.avg.pct_of_peak_sustained_active"

# what `gemmviz profile --gap` asks ncu for (backends/profile.py adds them to the counters)
GAP_METRICS: tuple[str, ...] = (
    CYCLES, DURATION, ISSUE, IPC, FMA_PIPE, TENSOR_PIPE, INSTRUCTIONS, FFMA, L2_HIT, DRAM, L2, GRID, BLOCK, WAVES,
    LIMIT_REGISTERS, LIMIT_SHARED, WARPS, *(stall_metric(r) for r in STALL_REASONS),
)  # fmt: skip

# (lowest, highest) a metric may read; a name not listed takes its suffix's range
_RANGES = {
    DURATION: (1.0, 3.6e12),  # ns: up to an hour
    CYCLES: (1.0, 1e13),
    IPC: (0.0, 8.0),  # Hopper issues at most 4 warp instructions per SM per cycle
    BLOCK: (1, 1024),
    GRID: (1, 1e12),
    WAVES: (0.0, 1e7),
    LIMIT_REGISTERS: (0, 1024),
    LIMIT_SHARED: (0, 1024),
}
_PCT = (0.0, 105.0)  # a percentage, with room for ncu's rounding and sampling above 100
_RATIO = (0.0, 1e4)
_COUNT = (0.0, 1e18)


@dataclass(frozen=True)
class GpuShape:
    """What the gap arithmetic needs of a GPU and the files do not carry."""

    sms: int
    smsp_per_sm: int = 4
    max_warps_per_sm: int = 64
    max_blocks_per_sm: int = 32


GPUS = {"NVIDIA H200": GpuShape(132), "NVIDIA H100 80GB HBM3": GpuShape(132), "NVIDIA H100 PCIe": GpuShape(114)}


def gpu_shape(gpu: str) -> GpuShape | None:
    return GPUS.get(gpu)


@dataclass(frozen=True)
class Kernel:
    variant: str
    params: dict[str, int | str]
    m: int
    n: int
    k: int
    median_ms: float | None
    metrics: dict[str, float]

    @property
    def label(self) -> str:
        return recorded.label(self.variant, self.params)

    @property
    def size(self) -> tuple[int, int, int]:
        return self.m, self.n, self.k

    def get(self, name: str) -> float | None:
        return self.metrics.get(name)


def size_text(size: Sequence[int]) -> str:
    """4096³ for a cube, 2048×3072×4096 otherwise: how a kernel's size follows its label."""
    m, n, k = size
    return f"{m}³" if m == n == k else f"{m}×{n}×{k}"


_SIZED = re.compile(r"^(?P<label>.+?)\s*@\s*(?P<m>\d+)(?:[x×](?P<n>\d+)[x×](?P<k>\d+)|³)?$")


@dataclass(frozen=True)
class GapFile:
    header: recorded.Header
    kernels: tuple[Kernel, ...]

    def sizes(self) -> list[tuple[int, int, int]]:
        """The sizes recorded, smallest first (by m·n·k)."""
        return sorted({k.size for k in self.kernels}, key=lambda s: (s[0] * s[1] * s[2], s))

    def name_of(self, k: Kernel) -> str:
        """How the views and `--pair` name a kernel: its label, with "@size" where the file holds several sizes
        (gpu-cpasync-any@2048³; the CLI also takes @2048x2048x2048)."""
        return k.label if len(self.sizes()) < 2 else f"{k.label}@{size_text(k.size)}"

    def names(self) -> list[str]:
        return [self.name_of(k) for k in self.kernels]

    def kernel(self, name: str) -> Kernel:
        """The kernel `name` names: a label with "@size", or a bare label (at the largest size it is recorded at).
        KeyError where there is none."""
        for k in self.kernels:
            if self.name_of(k) == name:
                return k
        found = _SIZED.match(name.strip())
        if found:
            m = int(found["m"])
            size = (m, int(found["n"] or m), int(found["k"] or m))
            for k in self.kernels:
                if k.label == found["label"].strip() and k.size == size:
                    return k
            raise KeyError(name)
        same = [k for k in self.kernels if k.label == name.strip()]
        if not same:
            raise KeyError(name)
        return max(same, key=lambda k: k.m * k.n * k.k)


def _metric_range(name: str) -> tuple[float, float]:
    if name in _RANGES:
        return _RANGES[name]
    if name.endswith(".pct") or ".pct_of_peak" in name:
        return _PCT
    if name.endswith(".ratio"):
        return _RATIO
    return _COUNT


def _kernel(d: object, file: str, i: int) -> Kernel:
    where = f"kernels[{i}]."
    if not isinstance(d, dict):
        raise fail(file, f"kernels[{i}]", "must be an object")
    variant = recorded.variant_name(d, file, where)
    p = recorded.params(d, file, where)
    m, n, k = (recorded.whole(d, x, file, 1, MAX_N, where) for x in "mnk")
    median = d.get("median_ms")
    median_ms = None if median is None else recorded.number(median, file, where + "median_ms", 1e-6, 3.6e6)
    if median_ms == 0:
        raise fail(file, where + "median_ms", "must be above 0")
    raw = d.get("metrics")
    if not isinstance(raw, dict) or len(raw) > MAX_METRICS:
        raise fail(file, where + "metrics", f"must be an object of at most {MAX_METRICS} ncu metrics")
    metrics = {}
    for name, value in raw.items():
        if not METRIC_NAME.fullmatch(name) or len(name) > 120:
            raise fail(file, where + "metrics", f"{name[:60]!r} is not an ncu metric name")
        lo, hi = _metric_range(name)
        metrics[name] = recorded.number(value, file, f"{where}metrics.{name}", lo, hi)
    return Kernel(variant, p, m, n, k, median_ms, metrics)


def read_gap(doc: object, file: str = "gap file") -> GapFile:
    """A parsed gap file, checked (RecordError: one line, the file and the field)."""
    head = recorded.header(doc, file, SCHEMA)
    kernels = doc.get("kernels")  # type: ignore[union-attr]
    if not isinstance(kernels, list) or not 1 <= len(kernels) <= MAX_KERNELS:
        raise fail(file, "kernels", f"must be a list of 1 to {MAX_KERNELS} kernels")
    out = tuple(_kernel(d, file, i) for i, d in enumerate(kernels))
    keys = [(k.label, k.size) for k in out]  # a kernel once per size (a file of several sizes lists it at each)
    twice = next((x for x in keys if keys.count(x) > 1), None)
    if twice is not None:
        raise fail(file, "kernels", f"{twice[0]} is listed twice at {size_text(twice[1])}")
    return GapFile(head, out)


def load_gap_file(path: str | os.PathLike) -> GapFile:
    name, doc = recorded.read_json(path, MAX_BYTES)
    return read_gap(doc, name)


def shipped_gap_files() -> list:
    """The gap files the package ships (assets/sessions/*-gap.json), newest name last."""
    from gemmviz.core.paths import asset_files

    suffix = recorded.RECORD_SUFFIXES[0]
    return sorted((f for f in asset_files("sessions", ".json") if f.name.endswith(suffix)), key=lambda f: f.name)


def load_shipped_gap(lang: str = "en") -> tuple[GapFile | None, str]:
    """(the newest shipped gap file, "") or (None, why there is none, in `lang`)."""
    files = shipped_gap_files()
    if not files:
        return None, render("gap.none_shipped", lang)
    from gemmviz.core.paths import asset_path

    try:
        return load_gap_file(asset_path("sessions", files[-1].name)), ""
    except RecordError as exc:
        return None, str(exc)


# ------------------------------------------------------------------------------------------------ the waves


@dataclass(frozen=True)
class Waves:
    """Blocks against the GPU's slots: how many waves, and how full the last one is."""

    grid: int
    blocks_per_sm: int
    sms: int
    waves: float
    last_blocks: int  # blocks in the last wave (all slots: a full last wave)
    last_sms: int  # SMs the last wave keeps busy

    @property
    def efficiency(self) -> float:
        """waves / the whole waves they take: the share of SM-time a uniform block length would keep busy."""
        return self.waves / math.ceil(self.waves)


def waves_of(grid: int, blocks_per_sm: int, sms: int) -> Waves:
    """The wave arithmetic of a launch: `grid` blocks, `blocks_per_sm` resident at once, `sms` SMs. The block
    scheduler hands the last wave's blocks out one per SM first, so `last_sms` = min(last blocks, SMs)."""
    if grid < 1 or blocks_per_sm < 1 or sms < 1:
        raise ValueError("grid, blocks per SM and SMs must be at least 1")
    slots = blocks_per_sm * sms
    last = grid % slots or slots
    return Waves(grid, blocks_per_sm, sms, grid / slots, last, min(last, sms))


def blocks_per_sm(k: Kernel, shape: GpuShape) -> int | None:
    """Resident blocks per SM: the tightest of the register, shared-memory, warp and block limits; or, where the
    limits are not recorded, what ncu's waves per SM imply."""
    grid, block = k.get(GRID), k.get(BLOCK)
    limits = [k.get(LIMIT_REGISTERS), k.get(LIMIT_SHARED)]
    if block is not None and None not in limits:
        warps = math.ceil(block / 32)
        bound = min(int(limits[0]), int(limits[1]), shape.max_warps_per_sm // warps, shape.max_blocks_per_sm)
        return bound if bound >= 1 else None
    waves = k.get(WAVES)
    if grid and waves:
        return max(1, round(grid / (waves * shape.sms)))
    return None


def kernel_waves(k: Kernel, shape: GpuShape | None) -> Waves | None:
    grid = k.get(GRID)
    if shape is None or not grid:
        return None
    bps = blocks_per_sm(k, shape)
    return None if bps is None else waves_of(int(grid), bps, shape.sms)


# ------------------------------------------------------------------------------------------------ messages
_ = define
_(
    "gap.none_shipped",
    en="no recorded gap metrics are shipped: run `gemmviz profile --gap` on a GPU",
    zh="没有随附录制的差距指标：在 GPU 上运行 `gemmviz profile --gap`",
)
_(
    "gap.part.clock",
    en="{share:pct} of the gap: the SM clock ran at {fa:sig3} GHz against {fb:sig3} GHz",
    zh="差距的 {share:pct}：SM 时钟为 {fa:sig3} GHz，对方为 {fb:sig3} GHz",
)
_(
    "gap.part.idle",
    en="{share:pct} of the gap: SMs sat idle {ia:pct} of the run against {ib:pct}; the last of "
    "{waves:sig3} waves fills {last:int} of {sms:int} SMs",
    zh="差距的 {share:pct}：SM 空闲占运行时间的 {ia:pct}，对方为 {ib:pct}；{waves:sig3} 波中的最后一波只占满 "
    "{sms:int} 个 SM 中的 {last:int} 个",
)
_(
    "gap.part.idle_nowaves",
    en="{share:pct} of the gap: SMs sat idle {ia:pct} of the run against {ib:pct} (launch geometry not recorded)",
    zh="差距的 {share:pct}：SM 空闲占运行时间的 {ia:pct}，对方为 {ib:pct}（未记录启动配置）",
)
_(
    "gap.part.instructions_fma",
    en="{share:pct} of the gap: {ia:sig3} instructions per FMA against {ib:sig3}",
    zh="差距的 {share:pct}：每条 FMA 需要 {ia:sig3} 条指令，对方为 {ib:sig3} 条",
)
_(
    "gap.part.instructions",
    en="{share:pct} of the gap: {na:big} instructions issued against {nb:big}",
    zh="差距的 {share:pct}：发射了 {na:big} 条指令，对方为 {nb:big} 条",
)
_(
    "gap.part.occupancy",
    en="{share:pct} of the gap: {wa:sig3} warps per scheduler share its issue slot against {wb:sig3}",
    zh="差距的 {share:pct}：每个调度器有 {wa:sig3} 个 warp 共用发射槽，对方为 {wb:sig3} 个",
)
_(
    "gap.part.issue",
    en="{share:pct} of the gap: {ua:sig3} instructions per active cycle against {ub:sig3} (stall reasons not recorded)",
    zh="差距的 {share:pct}：每个活跃周期发射 {ua:sig3} 条指令，对方为 {ub:sig3} 条（未记录停顿原因）",
)
_(
    "gap.part.stall",
    en="{share:pct} of the gap: {why:msg}, {sa:sig3} against {sb:sig3} of a scheduler's cycles per instruction",
    zh="差距的 {share:pct}：{why:msg}，每条指令占调度器 {sa:sig3} 个周期，对方为 {sb:sig3} 个",
)
_(
    "gap.part.stalls_rest",
    en="{share:pct} of the gap: {count:int} other stall reasons together",
    zh="差距的 {share:pct}：其余 {count:int} 种停顿原因合计",
)
_(
    "gap.part.other",
    en="{share:pct} of the gap: not attributed (what the counters' identities do not close)",
    zh="差距的 {share:pct}：未归因（计数器恒等式未能解释的部分）",
)
_(
    "gap.part.small",
    en="{share:pct} of the gap: {count:int} parts that cancel: they add {up:us} and take away {down:us} "
    "(the largest: {largest:msg}, {big:us})",
    zh="差距的 {share:pct}：{count:int} 个相互抵消的部分：共增加 {up:us}，减少 {down:us}（最大的一项：{largest:msg}，{big:us}）",
)
_(
    "gap.part.small_one_way",
    en="{share:pct} of the gap: {count:int} parts, each under {limit:pct} of {b}'s time (they add {up:us} and "
    "take away {down:us})",
    zh="差距的 {share:pct}：{count:int} 个部分，每个都不到 {b} 时间的 {limit:pct}（共增加 {up:us}，减少 {down:us}）",
)
_(
    "gap.part.stall_mix",
    en="{share:pct} of the gap: the stall reasons shift {moved:us} between them and cancel to {net:us} "
    "(most: {up:msg} {upv:us}, {down:msg} {downv:us})",
    zh="差距的 {share:pct}：停顿原因之间转移了 {moved:us}，相互抵消后为 {net:us}"
    "（最多的：{up:msg} {upv:us}，{down:msg} {downv:us}）",
)
_("gap.label.stall_mix", en="stall mix (net)", zh="停顿构成（净值）")
_("gap.label.small", en="small parts (cancelling)", zh="小项（相互抵消）")
_("gap.label.small_one_way", en="small parts", zh="小项")
_("gap.label.clock", en="SM clock", zh="SM 时钟")
_("gap.label.idle", en="idle SMs (waves, tail)", zh="SM 空闲（波与尾部）")
_("gap.label.instructions", en="instructions", zh="指令数")
_("gap.label.occupancy", en="warps resident", zh="驻留 warp 数")
_("gap.label.issue", en="issue rate", zh="发射率")
_("gap.label.stall", en="stall: {reason}", zh="停顿：{reason}")
_("gap.label.stalls_rest", en="other stalls", zh="其他停顿")
_("gap.label.other", en="not attributed", zh="未归因")
_(
    "gap.head.slower",
    en="{a} takes {ta:dur}, {b} {tb:dur}: {a} is {gap:dur} slower",
    zh="{a} 耗时 {ta:dur}，{b} 耗时 {tb:dur}：{a} 慢 {gap:dur}",
)
_(
    "gap.head.faster",
    en="{a} takes {ta:dur}, {b} {tb:dur}: {a} is {gap:dur} faster",
    zh="{a} 耗时 {ta:dur}，{b} 耗时 {tb:dur}：{a} 快 {gap:dur}",
)
_("gap.note.pct", en="{what:msg}: {va:sig3}% against {vb:sig3}%", zh="{what:msg}：{va:sig3}%，对方为 {vb:sig3}%")
_(
    "gap.note.pct_unreliable",
    en="{what:msg}: ncu read {va:sig3}% and {vb:sig3}%, outside 0–100%, so not a reliable measure here",
    zh="{what:msg}：ncu 读数为 {va:sig3}% 和 {vb:sig3}%，超出 0–100%，此处不可靠",
)
_("gap.note.missing", en="not recorded: {names}", zh="未记录：{names}")
_(
    "gap.note.timing_median",
    en="times: the event-timed medians (ncu's durations not recorded)",
    zh="时间：CUDA 事件计时的中位数（未记录 ncu 的时长）",
)
_("gap.what.issue", en="issue slots busy", zh="发射槽忙碌")
_("gap.what.fma", en="FMA pipe busy", zh="FMA 流水线忙碌")
_("gap.what.tensor", en="tensor pipe (wgmma) busy", zh="张量流水线（wgmma）忙碌")
_("gap.what.l2hit", en="L2 hit rate", zh="L2 命中率")
_("gap.what.dram", en="DRAM throughput, of peak", zh="DRAM 吞吐量（占峰值）")
_("gap.what.l2", en="L2 throughput, of peak", zh="L2 吞吐量（占峰值）")
for _reason, _en, _zh in (
    ("long_scoreboard", "waiting for global memory (long scoreboard)", "等待全局内存（long scoreboard）"),
    ("short_scoreboard", "waiting for shared memory (short scoreboard)", "等待共享内存（short scoreboard）"),
    ("mio_throttle", "the shared-memory queue was full (MIO throttle)", "共享内存指令队列已满（MIO throttle）"),
    ("math_pipe_throttle", "the math pipe was busy (math pipe throttle)", "运算流水线繁忙（math pipe throttle）"),
    ("barrier", "waiting at __syncthreads (barrier)", "在 __syncthreads 等待（barrier）"),
    ("wait", "a fixed-latency dependency (wait)", "固定延迟依赖（wait）"),
    ("not_selected", "ready, another warp issued (not selected)", "已就绪但选了别的 warp（not selected）"),
    ("selected", "issuing (selected)", "正在发射（selected）"),
    ("dispatch_stall", "the dispatcher stalled (dispatch)", "分派停顿（dispatch）"),
    ("lg_throttle", "the global-memory queue was full (LG throttle)", "全局内存指令队列已满（LG throttle）"),
    ("no_instruction", "no instruction fetched (no instruction)", "没有取到指令（no instruction）"),
    ("membar", "waiting at a memory fence (membar)", "在内存栅栏等待（membar）"),
    ("sleeping", "sleeping, e.g. an mbarrier wait (sleeping)", "休眠，例如 mbarrier 等待（sleeping）"),
    ("branch_resolving", "resolving a branch (branch resolving)", "解析分支（branch resolving）"),
    ("drain", "draining stores at exit (drain)", "退出时排空写操作（drain）"),
    ("misc", "other causes (misc)", "其他原因（misc）"),
    ("tex_throttle", "the texture queue was full (tex throttle)", "纹理队列已满（tex throttle）"),
    ("imc_miss", "a constant-cache miss (IMC miss)", "常量缓存未命中（IMC miss）"),
):
    _(f"gap.stall.{_reason}", en=_en, zh=_zh)
# a bar's short label: Nsight Compute's own name in English, a short Chinese one (the sentence gives both)
SHORT_STALL_NAMES = (
    ("long_scoreboard", "等全局内存"), ("short_scoreboard", "等共享内存"), ("mio_throttle", "共享内存队列满"),
    ("math_pipe_throttle", "运算流水线忙"), ("barrier", "线程块同步"), ("wait", "固定延迟"), ("not_selected", "未被选中"),
    ("selected", "发射中"), ("dispatch_stall", "分派停顿"), ("lg_throttle", "全局内存队列满"), ("no_instruction", "无指令"),
    ("membar", "内存栅栏"), ("sleeping", "休眠"), ("branch_resolving", "分支解析"), ("drain", "排空写"), ("misc", "其他"),
    ("tex_throttle", "纹理队列满"), ("imc_miss", "常量缓存未命中"),
)  # fmt: skip
for _reason, _zh in SHORT_STALL_NAMES:
    _(f"gap.short.{_reason}", en=_reason.replace("_", " "), zh=_zh)


# ------------------------------------------------------------------------------------------- decomposition


@dataclass(frozen=True)
class Line:
    """One sentence: a message key and its parameters, rendered per language."""

    key: str
    params: dict = field(default_factory=dict)

    def text(self, lang: str = "en") -> str:
        return render(self.key, lang, self.params)


@dataclass(frozen=True)
class Part:
    """One bar of the waterfall: `ns` of the gap, its short label and its sentence."""

    name: str  # "clock", "idle", "instructions", "occupancy", "issue", "stall:REASON", "stalls_rest", "other"
    ns: float
    label: Line
    sentence: Line


@dataclass(frozen=True)
class Gap:
    a: Kernel  # the kernel explained
    b: Kernel  # the reference
    ta_ns: float
    tb_ns: float
    timing: str  # "ncu" (gpu__time_duration) or "median" (the event-timed medians)
    parts: tuple[Part, ...]
    headline: Line
    notes: tuple[Line, ...]
    missing: tuple[str, ...]  # metrics the parts or notes needed and one of the kernels lacks
    waves_a: Waves | None = None
    waves_b: Waves | None = None

    @property
    def gap_ns(self) -> float:
        return self.ta_ns - self.tb_ns

    def share(self, part: Part) -> float | None:
        return part.ns / self.gap_ns if self.gap_ns else None


class GapError(ValueError):
    """The two kernels cannot be compared (no time for one of them); one line."""


def _times(a: Kernel, b: Kernel) -> tuple[float, float, str]:
    if a.get(DURATION) and b.get(DURATION):
        return a.metrics[DURATION], b.metrics[DURATION], "ncu"
    if a.median_ms and b.median_ms:
        return a.median_ms * 1e6, b.median_ms * 1e6, "median"
    lacking = a if not (a.get(DURATION) or a.median_ms) else b
    raise GapError(f"{lacking.label} has no time: neither {DURATION} nor median_ms is recorded")


def _both(a: Kernel, b: Kernel, names: Sequence[str], missing: set[str]) -> bool:
    gone = [n for n in names if a.get(n) is None or b.get(n) is None]
    missing.update(gone)
    return not gone


def shapley2(xa: float, xb: float, ya: float, yb: float) -> tuple[float, float]:
    """The change of x*y from b to a, split between x and y symmetrically (the two sum to it exactly)."""
    return (xa - xb) * (ya + yb) / 2, (ya - yb) * (xa + xb) / 2


@dataclass
class _Build:
    a: Kernel
    b: Kernel
    shape: GpuShape | None
    ns_per_cycle: float  # 1 / f_a
    missing: set[str]
    parts: list[tuple[str, float, Line, Line]] = field(default_factory=list)  # name, ns, label, sentence (no share)

    def add(self, name: str, ns: float, label_key: str, key: str, label_params=None, **params) -> None:
        self.parts.append((name, ns, Line(label_key, label_params or {}), Line(key, params)))


def _active_cycles(k: Kernel, shape: GpuShape) -> float:
    return k.metrics[INSTRUCTIONS] / shape.sms / k.metrics[IPC]


def _idle_part(s: _Build, wa: Waves | None) -> None:
    a, b, shape = s.a, s.b, s.shape
    idle = [k.metrics[CYCLES] - _active_cycles(k, shape) for k in (a, b)]  # type: ignore[arg-type]
    shares = {"ia": max(0.0, idle[0] / a.metrics[CYCLES]), "ib": max(0.0, idle[1] / b.metrics[CYCLES])}
    ns = (idle[0] - idle[1]) * s.ns_per_cycle
    if wa is None:
        s.missing.update(n for n in (GRID, BLOCK, LIMIT_REGISTERS, LIMIT_SHARED) if a.get(n) is None)
        s.add("idle", ns, "gap.label.idle", "gap.part.idle_nowaves", **shares)
    else:
        s.add("idle", ns, "gap.label.idle", "gap.part.idle", waves=wa.waves, last=wa.last_sms, sms=wa.sms, **shares)


def _instruction_part(s: _Build, ns: float) -> None:
    a, b = s.a, s.b
    fmas = [k.get(FFMA) for k in (a, b)]
    if all(f and f >= 0.5 * k.m * k.n * k.k for f, k in zip(fmas, (a, b))):  # an FP32 FMA kernel: per FMA
        per = [k.metrics[INSTRUCTIONS] / (f / 32) for f, k in zip(fmas, (a, b))]  # type: ignore[operator]
        s.add("instructions", ns, "gap.label.instructions", "gap.part.instructions_fma", ia=per[0], ib=per[1])
    else:
        na, nb = a.metrics[INSTRUCTIONS], b.metrics[INSTRUCTIONS]
        s.add("instructions", ns, "gap.label.instructions", "gap.part.instructions", na=na, nb=nb)


def _stall_parts(s: _Build, q: list[dict[str, float]], per_q: float, top: int) -> None:
    """Each stall reason's part: its change of the scheduler's cycles per instruction, q_r = s_r / W, times the
    instructions (`per_q`: the mean instruction count per scheduler, in ns per cycle). The `top` reasons that
    changed most are bars of their own, the others one bar together."""
    found = sorted(((abs(q[0][r] - q[1][r]), r) for r in q[0] if r != "selected" and q[0][r] != q[1][r]), reverse=True)
    for _size, r in found[:top]:
        qa, qb = q[0][r], q[1][r]
        label = {"reason": {"key": f"gap.short.{r}", "params": {}}}  # rendered in the reader's language
        s.add(
            f"stall:{r}",
            (qa - qb) * per_q,
            "gap.label.stall",
            "gap.part.stall",
            label,
            why=f"gap.stall.{r}",
            sa=qa,
            sb=qb,
        )
    rest = [r for _size, r in found[top:]]
    if rest:
        ns = sum(q[0][r] - q[1][r] for r in rest) * per_q
        s.add("stalls_rest", ns, "gap.label.stalls_rest", "gap.part.stalls_rest", count=len(rest))


def _active_parts(s: _Build, top_stalls: int) -> float:
    """The instruction, occupancy and stall parts of the active cycles' change; returns what they sum to (cycles).

    active = I × Q, Q = Σ_r q_r, q_r = s_r / W: Little's law on a scheduler's issue slot (Σ_r s_r = W / issue
    rate) makes Q its cycles per issued instruction, shared among its warps' states. The change of I × Q is split
    symmetrically between I and Q, and Q's part by each q_r's change; q_selected = 1 / W is the occupancy part
    (each issue cycle shared by more warps or fewer)."""
    a, b, shape = s.a, s.b, s.shape
    assert shape is not None
    smsps = shape.sms * shape.smsp_per_sm
    reasons = [r for r in STALL_REASONS if a.get(stall_metric(r)) is not None and b.get(stall_metric(r)) is not None]
    s.missing.update(stall_metric(r) for r in STALL_REASONS if r not in reasons)
    per_smsp = shape.max_warps_per_sm / shape.smsp_per_sm
    if reasons and _both(a, b, [WARPS], s.missing) and a.metrics[WARPS] > 0 and b.metrics[WARPS] > 0:
        w = [k.metrics[WARPS] / 100 * per_smsp for k in (a, b)]
        q = [{r: k.metrics[stall_metric(r)] / wk for r in reasons} for k, wk in zip((a, b), w)]
        i = [k.metrics[INSTRUCTIONS] / smsps for k in (a, b)]
        d_i, d_q = shapley2(i[0], i[1], sum(q[0].values()), sum(q[1].values()))
        per_q = (i[0] + i[1]) / 2 * s.ns_per_cycle
        _instruction_part(s, d_i * s.ns_per_cycle)
        if "selected" in q[0]:
            ns = (q[0]["selected"] - q[1]["selected"]) * per_q
            s.add("occupancy", ns, "gap.label.occupancy", "gap.part.occupancy", wa=w[0], wb=w[1])
        _stall_parts(s, q, per_q, top_stalls)
        return d_i + d_q
    # without the stalls: active = (instructions per SM) / IPC, split between the two
    n = [k.metrics[INSTRUCTIONS] / shape.sms for k in (a, b)]
    d_n, d_ipc = shapley2(n[0], n[1], 1 / a.metrics[IPC], 1 / b.metrics[IPC])
    _instruction_part(s, d_n * s.ns_per_cycle)
    s.add("issue", d_ipc * s.ns_per_cycle, "gap.label.issue", "gap.part.issue", ua=a.metrics[IPC], ub=b.metrics[IPC])
    return d_n + d_ipc


def _notes(a: Kernel, b: Kernel, missing: set[str]) -> list[Line]:
    notes = []
    for what, name in (
        ("issue", ISSUE),
        ("fma", FMA_PIPE),
        ("tensor", TENSOR_PIPE),
        ("l2hit", L2_HIT),
        ("dram", DRAM),
        ("l2", L2),
    ):
        if a.get(name) is None or b.get(name) is None:
            missing.add(name)
        elif what != "tensor" or max(a.metrics[name], b.metrics[name]) >= 1:
            va, vb = a.metrics[name], b.metrics[name]
            # a rate outside 0-100% is ncu's hits and lookups counted on different replays (NVIDIA's answer on
            # its forum): the H200's L2 hit rate read 109% for a 0.28 ms kernel. Said so, not shown as a rate.
            key = "gap.note.pct" if all(-0.5 <= v <= 100.5 for v in (va, vb)) else "gap.note.pct_unreliable"
            notes.append(Line(key, {"what": f"gap.what.{what}", "va": va, "vb": vb}))
    return notes


def missing_text(missing: set[str]) -> str:
    """The metrics not recorded, the stall reasons as one group: a list of 18 long names read as noise."""
    stalls = [r for r in STALL_REASONS if stall_metric(r) in missing]
    rest = sorted(m for m in missing if m not in {stall_metric(r) for r in stalls})
    if len(stalls) == len(STALL_REASONS):
        rest.append("smsp__average_warps_issue_stalled_*")
    elif stalls:
        rest.append("stall reasons " + ", ".join(stalls))
    return ", ".join(rest)


def decompose(a: Kernel, b: Kernel, gpu: str, top_stalls: int = 3) -> Gap:
    """Where T_a - T_b goes: parts that sum to it exactly, the last one "not attributed" (see the module's
    docstring and docs/gap-view.md). `gpu` names the GPU the file was recorded on (its SM count)."""
    if a.size != b.size:
        raise GapError(
            f"{a.label} was recorded at {size_text(a.size)} and {b.label} at {size_text(b.size)}: "
            "a gap is between two kernels at one size"
        )
    ta, tb, timing = _times(a, b)
    gap = ta - tb
    shape = gpu_shape(gpu)
    missing: set[str] = set()
    wa, wb = kernel_waves(a, shape), kernel_waves(b, shape)
    s = _Build(a, b, shape, 0.0, missing)
    if shape is None:
        missing.add(f"the SM count of {gpu}")
    elif timing == "ncu" and _both(a, b, [CYCLES], missing):
        fa, fb = a.metrics[CYCLES] / ta, b.metrics[CYCLES] / tb  # cycles per ns: GHz
        s.ns_per_cycle = 1 / fa
        s.add("clock", b.metrics[CYCLES] * (1 / fa - 1 / fb), "gap.label.clock", "gap.part.clock", fa=fa, fb=fb)
        if _both(a, b, [INSTRUCTIONS, IPC], missing) and a.metrics[IPC] > 0 and b.metrics[IPC] > 0:
            _idle_part(s, wa)
            _active_parts(s, top_stalls)
    if gap:  # a part that did not change (equal clocks, equal warps) is no bar: what is left goes to "other"
        s.parts = [p for p in s.parts if abs(p[1]) > 1e-6 * abs(gap)]
    attributed = sum(p[1] for p in s.parts)
    s.add("other", gap - attributed, "gap.label.other", "gap.part.other")
    parts = tuple(
        Part(name, ns, label, Line(line.key, {**line.params, "share": ns / gap if gap else 0.0}))
        for name, ns, label, line in s.parts
    )
    notes = _notes(a, b, missing)
    if timing == "median":
        notes.insert(0, Line("gap.note.timing_median"))
    if missing:
        notes.append(Line("gap.note.missing", {"names": missing_text(missing)}))
    head = "gap.head.slower" if gap >= 0 else "gap.head.faster"
    headline = Line(head, {"a": a.label, "b": b.label, "ta": ta / 1e6, "tb": tb / 1e6, "gap": abs(gap) / 1e6})
    return Gap(a, b, ta, tb, timing, parts, headline, tuple(notes), tuple(sorted(missing)), wa, wb)


# ---------------------------------------------------------------------------------------------- defaults


def precision_of(k: Kernel) -> str:
    """ "fp32" or "tf32": the registry's precision where it knows the variant, else the name's."""
    from gemmviz.core.kernels.variants import VARIANTS

    v = VARIANTS.get(k.variant)
    if v is not None:
        return v.precision
    return "tf32" if "tf32" in k.variant else "fp32"


def is_library(k: Kernel) -> bool:
    from gemmviz.core.kernels.variants import VARIANTS

    v = VARIANTS.get(k.variant)
    return (v.runner != "kernel") if v is not None else k.variant.startswith("cublas")


def default_pair(f: GapFile) -> tuple[str, str] | None:
    """(the fastest hand-written FP32 kernel, the FP32 library kernel of the same size), at the largest size
    that has both: the gap the view opens on; else the two fastest kernels of the size with most kernels; None
    where no size has two. Names as `GapFile.name_of` gives them."""

    def time(k: Kernel) -> float:
        return k.get(DURATION) or (k.median_ms or math.inf) * 1e6

    for size in reversed(f.sizes()):
        here = [k for k in f.kernels if k.size == size]
        refs = [k for k in here if is_library(k) and precision_of(k) == "fp32"]
        rungs = [k for k in here if not is_library(k) and precision_of(k) == "fp32"]
        if refs and rungs:
            return f.name_of(min(rungs, key=time)), f.name_of(refs[0])
    by_size = [[k for k in f.kernels if k.size == size] for size in reversed(f.sizes())]
    most = max(by_size, key=len, default=[])
    if len(most) < 2:
        return None
    first, second = sorted(most, key=time)[:2]
    return f.name_of(second), f.name_of(first)


def pair_of(f: GapFile, text: str | None) -> tuple[Kernel, Kernel]:
    """The two kernels `text` ("A,B", names as `GapFile.name_of` gives them) names, or the default pair; GapError
    in one line naming the kernels the file has."""
    if text is None or not text.strip():
        pair = default_pair(f)
        if pair is None:
            raise GapError("the gap file has no two kernels of one size to compare")
    else:
        pair = tuple(x.strip() for x in text.split(","))  # type: ignore[assignment]
        if len(pair) != 2 or not all(pair):
            raise GapError(f"--pair {text!r}: give two kernels, A,B (A explained against B)")
    try:
        a, b = f.kernel(pair[0]), f.kernel(pair[1])
    except KeyError as exc:
        raise GapError(f"{exc.args[0]} is not among the recorded kernels: {', '.join(f.names())}") from None
    if a is b:
        raise GapError(f"--pair names {f.name_of(a)} twice: pick two different kernels")
    return a, b


def sentences(g: Gap, lang: str = "en") -> list[str]:
    """The headline, one sentence per bar, then the measured context: the view's text, a lesson's notes."""
    return [g.headline.text(lang), *(p.sentence.text(lang) for p in g.parts), *(n.text(lang) for n in g.notes)]


def as_mapping(g: Gap) -> Mapping[str, float]:
    """{part name: ns}, the bars in order (for tests and exports)."""
    return {p.name: p.ns for p in g.parts}


# the words the views draw (ui/hardware/gap.py, pipeline.py), in the view's language like the sentences
_("view.recorded", en="recorded on {gpu}, {date}", zh="录制于 {gpu}，{date}")
_("view.file", en="Figures from {file}: {command}", zh="数据来自 {file}：{command}")
_(
    "view.gap.title",
    en="Where {gap:dur} between {a} and {b} at {size} goes",
    zh="{a} 与 {b} 在 {size} 相差的 {gap:dur} 去了哪里",
)
_("view.gap.total", en="the gap", zh="差距")
_("view.gap.axis", en="time difference, µs", zh="时间差（微秒）")
_("view.gap.value", en="{d:us} · {share:pct}", zh="{d:us} · {share:pct}")
_("view.gap.none", en="No gap to draw: {why}", zh="没有可画的差距：{why}")
_(
    "view.gap.not_in",
    en="{name} is not among the recorded kernels ({names})",
    zh="录制的核函数中没有 {name}（有：{names}）",
)
_("view.gap.same", en="Pick two different kernels", zh="请选择两个不同的核函数")


# ------------------------------------------------------------------------------------------------ writing


def gap_document(results: Sequence, gpu: str, created: str, command: str) -> dict:
    """A gemmviz-gap-metrics file of the profiled `results` (core.session.results.Result with counters): each kernel's
    median and the gap metrics ncu gave it (a metric it lacks is left out, and the view says so). Checked by
    the loader before it is returned, so a file gemmviz writes is one it reads."""
    kernels = []
    for r in results:
        if not r.counters:
            continue
        metrics = {name: r.counters[name] for name in GAP_METRICS if r.counters.get(name) is not None}
        kernels.append(
            {
                "variant": r.variant,
                "params": dict(r.params),
                "m": r.m,
                "n": r.n,
                "k": r.k,
                "median_ms": r.median_ms if r.valid and r.median_ms else None,
                "metrics": metrics,
            }
        )
    doc = {"schema": SCHEMA, "schema_version": 1, "gpu": gpu, "created": created, "command": command}
    doc["kernels"] = kernels
    read_gap(doc, "the gap metrics")
    return doc


def gap_path(session_path: str | os.PathLike) -> str:
    """Where `gemmviz profile --gap` writes the gap file: beside the session, h200-DATE.json -> h200-DATE-gap.json."""
    text = os.fspath(session_path)
    return (text[: -len(".json")] if text.endswith(".json") else text) + "-gap.json"


SMALL_SHARE = 0.01  # the gap-scale threshold: a bar of its own is at least 1% of the reference kernel's time


CANCELLING = 0.5  # stall bars are netted into one where what they sum to is under half of their sizes' sum


def net_stalls(g: Gap, cancelling: float = CANCELLING) -> Gap:
    """`g` with its stall-reason bars (and "other stalls") netted into one, "stall mix", where they mostly cancel:
    their sum under `cancelling` of the sum of their sizes. Two kernels that stall as long in all but for other
    reasons (a barrier against a fixed-latency wait) otherwise draw bars of several times the gap in opposite
    directions; the one bar shows what the shift costs, and its sentence names the largest bar each way and how
    much the reasons moved between them. The sum of the bars is unchanged."""
    stalls = [p for p in g.parts if p.name.startswith("stall:") or p.name == "stalls_rest"]
    if len(stalls) < 2:
        return g
    net, gross = sum(p.ns for p in stalls), sum(abs(p.ns) for p in stalls)
    ups, downs = [p for p in stalls if p.ns > 0], [p for p in stalls if p.ns < 0]
    if not ups or not downs or abs(net) >= cancelling * gross:
        return g
    up, down = max(ups, key=lambda p: p.ns), min(downs, key=lambda p: p.ns)
    params = {
        "share": net / g.gap_ns if g.gap_ns else 0.0,
        "moved": sum(p.ns for p in ups) / 1e3,
        "net": net / 1e3,
        "up": {"key": up.label.key, "params": up.label.params},
        "upv": up.ns / 1e3,
        "down": {"key": down.label.key, "params": down.label.params},
        "downv": down.ns / 1e3,
    }
    mix = Part("stall_mix", net, Line("gap.label.stall_mix"), Line("gap.part.stall_mix", params))
    at = g.parts.index(stalls[0])
    parts = (*(p for p in g.parts[:at] if p not in stalls), mix, *(p for p in g.parts[at:] if p not in stalls))
    return Gap(g.a, g.b, g.ta_ns, g.tb_ns, g.timing, parts, g.headline, g.notes, g.missing, g.waves_a, g.waves_b)


def readable(g: Gap) -> Gap:
    """The bars the views draw: cancelling stall bars netted (net_stalls), then parts too small to read on
    their own folded (fold_small). The same measured parts, the same sum."""
    return fold_small(net_stalls(g))


def fold_small(g: Gap, share_of_time: float = SMALL_SHARE) -> Gap:
    """`g` with the parts that say little on their own added into one bar, placed before "not attributed" (which
    stays its own bar, as does a "stall mix" of net_stalls); the sum of the bars is unchanged.

    Folded: every part under `share_of_time` of the reference kernel's time; then, while their sum is itself
    above that, the part of the opposite sign that brings the sum closest to zero (never one that makes it
    larger). Two kernels a few percent apart otherwise draw bars many times the gap that cancel each other
    (-328% against +319% of a 10 µs gap): the waterfall shows what is left of them, and the bar's sentence says
    how much they add and take away and names the largest, so nothing is hidden. Nothing is folded where fewer
    than two parts would be."""
    limit = share_of_time * abs(g.tb_ns)
    movable = [p for p in g.parts if p.name not in ("other", "small", "stall_mix")]  # those say what they hold
    small = [p for p in movable if abs(p.ns) < limit]
    kept = [p for p in movable if p not in small]
    while small and abs(total := sum(p.ns for p in small)) >= limit:
        best = min((p for p in kept if p.ns * total < 0), key=lambda p: abs(total + p.ns), default=None)
        if best is None or abs(total + best.ns) >= abs(total):
            break
        kept.remove(best)
        small.append(best)
    if len(small) < 2:
        return g
    ns = sum(p.ns for p in small)
    up, down = sum(p.ns for p in small if p.ns > 0), -sum(p.ns for p in small if p.ns < 0)
    largest = max(small, key=lambda p: abs(p.ns))
    params = {"count": len(small), "share": ns / g.gap_ns if g.gap_ns else 0.0}
    if any(abs(p.ns) >= limit for p in small):  # a larger part cancelled by the small ones
        key = "small"
        label = {"key": largest.label.key, "params": largest.label.params}
        params.update(up=up / 1e3, down=down / 1e3, largest=label, big=largest.ns / 1e3)
    else:
        key = "small_one_way"
        params.update(limit=share_of_time, b=g.b.label, up=up / 1e3, down=down / 1e3)
    folded = Part("small", ns, Line(f"gap.label.{key}"), Line(f"gap.part.{key}", params))
    order = [p for p in g.parts if p not in small and p.name != "other"]
    tail = [p for p in g.parts if p.name == "other"]
    parts = (*order, folded, *tail)
    return Gap(g.a, g.b, g.ta_ns, g.tb_ns, g.timing, parts, g.headline, g.notes, g.missing, g.waves_a, g.waves_b)


def merge_stalls(g: Gap, keep: int) -> Gap:
    """`g` with only its `keep` largest stall-reason bars kept, the others added to "other stalls": the same
    measured parts, fewer bars (a chart with little room). The sum and every other bar are unchanged."""
    stalls = [p for p in g.parts if p.name.startswith("stall:")]
    if len(stalls) <= keep:
        return g
    kept = sorted(stalls, key=lambda p: abs(p.ns), reverse=True)[: max(0, keep)]
    merged = [p for p in stalls if p not in kept]
    old = next((p for p in g.parts if p.name == "stalls_rest"), None)
    ns = sum(p.ns for p in merged) + (old.ns if old else 0.0)
    count = len(merged) + (old.sentence.params["count"] if old else 0)
    share = ns / g.gap_ns if g.gap_ns else 0.0
    rest = Part(
        "stalls_rest", ns, Line("gap.label.stalls_rest"), Line("gap.part.stalls_rest", {"count": count, "share": share})
    )
    head = [p for p in g.parts if not p.name.startswith("stall") and p.name not in ("small", "other")]
    tail = [p for p in g.parts if p.name in ("small", "other")]
    parts = (*head, *(p for p in stalls if p in kept), rest, *tail)
    return Gap(g.a, g.b, g.ta_ns, g.tb_ns, g.timing, parts, g.headline, g.notes, g.missing, g.waves_a, g.waves_b)
