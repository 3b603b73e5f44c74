"""kernels/cpasync_cluster.cu (FP32 SIMT fed by TMA, 2-block clusters sharing A or B; issue 48 technique 2) and its
launcher, backends/tma_fp32.py: the launch arithmetic, a numpy model of the kernel's shared-memory layout and
fragment reads (right values, no bank conflicts), the sm_90a build (no spills, TMA in the SASS where cuobjdump is
found), and on a GPU the product against float64 at odd shapes:
`python3 -m pytest -m gpu tests/test_tma_fp32.py`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gemmviz.backends.tma_fp32 import BK, SOURCE, TmaFp32Config, pads, pitch

KERNELS = Path(__file__).resolve().parent.parent / "kernels"
CONFIGS = {
    "128x256": TmaFp32Config(),
    "128x256 share A": TmaFp32Config(share=1),
    "128x256 share B": TmaFp32Config(share=2),
    "128x128": TmaFp32Config(128, 128, 32, 64, 8, 8, stages=3),
    "128x128 share B": TmaFp32Config(128, 128, 32, 64, 8, 8, stages=3, share=2),
    "128x256 share B, warps release": TmaFp32Config(share=2, release=1, lag=1),
}
ODD = [(33, 17, 65), (257, 383, 200), (1001, 999, 1003), (1100, 2101, 40)]


def test_grid_covers_every_tile_in_whole_clusters():
    for cfg in CONFIGS.values():
        rows, cols = cfg.cluster_tile
        for m, n, _k in ODD + [(4096, 4096, 4096), (128, 256, 32)]:
            g = cfg.grid(m, n)
            assert g % cfg.cluster == 0
            assert g * cfg.bm * cfg.bn >= m * n  # every element of C has a block
            assert g == -(-m // rows) * -(-n // cols) * cfg.cluster
    assert TmaFp32Config().grid(4096, 4096) == 32 * 16
    assert TmaFp32Config(share=1).grid(4096, 4096) == 32 * 8 * 2  # pairs along N
    assert TmaFp32Config(share=2).grid(257, 383) == 2 * 2 * 2  # 2 pair rows (256 rows each), 2 columns


def _block_origins(cfg: TmaFp32Config, m: int, n: int) -> list[tuple[int, int]]:
    """(row0, col0) of each block's tile, by the kernel's cluster_tile and rank arithmetic."""
    rows, cols = cfg.cluster_tile
    ctm_n, ctn_n = -(-m // rows), -(-n // cols)
    out = []
    for block in range(cfg.grid(m, n)):
        cid, rank = divmod(block, cfg.cluster)
        per_group = cfg.group_m * ctn_n
        first_m = (cid // per_group) * cfg.group_m
        group_rows = min(ctm_n - first_m, cfg.group_m)
        ctm, ctn = first_m + (cid % per_group) % group_rows, (cid % per_group) // group_rows
        row0 = (ctm * (2 if cfg.share == 2 else 1) + (rank if cfg.share == 2 else 0)) * cfg.bm
        col0 = (ctn * (2 if cfg.share == 1 else 1) + (rank if cfg.share == 1 else 0)) * cfg.bn
        out.append((row0, col0))
    return out


@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_element_of_c_is_stored_by_exactly_one_block(name):
    cfg = CONFIGS[name]
    for m, n, _k in ODD + [(1024, 1024, 1024), (2048, 3072, 4096)]:
        count = np.zeros((m, n), dtype=np.int32)
        for row0, col0 in _block_origins(cfg, m, n):  # the epilogue stores its tile's rows and columns below M, N
            count[row0 : row0 + cfg.bm, col0 : col0 + cfg.bn] += 1
        assert count.min() == 1 and count.max() == 1, (name, m, n)


def test_boxes_split_the_shared_operand_between_the_pair():
    assert TmaFp32Config().boxes() == ((128, BK), (BK, 256))
    assert TmaFp32Config(share=1).boxes() == ((64, BK), (BK, 256))  # each block loads half of A's rows
    assert TmaFp32Config(share=2).boxes() == ((128, BK), (BK // 2, 256))  # half of B's K-rows
    for cfg in CONFIGS.values():
        (ar, ac), (br, bc) = cfg.boxes()
        assert ar * ac * 4 * (2 if cfg.share == 1 else 1) + br * bc * 4 * (2 if cfg.share == 2 else 1) == (
            cfg.stage_bytes
        )  # the bytes each block's full barrier expects per stage
        assert max(ar, ac, br, bc) <= 256 and ac * 4 == 128  # TMA's box limit; A's rows are one swizzle span


def test_shared_memory_and_blocks_per_sm():
    assert TmaFp32Config().smem_bytes == 4 * 48 * 1024 + 1024 + 64  # one block per SM
    small = CONFIGS["128x128"]
    assert 2 * (small.smem_bytes + 1024) <= 228 * 1024  # two blocks per SM, as its registers allow
    assert small.threads == TmaFp32Config().threads == 256


def test_padded_pitches_only_where_rows_are_not_16_bytes():
    assert pads(1024, 1024, 1024) == {}
    assert pads(257, 383, 200) == {"b": (200, 383, 384)}
    assert pads(33, 17, 65) == {"a": (33, 65, 68), "b": (65, 17, 20)}
    assert [pitch(c) for c in (1, 4, 5, 999)] == [4, 4, 8, 1000]


@pytest.mark.parametrize(
    "bad",
    [
        {"share": 3},
        {"bn": 512, "wn": 64},  # a TMA box is at most 256 columns
        {"wm": 48},  # LR = 6 lanes: not a power of two
        {"stages": 5},  # 5 x 48 KiB: over 227 KiB
        {"lag": 2},
    ],
)
def test_configs_the_kernel_would_reject_fail_early(bad):
    with pytest.raises(ValueError):
        TmaFp32Config(**bad)


def _model_reads(cfg: TmaFp32Config, a_tile: np.ndarray, b_tile: np.ndarray):
    """The kernel's shared memory after TMA (A 128-byte swizzled in CLUSTER halves, B dense) and every warp's
    LDS.128 of one K-slice, by the kernel's own index formulas: per instruction the 32 lanes' byte addresses, and
    each thread's product over the slice."""
    smem = np.zeros((cfg.bm + cfg.bn) * BK, dtype=np.float32)
    for m in range(cfg.bm):  # TMA's 128-byte swizzle: chunk c of row m at chunk c ^ (m % 8) (m·128 is 1024-aligned)
        for c in range(BK // 4):
            off = (m * 128 + ((c ^ (m % 8)) << 4)) // 4
            smem[off : off + 4] = a_tile[m, 4 * c : 4 * c + 4]
    smem[cfg.bm * BK :] = b_tile.reshape(-1)  # B: [k][n], no swizzle
    lr, lc, ns = cfg.wm // cfg.tm, cfg.wn // cfg.tn, cfg.tn // 4
    a_bytes = cfg.bm * BK * 4
    prod = np.zeros((cfg.bm, cfg.bn), dtype=np.float64)
    instructions: list[list[int]] = []
    for warp in range(cfg.threads // 32):
        wm0, wn0 = (warp // (cfg.bn // cfg.wn)) * cfg.wm, (warp % (cfg.bn // cfg.wn)) * cfg.wn
        per_lane: list[list[int]] = [[] for _ in range(32)]
        for lane in range(32):
            tr, tc = lane // lc, lane % lc
            a_thread, b_thread = (wm0 + tr) * 128, (wn0 + 4 * tc) * 4
            rows = [wm0 + tr + lr * i for i in range(cfg.tm)]
            cols = [wn0 + 4 * tc + 4 * lc * q + e for q in range(ns) for e in range(4)]
            acc = np.zeros((cfg.tm, cfg.tn))
            for g in range(BK // 4):
                a = np.zeros((cfg.tm, 4))
                for i in range(cfg.tm):
                    addr = a_thread + lr * i * 128 + (((g ^ ((lr * i) & 7)) ^ tr) << 4)
                    per_lane[lane].append(addr)
                    a[i] = smem[addr // 4 : addr // 4 + 4]
                for kk in range(4):
                    b = np.zeros(cfg.tn)
                    for q in range(ns):
                        addr = a_bytes + b_thread + (4 * g + kk) * cfg.bn * 4 + q * lc * 16
                        per_lane[lane].append(addr)
                        b[4 * q : 4 * q + 4] = smem[addr // 4 : addr // 4 + 4]
                    acc += np.outer(a[:, kk], b)
            prod[np.ix_(rows, cols)] = acc
        instructions += [list(x) for x in zip(*per_lane, strict=True)]
    return prod, instructions


@pytest.mark.parametrize("name", ["128x256", "128x128"])
def test_fragment_reads_compute_the_tile_without_bank_conflicts(name):
    cfg = CONFIGS[name]
    rng = np.random.default_rng(1)
    a_tile = rng.standard_normal((cfg.bm, BK)).astype(np.float32)
    b_tile = rng.standard_normal((BK, cfg.bn)).astype(np.float32)
    prod, instructions = _model_reads(cfg, a_tile, b_tile)
    np.testing.assert_allclose(prod, a_tile.astype(np.float64) @ b_tile, rtol=1e-5, atol=1e-5)
    assert len(instructions) == (cfg.threads // 32) * (BK // 4) * (cfg.tm + 4 * cfg.tn // 4)
    for addrs in instructions:
        chunks = set(addrs)  # lanes reading one 16-byte chunk share it (broadcast)
        assert all(a % 16 == 0 for a in chunks)
        groups = np.bincount([(a // 16) % 8 for a in chunks], minlength=8)  # 8 groups of 4 banks
        # a 128-byte wavefront serves one chunk per bank group: no more wavefronts than the bytes need
        assert groups.max() == -(-len(chunks) // 8), (name, sorted(chunks))


def _nvcc(cfg: TmaFp32Config, out: Path) -> str:
    defs = [f"-D{k}={v}" for k, v in cfg.macros().items()]
    cmd = ["nvcc", "-cubin", "-O3", "-arch=sm_90a", "-Xptxas", "-v", *defs, str(KERNELS / SOURCE), "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
@pytest.mark.parametrize("name", ["128x256 share B, warps release", "128x128"])
def test_the_kernel_builds_for_sm90a_without_spills(name, tmp_path):
    cfg = CONFIGS[name]
    report = _nvcc(cfg, tmp_path / "k.cubin")
    entry = report[report.index("Function properties for gemm_tma_fp32") :]
    assert re.search(r"0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads", entry), entry
    regs = int(re.search(r"Used (\d+) registers", entry).group(1))
    assert regs <= 65536 // (cfg.threads * (2 if cfg.tm * cfg.tn <= 64 else 1))  # the blocks per SM it is sized for
    tool = shutil.which("cuobjdump") or os.environ.get("CUOBJDUMP")
    if tool:  # the SASS: TMA loads, 16-byte shared loads only, no local memory
        sass = subprocess.run([tool, "-sass", str(tmp_path / "k.cubin")], capture_output=True, text=True).stdout
        assert "UTMALDG" in sass and "LDL" not in sass and "STL" not in sass
        lds = re.findall(r"\bLDS(\.\w+)?\b", sass)
        assert lds and all(w == ".128" for w in lds), set(lds)
        assert sass.count("FFMA") >= BK * cfg.tm * cfg.tn


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_product_is_right_at_odd_shapes_and_twice(name, tmp_path):
    from gemmviz.backends.cuda import CudaRun
    from gemmviz.backends.tma_fp32 import TmaFp32Kernel
    from gemmviz.core.measure.bench import Inputs
    from gemmviz.core.problem import Problem

    cfg = CONFIGS[name]
    _nvcc(cfg, tmp_path / "k.cubin")
    rng = np.random.default_rng(48)
    with CudaRun() as run:
        kernel = TmaFp32Kernel((tmp_path / "k.cubin").read_bytes(), cfg)
        try:
            for m, n, k in ODD:
                p = Problem(m, n, k)
                inputs = Inputs.random(p, rng)
                run._upload(inputs)
                b = run.buffers
                launch = kernel.launcher(int(b["a"]), int(b["b"]), int(b["c"]), m, n, k)
                for _ in range(2):  # poisoned C each time: every element written, within FP32's error of float64
                    check = run._check_launch(launch, run.buffers, p, p, inputs, "fp32")
                    assert check.valid, f"{name} {p.label}: {check.reason}"
        finally:
            kernel.unload()


class _FakeDriver:
    """libcuda as the launcher calls it, recording the tensor maps' boxes and the launches (no GPU)."""

    def __init__(self):
        self.maps: list[dict] = []
        self.launches: list[tuple] = []
        self.allocs: list[int] = []
        self.freed: list[int] = []

    def cuTensorMapEncodeTiled(self, tmap, dtype, rank, ptr, dims, strides, box, elem, inter, swizzle, l2, oob):
        self.maps.append(
            {"ptr": ptr.value, "dims": tuple(dims), "pitch": strides[0], "box": tuple(box), "swizzle": swizzle}
        )
        return 0

    def cuModuleLoadData(self, module, cubin):
        return 0

    def cuModuleGetFunction(self, func, module, name):
        if name == b"transpose_kn":
            func._obj.value = 5
            return 0
        func._obj.value = {b"gemm_tma_fp32": 1, b"pad_rows_fp32": 2, b"wgmma_tf32": 3, b"pad_rows": 4}[name]
        return 0

    def cuFuncSetAttribute(self, func, attr, value):
        return 0

    def cuMemAlloc_v2(self, ptr, nbytes):
        self.allocs.append(nbytes)
        ptr._obj.value = 0x10000 * len(self.allocs)
        return 0

    def cuMemFree_v2(self, ptr):
        self.freed.append(ptr.value)
        return 0

    def cuModuleUnload(self, module):
        return 0

    def cuLaunchKernel(self, func, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        self.launches.append((func.value, (gx, gy, gz), (bx, by, bz), smem))
        return 0


def test_the_launcher_maps_pads_and_launches_whole_clusters(monkeypatch):
    from gemmviz.backends import tma_fp32, wgmma

    fake = _FakeDriver()
    monkeypatch.setattr(wgmma, "load_driver", lambda: fake)
    monkeypatch.setattr(tma_fp32, "load_driver", lambda: fake)
    cfg = TmaFp32Config(share=2)
    kernel = tma_fp32.TmaFp32Kernel(b"cubin", cfg)
    m, n, k = 257, 383, 200  # B's rows (383 floats) are not 16 bytes: B is padded to 384, A is used as it is
    launch = kernel.launcher(0x1000, 0x2000, 0x3000, m, n, k)
    a_map, b_map = fake.maps
    assert a_map == {"ptr": 0x1000, "dims": (k, m), "pitch": 4 * k, "box": (BK, 128), "swizzle": 3}
    assert b_map == {"ptr": 0x10000, "dims": (n, k), "pitch": 4 * 384, "box": (256, BK // 2), "swizzle": 0}
    assert fake.allocs == [4 * k * 384]
    launch()
    launch()  # the same parameters each time: the pad then the product
    pad = (2, (12, 25, 1), (32, 8, 1), 0)
    gemm = (1, (cfg.grid(m, n), 1, 1), (256, 1, 1), cfg.smem_bytes)
    assert fake.launches == [pad, gemm, pad, gemm] and cfg.grid(m, n) == 8
    kernel.unload()


def test_the_tf32_launcher_on_the_same_driver_machinery_pads_both_operands_and_frees_its_scratch(monkeypatch):
    """backends/wgmma.WgmmaKernel and TmaFp32Kernel share one DriverKernel (module, functions, scratch, unload)
    and one pad_rows launch: the TF32 kernel at a shape where neither A's nor B's rows are 16 bytes."""
    from gemmviz.backends import wgmma

    fake = _FakeDriver()
    monkeypatch.setattr(wgmma, "load_driver", lambda: fake)
    cfg = wgmma.WgmmaConfig(bm=128, splits=1)
    kernel = wgmma.WgmmaKernel(b"cubin", cfg)
    m, n, k = 257, 383, 201
    launch = kernel.launcher(0x1000, 0x2000, 0x3000, m, n, k)
    assert fake.allocs == [4 * m * 204, 4 * k * 384]  # A to pitch 204, B to pitch 384
    assert [mp["pitch"] for mp in fake.maps] == [4 * 204, 4 * 384]
    launch()
    pads = [(4, (7, 33, 1), (32, 8, 1), 0), (4, (12, 26, 1), (32, 8, 1), 0)]
    assert fake.launches == [*pads, (3, (cfg.grid(m, n, k), 1, 1), (cfg.threads, 1, 1), cfg.smem_bytes)]
    kernel.unload()
    assert sorted(fake.freed) == [0x10000, 0x20000]  # both scratch copies, once


def test_macros_round_trip_and_name_every_kernel_option():
    for cfg in CONFIGS.values():
        assert TmaFp32Config.from_macros(cfg.macros()) == cfg
    source = (KERNELS / SOURCE).read_text()
    for macro in TmaFp32Config().macros():
        assert f"#ifndef {macro}\n" in source
