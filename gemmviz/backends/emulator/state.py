"""The state of a Chunk (some blocks of one launch, run together) as its instructions see it, and operand access.

Chunk (machine.py) is made of mixins, one per family of instructions: ArithmeticOps (ops.py), MemoryOps
(memory.py, with SharedBookkeeping from findings.py), PrintfOps (printf.py), WarpOps (warp.py) and ShadowOps
(shadow.py). Each is a ChunkState: the attributes Chunk sets are declared here once, with their types, and the
operands (registers, special registers, immediates) are read and written here, so every mixin sees the same
typed view. MachineView is what they read of the Machine they run on. Pure numpy."""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from gemmviz.backends.emulator.common import (
    _OPERANDS,
    CLOCK_GHZ,
    CYCLES_PER_STEP,
    DTYPES,
    SMS,
    STORAGE,
    TIMER_START_NS,
    _operand,
)
from gemmviz.backends.emulator.ptx import EmulatorRefusal, Kernel

Index = slice | np.ndarray  # the threads an instruction runs for: every one (slice(None)), or their indices
ITEMSIZE = {ty: np.dtype(dt).itemsize for ty, dt in DTYPES.items()}


class MachineView(Protocol):
    """What the instructions read and write of the Machine (machine.py) they run on."""

    k: Kernel
    allocs: list  # machine.Allocation: each array's name, offset and size in the heap
    heap: np.ndarray  # the global heap: A, B, C and the module's variables
    starts: np.ndarray  # each allocation's first byte in the heap, and its end
    ends: np.ndarray
    symbols: dict[str, int]  # a module variable's address
    vectors: Any  # the shared loads ptxas merges (sass.vector_loads)
    shadow: Any  # shadow.Shadow where undefined values are followed, else None
    last_line: int | None
    printf_on: bool
    printf_calls: int
    printf_clamped: bool
    printed: list[str]
    records: list[tuple]
    instructions: int
    work: int
    work_limit: int
    step_limit: int
    next_probe: int
    probe_gap: int
    slept: int

    def find(self, kind: str, line: int | None, n: int = 1, **params) -> None: ...

    def inside_one(self, lo: int, hi: int) -> bool: ...


