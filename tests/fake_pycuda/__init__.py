"""A fake PyCUDA for tests without a GPU: `install(monkeypatch)` puts it in sys.modules (with a fake pynvml, a
fake cuBLAS behind backends/cublas.py's ctypes handle and a fake Hopper launcher) for one test, and returns the
simulated GPU (device.py) the test can steer and inspect. Nothing is installed globally.

The kernels it "runs" compute C = A·B with numpy on the fake device's buffers, whatever their source says; the
blocking kernel reports a plausible spin (ns, SM cycles, timed out). See device.py for the rules it enforces.
"""

from __future__ import annotations

import sys

VERSION = (2025, 1, 1)
VERSION_TEXT = "2025.1.1 (fake)"


def install(monkeypatch, gpu=None, nvml: bool = True):
    """Make `import pycuda`, `pycuda.driver`, `pycuda.compiler` (and `pynvml`) the fakes until the test ends;
    reset the CUDA backend's cached status, toolchain and cuBLAS handle so they are probed against the fake."""
    from gemmviz.backends import cublas, cuda_probe, kernel_cache, wgmma
    from tests.fake_pycuda import compiler, driver, libs
    from tests.fake_pycuda.device import FakeGpu

    gpu = gpu or FakeGpu()
    package = sys.modules[__name__]
    monkeypatch.setattr(driver, "gpu", gpu)
    monkeypatch.setattr(driver, "_initialized", False)
    monkeypatch.setattr(package, "driver", driver, raising=False)
    monkeypatch.setattr(package, "compiler", compiler, raising=False)
    monkeypatch.setitem(sys.modules, "pycuda", package)
    monkeypatch.setitem(sys.modules, "pycuda.driver", driver)
    monkeypatch.setitem(sys.modules, "pycuda.compiler", compiler)
    if nvml:
        monkeypatch.setitem(sys.modules, "pynvml", libs.FakeNvml(gpu))
    else:
        monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml raises ImportError
    monkeypatch.setattr(cuda_probe, "_status", None)
    monkeypatch.setattr(cublas, "_cublas_lib", libs.FakeCublas(gpu))
    monkeypatch.setattr(kernel_cache, "_toolchain", None)
    monkeypatch.setattr(wgmma, "WgmmaKernel", libs.FakeWgmmaKernel)
    return gpu
