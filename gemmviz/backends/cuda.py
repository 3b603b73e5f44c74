"""CUDA backend over PyCUDA. PyCUDA is imported only when a GPU job runs or availability is asked.

The thread that opens a run creates and owns the context (no pycuda.autoinit) and pops it when the
run ends, after freeing every GPU object. Kernels are compiled with nvcc through PyCUDA and the cubin
is cached on disk (backends/kernel_cache.py), so a second run compiles nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from gemmviz.backends.cublas import CUBLAS_WORKSPACE_BYTES, check_cublas, cublas_version, load_cublas
from gemmviz.backends.cuda_probe import cuda_status, cuda_status_message
from gemmviz.backends.gpu_timing import KernelTimer, Nvml
from gemmviz.backends.kernel_cache import compile_cubin
from gemmviz.backends.profile import instrument_source
from gemmviz.backends.wgmma import DriverError, WgmmaKernel
from gemmviz.core.hardware.counters import TRACE_FIELDS, TraceError, decode_trace
from gemmviz.core.kernels import hopper_model
from gemmviz.core.kernels.model import fills_under_half
from gemmviz.core.kernels.tuning import tuned_config
from gemmviz.core.kernels.variants import Variant
from gemmviz.core.measure.bench import (
    Backend,
    BackendFatal,
    BenchSettings,
    Inputs,
    Job,
    new_result,
    poisoned_output,
    verify,
)
from gemmviz.core.messages import Message
from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.session import checks as session_checks
from gemmviz.core.session.results import Result

if TYPE_CHECKING:  # numpy is imported where it is used: not on the window's first frame's path
    pass

# FP32 lanes (CUDA cores) per SM by compute capability, from NVIDIA's CUDA C Programming Guide tables.
FP32_LANES_PER_SM = {
    (6, 0): 64, (6, 1): 128, (7, 0): 64, (7, 2): 64, (7, 5): 64, (8, 0): 64, (8, 6): 128,
    (8, 7): 128, (8, 9): 128, (9, 0): 128, (10, 0): 128, (10, 3): 128, (12, 0): 128, (12, 1): 128,
}  # fmt: skip


def fp32_peak_gflops(sms: int, cc: tuple[int, int], clock_mhz: float) -> float | None:
    lanes = FP32_LANES_PER_SM.get(cc)
    if lanes is None:
        return None
    return sms * lanes * 2 * clock_mhz / 1e3


def launch_geometry(variant: Variant, p: Problem, params: dict, config: Mapping[str, int]) -> tuple[tuple, tuple]:
    """(grid, block) of the variant's kernel at problem `p`; ValueError for a variant without one (cuBLAS)."""
    if variant.geometry is None:
        raise ValueError(f"{variant.name} has no launch geometry (runner {variant.runner!r})")
    return variant.geometry(p, params, config)


class CudaBackend(Backend):
    name = "cuda"

    def availability(self) -> tuple[bool, str]:
        return cuda_status()

    def variant_availability(self, variant: Variant) -> tuple[bool, str]:
        ok, reason = cuda_status()
        if ok and variant.runner == "cublas":
            try:
                load_cublas()
            except OSError as exc:
                return False, str(exc)
        return ok, reason

    def availability_message(self) -> Message | None:
        return cuda_status_message()[1]

    def device_info(self) -> dict:
        ok, reason = cuda_status()
        if not ok:
            return {"reason": reason}
        with CudaRun() as run:
            return run.device_info()

    def open(self):
        return CudaRun()


@dataclass(frozen=True)
class KernelRun:
    """One job as its kernel runs it: the variant, its params and block configuration, the problem it computes
    (zero-padded where the kernel needs multiples), the device buffers of that problem, and the result's note."""

    variant: Variant
    params: dict
    config: dict
    rp: Problem
    bufs: dict
    note: str | None


