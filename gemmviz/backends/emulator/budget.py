"""How many instructions an emulated launch may run: a budget from what the exercises' naive reference needs."""

from __future__ import annotations

# What the exercises' reference kernels need, measured on the emulator (instructions, thread by thread, as
# Machine.work counts them): gpu-naive 5.9 per multiply-add at 128³, 6.2 at 64³, 6.9 at 33×17×65
# where the threads outside C add theirs (5,407 at 1×1×1: 5 per launched thread); gpu-tiled (TILE 16) 5.0 at
# 128³. The budget is BUDGET_FACTOR times the naive one's: a correct kernel whose every thread computes its whole
# row does N times its work (128 times at 128³, the check's largest size), and passes.
REFERENCE_PER_MAC = 6
REFERENCE_PER_ELEMENT = 20
REFERENCE_PER_THREAD = 5
BUDGET_FACTOR = 200


def reference_work(m: int, n: int, k: int, threads: int = 0) -> int:
    """About what the exercises' naive reference runs at m×n×k with `threads` launched (instructions, thread by
    thread)."""
    return int(REFERENCE_PER_MAC * m * n * k + REFERENCE_PER_ELEMENT * m * n + REFERENCE_PER_THREAD * threads) + 1


def budget_for(m: int, n: int, k: int, threads: int = 0) -> int:
    """Instructions (thread by thread) one launch of `threads` may run before it is stopped: BUDGET_FACTOR times
    what the naive reference needs at this size, so a slow but correct kernel (a thread per row that computes
    it all) finishes, and a loop that runs on is stopped in seconds. A loop that makes no progress at all is
    stopped sooner, as endless (machine.Chunk._no_progress)."""
    return BUDGET_FACTOR * reference_work(m, n, k, threads) + 100_000
