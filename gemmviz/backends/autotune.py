"""Search a block-tiling kernel's compile-time configuration on the current GPU; cache the best.

1. every configuration of the variant's `tune_space` is compiled, in parallel, into the kernel cache;
2. each one runs on fresh inputs at a small ragged size and is verified (poisoned output, float64
   reference): wrong ones are dropped;
3. the correct ones are timed at the tuning size (CUDA events, median of the repeats);
4. the fastest is cached per GPU (`tuned.json` in the cache directory) and used from then on.
"""

from __future__ import annotations

import datetime as _dt
import os
import statistics
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from gemmviz.backends.cuda import CudaRun, compile_cubin
from gemmviz.core.kernels.tuning import save_tuned
from gemmviz.core.kernels.variants import get_variant
from gemmviz.core.measure.bench import BenchSettings, Inputs, Job
from gemmviz.core.problem import Problem

CHECK_SIZE = Problem(257, 383, 200)


def tune(
    variant_name: str,
    size: int = 4096,
    repeats: int = 5,
    warmup: int = 2,
    progress=None,
    cancel=None,
    seed: int | None = None,
    space: list[dict] | None = None,
) -> dict:
    """Returns {"variant", "gpu", "best": {...}, "rows": [...]} and caches the best config."""
    variant = get_variant(variant_name)
    if variant.tune_space is None:
        raise ValueError(f"{variant_name} has no tuning space")
    cancel = cancel or threading.Event()
    space = space if space is not None else variant.tune_space()
    rng = np.random.default_rng(seed)
    rows: list[dict] = []
    with CudaRun() as run:
        gpu = run.device.name()
        # 1. compile everything in parallel (nvcc processes), reporting failures per config
        errors: dict[int, str] = {}

        def build(i: int) -> None:
            try:
                compile_cubin(variant, {}, space[i], run.arch, gpu)
            except Exception as exc:  # a config that does not compile is simply not a candidate
                errors[i] = str(exc).splitlines()[-1] if str(exc) else type(exc).__name__

        with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
            for n, _ in enumerate(pool.map(build, range(len(space)))):
                if progress:
                    progress(n + 1, 3 * len(space), f"compile {n + 1}/{len(space)}")
        # 2. verify each at a small ragged size; 3. time the correct ones
        check = Inputs.random(CHECK_SIZE, rng)
        big = Inputs.random(Problem(size, size, size), rng)
        quick = BenchSettings(warmup=0, repeats=1)
        timing = BenchSettings(warmup=warmup, repeats=repeats)
        for i, config in enumerate(space):
            if cancel.is_set():
                break
            row: dict[str, Any] = {"config": config, "status": "ok", "median_ms": None, "gflops": None}
            if i in errors:
                row.update(status="compile error", error=errors[i])
            else:
                run.config_override[variant.name] = config
                try:
                    result = run.run(Job(variant.name, (), CHECK_SIZE), variant, check, quick, cancel)
                    if result.status != "ok":
                        row.update(status=result.status, error=result.error)
                    else:
                        ms = statistics.median(run.time_config(variant, config, big, timing, cancel))
                        row.update(median_ms=ms, gflops=2 * size**3 / (ms * 1e-3) / 1e9)
                except Exception as exc:  # a launch failure (too many resources, ...) rules it out
                    row.update(status="failed", error=f"{type(exc).__name__}: {exc}")
                    if "launch" in str(exc).lower():
                        break  # the context is unusable after a failed launch
            rows.append(row)
            if progress:
                progress(len(space) + 2 * (i + 1), 3 * len(space), f"run {i + 1}/{len(space)}")
        run.config_override.pop(variant.name, None)
    ok = [r for r in rows if r["gflops"]]
    if not ok:
        raise RuntimeError(f"no configuration of {variant_name} compiled and verified")
    best = max(ok, key=lambda r: r["gflops"])
    entry = {
        "config": best["config"],
        "gflops": best["gflops"],
        "median_ms": best["median_ms"],
        "size": size,
        "repeats": repeats,
        "configs_tried": len(rows),
        "configs_valid": len(ok),
        "default_gflops": next((r["gflops"] for r in rows if r["config"] == dict(variant.config)), None),
        "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }
    save_tuned(variant.name, gpu, entry)
    return {"variant": variant.name, "gpu": gpu, "best": entry, "rows": rows}
