"""Launching kernels/cpasync_cluster.cu (FP32 SIMT fed by TMA, 2-block clusters sharing A or B by multicast) through
the driver API, with backends/wgmma.py's machinery: its driver handle, tensor maps and Launch.

The arithmetic (grid, boxes, shared memory, padded pitches) is plain Python, testable without a GPU; only
`TmaFp32Kernel` touches the driver. Like WgmmaKernel it runs in whatever context is current (a PyCUDA one works).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

from gemmviz.backends.wgmma import (
    DriverKernel,
    Launch,
    _check,
    kernel_params,
    load_driver,
    pad_rows_launch,
    tensor_map_2d,
)

KERNEL_NAME = "gemm_tma_fp32"
PAD_NAME = "pad_rows_fp32"
SOURCE = "cpasync_cluster.cu"
BK = 32  # one 128-byte swizzle row of FP32 (the kernel's BK)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def pitch(cols: int) -> int:
    """Row pitch in floats that TMA accepts (a multiple of 16 bytes)."""
    return cdiv(cols, 4) * 4


@dataclass(frozen=True)
class TmaFp32Config:
    """The kernel's -D macros. share: 0 none, 1 pairs along N multicast A, 2 pairs along M multicast B; release: 0 a
    block barrier per K-slice, 1 each warp frees a stage itself; lag: 1 refills the stage read a slice earlier."""

    bm: int = 128
    bn: int = 256
    wm: int = 64
    wn: int = 64
    tm: int = 8
    tn: int = 16
    stages: int = 4
    group_m: int = 8
    share: int = 0
    release: int = 0
    lag: int = 0

    def __post_init__(self) -> None:  # the kernel's static_asserts, so a bad config fails before nvcc
        lr, lc = self.wm // self.tm, self.wn // self.tn
        if self.bm % self.wm or self.bn % self.wn or self.wm % self.tm or self.wn % self.tn:
            raise ValueError("warp tiles divide the block tile, thread tiles the warp tile")
        if lr * lc != 32 or lr > 8 or lr & (lr - 1) or lc > 8 or self.wm % 8 or self.tn % 4:
            raise ValueError("a warp is LR x LC = 32 lanes, LR a power of 2 <= 8, LC <= 8, TN a multiple of 4")
        if self.share not in (0, 1, 2) or self.release not in (0, 1) or self.lag not in (0, 1):
            raise ValueError("share is 0, 1 (A along N) or 2 (B along M); release and lag are 0 or 1")
        if self.bn > 256 or self.bm // self.cluster > 256 or (self.bm * BK * 4) % (1024 * self.cluster):
            raise ValueError("TMA boxes are at most 256 wide; A's halves start on 1024 bytes")
        if not 1 <= self.threads <= 512 or self.smem_bytes > 227 * 1024:
            raise ValueError("at most 512 threads and 227 KiB of shared memory")

    @property
    def cluster(self) -> int:
        return 2 if self.share else 1

    @property
    def threads(self) -> int:
        return (self.bm // self.wm) * (self.bn // self.wn) * 32

    @property
    def stage_bytes(self) -> int:
        return (self.bm + self.bn) * BK * 4

    @property
    def smem_bytes(self) -> int:
        return self.stages * self.stage_bytes + 1024 + 16 * self.stages  # + alignment slack + mbarriers

    @property
    def cluster_tile(self) -> tuple[int, int]:
        """Rows × columns of C one cluster covers."""
        return self.bm * (2 if self.share == 2 else 1), self.bn * (2 if self.share == 1 else 1)

    def grid(self, m: int, n: int) -> int:
        """Blocks of the 1-D grid: whole clusters over the cluster tiles (a pair's block past M or N stores nothing)."""
        rows, cols = self.cluster_tile
        return cdiv(m, rows) * cdiv(n, cols) * self.cluster

    def boxes(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """(rows, columns) of the TMA box of A and of B: a shared operand's box is the half each block loads."""
        a = (self.bm // 2 if self.share == 1 else self.bm, BK)
        b = (BK // 2 if self.share == 2 else BK, self.bn)
        return a, b

    def macros(self) -> dict[str, int]:
        return {
            "BM": self.bm,
            "BN": self.bn,
            "WM": self.wm,
            "WN": self.wn,
            "TM": self.tm,
            "TN": self.tn,
            "STAGES": self.stages,
            "GROUP_M": self.group_m,
            "SHARE": self.share,
            "RELEASE": self.release,
            "LAG": self.lag,
        }

    @classmethod
    def from_macros(cls, macros: dict) -> TmaFp32Config:
        fields = {"bm": "BM", "bn": "BN", "wm": "WM", "wn": "WN", "tm": "TM", "tn": "TN", "stages": "STAGES"}
        fields |= {"group_m": "GROUP_M", "share": "SHARE", "release": "RELEASE", "lag": "LAG"}
        return cls(**{f: int(macros.get(m, getattr(cls, f))) for f, m in fields.items()})


def pads(m: int, n: int, k: int) -> dict[str, tuple[int, int, int]]:
    """The operands that need a padded copy for TMA's 16-byte row pitch: name -> (rows, cols, pitch)."""
    out = {}
    if k % 4:
        out["a"] = (m, k, pitch(k))
    if n % 4:
        out["b"] = (k, n, pitch(n))
    return out


class TmaFp32Kernel(DriverKernel):
    """The loaded cubin of one TmaFp32Config; its scratch holds the padded copies of A and B."""

    def __init__(self, cubin: bytes, config: TmaFp32Config):
        super().__init__(cubin, KERNEL_NAME, config.smem_bytes)
        self.config = config
        self._pad = self._function(PAD_NAME)

    def launcher(self, a: int, b: int, c: int, m: int, n: int, k: int) -> Launch:
        """A callable that launches C = A·B on stream 0 (no sync): A m × k, B k × n, C m × n, all dense. An operand
        whose rows are not a multiple of 16 bytes is first copied to padded rows (inside the launch: it counts)."""
        cfg, lib = self.config, load_driver()
        ptrs, lds = {"a": a, "b": b}, {"a": k, "b": n}
        keep: list = []
        pad_launches = []
        for name, (rows, cols, ld) in pads(m, n, k).items():
            dst = self._buffer(name, 4 * rows * ld)
            pad_launches.append(pad_rows_launch(ptrs[name], dst, rows, cols, ld, keep))
            ptrs[name], lds[name] = dst, ld
        (a_rows, a_cols), (b_rows, b_cols) = cfg.boxes()
        tm_a = tensor_map_2d(ptrs["a"], m, k, lds["a"], a_rows, a_cols)  # 128-byte swizzle
        tm_b = tensor_map_2d(ptrs["b"], k, n, lds["b"], b_rows, b_cols, swizzle=False)
        args = [tm_a, tm_b, ctypes.c_uint64(c), ctypes.c_int(m), ctypes.c_int(n), ctypes.c_int(k)]
        params = kernel_params(args)
        keep += [args, params]
        grid, gemm, pad = cfg.grid(m, n), self._gemm, self._pad

        def launch() -> None:
            for p_grid, p_params in pad_launches:
                _check(lib.cuLaunchKernel(pad, *p_grid, 32, 8, 1, 0, None, p_params, None), "pad_rows_fp32 launch")
            _check(
                lib.cuLaunchKernel(gemm, grid, 1, 1, cfg.threads, 1, 1, cfg.smem_bytes, None, params, None),
                f"{KERNEL_NAME} launch",
            )

        return Launch(launch, keep)
