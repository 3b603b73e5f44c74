"""The PTX interpreter: runs a kernel's blocks on the CPU, threads vectorised with numpy.

Each thread has its own program counter. At each step the threads at the lowest program counter of the
blocks being run execute that one instruction together, so the lanes of a warp run together while they agree
and part when a branch parts them (exact divergence: a lane runs exactly the instructions its own path takes).
Blocks are run in chunks of up to CHUNK_THREADS threads; a barrier holds a thread until every live thread of
its block has arrived.

Besides the results, the machine keeps its own bookkeeping and reports findings with their source line:
global accesses outside the allocations, shared accesses outside the arrays, shared reads of words never
written, a barrier not every thread of the block reaches, shared-memory hazards between warps within one
barrier interval, and an instruction budget that ends an endless loop. It records each global and shared
request per warp of the traced blocks (the access tracer's record format). Pure numpy."""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field

import numpy as np

from gemmviz.backends.emulator.ptx import EmulatorRefusal, Instr, Kernel
from gemmviz.backends.emulator.sass import vector_loads

CHUNK_THREADS = 16384
GLOBAL_BASE = 1 << 40  # fake device addresses: every allocation lies in one heap from here
SHARED_WINDOW = 1 << 32  # generic addresses of shared memory start here, local after it
LOCAL_WINDOW = 1 << 34
MAX_PRINTF_LINES = 200
MAX_FINDINGS = 50

DTYPES = {"pred": np.bool_, "b8": np.uint8, "u8": np.uint8, "s8": np.int8, "b16": np.uint16, "u16": np.uint16,
          "s16": np.int16, "b32": np.uint32, "u32": np.uint32, "s32": np.int32, "f32": np.float32,
          "b64": np.uint64, "u64": np.uint64, "s64": np.int64, "f64": np.float64}  # fmt: skip
