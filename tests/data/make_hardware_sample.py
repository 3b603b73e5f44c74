"""Build tests/data/h200-counters-sample.json, a TEST FIXTURE (not a recording): the recorded H200 session's
gpu-naive (block 16) and gpu-tiled (tile 16) results at 1024³ with the counters of the real ncu CSV
(ncu-tiled-naive-1024.csv), and gpu-tiled (tile 16, tile 32) results at 1000³ carrying the real block traces
of trace-h200-1000.npz, their time taken from the trace's span (they were not event-timed).

Run from the repository root: python tests/data/make_hardware_sample.py
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np

from gemmviz.core.hardware.counters import decode_trace, parse_ncu_csv
from gemmviz.core.session.results import Result, Session

DATA = Path(__file__).parent
RECORDED = DATA.parent.parent / "assets" / "sessions" / "h200-2026-12-01.json"
NOTE = "test fixture: not a recording"


def build() -> Session:
    recorded = Session.load(RECORDED)
    counters = {
        row["kernel"]: row["counters"] for row in parse_ncu_csv((DATA / "ncu-tiled-naive-1024.csv").read_text())
    }
    results = []
    for variant, params, kernel in (
        ("gpu-naive", {"block": 16}, "gemm_naive"),
        ("gpu-tiled", {"tile": 16}, "gemm_tiled"),
    ):
        r = next(r for r in recorded.results if r.variant == variant and r.params == params and r.m == 1024)
        r = copy.deepcopy(r)
        r.counters = counters[kernel]
        r.note = f"{NOTE}; counters from tests/data/ncu-tiled-naive-1024.csv"
        results.append(r)
    traces = np.load(DATA / "trace-h200-1000.npz")
    for key, tile in (("tiled16_1000", 16), ("tiled32_1000", 32)):
        trace = decode_trace(traces[key])
        span_ms = max(end for *_, end in trace) / 1e6
        results.append(
            Result(
                "gpu-tiled",
                {"tile": tile},
                1000,
                1000,
                1000,
                "cuda",
                "fp32",
                True,
                samples_ms=[span_ms],
                block_trace=trace,
                note=f"{NOTE}; block trace from tests/data/trace-h200-1000.npz, time = its span",
            )
        )
    return Session(
        results=results,
        environment=recorded.environment,
        settings={"command": NOTE},
        created=recorded.created,
        kind="measured",
        label="H200 counters sample (test fixture)",
    )


if __name__ == "__main__":
    # compact: the traces are thousands of short lists
    (DATA / "h200-counters-sample.json").write_text(json.dumps(build().to_dict(), separators=(",", ":")))
