"""The chart kinds every part of gemmviz offers (app tabs, export dialog, `gemmviz export`): one list."""

from __future__ import annotations

# kind -> what it shows, in the words the export dialog and `gemmviz export --help` use
CHART_KINDS: dict[str, str] = {
    "time": "median time vs size (log-log)",
    "gflops": "GFLOP/s vs size (log-log)",
    "speedup": "speedup bars vs a baseline at one size",
    "roofline": "GFLOP/s vs arithmetic intensity under the GPU's ceilings",
    "dashboard": "time, GFLOP/s, speedup and roofline on one 2x2 page",
}
