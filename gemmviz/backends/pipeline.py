"""Record the Hopper kernel's pipeline on one SM: build gpu-wgmma-tf32 with its pipeline trace
(kernels/wgmma_tf32.cu, -DWGMMA_PIPE_TRACE: clock64() stamps per warpgroup and k-block of the first PIPE_TILES
blocks that run on SM `sm`), launch it twice (a warm launch, then the traced one), check 16 rows of C against
float64 and read the stamps back. No Qt. The timed kernel is built without the macro, so it is unchanged.

All CUDA work happens in the calling thread, in a context of its own that is popped before returning.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

PIPE_TILES, PIPE_KT = 2, 256  # blocks traced on the SM, k-blocks each (the kernel's slots)
CHECK_ROWS = 16
TF32_TOLERANCE = 5e-3  # relative error of the checked rows that a TF32 product stays within


@dataclass(frozen=True)
class Stamps:
    """What the instrumented launch recorded: `events` [tile][warpgroup][k-block][kind: tma, wait, wgmma][start,
    end] (0: not recorded), `tiles` [tile][block, tile row, tile column, k-blocks], the build's configuration,
    the GPU's name and the checked rows' relative error."""

    events: np.ndarray
    tiles: np.ndarray
    config: dict
    gpu: str
    rel_error: float


def _global(kernel, name: str) -> int:
    from gemmviz.backends.wgmma import _check, load_driver

    dptr, size = ctypes.c_uint64(), ctypes.c_size_t()
    _check(
        load_driver().cuModuleGetGlobal_v2(ctypes.byref(dptr), ctypes.byref(size), kernel._module, name.encode()),
        f"cuModuleGetGlobal({name})",
    )
    return dptr.value


def _traced_launch(cuda, kernel, launch, sm: int, slots: int, pipe_tiles: int) -> tuple[np.ndarray, np.ndarray]:
    events_ptr, tiles_ptr = _global(kernel, "wgmma_pipe_events"), _global(kernel, "wgmma_pipe_tiles")
    count_ptr, sm_ptr = _global(kernel, "wgmma_pipe_count"), _global(kernel, "wgmma_pipe_sm")
    for _ in range(2):  # a warm launch, then the traced one: both record, the second's stamps are kept
        cuda.memcpy_htod(events_ptr, np.zeros(slots, dtype=np.int64))
        cuda.memcpy_htod(count_ptr, np.zeros(1, dtype=np.uint32))
        cuda.memcpy_htod(sm_ptr, np.array([sm], dtype=np.int32))
        launch()
        cuda.Context.synchronize()
    events = np.empty(slots, dtype=np.int64)
    cuda.memcpy_dtoh(events, events_ptr)
    tiles = np.empty(pipe_tiles * 4, dtype=np.int32)
    cuda.memcpy_dtoh(tiles, tiles_ptr)
    return events, tiles


def record_stamps(m: int, n: int, k: int, sm: int = 0, seed: int = 0) -> Stamps:
    """Build, launch and read back the pipeline trace of gpu-wgmma-tf32 at m × n × k (k and n multiples of 4)."""
    import pycuda.driver as cuda

    from gemmviz.backends.kernel_cache import nvcc
    from gemmviz.backends.wgmma import WgmmaKernel, config_from_macros
    from gemmviz.core.kernels.tuning import tuned_config
    from gemmviz.core.kernels.variants import VARIANTS

    cuda.init()
    ctx = cuda.Device(0).make_context()
    try:
        v = VARIANTS["gpu-wgmma-tf32"]
        gpu = ctx.get_device().name()
        config, _tuned = tuned_config(v.name, gpu, v.config)
        cfg = config_from_macros(config)
        trace = ["-DWGMMA_PIPE_TRACE", f"-DPIPE_TILES={PIPE_TILES}", f"-DPIPE_KT={PIPE_KT}"]
        kernel = WgmmaKernel(
            nvcc(v.source_text(), ["-O3", *v.macro_options({}, config), *trace], "sm_90a", v.source), cfg
        )
        rng = np.random.default_rng(seed)
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        bufs = [cuda.to_device(a), cuda.to_device(b), cuda.mem_alloc(4 * m * n)]
        try:
            bt = None if cfg.b_regs else cuda.mem_alloc(4 * n * k)
            a_ptr, b_ptr, c_ptr = (int(x) for x in bufs)
            launch = kernel.launcher(
                a_ptr, b_ptr, c_ptr, m, n, k, None if bt is None else int(bt), None if bt is None else k
            )
            slots = PIPE_TILES * (cfg.consumers + 1) * PIPE_KT * 3 * 2
            events, tiles = _traced_launch(cuda, kernel, launch, sm, slots, PIPE_TILES)
            c = np.empty((m, n), dtype=np.float32)
            cuda.memcpy_dtoh(c, bufs[2])
            if bt is not None:
                bt.free()
        finally:
            for buf in bufs:
                buf.free()
            kernel.unload()
        rows = np.linspace(0, m - 1, CHECK_ROWS).astype(int)
        ref = a[rows].astype(np.float64) @ b.astype(np.float64)
        rel = float(np.linalg.norm(c[rows] - ref) / np.linalg.norm(ref))
        shape = (PIPE_TILES, cfg.consumers + 1, PIPE_KT, 3, 2)
        return Stamps(events.reshape(shape), tiles.reshape(PIPE_TILES, 4), dict(config), gpu, rel)
    finally:
        ctx.pop()
        ctx.detach()
