"""The ladder table for docs/benchmarks.md: per variant (its fastest params) and size, GFLOP/s, % of cuBLAS
FP32, % of the FP32 peak and the relative error, from one session file.

    python3 benchmarks/ladder_table.py SESSION.json [sizes, default 1024,2048,4096,8192]
"""

import sys

from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.session.results import Session, find_baseline


def main(path: str, sizes: list[int]) -> None:
    s = Session.load(path)
    peak = s.environment["backends"]["cuda"]["fp32_peak_gflops"]
    order = [v for v in VARIANTS if v not in ("cpu-naive", "cpu-blas")]
    head = " | ".join(f"{n}³ GFLOP/s (% cuBLAS, % peak)" for n in sizes)
    print(f"| variant | {head} | rel. error at {sizes[-1]}³ |")
    print("|---|" + "---:|" * len(sizes) + "---:|")
    for name in order:
        cells, err = [], "—"
        for n in sizes:
            rs = [r for r in s.results if r.variant == name and r.valid and (r.m, r.n, r.k) == (n, n, n)]
            if not rs:
                cells.append("—")
                continue
            best = min(rs, key=lambda r: r.median_ms)
            base = find_baseline(s.results, best, "cublas")
            pct = 100 * base.median_ms / best.median_ms if base else float("nan")
            label = f"{best.gflops:,.0f} ({pct:.0f}%, {100 * best.gflops / peak:.0f}%)"
            if best.params:
                label += " " + ",".join(f"{k} {v}" for k, v in best.params.items())
            cells.append(label)
            err = f"{best.rel_error:.1e}"
        print(f"| {name} | " + " | ".join(cells) + f" | {err} |")


if __name__ == "__main__":
    main(sys.argv[1], [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "1024,2048,4096,8192").split(",")])
