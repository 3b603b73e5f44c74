"""What ptxas does to a kernel's shared loads that its PTX does not show, so the emulator's records count the
requests the GPU issues (and the access tracer, which instruments SASS, records).

ptxas merges scalar 4-byte `ld.shared` of consecutive words from one base register plus immediate offsets
into one vector load (LDS.64, LDS.128) where it can prove the address is aligned to the vector's width. The
tiled kernel's `tile_A[threadIdx.y][k]` for k = 0..TILE-1, unrolled, is such a run: its row starts at
threadIdx.y · TILE · 4 bytes, a multiple of 16, so ptxas issues one LDS.128 for every four k (sm_90, nvcc 13,
-O3: at TILE 16, 4 LDS.128 and 16 LDS per tile where the PTX has 32 ld.shared). With the padded layout
(row stride TILE + 1) the row start is threadIdx.y · (TILE + 1) · 4, not provably aligned, and nothing merges.

The model (`vector_loads`): a register's alignment is a power of two proved from its definitions (a shared
array's start is taken as 16-aligned, as ptxas places it; shl, mul and mad by constants multiply it; add, sub
and mov keep the smaller), the least over every definition in the kernel (a loop's update included). Within a
straight run of instructions (no label, branch, barrier, shared store, or new definition of the base register
between), unpredicated scalar 4-byte shared loads `[%r+o]` with o, o+4, o+8, o+12 present, o a multiple of 16
and %r 16-aligned become one 16-byte request; then pairs (o a multiple of 8, %r 8-aligned) one 8-byte request.
The loads still run one by one (values, findings, hazards are unchanged): only their records are merged, at
the group's first load in program order. Pure Python."""

from __future__ import annotations

import re

from gemmviz.backends.emulator.ptx import Kernel

CAP = 16  # the widest shared request (LDS.128): no alignment above it matters
_ADDR = re.compile(r"^\[\s*(%[\w$.]+)\s*(?:\+\s*(-?\w+))?\s*\]$")


def _low_bit(v: int) -> int:
    return CAP if v == 0 else min(CAP, v & -v)


def _imm(arg) -> int | None:
    if not isinstance(arg, str):
        return None
    try:
        return int(arg.rstrip("U"), 0)
    except ValueError:
        return None


def _align_of(arg, align: dict[str, int], kernel: Kernel) -> int:
    """An operand's proved alignment: an immediate's lowest set bit, a shared array's start (16: ptxas places
    it), a register's as proved so far, 1 for anything else (a special register, a parameter)."""
    if isinstance(arg, list):
        return 1
    v = _imm(arg)
    if v is not None:
        return _low_bit(v)
    if arg in kernel.shared:
        return _low_bit(kernel.shared[arg][0])
    return align.get(arg, 1) if arg.startswith("%") and "." not in arg else 1


def _defined(ins, align: dict[str, int], kernel: Kernel) -> int:
    """The alignment of the value an instruction defines."""
    a = ins.args

    def of(x):
        return _align_of(x, align, kernel)

    if ins.op in ("mov", "cvta", "cvt"):
        return of(a[1])
    if ins.op in ("add", "sub"):
        return min(of(a[1]), of(a[2]))
    if ins.op == "shl":
        s = _imm(a[2])
        return min(CAP, of(a[1]) << min(s, 4)) if s is not None and s >= 0 else 1
    if ins.op in ("mul", "mad") and any(m in ins.mods for m in ("lo", "wide")):
        prod = min(CAP, of(a[1]) * of(a[2]))
        return min(prod, of(a[3])) if ins.op == "mad" else prod
    return 1


def alignments(kernel: Kernel) -> dict[str, int]:
    """Each register's proved alignment in bytes (1, 2, 4, 8 or 16), the least over all its definitions."""
    no_def = ("st", "bar", "barrier", "bra", "ret", "exit", "red", "call")
    defs = [i for i in kernel.instrs if i.op not in no_def and i.args and isinstance(i.args[0], str)]
    defs = [i for i in defs if i.args[0].startswith("%")]
    align = {i.args[0]: CAP for i in defs}  # optimistic start: the least over the definitions is reached from above
    for _ in range(len(defs) + 1):
        new: dict[str, int] = {}
        for ins in defs:
            new[ins.args[0]] = min(new.get(ins.args[0], CAP), _defined(ins, align, kernel))
        lower = {d: v for d, v in new.items() if v < align[d]}
        if not lower:
            break
        align.update(lower)
    return align


def _scalar_shared_load(ins) -> tuple[str, int] | None:
    """(base register, offset) of an unpredicated scalar 4-byte ld.shared [%r+o], else None."""
    if ins.op != "ld" or "shared" not in ins.mods or ins.guard is not None or isinstance(ins.args[0], list):
        return None
    if any(m in ins.mods for m in ("v2", "v4", "v8", "volatile")):
        return None
    if not any(m in ins.mods for m in ("f32", "b32", "u32", "s32")):
        return None
    m = _ADDR.match(str(ins.args[1]).replace(" ", ""))
    if not m:
        return None
    off = _imm(m[2]) if m[2] else 0
    return (m[1], off) if off is not None else None


def vector_loads(kernel: Kernel) -> dict[int, tuple[int, int]]:
    """instruction index -> (bytes, delta) for the shared loads ptxas merges: the group's first load in program
    order records one request of `bytes` at its own address + delta; the others (bytes 0) record nothing."""
    align = alignments(kernel)
    starts = set(kernel.labels.values())
    out: dict[int, tuple[int, int]] = {}
    window: dict[str, dict[int, int]] = {}  # base register -> offset -> instruction index, in the current run

    def flush(base: str) -> None:
        loads = window.pop(base, {})
        for width in (16, 8):
            if align.get(base, 1) < width:
                continue
            for o in sorted(loads):
                words = [o + 4 * j for j in range(width // 4)]
                if o % width or not all(w in loads for w in words):
                    continue
                members = [loads.pop(w) for w in words]
                first = min(members)
                for i in members:
                    out[i] = (0, 0)
                out[first] = (width, o - _offset_of(kernel, first))

    for ins in kernel.instrs:
        if (
            ins.index in starts
            or ins.op in ("bra", "bar", "barrier", "ret", "exit", "call")
            or (ins.op in ("st", "atom", "red") and "shared" in ins.mods)
        ):
            for base in list(window):
                flush(base)
        if ins.args and isinstance(ins.args[0], str) and ins.op not in ("st", "red", "bra"):
            for dst in ins.args[0].split("|"):
                if dst in window:  # the base register changes: its run ends here
                    flush(dst)
        load = _scalar_shared_load(ins)
        if load is not None and load[0] != ins.args[0]:
            window.setdefault(load[0], {}).setdefault(load[1], ins.index)
    for base in list(window):
        flush(base)
    return out


def _offset_of(kernel: Kernel, index: int) -> int:
    load = _scalar_shared_load(kernel.instrs[index])
    return load[1] if load else 0
