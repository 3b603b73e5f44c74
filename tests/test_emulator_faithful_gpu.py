"""The emulator's newer instructions and findings against a real GPU (issues 43 and 46): run on the GPU machine
with `python3 -m pytest -m gpu tests/test_emulator_faithful_gpu.py`. Shuffles, votes, activemask, atomics and
the timers give the GPU's C; a misaligned float4 load and a trap end the GPU's launch with an error, where the
emulator finds them. Each launch runs in a process of its own (an error is sticky to a CUDA context)."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

from gemmviz.backends import emulator as emu
from tests.checks.emulator_kernels import HEAD, KERNELS, SOURCE

pytestmark = pytest.mark.gpu


def _source(name: str) -> str:
    return SOURCE + f'extern "C" __global__ void k_{name}{HEAD} {{\n{KERNELS[name]}\n}}\n'


def _launch(name: str, a, b, grid, block, c_init: float):
    """(C, None) from the GPU, or (None, the error's text)."""
    try:
        import pycuda.autoprimaryctx  # noqa: F401
        import pycuda.driver as cuda
        from pycuda.compiler import SourceModule

        func = SourceModule(_source(name), options=["-O3"], no_extern_c=True).get_function(f"k_{name}")
        m, k = a.shape
        n = b.shape[1]
        c = np.full((m, n), c_init, np.float32)
        a_gpu, b_gpu, c_gpu = cuda.to_device(a), cuda.to_device(b), cuda.to_device(c)
        func(a_gpu, b_gpu, c_gpu, np.int32(m), np.int32(n), np.int32(k), grid=(*grid, 1), block=block)
        cuda.Context.synchronize()
        return cuda.from_device(c_gpu, c.shape, np.float32), None
    except Exception as exc:  # a launch error: its text
        return None, f"{type(exc).__name__}: {exc}"


def on_gpu(name: str, a, b, grid=(1, 1), block=(64, 1, 1), c_init: float = float("nan")):
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_launch, (name, a.astype(np.float32), b.astype(np.float32), grid, block, c_init))


def emulated(name: str, tmp_path, a, b, grid=(1, 1), block=(64, 1, 1), c_init: float = float("nan")):
    (tmp_path / "k.cu").write_text(_source(name), encoding="utf-8")
    build = emu.compile_ptx(tmp_path / "k.cu", [], tmp_path)
    kernel = emu.load(build.ptx, f"k_{name}", "k.cu")
    options = emu.RunOptions(c_init=c_init)
    return emu.emulate_gemm(kernel, a.astype(np.float32), b.astype(np.float32), grid, block, options)


def test_shuffles_votes_and_activemask_give_the_gpus_values(tmp_path):
    a = np.tile(np.arange(64, dtype=np.float32), (8, 1))
    b = np.zeros((64, 64), np.float32)
    gpu, error = on_gpu("warp", a, b)
    assert error is None, error
    run = emulated("warp", tmp_path, a, b)
    assert np.array_equal(run.c, gpu, equal_nan=True)


def test_atomics_give_the_gpus_totals(tmp_path):
    a, b = np.ones((1, 64), np.float32), np.zeros((64, 64), np.float32)
    gpu, error = on_gpu("count", a, b, block=(60, 1, 1), c_init=0.0)
    assert error is None, error
    run = emulated("count", tmp_path, a, b, block=(60, 1, 1), c_init=0.0)
    assert np.array_equal(run.c[0, :4], gpu[0, :4])  # the totals; the old values' order is the GPU's to pick
    assert sorted(run.c[0, 4:64]) == sorted(gpu[0, 4:64])


def test_a_clock64_wait_and_the_timers_finish_on_both(tmp_path):
    a, b = np.ones((1, 64), np.float32), np.ones((64, 64), np.float32)
    gpu, error = on_gpu("clock", a, b)
    assert error is None, error
    run = emulated("clock", tmp_path, a, b)
    # %globaltimer ticks every microsecond or so on a GPU: after a 1 µs sleep it may not have moved there (2)
    assert run.finished and np.array_equal(run.c, np.full_like(gpu, 3)) and set(np.unique(gpu)) <= {2.0, 3.0}


def test_a_misaligned_float4_load_and_a_trap_end_the_gpus_launch(tmp_path):
    a, b = np.ones((64, 65), np.float32), np.ones((65, 64), np.float32)
    _, error = on_gpu("float4", a, b, block=(8, 1, 1))
    assert error is not None and "misaligned" in error.lower(), error
    assert any(f.kind == "misaligned" for f in emulated("float4", tmp_path, a, b, block=(8, 1, 1)).findings)
    _, error = on_gpu("trap", np.ones((1, 64)), np.ones((64, 64)))
    assert error is not None, "the trap did not end the launch"
    assert emulated("trap", tmp_path, np.ones((1, 64)), np.ones((64, 64))).trap is not None
