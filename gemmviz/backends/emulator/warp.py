"""Warp-level instructions (shfl.sync, vote.sync, activemask, redux.sync), trap, nanosleep, fences and the
timers (%clock, %clock64, %globaltimer, %smid), each vectorised over the threads that run it (mixed into
Chunk). The lanes of a warp that run an instruction together are the lanes it reads from: a lane that is not
there (it took another branch, or lies past the block's last thread) gives its own value, as a GPU's
undefined result would be some value. Pure numpy."""

from __future__ import annotations

import numpy as np

from gemmviz.backends.emulator.common import CLOCK_GHZ, _type_of
from gemmviz.backends.emulator.ptx import Instr
from gemmviz.backends.emulator.state import ChunkState, Index


class Trap(Exception):
    """The kernel ran `trap` (__trap(), or assert's failure): the launch ends with an error at that line."""

    def __init__(self, line: int | None):
        super().__init__(f"trap at line {line}")
        self.line = line


def _lane_of(mode: str, lane, b, c):
    """PTX's shfl.sync: (the source lane, whether it is in range) for each thread."""
    seg = (c >> 8) & 0x1F
    clamp = c & 0x1F
    max_lane = (lane & seg) | (clamp & ~seg)
    min_lane = lane & seg
    b = b & 0x1F
    if mode == "up":
        j = lane - b
        ok = j >= max_lane
    elif mode == "down":
        j = lane + b
        ok = j <= max_lane
    elif mode == "bfly":
        j = lane ^ b
        ok = j <= max_lane
    else:  # idx
        j = min_lane | (b & ~seg)
        ok = j <= max_lane
    return np.where(ok, j, lane), ok


class WarpOps(ChunkState):
    """op_shfl, op_vote, op_activemask, op_redux, op_trap, op_nanosleep, op_membar, op_fence."""

    def _warp_keys(self, idx: np.ndarray) -> np.ndarray:
        """Each thread's warp, numbered across the chunk's blocks."""
        return self.block_of[idx] * 64 + self.warp[idx]

    def op_shfl(self, ins: Instr, ix: Index) -> None:
        mode = next(m for m in ins.mods if m in ("up", "down", "bfly", "idx"))
        idx = self._idx(ix)
        a = self.get(ins.args[1], "b32", ix)
        b = np.broadcast_to(self.get(ins.args[2], "u32", ix), (len(idx),)).astype(np.int64)
        c = np.broadcast_to(self.get(ins.args[3], "u32", ix), (len(idx),)).astype(np.int64)
        lane = self.lane[idx].astype(np.int64)
        src_lane, ok = _lane_of(mode, lane, b, c)
        src = idx + (src_lane - lane)  # a block's threads are consecutive, a warp's lanes too
        here = np.zeros(self.n + 1, bool)
        here[idx] = True
        src = np.where((src >= 0) & (src < self.n), src, self.n)
        same_block = self.block_of[np.minimum(src, self.n - 1)] == self.block_of[idx]
        there = here[src] & same_block
        values = np.zeros(self.n + 1, np.uint32)
        values[idx] = np.broadcast_to(a, (len(idx),))
        out = np.where(there, values[src], values[idx])
        dst = ins.args[0]
        if "|" in dst:
            d, p = dst.split("|")
            self.put(d, out, "b32", ix)
            self.put(p, ok & there, "pred", ix)
        else:
            self.put(dst, out, "b32", ix)

    def _ballot(self, idx: np.ndarray, pred: np.ndarray) -> np.ndarray:
        """Per thread: the bits of its warp's lanes (of `idx`) whose predicate holds."""
        keys, which = np.unique(self._warp_keys(idx), return_inverse=True)
        bits = np.zeros(len(keys), np.uint64)
        lanes = self.lane[idx].astype(np.uint64)
        np.bitwise_or.at(bits, which[pred], np.left_shift(np.uint64(1), lanes[pred]))
        return bits[which].astype(np.uint32)

    def op_vote(self, ins: Instr, ix: Index) -> None:
        idx = self._idx(ix)
        pred = np.broadcast_to(self.get(ins.args[1], "pred", ix), (len(idx),)).astype(bool)
        if "ballot" in ins.mods:
            self.put(ins.args[0], self._ballot(idx, pred), "b32", ix)
            return
        yes = self._ballot(idx, pred)
        every = self._ballot(idx, np.ones(len(idx), bool))
        if "all" in ins.mods:
            r = yes == every
        elif "any" in ins.mods:
            r = yes != 0
        else:  # uni: every lane the same
            r = (yes == every) | (yes == 0)
        self.put(ins.args[0], r, "pred", ix)

    def op_activemask(self, ins: Instr, ix: Index) -> None:
        idx = self._idx(ix)
        self.put(ins.args[0], self._ballot(idx, np.ones(len(idx), bool)), "b32", ix)

    def op_redux(self, ins: Instr, ix: Index) -> None:
        idx = self._idx(ix)
        ty = _type_of(ins.mods)
        v = np.broadcast_to(self.get(ins.args[1], ty, ix), (len(idx),))
        keys, which = np.unique(self._warp_keys(idx), return_inverse=True)
        op = next(m for m in ins.mods if m in ("add", "min", "max", "and", "or", "xor"))
        ufunc = {
            "add": np.add,
            "min": np.minimum,
            "max": np.maximum,
            "and": np.bitwise_and,
            "or": np.bitwise_or,
            "xor": np.bitwise_xor,
        }[op]
        start = {
            "add": 0,
            "min": np.iinfo(v.dtype).max,
            "max": np.iinfo(v.dtype).min,
            "and": ~v.dtype.type(0),
            "or": 0,
            "xor": 0,
        }[op]
        out = np.full(len(keys), start, v.dtype)
        ufunc.at(out, which, v)
        self.put(ins.args[0], out[which], ty, ix)

    def op_trap(self, ins: Instr, ix: Index) -> None:
        raise Trap(ins.line)

    def op_nanosleep(self, ins: Instr, ix: Index) -> None:
        ns = int(np.max(self.get(ins.args[0], "u32", ix)))
        self.m.slept += min(ns, 1_000_000) * CLOCK_GHZ  # a GPU sleeps at most about a millisecond
        return None

    def op_membar(
        self, ins: Instr, ix: Index
    ) -> None:  # the emulator's memory is sequentially consistent: a fence changes nothing
        return None

    op_fence = op_membar
