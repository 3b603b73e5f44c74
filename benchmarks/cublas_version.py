"""Print the cuBLAS version the GPU machine's libcublas reports (cublasGetProperty: major, minor, patch)."""

import ctypes
import ctypes.util

for name in ("libcublas.so", "libcublas.so.13", "libcublas.so.12", ctypes.util.find_library("cublas")):
    if not name:
        continue
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        continue
    parts = []
    for prop in range(3):  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
        v = ctypes.c_int()
        lib.cublasGetProperty(prop, ctypes.byref(v))
        parts.append(v.value)
    print(f"cuBLAS {'.'.join(map(str, parts))} ({name})")
    break
else:
    print("cuBLAS: no libcublas found")
