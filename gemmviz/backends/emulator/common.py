"""What the emulator's modules share: the fake address map, PTX types as numpy types, the thread states,
and reading an instruction's type and vector width from its modifiers. Pure numpy."""

from __future__ import annotations

import numpy as np

CHUNK_THREADS = 16384
CHUNK_BYTES = 192 << 20  # shared and local memory of the blocks run together (machine._block_bytes)
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
