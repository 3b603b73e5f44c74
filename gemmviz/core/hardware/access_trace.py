"""What the kernel really touched: the memory requests the access tracer recorded (kernels/access_tracer_*, run by
gemmviz/backends/accesses.py), as one launch's AccessTrace, and a sentence on what the tracer can and cannot see.

A record is one warp request: one memory instruction as one warp of a traced block issued it, with the address
of each active lane. What follows from the addresses is core/hardware/access_figures.py; the tracer's raw output
becomes a trace in access_decode.py, a trace its JSON in access_json.py, and a file of traces access_file.py.
Pure Python + numpy: no Qt, no GPU.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gemmviz.core.messages import define, msg, render

SECTOR_BYTES = 32
LINE_BYTES = 128
BANKS = 32
BANK_BYTES = 4
WARP = 32
SPACES = ("global", "shared", "local")
GLOBAL, SHARED, LOCAL = 0, 1, 2
READ, WRITE, ASYNC = 0x1, 0x2, 0x10
MATRICES = ("A", "B", "C", "other")  # index into this; -1 for shared and local addresses

# The tracer's record (kernels/access_tracer.h, struct GvRequest): 280 bytes.
RECORD_DTYPE = np.dtype(
    [
        ("pc", "<u8"),
        ("addr", "<u8", (32,)),
        ("seq", "<u4"),
        ("active", "<u4"),
        ("slot", "<u2"),
        ("warp", "u1"),
        ("size", "u1"),
        ("space", "u1"),
        ("flags", "u1"),
        ("pad", "<u2"),
    ]
)
assert RECORD_DTYPE.itemsize == 280

# Nsight Compute metrics the recorded totals sit beside (the kernel's whole grid).
NCU_ACCESS_METRICS = (
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
)
# summary key -> the ncu metric it compares with
NCU_OF = {
    "global_ld_requests": NCU_ACCESS_METRICS[0],
    "global_ld_sectors": NCU_ACCESS_METRICS[1],
    "global_st_requests": NCU_ACCESS_METRICS[2],
    "global_st_sectors": NCU_ACCESS_METRICS[3],
    "shared_ld_requests": NCU_ACCESS_METRICS[4],
    "shared_st_requests": NCU_ACCESS_METRICS[5],
    "shared_ld_wavefronts": NCU_ACCESS_METRICS[6],
    "shared_st_wavefronts": NCU_ACCESS_METRICS[7],
    "shared_ld_conflicts": NCU_ACCESS_METRICS[8],
    "shared_st_conflicts": NCU_ACCESS_METRICS[9],
}
SUMMARY_KEYS = (
    *(f"global_{op}_{what}" for op in ("ld", "st") for what in ("requests", "threads", "bytes", "sectors", "lines")),
    *(f"shared_{op}_{what}" for op in ("ld", "st") for what in ("requests", "threads", "bytes", "wavefronts", "conflicts")),
    "async_requests", "async_threads", "async_sectors", "local_requests",
)  # fmt: skip


class AccessError(RuntimeError):
    """Tracing failed or its records cannot be used; str() is one line that says why."""


@dataclass(frozen=True)
class Pc:
    offset: int  # bytes from the kernel's first instruction
    sass: str  # the instruction's opcode (LDG.E, STS, LDS.128, ...), "?" where nvdisasm was not there
    line: int | None  # source line of the kernel's .cu file, None without line info


@dataclass
class AccessTrace:
    """The recorded requests of the traced blocks of one launch, with where they came from."""

    variant: str
    mnk: tuple[int, int, int]
    params: dict[str, int]
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    blocks: list[tuple[int, int, int]]  # the traced blocks, by slot
    cap: int
    attempted: int  # requests the traced blocks issued
    stored: int  # requests the tracer stored (attempted, up to the cap)
    pcs: list[Pc]
    # one entry per kept request (the first `kept` of the stored ones, in the order the tracer took them)
    slot: np.ndarray
    warp: np.ndarray
    seq: np.ndarray
    pc: np.ndarray  # index into pcs
    space: np.ndarray
    flags: np.ndarray
    size: np.ndarray
    active: np.ndarray  # uint32 lane masks
    matrix: np.ndarray  # index into MATRICES, -1 for shared/local
    addr: np.ndarray  # (n, 32) int64: bytes from the matrix's first element, or the shared-window offset; -1 off
    summary: list[dict[str, int]]  # per slot, from every stored request (SUMMARY_KEYS)
    ncu: dict[str, float] = field(default_factory=dict)  # the kernel's counters, same launch, under ncu
    bulk_copies: int = 0
    bulk_bytes: int = 0
    wgmma: int = 0
    wgmma_smem_bytes: int = 0
    sees: str = ""  # what the tracer can and cannot see in this kernel, in a sentence or two
    note: str = ""

    @property
    def kept(self) -> int:
        return len(self.slot)

    @property
    def truncated(self) -> bool:
        return self.attempted > self.stored

    @property
    def n_blocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def label(self) -> str:
        params = ", ".join(f"{k} {v}" for k, v in sorted(self.params.items()))
        return f"{self.variant}{f' [{params}]' if params else ''} at {'×'.join(map(str, self.mnk))}"


def sees_messages(trace: AccessTrace) -> list:
    """What the tracer could see of this kernel, as messages (core/messages.py): rendered in any language."""
    parts = []
    if trace.wgmma or trace.bulk_copies:
        parts.append(msg("sees.async", wgmma=trace.wgmma, bulk=trace.bulk_copies))
    if trace.truncated:
        parts.append(msg("sees.cap", stored=trace.stored, attempted=trace.attempted))
    if trace.kept < trace.stored:
        parts.append(msg("sees.kept", kept=trace.kept, stored=trace.stored))
    if not any(p.line for p in trace.pcs):
        parts.append(msg("sees.no_lines"))
    return parts


def what_it_sees(trace: AccessTrace, lang: str = "en") -> str:
    """A sentence on what the tracer could see of this kernel, for the views and the CLI."""
    return render(msg("sees.all", parts=sees_messages(trace)), lang) if sees_messages(trace) else ""


define(
    "sees.async",
    en="{wgmma:int} wgmma issues and {bulk:int} bulk copies counted per warp, no addresses: TMA tensor copies and "
    "wgmma operand reads are done by the copy engine and the tensor cores, not by threads, so their traffic is "
    "the model's",
    zh="按线程束计数 {wgmma:int} 次 wgmma 发射和 {bulk:int} 次批量拷贝，没有地址：TMA 张量拷贝和 wgmma 的操作数读取由拷贝引擎和"
    "张量核完成，不经过线程，所以它们的流量取自模型",
)
define(
    "sees.cap",
    en="record cap reached: {stored:int} of {attempted:int} requests stored",
    zh="达到记录上限：{attempted:int} 个请求中存了 {stored:int} 个",
)
define(
    "sees.kept",
    en="{kept:int} of {stored:int} requests kept in detail; totals from all {stored:int}",
    zh="{stored:int} 个请求中详细保留了 {kept:int} 个；总数来自全部 {stored:int} 个",
)
define(
    "sees.no_lines",
    en="no source lines (no nvdisasm, or the -lineinfo build differed)",
    zh="没有源代码行号（没有 nvdisasm，或 -lineinfo 的构建不同）",
)
define("sees.all", en="{parts:semi}", zh="{parts:semi}")
