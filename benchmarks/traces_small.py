"""Block traces of gpu-cpasync-any at a small size in the builds of the small-size fix (issue 48, technique 3),
written as a session the app opens: the Hardware tab's "Last wave: before / after" draws them in place of the
model's traces (ui/hardware/last_wave.py matches each by its tiles, schedule and block count).

    source .device/env.sh && python3 benchmarks/traces_small.py [--size 1024] [--out DIR]
    (or the recorder's recipe: python3 benchmarks/recorder.py traces-small)

The builds (core/hardware/model_trace.small_size_fix, from the registry's rules, plus the one shipped before it):
  tiles     the default 128×128 tiles, one block per tile (64 blocks at 1024³: part of one wave)
  split     the registry's fit (cpasync_model.any_fit): 64×64 tiles, K split as any_splits picks
  stream-k  Stream-K (SCHED=1) on the fit's tiles: SMs × blocks per SM blocks, an even share of K-slices each
  shipped   128×128 tiles with the split-K any_splits picks for them (what ran at 1024³ before the fit)
Each runs through the engine (CudaRun.run: verified element-wise before and after its timed launches, kernel-only
timing) with the block trace on (one untimed launch of the instrumented build, kernels/trace.cuh). Writes
$OUT/GPU-DATE-traces-small-SIZE.json.gz (h100-2026-12-07-traces-small-1024.json.gz): a session that File ▸ Open
reads, and that the app draws by itself once copied into assets/sessions/ (a companion: listed under the recorded
sessions, never the one replayed at start). Under a minute on an H100.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import gzip
import json
import os
import re
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from gemmviz.backends import default_backends
from gemmviz.backends.cuda import CudaRun
from gemmviz.backends.kernel_cache import compile_cubin
from gemmviz.core.fileio import write_atomic
from gemmviz.core.hardware.last_wave import last_wave
from gemmviz.core.hardware.model_trace import TRACES_SMALL, VARIANT, FixCase, any_launch, small_size_fix
from gemmviz.core.kernels import cpasync_model as cm
from gemmviz.core.kernels.model import ceil_div
from gemmviz.core.kernels.variants import VARIANTS, Variant
from gemmviz.core.measure.bench import BenchSettings, Inputs, JobGuard, make_session, plan_jobs
from gemmviz.core.problem import Problem
from gemmviz.core.session.results import Session


def cases(p: Problem) -> list[FixCase]:
    """The fix's three builds and the one shipped before it."""
    shipped = dict(cm.ANY_CONFIG)
    return [*small_size_fix(p), FixCase("shipped", shipped, any_launch(p, shipped, cm.SPLIT_K_SMS))]


def one_block_per_tile(p: Problem, _params, c) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The kernel's grid with no split of K (grid.y = M/BM: the kernel reads one slice)."""
    return (ceil_div(p.n, c["BN"]), ceil_div(p.m, c["BM"]), 1), (cm.threads(c), 1, 1)


def variant_for(case: FixCase, p: Problem) -> Variant:
    """The registry's entry, or a copy launching one block per tile where the case splits no K but the
    registry's split-K rule would."""
    v = VARIANTS[VARIANT]
    if not case.launch.stream_k and case.launch.split == 1 and cm.any_splits(p, case.config) > 1:
        return dataclasses.replace(v, geometry=one_block_per_tile)
    return v


def write_session(session: Session, folder: Path, gpu: str, size: int) -> Path:
    """The session as FOLDER/GPU-DATE-traces-small-SIZE.json.gz (GPU: "h100" of "NVIDIA H100 80GB HBM3"), checked
    by the loader first, as Session.save does."""
    model = re.search(r"\b([A-Z]+\d+[A-Z]*)\b", gpu.removeprefix("NVIDIA "))
    tag = model.group(1).lower() if model else re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-") or "gpu"
    day = (session.created or _dt.datetime.now(_dt.UTC).isoformat())[:10]
    d = session.to_dict()
    Session.from_dict(json.loads(json.dumps(d)))  # gemmviz never writes a session it would refuse
    path = folder / (f"{tag}-{day}" + TRACES_SMALL.format(size=size))
    write_atomic(path, gzip.compress(json.dumps(d, allow_nan=False).encode(), mtime=0))
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=1024, help="M = N = K (default 1024)")
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/traces_small"))
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    p = Problem(a.size, a.size, a.size)
    settings = BenchSettings(warmup=3, repeats=20, seed=0, trace=True, max_time_s=0.3)
    guard = JobGuard(threading.Event(), 120)
    backends = default_backends()
    results = []
    with CudaRun() as run:
        sms = run.device.get_attribute(run.cuda.device_attribute.MULTIPROCESSOR_COUNT)
        gpu = run.device.name()
        t0 = time.monotonic()
        todo = [(variant_for(c, p), c.config, traced) for c in cases(p) for traced in (False, True)]
        with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2)) as pool:  # every build at once
            list(pool.map(lambda t: compile_cubin(t[0], {}, t[1], run.arch, run.device.name(), (), t[2]), todo))
        print(f"{run.device.name()}, {sms} SMs: compiled {len(todo)} builds in {time.monotonic() - t0:.0f} s")
        inputs = Inputs.random(p, np.random.default_rng(48))
        (job,) = plan_jobs([VARIANT], [p])
        for case in cases(p):
            run.config_override[VARIANT] = dict(case.config)
            r = run.run(job, variant_for(case, p), inputs, settings, guard)
            r.note = f"traces-small {case.name}: {r.note or ''}".strip()
            line = f"{case.name:9} {case.tile} {r.status}"
            if r.block_trace:
                lw = last_wave(r.block_trace, sms, case.launch.blocks_per_sm)
                line += (
                    f" {len(r.block_trace)} blocks (model {case.launch.grid}), {r.median_ms * 1e3:.1f} µs, "
                    f"last wave {lw.last_blocks} on {lw.last_sms} of {lw.sms} SMs, {lw.idle_share:.0%} idle"
                )
            print(line, "" if r.status == "ok" else r.error, flush=True)
            results.append(r)
        run.config_override.pop(VARIANT, None)
    session = make_session(results, backends, settings, {"variants": [VARIANT], "command": " ".join(sys.argv)})
    session.label = f"gpu-cpasync-any block traces at {p.label}: the last wave before and after the small-size fix"
    path = write_session(session, out, gpu, a.size)
    print(f"wrote {path}")
    return 0 if all(r.status == "ok" and r.block_trace for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