class CudaRun(KernelTimer):
    """One thread's CUDA context for one engine run: device buffers, compiled modules, cuBLAS handle."""

    def __enter__(self) -> CudaRun:
        import pycuda.driver as cuda

        ok, reason = cuda_status()
        if not ok:
            raise RuntimeError(reason)
        self.cuda = cuda
        self.device = cuda.Device(0)
        # MAP_HOST: the blocking kernel reads its release flag from mapped host memory.
        self.context = self.device.make_context(flags=cuda.ctx_flags.SCHED_AUTO | cuda.ctx_flags.MAP_HOST)
        self.hold = None  # the blocking kernel and its mapped flag (made on first use)
        self.events = (cuda.Event(), cuda.Event())
        self.cublas_workspace: Any = None  # a PyCUDA allocation once cuBLAS runs
        self.cc = self.device.compute_capability()
        self.arch = f"sm_{self.cc[0]}{self.cc[1]}"
        self.modules: dict[str, Any] = {}  # cache key -> PyCUDA module
        self.buffers: dict[str, Any] = {}  # "a", "b", "c" -> PyCUDA allocations
        self.inputs: Inputs | None = None
        self.flush = None
        self.cublas_handle: ctypes.c_void_p | None = None
        self.wgmma: dict[str, WgmmaKernel] = {}  # Hopper kernels loaded through the driver API (backends/wgmma.py)
        self.config_override: dict[str, dict] = {}
        try:
            bus = self.device.pci_bus_id()
        except Exception:
            bus = None
        self.nvml = Nvml(bus)
        return self

    def __exit__(self, *exc) -> Literal[False]:
        # After a failed launch the context may be broken and every free may fail: try each, then always pop
        # and detach it, so the next CudaRun in this thread makes a fresh one.
        try:
            if self.cublas_handle is not None:
                handle, self.cublas_handle = self.cublas_handle, None
                with contextlib.suppress(Exception):
                    load_cublas().cublasDestroy_v2(handle)
            if self.cublas_workspace is not None:
                with contextlib.suppress(Exception):
                    self.cublas_workspace.free()
                self.cublas_workspace = None
            self.hold = None
            self.events = None
            with contextlib.suppress(Exception):
                self._free_inputs()
            if self.flush is not None:
                with contextlib.suppress(Exception):
                    self.flush.free()
                self.flush = None
            self.modules.clear()
            for kernel in self.wgmma.values():
                with contextlib.suppress(Exception):
                    kernel.unload()
            self.wgmma.clear()
        finally:
            try:
                self.context.pop()
            finally:
                self.context.detach()
        return False

    # ---- information -------------------------------------------------------------------------
    def device_info(self) -> dict:
        cuda, dev = self.cuda, self.device
        attr = cuda.device_attribute
        sms = dev.get_attribute(attr.MULTIPROCESSOR_COUNT)
        max_clock_mhz = dev.get_attribute(attr.CLOCK_RATE) / 1e3
        free, total = cuda.mem_get_info()
        import pycuda

        info = {
            "name": dev.name(),
            "compute_capability": f"{self.cc[0]}.{self.cc[1]}",
            "sms": sms,
            "memory_total_bytes": total,
            "memory_free_bytes": free,
            "l2_bytes": dev.get_attribute(attr.L2_CACHE_SIZE),
            "max_sm_clock_mhz": max_clock_mhz,
            "memory_clock_mhz": dev.get_attribute(attr.MEMORY_CLOCK_RATE) / 1e3,
            "memory_bus_bits": dev.get_attribute(attr.GLOBAL_MEMORY_BUS_WIDTH),
            "driver_cuda_version": _version(cuda.get_driver_version()),
            "pycuda_cuda_version": ".".join(map(str, cuda.get_version())),
            "pycuda": pycuda.VERSION_TEXT,
            "fp32_lanes_per_sm": FP32_LANES_PER_SM.get(self.cc),
            "fp32_peak_gflops": fp32_peak_gflops(sms, self.cc, max_clock_mhz),
            "fp32_peak_how": "SMs x FP32 lanes per SM x 2 (FMA) x max SM clock",
            "cublas_version": self.cublas_version(),
            "sm_clock_mhz": self.nvml.sm_clock_mhz(),
            "temperature_c": self.nvml.temperature_c(),
        }
        return info

    def cublas_version(self) -> str | None:
        """The loaded cuBLAS's version (asked once per run), recorded on every GPU result: a percentage of
        cuBLAS is of this library."""
        if not hasattr(self, "_cublas_version"):
            self._cublas_version = cublas_version()
        return self._cublas_version

    # ---- compile -----------------------------------------------------------------------------
    def _too_few_tiles(self, p, config: dict) -> bool:
        """Whether a config's BM×BN tiles of C number fewer than half the SMs for this problem."""
        return fills_under_half(p, config, self.device.get_attribute(self.cuda.device_attribute.MULTIPROCESSOR_COUNT))

    def config(self, variant: Variant) -> tuple[dict, bool]:
        """The block-tiling configuration for this GPU (tuned if a tuning run cached one)."""
        if variant.name in self.config_override:
            return dict(self.config_override[variant.name]), True
        return tuned_config(variant.name, self.device.name(), variant.config)

    def time_config(
        self, variant: Variant, config: dict, inputs: Inputs, settings: BenchSettings, cancel
    ) -> list[float]:
        """Time one configuration on the uploaded inputs without the full-size check (the tuner checks
        every configuration at a small odd size first, and `gemmviz bench` verifies the winner)."""
        self._upload(inputs)
        p = inputs.problem
        rp = variant.run_problem(p, config)
        bufs = self.buffers if rp == p else self._padded_buffers(inputs, rp)
        try:
            launch, _cached = self._launcher(variant, {}, rp, bufs, config)
            return self.time_launches(launch, settings, cancel)
        finally:
            if bufs is not self.buffers:
                for buf in bufs.values():
                    buf.free()

    def module(
        self, variant: Variant, params: dict, config: dict | None = None, traced: bool = False
    ) -> tuple[Any, bool]:
        """The variant's module for these params, and whether it came from the disk cache."""
        key, cubin, cached = compile_cubin(
            variant, params, config, self.arch, self.device.name(), self.modules, traced=traced
        )
        if key in self.modules:
            return self.modules[key], True
        module = self.cuda.module_from_buffer(cubin)
        self.modules[key] = module
        return module, cached

    # ---- memory ------------------------------------------------------------------------------
    def _free_inputs(self) -> None:
        for buf in self.buffers.values():
            buf.free()
        self.buffers.clear()
        self.inputs = None

    def _upload(self, inputs: Inputs) -> None:
        if self.inputs is inputs:
            return
        self._free_inputs()
        p = inputs.problem
        if p.matrix_bytes > self.cuda.mem_get_info()[0]:
            raise ProblemError(self._oom(p.matrix_bytes, p.label))
        try:
            self.buffers["a"] = self.cuda.to_device(inputs.a)
            self.buffers["b"] = self.cuda.to_device(inputs.b)
            self.buffers["c"] = self.cuda.mem_alloc(4 * p.m * p.n)
        except self.cuda.MemoryError:
            self._free_inputs()
            raise ProblemError(self._oom(p.matrix_bytes, p.label)) from None
        self.inputs = inputs

    def _oom(self, need: int, what: str) -> str:
        try:
            free = f"{self.cuda.mem_get_info()[0] / 2**30:.2f} GiB free"
        except Exception:
            free = "free memory unknown"
        return f"out of GPU memory: {what} needs {need / 2**30:.2f} GiB, {free}"

    # ---- launch ------------------------------------------------------------------------------
    def _padded_buffers(self, inputs: Inputs, rp) -> dict:
        """Zero-padded copies of A and B (and a C) for a kernel that needs multiples of its tile."""
        import numpy as np

        p = inputs.problem
        if rp.matrix_bytes > self.cuda.mem_get_info()[0]:
            raise ProblemError(self._oom(rp.matrix_bytes, f"the padded {rp.label}"))
        a = np.zeros((rp.m, rp.k), np.float32)
        a[: p.m, : p.k] = inputs.a
        b = np.zeros((rp.k, rp.n), np.float32)
        b[: p.k, : p.n] = inputs.b
        bufs = {}
        try:
            bufs["a"] = self.cuda.to_device(a)
            bufs["b"] = self.cuda.to_device(b)
            bufs["c"] = self.cuda.mem_alloc(4 * rp.m * rp.n)
        except self.cuda.MemoryError:
            for buf in bufs.values():
                buf.free()
            raise ProblemError(self._oom(rp.matrix_bytes, f"the padded {rp.label}")) from None
        return bufs

    def _launcher(
        self, variant: Variant, params: dict, p, bufs: dict, config: dict, trace_buffer=None
    ) -> tuple[Callable[[], None], bool | None]:
        """A function that launches the job once, and whether its cubin came from the cache. With
        `trace_buffer`, the instrumented build, its `gemmviz_trace` pointed at that buffer."""
        import numpy as np

        a, b, c = bufs["a"], bufs["b"], bufs["c"]
        if variant.runner == "cublas":
            lib = load_cublas()
            if self.cublas_handle is None:
                # Handle and workspace once per run, outside every timed region: a call then allocates nothing.
                handle = ctypes.c_void_p()
                check_cublas(lib.cublasCreate_v2(ctypes.byref(handle)), "cublasCreate")
                self.cublas_handle = handle
                self.cublas_workspace = self.cuda.mem_alloc(CUBLAS_WORKSPACE_BYTES)
                check_cublas(
                    lib.cublasSetWorkspace_v2(
                        handle, ctypes.c_void_p(int(self.cublas_workspace)), CUBLAS_WORKSPACE_BYTES
                    ),
                    "cublasSetWorkspace",
                )
            handle = self.cublas_handle
            mode = variant.cublas_math_mode
            alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
            pa, pb, pc = ctypes.c_void_p(int(a)), ctypes.c_void_p(int(b)), ctypes.c_void_p(int(c))

            check_cublas(lib.cublasSetMathMode(handle, mode), "cublasSetMathMode")

            def launch_cublas() -> None:
                # Row-major C = A B is column-major C^T = B^T A^T: swap the operands, no transposes.
                check_cublas(
                    lib.cublasSgemm_v2(
                        handle, 0, 0, p.n, p.m, p.k, ctypes.byref(alpha), pb, p.n, pa, p.k, ctypes.byref(beta), pc, p.n
                    ),
                    "cublasSgemm",
                )

            return launch_cublas, None
        if variant.runner == "wgmma-tma":
            return self._wgmma_launcher(variant, params, p, bufs, config, trace_buffer)
        if variant.runner != "kernel":
            raise ValueError(f"the CUDA backend cannot run {variant.name} (runner {variant.runner!r})")
        module, cached = self.module(variant, params, config, traced=trace_buffer is not None)
        if trace_buffer is not None:
            pointer, _size = module.get_global("gemmviz_trace")
            self.cuda.memcpy_htod(pointer, np.array([int(trace_buffer)], dtype=np.uint64))
        func = module.get_function(variant.kernel_name)
        func.prepare("PPPiii")
        smem = variant.dynamic_smem(config) if variant.dynamic_smem else 0
        if smem:
            func.set_attribute(self.cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, smem)
        grid, block = launch_geometry(variant, p, params, config)
        args = (a, b, c, np.int32(p.m), np.int32(p.n), np.int32(p.k))

        def launch() -> None:
            func.prepared_async_call(grid[:2], block, None, *args, shared_size=smem)

        return launch, cached

    def _wgmma_launcher(self, variant: Variant, params: dict, p, bufs: dict, config: dict, trace_buffer=None):
        """The Hopper rung: a 128-byte TMA tensor map per operand passed by value, launched through the
        driver API (PyCUDA's prepared calls cannot pass it), compiled for sm_90a. With `trace_buffer`, the
        block-trace build, its `gemmviz_trace` set through cuModuleGetGlobal + cuMemcpyHtoD."""
        from gemmviz.backends.wgmma import WgmmaKernel, config_from_macros

        cfg = config_from_macros(config)
        traced = trace_buffer is not None
        key, cubin, cached = compile_cubin(
            variant, params, config, "sm_90a", self.device.name(), self.wgmma, traced=traced
        )
        if cubin is not None:  # None: the module is loaded already (its key is in self.wgmma)
            self.wgmma[key] = WgmmaKernel(cubin, cfg)
        if traced:
            self.wgmma[key].set_trace(int(trace_buffer))
        bt = None
        ldbt = -(-p.k // 4) * 4  # B^T's rows padded to TMA's 16 bytes
        if not cfg.b_regs:  # the transposing pre-pass needs a scratch B^T, inside the timed launch
            bt = bufs.get("bt") or self.cuda.mem_alloc(4 * p.n * ldbt)
            bufs["bt"] = bt
        launch = self.wgmma[key].launcher(
            int(bufs["a"]),
            int(bufs["b"]),
            int(bufs["c"]),
            p.m,
            p.n,
            p.k,
            bt=None if bt is None else int(bt),
            ldbt=None if bt is None else ldbt,
        )
        return launch, cached

    def _configure(self, p: Problem, variant: Variant) -> tuple[dict, str]:
        """The config `variant` runs at `p` (tuned, else the registry's; fitted to the size where its tiles would
        fill the GPU badly) and the note that says which and why ("" for a variant without one)."""
        config, tuned = self.config(variant)
        small = tuned and variant.name not in self.config_override and self._too_few_tiles(p, config)
        if small:  # a tuning made at 4096^3 whose big tiles leave most SMs idle here: the registry's default runs
            config, tuned = dict(variant.config), False
        fitted = None
        unfitted = config
        if variant.runner == "wgmma-tma" and variant.name not in self.config_override:
            # 128-row tiles where 256-row ones leave SMs idle; persistent clusters in Hilbert order past one wave
            fitted = hopper_model.wgmma_fit(p, config)
            fitted, config = (fitted, fitted) if fitted != config else (None, config)
        refit = None
        if variant.fit is not None and variant.name not in self.config_override:
            config, refit = variant.fit(p, config)  # smaller tiles or Stream-K where these tiles fill the GPU badly
        if not config:
            return config, ""
        note = f"{'tuned' if tuned else 'default'} config " + " ".join(f"{k}={v}" for k, v in config.items())
        if small:
            note += " (the tuned config's tiles would fill under half the SMs at this size)"
        if fitted:
            note += hopper_model.wgmma_fit_note(p, unfitted, fitted)
        if refit:
            note += f" ({refit})"
        return config, note

    def run(self, job: Job, variant: Variant, inputs: Inputs, settings: BenchSettings, cancel) -> Result:
        p = job.problem
        why = variant.unavailable(self.cc)
        if why:
            return new_result(job, variant, "unavailable", why)
        params = job.params_dict
        config, config_note = self._configure(p, variant)
        refusal = variant.refusal(p, params, config)  # a tuned config pads to other multiples than the default
        if refusal:
            raise ProblemError(refusal)
        self._upload(inputs)
        rp = variant.run_problem(p, config)
        bufs = self.buffers if rp == p else self._padded_buffers(inputs, rp)
        notes = [config_note] if config_note else []
        if variant.runner == "wgmma-tma":
            splits = hopper_model.wgmma_splits(variant.run_problem(p, config), config)
            if splits > 1:
                notes.append(f"K split in {splits} slices (split-K)")
        multiple = variant.pad_multiple(config)
        if rp != p and multiple is not None:  # padded: the variant has a multiple
            bm, bn, bk = multiple
            notes.append(
                f"inputs zero-padded to {rp.m}x{rp.n}x{rp.k} (the kernel needs multiples of {bm}x{bn}x{bk}); "
                "the time includes the padding"
            )
        note = "; ".join(notes) or None
        try:
            return self._run_on(job, KernelRun(variant, params, config, rp, bufs, note), inputs, settings, cancel)
        finally:
            if bufs is not self.buffers:
                for buf in bufs.values():
                    buf.free()

    def _check_launch(self, launch, bufs, rp, p, inputs, precision):
        """Poison C with NaN, launch once, copy C back and verify it element by element."""
        import numpy as np

        cuda = self.cuda
        c_host = poisoned_output(rp)
        cuda.memcpy_htod(bufs["c"], c_host)
        launch()
        self.context.synchronize()
        cuda.memcpy_dtoh(c_host, bufs["c"])
        return verify(np.ascontiguousarray(c_host[: p.m, : p.n]), inputs, precision)

    def _run_on(self, job: Job, run: KernelRun, inputs: Inputs, settings: BenchSettings, cancel) -> Result:
        variant, params, config, rp, bufs, note = run.variant, run.params, run.config, run.rp, run.bufs, run.note
        cuda = self.cuda
        p = job.problem
        launch, cached = self._launcher(variant, params, rp, bufs, config)
        try:
            check = self._check_launch(launch, bufs, rp, p, inputs, variant.precision)
        except (cuda.Error, DriverError) as exc:  # any driver error may leave the context broken: reopen it
            raise BackendFatal(f"{variant.name} launch failed: {exc}") from None
        common = {
            **check.result_fields(),
            "compile_cached": cached,
            "note": note,
            "config": dict(config),
            "cublas_version": self.cublas_version(),
        }
        if not check.valid:
            return new_result(job, variant, "invalid", check.reason, **common)
        clock0, temp0 = self.nvml.sm_clock_mhz(), self.nvml.temperature_c()
        try:
            timing = self.measure(launch, settings, cancel)
            clock1, temp1 = self.nvml.sm_clock_mhz(), self.nvml.temperature_c()
            # Again after the timed launches, on a fresh poison: a kernel that races, or that leans on what an
            # earlier launch left in C, is caught here.
            again = self._check_launch(launch, bufs, rp, p, inputs, variant.precision)
            trace, trace_note = self._trace(variant, params, rp, bufs, config) if settings.trace else (None, None)
        except (cuda.Error, DriverError) as exc:  # any driver error may leave the context broken: reopen it
            raise BackendFatal(f"{variant.name} launch failed while timing: {exc}") from None
        if not again.valid:
            launches = timing["launches"] + 1  # the timed ones, then the check after them
            return new_result(
                job,
                variant,
                "invalid",
                f"right on the first launch, wrong after {launches} more: {again.reason}",
                **{**common, **again.result_fields()},
            )
        timing.pop("launches")
        notes = [note, trace_note, timing.pop("note", None)]
        common["note"] = "; ".join(filter(None, notes)) or None
        common["error_margin"] = max(check.margin, again.margin)
        return new_result(
            job,
            variant,
            "ok",
            warmup=settings.warmup,
            repeats=settings.repeats,
            cold_l2=settings.cold_l2,
            sm_clock_mhz_before=clock0,
            sm_clock_mhz_after=clock1,
            temperature_c_before=temp0,
            temperature_c_after=temp1,
            block_trace=trace,
            **timing,
            **common,
        )

    def _trace(self, variant: Variant, params: dict, rp, bufs: dict, config: dict) -> tuple[list | None, str | None]:
        """One untimed launch of the instrumented build: ([[block, sm, start_ns, end_ns], ...], None), or
        (None, why not) for a kernel that cannot be instrumented."""
        import numpy as np

        if variant.runner not in ("kernel", "wgmma-tma") or not variant.kernel_name:
            return None, f"no block trace: {variant.name} is not a gemmviz kernel (runner {variant.runner})"
        try:
            instrument_source(variant.source_text(), variant.kernel_name)
        except ValueError as exc:
            return None, f"no block trace: {exc}"
        grid, _block = launch_geometry(variant, rp, params, config)
        blocks = grid[0] * grid[1]
        if blocks > session_checks.MAX_TRACE_ROWS:  # a session could not hold it: nothing would be saved at all
            limit = session_checks.MAX_TRACE_ROWS
            return None, f"no block trace: {blocks:,} blocks, over the {limit:,} rows a session holds"
        nbytes = blocks * TRACE_FIELDS * 8
        try:
            tbuf = self.cuda.mem_alloc(nbytes)
        except self.cuda.MemoryError:
            return None, f"no block trace: {self._oom(nbytes, 'the trace buffer')}"
        try:
            self.cuda.memset_d8(tbuf, 0xFF, nbytes)  # a block that never writes its record stays ~0
            launch, _cached = self._launcher(variant, params, rp, bufs, config, trace_buffer=tbuf)
            launch()
            self.context.synchronize()
            raw = np.empty(blocks * TRACE_FIELDS, dtype=np.uint64)
            self.cuda.memcpy_dtoh(raw, tbuf)
        except DriverError as exc:  # the Hopper build's driver calls (its timed launches already succeeded)
            return None, f"no block trace: {exc}"
        finally:
            tbuf.free()
        try:
            return decode_trace(raw), None
        except TraceError as exc:
            return None, f"block trace refused: {exc}"


def _version(v: int) -> str:
    return f"{v // 1000}.{(v % 1000) // 10}"
