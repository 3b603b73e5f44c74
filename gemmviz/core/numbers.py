"""How numbers read in tables, tooltips and the CLI: rates with at least three significant digits (the CPU loop's
0.452 GFLOP/s, never "0"), noise as a percentage, and the error map of an invalid result as text."""

from __future__ import annotations

import math


def rate(x: float | None, empty: str = "—") -> str:
    """A rate (GFLOP/s, GB/s) with at least three significant digits: 0.452, 4.52, 45.2, 452, 4,520."""
    if x is None or not math.isfinite(x):
        return empty
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    if abs(x) >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def percent(x: float | None, empty: str = "—") -> str:
    """A fraction as a percentage: 0.0042 -> '0.42%', 0.12 -> '12%'."""
    if x is None or not math.isfinite(x):
        return empty
    p = 100 * x
    return f"{p:.2g}%" if p < 10 else f"{p:.0f}%"


def error_map_text(error_map: dict | None) -> str:
    """The map of wrong regions of C as rows of text: '█' where a region holds wrong elements, '·' where not."""
    if not error_map:
        return ""
    ch, cw = error_map["cell"]
    rows = ["".join("█" if x else "·" for x in row) for row in error_map["wrong"]]
    return f"regions of C ({ch}×{cw} elements each; █ = wrong elements):\n" + "\n".join(rows)
