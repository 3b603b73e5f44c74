"""The Hopper kernel's pipeline on one SM, from its instrumented build (kernels/wgmma_tf32.cu, -DWGMMA_PIPE_TRACE):
per warpgroup and k-block, when the producer waited for a free stage and issued its TMA copies, when the copies
landed, when each consumer warpgroup waited for a full stage, issued its wgmma batch and saw it retire (issue 34,
item 5). clock64() stamps, SM cycles, from the first tile's first stamp.

    source .device/env.sh && python3 benchmarks/wgmma_pipeline.py --size 4096 --out $OUT/pipeline.json

The build is the H200's tuned configuration (assets/tuned) with the trace macro; the timed kernel is built
without it (its cubin is byte-identical to the uninstrumented source's). The launch is checked: 16 rows of C
against float64 on the host. k_iter counts the SM's k-blocks across its traced tiles (tile t's k-block kb is
t·KT + kb); stage is the ring slot (kb mod STAGES) of the tile's block.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import shlex
import sys
from pathlib import Path

import numpy as np

PIPE_TILES, PIPE_KT = 2, 256
KINDS = ("tma", "wait", "wgmma")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--sm", type=int, default=0, help="the SM whose first tiles are traced")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    import pycuda.autoinit
    import pycuda.driver as cuda

    from gemmviz.backends.kernel_cache import nvcc
    from gemmviz.backends.wgmma import WgmmaKernel, config_from_macros, load_driver
    from gemmviz.core.tuning import tuned_config
    from gemmviz.core.variants import VARIANTS

    v = VARIANTS["gpu-wgmma-tf32"]
    gpu = pycuda.autoinit.device.name()
    config, _tuned = tuned_config(v.name, gpu, v.config)
    cfg = config_from_macros(config)
    options = [
        "-O3",
        *v.macro_options({}, config),
        "-DWGMMA_PIPE_TRACE",
        f"-DPIPE_TILES={PIPE_TILES}",
        f"-DPIPE_KT={PIPE_KT}",
    ]
    cubin = nvcc(v.source_text(), options, "sm_90a", v.source)
    kernel = WgmmaKernel(cubin, cfg)

    import ctypes

    lib = load_driver()

    def global_ptr(name: str) -> int:
        dptr, size = ctypes.c_uint64(), ctypes.c_size_t()
        rc = lib.cuModuleGetGlobal_v2(ctypes.byref(dptr), ctypes.byref(size), kernel._module, name.encode())
        if rc:
            raise SystemExit(f"cuModuleGetGlobal({name}) failed: {rc}")
        return dptr.value

    n = args.size
    m = k = n
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.mem_alloc(4 * m * n)
    launch = kernel.launcher(int(da), int(db), int(dc), m, n, k)
    events_ptr, tiles_ptr = global_ptr("wgmma_pipe_events"), global_ptr("wgmma_pipe_tiles")
    count_ptr, sm_ptr = global_ptr("wgmma_pipe_count"), global_ptr("wgmma_pipe_sm")
    slots = PIPE_TILES * (cfg.consumers + 1) * PIPE_KT * 3 * 2
    for _ in range(2):  # a warm launch, then the traced one: both record; the second's stamps are kept
        cuda.memcpy_htod(events_ptr, np.zeros(slots, dtype=np.int64))
        cuda.memcpy_htod(count_ptr, np.zeros(1, dtype=np.uint32))
        cuda.memcpy_htod(sm_ptr, np.array([args.sm], dtype=np.int32))
        launch()
        cuda.Context.synchronize()
    ev = np.empty(slots, dtype=np.int64)
    cuda.memcpy_dtoh(ev, events_ptr)
    tiles = np.empty(PIPE_TILES * 4, dtype=np.int32)
    cuda.memcpy_dtoh(tiles, tiles_ptr)
    c = np.empty((m, n), dtype=np.float32)
    cuda.memcpy_dtoh(c, dc)
    rows = np.linspace(0, m - 1, 16).astype(int)
    ref = a[rows].astype(np.float64) @ b.astype(np.float64)
    rel = float(np.linalg.norm(c[rows] - ref) / np.linalg.norm(ref))
    print(f"check: relative error of 16 rows {rel:.2e} (TF32 threshold 5e-3)")

    ev = ev.reshape(PIPE_TILES, cfg.consumers + 1, PIPE_KT, 3, 2)
    recorded = [t for t in range(PIPE_TILES) if ev[t].any()]
    t0 = min(int(ev[t][ev[t] > 0].min()) for t in recorded)
    events = []
    for t in recorded:
        kt = int(tiles[4 * t + 3])
        for wg in range(cfg.consumers + 1):
            for kb in range(min(kt, PIPE_KT)):
                for kind in range(3):
                    start, end = (int(x) for x in ev[t, wg, kb, kind])
                    if start == 0 or end == 0:
                        continue
                    events.append(
                        {
                            "warpgroup": wg,
                            "role": "producer" if wg == 0 else "consumer",
                            "kind": KINDS[kind],
                            "stage": kb % cfg.stages,
                            "k_iter": t * kt + kb,
                            "start": start - t0,
                            "end": end - t0,
                        }
                    )
    doc = {
        "schema": "gemmviz-pipeline-trace",
        "schema_version": 1,
        "gpu": gpu,
        "created": _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat(),
        "command": "python3 " + " ".join(shlex.quote(x) for x in ["benchmarks/wgmma_pipeline.py", *sys.argv[1:]]),
        "variant": v.name,
        "params": {k2: int(v2) for k2, v2 in config.items()},
        "m": m,
        "n": n,
        "k": k,
        "sm": args.sm,
        "clock": "clock64",
        "events": events,
    }
    text = json.dumps(doc, separators=(",", ":"))
    Path(args.out).write_text(text + "\n")
    info = [tuple(int(x) for x in tiles[4 * t : 4 * t + 4]) for t in recorded]
    print(f"{len(events)} events, {len(text) / 1e3:.0f} kB; tiles (block, row, column, k-blocks): {info}")
    if rel > 5e-3:
        raise SystemExit("the instrumented launch computed a wrong C")


if __name__ == "__main__":
    main()
