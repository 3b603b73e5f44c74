"""Writes tests/data/gap-synthetic.json and tests/data/pipeline-synthetic.json: SYNTHETIC files in the schemas of
the recorded gap metrics and pipeline trace (issue 34), made up to exercise the loaders, the decomposition and the
views. Not measurements: every test and the files' own `command` say so; the figures are only roughly the
shape of an H200's.

    python tests/data/make_gap_fixtures.py
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from gemmviz.core.hardware import gap
from gemmviz.core.hardware.gap import STALL_REASONS, stall_metric

HERE = Path(__file__).parent
SMS, SMSPS = 132, 132 * 4
N = 4096
COMMAND = "synthetic test fixture (tests/data/make_gap_fixtures.py): not a measurement"


def fp32_kernel(variant, params, ms, ghz, per_fma, idle, warps_pct, grid, limits, stalls, residual=1.0):
    """A kernel whose counters obey the identities the decomposition uses, except `residual` on the stalls."""
    cycles = ms * 1e6 * ghz
    ffma = float(N**3)
    inst = per_fma * ffma / 32
    active = cycles * (1 - idle)
    ipc = inst / SMS / active
    w = warps_pct / 100 * 16
    total = active * w / (inst / SMSPS) * residual  # sum of the stall ratios that closes I * S / W = active
    named = sum(stalls.values())
    if named > 0.9 * (total - 1.0):  # keep the named stalls inside the total: misc takes the rest
        stalls = {r: v * 0.9 * (total - 1.0) / named for r, v in stalls.items()}
        named = sum(stalls.values())
    ratios = {r: stalls.get(r, 0.0) for r in STALL_REASONS}
    ratios["selected"] = 1.0
    ratios["misc"] = max(0.0, total - named - 1.0)
    metrics = {
        "sm__cycles_elapsed.avg": cycles,
        "gpu__time_duration.sum": ms * 1e6,
        "smsp__issue_active.avg.pct_of_peak_sustained_active": 100 * ipc / 4,
        "sm__inst_executed.avg.per_cycle_active": ipc,
        "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active": 100 * ipc / 4 / per_fma,
        "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active": 0.0,
        "smsp__inst_executed.sum": inst,
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum": ffma,
        "lts__t_sector_hit_rate.pct": 88.0,
        "dram__throughput.avg.pct_of_peak_sustained_elapsed": 9.5,
        "lts__throughput.avg.pct_of_peak_sustained_elapsed": 31.0,
        "launch__grid_size": grid,
        "launch__block_size": 256,
        "launch__waves_per_multiprocessor": grid / (min(limits) * SMS),
        "launch__occupancy_limit_registers": limits[0],
        "launch__occupancy_limit_shared_mem": limits[1],
        "sm__warps_active.avg.pct_of_peak_sustained_active": warps_pct,
        **{stall_metric(r): v for r, v in ratios.items()},
    }
    return {
        "variant": variant,
        "params": params,
        "m": N,
        "n": N,
        "k": N,
        "median_ms": round(ms * 1.01, 4),
        "metrics": metrics,
    }


def gap_file() -> dict:
    cublas = fp32_kernel(
        "cublas",
        {},
        2.70,
        1.98,
        1.10,
        0.02,
        12.5,
        1024,
        (1, 2),
        {
            "math_pipe_throttle": 0.45,
            "not_selected": 0.3,
            "wait": 0.25,
            "long_scoreboard": 0.05,
            "barrier": 0.05,
            "short_scoreboard": 0.05,
        },
    )
    cpasync = fp32_kernel(
        "gpu-cpasync",
        {},
        2.83,
        1.97,
        1.18,
        0.05,
        12.5,
        1024,
        (1, 1),
        {
            "math_pipe_throttle": 0.35,
            "not_selected": 0.25,
            "wait": 0.3,
            "long_scoreboard": 0.2,
            "barrier": 0.12,
            "short_scoreboard": 0.1,
            "mio_throttle": 0.04,
        },
        residual=0.99,
    )
    tiled = fp32_kernel(
        "gpu-tiled",
        {"tile": 16},
        9.8,
        1.98,
        1.9,
        0.01,
        100.0,
        65536,
        (8, 9),
        {"long_scoreboard": 1.5, "mio_throttle": 2.0, "barrier": 1.0},
    )
    for r in STALL_REASONS:  # a kernel recorded without the stall breakdown: the view says what is missing
        del tiled["metrics"][stall_metric(r)]
    tensor = {}
    for variant, ms in (("gpu-wgmma-tf32", 0.84), ("cublas-tf32", 0.82)):
        per_fma = 4.0e8 * 32 / N**3  # about 0.19 instructions per FMA: wgmma does the FMAs, not FFMA
        k = fp32_kernel(
            variant,
            {},
            ms,
            1.98,
            per_fma,
            0.03,
            12.5,
            128 if "gpu" in variant else 512,
            (1, 1),
            {"sleeping": 0.6, "wait": 0.2},
            residual=1.02 if "gpu" in variant else 1.0,
        )
        k["metrics"]["sm__sass_thread_inst_executed_op_ffma_pred_on.sum"] = 1.0e6
        k["metrics"]["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"] = 0.5
        k["metrics"]["sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"] = 80.0 * 0.82 / ms
        tensor[variant] = k
    return {
        "schema": "gemmviz-gap-metrics",
        "schema_version": 1,
        "gpu": "NVIDIA H200",
        "created": "2026-12-02T00:00:00Z",
        "command": COMMAND,
        "kernels": [cublas, cpasync, tiled, *tensor.values()],
    }


def _sized(doc: dict, m: int, n: int, k: int, scale: float) -> list[dict]:
    out = []
    for kernel in copy.deepcopy(doc["kernels"]):
        kernel.update(m=m, n=n, k=k)
        if kernel["median_ms"]:
            kernel["median_ms"] *= scale
        for name in (gap.DURATION, gap.CYCLES, gap.INSTRUCTIONS, gap.FFMA):
            if name in kernel["metrics"]:
                kernel["metrics"][name] *= scale
        out.append(kernel)
    return out


def several_sizes() -> dict:
    """The synthetic file at 4096³, again at 2048³ and 1000³ (times scaled by the flops), and cuBLAS alone at
    8192³: what `gemmviz profile --gap` at several sizes writes."""
    doc = gap_file()
    doc["kernels"] = (
        _sized(doc, 1000, 1000, 1000, (1000 / 4096) ** 3)
        + _sized(doc, 2048, 2048, 2048, 1 / 8)
        + doc["kernels"]
        + [k for k in _sized(doc, 8192, 8192, 8192, 8) if k["variant"] == "cublas"]
    )
    return doc


def pipeline_file() -> dict:
    """One producer (warpgroup 0) feeding two consumers through 4 stages, 16 k-steps, a slow copy at step 9."""
    events = []
    stages, load, mma = 4, 600, 400
    free = [0.0] * stages  # when the consumers last released each stage
    landed = {}
    t = 100.0
    for k in range(16):
        st = k % stages
        if free[st] > t:
            events.append(dict(warpgroup=0, role="producer", kind="wait", stage=st, k_iter=k, start=t, end=free[st]))
            t = free[st]
        copy = load * (3 if k == 9 else 1)
        events.append(dict(warpgroup=0, role="producer", kind="tma", stage=st, k_iter=k, start=t, end=t + copy))
        landed[k] = t + copy
        t += 40  # the next copy is issued 40 cycles later, if its stage is free
        consumers_done = []
        for wg in (1, 2):
            prev = max([e["end"] for e in events if e["warpgroup"] == wg] or [0.0])
            if landed[k] > prev:
                events.append(
                    dict(warpgroup=wg, role="consumer", kind="wait", stage=st, k_iter=k, start=prev, end=landed[k])
                )
                prev = landed[k]
            events.append(
                dict(warpgroup=wg, role="consumer", kind="wgmma", stage=st, k_iter=k, start=prev, end=prev + mma)
            )
            consumers_done.append(prev + mma)
        free[st] = max(consumers_done)
    return {
        "schema": "gemmviz-pipeline-trace",
        "schema_version": 1,
        "gpu": "NVIDIA H200",
        "created": "2026-12-02T00:00:00Z",
        "command": COMMAND,
        "variant": "gpu-wgmma-tf32",
        "params": {},
        "m": N,
        "n": N,
        "k": N,
        "sm": 0,
        "clock": "clock64",
        "events": events,
    }


if __name__ == "__main__":
    (HERE / "gap-synthetic.json").write_text(json.dumps(gap_file(), indent=1) + "\n", encoding="utf-8")
    (HERE / "pipeline-synthetic.json").write_text(json.dumps(pipeline_file(), indent=1) + "\n", encoding="utf-8")
