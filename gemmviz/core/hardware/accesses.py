"""What the kernel really touched: memory requests recorded by the access tracer
(kernels/access_tracer_*, run by gemmviz/backends/accesses.py), and what follows from their addresses.

A record is one warp request: one memory instruction as one warp of a traced block issued it, with the address
of each active lane. From the addresses alone:
- a global request touches 32-byte sectors and 128-byte lines; fewer of them for the same bytes is coalescing;
- a shared request is served in wavefronts: within each group of lanes the hardware serves together (the warp,
  or each half-warp for 16-byte accesses), the bank (4-byte word mod 32) asked for the most distinct words
  sets how many, and at least one per 128 distinct bytes; wavefronts beyond that ideal are bank conflicts.
Totals per block sit beside the schedule model's counts of the same block and, scaled by the number of blocks,
beside Nsight Compute's counters of the whole kernel.

Records travel in a companion file (`NAME.accesses.json.gz` beside a session, or assets/sessions/*.accesses.json.gz),
read with the bounds of core/session/bounds.py. Pure Python + numpy: no Qt, no GPU.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gemmviz.core.fileio import InputFileError, inflate
from gemmviz.core.messages import define, msg, render
from gemmviz.core.session import bounds
from gemmviz.core.session.checks import (
    MAX_TEXT_CHARS,
    SessionError,
    _fail,
    _int,
    _list,
    _object,
    _read_json,
    _str,
)

SECTOR_BYTES = 32
LINE_BYTES = 128
BANKS = 32
BANK_BYTES = 4
WARP = 32
SPACES = ("global", "shared", "local")
GLOBAL, SHARED, LOCAL = 0, 1, 2
READ, WRITE, ASYNC = 0x1, 0x2, 0x10
MATRICES = ("A", "B", "C", "other")  # index into this; -1 for shared and local addresses
FORMAT = "gemmviz-accesses"
SHIPPED_SUFFIX = "-accesses.json.gz"  # assets/sessions/accesses/: a folder of its own, not listed as sessions
VERSION = 1

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


# ------------------------------------------------------------------------------------------ derived figures


def lanes_of(active: np.ndarray) -> np.ndarray:
    """(n, 32) bool: which lanes each mask holds."""
    return ((np.asarray(active, np.uint64)[:, None] >> np.arange(WARP, dtype=np.uint64)) & 1).astype(bool)


def _distinct_per_row(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """How many distinct valid values each row holds."""
    if values.shape[0] == 0:
        return np.zeros(0, np.int64)
    big = np.iinfo(np.int64).max
    v = np.sort(np.where(valid, values, big), axis=1)
    first = np.ones_like(v, dtype=bool)
    first[:, 1:] = v[:, 1:] != v[:, :-1]
    return (first & (v != big)).sum(axis=1)


def sectors_and_lines(addr: np.ndarray, active: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per request: the 32-byte sectors and 128-byte lines its active lanes' bytes fall in."""
    lanes = lanes_of(active)
    a = np.asarray(addr, np.int64)
    last = a + np.asarray(size, np.int64)[:, None] - 1
    valid = np.concatenate([lanes, lanes], axis=1)
    ends = np.concatenate([a, last], axis=1)
    return (_distinct_per_row(ends // SECTOR_BYTES, valid), _distinct_per_row(ends // LINE_BYTES, valid))


def lanes_per_group(size: int) -> int:
    """How many lanes of a shared request the hardware serves together: the whole warp for accesses of up to 8
    bytes, each half-warp apart for 16-byte ones (measured on the H200: a 16-byte load that every lane of the
    warp reads from one address takes 2 wavefronts, as ncu counts them). No recorded kernel issues 8-byte
    shared accesses: their rule is not checked against ncu."""
    return 16 if size > 8 else WARP


def wavefronts(addr: np.ndarray, active: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per shared request: (wavefronts, ideal wavefronts). The lanes of each group (lanes_per_group) are served
    in as many wavefronts as the most distinct 4-byte words any one bank holds among them (one word read by many
    lanes is a broadcast), and at least as many as their distinct bytes need at 128 bytes a wavefront: that is
    the group's ideal. Wavefronts beyond the ideal are bank conflicts."""
    n = len(active)
    out_w, out_i = np.zeros(n, np.int64), np.zeros(n, np.int64)
    lanes = lanes_of(active)
    a = np.asarray(addr, np.int64)
    size = np.asarray(size, np.int64)
    big = np.iinfo(np.int64).max
    for s in np.unique(size):
        rows = np.nonzero(size == s)[0]
        per_group = lanes_per_group(int(s))
        groups, words = WARP // per_group, int(max(1, s // BANK_BYTES))
        w = (a[rows] // BANK_BYTES)[:, :, None] + np.arange(words)  # (r, 32, words)
        ok = np.broadcast_to(lanes[rows][:, :, None], w.shape).reshape(len(rows), groups, per_group * words)
        v = np.sort(np.where(ok, w.reshape(ok.shape), big), axis=2)
        first = np.ones_like(v, dtype=bool)
        first[:, :, 1:] = v[:, :, 1:] != v[:, :, :-1]
        first &= v != big
        bank = np.where(first, v % BANKS, 0)
        cell = (np.arange(len(rows))[:, None, None] * groups + np.arange(groups)[None, :, None]) * BANKS + bank
        counts = np.bincount(cell[first], minlength=len(rows) * groups * BANKS).reshape(len(rows), groups, BANKS)
        distinct_words = counts.sum(axis=2)
        ideal = -(-distinct_words * BANK_BYTES // LINE_BYTES)  # 0 for a group with no active lane
        out_w[rows] = np.maximum(counts.max(axis=2), ideal).sum(axis=1)
        out_i[rows] = ideal.sum(axis=1)
    return out_w, out_i


def summarise(columns: Mapping | np.ndarray, n_slots: int, addr: np.ndarray | None = None) -> list[dict[str, int]]:
    """Per slot: requests, threads, sectors, lines (global), wavefronts and conflicts (shared), by load/store.
    `columns`: warp-level requests, one entry each, as a record array (RECORD_DTYPE) or a mapping of columns by
    name (space, flags, size, active, addr, slot); `addr` in place of its own (the records' addresses rebased)."""
    space, flags, size = np.asarray(columns["space"]), np.asarray(columns["flags"]), np.asarray(columns["size"])
    active, slot = np.asarray(columns["active"], np.uint32), np.asarray(columns["slot"])
    addr = columns["addr"] if addr is None else addr
    threads = _chunked(lambda sel: (lanes_of(active[sel]).sum(axis=1),), np.ones(len(space), bool))[0]
    nbytes = threads * size.astype(np.int64)
    out = [dict.fromkeys(SUMMARY_KEYS, 0) for _ in range(n_slots)]
    asyn = (flags & ASYNC) != 0
    store = (flags & WRITE) != 0
    g = (space == GLOBAL) & ~asyn
    ga = (space == GLOBAL) & asyn
    sectors, lines = _chunked(lambda sel: sectors_and_lines(addr[sel], active[sel], size[sel]), g | ga)
    s = (space == SHARED) & ~asyn
    wave, ideal = _chunked(lambda sel: wavefronts(addr[sel], active[sel], size[sel]), s)
    for k in range(n_slots):
        mine = slot == k
        for op, sel in (("ld", ~store), ("st", store)):
            gm, sm = mine & g & sel, mine & s & sel
            row = out[k]
            row[f"global_{op}_requests"] = int(gm.sum())
            row[f"global_{op}_threads"] = int(threads[gm].sum())
            row[f"global_{op}_bytes"] = int(nbytes[gm].sum())
            row[f"shared_{op}_bytes"] = int(nbytes[sm].sum())
            row[f"global_{op}_sectors"] = int(sectors[gm].sum())
            row[f"global_{op}_lines"] = int(lines[gm].sum())
            row[f"shared_{op}_requests"] = int(sm.sum())
            row[f"shared_{op}_threads"] = int(threads[sm].sum())
            row[f"shared_{op}_wavefronts"] = int(wave[sm].sum())
            row[f"shared_{op}_conflicts"] = int((wave[sm] - ideal[sm]).sum())
        out[k]["async_requests"] = int((mine & asyn).sum())
        out[k]["async_threads"] = int(threads[mine & asyn].sum())
        out[k]["async_sectors"] = int(sectors[mine & ga].sum())
        out[k]["local_requests"] = int((mine & (space == LOCAL)).sum())
    return out


SUMMARY_CHUNK = 32_768  # requests whose per-lane figures are worked out at once (a few tens of MB)


def _chunked(figures, sel: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per-request figures (int64 arrays, 0 outside `sel`) of the requests `sel` picks, worked out a chunk at a
    time: the per-lane arrays behind them (64 addresses a request, sorted) never exceed one chunk's."""
    rows = np.nonzero(sel)[0]
    outs: tuple[np.ndarray, ...] | None = None
    for start in range(0, len(rows), SUMMARY_CHUNK):
        part = rows[start : start + SUMMARY_CHUNK]
        got = figures(part)
        if outs is None:
            outs = tuple(np.zeros(len(sel), np.int64) for _ in got)
        for o, g in zip(outs, got):
            o[part] = g
    return outs if outs is not None else tuple(np.zeros(len(sel), np.int64) for _ in range(2))


def element_counts(summary: Mapping[str, int]) -> dict[str, int]:
    """Thread-level element counts of one block (what core.schedule.block counts), from a block's summary: the bytes
    its threads asked for, in 4-byte floats (a 16-byte LDS.128 of one lane is 4 elements)."""
    return {
        "global_loads": summary["global_ld_bytes"] // 4,
        "global_stores": summary["global_st_bytes"] // 4,
        "shared_loads": summary["shared_ld_bytes"] // 4,
        "shared_stores": summary["shared_st_bytes"] // 4,
    }


@dataclass(frozen=True)
class NcuRow:
    key: str  # a SUMMARY_KEYS entry
    metric: str  # ncu's metric
    recorded: float  # over the traced blocks
    per_block: float  # recorded / traced blocks
    estimate: float  # per_block x blocks of the grid
    ncu: float | None

    @property
    def ratio(self) -> float | None:
        return None if not self.ncu else self.estimate / self.ncu


def beside_ncu(trace: AccessTrace) -> list[NcuRow]:
    """Each recorded total beside Nsight Compute's counter of the whole launch: the traced blocks' mean per
    block, times the grid's blocks (exact where every block does the same work, as at sizes the tile divides)."""
    rows = []
    n = max(1, len(trace.summary))
    for key, metric in NCU_OF.items():
        recorded = float(sum(s[key] for s in trace.summary))
        per_block = recorded / n
        rows.append(NcuRow(key, metric, recorded, per_block, per_block * trace.n_blocks, trace.ncu.get(metric)))
    return rows


def request_lines(trace: AccessTrace, index: int) -> dict:
    """One global request as the coalescing view draws it: lanes, their bytes, the lines and sectors touched."""
    active, size = int(trace.active[index]), int(trace.size[index])
    addr = [int(a) for a in trace.addr[index]]
    lanes = [(lane, a) for lane, a in enumerate(addr) if active >> lane & 1]
    sectors = sorted({(a + d) // SECTOR_BYTES for _, a in lanes for d in (0, size - 1)})
    lines = sorted({s * SECTOR_BYTES // LINE_BYTES for s in sectors})
    return {
        "lanes": lanes,
        "size": size,
        "sectors": sectors,
        "lines": lines,
        "matrix": MATRICES[int(trace.matrix[index])] if trace.matrix[index] >= 0 else "shared",
        "pc": trace.pcs[int(trace.pc[index])],
        "warp": int(trace.warp[index]),
        "seq": int(trace.seq[index]),
        "store": bool(trace.flags[index] & WRITE),
    }


def request_banks(trace: AccessTrace, index: int) -> dict:
    """One shared request as the bank view draws it: each lane's bank and word, the conflict degree per bank."""
    active, size = int(trace.active[index]), int(trace.size[index])
    addr = trace.addr[index : index + 1]
    wave, ideal = wavefronts(addr, trace.active[index : index + 1], trace.size[index : index + 1])
    words = [(lane, int(a) // BANK_BYTES) for lane, a in enumerate(trace.addr[index]) if active >> lane & 1]
    distinct: dict[int, set[int]] = {}
    for _, w in words:
        for d in range(max(1, size // BANK_BYTES)):
            distinct.setdefault((w + d) % BANKS, set()).add(w + d)
    return {
        "lanes": words,
        "size": size,
        "degree": {b: len(ws) for b, ws in distinct.items()},
        "wavefronts": int(wave[0]),
        "ideal": int(ideal[0]),
        "pc": trace.pcs[int(trace.pc[index])],
        "warp": int(trace.warp[index]),
        "seq": int(trace.seq[index]),
        "store": bool(trace.flags[index] & WRITE),
    }


# ------------------------------------------------------------------------------ from the tracer's raw output


def _matrix_of(
    addresses: np.ndarray, allocations: Sequence[Sequence[int]], sizes: Sequence[int]
) -> tuple[np.ndarray, np.ndarray, str]:
    """(matrix index, offset in it) of each global address. Three allocations made one after the other with the
    run's M·K, K·N and M·N floats, holding every touched one, are A, B and C (gemmviz allocates them in that
    order); any other address is 'other', with its offset from its allocation."""
    allocs = sorted((int(a), int(s), int(o)) for a, s, o in allocations)
    starts = np.array([a for a, _, _ in allocs], np.uint64) if allocs else np.zeros(0, np.uint64)
    idx = np.searchsorted(starts, addresses, side="right").astype(np.int64) - 1
    inside = idx >= 0
    if allocs:
        ends = np.array([a + s for a, s, _ in allocs], np.uint64)
        inside &= addresses < ends[np.clip(idx, 0, None)]
    touched = {int(i) for i in np.unique(idx[inside])}
    by_order = sorted(range(len(allocs)), key=lambda i: allocs[i][2])
    names = {i: 3 for i in touched}
    for j in range(len(by_order) - 3, -1, -1):  # the latest such triple: padded copies come after the originals
        triple = by_order[j : j + 3]
        if [allocs[i][1] for i in triple] == list(sizes) and touched <= set(triple):
            names = {i: n for n, i in enumerate(triple)}
            break
    note = "" if not touched or set(names.values()) - {3} else f"{len(touched)} allocations touched, not named A, B, C"
    matrix = np.full(addresses.shape, 3, np.int8)
    offset = np.zeros(addresses.shape, np.int64)
    for i in touched:
        sel = inside & (idx == i)
        matrix[sel] = names.get(i, 3)
        offset[sel] = (addresses[sel] - np.uint64(allocs[i][0])).astype(np.int64)
    return matrix, offset, note


def from_raw(
    header: Mapping,
    records: np.ndarray,
    sass: Mapping[int, tuple[str, int | None]],
    variant: str,
    mnk: tuple[int, int, int],
    params: Mapping[str, int],
    run_mnk: tuple[int, int, int] | None = None,
) -> AccessTrace:
    """An AccessTrace from what the tracer wrote (backends.accesses.RawTrace's header, records, disassembly)."""
    m, n, k = run_mnk or mnk
    r = records
    lanes = lanes_of(r["active"])
    func_pc = int(header.get("function_pc") or 0)
    offsets = r["pc"].astype(np.int64) - func_pc if func_pc else r["pc"].astype(np.int64)
    unique = sorted({int(o) for o in offsets})
    pcs = [Pc(o, *(sass.get(o) or ("?", None))) for o in unique]
    pc_index = np.searchsorted(np.array(unique, np.int64), offsets).astype(np.int32)
    addr = r["addr"].astype(np.uint64)
    glob = (r["space"] == GLOBAL)[:, None] & lanes
    matrix_cells, offset, note = _matrix_of(
        addr[glob], header.get("allocations") or [], [4 * m * k, 4 * k * n, 4 * m * n]
    )
    out = np.full(addr.shape, -1, np.int64)
    out[glob] = offset
    shared = ~(r["space"] == GLOBAL)[:, None] & lanes
    out[shared] = addr[shared].astype(np.int64)
    matrix = np.full(len(r), -1, np.int8)
    row_matrix = np.full(addr.shape, -1, np.int8)
    row_matrix[glob] = matrix_cells
    matrix[r["space"] == GLOBAL] = row_matrix[r["space"] == GLOBAL].max(axis=1)
    blocks = [tuple(int(x) for x in b) for b in header.get("blocks") or []]
    summary = summarise(r, len(blocks), addr=out)
    trace = AccessTrace(
        variant=variant,
        mnk=tuple(mnk),
        params=dict(params),
        kernel=str(header.get("kernel_seen") or header.get("kernel")),
        grid=tuple(int(x) for x in header["grid"]),
        block=tuple(int(x) for x in header["block"]),
        blocks=blocks,
        cap=int(header["cap"]),
        attempted=int(header["attempted"]),
        stored=int(header["stored"]),
        pcs=pcs,
        slot=r["slot"].astype(np.uint8),
        warp=r["warp"].copy(),
        seq=r["seq"].copy(),
        pc=pc_index,
        space=r["space"].copy(),
        flags=r["flags"].copy(),
        size=r["size"].copy(),
        active=r["active"].copy(),
        matrix=matrix,
        addr=out,
        summary=summary,
        bulk_copies=int(header.get("bulk_copies", 0)),
        bulk_bytes=int(header.get("bulk_bytes", 0)),
        wgmma=int(header.get("wgmma", 0)),
        wgmma_smem_bytes=int(header.get("wgmma_smem_bytes", 0)),
        note=note,
    )
    trace.sees = what_it_sees(trace)
    return trace


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


def keep_first(trace: AccessTrace, per_slot: int, per_pc: int = 8) -> AccessTrace:
    """The trace with only the first `per_slot` requests of each block in detail, and the first `per_pc` of each
    of its instructions (so the final stores stay), totals unchanged: for the shipped file's size limit."""
    keep = np.zeros(trace.kept, bool)
    for s in range(len(trace.blocks)):
        mine = trace.slot == s
        keep[np.nonzero(mine)[0][:per_slot]] = True
        for pc in np.unique(trace.pc[mine]):
            keep[np.nonzero(mine & (trace.pc == pc))[0][:per_pc]] = True
    cols = {
        c: getattr(trace, c)[keep]
        for c in ("slot", "warp", "seq", "pc", "space", "flags", "size", "active", "matrix", "addr")
    }
    out = AccessTrace(**{**trace.__dict__, **cols})
    out.sees = what_it_sees(out)
    return out


# ------------------------------------------------------------------------------------------------ the file

_COLUMNS = {"slot": "u1", "warp": "u1", "seq": "<u4", "pc": "<u4", "space": "u1", "flags": "u1", "size": "u1",
            "active": "<u4", "matrix": "i1", "addr": "<i8"}  # fmt: skip


def _pack(a: np.ndarray, dtype: str) -> str:
    data = np.ascontiguousarray(a, dtype=dtype)
    if dtype == "<i8":  # addresses: deltas along each row compress ten times better than the addresses
        data = np.diff(data.reshape(-1, WARP), axis=1, prepend=0).astype("<i8")
    return base64.b64encode(zlib.compress(data.tobytes(), 9)).decode("ascii")


def _unpack(text: object, dtype: str, count: int, where: str) -> np.ndarray:
    if not isinstance(text, str) or len(text) > bounds.MAX_ACCESS_PACKED_CHARS:
        raise _fail(where, "not a packed column (a base64 string within the size limit)")
    want = count * np.dtype(dtype).itemsize
    try:
        raw = inflate(base64.b64decode(text, validate=True), want)
    except InputFileError as exc:
        if "limit" in str(exc):
            raise _fail(where, f"holds more than the {want} bytes expected for {count} values") from None
        raise _fail(where, f"not a packed column ({exc})") from None
    except ValueError as exc:
        raise _fail(where, f"not a packed column ({exc})") from None
    if len(raw) != want:
        raise _fail(where, f"holds {len(raw)} bytes, {want} expected for {count} values")
    a = np.frombuffer(raw, dtype=dtype)  # its own writable buffer (inflate), no copy
    if dtype == "<i8":
        a = np.cumsum(a.reshape(-1, WARP), axis=1).reshape(-1)
    return a


def to_json(trace: AccessTrace) -> dict:
    cols = {c: _pack(getattr(trace, c), dt) for c, dt in _COLUMNS.items()}
    return {
        "variant": trace.variant,
        "mnk": list(trace.mnk),
        "params": trace.params,
        "kernel": trace.kernel,
        "grid": list(trace.grid),
        "block": list(trace.block),
        "blocks": [list(b) for b in trace.blocks],
        "cap": trace.cap,
        "attempted": trace.attempted,
        "stored": trace.stored,
        "kept": trace.kept,
        "pcs": [[p.offset, p.sass, p.line] for p in trace.pcs],
        "columns": cols,
        "summary": trace.summary,
        "ncu": trace.ncu,
        "bulk_copies": trace.bulk_copies,
        "bulk_bytes": trace.bulk_bytes,
        "wgmma": trace.wgmma,
        "wgmma_smem_bytes": trace.wgmma_smem_bytes,
        "sees": trace.sees,
        "note": trace.note,
    }


def _dims(v: object, where: str, n: int = 3, lo: int = 1) -> tuple[int, ...]:
    items = _list(v, where, limit=n)
    if len(items) != n:
        raise _fail(where, f"{len(items)} numbers, {n} expected")
    return tuple(_int(x, f"{where}[{i}]", lo=lo, hi=bounds.MAX_BLOCKS) for i, x in enumerate(items))


def _columns(v: object, where: str, kept: int, n_slots: int, n_pcs: int) -> dict[str, np.ndarray]:
    obj = _object(v, where)
    cols = {}
    for name, dtype in _COLUMNS.items():
        count = kept * WARP if name == "addr" else kept
        cols[name] = _unpack(obj.get(name), dtype, count, f"{where}.{name}")
    cols["addr"] = cols["addr"].reshape(kept, WARP)
    bounds.access_columns(cols, where, n_slots, n_pcs)
    return cols


def from_json(v: object, where: str, room: int = bounds.MAX_ACCESS_FILE_REQUESTS) -> AccessTrace:
    """One trace from its JSON, every field checked (types, ranges, lengths: core/session/bounds.py); `room`:
    the requests it may keep in detail (what the file's limit leaves), checked before any column is unpacked."""
    from gemmviz.core.kernels.variants import VARIANTS

    obj = _object(v, where)
    variant = _str(obj.get("variant"), f"{where}.variant")
    if variant not in VARIANTS:
        raise _fail(f"{where}.variant", f"unknown variant {variant!r}")
    blocks = [
        _dims(b, f"{where}.blocks[{i}]", lo=0) for i, b in enumerate(_list(obj.get("blocks"), f"{where}.blocks", 4))
    ]
    if not blocks:
        raise _fail(f"{where}.blocks", "no traced block (a trace records 1 to 4 blocks)")
    grid = _dims(obj.get("grid"), f"{where}.grid")
    for i, b in enumerate(blocks):
        if any(c >= g for c, g in zip(b, grid)):
            raise _fail(f"{where}.blocks[{i}]", f"block {list(b)} is outside the grid {list(grid)}")
    pcs = []
    for i, p in enumerate(_list(obj.get("pcs"), f"{where}.pcs", bounds.MAX_ACCESS_PCS)):
        item = _list(p, f"{where}.pcs[{i}]", 3)
        if len(item) != 3:
            raise _fail(f"{where}.pcs[{i}]", "not [offset, instruction, line]")
        line = None if item[2] is None else _int(item[2], f"{where}.pcs[{i}][2]", lo=1, hi=10**7)
        pcs.append(Pc(_int(item[0], f"{where}.pcs[{i}][0]", hi=2**40), _str(item[1], f"{where}.pcs[{i}][1]", 40), line))
    cap = _int(obj.get("cap"), f"{where}.cap", lo=1, hi=bounds.MAX_ACCESS_REQUESTS)
    stored = _int(obj.get("stored"), f"{where}.stored", hi=cap)
    attempted = _int(obj.get("attempted"), f"{where}.attempted", lo=stored, hi=2**32)
    kept = _int(obj.get("kept"), f"{where}.kept", hi=stored)
    if kept > room:  # before any column is decompressed: a small file cannot ask for gigabytes
        raise _fail(
            f"{where}.kept", f"{kept:,} requests kept in detail, over the {bounds.MAX_ACCESS_FILE_REQUESTS:,} limit"
        )
    cols = _columns(obj.get("columns"), f"{where}.columns", kept, len(blocks), len(pcs))
    if kept == stored:  # every stored request is here: the totals follow from them, by this version's rules
        summary = summarise(cols, len(blocks))
    else:
        summary = [
            bounds.access_summary(s, f"{where}.summary[{i}]", SUMMARY_KEYS)
            for i, s in enumerate(_list(obj.get("summary"), f"{where}.summary", 4))
        ]
    if len(summary) != len(blocks):
        raise _fail(f"{where}.summary", f"{len(summary)} entries for {len(blocks)} traced blocks")
    ncu = bounds.counters(obj.get("ncu") or {}, f"{where}.ncu")
    params = {
        str(k): _int(x, f"{where}.params.{k}", lo=1, hi=4096)
        for k, x in _object(obj.get("params") or {}, f"{where}.params").items()
    }
    counts = {
        key: _int(obj.get(key, 0), f"{where}.{key}", hi=2**62)
        for key in ("bulk_copies", "bulk_bytes", "wgmma", "wgmma_smem_bytes")
    }
    return AccessTrace(
        variant=variant,
        mnk=_dims(obj.get("mnk"), f"{where}.mnk"),
        params=params,
        kernel=_str(obj.get("kernel"), f"{where}.kernel"),
        grid=grid,
        block=_dims(obj.get("block"), f"{where}.block"),
        blocks=blocks,
        cap=cap,
        attempted=attempted,
        stored=stored,
        pcs=pcs,
        summary=summary,
        ncu={k: x for k, x in ncu.items() if x is not None},
        sees=_str(obj.get("sees", ""), f"{where}.sees", MAX_TEXT_CHARS),
        note=_str(obj.get("note", ""), f"{where}.note", MAX_TEXT_CHARS),
        **cols,
        **counts,
    )


@dataclass
class AccessFile:
    gpu: str
    date: str
    command: str
    traces: list[AccessTrace]

    def find(self, variant: str, params: Mapping[str, int] | None = None) -> AccessTrace | None:
        for t in self.traces:
            if t.variant == variant and (params is None or all(t.params.get(k) == v for k, v in params.items())):
                return t
        return None


def fit_file(traces: Sequence[AccessTrace]) -> list[AccessTrace]:
    """The traces with the first requests of each block kept in detail, so that the file holds at most
    MAX_ACCESS_FILE_REQUESTS in all (the loader's limit); their totals stay those of every stored request."""
    budget = bounds.MAX_ACCESS_FILE_REQUESTS // max(1, len(traces))
    out = []
    for t in traces:
        if t.kept > budget:
            per_pc = 8 if 8 * len(t.pcs) * len(t.blocks) <= budget // 2 else 0
            t = keep_first(t, max(0, (budget - per_pc * len(t.pcs) * len(t.blocks)) // max(1, len(t.blocks))), per_pc)
        out.append(t)
    return out


def file_json(f: AccessFile) -> dict:
    return {
        "format": FORMAT,
        "version": VERSION,
        "gpu": f.gpu,
        "date": f.date,
        "command": f.command,
        "traces": [to_json(t) for t in f.traces],
    }


def parse_file(data: object) -> AccessFile:
    obj = _object(data, "accesses")
    if obj.get("format") != FORMAT:
        raise SessionError(f"not a gemmviz access-record file (format {str(obj.get('format'))[:40]!r})", "format")
    _int(obj.get("version"), "version", lo=1, hi=VERSION)
    traces: list[AccessTrace] = []
    room = bounds.MAX_ACCESS_FILE_REQUESTS  # what the traces still to come may keep, over the whole file
    for i, t in enumerate(_list(obj.get("traces"), "traces", bounds.MAX_ACCESS_TRACES)):
        traces.append(from_json(t, f"traces[{i}]", room))
        room -= traces[-1].kept
    return AccessFile(
        _str(obj.get("gpu", ""), "gpu"),
        _str(obj.get("date", ""), "date"),
        _str(obj.get("command", ""), "command", MAX_TEXT_CHARS),
        traces,
    )


def load_file(path) -> AccessFile:
    """An access-record file (plain or gzip JSON), checked field by field; SessionError names the file and the
    bad field."""
    try:
        return parse_file(_read_json(path))
    except SessionError as exc:
        raise SessionError(f"{Path(path).name}: {exc}", exc.field) from None


def shipped_path() -> Path | None:
    """The newest access-record file shipped with gemmviz (recorded on the H200), or None if there is none."""
    from gemmviz.core import paths

    folder = paths.shipped("assets").joinpath("sessions").joinpath("accesses")  # one part per joinpath (3.11)
    if not folder.is_dir():
        return None
    files = sorted(f.name for f in folder.iterdir() if f.name.endswith(SHIPPED_SUFFIX))
    return Path(str(folder.joinpath(files[-1]))) if files else None


def shipped_file() -> AccessFile | None:
    """The access records recorded on the H200 and shipped with gemmviz, or None if there are none."""
    path = shipped_path()
    return None if path is None else load_file(path)


def save_file(f: AccessFile, path) -> None:
    """Write `f` as gzip JSON through the one writer, after reading it back with the loader (what gemmviz
    writes, it can read)."""
    import gzip
    import json

    from gemmviz.core.fileio import write_atomic

    data = file_json(f)
    parse_file(json.loads(json.dumps(data)))
    write_atomic(path, gzip.compress(json.dumps(data, separators=(",", ":")).encode("utf-8"), 9, mtime=0))


def companion_path(session_path) -> str:
    """Where the access records of a session file go: NAME.accesses.json.gz beside NAME.json."""
    text = str(session_path)
    for suffix in (".json.gz", ".json"):
        if text.endswith(suffix):
            return text[: -len(suffix)] + ".accesses.json.gz"
    return text + ".accesses.json.gz"


def _first_of_each_pc(trace: AccessTrace, sel: np.ndarray, slot: int) -> np.ndarray:
    """Per memory instruction (PC) in `sel`, the first request warp 0 of the block made with it."""
    idx = np.nonzero(sel & (trace.slot == slot) & (trace.warp == 0))[0]
    out, seen = [], set()
    for i in idx[np.argsort(trace.seq[idx], kind="stable")]:
        if int(trace.pc[i]) not in seen:
            seen.add(int(trace.pc[i]))
            out.append(i)
    return np.array(out, np.int64)


def _kind(trace: AccessTrace, space: int, store: bool | None) -> np.ndarray:
    sel = (trace.space == space) & ((trace.flags & ASYNC) == 0)
    return sel if store is None else sel & (((trace.flags & WRITE) != 0) == store)


def worst_global_request(trace: AccessTrace, slot: int = 0, store: bool | None = False) -> int | None:
    """The global load (or store, or either: store None) touching the most sectors, the first of its instruction
    by warp 0: the one the coalescing view shows by default."""
    idx = _first_of_each_pc(trace, _kind(trace, GLOBAL, store), slot)
    if not len(idx):
        return None
    sectors, _ = sectors_and_lines(trace.addr[idx], trace.active[idx], trace.size[idx])
    return int(idx[int(np.argmax(sectors))])


def worst_shared_request(trace: AccessTrace, slot: int = 0, store: bool | None = None) -> int | None:
    """The shared request (load or store, or either: store None) with the most wavefronts beyond the ideal, the
    first of its instruction by warp 0: the one the bank view shows (the first one if none conflicts)."""
    idx = _first_of_each_pc(trace, _kind(trace, SHARED, store), slot)
    if not len(idx):
        return None
    wave, ideal = wavefronts(trace.addr[idx], trace.active[idx], trace.size[idx])
    return int(idx[int(np.argmax(wave - ideal))])


def requests_in_order(trace: AccessTrace, space: int, store: bool | None, slot: int = 0, warp: int = 0) -> np.ndarray:
    """Indices of the kept requests of `space` (loads, stores or both: store None) by `warp` of `slot`, in the
    order the warp issued them (its sequence numbers)."""
    idx = np.nonzero(_kind(trace, space, store) & (trace.slot == slot) & (trace.warp == warp))[0]
    return idx[np.argsort(trace.seq[idx], kind="stable")]
