"""The libraries backends/cuda.py reaches besides PyCUDA, faked on the same simulated GPU: cuBLAS (the ctypes
handle `load_cublas` returns), the Hopper kernel's driver-API launcher (backends/wgmma.WgmmaKernel) and
pynvml. Each checks its arguments as the real one would (column-major operands and leading dimensions for
cuBLAS, TMA pitches and alignment for the Hopper kernel)."""

from __future__ import annotations

import json

import numpy as np

from gemmviz.backends.wgmma import KERNEL_NAME, TRANSPOSE_NAME, DriverError, WgmmaConfig
from tests.fake_pycuda import driver
from tests.fake_pycuda.device import FakeDriverError, FakeGpu

CUBLAS_STATUS_SUCCESS, CUBLAS_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_INVALID_VALUE = 0, 1, 7


def _value(arg):
    """The value behind a ctypes argument: a c_void_p, a byref(...) of one, or a plain int."""
    if hasattr(arg, "_obj"):
        arg = arg._obj
    return arg.value if hasattr(arg, "value") else arg


class FakeCublas:
    def __init__(self, gpu: FakeGpu):
        self.gpu = gpu
        self.handles: dict[int, dict] = {}
        self._next = 0x1000
        self.version = (13, 1, 0)  # what cublasGetProperty answers (MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL)

    def cublasGetProperty(self, prop, value_ref) -> int:
        prop = _value(prop)
        if prop not in (0, 1, 2):
            return CUBLAS_STATUS_INVALID_VALUE
        value_ref._obj.value = self.version[prop]
        return CUBLAS_STATUS_SUCCESS

    def cublasCreate_v2(self, handle_ref) -> int:
        try:
            ctx = self.gpu.current()
        except FakeDriverError:
            return CUBLAS_STATUS_NOT_INITIALIZED
        self._next += 16
        handle_ref._obj.value = self._next
        self.handles[self._next] = {"ctx": ctx, "mode": 0, "workspace": None}
        self.gpu.cublas_handles.add(self._next)
        return CUBLAS_STATUS_SUCCESS

    def _handle(self, handle) -> dict | None:
        return self.handles.get(_value(handle))

    def cublasDestroy_v2(self, handle) -> int:
        h = self.handles.pop(_value(handle), None)
        self.gpu.cublas_handles.discard(_value(handle))
        return CUBLAS_STATUS_SUCCESS if h else CUBLAS_STATUS_NOT_INITIALIZED

    def cublasSetMathMode(self, handle, mode) -> int:
        h = self._handle(handle)
        if h is None or _value(mode) not in (0, 1, 2, 3, 16):
            return CUBLAS_STATUS_INVALID_VALUE
        h["mode"] = _value(mode)
        return CUBLAS_STATUS_SUCCESS

    def cublasSetWorkspace_v2(self, handle, workspace, size) -> int:
        h = self._handle(handle)
        try:
            alloc, offset = self.gpu.resolve(_value(workspace))
        except FakeDriverError:
            return CUBLAS_STATUS_INVALID_VALUE
        if h is None or offset + _value(size) > alloc.nbytes:
            return CUBLAS_STATUS_INVALID_VALUE
        h["workspace"] = (alloc, _value(size))
        return CUBLAS_STATUS_SUCCESS

    def cublasSgemm_v2(self, handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) -> int:
        """Column-major C (m×n, ldc) = alpha·A (m×k, lda) · B (k×n, ldb) + beta·C; no transposes."""
        h = self._handle(handle)
        if h is None:
            return CUBLAS_STATUS_NOT_INITIALIZED
        m, n, k, lda, ldb, ldc = map(int, (m, n, k, lda, ldb, ldc))
        if (transa, transb) != (0, 0) or lda < max(1, m) or ldb < max(1, k) or ldc < max(1, m):
            return CUBLAS_STATUS_INVALID_VALUE
        try:
            ctx = self.gpu.require(h["ctx"])
        except FakeDriverError as exc:
            raise driver.LaunchError(str(exc)) from None
        al, be = float(_value(alpha)), float(_value(beta))
        pa, pb, pc = _value(a), _value(b), _value(c)
        gpu = self.gpu

        def column_major(pointer, rows, cols, ld):
            return gpu.array(pointer, np.float32, ld * (cols - 1) + rows if cols else 0)

        def compute() -> np.ndarray:
            av = np.lib.stride_tricks.as_strided(column_major(pa, m, k, lda), (m, k), (4, 4 * lda))
            bv = np.lib.stride_tricks.as_strided(column_major(pb, k, n, ldb), (k, n), (4, 4 * ldb))
            cv = np.lib.stride_tricks.as_strided(column_major(pc, m, n, ldc), (m, n), (4, 4 * ldc))
            product = al * (av @ bv)
            cv[...] = product if be == 0 else product + be * cv  # beta 0: C is not read (NaN poison stays out)
            return cv.T  # the row-major m×n C of the caller's swapped call

        gpu.run_kernel("cublasSgemm", ctx, compute, (m, n, k))
        return CUBLAS_STATUS_SUCCESS


