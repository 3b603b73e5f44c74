"""Render a session file as a Markdown table (used for docs/benchmarks.md).

python3 benchmarks/session_table.py SESSION.json
"""

import sys

from gemmviz.core.session.results import Session, results_rows


def fmt(v, spec):
    return "—" if v is None else format(v, spec)


def main(path: str) -> None:
    session = Session.load(path)
    gpu = session.environment.get("backends", {}).get("cuda", {})
    peak = gpu.get("fp32_peak_gflops")
    print(
        "| variant | params | size | median ms | min–max ms | GFLOP/s | × naive | % cuBLAS FP32 | % FP32 peak | rel. error |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r, row in zip(session.results, results_rows(session.results)):
        if not r.valid:
            print(f"| {r.variant} | {row['params']} | {r.problem.label} | {r.status}: {r.error} | | | | | | |")
            continue
        pct_peak = 100 * r.gflops / peak if peak else None
        print(
            f"| {r.variant} | {row['params'] or '-'} | {r.problem.label} | {r.median_ms:.4g} | "
            f"{r.min_ms:.4g}–{r.max_ms:.4g} | {r.gflops:,.0f} | {fmt(row['speedup_vs_naive'], '.2f')} | "
            f"{fmt(row['pct_of_cublas'], '.1f')} | {fmt(pct_peak, '.1f')} | {r.rel_error:.1e} |"
        )


if __name__ == "__main__":
    main(sys.argv[1])
