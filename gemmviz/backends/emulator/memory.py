"""Memory instructions (ld, st, atom, red) and their bookkeeping: global accesses checked against the exact
allocations, shared and local ones against the arrays, and the records of every global and shared request
per warp of the traced blocks, in the access tracer's format (shared loads ptxas merges recorded merged,
sass.py). Mixed into Chunk. Pure numpy."""

from __future__ import annotations

import re

import numpy as np

from gemmviz.backends.emulator.common import DTYPES, GLOBAL_BASE, LOCAL_WINDOW, SHARED_WINDOW, _type_of, _vec
from gemmviz.backends.emulator.findings import SharedBookkeeping
from gemmviz.backends.emulator.ptx import EmulatorRefusal, Instr
from gemmviz.backends.emulator.state import Index

_ADDRESSES: dict[str, tuple[str, int]] = {}  # an address operand as written -> (base, offset)


class MemoryOps(SharedBookkeeping):
    """op_ld, op_st, op_atom and op_red, and the requests' records."""

    def _address(self, arg: str, ix):
        """(base value per thread or scalar, offset) of a [reg+imm] or [symbol+imm] operand."""
        got = _ADDRESSES.get(arg)
        if got is None:
            inner = arg.strip()[1:-1].replace(" ", "")
            m = re.fullmatch(r"([%\w$.]+?)(?:\+(-?\w+))?", inner)
            if not m:
                raise EmulatorRefusal(f"the address {arg}", None)
            got = _ADDRESSES[arg] = m[1], int(m[2], 0) if m[2] else 0
        return got

    def op_ld(self, ins: Instr, ix: Index) -> None:
        self._memory(ins, ix, store=False)

    def op_st(self, ins: Instr, ix: Index) -> None:
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
        count = self._count(ix)
        vals = self._values(val_arg, ty, ix, vec) if store else None
        if space != "generic":  # every thread in one space: `ix` passed on as it is (a slice while in lockstep)
            out = getattr(self, f"_{space}")(ins, ix, a, size, vec, ty, store, vals)
        else:
            shared = (a >= SHARED_WINDOW) & (a < LOCAL_WINDOW)
            local = (a >= LOCAL_WINDOW) & (a < GLOBAL_BASE)
            parts = [
                ("global", ~(shared | local), a),
                ("shared", shared, a - SHARED_WINDOW),
                ("local", local, a - LOCAL_WINDOW),
            ]
            idx = self._idx(ix)
            out = np.zeros((count, vec), DTYPES[ty])
            for sp, sel, addr in parts:
                if not sel.any():
                    continue
                sub_vals = vals[sel] if vals is not None else None  # vals: the values a store writes
                got = getattr(self, f"_{sp}")(ins, idx[sel], addr[sel], size, vec, ty, store, sub_vals)
                if not store:
                    out[sel] = got
        if not store:
            regs = val_arg if isinstance(val_arg, list) else [val_arg]
            for j, r in enumerate(regs):
                self.put(r, out[:, j], ty, ix)

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

    def _aligned(self, ins, addr, nbytes: int, store: bool) -> None:
        """An access must be aligned to its size (a float4 to 16 bytes), or a GPU stops with "misaligned
        address": a finding (the emulator goes on, reading the bytes there)."""
        if nbytes > 1:
            bad = (addr & (nbytes - 1)) != 0
            if bad.any():
                self.m.find("misaligned", ins.line, int(bad.sum()), access="write" if store else "read")

    def _global(self, ins, idx, addr, size, vec, ty, store, vals):
        off = addr - GLOBAL_BASE
        nbytes = size * vec
        self._record(ins, idx, addr, nbytes, 0, store)
        self._aligned(ins, off, nbytes, store)
        if self.m.inside_one(int(off.min()), int(off.max()) + nbytes):  # the usual case: nothing to sort out
            return _access(self.m.heap, off, size, vec, ty, vals)
        which = np.searchsorted(self.m.starts, off, side="right") - 1
        ok = (which >= 0) & (off + nbytes <= self.m.ends[np.clip(which, 0, None)]) & (off >= 0)
        if ok.all():
            return _access(self.m.heap, off, size, vec, ty, vals)
        bad = ~ok
        nearest = self._nearest(off[bad])
        self.m.find("global-oob", ins.line, int(bad.sum()), access="write" if store else "read", matrix=nearest)
        out = _unreadable((len(off), vec), ty)
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
        idx = self._idx(idx)
        nbytes = size * vec
        ok = (addr >= 0) & (addr + nbytes <= self.lbytes)
        self._aligned(ins, addr, nbytes, store)
        if not ok.all():
            self.m.find("local-oob", ins.line, int((~ok).sum()))
        out = _unreadable((len(idx), vec), ty)
        got = _access(self.local, idx[ok] * self.lbytes + addr[ok], size, vec, ty, vals[ok] if store else None)
        if not store:
            out[ok] = got
        return out

    def _shared(self, ins, idx, addr, size, vec, ty, store, vals):
        nbytes = size * vec
        ok = (addr >= 0) & (addr + nbytes <= self.k.shared_bytes)
        self._record_shared(ins, idx, addr, nbytes, store)
        self._aligned(ins, addr, nbytes, store)
        if not ok.all():
            self.m.find("shared-oob", ins.line, int((~ok).sum()), access="write" if store else "read")
        if ok.all():  # the usual case: no selection to copy through
            self._hazards(ins, idx, addr, nbytes, store)
            got = _access(self.shared, self.byte_base[idx] + addr, size, vec, ty, vals)
            return got if not store else None
        out = _unreadable((len(addr), vec), ty)
        if not ok.any():
            return out
        idx, addr = self._idx(idx)[ok], addr[ok]
        self._hazards(ins, idx, addr, nbytes, store)
        got = _access(self.shared, self.byte_base[idx] + addr, size, vec, ty, vals[ok] if store else None)
        if not store:
            out[ok] = got
        return out

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
        idx, addr, slots = self._idx(idx)[keep], addr[keep], slots[keep]
        keys, which = np.unique(slots * 64 + self.warp[idx], return_inverse=True)  # a request per warp, in order
        lanes = self.lane[idx]
        rows = np.zeros((len(keys), 32), np.uint64)
        rows[which, lanes] = addr.astype(np.uint64)  # a thread is one lane of one warp
        active = np.zeros(len(keys), np.uint64)
        np.bitwise_or.at(active, which, np.left_shift(np.uint64(1), lanes.astype(np.uint64)))
        flags = 2 if store else 1
        for i, k in enumerate(keys.tolist()):
            self.m.records.append((k // 64, k % 64, self.seq, ins.index, space, flags, nbytes, int(active[i]), rows[i]))
            self.seq += 1

    def op_atom(self, ins: Instr, ix: Index) -> None:
        """atom and red, every thread at once: the threads that hit one address are applied in lane order (an
        order a GPU may take), an add by prefix sums, the other operations one round per thread of an address."""
        mods = ins.mods
        ty = _type_of(mods)
        red = ins.op == "red"
        addr_arg = ins.args[0] if red else ins.args[1]
        base, off = self._address(addr_arg, ix)
        idx = self._idx(ix)
        a = np.broadcast_to(self.get(base, self.width_of(base), ix).astype(np.int64) + off, (len(idx),))
        space = "shared" if "shared" in mods else "global"
        if space == "global" and "global" not in mods and ((a >= SHARED_WINDOW) & (a < LOCAL_WINDOW)).all():
            space, a = "shared", a - SHARED_WINDOW  # generic, into shared memory
        size = np.dtype(DTYPES[ty]).itemsize
        cur = getattr(self, f"_{space}")(ins, idx, a, size, 1, ty, False, None)[:, 0]  # bounds, records, hazards
        memory, at, ok = self._atomic_cells(space, idx, a, size)
        operands = [np.broadcast_to(self.get(x, ty, ix), (len(idx),)) for x in ins.args[(1 if red else 2) :]]
        op = next(m for m in mods if m in ATOMIC_OPS)
        old = _atomic_add(cur, at, operands[0], ty) if op == "add" else None
        if old is not None:
            old, final, last = old
            _access(memory, at[last][ok[last]], size, 1, ty, final[ok[last]][:, None])
        else:
            old = self._atomic_rounds(op, memory, at, ok, cur, operands, ty, size)
        if space == "shared":  # written, as far as the unwritten-read bookkeeping goes; no hazard between atomics
            words = self.word_base[idx[ok]] + (a[ok] >> 2)
            self.w_key[words] = np.where(self.w_key[words] < 0, ATOMIC_KEY, self.w_key[words])
        if not red:
            self.put(ins.args[0], old, ty, idx)

    def _atomic_cells(self, space, idx, a, size):
        """(the memory, each thread's byte offset in it, whether that lies inside an allocation or array)."""
        if space == "shared":
            ok = (a >= 0) & (a + size <= self.k.shared_bytes)
            return self.shared, self.byte_base[idx] + np.where(ok, a, 0), ok
        off = a - GLOBAL_BASE
        which = np.searchsorted(self.m.starts, off, side="right") - 1
        ok = (which >= 0) & (off >= 0) & (off + size <= self.m.ends[np.clip(which, 0, None)])
        return self.m.heap, np.where(ok, off, 0), ok

    def _atomic_rounds(self, op, memory, at, ok, cur, operands, ty, size):
        """Any atomic: the k-th thread of each address in round k, every address of a round at once."""
        dt = DTYPES[ty]
        old = cur.astype(dt).copy()
        order = np.lexsort((np.arange(len(at)), at))
        sorted_at = at[order]
        first = np.r_[True, sorted_at[1:] != sorted_at[:-1]]
        group_start = np.maximum.accumulate(np.where(first, np.arange(len(at)), 0))
        rank = np.empty(len(at), np.int64)
        rank[order] = np.arange(len(at)) - group_start
        for r in range(int(rank.max()) + 1 if len(at) else 0):
            sel = np.nonzero((rank == r) & ok)[0]
            if not len(sel):
                continue
            now = _access(memory, at[sel], size, 1, ty, None)[:, 0]
            old[sel] = now
            args = [x[sel] for x in operands]
            _access(memory, at[sel], size, 1, ty, _apply(op, now, args, ty)[:, None])
        return old

    op_red = op_atom


ATOMIC_OPS = ("add", "exch", "cas", "min", "max", "inc", "dec", "and", "or", "xor")
ATOMIC_KEY = 1 << 62  # a shared word's write key after an atomic: written, and no warp's of any interval


def _apply(op: str, now, args, ty):
    """The new value of an atomic `op` on `now` with its operands."""
    dt = DTYPES[ty]
    b = args[0].astype(dt)
    if op == "exch":
        return b
    if op == "cas":
        return np.where(now == b, args[1].astype(dt), now)
    if op == "min":
        return np.minimum(now, b)
    if op == "max":
        return np.maximum(now, b)
    if op == "inc":
        return np.where(now >= b, 0, now + 1).astype(dt)
    if op == "dec":
        return np.where((now == 0) | (now > b), b, now - 1).astype(dt)
    if op == "add":
        return (now + b).astype(dt)
    return {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op](now, b)


def _atomic_add(cur, at, val, ty):
    """(each thread's old value, each address's final value, one thread of each address) for atom.add: the
    threads of an address in lane order, by a prefix sum (float in float64, then rounded: the sum of a GPU's
    order of float adds differs from it by rounding only; integers wrap as the GPU's do)."""
    dt = DTYPES[ty]
    acc = np.float64 if ty[0] == "f" else dt
    if len(at) and at[0] == at[-1] and (at == at[0]).all():  # every thread on one address (a hostile loop's)
        v = val.astype(acc)
        cs: np.ndarray = np.cumsum(v, dtype=acc)
        base = acc(cur[0])
        return (base + (cs - v)).astype(dt), np.array([base + cs[-1]]).astype(dt), np.array([len(at) - 1])
    order = np.lexsort((np.arange(len(at)), at))
    v = val[order].astype(acc)
    sorted_at = at[order]
    first = np.r_[True, sorted_at[1:] != sorted_at[:-1]] if len(at) else np.zeros(0, bool)
    starts = np.nonzero(first)[0]
    counts = np.diff(np.r_[starts, len(at)])
    cs = np.cumsum(v, dtype=acc)
    before = np.repeat(cs[starts] - v[starts], counts)  # the sum before each address's first thread
    base = np.repeat(cur[order][starts].astype(acc), counts)
    old_sorted = base + (cs - v - before)
    old: np.ndarray = np.empty(len(at), dt)
    old[order] = old_sorted.astype(dt)
    ends = np.r_[starts[1:], len(at)] - 1
    final = (base[ends] + (cs[ends] - before[ends])).astype(dt)
    return old, final, order[ends]


def _unreadable(shape: tuple[int, int], ty: str) -> np.ndarray:
    """What a read outside every array gives: on a GPU, whatever lies there (or the launch stops), so a float is
    NaN here, which C cannot hide (zeros let a kernel that reads past a matrix look right where a GPU, reading
    garbage in the same place, got C wrong); an integer is 0, so an index read there stays near."""
    out: np.ndarray = np.zeros(shape, DTYPES[ty])
    if ty[0] == "f":
        out[:] = np.nan
    return out


def _access(memory: np.ndarray, addr: np.ndarray, size: int, vec: int, ty: str, vals):
    """Load (vals None: the values, (n, vec)) or store vals at byte offsets `addr` of a byte array: through a
    typed view where every address is aligned to the element (size is 1, 2, 4 or 8), byte by byte otherwise."""
    dt = DTYPES[ty]
    if memory.size % size == 0 and not (addr & (size - 1)).any():
        view: np.ndarray = memory.view(dt)
        first = addr >> (size.bit_length() - 1)  # the element's index
        if vec == 1:
            if vals is None:
                return view.take(first)[:, None]
            view[first] = vals[:, 0].astype(dt)
            return None
        at = first[:, None] + np.arange(vec)[None, :]
        if vals is None:
            return view[at]
        view[at] = vals.astype(dt)
        return None
    at = addr[:, None] + np.arange(size * vec)[None, :]
    if vals is None:
        return np.ascontiguousarray(memory[at]).view(dt).reshape(-1, vec)
    memory[at] = np.ascontiguousarray(vals.astype(dt)).view(np.uint8).reshape(at.shape)
    return None
