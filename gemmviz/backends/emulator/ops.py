"""The arithmetic, logic, comparison, move and conversion instructions of PTX, each vectorised over the
threads that run it (mixed into Chunk, whose operands it reads and writes). Pure numpy."""

from __future__ import annotations

import numpy as np

from gemmviz.backends.emulator.common import COMPARE, DTYPES, LOCAL_WINDOW, SHARED_WINDOW, _type_of
from gemmviz.backends.emulator.ptx import EmulatorRefusal, Instr
from gemmviz.backends.emulator.state import ChunkState, Index


class ArithmeticOps(ChunkState):
    """op_add … op_cvt: one method per opcode, called with the instruction and the threads that run it."""

    def _bin(self, ins, ix, f):
        ty = _type_of(ins.mods)
        a, b = self.get(ins.args[1], ty, ix), self.get(ins.args[2], ty, ix)
        self.put(ins.args[0], f(a, b, ty), ty, ix)

    def op_add(self, ins: Instr, ix: Index) -> None:
        self._arith(ins, ix, lambda a, b: a + b)

    def op_sub(self, ins: Instr, ix: Index) -> None:
        self._arith(ins, ix, lambda a, b: a - b)

    def _arith(self, ins, ix, f):
        ty = _type_of(ins.mods)
        a, b = self.get(ins.args[1], ty, ix), self.get(ins.args[2], ty, ix)
        r = f(a, b)
        if "sat" in ins.mods and ty == "f32":
            r = np.clip(r, 0, 1)
        self.put(ins.args[0], r, ty, ix)

    def op_mul(self, ins: Instr, ix: Index) -> None:
        ty = _type_of(ins.mods)
        a, b = self.get(ins.args[1], ty, ix), self.get(ins.args[2], ty, ix)
        product, product_ty = _mul(a, b, ty, ins.mods)
        self.put(ins.args[0], product, product_ty, ix)

    def op_mad(self, ins: Instr, ix: Index) -> None:
        ty = _type_of(ins.mods)
        a, b = self.get(ins.args[1], ty, ix), self.get(ins.args[2], ty, ix)
        prod, rty = _mul(a, b, ty, ins.mods)
        c = self.get(ins.args[3], rty, ix)
        if ty in ("f32", "f64"):
            r = (a.astype(np.float64) * b + c).astype(DTYPES[ty])
        else:
            r = prod + c
        self.put(ins.args[0], r, rty, ix)

    def op_fma(self, ins: Instr, ix: Index) -> None:
        ty = _type_of(ins.mods)
        a, b, c = (self.get(x, ty, ix) for x in ins.args[1:4])
        if ty == "f32":  # the product exact in float64, the sum rounded there, then to float32
            r = (np.multiply(a, b, dtype=np.float64) + c).astype(np.float32)
        else:
            r = a * b + c
        self.put(ins.args[0], r, ty, ix)

    def op_div(self, ins: Instr, ix: Index) -> None:
        self._bin(ins, ix, _div)

    def op_rem(self, ins: Instr, ix: Index) -> None:
        self._bin(ins, ix, lambda a, b, ty: np.fmod(a, np.where(b == 0, 1, b)) if ty[0] != "f" else np.fmod(a, b))

    def op_min(self, ins: Instr, ix: Index) -> None:
        self._bin(ins, ix, lambda a, b, ty: np.fmin(a, b) if ty[0] == "f" else np.minimum(a, b))

    def op_max(self, ins: Instr, ix: Index) -> None:
        self._bin(ins, ix, lambda a, b, ty: np.fmax(a, b) if ty[0] == "f" else np.maximum(a, b))

    def op_and(self, ins: Instr, ix: Index) -> None:
        self._bin(ins, ix, lambda a, b, ty: a & b)

    def op_or(self, ins: Instr, ix: Index) -> None:
        self._bin(ins, ix, lambda a, b, ty: a | b)

    def op_xor(self, ins: Instr, ix: Index) -> None:
        self._bin(ins, ix, lambda a, b, ty: a ^ b)

    def op_copysign(self, ins: Instr, ix: Index) -> None:
        self._bin(ins, ix, lambda a, b, ty: np.copysign(b, a))

    def _un(self, ins, ix, f):
        ty = _type_of(ins.mods)
        self.put(ins.args[0], f(self.get(ins.args[1], ty, ix), ty), ty, ix)

    def op_not(self, ins: Instr, ix: Index) -> None:
        self._un(ins, ix, lambda a, ty: ~a)

    def op_cnot(self, ins: Instr, ix: Index) -> None:
        self._un(ins, ix, lambda a, ty: (a == 0).astype(a.dtype))

    def op_neg(self, ins: Instr, ix: Index) -> None:
        self._un(ins, ix, lambda a, ty: -a)

    def op_abs(self, ins: Instr, ix: Index) -> None:
        self._un(ins, ix, lambda a, ty: np.abs(a))

    def op_shl(self, ins: Instr, ix: Index) -> None:
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

    def op_shr(self, ins: Instr, ix: Index) -> None:
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

    def _float_un(self, ins, ix, f):
        ty = _type_of(ins.mods)
        a = np.asarray(self.get(ins.args[1], ty, ix))
        r = f(a.astype(np.float64)).astype(DTYPES[ty])  # rounded once from float64: within the GPU's ulps
        self.put(ins.args[0], r, ty, ix)

    def op_sqrt(self, ins: Instr, ix: Index) -> None:
        self._float_un(ins, ix, np.sqrt)

    def op_rsqrt(self, ins: Instr, ix: Index) -> None:
        self._float_un(ins, ix, lambda x: 1.0 / np.sqrt(x))

    def op_rcp(self, ins: Instr, ix: Index) -> None:
        self._float_un(ins, ix, lambda x: 1.0 / x)

    def op_ex2(self, ins: Instr, ix: Index) -> None:
        self._float_un(ins, ix, np.exp2)

    def op_lg2(self, ins: Instr, ix: Index) -> None:
        self._float_un(ins, ix, np.log2)

    def op_sin(self, ins: Instr, ix: Index) -> None:
        self._float_un(ins, ix, np.sin)

    def op_cos(self, ins: Instr, ix: Index) -> None:
        self._float_un(ins, ix, np.cos)

    def op_tanh(self, ins: Instr, ix: Index) -> None:
        self._float_un(ins, ix, np.tanh)

    def op_popc(self, ins: Instr, ix: Index) -> None:
        ty = _type_of(ins.mods)
        v = np.asarray(self.get(ins.args[1], ty, ix)).astype(np.uint64)
        count = np.zeros(v.shape, np.uint32)
        for _ in range(np.dtype(DTYPES[ty]).itemsize * 8):
            count += (v & np.uint64(1)).astype(np.uint32)
            v = v >> np.uint64(1)
        self.put(ins.args[0], count, "u32", ix)

    def op_clz(self, ins: Instr, ix: Index) -> None:
        ty = _type_of(ins.mods)
        bits = np.dtype(DTYPES[ty]).itemsize * 8
        v = np.asarray(self.get(ins.args[1], ty, ix)).astype(np.uint64)
        width = np.zeros(v.shape, np.uint32)  # the position of the highest set bit, plus one
        for i in range(bits):
            width = np.where((v >> np.uint64(i)) & np.uint64(1), i + 1, width)
        self.put(ins.args[0], (bits - width).astype(np.uint32), "u32", ix)

    def op_brev(self, ins: Instr, ix: Index) -> None:
        ty = _type_of(ins.mods)
        bits = np.dtype(DTYPES[ty]).itemsize * 8
        v = np.asarray(self.get(ins.args[1], ty, ix)).astype(np.uint64)
        r = np.zeros(v.shape, np.uint64)
        for i in range(bits):
            r |= ((v >> np.uint64(i)) & np.uint64(1)) << np.uint64(bits - 1 - i)
        self.put(ins.args[0], r.astype(f"u{bits // 8}").view(DTYPES[ty]), ty, ix)

    def op_bfe(self, ins: Instr, ix: Index) -> None:
        ty = _type_of(ins.mods)
        bits = np.dtype(DTYPES[ty]).itemsize * 8
        a = np.asarray(self.get(ins.args[1], ty, ix))
        pos = np.asarray(self.get(ins.args[2], "u32", ix)).astype(np.int64) & 0xFF
        length = np.asarray(self.get(ins.args[3], "u32", ix)).astype(np.int64) & 0xFF
        u = a.astype(np.int64 if ty[0] == "s" else np.uint64)
        shifted = u >> np.minimum(pos, bits - 1).astype(u.dtype)
        mask = np.where(length >= 64, -1, (1 << np.minimum(length, 63)) - 1).astype(np.int64).astype(u.dtype)
        r = shifted & mask
        if ty[0] == "s":  # sign-extended from the field's top bit
            top = np.minimum(pos + length - 1, bits - 1)
            sign = (a.astype(np.int64) >> top) & 1
            r = np.where((length > 0) & (sign == 1), r | ~mask, r)
        r = np.where(length == 0, 0, r)
        self.put(ins.args[0], r.astype(DTYPES[ty]), ty, ix)

    def op_bfi(self, ins: Instr, ix: Index) -> None:
        ty = _type_of(ins.mods)
        bits = np.dtype(DTYPES[ty]).itemsize * 8
        a = np.asarray(self.get(ins.args[1], ty, ix)).astype(np.uint64)
        b = np.asarray(self.get(ins.args[2], ty, ix)).astype(np.uint64)
        pos = np.asarray(self.get(ins.args[3], "u32", ix)).astype(np.uint64) & np.uint64(0xFF)
        length = np.asarray(self.get(ins.args[4], "u32", ix)).astype(np.uint64) & np.uint64(0xFF)
        length = np.minimum(length, np.uint64(bits) - np.minimum(pos, np.uint64(bits)))
        mask = ((np.uint64(1) << length) - np.uint64(1)) << np.minimum(pos, np.uint64(bits - 1))
        mask = np.where(length >= 64, ~np.uint64(0), mask)
        r = (b & ~mask) | ((a << np.minimum(pos, np.uint64(bits - 1))) & mask)
        full = np.uint64((1 << bits) - 1) if bits < 64 else ~np.uint64(0)
        self.put(ins.args[0], (r & full).astype(f"u{bits // 8}").view(DTYPES[ty]), ty, ix)

    def op_setp(self, ins: Instr, ix: Index) -> None:
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

    def op_selp(self, ins: Instr, ix: Index) -> None:
        ty = _type_of(ins.mods)
        a, b = self.get(ins.args[1], ty, ix), self.get(ins.args[2], ty, ix)
        p = self.get(ins.args[3], "pred", ix)
        self.put(ins.args[0], np.where(p, a, b).astype(DTYPES[ty]), ty, ix)

    def op_mov(self, ins: Instr, ix: Index) -> None:
        ty = _type_of(ins.mods)
        if isinstance(ins.args[1], list) or isinstance(ins.args[0], list):
            raise EmulatorRefusal("mov of packed vectors", ins.line)
        v = self.get(ins.args[1], ty, ix)
        self.put(ins.args[0], np.broadcast_to(v, (self._count(ix),)) if not np.ndim(v) else v, ty, ix)

    def op_cvta(self, ins: Instr, ix: Index) -> None:
        space = next(m for m in ins.mods if m in ("global", "shared", "local", "const", "param"))
        ty = _type_of(ins.mods)
        v = self.get(ins.args[1], ty, ix).astype(np.int64)
        window = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(space, 0)
        v = v - window if "to" in ins.mods else v + window
        self.put(ins.args[0], np.broadcast_to(v, (self._count(ix),)), ty, ix)

    def op_cvt(self, ins: Instr, ix: Index) -> None:
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
        wide_dt = np.int64 if signed else np.uint64
        return np.right_shift(a.astype(wide_dt) * b.astype(wide_dt), 32).astype(DTYPES[ty]), ty
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
