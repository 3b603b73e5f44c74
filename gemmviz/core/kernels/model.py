"""Closed-form global-memory traffic of each kernel family (the seeds' arithmetic, made exact).

Counts are in elements (FP32, 4 bytes). "Loads" are what the kernel really reads from global
memory: zero-padding at the edges of the tiled kernel is written to shared memory without a
global load, so it is not counted as one. Caches are ignored, as in the seeds: this is the
traffic the code asks for, not what reaches DRAM.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gemmviz.core.problem import FLOAT32_BYTES, Problem


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def fills_under_half(p: Problem, c: Mapping[str, int], sms: int) -> bool:
    """Whether a configuration's BM×BN tiles of C number fewer than half of `sms` SMs at this problem: most SMs
    would sit idle through the only wave (False for a configuration without BM and BN)."""
    bm, bn = c.get("BM"), c.get("BN")
    if not bm or not bn:
        return False
    return ceil_div(p.m, bm) * ceil_div(p.n, bn) < sms / 2


@dataclass(frozen=True)
class Traffic:
    model: str  # which formula: "naive", "tiled", "ideal"
    global_loads: int
    global_stores: int
    shared_loads: int
    shared_stores: int
    fmas_executed: int  # including multiply-adds on zero padding
    flops: int  # useful work, 2*M*N*K

    @property
    def global_bytes(self) -> int:
        return FLOAT32_BYTES * (self.global_loads + self.global_stores)

    @property
    def intensity(self) -> float:
        """Arithmetic intensity, FLOP per byte of global-memory traffic."""
        return self.flops / self.global_bytes


def ideal_traffic(p: Problem) -> Traffic:
    """Each input read once, the output written once: the seeds' I = MNK / (2(MK+KN+MN))."""
    return Traffic("ideal", p.m * p.k + p.k * p.n, p.m * p.n, 0, 0, p.m * p.n * p.k, p.flops)


def naive_traffic(p: Problem) -> Traffic:
    """Each thread reads a row of A and a column of B: 2K loads for 2K FLOPs, I -> 1/4."""
    return Traffic("naive", 2 * p.m * p.n * p.k, p.m * p.n, 0, 0, p.m * p.n * p.k, p.flops)


def tiled_traffic(p: Problem, tile: int) -> Traffic:
    """Shared-memory tiling with a square TILE: A is read once per block column, B once per block row.

    Blocks: ceil(N/T) x ceil(M/T); K-steps: ceil(K/T). Every thread of every block stores one
    element of each tile to shared memory per step (padding included) and reads 2T from it.
    For square N, a multiple of T: loads = 2N^3/T, so I = T/4 without the stores.
    """
    grid_x, grid_y, steps = ceil_div(p.n, tile), ceil_div(p.m, tile), ceil_div(p.k, tile)
    blocks = grid_x * grid_y
    threads = blocks * tile * tile
    loads = grid_x * p.m * p.k + grid_y * p.k * p.n
    return Traffic(
        model=f"tiled (TILE={tile})",
        global_loads=loads,
        global_stores=p.m * p.n,
        shared_loads=threads * steps * 2 * tile,
        shared_stores=threads * steps * 2,
        fmas_executed=threads * steps * tile,
        flops=p.flops,
    )


def padded(p: Problem, multiple: tuple[int, int, int]) -> Problem:
    """The problem rounded up to multiples of (m, n, k): what a kernel without edge handling runs."""
    mm, nm, km = multiple
    return Problem(ceil_div(p.m, mm) * mm, ceil_div(p.n, nm) * nm, ceil_div(p.k, km) * km)


def blocked_traffic(
    p: Problem, bm: int, bn: int, bk: int, threads: int, smem_reads_per_thread_per_k: float, model: str
) -> Traffic:
    """A kernel that computes BM x BN tiles of C, staging BM x BK and BK x BN tiles in shared memory.

    Sizes that are not multiples are zero-padded by the engine, and the kernel reads the padding from
    global memory, so the counts use the padded sizes; FLOPs stay the useful 2MNK.
    A is read once per block column, B once per block row: loads = (N/BN) M K + (M/BM) K N.
    """
    q = padded(p, (bm, bn, bk))
    blocks = (q.m // bm) * (q.n // bn)
    return Traffic(
        model=model,
        global_loads=(q.n // bn) * q.m * q.k + (q.m // bm) * q.k * q.n,
        global_stores=q.m * q.n,
        shared_loads=int(blocks * threads * q.k * smem_reads_per_thread_per_k),
        shared_stores=blocks * (q.k // bk) * (bm * bk + bk * bn),
        fmas_executed=q.m * q.n * q.k,
        flops=p.flops,
    )
