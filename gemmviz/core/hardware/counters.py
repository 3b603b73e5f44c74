"""Hardware counters beside the model: the Nsight Compute metrics gemmviz records, a parser for
`ncu --csv --page raw`, the model-vs-measured comparison with one sentence per difference, the intensity
at each level of the memory hierarchy, and the decoding of a block trace (kernels/trace.cuh).

Pure Python + numpy: a recorded session's counters and traces are read here without a GPU.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from gemmviz.core.messages import Message, define, msg, render
from gemmviz.core.session.bounds import MAX_SMS, MAX_TRACE_NS

if TYPE_CHECKING:  # numpy is imported where it is used: not on the window's first frame's path
    import numpy as np

SECTOR_BYTES = 32  # L1/L2 move global memory in 32-byte sectors
WAVEFRONT_BYTES = 128  # one shared-memory wavefront: 32 banks x 4 bytes, one per cycle per SM
WARP = 32


@dataclass(frozen=True)
class Metric:
    name: str  # ncu's metric name, the key of a result's `counters` dict
    unit: str  # after parse_ncu_csv: "byte", "ns", "%", "count"
    meaning: str


METRICS: tuple[Metric, ...] = (
    Metric("dram__bytes_read.sum", "byte", "bytes read from DRAM (HBM)"),
    Metric("dram__bytes_write.sum", "byte", "bytes written to DRAM (HBM)"),
    Metric("lts__t_bytes.sum", "byte", "bytes through L2 (all requests that reached the L2 slices)"),
    Metric(
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "count",
        "global load requests at L1 (one per warp instruction)",
    ),
    Metric("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "count", "32-byte sectors the global loads asked L1 for"),
    Metric(
        "smsp__inst_executed_op_shared_ld.sum",
        "count",
        "shared-memory load warp instructions (a vector load counts once)",
    ),
    Metric("smsp__inst_executed_op_shared_st.sum", "count", "shared-memory store warp instructions"),
    Metric(
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "count",
        "shared load wavefronts (cycles of the shared pipe)",
    ),
    Metric("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "count", "shared store wavefronts"),
    Metric(
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "count",
        "shared load bank conflicts (extra wavefronts)",
    ),
    Metric(
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "count",
        "shared store bank conflicts (extra wavefronts)",
    ),
    Metric(
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "%",
        "achieved occupancy: resident warps / the SM's maximum",
    ),
    Metric("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "SM throughput, % of the busiest SM unit's peak"),
    Metric(
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
        "%",
        "memory throughput, % of the busiest memory unit's peak",
    ),
    Metric("launch__registers_per_thread", "count", "registers per thread"),
    Metric(
        "launch__shared_mem_per_block", "byte", "shared memory per block: static + dynamic + 1 KiB the driver reserves"
    ),
    Metric("launch__shared_mem_per_block_static", "byte", "static shared memory per block (bytes)"),
    Metric("launch__shared_mem_per_block_dynamic", "byte", "dynamic shared memory per block (bytes)"),
    Metric("gpu__time_duration.sum", "ns", "kernel duration measured by ncu (replayed, not the event-timed figure)"),
)
METRIC_NAMES: tuple[str, ...] = tuple(m.name for m in METRICS)


class NcuCsvError(ValueError):
    """ncu's CSV output could not be read; the message says why in one line."""


# ---------------------------------------------------------------------------------------------------- parsing

# ncu scales units with SI prefixes ("Kbyte" = 1000 bytes) unless run with --print-units base; even then it
# prints thousands separators ("8,394,496") and, in the raw page, a unit row under the header.
_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_TIME_NS = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9}
_PER_TIME_S = {k: v * 1e-9 for k, v in _TIME_NS.items()}
_BYTE = re.compile(r"([KMGT]?)(byte|B)")
_COUNT_UNITS = {"inst", "sector", "request", "warp", "cycle", "thread", "block", "register", "wavefront", "pass", "SM"}
_PREFIXED_COUNT = re.compile(r"([KMGT])(" + "|".join(sorted(_COUNT_UNITS)) + r")")
_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")
_GROUPED = re.compile(r"[-+]?\d{1,3}(,\d{3})+(\.\d*)?([eE][-+]?\d+)?")


