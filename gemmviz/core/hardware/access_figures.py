"""What follows from a recorded request's addresses (core/hardware/access_trace.py), with no counter asked:
- a global request touches 32-byte sectors and 128-byte lines; fewer of them for the same bytes is coalescing;
- a shared request is served in wavefronts: within each group of lanes the hardware serves together (the warp,
  or each half-warp for 16-byte accesses), the bank (4-byte word mod 32) asked for the most distinct words
  sets how many, and at least one per 128 distinct bytes; wavefronts beyond that ideal are bank conflicts.
Totals per block sit beside the schedule model's counts of the same block and, scaled by the number of blocks,
beside Nsight Compute's counters of the whole kernel; single requests as the coalescing and bank views draw them,
and the ones they show first. Pure Python + numpy: no Qt, no GPU.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from gemmviz.core.hardware.access_trace import (
    ASYNC,
    BANK_BYTES,
    BANKS,
    GLOBAL,
    LINE_BYTES,
    LOCAL,
    MATRICES,
    NCU_OF,
    SECTOR_BYTES,
    SHARED,
    SUMMARY_KEYS,
    WARP,
    WRITE,
    AccessTrace,
)


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


def _chunked(figures: Callable[[np.ndarray], tuple[np.ndarray, ...]], sel: np.ndarray) -> tuple[np.ndarray, ...]:
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
