"""printf in a kernel (a call of vprintf): each thread's line formatted from its local buffer, the output
kept and bounded (MAX_PRINTF_LINES), every call counted. Mixed into Chunk. Pure Python + numpy."""

from __future__ import annotations

import re
import struct

import numpy as np

from gemmviz.backends.emulator.common import GLOBAL_BASE, LOCAL_WINDOW, MAX_PRINTF_LINES
from gemmviz.backends.emulator.ptx import Instr
from gemmviz.backends.emulator.state import ChunkState, Index


class PrintfOps(ChunkState):
    """op_call (vprintf) and the formatting of its arguments."""

    def op_call(self, ins: Instr, ix: Index) -> None:
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
        text, last = [], 0
        for spec in _SPEC.finditer(fmt):
            text.append(fmt[last : spec.start()].replace("%%", "%"))
            last = spec.end()
            conv = spec["conv"]
            if conv == "%":
                text.append("%")
                continue
            width = 8 if conv in "feEgGsp" or spec["len"] in ("l", "ll") else 4
            pos = -(-pos // width) * width
            raw = local[pos : pos + width].ljust(width, b"\0")
            pos += width
            text.append(self._field(spec, conv, raw))
            if sum(map(len, text)) > MAX_LINE:
                break
        else:
            text.append(fmt[last:].replace("%%", "%"))
        return "".join(text).rstrip("\n")[:MAX_LINE]

    def _field(self, spec: re.Match, conv: str, raw: bytes) -> str:
        """One conversion, its width and precision clamped to MAX_FIELD (a note says so): "%999999999d" would
        ask for a gigabyte."""
        if conv in "feEgG":
            value: object = struct.unpack("<d", raw)[0]
        elif conv in "di":
            value = int.from_bytes(raw, "little", signed=True)
        else:
            value = int.from_bytes(raw, "little")
        width, prec = spec["width"], spec["prec"]
        if (width and int(width) > MAX_FIELD) or (prec and int(prec) > MAX_FIELD):
            self.m.printf_clamped = True
            width = str(min(int(width), MAX_FIELD)) if width else ""
            prec = str(min(int(prec), MAX_FIELD)) if prec else None
        conv = {"s": "x", "p": "x"}.get(conv, conv)  # a string argument is an address here
        try:
            return f"%{spec['flags']}{width}{'.' + prec if prec is not None else ''}{conv}" % value
        except (TypeError, ValueError, OverflowError):
            return spec.group(0)


MAX_FIELD = 256  # a printf field's width and precision at most (the line is cut at MAX_LINE anyway)
MAX_LINE = 500
_SPEC = re.compile(
    r"%(?P<flags>[-+ #0]*)(?P<width>\d*)(?:\.(?P<prec>\d*))?(?P<len>ll|l|hh|h)?(?P<conv>[diouxXfeEgGcsp%])"
)
