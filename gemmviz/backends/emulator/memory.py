"""Memory instructions (ld, st, atom, red) and their bookkeeping: global accesses checked against the exact
allocations, shared and local ones against the arrays, and the records of every global and shared request
per warp of the traced blocks, in the access tracer's format (shared loads ptxas merges recorded merged,
sass.py). Mixed into Chunk. Pure numpy."""

from __future__ import annotations

import re

import numpy as np

from gemmviz.backends.emulator.common import DTYPES, GLOBAL_BASE, LOCAL_WINDOW, SHARED_WINDOW, _type_of, _vec
from gemmviz.backends.emulator.findings import SharedBookkeeping
from gemmviz.backends.emulator.ptx import EmulatorRefusal

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
                sub_vals = vals[sel] if store else None
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

    def _global(self, ins, idx, addr, size, vec, ty, store, vals):
        off = addr - GLOBAL_BASE
        nbytes = size * vec
        self._record(ins, idx, addr, nbytes, 0, store)
        if self.m.inside_one(int(off.min()), int(off.max()) + nbytes):  # the usual case: nothing to sort out
            return _access(self.m.heap, off, size, vec, ty, vals)
        which = np.searchsorted(self.m.starts, off, side="right") - 1
        ok = (which >= 0) & (off + nbytes <= self.m.ends[np.clip(which, 0, None)]) & (off >= 0)
        if ok.all():
            return _access(self.m.heap, off, size, vec, ty, vals)
        bad = ~ok
        nearest = self._nearest(off[bad])
        self.m.find("global-oob", ins.line, int(bad.sum()), access="write" if store else "read", matrix=nearest)
        out = np.zeros((len(off), vec), DTYPES[ty])
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
        if ok.all():  # the usual case: no selection to copy through
            self._hazards(ins, idx, addr, nbytes, store)
            got = _access(self.shared, self.byte_base[idx] + addr, size, vec, ty, vals)
            return got if not store else None
        out = np.zeros((len(addr), vec), DTYPES[ty])
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


def _access(memory: np.ndarray, addr: np.ndarray, size: int, vec: int, ty: str, vals):
    """Load (vals None: the values, (n, vec)) or store vals at byte offsets `addr` of a byte array: through a
    typed view where every address is aligned to the element (size is 1, 2, 4 or 8), byte by byte otherwise."""
    dt = DTYPES[ty]
    if memory.size % size == 0 and not (addr & (size - 1)).any():
        view = memory.view(dt)
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
