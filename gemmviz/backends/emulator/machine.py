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
request per warp of the traced blocks (the access tracer's record format). Pure numpy.

The instructions are in ops.py (arithmetic), memory.py (ld, st, atom and the records), printf.py, warp.py and
shadow.py, the findings and hazard bookkeeping in findings.py, each a mixin on state.ChunkState (the chunk's
state, typed, and its operands); this module runs them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gemmviz.backends.emulator.common import (  # noqa: F401  (re-exported: the machine's public names)
    _OPERANDS,
    BAR,
    CHUNK_THREADS,
    COMPARE,
    DTYPES,
    EXIT,
    GLOBAL_BASE,
    LOCAL_WINDOW,
    MANY,
    MAX_FINDINGS,
    MAX_PRINTF_LINES,
    NEVER,
    RUN,
    SHARED_WINDOW,
    SPECIAL,
    STORAGE,
    _operand,
    _type_of,
    _vec,
)
from gemmviz.backends.emulator.findings import Budget, Finding
from gemmviz.backends.emulator.memory import MemoryOps, _access  # noqa: F401
from gemmviz.backends.emulator.ops import ArithmeticOps, _compare, _div, _mul  # noqa: F401
from gemmviz.backends.emulator.printf import PrintfOps
from gemmviz.backends.emulator.ptx import EmulatorRefusal, Instr, Kernel
from gemmviz.backends.emulator.sass import vector_loads
from gemmviz.backends.emulator.shadow import UNSET, Shadow, ShadowOps
from gemmviz.backends.emulator.state import ITEMSIZE, ChunkState, Index  # noqa: F401  (ITEMSIZE re-exported)
from gemmviz.backends.emulator.warp import Trap, WarpOps

__all__ = ["Allocation", "Budget", "Chunk", "Finding", "Machine", "Plan", "Trap"]

CHUNK_SHARED_BYTES = 8 << 20
CHUNK_LOCAL_BYTES = 64 << 20
PROBE_FIRST = 64  # steps before the first snapshot of the state (compared when its loop comes round again)
PROBE_EVERY = 4096  # steps between two snapshots at most: the gap grows 4-fold from PROBE_FIRST


@dataclass
class Allocation:
    name: str  # A, B, C, or a module variable's name
    offset: int  # bytes from GLOBAL_BASE
    size: int


@dataclass(frozen=True)
class Plan:
    """How one launch runs: its step budget, the blocks whose requests are recorded (only those run, if
    only_traced), and the order of the warps ("lockstep", or "warp": one at a time as far as it goes)."""

    budget: int  # instructions (thread by thread) before the run is stopped
    traced: tuple = ()
    only_traced: bool = False
    schedule: str = "lockstep"
    steps: int = 400_000  # steps (instructions of a group of threads together) before it is stopped: its time


class Machine:
    """One module loaded: its global heap (A, B, C and the module's variables) persists across launches."""

    def __init__(
        self, kernel: Kernel, arrays: dict[str, np.ndarray], printf: bool = True, module=None, shadow: str | None = None
    ):
        self.k = kernel
        self.shadow = Shadow(shadow) if shadow else None  # where undefined values go (shadow.py)
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
        self.instructions = 0  # steps: instructions run by a group of threads together
        self.work = 0  # instructions run, thread by thread
        self.work_limit = self.step_limit = self.next_probe = self.probe_gap = 0
        self.slept = 0  # cycles __nanosleep added to the clock
        self.printf_clamped = False  # a printf field was wider than printf.MAX_FIELD
        if kernel.vectors is None:  # the shared loads ptxas merges: their records are merged too
            kernel.vectors = vector_loads(kernel)
        self.vectors = kernel.vectors

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

    def inside_one(self, lo: int, hi: int) -> bool:
        """Whether the bytes [lo, hi) of the heap lie in one allocation."""
        i = int(np.searchsorted(self.starts, lo, side="right")) - 1
        return lo >= 0 and i >= 0 and hi <= self.ends[i]

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
        shared = -(-max(self.k.shared_bytes, 16) // 16) * 16
        local = -(-max(self.k.local_bytes, 16) // 16) * 16
        # blocks run together: at most CHUNK_THREADS threads, and their shared memory (with its bookkeeping,
        # 9 bytes a byte) and local memory bounded, whatever the block's shape (48 KB of shared memory in
        # blocks of one thread took 5 GB)
        chunk = max(1, min(CHUNK_THREADS // per, CHUNK_SHARED_BYTES // shared, CHUNK_LOCAL_BYTES // (local * per)))
        traced = {tuple(b[:2]): i for i, b in enumerate(trace_blocks)}
        if only_traced:
            ids = [b for b in ids if b in traced]
        self.work_limit = self.work + budget_steps
        self.step_limit = self.instructions + max(plan.steps, 1)
        self.probe_gap = PROBE_FIRST
        self.next_probe = self.instructions + PROBE_FIRST
        for i in range(0, len(ids), chunk):
            part = Chunk(self, ids[i : i + chunk], block, (gx, gy), params, traced)
            try:
                part.run(schedule)
            finally:  # its bound handlers make a cycle: its arrays are freed now, not at some later collection
                part.__dict__.clear()


class Chunk(ArithmeticOps, MemoryOps, PrintfOps, WarpOps, ShadowOps, ChunkState):
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
        self.w_key = np.full(words, -1, np.int64)  # (barrier interval << 16) | warp, MANY for several warps
        self.r_key = np.full(words, -1, np.int64)
        self.w_line = np.zeros(words, np.int64)
        self.r_line = np.zeros(words, np.int64)
        self.epoch = np.zeros(nb, np.int64)
        self.tkey = self.warp.astype(np.int64)  # each thread's key: (its block's epoch << 16) | its warp
        self.word_base = b * (self.sbytes // 4 + 1)  # each thread's block's first word, byte of shared memory
        self.byte_base = b * self.sbytes
        self.reads: list[tuple] = []  # the shared reads whose read keys are not written yet (findings.py)
        self.pending = 0
        self.lbytes = -(-max(self.k.local_bytes, 16) // 16) * 16
        self.local = np.zeros(self.n * self.lbytes, np.uint8)
        self.callparams: dict[str, np.ndarray] = {}
        self.slot = np.array([traced.get(blk, -1) for blk in blocks])[b]
        self.tracing = bool((self.slot >= 0).any())
        self.seq = 0
        self._imms: dict[tuple, object] = {}  # (operand, type) -> its value: an immediate, a symbol's address
        self._widths: dict[str, str] = {}
        self._handlers: dict[str, Any] = {}  # opcode -> its op_ function
        self._probe: tuple | None = None  # a snapshot of the state, to tell an endless loop (_no_progress)
        if m.shadow is not None:  # each register's, shared and local word's origin of an undefined value
            self.shadow_regs: dict[str, np.ndarray] = {}
            self.s_shadow = np.full(words, UNSET, np.int32)
            self.l_shadow = np.full(self.n * self.lbytes // 4, UNSET, np.int32)

    # --- running ---------------------------------------------------------------------------------------------

    def run(self, schedule: str = "lockstep") -> None:
        with np.errstate(all="ignore"):  # as a GPU: overflow, division by zero and NaN raise nothing
            self._run(schedule)

    def _run(self, schedule: str) -> None:
        instrs = self.k.instrs
        n_instr = len(instrs)
        # The PC of the threads last picked (`group`: every thread, or their indices) while they run on together:
        # no masks to work out, as the same threads would be picked again at their next PC while it stays below
        # the PC of every other thread that can run (`others`), no branch parts them and no status changes.
        group: slice | np.ndarray = slice(None)
        ix: slice | np.ndarray  # the threads that run the instruction: every one (a slice), or their indices
        together, others = None, NEVER
        while True:
            if together is not None and together < n_instr and together < others:
                at, ix = together, group
            else:
                together = None
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
                if mask.all():  # every thread runs, at this PC
                    ix, together, group, others = slice(None), at, slice(None), NEVER
                else:
                    ix = np.nonzero(mask)[0]  # some threads: their indices
                    together, group, others = at, ix, int(np.where(mask, NEVER, pcs).min())
            ins = instrs[at]
            self._step(ins, at, ix)
            if ins.guard is not None:
                ix, parted = self._guarded(ins, ix)
                if ix is None:  # no thread's guard holds: each went on to the next instruction
                    together = None if together is None else at + 1
                    continue
                if parted:
                    together = None
            self.execute(ins, ix)
            if together is not None:  # where every thread is now, if they are still all together
                together = self.k.labels[ins.args[0]] if ins.op == "bra" else at + 1
                if ins.op in ("ret", "exit", "bar", "barrier"):
                    together = None

    def _step(self, ins: Instr, at: int, ix) -> None:
        """Count the step (and its threads' instructions); Budget past the plan's limits, or in a loop that
        makes no progress."""
        m = self.m
        m.last_line = ins.line or m.last_line
        m.instructions += 1
        m.work += self.n if isinstance(ix, slice) else len(ix)
        if m.work > m.work_limit or m.instructions > m.step_limit:
            m.find("budget", ins.line)
            raise Budget(False)
        if m.instructions >= m.next_probe:
            self._probe = self._snapshot(at)
            m.probe_gap = min(4 * m.probe_gap, PROBE_EVERY)
            m.next_probe += m.probe_gap
        elif self._probe is not None and at == self._probe[0]:
            self._no_progress(ins)

    def _snapshot(self, at: int) -> tuple:
        """The state a loop without progress comes back to: every thread's PC and status, every register."""
        return at, self.pc.copy(), self.status.copy(), {k: v.copy() for k, v in self.regs.items()}

    def _no_progress(self, ins: Instr) -> None:
        """Back at the instruction of the last snapshot: if every PC, status and register is as it was then, the
        threads go round a loop that changes nothing (each turn runs the same instructions on the same values,
        as the emulator's memory does not change under them): endless, Budget now. Otherwise it made progress."""
        if self._probe is None:
            return
        _, pc, status, regs = self._probe
        self._probe = None
        same = np.array_equal(pc, self.pc) and np.array_equal(status, self.status) and regs.keys() == self.regs.keys()
        if same and all(np.array_equal(v, self.regs[k]) for k, v in regs.items()):
            self.m.find("endless", ins.line)
            raise Budget(True)

    def _guarded(self, ins: Instr, ix):
        """(the threads of `ix` whose guard holds, or None if none does; whether some does not): those whose
        guard does not hold go on to the next instruction."""
        if ins.guard is None:
            return ix, False
        g = self.get(ins.guard[0], "pred", ix)
        if ins.guard[1]:
            g = ~g
        if g.all():
            return ix, False
        idx = np.arange(self.n)[ix] if isinstance(ix, slice) else ix
        self.pc[idx[~g]] += 1
        if not g.any():
            return None, True
        return idx[g], True

    def release(self, blocks=None) -> bool:
        """Let the blocks (all, or `blocks`) whose live threads all wait at a barrier go on; False when no
        thread waits. A barrier some thread of the block never reached (it exited, or waits at another one) is
        a finding. Worked out for every block at once (a block's threads are consecutive); only a block with
        a finding is looked at alone, in block order as before."""
        waiting = self.status == BAR
        if not waiting.any():
            return False
        nb, per = self.nb, self.per
        status = self.status.reshape(nb, per)
        wait2 = waiting.reshape(nb, per)
        go = wait2.any(axis=1) & ~(status == RUN).any(axis=1)
        if blocks is not None:
            go &= np.isin(np.arange(nb), blocks)
        if not go.any():
            return True
        bars = self.bars.reshape(nb, per)
        arrived = np.where(wait2, bars, np.iinfo(np.int64).min).max(axis=1)
        missed = (status == EXIT) & (bars < arrived[:, None])
        uneven = (wait2 & (bars != arrived[:, None])).any(axis=1)
        at = np.where(wait2, self.pc.reshape(nb, per), -1)
        lo = np.where(wait2, at, np.iinfo(np.int64).max).min(axis=1)
        several = (wait2 & (at != lo[:, None])).any(axis=1)  # waiting at different instructions
        for b in np.nonzero(go & (missed.any(axis=1) | uneven | several))[0]:
            lines = {self.k.instrs[int(p)].line for p in np.unique(at[b][wait2[b]])}
            if missed[b].any() or len(lines) > 1 or uneven[b]:
                line = min((x for x in lines if x), default=None)
                self.m.find("divergent-barrier", line, int(missed[b].sum()) or 1)
        free = wait2 & go[:, None]
        status[free] = RUN
        self.pc.reshape(nb, per)[free] += 1
        self.epoch[go] += 1
        self.tkey.reshape(nb, per)[go] += 1 << 16
        if go.all():  # every block in a new interval: no write can see the reads before (findings.py)
            self.reads.clear()
            self.pending = 0
        return True

    def execute(self, ins: Instr, ix) -> None:
        handler = self._handlers.get(ins.op)
        if handler is None:  # the class's function, not a bound method: a cycle would keep the chunk's arrays
            handler = self._handlers[ins.op] = getattr(type(self), f"op_{ins.op}", None)
            if handler is None:
                raise EmulatorRefusal(ins.text.split()[0], ins.line)
        if self.m.shadow is not None:
            self.track(ins, ix)
        try:
            jumped = handler(self, ins, ix)
        except EmulatorRefusal as exc:  # an operand it cannot run, found only now: at the instruction's line
            if exc.line is None and exc.key == "emu.refuse" and ins.line is not None:
                raise EmulatorRefusal(exc.what, ins.line) from None
            raise
        if not jumped:
            self.pc[ix] += 1

    # --- control ---------------------------------------------------------------------------------------------

    def op_bra(self, ins: Instr, ix: Index) -> bool:
        self.pc[ix] = self.k.labels[ins.args[0]]
        return True

    def op_ret(self, ins: Instr, ix: Index) -> bool:
        self.status[ix] = EXIT
        self.release(np.unique(self.block_of[ix]))
        return True

    op_exit = op_ret

    def op_bar(self, ins: Instr, ix: Index) -> bool:
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