def normalise_unit(unit: str) -> tuple[str, float]:
    """(normalised unit, factor to multiply a value by): "byte", "ns", "%", "count", or a ratio such as
    "byte/block" or "byte/second" (rates per second); an empty unit is a count."""
    unit = unit.strip()
    if unit == "%":
        return "%", 1.0
    if unit in _TIME_NS:
        return "ns", _TIME_NS[unit]
    num, _, den = unit.partition("/")
    factor = 1.0
    if m := _BYTE.fullmatch(num):
        base, factor = "byte", _PREFIX[m.group(1)]
    elif m := _PREFIXED_COUNT.fullmatch(num):
        base, factor = m.group(2), _PREFIX[m.group(1)]
    else:
        base = num
    if den in _PER_TIME_S:
        return f"{base}/second", factor / _PER_TIME_S[den]
    if den:
        return f"{base}/{den}", factor
    if base == "byte":
        return "byte", factor
    return "count", factor


def _number(text: str) -> float | None:
    """The value of one ncu field, None when it is empty or not a number."""
    s = text.strip()
    if _GROUPED.fullmatch(s):
        s = s.replace(",", "")
    return float(s) if _NUMBER.fullmatch(s) else None


def parse_ncu_csv(text: str, metrics: Sequence[str] | None = METRIC_NAMES) -> list[dict]:
    """Rows of `ncu --csv --page raw` output, one dict per profiled kernel launch.

    Each dict: id, kernel, block, grid, device, cc (as ncu printed them), `counters` {metric: float or
    None} with units normalised (see `normalise_unit`), and `units` {metric: normalised unit}.
    `metrics` picks the counters: each must hold a number (or be empty, giving None); a metric ncu did not
    print is None. metrics=None keeps every numeric metric column (the raw page also holds device
    attributes and launch settings, some of them words). Lines before the header (the program's output,
    ==PROF== and ==WARNING== lines) are skipped.
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        errors = [line for line in lines if line.startswith("==ERROR==")]
        why = errors[0] if errors else 'no header line starting with "ID"'
        raise NcuCsvError(f"not ncu --csv --page raw output: {why}")
    body = [line for line in lines[start:] if line.startswith('"')]
    table = list(csv.reader(io.StringIO("\n".join(body))))
    header = table[0]
    for needed in ("ID", "Kernel Name"):
        if needed not in header:
            raise NcuCsvError(f"ncu CSV: the header has no {needed!r} column")
    if len(table) < 2 or table[1][0] != "":
        raise NcuCsvError("ncu CSV: the units row under the header is missing (expected --page raw output)")
    if len(table[1]) != len(header):
        raise NcuCsvError(f"ncu CSV: the units row has {len(table[1])} fields, the header {len(header)}")
    col = {name: i for i, name in enumerate(header)}
    wanted = [n for n in header if "__" in n] if metrics is None else list(metrics)
    scales = {n: normalise_unit(table[1][col[n]]) for n in wanted if n in col}
    rows = []
    for line_no, values in enumerate(table[2:], start=3):
        if len(values) != len(header):
            raise NcuCsvError(f"ncu CSV: row {line_no} has {len(values)} fields, the header {len(header)}")
        counters: dict[str, float | None] = {}
        for name in wanted:
            if name not in col:
                counters[name] = None
                continue
            raw = values[col[name]]
            value = _number(raw)
            if value is None and raw.strip() not in ("", "n/a", "N/A"):
                if metrics is None:
                    continue  # a word-valued attribute ("PolicySpread", "No-CC")
                raise NcuCsvError(f"ncu CSV: metric {name!r} holds {raw!r}, not a number (row {line_no})")
            counters[name] = None if value is None else value * scales[name][1]
        rows.append(
            {
                "id": int(values[col["ID"]]),
                "kernel": values[col["Kernel Name"]],
                "block": values[col["Block Size"]] if "Block Size" in col else "",
                "grid": values[col["Grid Size"]] if "Grid Size" in col else "",
                "device": values[col["Device"]] if "Device" in col else "",
                "cc": values[col["CC"]] if "CC" in col else "",
                "counters": counters,
                "units": {n: scales[n][0] for n in counters if n in scales},
            }
        )
    return rows


# ---------------------------------------------------------------------------------- model vs measurement


class TrafficLike(Protocol):
    """What the comparison reads from gemmviz.core.kernels.model.Traffic (thread-level element counts)."""

    global_loads: int
    global_stores: int
    shared_loads: int
    shared_stores: int
    flops: int


def _get(counters: Mapping[str, float | None], name: str) -> float | None:
    value = counters.get(name)
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def _sum(counters: Mapping[str, float | None], *names: str) -> float | None:
    values = [_get(counters, n) for n in names]
    return None if any(v is None for v in values) else sum(values)  # type: ignore[arg-type]


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
    def of(cls, traffic: TrafficLike, counters: Mapping[str, float | None]) -> Comparison:
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
            messages=tuple(_sentences(traffic, counters, rows)),
            flops=traffic.flops,
            intensities=level_intensities(traffic.flops, counters),
        )


def _sentences(traffic: TrafficLike, counters: Mapping[str, float | None], rows: Sequence[LevelRow]) -> list[Message]:
    """What the counters say beside the model, one message per level that stands out, from DRAM to occupancy."""
    by = {(r.level, r.quantity): r for r in rows}
    found = (
        _dram_sentence(by[("DRAM", "bytes read + written")]),
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
    zh="同一个 warp 中读同一个元素的线程共用一个扇区（广播），所以一个 warp 请求的字节比 32 个线程各算各的要少",
)
define(
    "counters.l1.uncoalesced",
    en="a warp's loads are not coalesced, so each 4-byte load costs a whole 32-byte sector",
    zh="warp 的加载没有合并，每次 4 字节的读取都要花掉整个 32 字节的扇区",
)
define(
    "counters.vector_loads",
    en="{measured:mega} shared-load warp instructions where scalar loads would need {model:mega}: the compiler "
    "fused neighbouring shared loads into 64- or 128-bit vector loads.",
    zh="共享内存加载的 warp 指令有 {measured:mega} 条，而逐个标量加载需要 {model:mega} 条：编译器把相邻的共享内存加载"
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
    zh="bank 冲突多花了 {conflicts:mega} 个波前（占共享内存流量的 {share:.0%}）：同一个 warp 的线程访问了同一个 bank 的"
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
    zh="实际占用率为 SM 的 warp 槽位的 {occ:.0f}%{detail:msg}：{verdict:msg}。",
)
define("counters.occupancy.enough", en="enough warps to hide memory latency", zh="有足够的 warp 来隐藏内存延迟")
define("counters.occupancy.few", en="few warps to hide memory latency", zh="用来隐藏内存延迟的 warp 太少")
define("counters.occupancy.regs", en=" ({regs:.0f} registers per thread)", zh="（每个线程 {regs:.0f} 个寄存器）")
define(
    "counters.occupancy.smem", en=" ({smem:,.0f} B shared memory per block)", zh="（每个线程块 {smem:,.0f} B 共享内存）"
)
define(
    "counters.occupancy.regs_smem",
    en=" ({regs:.0f} registers per thread, {smem:,.0f} B shared memory per block)",
    zh="（每个线程 {regs:.0f} 个寄存器，每个线程块 {smem:,.0f} B 共享内存）",
)


# --------------------------------------------------------------------------------------------- block trace

TRACE_FIELDS = 4  # block, sm, start, end (u64 each), as kernels/trace.cuh writes them
_UNWRITTEN = 0xFFFFFFFFFFFFFFFF  # (a u64) the host fills the buffer with this before the launch


class TraceError(ValueError):
    """A block trace is incomplete or inconsistent; the message says which block and why."""


def decode_trace(raw: Iterable[int] | np.ndarray) -> list[list[int]]:
    """[[block, sm, start_ns, end_ns], ...] from the u64 buffer of kernels/trace.cuh.

    Sorted by start time (then block); times relative to the earliest start. Refuses a buffer in which
    a block never wrote its record, a block id that is out of place, or an end before its start.
    """
    import numpy as np

    a = np.asarray(raw, dtype=np.uint64)
    if a.ndim != 1 or a.size % TRACE_FIELDS:
        raise TraceError(f"a block trace holds {TRACE_FIELDS} u64 per block; got {a.size} values")
    rec = a.reshape(-1, TRACE_FIELDS)
    if rec.shape[0] == 0:
        raise TraceError("the block trace is empty")
    missing = np.flatnonzero((rec == np.uint64(_UNWRITTEN)).any(axis=1))
    if missing.size:
        raise TraceError(f"{missing.size} blocks never wrote their record (first: block {int(missing[0])})")
    ids = rec[:, 0]
    wrong = np.flatnonzero(ids != np.arange(rec.shape[0], dtype=np.uint64))
    if wrong.size:
        i = int(wrong[0])
        raise TraceError(f"record {i} holds block {int(ids[i])}: each block must write its own slot once")
    if (rec[:, 3] < rec[:, 2]).any():
        i = int(np.flatnonzero(rec[:, 3] < rec[:, 2])[0])
        raise TraceError(f"block {i} ends before it starts")
    t0 = rec[:, 2].min()
    out = np.stack([ids, rec[:, 1], rec[:, 2] - t0, rec[:, 3] - t0], axis=1).astype(np.int64)
    # what the session loader would refuse (core/session/bounds.py) is refused here, and the result keeps no trace
    if (out[:, 3] == out[:, 2]).all():
        raise TraceError("every block ends as it starts: the GPU's timer is too coarse for this kernel")
    if int(out[:, 3].max()) > MAX_TRACE_NS or int(out[:, 1].max()) >= MAX_SMS:
        raise TraceError(f"the trace lasts over an hour or names an SM id of {MAX_SMS} or more")
    order = np.lexsort((out[:, 0], out[:, 2]))
    return out[order].tolist()


_TIME_BITS = 43  # trace times below 2^43 ns (2.4 hours; the loader allows one) pack beside an SM id or a flag


def _packable(t: np.ndarray) -> bool:
    return len(t) == 0 or (
        int(t[:, 2:].min()) >= 0
        and int(t[:, 3].max()) < 1 << _TIME_BITS
        and 0 <= int(t[:, 1].min())
        and int(t[:, 1].max()) < 1 << 10
    )


def _events(t: np.ndarray, by_sm: bool) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """(sm (None unless `by_sm`), time, +1/-1) of every block's start and end, in order of SM (when `by_sm`),
    then time, an end before a start at the same instant. One in-place sort of packed int64 keys (few
    temporaries: on a million blocks their first touch cost more than the sort)."""
    import numpy as np

    n = len(t)
    if not _packable(t):
        times = np.concatenate([t[:, 2], t[:, 3]])
        starts = np.concatenate([np.ones(n, np.int64), np.zeros(n, np.int64)])
        sms = np.concatenate([t[:, 1], t[:, 1]]) if by_sm else np.zeros(2 * n, np.int64)
        order = np.lexsort((starts, times, sms))
        return (sms[order] if by_sm else None), times[order], 2 * starts[order] - 1
    key = np.empty(2 * n, np.int64)
    np.left_shift(t[:, 2], 1, out=key[:n])
    key[:n] |= 1
    np.left_shift(t[:, 3], 1, out=key[n:])
    if by_sm:
        sm_bits = t[:, 1] << (_TIME_BITS + 1)
        key[:n] |= sm_bits
        key[n:] |= sm_bits
    key.sort()
    steps = (key & 1) * 2 - 1
    sms = key >> (_TIME_BITS + 1) if by_sm else None
    if by_sm:
        key &= (1 << (_TIME_BITS + 1)) - 1
    key >>= 1
    return sms, key, steps


def resident_timeline(
    trace: Sequence[Sequence[int]] | np.ndarray, sm: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(times_ns, resident blocks from each time to the next) on one SM, or on the whole GPU when sm is None.

    A block ending at the same instant another starts is counted out first.
    """
    import numpy as np

    t = np.asarray(trace, dtype=np.int64).reshape(-1, TRACE_FIELDS)
    if sm is not None:
        t = t[t[:, 1] == sm]
    _sms, times, steps = _events(t, by_sm=False)
    return times, np.cumsum(steps)


