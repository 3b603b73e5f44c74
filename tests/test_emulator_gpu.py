"""The CPU emulator against a real GPU (issue 32): run on the GPU machine with `python3 -m pytest -m gpu
tests/test_emulator_gpu.py`. The emulated C of every SIMT registry kernel and of the exercises' test kernels
equals the GPU's within the verification bound at odd sizes; the emulated per-block global sectors and shared
wavefronts equal what the access tracer recorded on the GPU for the same blocks."""

from pathlib import Path

import numpy as np
import pytest

from gemmviz.backends import emulator as emu
from gemmviz.core.exercise.exercises import find_exercise
from gemmviz.core.hardware.accesses import from_raw, load_file
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.verify import verify
from gemmviz.core.problem import Problem

pytestmark = pytest.mark.gpu

SIMT = ("gpu-naive", "gpu-uncoalesced", "gpu-tiled", "gpu-tiled-pad", "gpu-blocktile1d", "gpu-blocktile2d",
        "gpu-vectorize", "gpu-doublebuffer", "gpu-warptile")  # fmt: skip
DATA = Path(__file__).parent / "data" / "exercises"
ODD = (100, 77, 129)


def _inputs(m, n, k, rp):
    rng = np.random.default_rng(7)
    a = np.zeros((rp.m, rp.k), np.float32)
    b = np.zeros((rp.k, rp.n), np.float32)
    a[:m, :k] = rng.standard_normal((m, k))
    b[:k, :n] = rng.standard_normal((k, n))
    return a, b


def _on_gpu(source: str, options: list[str], kernel: str, a, b, grid, block) -> np.ndarray:
    import pycuda.autoprimaryctx  # noqa: F401  (a test process of its own: the primary context)
    import pycuda.driver as cuda
    from pycuda.compiler import SourceModule

    func = SourceModule(source, options=["-O3", *options], no_extern_c=True).get_function(kernel)
    m, k = a.shape
    n = b.shape[1]
    c = np.full((m, n), np.nan, np.float32)
    a_gpu, b_gpu, c_gpu = cuda.to_device(a), cuda.to_device(b), cuda.to_device(c)
    func(a_gpu, b_gpu, c_gpu, np.int32(m), np.int32(n), np.int32(k), grid=tuple(grid), block=tuple(block))
    cuda.Context.synchronize()
    return cuda.from_device(c_gpu, c.shape, np.float32)


def _same_c(c_emu, c_gpu, a, b, m, n, k) -> None:
    bound = np.abs(a[:m]).astype(np.float64) @ np.abs(b[:, :n])
    assert verify(c_emu[:m, :n], c_gpu[:m, :n].astype(np.float64), bound, "fp32", k).valid


@pytest.mark.parametrize("name", SIMT)
def test_emulated_c_equals_the_gpus_for_registry_kernels(name, tmp_path):
    v = VARIANTS[name]
    params = v.resolve_params(None)
    src = tmp_path / v.source
    src.write_text(v.source_text(), encoding="utf-8")
    kernel = emu.load(emu.compile_ptx(src, v.macro_options(params), tmp_path).ptx, v.kernel_name, src.name)
    m, n, k = ODD
    rp = v.run_problem(Problem(m, n, k))
    a, b = _inputs(m, n, k, rp)
    grid, block = v.geometry(rp, params, v.config)
    run = emu.emulate_gemm(kernel, a, b, grid[:2], block)
    assert run.finished and not run.findings
    _same_c(run.c, _on_gpu(v.source_text(), v.macro_options(params), v.kernel_name, a, b, grid, block), a, b, m, n, k)


@pytest.mark.parametrize(
    "name", ["naive_good", "naive_swapped", "naive_uncoalesced", "tiled_good", "tiled_conflicts", "regtile_good"]
)
def test_emulated_c_equals_the_gpus_for_the_exercises_test_kernels(name, tmp_path):
    exercise = find_exercise(name.split("_")[0])
    path = DATA / f"{name}.cu"
    kernel = emu.load(emu.compile_ptx(path, exercise.nvcc_defines(), tmp_path).ptx, exercise.kernel, path.name)
    m, n, k = ODD
    a, b = _inputs(m, n, k, Problem(m, n, k))
    grid, block = emu.exercise_geometry(m, n, exercise.threads, exercise.block_tile)
    run = emu.emulate_gemm(kernel, a, b, grid, block)
    gpu = _on_gpu(path.read_text("utf-8"), exercise.nvcc_defines(), exercise.kernel, a, b, (*grid, 1), block)
    _same_c(run.c, gpu, a, b, m, n, k)


KEYS = ("global_ld_sectors", "global_st_sectors", "shared_ld_wavefronts", "shared_st_wavefronts")


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """The GPU tracer's records at 250³ (`gemmviz profile --accesses`): an interior and an edge block each."""
    from gemmviz.cli.main import main

    out = tmp_path_factory.mktemp("traced") / "t.json"
    main(
        [
            "profile",
            "--variants",
            "gpu-naive,gpu-uncoalesced,gpu-tiled,gpu-tiled-pad",
            "--sizes",
            "250",
            "--tile",
            "16,32",
            "--block",
            "16",
            "--repeats",
            "2",
            "--warmup",
            "0",
            "--quiet",
            "--duration-only",
            "--accesses",
            "--out",
            str(out),
        ]
    )
    return load_file(out.with_suffix(".accesses.json.gz")).traces


def test_emulated_sectors_and_wavefronts_per_block_equal_the_gpu_tracers(traced, tmp_path):
    """The emulator merges the shared loads ptxas merges into LDS.128 (backends/emulator/sass.py): at gpu-tiled
    TILE 16, 250³, a traced block's shared-load wavefronts are 3,072 on both (4,096 before the merge was modelled;
    figures derived by hand in tests/test_emulator_sass.py)."""
    assert traced
    for trace in traced:
        v = VARIANTS[trace.variant]
        params = v.resolve_params(trace.params)
        src = tmp_path / v.source
        src.write_text(v.source_text(), encoding="utf-8")
        build = emu.compile_ptx(src, v.macro_options(params), tmp_path)
        kernel = emu.load(build.ptx, v.kernel_name, src.name)
        rp = v.run_problem(Problem(*trace.mnk))
        a, b = _inputs(*trace.mnk, rp)
        grid, block = v.geometry(rp, params, v.config)
        run = emu.emulate_gemm(kernel, a, b, grid[:2], block, emu.RunOptions(trace=True, only_traced=True))
        mine = from_raw(*emu.to_raw(run, v.kernel_name), v.name, trace.mnk, params)
        assert [tuple(x) for x in mine.blocks] == [tuple(x) for x in trace.blocks], trace.variant
        for got, want in zip(mine.summary, trace.summary, strict=True):
            assert {key: got[key] for key in KEYS} == {key: want[key] for key in KEYS}, (trace.variant, trace.params)
