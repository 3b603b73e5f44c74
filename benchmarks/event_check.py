"""Cross-check gemmviz's timing with an independent loop: one event pair around many back-to-back
launches of the same kernel, compiled separately with SourceModule. Prints both and their ratio.

    python3 benchmarks/event_check.py [size] [tile]
"""

import statistics
import sys

import numpy as np
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.kernels.variants import get_variant
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem

n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
tile = int(sys.argv[2]) if len(sys.argv) > 2 else 16

ours = Engine({"cuda": CudaBackend()}, BenchSettings(warmup=5, repeats=50)).run(
    plan_jobs(["gpu-tiled"], [Problem(n, n, n)], {"tile": [tile]})
)[0]
assert ours.valid, ours.error

cuda.init()
ctx = cuda.Device(0).make_context()
try:
    mod = SourceModule(get_variant("gpu-tiled").source_text(), options=[f"-DTILE={tile}"], no_extern_c=True)
    f = mod.get_function("gemm_tiled")
    rng = np.random.default_rng(1)
    a = cuda.to_device(rng.standard_normal((n, n), dtype=np.float32))
    b = cuda.to_device(rng.standard_normal((n, n), dtype=np.float32))
    c = cuda.mem_alloc(4 * n * n)
    grid, block = ((n + tile - 1) // tile, (n + tile - 1) // tile), (tile, tile, 1)
    args = (a, b, c, np.int32(n), np.int32(n), np.int32(n))
    for _ in range(5):
        f(*args, block=block, grid=grid)
    start, end = cuda.Event(), cuda.Event()
    per_launch = []
    for _ in range(5):  # five independent loops of 20 back-to-back launches
        start.record()
        for _ in range(20):
            f(*args, block=block, grid=grid)
        end.record()
        end.synchronize()
        per_launch.append(end.time_since(start) / 20)
    a.free(), b.free(), c.free()
finally:
    ctx.pop()
    ctx.detach()

independent = statistics.median(per_launch)
ratio = ours.median_ms / independent
print(
    f"gpu-tiled TILE={tile} {n}^3: gemmviz median {ours.median_ms:.4f} ms ({ours.gflops:,.0f} GFLOP/s); "
    f"independent loop {independent:.4f} ms; ratio {ratio:.3f} ({'within' if abs(ratio - 1) <= 0.05 else 'OUTSIDE'} 5%)"
)
