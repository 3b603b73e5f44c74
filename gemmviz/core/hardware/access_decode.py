"""The tracer's raw output (backends.accesses.RawTrace's header, records and disassembly) made an AccessTrace:
program counters made instruction offsets with their SASS and source line, global addresses named by the matrix
they fall in (A, B, C) and made offsets in it, the per-block totals worked out. Pure Python + numpy: no Qt."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from gemmviz.core.hardware.access_figures import lanes_of, summarise
from gemmviz.core.hardware.access_trace import GLOBAL, AccessTrace, Pc, what_it_sees


def _three(values: Iterable) -> tuple[int, int, int]:
    """Three whole numbers (a grid's, a block's or a problem's dimensions) as one tuple."""
    x, y, z = (int(v) for v in values)
    return x, y, z


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
    blocks = [_three(b) for b in header.get("blocks") or []]
    summary = summarise(r, len(blocks), addr=out)
    trace = AccessTrace(
        variant=variant,
        mnk=_three(mnk),
        params=dict(params),
        kernel=str(header.get("kernel_seen") or header.get("kernel")),
        grid=_three(header["grid"]),
        block=_three(header["block"]),
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
