"""Print the cuBLAS version gemmviz loads (backends/cublas.cublas_version: cublasGetProperty), for a recording's
provenance where no GPU result is made."""

from gemmviz.backends.cublas import cublas_version

print(f"cuBLAS {cublas_version() or 'not found (libcublas did not load or answer)'}")
