"""The recorded accesses of one traced block beside its schedule: which elements of A, B and C the
block's warps really read and wrote, step by step of the schedule the animation plays (core/schedule/block.py).

A recorded global request becomes matrix cells (each active lane's address, over 4 bytes, as row and column of
the matrix it falls in); a cell belongs to the schedule step that covers its k (A's column, B's row; C at the
store). Per step the recorded element count sits beside the schedule's count of the same step. Pure Python +
numpy, no Qt.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from gemmviz.core.hardware import accesses as acc
from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import block_schedule
from gemmviz.core.schedule.records import Schedule, Step

A, B, C = 0, 1, 2


@dataclass(frozen=True)
class ReplayStep:
    """What the traced block touched in one schedule step, beside what the schedule says it touches."""

    step: int  # index into schedule.steps
    kind: str  # the schedule step's kind ("load", "read", "store", ...)
    cells: dict[int, np.ndarray]  # matrix (A, B, C) -> (n, 3) rows of (row, col, warp), in recorded order
    recorded: int  # elements recorded in this step (global loads, or stores at the store step)
    model: int  # the schedule's count for the step
    complete: bool  # every request of the step is kept in detail (the shipped file keeps the first ones)


def _cells(trace: acc.AccessTrace, slot: int, run: Problem) -> dict[int, np.ndarray]:
    """matrix -> (n, 4) rows (row, col, warp, seq) of every element the slot's warps touched in global memory."""
    out = {}
    g = (trace.slot == slot) & (trace.space == acc.GLOBAL) & ((trace.flags & acc.ASYNC) == 0)
    lanes = acc.lanes_of(trace.active)
    cols = {A: run.k, B: run.n, C: run.n}
    for m in (A, B, C):
        sel = g & (trace.matrix == m)
        if not sel.any():
            out[m] = np.zeros((0, 4), np.int64)
            continue
        rows_idx, lane_idx = np.nonzero(lanes[sel])
        idx = np.nonzero(sel)[0][rows_idx]
        size = trace.size[idx].astype(np.int64)
        element = trace.addr[idx, lane_idx] // 4
        words = np.maximum(1, size // 4)
        rep = np.repeat(np.arange(len(idx)), words)
        element = np.repeat(element, words) + (np.arange(len(rep)) - np.repeat(np.cumsum(words) - words, words))
        out[m] = np.stack([element // cols[m], element % cols[m], trace.warp[idx][rep], trace.seq[idx][rep]], axis=1)
    return out


def _k_span(step: Step) -> tuple[int, int] | None:
    """The slice of K a load step touches: A's columns, or B's rows where it reads B alone; None for no load."""
    if step.a is not None:
        return step.a.c0, step.a.c1
    if step.b is not None:
        return step.b.r0, step.b.r1
    return None


def replay(trace: acc.AccessTrace, slot: int = 0, tile: int | None = None) -> tuple[Schedule, list[ReplayStep]]:
    """The schedule of the traced block `slot` and, per step, the cells its warps recorded there."""
    bx, by, _bz = trace.blocks[slot]
    problem = Problem(*trace.mnk)
    if tile is None:
        tile = next(iter(trace.params.values()), None)
    sched = block_schedule(trace.variant, problem, tile, (by, bx))
    cells = _cells(trace, slot, sched.run_problem)
    complete = trace.kept == trace.stored
    out = []
    for i, step in enumerate(sched.steps):
        if step.kind == "store":
            mine = {C: cells[C][:, :3]}
            recorded, model = len(cells[C]), step.delta.global_stores
        elif (span := _k_span(step)) is not None:
            k0, k1 = span
            a = cells[A][(cells[A][:, 1] >= k0) & (cells[A][:, 1] < k1)]
            b = cells[B][(cells[B][:, 0] >= k0) & (cells[B][:, 0] < k1)]
            mine = {A: a[:, :3], B: b[:, :3]}
            recorded, model = len(a) + len(b), step.delta.global_loads
        else:
            continue
        out.append(ReplayStep(i, step.kind, mine, recorded, model, complete or recorded == model))
    return sched, out


def hopper_beside_model(trace: acc.AccessTrace) -> dict[str, int]:
    """The Hopper kernel (TMA + wgmma): what the tracer saw per block beside its schedule's model. Its A and B
    tiles arrive by TMA bulk tensor copies and are read by wgmma from shared memory, neither a per-thread
    access, so their copies and bytes are the model's; the epilogue's stores to C are per thread, recorded.
    The model's block is tile (0, 0): at sizes its tiles divide, every block does the same."""
    sched = block_schedule(trace.variant, Problem(*trace.mnk), None, (0, 0))
    copies = sum(1 for s in sched.steps if s.kind == "tma")
    n = max(1, len(trace.blocks))
    return {
        "model_tma_copies": copies,
        "model_tma_bytes": 4 * sched.totals.global_loads,
        "model_stores": sched.totals.global_stores,
        "recorded_stores": acc.element_counts(trace.summary[0])["global_stores"],
        "recorded_global_loads": acc.element_counts(trace.summary[0])["global_loads"],
        "recorded_wgmma_per_block": trace.wgmma // n,  # one per warp that issued it (4 warps a warpgroup)
    }


@dataclass(frozen=True)
class SharedBanks:
    """The shared-memory requests of the tiled kernel's block (kernels/tiled.cu) on a TILE × (TILE + pad) layout,
    worked out from the addresses its warps ask for, by the bank rule the recorded accesses are summarised with
    (core/hardware/accesses.wavefronts): per kind of request, how many a block makes and how many wavefronts they take,
    beside the ideal (no bank conflict)."""

    tile: int
    pad: int
    requests: dict[str, int]  # "store" (tile_A/B[ty][tx] = ...), "read" (tile_A[ty][k], tile_B[k][tx], all k)
    wavefronts: dict[str, int]
    ideal: dict[str, int]

    def ways(self, kind: str) -> float:
        """Wavefronts per ideal wavefront: 1 without a conflict, 2 for a two-way one."""
        return self.wavefronts[kind] / max(1, self.ideal[kind])


@functools.cache  # an animation's counters ask for it every frame (5 ms each at TILE 32)
def shared_banks(tile: int, pad: int) -> SharedBanks:
    """The bank figures of one block of the tiled kernel with `pad` extra columns per shared row (PAD in
    kernels/tiled.cu): its two stores per tile of K, and its 2·TILE reads of one tile's compute."""
    stride = tile + pad
    threads = np.arange(tile * tile)
    ty, tx = threads // tile, threads % tile
    warps = -(-len(threads) // acc.WARP)
    lanes = np.full((warps, acc.WARP), -1)
    lanes.flat[: len(threads)] = threads
    active = np.array([sum(1 << i for i in range(acc.WARP) if lanes[w, i] >= 0) for w in range(warps)], np.uint32)
    base_b = 4 * tile * stride  # tile_B follows tile_A

    def addr(word_of) -> np.ndarray:  # (warps, 32) byte addresses; inactive lanes anywhere
        t = np.maximum(lanes, 0)
        return 4 * word_of(ty[t], tx[t])

    stores = [addr(lambda y, x: y * stride + x), base_b + addr(lambda y, x: y * stride + x)]
    reads = []
    for k in range(tile):
        reads.append(addr(lambda y, _x, k=k: y * stride + k))  # tile_A[ty][k]
        reads.append(base_b + addr(lambda _y, x, k=k: k * stride + x))  # tile_B[k][tx]
    requests, waves, ideal = {}, {}, {}
    for kind, group in (("store", stores), ("read", reads)):
        a = np.concatenate(group)
        act = np.tile(active, len(group))
        w, i = acc.wavefronts(a, act, np.full(len(a), 4))
        requests[kind], waves[kind], ideal[kind] = len(a), int(w.sum()), int(i.sum())
    return SharedBanks(tile, pad, requests, waves, ideal)
