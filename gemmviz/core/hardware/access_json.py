"""One AccessTrace as JSON and back: its columns packed (zlib, base64; addresses as deltas along each row), every
field of what is read checked (types, ranges, lengths: core/session/bounds.py) and no column unpacked beyond
what the file's limit leaves room for. Pure Python + numpy: no Qt."""

from __future__ import annotations

import base64
import zlib

import numpy as np

from gemmviz.core.fileio import InputFileError, inflate
from gemmviz.core.hardware.access_figures import summarise
from gemmviz.core.hardware.access_trace import SUMMARY_KEYS, WARP, AccessTrace, Pc
from gemmviz.core.session import bounds
from gemmviz.core.session.checks import MAX_TEXT_CHARS, _fail, _int, _list, _object, _str

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


def _dims(v: object, where: str, lo: int = 1) -> tuple[int, int, int]:
    items = _list(v, where, limit=3)
    if len(items) != 3:
        raise _fail(where, f"{len(items)} numbers, 3 expected")
    x, y, z = (_int(x, f"{where}[{i}]", lo=lo, hi=bounds.MAX_BLOCKS) for i, x in enumerate(items))
    return x, y, z


def _columns(v: object, where: str, kept: int, n_slots: int, n_pcs: int) -> dict[str, np.ndarray]:
    obj = _object(v, where)
    cols = {}
    for name, dtype in _COLUMNS.items():
        count = kept * WARP if name == "addr" else kept
        cols[name] = _unpack(obj.get(name), dtype, count, f"{where}.{name}")
    cols["addr"] = cols["addr"].reshape(kept, WARP)
    bounds.access_columns(cols, where, n_slots, n_pcs)
    return cols


def _blocks(obj: dict, where: str) -> tuple[list[tuple[int, int, int]], tuple[int, int, int]]:
    """The traced blocks (1 to 4) and the grid, each block inside it."""
    blocks = [
        _dims(b, f"{where}.blocks[{i}]", lo=0) for i, b in enumerate(_list(obj.get("blocks"), f"{where}.blocks", 4))
    ]
    if not blocks:
        raise _fail(f"{where}.blocks", "no traced block (a trace records 1 to 4 blocks)")
    grid = _dims(obj.get("grid"), f"{where}.grid")
    for i, b in enumerate(blocks):
        if any(c >= g for c, g in zip(b, grid)):
            raise _fail(f"{where}.blocks[{i}]", f"block {list(b)} is outside the grid {list(grid)}")
    return blocks, grid


def _pcs(obj: dict, where: str) -> list[Pc]:
    """The instructions the requests name: [offset, instruction, source line or null] each."""
    pcs = []
    for i, p in enumerate(_list(obj.get("pcs"), f"{where}.pcs", bounds.MAX_ACCESS_PCS)):
        item = _list(p, f"{where}.pcs[{i}]", 3)
        if len(item) != 3:
            raise _fail(f"{where}.pcs[{i}]", "not [offset, instruction, line]")
        line = None if item[2] is None else _int(item[2], f"{where}.pcs[{i}][2]", lo=1, hi=10**7)
        pcs.append(Pc(_int(item[0], f"{where}.pcs[{i}][0]", hi=2**40), _str(item[1], f"{where}.pcs[{i}][1]", 40), line))
    return pcs


def from_json(v: object, where: str, room: int = bounds.MAX_ACCESS_FILE_REQUESTS) -> AccessTrace:
    """One trace from its JSON, every field checked (types, ranges, lengths: core/session/bounds.py); `room`:
    the requests it may keep in detail (what the file's limit leaves), checked before any column is unpacked."""
    from gemmviz.core.kernels.variants import VARIANTS

    obj = _object(v, where)
    variant = _str(obj.get("variant"), f"{where}.variant")
    if variant not in VARIANTS:
        raise _fail(f"{where}.variant", f"unknown variant {variant!r}")
    blocks, grid = _blocks(obj, where)
    pcs = _pcs(obj, where)
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
    bulk_copies, bulk_bytes, wgmma, wgmma_smem_bytes = (
        _int(obj.get(key, 0), f"{where}.{key}", hi=2**62)
        for key in ("bulk_copies", "bulk_bytes", "wgmma", "wgmma_smem_bytes")
    )
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
        bulk_copies=bulk_copies,
        bulk_bytes=bulk_bytes,
        wgmma=wgmma,
        wgmma_smem_bytes=wgmma_smem_bytes,
    )