class FakeWgmmaKernel:
    """backends/wgmma.WgmmaKernel on the fake GPU: the cubin must hold both kernels, TMA's rules are checked."""

    def __init__(self, cubin: bytes, config: WgmmaConfig):
        gpu = driver._gpu()
        try:
            self._ctx = gpu.current()
        except FakeDriverError as exc:
            raise DriverError(f"cuModuleLoadData failed: {exc}") from None
        if not cubin.startswith(driver.CUBIN_MAGIC):
            raise DriverError("cuModuleLoadData failed: 200 device kernel image is invalid")
        self.meta = json.loads(cubin[len(driver.CUBIN_MAGIC) :])
        for name in (KERNEL_NAME, TRANSPOSE_NAME):
            if name not in self.meta["functions"]:
                raise DriverError(f"{name} failed: 500 named symbol not found")
        if "sm_90a" not in str(self.meta["arch"]):
            raise DriverError("cuModuleLoadData failed: 209 no kernel image is available for execution on the device")
        if config.smem_bytes > gpu.attributes["MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"]:
            raise DriverError("cuFuncSetAttribute failed: 1 invalid argument")
        self.config = config
        self.gpu = gpu
        self.trace: int | None = None
        self.loaded = True

    def set_trace(self, buffer: int) -> None:
        if not self.meta["traced"]:
            raise DriverError("cuModuleGetGlobal(gemmviz_trace) failed: 500 named symbol not found")
        self.trace = int(buffer)

    def unload(self) -> None:
        self.loaded = False

    def launcher(self, a, b, c, m, n, k, bt=None, ldbt=None):
        cfg = self.config
        lda, ldb = k, n
        # Dense A and B at any k, n: the real launcher maps a row-pitch copy of an operand whose rows are not a
        # multiple of 16 bytes; a scratch Bt (b_regs=False) must meet TMA's rule itself.
        for ptr, pitch in ((a, 4), (b, 4)) if cfg.b_regs else ((a, 4), (bt, ldbt)):
            if ptr is None or pitch is None:
                raise ValueError("b_regs=False needs a scratch buffer bt of n × ldbt floats")
            if pitch % 4 or int(ptr) % 16:
                raise ValueError("TMA needs a 16-byte aligned base and a row pitch that is a multiple of 16 bytes")
        gpu = self.gpu

        def gemm() -> np.ndarray:
            av = np.lib.stride_tricks.as_strided(gpu.array(a, np.float32, lda * (m - 1) + k), (m, k), (4 * lda, 4))
            if cfg.b_regs:
                bv = np.lib.stride_tricks.as_strided(gpu.array(b, np.float32, ldb * (k - 1) + n), (k, n), (4 * ldb, 4))
            else:
                btv = np.lib.stride_tricks.as_strided(
                    gpu.array(bt, np.float32, ldbt * (n - 1) + k), (n, k), (4 * ldbt, 4)
                )
                bv = btv.T
            cv = gpu.array(c, np.float32, m * n).reshape(m, n)
            np.matmul(av, bv, out=cv)
            return cv

        def transpose() -> np.ndarray:
            bv = gpu.array(b, np.float32, k * n).reshape(k, n)
            out = np.lib.stride_tricks.as_strided(gpu.array(bt, np.float32, ldbt * (n - 1) + k), (n, k), (4 * ldbt, 4))
            out[...] = bv.T
            return out

        def launch() -> None:
            if not self.loaded:
                raise DriverError("wgmma_tf32 launch failed: 400 invalid resource handle (unloaded)")
            try:
                ctx = gpu.require(self._ctx)
            except FakeDriverError as exc:
                raise DriverError(f"wgmma_tf32 launch failed: {exc}") from None
            if not cfg.b_regs:
                gpu.run_kernel(TRANSPOSE_NAME, ctx, transpose, (0, 0, 0))
            trace = (self.trace, cfg.grid(m, n, k)) if self.trace is not None else None
            gpu.run_kernel(KERNEL_NAME, ctx, gemm, (m, n, k), trace)

        return launch


class FakeNvml:
    """pynvml's calls that backends/cuda.py's Nvml makes."""

    NVML_CLOCK_SM = 1
    NVML_TEMPERATURE_GPU = 0

    def __init__(self, gpu: FakeGpu):
        self.gpu = gpu
        self.clock_mhz = gpu.attributes["CLOCK_RATE"] / 1e3
        self.temperature_c = 41.0

    def nvmlInit(self) -> None:
        pass

    def nvmlDeviceGetHandleByPciBusId(self, bus: str):
        return ("nvml", bus)

    def nvmlDeviceGetClockInfo(self, handle, kind) -> int:
        return int(self.clock_mhz)

    def nvmlDeviceGetMaxClockInfo(self, handle, kind) -> int:
        return int(self.gpu.attributes["CLOCK_RATE"] / 1e3)

    def nvmlDeviceGetTemperature(self, handle, kind) -> int:
        return int(self.temperature_c)