STORAGE = {"pred": np.bool_, 1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
SPECIAL = ("tid", "ntid", "ctaid", "nctaid")
RUN, BAR, EXIT = 0, 1, 2
NEVER = np.iinfo(np.int64).max  # the PC of a thread that cannot run
MANY = 0xFFFF  # the warp of a word that several warps touched in one barrier interval
COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
           "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal, "hi": np.greater, "hs": np.greater_equal}  # fmt: skip


@dataclass
class Finding:
    kind: str  # global-oob, shared-oob, uninit-shared, divergent-barrier, read-after-write, ..., budget
    line: int | None
    count: int = 1
    params: dict = field(default_factory=dict)  # matrix, access, other_line, ...


@dataclass
class Allocation:
    name: str  # A, B, C, or a module variable's name
    offset: int  # bytes from GLOBAL_BASE
    size: int


class Budget(Exception):
    pass


@dataclass(frozen=True)
class Plan:
    """How one launch runs: its step budget, the blocks whose requests are recorded (only those run, if
    only_traced), and the order of the warps ("lockstep", or "warp": one at a time as far as it goes)."""

    budget: int
    traced: tuple = ()
    only_traced: bool = False
    schedule: str = "lockstep"


def _type_of(mods: tuple[str, ...]) -> str:
    for m in reversed(mods):
        if m in DTYPES:
            return m
    return "b32"


def _vec(mods: tuple[str, ...]) -> int:
    for m in mods:
        if m in ("v2", "v4", "v8"):
            return int(m[1])
    return 1


class Machine:
    """One module loaded: its global heap (A, B, C and the module's variables) persists across launches."""

    def __init__(self, kernel: Kernel, arrays: dict[str, np.ndarray], printf: bool = True, module=None):
        self.k = kernel
        self.last_line: int | None = None
        self.printf_on = printf
        self.allocs: list[Allocation] = []
        heap = 0
        chunks = []
        for name, arr in arrays.items():
            data = np.ascontiguousarray(arr).view(np.uint8).reshape(-1)
            self.allocs.append(Allocation(name, heap, data.size))
            chunks.append((heap, data))
            heap = -(-(heap + data.size + 4096) // 4096) * 4096
        self.symbols: dict[str, int] = {}
        for name, (init, size) in kernel.globals_.items():
            self.allocs.append(Allocation(name, heap, size))
            self.symbols[name] = GLOBAL_BASE + heap
            chunks.append((heap, np.frombuffer((module or {}).get(name, init), np.uint8)))
            heap = -(-(heap + size + 256) // 256) * 256
        self.heap = np.zeros(-(-(heap + 64) // 16) * 16, np.uint8)
        for start, data in chunks:
            self.heap[start : start + data.size] = data
        self.starts = np.array([a.offset for a in self.allocs], np.int64)
        self.ends = np.array([a.offset + a.size for a in self.allocs], np.int64)
        self.findings: dict[tuple, Finding] = {}
        self.printed: list[str] = []
        self.printf_calls = 0
        self.records: list[tuple] = []  # (slot, warp, seq, pc index, space, flags, size, active, addr[32])
        self.instructions = 0
        self.vectors = vector_loads(kernel)  # the shared loads ptxas merges: their records are merged too

    def module_state(self) -> dict[str, bytes]:
        """The module's variables as they are now (a later launch of the same module starts from them)."""
        return {a.name: self.heap[a.offset : a.offset + a.size].tobytes() for a in self.allocs[3:]}

    def array(self, name: str, dtype, shape) -> np.ndarray:
        a = next(x for x in self.allocs if x.name == name)
        return self.heap[a.offset : a.offset + a.size].view(dtype).reshape(shape).copy()

    def address(self, name: str) -> int:
        return GLOBAL_BASE + next(x.offset for x in self.allocs if x.name == name)

    def allocations(self) -> list[list[int]]:
        """[address, bytes, order] of A, B, C as the tracer's header lists them."""
        return [[GLOBAL_BASE + a.offset, a.size, i] for i, a in enumerate(self.allocs[:3])]

    def find(self, kind: str, line: int | None, n: int = 1, **params) -> None:
        key = (kind, line, params.get("matrix"), params.get("other_line"), params.get("access"))
        if key in self.findings:
            self.findings[key].count += n
        elif len(self.findings) < MAX_FINDINGS:
            self.findings[key] = Finding(kind, line, n, params)

    def launch(self, grid, block, params: list, plan: Plan) -> None:
        """Run every block of the grid (chunk by chunk); Budget if the steps run past the plan's budget."""
        budget_steps, trace_blocks, only_traced, schedule = plan.budget, plan.traced, plan.only_traced, plan.schedule
        gx, gy = grid
        per = block[0] * block[1] * block[2]
        if per > 1024:
            raise EmulatorRefusal(f"a block of {per} threads (at most 1024)", None)
        ids = [(x, y) for y in range(gy) for x in range(gx)]
        chunk = max(1, CHUNK_THREADS // per)
        traced = {tuple(b[:2]): i for i, b in enumerate(trace_blocks)}
        if only_traced:
            ids = [b for b in ids if b in traced]
        self.steps_left = budget_steps
        for i in range(0, len(ids), chunk):
            Chunk(self, ids[i : i + chunk], block, (gx, gy), params, traced).run(schedule)


class Chunk:
    """Some blocks of one launch, run together: per-thread registers, PCs, shared memory and its bookkeeping."""

    def __init__(self, m: Machine, blocks, block, grid, params, traced):
        self.m, self.k = m, m.k
        bx, by, bz = block
        per = bx * by * bz
        nb = len(blocks)
        self.per, self.nb, self.n = per, nb, per * nb
        t = np.arange(self.n)
        local_id = t % per
        b = t // per
        self.block_of = b
        self.tid = (local_id % bx, (local_id // bx) % by, local_id // (bx * by))
        self.ntid = (bx, by, bz)
        self.ctaid = (np.array([x for x, _ in blocks])[b], np.array([y for _, y in blocks])[b], np.zeros(self.n, int))
        self.nctaid = (grid[0], grid[1], 1)
        self.warp = local_id // 32  # warp within its block
        self.lane = local_id % 32
        self.regs: dict[str, np.ndarray] = {}
        self.params = params
        self.pc = np.zeros(self.n, np.int64)
        self.status = np.zeros(self.n, np.int8)
        self.bars = np.zeros(self.n, np.int64)
        self.sbytes = -(-max(self.k.shared_bytes, 16) // 16) * 16
        self.shared = np.full(nb * self.sbytes, 0xFF, np.uint8)  # unwritten words read as NaN (-1), not 0
        words = nb * (self.sbytes // 4 + 1)
        self.written = np.zeros(words, bool)
        self.w_key = np.full(words, -1, np.int64)  # (barrier interval << 16) | warp, MANY for several warps
        self.r_key = np.full(words, -1, np.int64)
        self.w_line = np.zeros(words, np.int64)
        self.r_line = np.zeros(words, np.int64)
        self.epoch = np.zeros(nb, np.int64)
        self.lbytes = -(-max(self.k.local_bytes, 16) // 16) * 16
        self.local = np.zeros(self.n * self.lbytes, np.uint8)
        self.callparams: dict[str, np.ndarray] = {}
        self.slot = np.array([traced.get(blk, -1) for blk in blocks])[b]
        self.tracing = bool((self.slot >= 0).any())
        self.seq = 0

    # --- operands --------------------------------------------------------------------------------------------

    def reg(self, name: str, ty: str) -> np.ndarray:
        r = self.regs.get(name)
        if r is None:
            r = self.regs[name] = np.zeros(
                self.n, STORAGE["pred"] if ty == "pred" else STORAGE[np.dtype(DTYPES[ty]).itemsize]
            )
        return r

    def get(self, arg, ty: str, ix):
        """The operand's value for the threads `ix`, as PTX type `ty`."""
        dt = DTYPES[ty]
        if isinstance(arg, list):
            raise EmulatorRefusal("a vector register operand here", None)
        neg = arg.startswith("!")
        if neg:
            arg = arg[1:]
        if arg.startswith("%"):
            base, _, axis = arg.partition(".")
            if base[1:] in SPECIAL and axis in "xyz" and axis:
                i = "xyz".index(axis)
                v = getattr(self, base[1:])[i]
                v = v[ix] if isinstance(v, np.ndarray) else v
                return np.asarray(v).astype(dt)
            if base in ("%laneid",):
                return self.lane[ix].astype(dt)
            if base in ("%warpid",):
                return self.warp[ix].astype(dt)
            r = self.regs.get(arg)
            if r is None:
                r = self.reg(arg, self.k.regs.get(re.sub(r"\d+$", "", arg), self.k.regs.get(arg, ty)))
            v = r[ix]
            if ty == "pred" or r.dtype == np.bool_:
                v = v.astype(bool)
                return ~v if neg else v
            isz = np.dtype(dt).itemsize
            if v.dtype.itemsize == isz:
                return v.view(dt)
            # a narrower or wider register read as this type: convert the bits' integer value
            return v.astype(np.dtype(f"u{isz}") if isz > 1 else np.uint8).view(dt)
        return self.imm(arg, ty)

    def width_of(self, name: str) -> str:
        """u64 or u32: the register's declared width, as an address operand is read."""
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
        v = np.asarray(value, DTYPES[ty]) if not isinstance(value, np.ndarray) else value.astype(DTYPES[ty], copy=False)
        if v.dtype.itemsize == r.dtype.itemsize:
            r[ix] = v.view(r.dtype) if v.ndim else v.reshape(1).view(r.dtype)[0]
        else:
            width = np.dtype(f"u{v.dtype.itemsize}")
            r[ix] = (v.view(width) if v.ndim else v.reshape(1).view(width)[0]).astype(r.dtype)

    # --- running ---------------------------------------------------------------------------------------------

    def run(self, schedule: str = "lockstep") -> None:
        instrs = self.k.instrs
        n_instr = len(instrs)
        full = np.ones(self.n, bool)
        while True:
            runnable = self.status == RUN
            if not runnable.any():
                if not self.release():
                    break
                continue
            if schedule == "warp":  # the lowest warp (of every block) that can run goes as far as it can
                runnable &= self.warp == self.warp[runnable].min()
            pcs = np.where(runnable, self.pc, NEVER)
            at = int(pcs.min())
            if at >= n_instr:
                self.status[runnable & (self.pc >= n_instr)] = EXIT
                continue
            mask = runnable & (self.pc == at)
            ix = slice(None) if mask is full or mask.all() else np.nonzero(mask)[0]
            ins = instrs[at]
            self.m.last_line = ins.line or self.m.last_line
            self.m.steps_left -= 1
            self.m.instructions += 1
            if self.m.steps_left < 0:
                self.m.find("budget", ins.line)
                raise Budget
            if ins.guard is not None:
                g = self.get(ins.guard[0], "pred", ix)
                if ins.guard[1]:
                    g = ~g
                if not g.all():
                    idx = np.arange(self.n)[ix] if isinstance(ix, slice) else ix
                    self.pc[idx[~g]] += 1
                    if not g.any():
                        continue
                    ix = idx[g]
            self.execute(ins, ix)

    def release(self, blocks=None) -> bool:
        """Let the blocks (all, or `blocks`) whose live threads all wait at a barrier go on; False when no
        thread waits. A barrier some thread of the block never reached (it exited, or waits at another one) is
        a finding."""
        waiting = self.status == BAR
        if not waiting.any():
            return False
        for b in np.unique(self.block_of[waiting]) if blocks is None else blocks:
            sel = self.block_of == b
            w = sel & waiting
            if not w.any() or (sel & (self.status == RUN)).any():
                continue
            arrived = self.bars[w].max()
            missed = sel & (self.status == EXIT) & (self.bars < arrived)
            lines = {self.k.instrs[int(p)].line for p in np.unique(self.pc[w])}
            if missed.any() or len(lines) > 1 or (self.bars[w] != arrived).any():
                line = min((x for x in lines if x), default=None)
                self.m.find("divergent-barrier", line, int(missed.sum()) or 1)
            self.status[w] = RUN
            self.pc[w] += 1
            self.epoch[b] += 1
        return True

    def _idx(self, ix) -> np.ndarray:
        return np.arange(self.n)[ix] if isinstance(ix, slice) else ix

    def execute(self, ins: Instr, ix) -> None:
        op = ins.op
        handler = getattr(self, f"op_{op}", None)
        if handler is None:
            raise EmulatorRefusal(ins.text.split()[0], ins.line)
        with np.errstate(all="ignore"):
            jumped = handler(ins, ix)
        if not jumped:
            self.pc[ix] += 1

    # --- control ---------------------------------------------------------------------------------------------

    def op_bra(self, ins, ix):
        self.pc[ix] = self.k.labels[ins.args[0]]
        return True

    def op_ret(self, ins, ix):
        self.status[ix] = EXIT
        self.release(np.unique(self.block_of[ix]))
        return True

    op_exit = op_ret

    def op_bar(self, ins, ix):
        if "warp" in ins.mods:
            self.pc[ix] += 1  # __syncwarp: the lanes that agree already run together
            return True
        if len(ins.args) > 1 or (ins.args and ins.args[0] != "0"):
            raise EmulatorRefusal(f"{ins.text.split()[0]} with a barrier number or thread count", ins.line)
        self.status[ix] = BAR
        self.bars[ix] += 1
        self.release(np.unique(self.block_of[ix]))
        return True

    op_barrier = op_bar

    # --- arithmetic ------------------------------------------------------------------------------------------

    def _bin(self, ins, ix, f):
        ty = _type_of(ins.mods)
        a, b = self.get(ins.args[1], ty, ix), self.get(ins.args[2], ty, ix)
        self.put(ins.args[0], f(a, b, ty), ty, ix)

    def op_add(self, ins, ix):
        self._arith(ins, ix, lambda a, b: a + b)

    def op_sub(self, ins, ix):
        self._arith(ins, ix, lambda a, b: a - b)

    def _arith(self, ins, ix, f):
        ty = _type_of(ins.mods)
        a, b = self.get(ins.args[1], ty, ix), self.get(ins.args[2], ty, ix)
        r = f(a, b)
        if "sat" in ins.mods and ty == "f32":
            r = np.clip(r, 0, 1)
        self.put(ins.args[0], r, ty, ix)

    def op_mul(self, ins, ix):
        ty = _type_of(ins.mods)
        a, b = self.get(ins.args[1], ty, ix), self.get(ins.args[2], ty, ix)
        self.put(ins.args[0], *_mul(a, b, ty, ins.mods), ix)

    def op_mad(self, ins, ix):
        ty = _type_of(ins.mods)
        a, b = self.get(ins.args[1], ty, ix), self.get(ins.args[2], ty, ix)
        prod, rty = _mul(a, b, ty, ins.mods)
        c = self.get(ins.args[3], rty, ix)
        if ty in ("f32", "f64"):
            r = (a.astype(np.float64) * b + c).astype(DTYPES[ty])
        else:
            r = prod + c
        self.put(ins.args[0], r, rty, ix)

    def op_fma(self, ins, ix):
        ty = _type_of(ins.mods)
        a, b, c = (self.get(x, ty, ix) for x in ins.args[1:4])
        if ty == "f32":
            r = (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)
        else:
            r = a * b + c
        self.put(ins.args[0], r, ty, ix)

    def op_div(self, ins, ix):
        self._bin(ins, ix, _div)

    def op_rem(self, ins, ix):
        self._bin(ins, ix, lambda a, b, ty: np.fmod(a, np.where(b == 0, 1, b)) if ty[0] != "f" else np.fmod(a, b))

    def op_min(self, ins, ix):
        self._bin(ins, ix, lambda a, b, ty: np.fmin(a, b) if ty[0] == "f" else np.minimum(a, b))

    def op_max(self, ins, ix):
        self._bin(ins, ix, lambda a, b, ty: np.fmax(a, b) if ty[0] == "f" else np.maximum(a, b))

    def op_and(self, ins, ix):
        self._bin(ins, ix, lambda a, b, ty: a & b)

    def op_or(self, ins, ix):
        self._bin(ins, ix, lambda a, b, ty: a | b)

    def op_xor(self, ins, ix):
        self._bin(ins, ix, lambda a, b, ty: a ^ b)

    def op_copysign(self, ins, ix):
        self._bin(ins, ix, lambda a, b, ty: np.copysign(b, a))

    def _un(self, ins, ix, f):
        ty = _type_of(ins.mods)
        self.put(ins.args[0], f(self.get(ins.args[1], ty, ix), ty), ty, ix)

    def op_not(self, ins, ix):
        self._un(ins, ix, lambda a, ty: ~a)

    def op_cnot(self, ins, ix):
        self._un(ins, ix, lambda a, ty: (a == 0).astype(a.dtype))

    def op_neg(self, ins, ix):
        self._un(ins, ix, lambda a, ty: -a)

    def op_abs(self, ins, ix):
        self._un(ins, ix, lambda a, ty: np.abs(a))

    def op_shl(self, ins, ix):
        ty = _type_of(ins.mods)
        a, s = self.get(ins.args[1], ty, ix), self.get(ins.args[2], "u32", ix).astype(np.int64)
        bits = np.dtype(DTYPES[ty]).itemsize * 8
        u = np.dtype(f"u{bits // 8}")
        r = np.where(
            s >= bits,
            0,
            np.left_shift(a.view(u) if a.ndim else np.asarray(a).view(u), np.minimum(s, bits - 1).astype(u)),
        )
        self.put(ins.args[0], np.asarray(r, u).view(DTYPES[ty]), ty, ix)

    def op_shr(self, ins, ix):
        ty = _type_of(ins.mods)
        a, s = self.get(ins.args[1], ty, ix), self.get(ins.args[2], "u32", ix).astype(np.int64)
        bits = np.dtype(DTYPES[ty]).itemsize * 8
        signed = ty.startswith("s")
        if not signed:
            u = np.dtype(f"u{bits // 8}")
            a = np.asarray(a).view(u)
            r = np.where(s >= bits, 0, np.right_shift(a, np.minimum(s, bits - 1).astype(u)))
            r = np.asarray(r, u)
        else:
            r = np.right_shift(a, np.minimum(s, bits - 1).astype(a.dtype))
        self.put(ins.args[0], np.asarray(r).view(DTYPES[ty]) if np.asarray(r).ndim else r, ty, ix)

    def op_setp(self, ins, ix):
        mods = ins.mods
        ty = _type_of(mods)
        cmp = mods[0]
        a, b = self.get(ins.args[1], ty, ix), self.get(ins.args[2], ty, ix)
        r = _compare(cmp, a, b)
        if len(ins.args) > 3 and mods[1] in ("and", "or", "xor"):
            c = self.get(ins.args[3], "pred", ix)
            r = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[mods[1]](r, c)
        dst = ins.args[0]
        if "|" in dst:
            p, q = dst.split("|")
            self.put(p, r, "pred", ix)
            self.put(q, ~np.asarray(r), "pred", ix)
        else:
            self.put(dst, r, "pred", ix)

    def op_selp(self, ins, ix):
        ty = _type_of(ins.mods)
        a, b = self.get(ins.args[1], ty, ix), self.get(ins.args[2], ty, ix)
        p = self.get(ins.args[3], "pred", ix)
        self.put(ins.args[0], np.where(p, a, b).astype(DTYPES[ty]), ty, ix)

    def op_mov(self, ins, ix):
        ty = _type_of(ins.mods)
        if isinstance(ins.args[1], list) or isinstance(ins.args[0], list):
            raise EmulatorRefusal("mov of packed vectors", ins.line)
        v = self.get(ins.args[1], ty, ix)
        self.put(ins.args[0], np.broadcast_to(v, (self._count(ix),)) if not np.ndim(v) else v, ty, ix)

    def _count(self, ix) -> int:
        return self.n if isinstance(ix, slice) else len(ix)

    def op_cvta(self, ins, ix):
        space = next(m for m in ins.mods if m in ("global", "shared", "local", "const", "param"))
        ty = _type_of(ins.mods)
        v = self.get(ins.args[1], ty, ix).astype(np.int64)
        window = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(space, 0)
        v = v - window if "to" in ins.mods else v + window
        self.put(ins.args[0], np.broadcast_to(v, (self._count(ix),)), ty, ix)

    def op_cvt(self, ins, ix):
        types = [m for m in ins.mods if m in DTYPES]
        dst, src = types[0], types[1]
        v = self.get(ins.args[1], src, ix)
        out = DTYPES[dst]
        if src[0] == "f" and dst[0] != "f":
            if "rni" in ins.mods:
                v = np.rint(v)
            elif "rmi" in ins.mods:
                v = np.floor(v)
            elif "rpi" in ins.mods:
                v = np.ceil(v)
            else:
                v = np.trunc(v)
            info = np.iinfo(out)
            v = np.clip(np.nan_to_num(v, nan=0.0), info.min, info.max)
            r = v.astype(out)
        elif src[0] != "f" and dst[0] != "f":
            r = v.astype(out)  # wraps (truncation) or extends by the source's sign
        else:
            r = v.astype(out)
        self.put(ins.args[0], r, dst, ix)

    # --- memory ----------------------------------------------------------------------------------------------

    def _address(self, arg: str, ix):
        """(base value per thread or scalar, offset) of a [reg+imm] or [symbol+imm] operand."""
        inner = arg.strip()[1:-1].replace(" ", "")
        m = re.fullmatch(r"([%\w$.]+?)(?:\+(-?\w+))?", inner)
        if not m:
            raise EmulatorRefusal(f"the address {arg}", None)
        base, off = m[1], int(m[2], 0) if m[2] else 0
        return base, off

    def op_ld(self, ins, ix):
        self._memory(ins, ix, store=False)

    def op_st(self, ins, ix):
        self._memory(ins, ix, store=True)

    def _memory(self, ins, ix, store: bool):
        mods = ins.mods
        ty = _type_of(mods)
        vec = _vec(mods)
        addr_arg = ins.args[0] if store else ins.args[1]
        val_arg = ins.args[1] if store else ins.args[0]
        base, off = self._address(addr_arg, ix)
        if "param" in mods:
            return self._param(ins, ix, base, off, val_arg, ty, store)
        space = next((s for s in ("global", "shared", "local") if s in mods), "generic")
        if base.startswith("%"):
            a = self.get(base, self.width_of(base), ix).astype(np.int64) + off
        else:
            a = np.full(self._count(ix), int(self.imm(base, "u64")) + off, np.int64)
        size = np.dtype(DTYPES[ty]).itemsize
        idx = self._idx(ix)
        if space == "generic":
            shared = (a >= SHARED_WINDOW) & (a < LOCAL_WINDOW)
            local = (a >= LOCAL_WINDOW) & (a < GLOBAL_BASE)
            parts = [
                ("global", ~(shared | local), a),
                ("shared", shared, a - SHARED_WINDOW),
                ("local", local, a - LOCAL_WINDOW),
            ]
        else:
            parts = [(space, np.ones(len(idx), bool), a)]
        vals = self._values(val_arg, ty, ix, vec) if store else None
        out = np.zeros((len(idx), vec), DTYPES[ty])
        for sp, sel, addr in parts:
            if not sel.any():
                continue
            sub_vals = vals[sel] if store else None
            got = getattr(self, f"_{sp}")(ins, idx[sel], addr[sel], size, vec, ty, store, sub_vals)
            if not store:
                out[sel] = got
        if not store:
            regs = val_arg if isinstance(val_arg, list) else [val_arg]
            for j, r in enumerate(regs):
                self.put(r, out[:, j], ty, idx)

    def _values(self, arg, ty, ix, vec):
        regs = arg if isinstance(arg, list) else [arg]
        cols = [np.broadcast_to(self.get(r, ty, ix), (self._count(ix),)) for r in regs]
        return np.stack(cols, axis=1)

    def _param(self, ins, ix, base, off, val_arg, ty, store):
        names = [p for p, _ in self.k.params]
        if base in names:
            if store:
                raise EmulatorRefusal("a store to a kernel parameter", ins.line)
            value = self.params[names.index(base)]
            self.put(
                val_arg,
                np.full(self._count(ix), value).astype(DTYPES[ty])
                if ty[0] != "f"
                else np.full(self._count(ix), value, DTYPES[ty]),
                ty,
                ix,
            )
            return
        if store:
            self.callparams[base] = (
                np.broadcast_to(self.get(val_arg, ty, ix), (self._count(ix),)).astype(np.uint64)
                if ty[0] != "f"
                else self.get(val_arg, ty, ix)
            )
            self.callparams[base + ".ix"] = self._idx(ix)
        else:
            self.put(val_arg, np.zeros(self._count(ix), DTYPES[ty]), ty, ix)

    def _global(self, ins, idx, addr, size, vec, ty, store, vals):
        off = addr - GLOBAL_BASE
        nbytes = size * vec
        which = np.searchsorted(self.m.starts, off, side="right") - 1
        ok = (which >= 0) & (off + nbytes <= self.m.ends[np.clip(which, 0, None)]) & (off >= 0)
        self._record(ins, idx, addr, nbytes, 0, store)
        if not ok.all():
            bad = ~ok
            nearest = self._nearest(off[bad])
            self.m.find("global-oob", ins.line, int(bad.sum()), access="write" if store else "read", matrix=nearest)
        out = np.zeros((len(idx), vec), DTYPES[ty])
        if not ok.any():
            return out
        got = _access(self.m.heap, off[ok], size, vec, ty, vals[ok] if store else None)
        if not store:
            out[ok] = got
        return out

    def _nearest(self, off: np.ndarray) -> str:
        o = int(off[0])
        dist = [max(a.offset - o, o - (a.offset + a.size), 0) for a in self.m.allocs]
        return self.m.allocs[int(np.argmin(dist))].name if dist else "?"

    def _local(self, ins, idx, addr, size, vec, ty, store, vals):
        nbytes = size * vec
        ok = (addr >= 0) & (addr + nbytes <= self.lbytes)
        if not ok.all():
            self.m.find("local-oob", ins.line, int((~ok).sum()))
        out = np.zeros((len(idx), vec), DTYPES[ty])
        got = _access(self.local, idx[ok] * self.lbytes + addr[ok], size, vec, ty, vals[ok] if store else None)
        if not store:
            out[ok] = got
        return out

    def _shared(self, ins, idx, addr, size, vec, ty, store, vals):
        nbytes = size * vec
        ok = (addr >= 0) & (addr + nbytes <= self.k.shared_bytes)
        self._record_shared(ins, idx, addr, nbytes, store)
        if not ok.all():
            self.m.find("shared-oob", ins.line, int((~ok).sum()), access="write" if store else "read")
        out = np.zeros((len(idx), vec), DTYPES[ty])
        if not ok.any():
            return out
        idx, addr = idx[ok], addr[ok]
        blk = self.block_of[idx]
        self._hazards(ins, idx, blk, addr, nbytes, store)
        got = _access(self.shared, blk * self.sbytes + addr, size, vec, ty, vals[ok] if store else None)
        if not store:
            out[ok] = got
        return out

    def _hazards(self, ins, idx, blk, addr, nbytes, store):
        """Shared-memory bookkeeping per 4-byte word: written yet, and which warp last wrote it and which read it
        in this barrier interval (a key: the interval << 16 | the warp, or MANY for several warps), to find
        hazards between warps."""
        nw = max(1, nbytes // 4)
        per_block = self.sbytes // 4 + 1
        if nw == 1:
            words, warp, ep = blk * per_block + addr // 4, self.warp[idx], self.epoch[blk]
        else:
            words = ((blk * per_block + addr // 4)[:, None] + np.arange(nw)[None, :]).reshape(-1)
            warp, ep = np.repeat(self.warp[idx], nw), np.repeat(self.epoch[blk], nw)
        line = ins.line or 0
        mine, many = (ep << 16) | warp, (ep << 16) | MANY
        wk = self.w_key[words]
        other_w = ((wk >> 16) == ep) & ((wk & MANY) != warp)
        if store:
            rk = self.r_key[words]
            self._hazard("write-after-read", ((rk >> 16) == ep) & ((rk & MANY) != warp), words, self.r_line, line)
            self._hazard("write-after-write", other_w, words, self.w_line, line)
            new = np.where(other_w, many, mine)
            self.w_key[words] = new
            dup = self.w_key[words] != new  # two warps wrote the same word in this one instruction
            if dup.any():
                self._hazard("write-after-write", dup & ~other_w, words, self.w_line, line)
                self.w_key[words[dup]] = many[dup]
            self.w_line[words] = line
            self.written[words] = True
            return
        unwritten = ~self.written[words]
        if unwritten.any():
            self.m.find("uninit-shared", ins.line, int(unwritten.sum()))
        self._hazard("read-after-write", other_w, words, self.w_line, line)
        rk = self.r_key[words]
        new = np.where(((rk >> 16) == ep) & ((rk & MANY) != warp), many, mine)
        self.r_key[words] = new
        dup = self.r_key[words] != new
        if dup.any():
            self.r_key[words[dup]] = many[dup]
        self.r_line[words] = line

    def _hazard(self, kind, sel, words, lines, line):
        if sel.any():
            other = int(lines[words[sel]][0]) or None
            self.m.find(kind, line or None, int(sel.sum()), other_line=other)

    def _record_shared(self, ins, idx, addr, nbytes, store):
        """A shared request's record, as SASS issues it: a load ptxas merges into a vector load (sass.py) is
        recorded once, at the group's first load, as one request of the vector's width; the others not at all.
        Should a lane's address not be aligned after all, the group's words are recorded one by one."""
        merged = None if store else self.m.vectors.get(ins.index)
        if merged is None:
            return self._record(ins, idx, addr, nbytes, 1, store)
        width, delta = merged
        if not width:
            return None
        start = addr + delta
        if not (start % width).any():
            return self._record(ins, idx, start, width, 1, store)
        for j in range(width // nbytes):
            self._record(ins, idx, start + j * nbytes, nbytes, 1, store)
        return None

    def _record(self, ins, idx, addr, nbytes, space, store):
        """One record per warp of a traced block: the lanes' addresses (the access tracer's format)."""
        if not self.tracing:
            return
        slots = self.slot[idx]
        keep = slots >= 0
        if not keep.any():
            return
        idx, addr, slots = idx[keep], addr[keep], slots[keep]
        w = self.warp[idx]
        key = slots * 64 + w
        for k in np.unique(key):
            sel = key == k
            lanes = self.lane[idx[sel]]
            row = np.zeros(32, np.uint64)
            row[lanes] = addr[sel].astype(np.uint64)
            active = int(np.bitwise_or.reduce((1 << lanes.astype(np.uint64)).astype(np.uint64)))
            self.m.records.append(
                (int(k // 64), int(k % 64), self.seq, ins.index, space, 2 if store else 1, nbytes, active, row)
            )
            self.seq += 1

    def op_atom(self, ins, ix):
        mods = ins.mods
        ty = _type_of(mods)
        if "add" not in mods:
            raise EmulatorRefusal(ins.text.split()[0], ins.line)
        red = ins.op == "red"
        addr_arg = ins.args[0] if red else ins.args[1]
        val = self.get(ins.args[1] if red else ins.args[2], ty, ix)
        base, off = self._address(addr_arg, ix)
        space = "shared" if "shared" in mods else "global"
        a = self.get(base, self.width_of(base), ix).astype(np.int64) + off
        idx = self._idx(ix)
        val = np.broadcast_to(val, (len(idx),))
        old = np.zeros(len(idx), DTYPES[ty])
        size = np.dtype(DTYPES[ty]).itemsize
        for i in range(len(idx)):  # lane by lane: each sees the sum so far
            cur = getattr(self, f"_{space}")(ins, idx[i : i + 1], a[i : i + 1], size, 1, ty, False, None)
            old[i] = cur[0, 0]
            getattr(self, f"_{space}")(
                ins, idx[i : i + 1], a[i : i + 1], size, 1, ty, True, (cur + val[i]).reshape(1, 1)
            )
        if not red:
            self.put(ins.args[0], old, ty, idx)

    op_red = op_atom

    def op_call(self, ins, ix):
        idx = self._idx(ix)
        if ins.args[0]:
            self.put(ins.args[0], np.zeros(len(idx), np.uint32), "b32", idx)
        self.m.printf_calls += len(idx)
        if not self.m.printf_on or len(self.m.printed) >= MAX_PRINTF_LINES:
            return
        fmt_addr = self.callparams.get(ins.args[1])
        arg_addr = self.callparams.get(ins.args[2]) if len(ins.args) > 2 else None
        if fmt_addr is None:
            return
        order = np.argsort(self.block_of[idx] * 4096 + self.tid[0][idx] + 64 * self.tid[1][idx], kind="stable")
        for t in idx[order][: MAX_PRINTF_LINES - len(self.m.printed)]:
            pos = int(np.nonzero(self.callparams[ins.args[1] + ".ix"] == t)[0][0])
            self.m.printed.append(
                self._format(int(fmt_addr[pos]), int(arg_addr[pos]) if arg_addr is not None else 0, t)
            )

    def _format(self, fmt_addr: int, args_addr: int, t: int) -> str:
        off = fmt_addr - GLOBAL_BASE
        end = off
        while 0 <= end < len(self.m.heap) and self.m.heap[end] and end - off < 1000:
            end += 1
        fmt = bytes(self.m.heap[off:end]).decode("utf-8", "replace")
        local = self.local[t * self.lbytes : (t + 1) * self.lbytes].tobytes()
        pos = args_addr - LOCAL_WINDOW if args_addr >= LOCAL_WINDOW else 0
        out = []
        for spec in re.finditer(r"%([-+ #0]*\d*(?:\.\d+)?)(ll|l|h|hh)?([diouxXfeEgGcsp%])", fmt):
            conv = spec[3]
            if conv == "%":
                continue
            width = 8 if conv in "feEgGsp" or spec[2] in ("l", "ll") else 4
            pos = -(-pos // width) * width
            raw = local[pos : pos + width].ljust(width, b"\0")
            pos += width
            if conv in "feEgG":
                out.append(struct.unpack("<d", raw)[0])
            elif conv in "di":
                out.append(int.from_bytes(raw, "little", signed=True))
            elif conv in "sp":
                out.append(int.from_bytes(raw, "little"))
            else:
                out.append(int.from_bytes(raw, "little"))
        try:
            text = (
                re.sub(r"%[-+ #0]*\d*(?:\.\d+)?(ll|l|h|hh)([diouxX])", r"%\2", fmt)
                .replace("%s", "%x")
                .replace("%p", "%x")
            )
            return (text % tuple(out)).rstrip("\n")[:500]
        except (TypeError, ValueError):
            return fmt.rstrip("\n")[:500]


def _access(memory: np.ndarray, addr: np.ndarray, size: int, vec: int, ty: str, vals):
    """Load (vals None: the values, (n, vec)) or store vals at byte offsets `addr` of a byte array: through a
    typed view where every address is aligned to the element, byte by byte otherwise."""
    dt = DTYPES[ty]
    if memory.size % size == 0 and not (addr % size).any():
        view = memory.view(dt)
        at = (addr // size)[:, None] + np.arange(vec)[None, :]
        if vals is None:
            return view[at]
        view[at] = vals.astype(dt)
        return None
    at = addr[:, None] + np.arange(size * vec)[None, :]
    if vals is None:
        return np.ascontiguousarray(memory[at]).view(dt).reshape(-1, vec)
    memory[at] = np.ascontiguousarray(vals.astype(dt)).view(np.uint8).reshape(at.shape)
    return None


def _mul(a, b, ty, mods):
    if ty[0] == "f":
        return a * b, ty
    bits = np.dtype(DTYPES[ty]).itemsize * 8
    signed = ty[0] == "s"
    if "wide" in mods:
        wide = ("s" if signed else "u") + str(2 * bits)
        return a.astype(DTYPES[wide]) * b.astype(DTYPES[wide]), wide
    if "hi" in mods:
        if bits == 64:
            return np.array([((int(x) * int(y)) >> 64) for x, y in np.broadcast(a, b)]).astype(DTYPES[ty]), ty
        wide = np.int64 if signed else np.uint64
        return np.right_shift(a.astype(wide) * b.astype(wide), 32).astype(DTYPES[ty]), ty
    return a * b, ty


def _div(a, b, ty):
    if ty[0] == "f":
        return a / b
    safe = np.where(b == 0, 1, b)
    if ty[0] == "s":
        q = np.abs(a.astype(np.int64)) // np.abs(safe.astype(np.int64))
        q = np.where((a < 0) != (safe < 0), -q, q)
        return np.where(b == 0, -1, q).astype(a.dtype)
    return np.where(b == 0, np.iinfo(a.dtype).max, a // safe).astype(a.dtype)


def _compare(cmp: str, a, b):
    base = cmp.rstrip("u") if cmp not in ("num", "nan") else cmp
    unordered = cmp.endswith("u") and cmp not in ("nu",)
    if cmp == "num":
        return ~(np.isnan(a) | np.isnan(b))
    if cmp == "nan":
        return np.isnan(a) | np.isnan(b)
    r = COMPARE[base](a, b)
    if unordered and np.asarray(a).dtype.kind == "f":
        r = r | np.isnan(a) | np.isnan(b)
    return r
