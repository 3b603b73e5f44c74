"""numpy's BLAS thread count through OpenBLAS's own C API (backends/blas_threads.py, used by
benchmarks/cpu_blas_threads.py), in a process of its own so the other tests keep their thread count."""

import subprocess
import sys

import pytest

CODE = """
from gemmviz.backends.blas_threads import blas_threads, set_blas_threads
before = blas_threads()
if before is None:
    print("none", set_blas_threads(2))
else:
    ok = set_blas_threads(1)
    print(before, ok, blas_threads())
"""


def test_the_blas_thread_count_is_read_and_set():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120, check=True)
    words = out.stdout.split()
    if words[0] == "none":  # a BLAS without OpenBLAS's API: nothing to read, and setting says so
        assert words[1] == "False"
        pytest.skip("numpy's BLAS here is not OpenBLAS")
    before, ok, after = words
    assert int(before) >= 1 and ok == "True" and after == "1"
