"""The figures an exercise's access goals may name: each a ratio of two totals of an access
trace's per-block summary (core/hardware/accesses.SUMMARY_KEYS), and the check of an exercise file's `access_goals`.
core/exercise/access_goals.py judges a check record against them. Pure Python: no Qt."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    top: str  # summary key (core/hardware/accesses.SUMMARY_KEYS) summed over the traced blocks
    bottom: str
    en: str  # the figure's name in a sentence
    zh: str


# the figures an exercise's `access_goals` may name, each "at most" a number
FIGURES = {
    "global_ld_sectors_per_request": Figure(
        "global_ld_sectors", "global_ld_requests", "sectors per global load request", "每个全局加载请求的扇区数"
    ),
    "global_st_sectors_per_request": Figure(
        "global_st_sectors", "global_st_requests", "sectors per global store request", "每个全局写入请求的扇区数"
    ),
    "shared_ld_wavefronts_per_request": Figure(
        "shared_ld_wavefronts",
        "shared_ld_requests",
        "wavefronts per shared load request",
        "每个共享内存加载请求的波前数",
    ),
    "shared_st_wavefronts_per_request": Figure(
        "shared_st_wavefronts",
        "shared_st_requests",
        "wavefronts per shared store request",
        "每个共享内存写入请求的波前数",
    ),
}
MAX_LIMIT = 64.0  # a request of 32 lanes touches at most 32 sectors, or 32 wavefronts (64 for 16-byte lanes)


def figures_of(trace) -> dict[str, float | None]:
    """Every figure of FIGURES from a trace (core/hardware/accesses.AccessTrace), over all its traced blocks; None where
    the kernel made no request of that kind."""
    totals: dict[str, int] = {}
    for block in trace.summary:
        for key, value in block.items():
            totals[key] = totals.get(key, 0) + int(value)
    out: dict[str, float | None] = {}
    for name, f in FIGURES.items():
        bottom = totals.get(f.bottom, 0)
        out[name] = totals.get(f.top, 0) / bottom if bottom else None
    return out


def check_goals(value: object, where: str) -> dict[str, float]:
    """An exercise file's `access_goals` table, checked: ValueError naming the field otherwise."""
    if value is None:
        return {}
    if not isinstance(value, dict) or not value:
        raise ValueError(f"{where}: 'access_goals' must be a table of figures, each at most a number")
    out = {}
    for name, limit in value.items():
        if name not in FIGURES:
            raise ValueError(f"{where}: 'access_goals.{name}' is no figure; the figures are {', '.join(FIGURES)}")
        if type(limit) not in (int, float) or not 1.0 <= limit <= MAX_LIMIT:
            raise ValueError(f"{where}: 'access_goals.{name}' must be a number from 1 to {MAX_LIMIT:g}")
        out[name] = float(limit)
    return out
