"""What the emulator's modules share: the fake address map, PTX types as numpy types, the thread states,
and reading an instruction's type and vector width from its modifiers, and an operand's kind. Pure numpy."""

from __future__ import annotations

import numpy as np

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


CYCLES_PER_STEP = 4  # %clock64 advances this much per instruction the machine runs (an issue every few cycles)
CLOCK_GHZ = 2  # %globaltimer (ns) from the cycles: a 2 GHz clock
TIMER_START_NS = 1_000_000_000
SMS = 132  # %nsmid: an H100's SMs; %smid is the block's number modulo it
TIMERS = ("clock", "clock64", "globaltimer", "globaltimer_lo", "globaltimer_hi")
OTHER_SPECIAL = ("smid", "nsmid", "gridid", "nwarpid", "lanemask_eq", "lanemask_lt", "lanemask_le", "lanemask_gt",
                 "lanemask_ge", "dynamic_smem_size", "total_smem_size")  # fmt: skip
_OPERANDS: dict[str, tuple] = {}  # an operand as written -> (what, name, negated): how get() reads it


def _operand(arg: str) -> tuple:
    """How get() reads an operand: ("reg", name, negated), ("special", (attribute, axis), False), ("lane" or
    "warp", None, False), or ("imm", text, False) for an immediate or a symbol."""
    neg = arg.startswith("!")
    if neg:
        arg = arg[1:]
    kind: tuple = ("imm", arg, False)
    if arg.startswith("%"):
        base, _, axis = arg.partition(".")
        if base[1:] in SPECIAL and axis in "xyz" and axis:
            kind = ("special", (base[1:], "xyz".index(axis)), False)
        elif base == "%laneid":
            kind = ("lane", None, False)
        elif base == "%warpid":
            kind = ("warp", None, False)
        elif base[1:] in TIMERS or base[1:] in OTHER_SPECIAL:
            kind = ("clock" if base[1:] in TIMERS else "other", base[1:], False)
        else:
            kind = ("reg", arg, neg)
    _OPERANDS["!" + arg if neg else arg] = kind
    return kind
