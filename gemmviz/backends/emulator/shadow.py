"""Where undefined values go (a run with RunOptions.shadow): each register of each thread, each word of shared
memory and of local memory carries a code, 0 for a defined value, else the origin of the undefined value it
holds (what kind and at which line it was first read). An instruction's result takes the origin of its
operands; a value is *used* where it reaches a global store or an atomic's operand, an address, or a guard
or branch. Only a use is a finding, at the line of the origin, so that:

- mode "registers" (a kernel built with -G, whose PTX still reads `float sum;` before any write, where -O3
  folds it to 0): a register read before any write, or a local array's element read before it is stored, is
  an origin (uninit-register);
- mode "shared" (the kernel's own -O3 PTX): a read of a shared word no thread has written is an origin
  (uninit-shared); one whose value never reaches C (read by a thread outside C that stores nothing) is not a
  use, and the check calls it a note.

Mixed into Chunk; the Machine keeps the origins and the uses. Pure numpy."""

from __future__ import annotations

import numpy as np

from gemmviz.backends.emulator.common import (
    _OPERANDS,
    DTYPES,
    GLOBAL_BASE,
    LOCAL_WINDOW,
    SHARED_WINDOW,
    _operand,
    _type_of,
    _vec,
)
from gemmviz.backends.emulator.state import ChunkState

UNSET = -1  # a register never written by this thread


class Shadow:
    """The run's origins of undefined values (kind, line) -> code, and the codes that reached a use."""

    def __init__(self, mode: str):
        self.mode = mode  # "registers" or "shared"
        self.codes: dict[tuple, int] = {}
        self.origins: list[tuple[str, int | None]] = []
        self.used: dict[int, int] = {}  # code -> threads that used it

    def origin(self, kind: str, line: int | None) -> int:
        key = (kind, line)
        code = self.codes.get(key)
        if code is None:
            self.origins.append(key)
            code = self.codes[key] = len(self.origins)
        return code

    def findings(self) -> list[tuple[str, int | None, int]]:
        """(kind, line, threads) of each origin whose value was used."""
        return [(*self.origins[c - 1], n) for c, n in sorted(self.used.items())]


NO_RESULT = ("st", "bra", "call", "ret", "exit", "bar", "barrier", "trap", "nanosleep", "membar", "fence", "red")


def _first(a, b):
    """Of two values' origins, the one found first (the lower code), where either is undefined."""
    a, b = np.asarray(a), np.asarray(b)
    return np.where(a == 0, b, np.where(b == 0, a, np.minimum(a, b)))


