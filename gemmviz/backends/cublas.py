"""cuBLAS through ctypes: the toolkit's libcublas, found where the toolkit puts it, its version, and its status
codes as errors. The handle, workspace and calls belong to a run (backends/cuda.py's CudaRun)."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import glob
import os

CUBLAS_WORKSPACE_BYTES = 32 << 20  # NVIDIA's recommendation for Hopper (cuBLAS docs, cublasSetWorkspace)
_cublas_lib = None


def load_cublas():
    """The toolkit's libcublas through ctypes, or raise OSError saying where we looked."""
    global _cublas_lib
    if _cublas_lib is not None:
        return _cublas_lib
    candidates = []
    for root in filter(None, (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda")):
        candidates += sorted(glob.glob(os.path.join(root, "lib64", "libcublas.so*")), reverse=True)
    candidates += ["libcublas.so.13", "libcublas.so.12", "libcublas.so"]
    found = ctypes.util.find_library("cublas")
    if found:
        candidates.append(found)
    for name in candidates:
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        lib.cublasCreate_v2.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        lib.cublasDestroy_v2.argtypes = [ctypes.c_void_p]
        lib.cublasSetMathMode.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.cublasSetWorkspace_v2.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
        lib.cublasSgemm_v2.argtypes = [
            ctypes.c_void_p,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_float),
            ctypes.c_void_p,
            ctypes.c_int,
            ctypes.c_void_p,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_float),
            ctypes.c_void_p,
            ctypes.c_int,
        ]
        with contextlib.suppress(AttributeError):  # cuBLAS has had it since 6.0; a stripped build may not
            lib.cublasGetProperty.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
        _cublas_lib = lib
        return lib
    raise OSError("libcublas not found (looked in $CUDA_HOME/lib64, /usr/local/cuda/lib64 and the loader path)")


CUBLAS_PROPERTIES = (0, 1, 2)  # libraryPropertyType: MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL


def cublas_version() -> str | None:
    """The version of the libcublas gemmviz loads, "13.1.0" (cublasGetProperty, which needs no handle), or None
    where the library cannot be loaded or does not answer."""
    try:
        lib = load_cublas()
    except OSError:
        return None
    parts = []
    for prop in CUBLAS_PROPERTIES:
        value = ctypes.c_int()
        try:
            status = lib.cublasGetProperty(prop, ctypes.byref(value))
        except (AttributeError, ctypes.ArgumentError):
            return None
        if status != 0 or value.value < 0:
            return None
        parts.append(value.value)
    return ".".join(map(str, parts))


def check_cublas(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"{what} failed with cuBLAS status {status}")
