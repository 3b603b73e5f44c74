"""ptxas merges shared loads the PTX issues one by one (issue 32): the emulator's records count the requests the
SASS issues, so its shared wavefronts equal what the GPU access tracer records (tests/test_emulator_gpu.py).

The expected figures are derived by hand from the SASS of kernels/tiled.cu (`nvcc -cubin -O3 -arch=sm_90
-lineinfo -DTILE=T [-DPAD=1]`, `cuobjdump -sass`, nvcc 13.0, 2026-12-02): in the K loop's body, per tile,
- TILE 16: 4 LDS.128 (tile_A[ty][k..k+3]) and 16 LDS (tile_B[k][tx]), where the PTX has 32 ld.shared.f32;
- TILE 32: 8 LDS.128 and 32 LDS, where the PTX has 64;
- padded (row stride TILE + 1): 32 and 64 LDS, nothing merged (the row start is not provably 16-aligned).
Wavefronts, by the tracer's rule (core/hardware/accesses.wavefronts): an LDS.128 whose half-warps each read one row's 4
words (a broadcast) takes 2 (one per half-warp); an LDS of tile_A (a broadcast per row) or of a row of tile_B
(consecutive words) takes 1. At 250³: TILE 16 has ceil(250/16) = 16 tiles and 8 warps a block, TILE 32 has 8
tiles and 32 warps; every thread of a block, the edge block's too, runs every load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gemmviz.backends import emulator as emu
from gemmviz.backends.emulator.sass import vector_loads
from gemmviz.backends.profile import find_cuda_tool
from gemmviz.core.hardware.accesses import from_raw
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.problem import Problem

pytestmark = pytest.mark.skipif(find_cuda_tool("nvcc") is None, reason="nvcc not installed")


_PTX: dict[tuple[str, int], str] = {}  # (variant, TILE) -> its PTX: both tests of a kernel read one compile


def _kernel(name: str, tile: int, folder):
    """The variant, its params and its kernel loaded afresh from the PTX (compiled once per module: the text is
    only read)."""
    v = VARIANTS[name]
    params = v.resolve_params({"tile": tile})
    if (name, tile) not in _PTX:
        src = folder / v.source
        src.write_text(v.source_text(), encoding="utf-8")
        build = emu.compile_ptx(src, v.macro_options(params), folder)
        assert build.ok, build.log
        _PTX[(name, tile)] = build.ptx
    return v, params, emu.load(_PTX[(name, tile)], v.kernel_name, Path(v.source).name)


# (variant, TILE) -> (LDS.128, LDS) per tile in the SASS's loop body
SASS = {("gpu-tiled", 16): (4, 16), ("gpu-tiled", 32): (8, 32), ("gpu-tiled-pad", 16): (0, 32),
        ("gpu-tiled-pad", 32): (0, 64)}  # fmt: skip


@pytest.mark.parametrize(("name", "tile"), list(SASS))
def test_the_merged_loads_are_the_sass_ones(name, tile, tmp_path):
    _, _, kernel = _kernel(name, tile, tmp_path)
    merged = vector_loads(kernel)
    loads = [i for i in kernel.instrs if i.op == "ld" and "shared" in i.mods]
    wide = sum(1 for i in loads if merged.get(i.index, (4, 0))[0] == 16)
    scalar = sum(1 for i in loads if i.index not in merged)
    assert (wide, scalar) == SASS[(name, tile)]
    assert not any(w == 8 for w, _ in merged.values())


def _per_warp_tile(name: str, tile: int) -> tuple[int, int]:
    """(requests, wavefronts) of shared loads one warp issues per tile, from the SASS counts above."""
    vec, lds = SASS[(name, tile)]
    return vec + lds, 2 * vec + lds


# (variant, TILE) -> shared-load (requests, wavefronts) of one traced block at 250³, by hand:
# TILE 16: 8 warps × 16 tiles × (4 + 16 requests, 4·2 + 16 wavefronts) = (2,560, 3,072); padded 8 × 16 × 32.
# TILE 32: 32 warps × 8 tiles × (8 + 32, 8·2 + 32) = (10,240, 12,288); padded 32 × 8 × 64 = 16,384.
EXPECTED = {("gpu-tiled", 16): (2560, 3072), ("gpu-tiled", 32): (10240, 12288),
            ("gpu-tiled-pad", 16): (4096, 4096), ("gpu-tiled-pad", 32): (16384, 16384)}  # fmt: skip


@pytest.mark.parametrize(("name", "tile"), list(EXPECTED))
def test_emulated_shared_loads_per_block_are_the_sass_ones(name, tile, tmp_path):
    v, params, kernel = _kernel(name, tile, tmp_path)
    warps, tiles = tile * tile // 32, -(-250 // tile)
    per = _per_warp_tile(name, tile)
    assert EXPECTED[(name, tile)] == (warps * tiles * per[0], warps * tiles * per[1])
    mnk = (250, 250, 250)
    rp = v.run_problem(Problem(*mnk))
    rng = np.random.default_rng(1)
    a = rng.standard_normal((rp.m, rp.k)).astype(np.float32)
    b = rng.standard_normal((rp.k, rp.n)).astype(np.float32)
    grid, block = v.geometry(rp, params, v.config)
    run = emu.emulate_gemm(kernel, a, b, grid[:2], block, emu.RunOptions(trace=True, only_traced=True))
    trace = from_raw(*emu.to_raw(run, v.kernel_name), v.name, mnk, params)
    gx, gy = grid[:2]
    assert [tuple(x) for x in trace.blocks] == [((gx - 1) // 2, (gy - 1) // 2, 0), (gx - 1, gy - 1, 0)]
    for block_summary in trace.summary:  # an interior block, then the edge block
        got = (block_summary["shared_ld_requests"], block_summary["shared_ld_wavefronts"])
        assert got == EXPECTED[(name, tile)]


PTX = """
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<9>;
	.reg .f32 %f<17>;
	.shared .align 4 .b8 t[1024];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 6;
	mov.u32 %r3, t;
	add.s32 %r4, %r3, %r2;
	mad.lo.s32 %r5, %r1, 68, %r3;
	ld.shared.f32 %f1, [%r4];
	ld.shared.f32 %f2, [%r4+4];
	ld.shared.f32 %f3, [%r4+8];
	ld.shared.f32 %f4, [%r4+12];
	ld.shared.f32 %f5, [%r4+24];
	ld.shared.f32 %f6, [%r4+28];
	ld.shared.f32 %f7, [%r5];
	ld.shared.f32 %f8, [%r5+4];
	ld.shared.f32 %f9, [%r4+48];
	ld.shared.f32 %f10, [%r4+52];
	bar.sync 0;
	ld.shared.f32 %f11, [%r4+56];
	ld.shared.f32 %f12, [%r4+60];
	ld.shared.f32 %f13, [%r4+64];
	shl.b32 %r4, %r1, 7;
	ld.shared.f32 %f14, [%r4+68];
	ld.shared.f32 %f15, [%r4+72];
	ld.shared.f32 %f16, [%r4+76];
	ret;
}
"""


def test_which_loads_merge():
    """Four words from a 16-aligned base at a multiple of 16 merge into 16 bytes, two at a multiple of 8 into 8; a
    base not provably aligned (tid·68), a barrier between, or a new value of the base register keeps them apart
    (its alignment is the least over all its definitions: tid·64 + t and tid·128, both 16-aligned)."""
    from gemmviz.backends.emulator import ptx

    kernel = ptx.parse(PTX, "k")
    merged = vector_loads(kernel)
    at = {i.text.split(",")[0].split()[-1]: merged.get(i.index) for i in kernel.instrs if i.op == "ld"}
    assert at["%f1"] == (16, 0) and at["%f2"] == at["%f3"] == at["%f4"] == (0, 0)
    assert at["%f5"] == (8, 0) and at["%f6"] == (0, 0)
    assert at["%f7"] is at["%f8"] is None  # tid·68 + t: 4-aligned only
    assert at["%f9"] == at["%f11"] == (8, 0) and at["%f10"] == at["%f12"] == (0, 0)  # the barrier parts 48..60
    assert at["%f13"] is at["%f14"] is None  # %r4 is new between 64 and 68..76
    assert at["%f15"] == (8, 0) and at["%f16"] == (0, 0)
