"""The gap view for an exercise check: where the time between the student's kernel and the
exercise's reference goes, from the Nsight Compute counters the check recorded for both (one launch each at the
profile shape, backends/exercise.py's profile_step). The same decomposition as the Hardware tab's
(core/hardware/gap.py): measured counters, parts that sum to the measured gap, "not attributed" shown.

A check recorded without the gap metrics (before 2026-12-02, or where ncu did not run) has no gap; `check_gap`
then says why in the reader's language."""

from __future__ import annotations

import math
from pathlib import PurePath

from gemmviz.core.hardware.gap import CYCLES, DURATION, INSTRUCTIONS, IPC, Gap, GapError, Kernel, decompose
from gemmviz.core.messages import Message, define, msg

NEEDED = (DURATION, CYCLES, INSTRUCTIONS, IPC)  # without these the waterfall has no parts, only the whole gap

NO_COUNTERS = define(
    "exercise.gap.no_counters",
    en="no gap view: the check has no Nsight Compute counters of both kernels ({why})",
    zh="没有差距视图：此检查没有两个核函数的 Nsight Compute 计数器（{why}）",
)
OLD_RECORD = define(
    "exercise.gap.old_record",
    en="no gap view: this check's counters lack the gap metrics ({names}), recorded by an older gemmviz or not "
    "counted by this GPU's ncu; check again on a GPU",
    zh="没有差距视图：此检查的计数器缺少差距指标（{names}），可能由较旧的 gemmviz 录制，或此 GPU 的 ncu 无法计数；"
    "请在 GPU 上重新检查",
)
UNUSABLE = define("exercise.gap.unusable", en="no gap view: {why}", zh="没有差距视图：{why}")


def _numbers(counters: dict) -> dict[str, float]:
    out = {}
    for name, v in counters.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0:
            out[name] = float(v)
    return out


def yours_label(record: dict) -> str:
    """The student's kernel as the waterfall names it: its file's name (tiled.cu), else "yours"."""
    name = PurePath(str(record.get("file") or "")).name
    return name or "yours"


def check_gap(record: dict) -> tuple[Gap | None, Message | None]:
    """(the gap between the student's kernel and the reference, None), or (None, why there is none)."""
    counters = record.get("counters") or {}
    mine, theirs = counters.get("yours"), counters.get("reference")
    if not isinstance(mine, dict) or not isinstance(theirs, dict) or not mine or not theirs:
        return None, msg(NO_COUNTERS, why=str(counters.get("note") or "ncu did not run"))
    a_metrics, b_metrics = _numbers(mine), _numbers(theirs)
    lacking = [n for n in NEEDED if n not in a_metrics or n not in b_metrics]
    if lacking:
        return None, msg(OLD_RECORD, names=", ".join(lacking))
    shape = counters.get("shape") or []
    if len(shape) != 3 or not all(isinstance(x, int) and x > 0 for x in shape):
        return None, msg(UNUSABLE, why="the counters' shape is not M, N, K")
    m, n, k = shape
    reference = str(record.get("reference") or "reference")
    a = Kernel(yours_label(record), {}, m, n, k, None, a_metrics)
    b = Kernel(reference, {}, m, n, k, None, b_metrics)
    gpu = str((record.get("environment") or {}).get("gpu") or "")
    try:
        return decompose(a, b, gpu), None
    except (GapError, ValueError, ZeroDivisionError) as exc:
        return None, msg(UNUSABLE, why=str(exc))
