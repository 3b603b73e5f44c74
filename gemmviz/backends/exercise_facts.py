"""The facts of a wrong C (core/exercise/diagnose.py) where C is at hand: the CPU emulator and the GPU's child
process. Its matrices are small (a check's sizes), so numpy's BLAS runs them on one thread: on a loaded
machine its threads only wait on each other (a second a size, against ten milliseconds on one thread)."""

from __future__ import annotations

import numpy as np

from gemmviz.backends.blas_threads import blas_threads, set_blas_threads
from gemmviz.core.exercise.diagnose import diagnose


def facts_of(c: np.ndarray, a: np.ndarray, b: np.ndarray, block_tile) -> dict:
    """diagnose(c, a, b, block_tile) with numpy's BLAS on one thread, its setting restored after."""
    before = blas_threads()
    single = bool(before and before > 1 and set_blas_threads(1))
    try:
        return diagnose(c, a, b, block_tile)
    finally:
        if single and before:
            set_blas_threads(before)
