"""The model beside the hardware's counters: the schedule model's counts next to Nsight Compute's, level by level
of the memory hierarchy (DRAM, L2, L1, shared), the arithmetic intensity at each level (the hierarchical
roofline's x values), and one sentence per difference that stands out, in every language (core/messages).
No Qt, no GPU: a recorded session's counters are read here."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from gemmviz.core.messages import Message, define, msg, render

SECTOR_BYTES = 32  # L1/L2 move global memory in 32-byte sectors
WAVEFRONT_BYTES = 128  # one shared-memory wavefront: 32 banks x 4 bytes, one per cycle per SM
WARP = 32


class TrafficLike(Protocol):
    """What the comparison reads from gemmviz.core.kernels.model.Traffic (thread-level element counts; read-only,
    as a frozen Traffic's fields are)."""

    @property
    def global_loads(self) -> int: ...
    @property
    def global_stores(self) -> int: ...
    @property
    def shared_loads(self) -> int: ...
    @property
    def shared_stores(self) -> int: ...
    @property
    def flops(self) -> int: ...


def _get(counters: Mapping[str, float | None], name: str) -> float | None:
    value = counters.get(name)
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def _sum(counters: Mapping[str, float | None], *names: str) -> float | None:
    values = [_get(counters, n) for n in names]
    known = [v for v in values if v is not None]
    return sum(known) if len(known) == len(values) else None


def level_bytes(counters: Mapping[str, float | None]) -> dict[str, float | None]:
    """Bytes moved at each level, from the counters.

    DRAM: read + written. L2: every byte through the L2 slices. L1: the sectors global loads asked for.
    Shared: wavefronts x 128 B, the shared pipe's own unit of work, so a conflicted access costs bytes
    it did not deliver, and the figure meets the conflict-free shared-memory roof on equal terms.
    """
    l1 = _get(counters, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
    wavefronts = _sum(
        counters,
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    )
    return {
        "DRAM": _sum(counters, "dram__bytes_read.sum", "dram__bytes_write.sum"),
        "L2": _get(counters, "lts__t_bytes.sum"),
        "L1": None if l1 is None else l1 * SECTOR_BYTES,
        "shared": None if wavefronts is None else wavefronts * WAVEFRONT_BYTES,
    }


def level_intensities(flops: float, counters: Mapping[str, float | None]) -> dict[str, float | None]:
    """Arithmetic intensity at each level (FLOP per byte moved there): the hierarchical roofline's x values."""
    return {level: (flops / b if b else None) for level, b in level_bytes(counters).items()}


@dataclass(frozen=True)
class LevelRow:
    level: str  # "DRAM", "L2", "L1/TEX global", "shared"
    quantity: str  # what is counted
    unit: str  # "byte" or "warp instr." / "wavefront" / "conflict"
    model: float | None
    measured: float | None

    @property
    def ratio(self) -> float | None:
        """measured / model, None where either is missing or the model says zero."""
        if self.model is None or self.measured is None or self.model == 0:
            return None
        return self.measured / self.model


@dataclass(frozen=True)
class Comparison:
    """The model's counts next to the hardware's, level by level, with one sentence per difference.

    The model counts what each thread asks for (elements of 4 bytes); warp-level model figures divide by 32,
    which assumes full warps (true for every tile size gemmviz launches except TILE=4).
    """

    rows: tuple[LevelRow, ...]
    messages: tuple[Message, ...]  # one per difference, rendered in a language by core/messages.render
    flops: int
    intensities: dict[str, float | None] = field(default_factory=dict)

    def sentences(self, lang: str = "en") -> tuple[str, ...]:
        """The differences in `lang`, one sentence each."""
        return tuple(render(m, lang) for m in self.messages)

    @classmethod
    def of(
        cls, traffic: TrafficLike, counters: Mapping[str, float | None], input_bytes: float | None = None
    ) -> Comparison:
        """The model beside the counters; `input_bytes` (A and B once, 4·(M·K + K·N)), where known, tells a DRAM
        that read less than that: the inputs were partly in L2 before the kernel began."""
        model_global = 4.0 * (traffic.global_loads + traffic.global_stores)
        model_loads = 4.0 * traffic.global_loads
        model_sh_ld = traffic.shared_loads / WARP
        model_sh_st = traffic.shared_stores / WARP
        lb = level_bytes(counters)
        conflicts = _sum(
            counters,
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        )
        rows = (
            LevelRow("DRAM", "bytes read + written", "byte", model_global, lb["DRAM"]),
            LevelRow("L2", "bytes through L2", "byte", model_global, lb["L2"]),
            LevelRow("L1/TEX global", "bytes of global-load sectors", "byte", model_loads, lb["L1"]),
            LevelRow(
                "L1/TEX global",
                "global load requests",
                "warp instr.",
                traffic.global_loads / WARP,
                _get(counters, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
            ),
            LevelRow(
                "shared",
                "load instructions",
                "warp instr.",
                model_sh_ld,
                _get(counters, "smsp__inst_executed_op_shared_ld.sum"),
            ),
            LevelRow(
                "shared",
                "store instructions",
                "warp instr.",
                model_sh_st,
                _get(counters, "smsp__inst_executed_op_shared_st.sum"),
            ),
            LevelRow(
                "shared",
                "load wavefronts",
                "wavefront",
                model_sh_ld,
                _get(counters, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
            ),
            LevelRow("shared", "bank conflicts (ld + st)", "conflict", 0.0, conflicts),
        )
        return cls(
            rows=rows,
            messages=tuple(_sentences(traffic, counters, rows, input_bytes)),
            flops=traffic.flops,
            intensities=level_intensities(traffic.flops, counters),
        )


def _sentences(
    traffic: TrafficLike, counters: Mapping[str, float | None], rows: Sequence[LevelRow], input_bytes: float | None
) -> list[Message]:
    """What the counters say beside the model, one message per level that stands out, from DRAM to occupancy."""
    by = {(r.level, r.quantity): r for r in rows}
    found = (
        _dram_sentence(by[("DRAM", "bytes read + written")]),
        _warm_l2_sentence(counters, input_bytes),
        _dram_write_sentence(traffic, counters),
        _l2_sentence(by[("L2", "bytes through L2")]),
        _l1_sentence(by[("L1/TEX global", "bytes of global-load sectors")]),
        _vector_load_sentence(by[("shared", "load instructions")]),
        _wavefront_sentence(by[("shared", "load wavefronts")], by[("shared", "load instructions")]),
        _conflict_sentence(traffic, counters, by[("shared", "bank conflicts (ld + st)")]),
        _occupancy_sentence(counters),
    )
    return [sentence for sentence in found if sentence]


def _dram_sentence(dram: LevelRow) -> Message | None:
    if dram.ratio is None:
        return None
    if dram.ratio < 0.5:
        return msg("counters.dram.cached", measured=dram.measured, model=dram.model, ratio=dram.ratio)
    if dram.ratio > 1.5:
        return msg("counters.dram.scattered", measured=dram.measured, ratio=dram.ratio)
    return None


def _warm_l2_sentence(counters: Mapping[str, float | None], input_bytes: float | None) -> Message | None:
    """DRAM read less than A and B once: no cache serves a first read, so part of them was in L2 before the kernel
    began (the launch before it left them there; a profile that flushes the caches reads them all)."""
    read = _get(counters, "dram__bytes_read.sum")
    if read is None or not input_bytes or read >= 0.9 * input_bytes:
        return None
    return msg("counters.dram.warm", read=read, inputs=input_bytes)


def _dram_write_sentence(traffic: TrafficLike, counters: Mapping[str, float | None]) -> Message | None:
    written = _get(counters, "dram__bytes_write.sum")
    stores = 4.0 * traffic.global_stores
    if written is not None and stores and written < 0.5 * stores:
        return msg("counters.dram.writes", written=written, stores=stores)
    return None


def _l2_sentence(l2: LevelRow) -> Message | None:
    if l2.ratio is None or not (l2.ratio < 0.67 or l2.ratio > 1.5):
        return None
    why = "counters.l2.l1_hits" if l2.ratio < 1 else "counters.l2.sectors"
    return msg("counters.l2", measured=l2.measured, ratio=l2.ratio, why=why)


def _l1_sentence(l1: LevelRow) -> Message | None:
    if l1.ratio is None or not (l1.ratio < 0.8 or l1.ratio > 1.25):
        return None
    why = "counters.l1.broadcast" if l1.ratio < 1 else "counters.l1.uncoalesced"
    return msg("counters.l1", measured=l1.measured, ratio=l1.ratio, why=why)


def _vector_load_sentence(sh_ld: LevelRow) -> Message | None:
    if sh_ld.ratio is not None and sh_ld.ratio < 0.9:
        return msg("counters.vector_loads", measured=sh_ld.measured, model=sh_ld.model)
    return None


def _wavefront_sentence(wf: LevelRow, sh_ld: LevelRow) -> Message | None:
    if wf.measured is not None and sh_ld.measured and wf.measured / sh_ld.measured > 1.05:
        return msg("counters.wavefronts", per=wf.measured / sh_ld.measured)
    return None


def _conflict_sentence(traffic: TrafficLike, counters: Mapping[str, float | None], conf: LevelRow) -> Message | None:
    wavefronts = _sum(
        counters,
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    )
    if conf.measured is None or not wavefronts:
        return None
    share = conf.measured / wavefronts
    if share > 0.01:
        return msg("counters.conflicts", conflicts=conf.measured, share=share)
    if traffic.shared_loads:
        return msg("counters.no_conflicts")
    return None


def _occupancy_sentence(counters: Mapping[str, float | None]) -> Message | None:
    occ = _get(counters, "sm__warps_active.avg.pct_of_peak_sustained_active")
    if occ is None:
        return None
    regs = _get(counters, "launch__registers_per_thread")
    smem = _sum(counters, "launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic")
    detail = (
        None
        if regs is None and smem is None
        else msg("counters.occupancy.regs", regs=regs)
        if smem is None
        else msg("counters.occupancy.smem", smem=smem)
        if regs is None
        else msg("counters.occupancy.regs_smem", regs=regs, smem=smem)
    )
    verdict = "counters.occupancy.enough" if occ >= 50 else "counters.occupancy.few"
    return msg("counters.occupancy", occ=occ, detail=detail, verdict=verdict)


# What the counters say, per language (core/messages.py renders them: {x:bytes} "10.40 GB", {x:mega} "12.3 M").
define(
    "counters.dram.cached",
    en="DRAM moved {measured:bytes}, {ratio:.1%} of the {model:bytes} the code asks of global memory: L1 and L2 "
    "serve the re-reads of A and B, so most loads never reach DRAM.",
    zh="DRAM 实际搬运了 {measured:bytes}，只是代码向全局内存请求的 {model:bytes} 的 {ratio:.1%}：A 和 B 的重复读取由 "
    "L1 和 L2 提供，大多数读取根本到不了 DRAM。",
)
define(
    "counters.dram.warm",
    en="DRAM read {read:bytes}, less than the {inputs:bytes} of A and B the kernel reads at least once: part of them "
    "was already in L2 when it began, left by the launch before it (these counters were taken on warm caches).",
    zh="DRAM 只读了 {read:bytes}，比核函数至少要读一遍的 A 和 B（{inputs:bytes}）还少：开始时其中一部分已经在 L2 里，"
    "是上一次启动留下的（这些计数器是在缓存未清空时测得的）。",
)
define(
    "counters.dram.scattered",
    en="DRAM moved {measured:bytes}, {ratio:.1f}x what the code asks: scattered accesses fetch whole 32-byte "
    "sectors and evict data before it is reused.",
    zh="DRAM 搬运了 {measured:bytes}，是代码请求量的 {ratio:.1f} 倍：分散的访问每次都取整个 32 字节的扇区，"
    "数据还没被复用就被换出了。",
)
define(
    "counters.dram.writes",
    en="DRAM writes {written:bytes} of the {stores:bytes} of C the kernel stores: the results are still in L2 when "
    "the kernel ends, and reach DRAM later.",
    zh="核函数写出的 C 共 {stores:bytes}，DRAM 只写了 {written:bytes}：核函数结束时结果还留在 L2 中，之后才写到 DRAM。",
)
define(
    "counters.l2",
    en="L2 handled {measured:bytes}, {ratio:.2f}x the requested global bytes: {why:msg}.",
    zh="L2 处理了 {measured:bytes}，是请求的全局内存字节数的 {ratio:.2f} 倍：{why:msg}。",
)
define("counters.l2.l1_hits", en="L1 hits never reach L2", zh="命中 L1 的访问不会到达 L2")
define(
    "counters.l2.sectors",
    en="L2 counts whole sectors, writes and DRAM fills as well",
    zh="L2 按整个扇区计数，还包括写入和从 DRAM 的填充",
)
define(
    "counters.l1",
    en="Global loads asked L1 for {measured:bytes} of sectors, {ratio:.2f}x the model's bytes: {why:msg}.",
    zh="全局加载向 L1 请求了 {measured:bytes} 的扇区，是模型字节数的 {ratio:.2f} 倍：{why:msg}。",
)
define(
    "counters.l1.broadcast",
    en="threads of a warp that read the same element share one sector (a broadcast), so a warp asks for fewer "
    "bytes than its 32 threads count",
    zh="同一个线程束中读同一个元素的线程共用一个扇区（广播），所以一个线程束请求的字节比 32 个线程各算各的要少",
)
define(
    "counters.l1.uncoalesced",
    en="a warp's loads are not coalesced, so each 4-byte load costs a whole 32-byte sector",
    zh="线程束的加载没有合并，每次 4 字节的读取都要花掉整个 32 字节的扇区",
)
define(
    "counters.vector_loads",
    en="{measured:mega} shared-load warp instructions where scalar loads would need {model:mega}: the compiler "
    "fused neighbouring shared loads into 64- or 128-bit vector loads.",
    zh="共享内存加载的线程束指令有 {measured:mega} 条，而逐个标量加载需要 {model:mega} 条：编译器把相邻的共享内存加载"
    "合并成了 64 位或 128 位的向量加载。",
)
define(
    "counters.wavefronts",
    en="{per:.2f} wavefronts per shared-load instruction: a vector load of distinct words needs several passes of "
    "the 32 banks, and bank conflicts add more.",
    zh="每条共享内存加载指令 {per:.2f} 个波前（wavefront）：读取不同字的向量加载要分几次经过 32 个 bank，"
    "bank 冲突还会再增加次数。",
)
define(
    "counters.conflicts",
    en="Bank conflicts cost {conflicts:mega} extra wavefronts ({share:.0%} of shared traffic): threads of a warp hit "
    "the same bank at different addresses; padding or another layout spreads them.",
    zh="bank 冲突多花了 {conflicts:mega} 个波前（占共享内存流量的 {share:.0%}）：同一个线程束的线程访问了同一个 bank 的"
    "不同地址；填充或换一种布局可以把它们分散开。",
)
define(
    "counters.no_conflicts",
    en="No bank conflicts to speak of: this access pattern is conflict-free already, so padding cannot speed it up "
    "(and a padded row can stop 128-bit shared loads).",
    zh="几乎没有 bank 冲突：这种访问模式本来就没有冲突，所以填充不会让它变快（填充过的行还可能用不了 128 位的"
    "共享内存加载）。",
)
define(
    "counters.occupancy",
    en="Achieved occupancy {occ:.0f}% of the SM's warp slots{detail:msg}: {verdict:msg}.",
    zh="实际占用率为 SM 的线程束槽位的 {occ:.0f}%{detail:msg}：{verdict:msg}。",
)
define("counters.occupancy.enough", en="enough warps to hide memory latency", zh="有足够的线程束来隐藏内存延迟")
define("counters.occupancy.few", en="few warps to hide memory latency", zh="用来隐藏内存延迟的线程束太少")
define("counters.occupancy.regs", en=" ({regs:.0f} registers per thread)", zh="（每个线程 {regs:.0f} 个寄存器）")
define(
    "counters.occupancy.smem", en=" ({smem:,.0f} B shared memory per block)", zh="（每个线程块 {smem:,.0f} B 共享内存）"
)
define(
    "counters.occupancy.regs_smem",
    en=" ({regs:.0f} registers per thread, {smem:,.0f} B shared memory per block)",
    zh="（每个线程 {regs:.0f} 个寄存器，每个线程块 {smem:,.0f} B 共享内存）",
)
