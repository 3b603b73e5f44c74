"""Does the app's kernel-only median agree with Nsight Compute's gpu__time_duration at the same clocks and cache
state? `gemmviz profile` times each job (events behind a blocking kernel), then replays its timed launch under
ncu (--clock-control none --cache-control none); this prints both per job and writes them as JSON.

    python3 benchmarks/timing_vs_ncu.py [--sizes 256,1024,4096] [--out DIR]

The goal (issue 19): |median - ncu| <= 5% of ncu + 1 us for every job. tests/test_gpu.py runs the same check.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

VARIANTS = "gpu-naive,gpu-tiled,gpu-warptile,gpu-wgmma-tf32,cublas,cublas-tf32"
TOLERANCE = (0.05, 1e-3)  # relative, absolute in ms


def within(median_ms: float, ncu_ms: float) -> bool:
    return abs(median_ms - ncu_ms) <= TOLERANCE[0] * ncu_ms + TOLERANCE[1]


def compare(sizes: str = "256,1024,4096", variants: str = VARIANTS, folder: Path | None = None) -> list[dict]:
    from gemmviz.cli.main import main
    from gemmviz.core.session.results import Session

    folder = folder or Path(tempfile.mkdtemp(prefix="gemmviz-ncu-"))
    out = folder / "timing_vs_ncu_session.json"
    code = main(
        [
            "profile",
            "--variants",
            variants,
            "--sizes",
            sizes,
            "--tile",
            "16",
            "--block",
            "16",
            "--seed",
            "0",
            "--quiet",
            "--out",
            str(out),
        ]
    )
    rows = []
    for r in Session.load(out).results:
        c = r.counters or {}
        ncu_ns = c.get("gemmviz__call_time_duration.sum", c.get("gpu__time_duration.sum"))  # all of a call's kernels
        rows.append(
            {
                "series": r.series,
                "size": r.problem.label,
                "status": r.status,
                "timing": r.timing,
                "median_ms": r.median_ms,
                "ncu_ms": None if ncu_ns is None else ncu_ns / 1e6,
                "noise": r.noise,
                "samples": len(r.samples_ms),
                "batch": r.launches_per_sample,
                "dropped": len(r.dropped_ms),
                "clock_mhz": r.clock_mhz,
                "nvml_mhz": r.sm_clock_mhz_before,
                "host_ms": sorted(r.host_ms)[len(r.host_ms) // 2] if r.host_ms else None,
                "ok": ncu_ns is not None and r.median_ms is not None and within(r.median_ms, ncu_ns / 1e6),
            }
        )
    (folder / "timing_vs_ncu.json").write_text(json.dumps({"exit": code, "rows": rows}, indent=1))
    return rows


def table(rows: list[dict]) -> str:
    lines = [
        f"{'series':28} {'size':>10} {'median us':>10} {'ncu us':>9} {'diff':>7} {'noise':>6} {'n':>4} "
        f"{'drop':>4} {'batch':>5} {'clk':>5} {'nvml':>5} {'host us':>8}  ok"
    ]
    for x in rows:
        med, ncu = x["median_ms"], x["ncu_ms"]
        diff = f"{100 * (med - ncu) / ncu:+.1f}%" if med and ncu else "—"
        lines.append(
            f"{x['series']:28} {x['size']:>10} {med * 1e3 if med else 0:10.2f} {ncu * 1e3 if ncu else 0:9.2f} "
            f"{diff:>7} {100 * (x['noise'] or 0):5.2f}% {x['samples']:4d} {x['dropped']:4d} {x['batch']:5d} "
            f"{x['clock_mhz'] or 0:5.0f} {x['nvml_mhz'] or 0:5.0f} {(x['host_ms'] or 0) * 1e3:8.1f}  "
            f"{'yes' if x['ok'] else 'NO'}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="256,1024,4096")
    ap.add_argument("--variants", default=VARIANTS)
    ap.add_argument("--out", default=os.environ.get("OUT"))
    a = ap.parse_args()
    result = compare(a.sizes, a.variants, Path(a.out) if a.out else None)
    print(table(result))
    sys.exit(0 if all(x["ok"] for x in result) else 1)