class ShadowOps(ChunkState):
    """The shadow bookkeeping around each instruction (Chunk.execute calls track before running it)."""

    def _shadow_codes(self, name: str) -> np.ndarray:
        codes = self.shadow_regs.get(name)
        if codes is None:
            codes = self.shadow_regs[name] = np.full(self.n, UNSET, np.int32)
        return codes

    def _shadow_read(self, arg, ix, line) -> np.ndarray | int:
        """The origin codes of an operand for the threads `ix` (0 for an immediate or a special register)."""
        if isinstance(arg, list):
            out: np.ndarray | int = 0
            for a in arg:
                out = _first(out, self._shadow_read(a, ix, line))
            return out
        if not isinstance(arg, str) or arg.startswith("["):
            return 0
        what, name, _neg = _OPERANDS.get(arg) or _operand(arg)
        if what != "reg":
            return 0
        codes = self._shadow_codes(name)[ix]
        if (codes == UNSET).any():
            shadow = self.m.shadow
            new = shadow.origin("uninit-register", line) if shadow.mode == "registers" else 0
            codes = np.where(codes == UNSET, new, codes)
        return codes

    def _shadow_write(self, arg, ix, codes) -> None:
        if isinstance(arg, list):
            for a in arg:
                self._shadow_write(a, ix, codes)
            return
        for name in arg.split("|"):
            if name and name != "_" and name.startswith("%"):
                self._shadow_codes(name)[ix] = codes

    def _shadow_use(self, codes, ix) -> None:
        """A use of values with these codes: each origin among them is a finding."""
        codes = np.broadcast_to(np.asarray(codes), (self._count(ix),))
        bad = codes > 0
        if bad.any():
            found, counts = np.unique(codes[bad], return_counts=True)
            for c, k in zip(found.tolist(), counts.tolist(), strict=True):
                self.m.shadow.used[c] = self.m.shadow.used.get(c, 0) + k

    def track(self, ins, ix) -> None:
        """Before `ins` runs on `ix`: its uses, and the codes its results get."""
        op, args, line = ins.op, ins.args, ins.line
        if ins.guard is not None:
            self._shadow_use(self._shadow_read(ins.guard[0], ix, line), ix)
        if op in ("ld", "st", "atom", "red"):
            self._shadow_memory(ins, ix)
            return
        if op in NO_RESULT or not args:
            return
        if op == "selp":  # the operand it picks
            p = self._shadow_read(args[3], ix, line)
            a, b = self._shadow_read(args[1], ix, line), self._shadow_read(args[2], ix, line)
            pick = np.asarray(self.get(args[3], "pred", ix))
            self._shadow_write(args[0], ix, _first(np.where(pick, a, b), p))
            return
        codes: np.ndarray | int = 0
        for a in args[1:]:
            codes = _first(codes, self._shadow_read(a, ix, line))
        self._shadow_write(args[0], ix, np.broadcast_to(np.asarray(codes, np.int32), (self._count(ix),)))

    def _shadow_memory(self, ins, ix) -> None:
        mods, args, line = ins.mods, ins.args, ins.line
        store = ins.op in ("st", "red")
        addr_arg = args[0] if store else args[1]
        if "param" in mods:
            if not store:
                self._shadow_write(args[0], ix, 0)
            return
        base, off = self._address(addr_arg, ix)
        if base.startswith("%"):
            self._shadow_use(self._shadow_read(base, ix, line), ix)
            a = np.broadcast_to(self.get(base, self.width_of(base), ix).astype(np.int64) + off, (self._count(ix),))
        else:
            a = np.full(self._count(ix), int(self.imm(base, "u64")) + off, np.int64)
        space = next((s for s in ("global", "shared", "local") if s in mods), None)
        window = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "global": 0}
        if space is None:
            space = "shared" if ((a >= SHARED_WINDOW) & (a < LOCAL_WINDOW)).all() else "global"
            space = "local" if ((a >= LOCAL_WINDOW) & (a < GLOBAL_BASE)).all() else space
            a = a - window[space]
        nw = max(1, np.dtype(DTYPES[_type_of(mods)]).itemsize * _vec(mods) // 4)
        if ins.op in ("atom", "red"):
            values = args[1] if store else args[2:]
            self._shadow_use(self._shadow_read(values, ix, line), ix)
            if not store:
                self._shadow_write(args[0], ix, 0)
            return
        words = self._shadow_words(space, ix, a, nw)
        if store:
            codes = self._shadow_read(args[1], ix, line)
            if words is None:  # global memory: the value reaches memory a GPU keeps
                self._shadow_use(codes, ix)
                return
            table, at = words
            table[at] = np.broadcast_to(np.asarray(codes, np.int32), (self._count(ix),))[:, None]
            return
        if words is None:
            self._shadow_write(args[0], ix, 0)
            return
        table, at = words
        got = table[at]
        unset = got == UNSET
        if unset.any():
            mode = self.m.shadow.mode
            kind = {"shared": "uninit-shared", "local": "uninit-register"}[space]
            wanted = (mode == "shared") == (space == "shared")
            got = np.where(unset, self.m.shadow.origin(kind, line) if wanted else 0, got)
        self._shadow_write(
            args[0], ix, np.where(got > 0, got, np.iinfo(np.int32).max).min(axis=1) % np.iinfo(np.int32).max
        )

    def _shadow_words(self, space, ix, a, nw):
        """(the shadow table, each thread's words in it) for shared or local memory; None for global."""
        idx = self._idx(ix)
        if space == "shared":
            ok = (a >= 0) & (a + 4 * nw <= self.k.shared_bytes)
            first = self.word_base[idx] + (np.where(ok, a, 0) >> 2)
            return self.s_shadow, first[:, None] + np.arange(nw)[None, :]
        if space == "local":
            per = self.lbytes // 4
            ok = (a >= 0) & (a + 4 * nw <= self.lbytes)
            first = idx * per + (np.where(ok, a, 0) >> 2)
            return self.l_shadow, first[:, None] + np.arange(nw)[None, :]
        return None
