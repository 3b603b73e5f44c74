"""Which two kernels of a gap file the gap is between: the pair the view opens on (the fastest hand-written
FP32 kernel against the FP32 library kernel of its size) and the pair `--pair A,B` names. No Qt."""

from __future__ import annotations

import math
from collections.abc import Sequence

from gemmviz.core.hardware.gap_file import DURATION, GapFile, Kernel
from gemmviz.core.hardware.gap_parts import GapError


def precision_of(k: Kernel) -> str:
    """ "fp32" or "tf32": the registry's precision where it knows the variant, else the name's."""
    from gemmviz.core.kernels.variants import VARIANTS

    v = VARIANTS.get(k.variant)
    if v is not None:
        return v.precision
    return "tf32" if "tf32" in k.variant else "fp32"


def is_library(k: Kernel) -> bool:
    from gemmviz.core.kernels.variants import VARIANTS

    v = VARIANTS.get(k.variant)
    return v.library if v is not None else k.variant.startswith("cublas")


def default_pair(f: GapFile) -> tuple[str, str] | None:
    """(the fastest hand-written FP32 kernel, the FP32 library kernel of the same size), at the largest size
    that has both: the gap the view opens on; else the two fastest kernels of the size with most kernels; None
    where no size has two. Names as `GapFile.name_of` gives them."""

    def time(k: Kernel) -> float:
        return k.get(DURATION) or (k.median_ms or math.inf) * 1e6

    for size in reversed(f.sizes()):
        here = [k for k in f.kernels if k.size == size]
        refs = [k for k in here if is_library(k) and precision_of(k) == "fp32"]
        rungs = [k for k in here if not is_library(k) and precision_of(k) == "fp32"]
        if refs and rungs:
            return f.name_of(min(rungs, key=time)), f.name_of(refs[0])
    by_size = [[k for k in f.kernels if k.size == size] for size in reversed(f.sizes())]
    most = max(by_size, key=len, default=[])
    if len(most) < 2:
        return None
    first, second = sorted(most, key=time)[:2]
    return f.name_of(second), f.name_of(first)


def pair_of(f: GapFile, text: str | None) -> tuple[Kernel, Kernel]:
    """The two kernels `text` ("A,B", names as `GapFile.name_of` gives them) names, or the default pair; GapError
    in one line naming the kernels the file has."""
    if text is None or not text.strip():
        pair = default_pair(f)
        if pair is None:
            raise GapError("the gap file has no two kernels of one size to compare")
        names: Sequence[str] = pair
    else:
        names = [x.strip() for x in text.split(",")]
        if len(names) != 2 or not all(names):
            raise GapError(f"--pair {text!r}: give two kernels, A,B (A explained against B)")
    try:
        a, b = f.kernel(names[0]), f.kernel(names[1])
    except KeyError as exc:
        raise GapError(f"{exc.args[0]} is not among the recorded kernels: {', '.join(f.names())}") from None
    if a is b:
        raise GapError(f"--pair names {f.name_of(a)} twice: pick two different kernels")
    return a, b
