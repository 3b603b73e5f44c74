"""How many threads numpy's BLAS uses, and setting it, through the library's own C API (as threadpoolctl does,
without the dependency): OpenBLAS under its plain or scipy-openblas names, found among the loaded libraries."""

from __future__ import annotations

import ctypes

_GET = ("openblas_get_num_threads", "scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_")
_SET = ("openblas_set_num_threads", "scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_")


def _libraries() -> list[ctypes.CDLL]:
    import numpy  # noqa: F401  (loads its BLAS)

    paths = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if "/" in line else ""
                if (
                    "blas" in path.lower()
                    and path.endswith(tuple(".so" + s for s in ("", ".0", ".3")))
                    or ("openblas" in path.lower() and ".so" in path)
                ):
                    if path not in paths:
                        paths.append(path)
    except OSError:
        return []
    libs = []
    for path in paths:
        try:
            libs.append(ctypes.CDLL(path))
        except OSError:
            continue
    return libs


def _symbol(names: tuple[str, ...]):
    for lib in _libraries():
        for name in names:
            fn = getattr(lib, name, None)
            if fn is not None:
                return fn
    return None


def blas_threads() -> int | None:
    fn = _symbol(_GET)
    return int(fn()) if fn is not None else None


def set_blas_threads(n: int) -> bool:
    fn = _symbol(_SET)
    if fn is None:
        return False
    fn.argtypes = [ctypes.c_int]
    fn(int(n))
    return True