@dataclass(frozen=True)
class TraceSummary:
    blocks: int
    sms_used: int
    duration_ns: int
    blocks_per_sm_min: int
    blocks_per_sm_max: int
    max_resident_per_sm: int  # the most blocks one SM held at once
    max_resident_total: int  # the most blocks the GPU held at once
    waves: float  # blocks / max_resident_total
    tail_pct: float  # share of the run after the last moment the most SMs were busy at once
    block_ns_median: float


def trace_summary(trace: Sequence[Sequence[int]]) -> TraceSummary:
    """Waves, blocks per SM, residency and the tail of the last wave, from a decoded trace.

    The tail starts when the number of busy SMs falls for the last time from its maximum: from then on
    some SMs sit idle while the last blocks finish (the partly filled last wave, plus end-of-run jitter).
    Whole-array work only (sorts of packed keys), so a million-block trace takes a fraction of a second.
    """
    steps = trace_summary_steps(trace)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def trace_summary_steps(trace: Sequence[Sequence[int]] | np.ndarray) -> Generator[None, None, TraceSummary]:
    """trace_summary in steps of a few tens of milliseconds each for a million blocks (a view that must not
    stall runs one per event-loop turn); yields between them, returns the TraceSummary."""
    import numpy as np

    t = np.asarray(trace, dtype=np.int64).reshape(-1, TRACE_FIELDS)
    if len(t) == 0:
        raise TraceError("the block trace is empty")
    per_sm = np.bincount(t[:, 1]) if int(t[:, 1].min()) >= 0 else np.unique(t[:, 1], return_counts=True)[1]
    per_sm = per_sm[per_sm > 0]
    sm, times, steps = _events(t, by_sm=True)
    yield
    total_then = np.cumsum(steps)
    first = np.flatnonzero(np.r_[True, sm[1:] != sm[:-1]])  # where each SM's events begin
    before_sm = np.repeat(np.r_[0, total_then[first[1:] - 1]], np.diff(np.r_[first, len(sm)]))
    resident = total_then - before_sm  # blocks on this event's SM after it
    max_per_sm = int(resident.max())
    # an SM turns busy when its count leaves 0 and idle when it returns there; summed per instant over all SMs
    change = (resident > 0).astype(np.int64) - (resident - steps > 0).astype(np.int64)
    yield
    if _packable(t):  # the order within an instant does not matter: only the count after its last event
        key = np.sort((times << 2) | (change + 1))
        at, change = key >> 2, (key & 3) - 1
    else:
        order = np.argsort(times, kind="stable")
        at, change = times[order], change[order]
    last = np.flatnonzero(np.r_[at[1:] != at[:-1], True])  # the last event at each instant
    busy_times, busy = at[last], np.cumsum(change)[last]
    last_full = busy_times[min(np.flatnonzero(busy == busy.max())[-1] + 1, len(busy_times) - 1)]
    yield
    _, total = resident_timeline(t)
    end = int(t[:, 3].max())
    most = int(total.max())
    if most == 0:
        raise TraceError("every block ends as it starts: no block was ever resident")
    yield
    return TraceSummary(
        blocks=len(t),
        sms_used=len(per_sm),
        duration_ns=end,
        blocks_per_sm_min=int(per_sm.min()),
        blocks_per_sm_max=int(per_sm.max()),
        max_resident_per_sm=max_per_sm,
        max_resident_total=most,
        waves=len(t) / most,
        tail_pct=100.0 * (end - int(last_full)) / end if end else 0.0,
        block_ns_median=float(np.median(t[:, 3] - t[:, 2])),
    )