def timer(m: MachineView, what: str) -> int:
    """The value of a timer register for every thread of the machine `m` (the same in each: one clock)."""
    cycles = m.instructions * CYCLES_PER_STEP + m.slept
    if what in ("clock", "clock64"):
        return cycles
    if what == "globaltimer":
        return TIMER_START_NS + cycles // CLOCK_GHZ
    if what == "globaltimer_lo":
        return (TIMER_START_NS + cycles // CLOCK_GHZ) & 0xFFFFFFFF
    return (TIMER_START_NS + cycles // CLOCK_GHZ) >> 32  # globaltimer_hi


class ChunkState:
    """A chunk's per-thread state (set by Chunk.__init__ in machine.py) and its operands."""

    m: MachineView
    k: Kernel
    per: int  # threads per block
    nb: int  # blocks in the chunk
    n: int  # threads in the chunk
    block_of: np.ndarray  # each thread's block within the chunk
    tid: tuple[np.ndarray, np.ndarray, np.ndarray]
    ntid: tuple[int, int, int]
    ctaid: tuple[np.ndarray, np.ndarray, np.ndarray]
    nctaid: tuple[int, int, int]
    warp: np.ndarray  # each thread's warp within its block
    lane: np.ndarray
    regs: dict[str, np.ndarray]
    params: list
    pc: np.ndarray
    status: np.ndarray  # RUN, BAR or EXIT (common.py)
    bars: np.ndarray  # barriers each thread has arrived at
    sbytes: int  # shared bytes per block
    shared: np.ndarray
    w_key: np.ndarray  # per shared word: (barrier interval << 16) | warp of its last write, and of its reads
    r_key: np.ndarray
    w_line: np.ndarray
    r_line: np.ndarray
    epoch: np.ndarray  # each block's barrier interval
    tkey: np.ndarray  # each thread's key: (its block's epoch << 16) | its warp
    word_base: np.ndarray  # each thread's block's first shared word
    byte_base: np.ndarray
    reads: list  # the shared reads whose read keys are not written yet (findings.py)
    pending: int
    lbytes: int  # local bytes per thread
    local: np.ndarray
    callparams: dict[str, np.ndarray]
    slot: np.ndarray  # each thread's traced block's slot, -1 where it is not traced
    tracing: bool
    seq: int
    _imms: dict[tuple, Any]  # (operand, type) -> its value: an immediate, a symbol's address
    _widths: dict[str, str]
    # with a shadow (machine.shadow): each register's, shared and local word's origin of an undefined value
    shadow_regs: dict[str, np.ndarray]
    s_shadow: np.ndarray
    l_shadow: np.ndarray
    # an address operand's (base, offset): MemoryOps's, read by ShadowOps too
    _address: Callable[..., tuple[str, int]]

    def reg(self, name: str, ty: str) -> np.ndarray:
        r = self.regs.get(name)
        if r is None:
            r = self.regs[name] = np.zeros(
                self.n, STORAGE["pred"] if ty == "pred" else STORAGE[np.dtype(DTYPES[ty]).itemsize]
            )
        return r

    def get(self, arg, ty: str, ix):
        """The operand's value for the threads `ix`, as PTX type `ty`."""
        if isinstance(arg, list):
            raise EmulatorRefusal("a vector register operand here", None)
        kind = _OPERANDS.get(arg) or _operand(arg)
        what, name, neg = kind
        dt = DTYPES[ty]
        if what == "reg":
            r = self.regs.get(name)
            if r is None:
                r = self.reg(name, self.k.regs.get(re.sub(r"\d+$", "", name), self.k.regs.get(name, ty)))
            v = r[ix]
            if ty == "pred" or r.dtype == np.bool_:
                v = v.astype(bool)
                return ~v if neg else v
            isz = ITEMSIZE[ty]
            if v.dtype.itemsize == isz:
                return v.view(dt)
            # a narrower or wider register read as this type: convert the bits' integer value
            return v.astype(np.dtype(f"u{isz}") if isz > 1 else np.uint8).view(dt)
        if what == "special":
            v = getattr(self, name[0])[name[1]]
            v = v[ix] if isinstance(v, np.ndarray) else v
            return np.asarray(v).astype(dt)
        if what == "lane":
            return self.lane[ix].astype(dt)
        if what == "warp":
            return self.warp[ix].astype(dt)
        if what == "clock":
            return np.asarray(timer(self.m, name)).astype(dt)[()]
        if what == "other":
            return self._special(name, ix).astype(dt)
        value = self._imms.get((name, ty))
        if value is None:
            value = self._imms[name, ty] = self.imm(name, ty)
        return value

    def _special(self, name: str, ix) -> np.ndarray:
        """%smid (the block's number modulo the SMs), %lanemask_*, and the rest of PTX's special registers."""
        if name == "smid":
            x, y, _ = self.ctaid
            return (np.asarray(x)[ix] + self.nctaid[0] * np.asarray(y)[ix]) % SMS
        if name.startswith("lanemask"):
            lane = self.lane[ix].astype(np.uint64)
            one = np.left_shift(np.uint64(1), lane)
            full = np.uint64(0xFFFFFFFF)
            masks = {"eq": one, "lt": one - np.uint64(1), "le": (one << np.uint64(1)) - np.uint64(1)}
            masks["gt"] = full & ~masks["le"]
            masks["ge"] = full & ~masks["lt"]
            return masks[name[-2:]] & full
        value = {
            "nsmid": SMS,
            "gridid": 1,
            "nwarpid": 64,
            "dynamic_smem_size": 0,
            "total_smem_size": self.k.shared_bytes,
        }[name]
        return np.full(self._count(ix), value, np.int64)

    def width_of(self, name: str) -> str:
        """u64 or u32: the register's declared width, as an address operand is read."""
        width = self._widths.get(name)
        if width is None:
            width = self._widths[name] = self._width_of(name)
        return width

    def _width_of(self, name: str) -> str:
        decl = self.k.regs.get(re.sub(r"\d+$", "", name), self.k.regs.get(name, "b64"))
        return "u64" if np.dtype(DTYPES[decl]).itemsize == 8 else "u32"

    def imm(self, arg: str, ty: str):
        dt = DTYPES[ty]
        if arg in self.k.shared:
            return dt(self.k.shared[arg][0])
        if arg in self.k.local:
            return dt(self.k.local[arg][0])
        if arg in self.m.symbols:
            return dt(self.m.symbols[arg])
        if re.fullmatch(r"0[fF][0-9a-fA-F]{8}", arg):
            v = struct.unpack(">f", bytes.fromhex(arg[2:]))[0]
        elif re.fullmatch(r"0[dD][0-9a-fA-F]{16}", arg):
            v = struct.unpack(">d", bytes.fromhex(arg[2:]))[0]
        else:
            try:
                v = int(arg.rstrip("U"), 0)
            except ValueError:
                try:
                    v = float(arg)
                except ValueError:
                    raise EmulatorRefusal(f"the operand {arg}", None) from None
        if np.issubdtype(dt, np.integer):
            bits = np.dtype(dt).itemsize * 8
            v = int(v) & ((1 << bits) - 1)
            return np.array(v, np.dtype(f"u{bits // 8}")).view(dt)[()]
        if dt is np.bool_:
            return np.bool_(v)
        return dt(v)

    def put(self, name: str, value, ty: str, ix) -> None:
        if name == "_":
            return
        r = self.regs.get(name)
        if r is None:
            decl = self.k.regs.get(re.sub(r"\d+$", "", name), self.k.regs.get(name, ty))
            r = self.reg(name, decl)
        if r.dtype == np.bool_:
            r[ix] = np.asarray(value).astype(bool)
            return
        v: np.ndarray = (
            np.asarray(value, DTYPES[ty]) if not isinstance(value, np.ndarray) else value.astype(DTYPES[ty], copy=False)
        )
        if v.dtype.itemsize == r.dtype.itemsize:
            r[ix] = v.view(r.dtype) if v.ndim else v.reshape(1).view(r.dtype)[0]
        else:
            width = np.dtype(f"u{v.dtype.itemsize}")
            r[ix] = (v.view(width) if v.ndim else v.reshape(1).view(width)[0]).astype(r.dtype)

    def _idx(self, ix) -> np.ndarray:
        return np.arange(self.n)[ix] if isinstance(ix, slice) else ix

    def _count(self, ix) -> int:
        return self.n if isinstance(ix, slice) else len(ix)
