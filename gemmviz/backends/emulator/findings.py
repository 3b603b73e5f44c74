"""The emulator's findings (each with its source line) and the shared-memory bookkeeping that finds hazards
between warps: per 4-byte word, whether it was written, and which warp last wrote and read it in the current
barrier interval. Pure numpy."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gemmviz.backends.emulator.common import MANY
from gemmviz.backends.emulator.state import ChunkState


@dataclass
class Finding:
    kind: str  # global-oob, shared-oob, uninit-shared, divergent-barrier, read-after-write, ..., budget
    line: int | None
    count: int = 1
    params: dict = field(default_factory=dict)  # matrix, access, other_line, ...


class Budget(Exception):
    """The run was stopped: by the instruction budget (endless False), or in a loop that makes no progress."""

    def __init__(self, endless: bool = False):
        super().__init__("endless loop" if endless else "instruction budget")
        self.endless = endless


PENDING_READS = 1 << 20  # shared reads (words) whose read keys wait to be written: at most this many


def _another_warps(keys: np.ndarray, mine: np.ndarray) -> np.ndarray:
    """Where a word's key is another warp's (or MANY) of the thread's own barrier interval: keys and mine
    differ in the warp's 16 bits only, i.e. 0 < keys ^ mine <= 0xFFFF (a key of -1, never set, gives a negative
    xor). The same as ((keys | MANY) == mine | MANY) & (keys != mine), in three steps instead of five."""
    return ((keys ^ mine) - 1).view(np.uint64) < MANY


class SharedBookkeeping(ChunkState):
    """A Chunk's shared-memory hazard bookkeeping (mixed into Chunk, whose state it uses: w_key, r_key, w_line,
    r_line, tkey, word_base, and reads, the reads whose keys are not written yet; state.ChunkState types them)."""

    def _hazards(self, ins, idx, addr, nbytes, store):
        """Shared-memory bookkeeping per 4-byte word: written yet, and which warp last wrote it and which read it
        in this barrier interval (a key: the interval << 16 | the warp, or MANY for several warps), to find
        hazards between warps. A word was written once its write key is set (keys start at -1). A thread's own
        key is kept up to date (Chunk.tkey), so a key x is another warp's of this interval when
        x | MANY == many (the same interval) and x != mine.

        A read's keys are only ever looked at by a write in the same barrier interval (write-after-read): they
        are written when the next write comes (_read_keys), and forgotten when every block of the chunk has
        passed a barrier first (the usual case: a tile read, a barrier, the next tile written)."""
        nw = max(1, nbytes // 4)
        first = self.word_base[idx] + (addr >> 2)  # each thread's first word
        mine = self.tkey[idx]  # `idx` a slice while every thread runs: a view, no copy
        if nw == 1:
            words = first
        else:
            words = (first[:, None] + np.arange(nw)[None, :]).reshape(-1)
            mine = np.repeat(mine, nw)
        line = ins.line or 0
        wk = self.w_key.take(words)
        if not store and wk.min() < 0:
            self.m.find("uninit-shared", ins.line, int((wk < 0).sum()))
        other_w = _another_warps(wk, mine)
        if not store:
            self._hazard("read-after-write", other_w, words, self.w_line, line)
            if isinstance(idx, slice) and nw == 1:
                mine = mine.copy()  # a view of tkey, which a barrier changes
            self.reads.append((idx, nw, words, mine, line))
            self.pending += len(words)
            if self.pending > PENDING_READS:
                self._read_keys()
            return
        self._read_keys()
        many = mine | MANY
        rk = self.r_key.take(words)
        self._hazard("write-after-read", _another_warps(rk, mine), words, self.r_line, line)
        self._hazard("write-after-write", other_w, words, self.w_line, line)
        new = mine | (other_w * MANY)  # many where another warp wrote the word in this interval
        self.w_key[words] = new
        dup = self.w_key.take(words) != new  # two warps wrote the same word in this one instruction
        if dup.any():
            self._hazard("write-after-write", dup & ~other_w, words, self.w_line, line)
            self.w_key[words[dup]] = many[dup]
        self.w_line[words] = line

    def _read_keys(self) -> None:
        """The read keys of the reads not written yet, in the order they ran. A read whose block has passed a
        barrier since is left out: no write can see it any more (a key of an earlier interval is never another
        warp's of this one, as a word never read), and a block's threads share the interval."""
        for idx, nw, words, mine, line in self.reads:
            live = self.tkey[idx] == (mine if nw == 1 else mine[::nw])
            if not live.all():
                if not live.any():
                    continue
                keep = live if nw == 1 else np.repeat(live, nw)
                words, mine = words[keep], mine[keep]
            many = mine | MANY
            rk = self.r_key.take(words)
            new = mine | (_another_warps(rk, mine) * MANY)
            self.r_key[words] = new
            dup = self.r_key.take(words) != new
            if dup.any():
                self.r_key[words[dup]] = many[dup]
            self.r_line[words] = line
        self.reads.clear()
        self.pending = 0

    def _hazard(self, kind, sel, words, lines, line):
        if sel.any():
            other = int(lines[words[sel]][0]) or None
            self.m.find(kind, line or None, int(sel.sum()), other_line=other)
