"""Backends run jobs for the engine. Each says whether it is available and, if not, why."""

from __future__ import annotations

from gemmviz.core.bench import Backend


def default_backends() -> dict[str, Backend]:
    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.backends.cuda import CudaBackend

    return {"cpu": CpuBackend(), "cuda": CudaBackend()}
