"""Stall reasons and L2 hit rate per option from one `ncu --csv --page raw` run of `fp32_round3.py --once` (issue 48,
technique 5: does a partial barrier cut the barrier stalls?).

    python3 benchmarks/fp32_stalls.py NCU_CSV [OPTIONS]

OPTIONS: the fp32_round3 option names in the order they ran (default s0-128x256,pbar,fdb2,pbar-fdb2). Under
`--once` each option launches gemm_cpasync_any three times (the check, one timed launch, the check after), so the
kernel's rows are taken three at a time in that order; every other GEMM (cuBLAS) is one group. Each stall column
is ncu's smsp__average_warps_issue_stalled_REASON_per_issue_active.ratio (warps stalled for that reason per issued
instruction: the shares of "warp cycles per issued instruction"), the mean over the group's launches.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from gemmviz.core.hardware.counters import parse_ncu_csv

REASONS = (
    "barrier",
    "long_scoreboard",
    "short_scoreboard",
    "mio_throttle",
    "math_pipe_throttle",
    "wait",
    "not_selected",
    "selected",
    "dispatch_stall",
    "no_instruction",
)
OTHER = {
    "L2 hit %": "lts__t_sector_hit_rate.pct",
    "issue active %": "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "barrier % of warps": "smsp__warp_issue_stalled_barrier_per_warp_active.pct",
    "cycles/issue": "smsp__average_warp_latency_per_inst_issued.ratio",
    "time us": "gpu__time_duration.sum",
}


def stall(reason: str) -> str:
    return f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"


def groups(rows: list[dict], names: list[str]) -> list[tuple[str, list[dict]]]:
    ours = [r for r in rows if "gemm_cpasync_any" in r["kernel"]]
    others = [r for r in rows if "gemm_cpasync_any" not in r["kernel"]]
    out = [("cublas", others)] if others else []
    per = len(ours) // max(1, len(names))
    if per * len(names) != len(ours):
        print(f"note: {len(ours)} gemm_cpasync_any launches for {len(names)} options: grouped {per} at a time")
    for i, name in enumerate(names):
        out.append((name, ours[i * per : (i + 1) * per]))
    return out


def mean(group: list[dict], metric: str) -> float | None:
    values = [r["counters"].get(metric) for r in group]
    values = [v for v in values if v is not None]
    return statistics.fmean(values) if values else None


def main() -> int:
    text = Path(sys.argv[1]).read_text()
    names = (sys.argv[2] if len(sys.argv) > 2 else "s0-128x256,pbar,fdb2,pbar-fdb2").split(",")
    rows = parse_ncu_csv(text, metrics=None)
    cols = {**OTHER, **{r: stall(r) for r in REASONS}}
    print("option | launches | " + " | ".join(cols))
    for name, group in groups(rows, names):
        cells = []
        for metric in cols.values():
            v = mean(group, metric)
            cells.append("-" if v is None else f"{v / 1e3:.1f}" if metric == "gpu__time_duration.sum" else f"{v:.3g}")
        regs = {r["counters"].get("launch__registers_per_thread") for r in group}
        print(f"{name} | {len(group)} | " + " | ".join(cells) + f"  (registers {sorted(x for x in regs if x)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
