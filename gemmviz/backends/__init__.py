"""Backends run jobs for the engine. Each says whether it is available and, if not, why."""

from __future__ import annotations

from gemmviz.backends.cpu import CpuBackend
from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.measure.bench import Backend


def default_backends() -> dict[str, Backend]:
    """Every backend, keyed by the `backend` field of the variants it runs (PyCUDA is imported only on use)."""
    return {"cpu": CpuBackend(), "cuda": CudaBackend()}
