"""Launching the Hopper kernel (kernels/wgmma_tf32.cu) through the driver API, by ctypes.

PyCUDA wraps neither `cuTensorMapEncodeTiled` nor a 128-byte by-value kernel parameter, so this module
talks to libcuda directly: it encodes the TMA tensor maps, loads the cubin, and launches with
`cuLaunchKernel(kernelParams=...)`, one pointer per parameter (no hand-packed argument buffer). It runs
in whatever context is current on the calling thread (a PyCUDA context works: device pointers are the
ints of PyCUDA allocations, stream 0 is the legacy default stream that PyCUDA's events also use).

Importing this module touches no driver; `load_driver()` does, on first use.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass

KERNEL_NAME = "wgmma_tf32"
TRANSPOSE_NAME = "transpose_kn"

# cuda.h enum values
_FLOAT32 = 7  # CU_TENSOR_MAP_DATA_TYPE_FLOAT32
_SWIZZLE_128B = 3
_L2_PROMOTION_256B = 3
_OOB_FILL_ZERO = 0  # CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE: out-of-range elements read as zero
_MAX_DYNAMIC_SMEM = 8  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES

TensorMapBytes = ctypes.c_uint64 * 16  # CUtensorMap: 128 opaque bytes


@dataclass(frozen=True)
class Launch:
    """One launch of a kernel, called with no arguments; it holds the ctypes memory the driver reads at each
    launch (`keepalive`), which the launching function itself does not name."""

    run: Callable[[], None]
    keepalive: list

    def __call__(self) -> None:
        self.run()


class DriverError(RuntimeError):
    pass


@dataclass(frozen=True)
class WgmmaConfig:
    """The kernel's -D macros. Block tile: bm rows × 64·consumers columns of C, K in steps of 32."""

    bm: int = 256  # 128, 192 or 256
    consumers: int = 2  # 1 or 2 consumer warpgroups
    stages: int = 4
    group_m: int = 8
    b_regs: bool = True  # False: needs a transposed copy of B (transpose_kn), counted by the caller
    depth: int = 1  # wgmma groups in flight while the next stage's fragments load (0 or 1)
    cluster: int = 1  # 2: pairs of blocks along N share the A tile by TMA multicast
    splits: int = 0  # slices of K per tile (split-K); 0: chosen per problem (hopper_model.wgmma_splits)

    def __post_init__(self) -> None:
        if (
            self.bm not in (128, 192, 256)
            or self.consumers not in (1, 2)
            or self.depth not in (0, 1)
            or self.cluster not in (1, 2)
            or not 0 <= self.splits <= 4
        ):
            raise ValueError(f"unsupported wgmma config {self}")
        if self.stages < 2 or self.smem_bytes > 227 * 1024:
            raise ValueError(f"{self.stages} stages of {self.stage_bytes} bytes do not fit in shared memory")

    @property
    def bn(self) -> int:
        return 64 * self.consumers

    @property
    def threads(self) -> int:
        return 128 * (self.consumers + 1)

    @property
    def stage_bytes(self) -> int:
        return (self.bm + self.bn) * 32 * 4

    @property
    def smem_bytes(self) -> int:
        return self.stages * self.stage_bytes + 1024 + 16 * self.stages  # + alignment slack + mbarriers

    @property
    def tag(self) -> str:
        return f"bm{self.bm}-c{self.consumers}-s{self.stages}-g{self.group_m}-{'rs' if self.b_regs else 'ss'}-d{self.depth}-x{self.cluster}"

    def macros(self) -> dict[str, int]:
        regs = {1: (40, 240), 2: (40, 232)}[self.consumers]
        return {
            "BM": self.bm,
            "CONSUMERS": self.consumers,
            "STAGES": self.stages,
            "GROUP_M": self.group_m,
            "B_REGS": int(self.b_regs),
            "DEPTH": self.depth,
            "CLUSTER": self.cluster,
            "SPLITS": self.splits,
            "PRODUCER_REGS": regs[0],
            "CONSUMER_REGS": regs[1],
        }

    def tiles(self, m: int, n: int) -> int:
        """Block tiles of C: whole clusters, so a cluster's last block may lie past N (it stores nothing)."""
        return -(-m // self.bm) * -(-n // (self.bn * self.cluster)) * self.cluster

    def split_k(self, m: int, n: int, k: int) -> int:
        """Slices of K per tile at m × n × k (hopper_model.wgmma_splits, the registry's geometry)."""
        from gemmviz.core.kernels.hopper_model import wgmma_splits
        from gemmviz.core.problem import Problem

        return wgmma_splits(Problem(m, n, k), {**self.macros(), "SPLITS": self.splits})

    def grid(self, m: int, n: int, k: int = 0) -> int:
        """Blocks (1-D): one per block tile and slice of K (k = 0: no split)."""
        return self.tiles(m, n) * (self.split_k(m, n, k) if k else 1)


_driver = None


def load_driver():
    global _driver
    if _driver is None:
        lib = ctypes.CDLL("libcuda.so.1")
        lib.cuTensorMapEncodeTiled.argtypes = [
            ctypes.c_void_p,
            ctypes.c_int,
            ctypes.c_uint32,
            ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_uint64),
            ctypes.POINTER(ctypes.c_uint64),
            ctypes.POINTER(ctypes.c_uint32),
            ctypes.POINTER(ctypes.c_uint32),
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
        ]
        lib.cuModuleLoadData.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p]
        lib.cuModuleUnload.argtypes = [ctypes.c_void_p]
        lib.cuModuleGetFunction.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p]
        lib.cuFuncSetAttribute.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        lib.cuLaunchKernel.argtypes = [
            ctypes.c_void_p,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_void_p),
            ctypes.c_void_p,
        ]
        lib.cuModuleGetGlobal_v2.argtypes = [
            ctypes.POINTER(ctypes.c_uint64),
            ctypes.POINTER(ctypes.c_size_t),
            ctypes.c_void_p,
            ctypes.c_char_p,
        ]
        lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
        lib.cuMemFree_v2.argtypes = [ctypes.c_uint64]
        lib.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
        lib.cuGetErrorString.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        _driver = lib
    return _driver


def _check(rc: int, what: str) -> None:
    if rc != 0:
        msg = ctypes.c_char_p()
        load_driver().cuGetErrorString(rc, ctypes.byref(msg))
        raise DriverError(f"{what} failed: {rc} {msg.value.decode() if msg.value else ''}".strip())


def tensor_map_2d(
    ptr: int, rows: int, cols: int, pitch_elems: int, box_rows: int, box_cols: int
) -> ctypes.Array[ctypes.c_uint64]:
    """TMA map of a row-major FP32 matrix (rows × cols, row pitch pitch_elems), 128-byte swizzle, OOB → 0."""
    if pitch_elems % 4 or ptr % 16:
        raise ValueError("TMA needs a 16-byte aligned base and a row pitch that is a multiple of 16 bytes")
    tmap = TensorMapBytes()
    dims = (ctypes.c_uint64 * 2)(cols, rows)  # innermost first
    strides = (ctypes.c_uint64 * 1)(pitch_elems * 4)
    box = (ctypes.c_uint32 * 2)(box_cols, box_rows)
    elem_strides = (ctypes.c_uint32 * 2)(1, 1)
    rc = load_driver().cuTensorMapEncodeTiled(
        ctypes.byref(tmap),
        _FLOAT32,
        2,
        ctypes.c_void_p(ptr),
        dims,
        strides,
        box,
        elem_strides,
        0,
        _SWIZZLE_128B,
        _L2_PROMOTION_256B,
        _OOB_FILL_ZERO,
    )
    _check(rc, "cuTensorMapEncodeTiled")
    return tmap


def config_from_macros(macros: dict) -> WgmmaConfig:
    """The WgmmaConfig of a registry/tuning config dict (BM, CONSUMERS, STAGES, GROUP_M, B_REGS, DEPTH, CLUSTER)."""
    return WgmmaConfig(
        bm=int(macros["BM"]),
        splits=int(macros.get("SPLITS", 0)),
        consumers=int(macros["CONSUMERS"]),
        stages=int(macros["STAGES"]),
        group_m=int(macros["GROUP_M"]),
        b_regs=bool(macros["B_REGS"]),
        depth=int(macros["DEPTH"]),
        cluster=int(macros["CLUSTER"]),
    )


class WgmmaKernel:
    """The loaded cubin of one WgmmaConfig. Create, use and unload it in the thread that owns the context."""

    def __init__(self, cubin: bytes, config: WgmmaConfig):
        lib = load_driver()
        self.config = config
        self._module = ctypes.c_void_p()
        _check(lib.cuModuleLoadData(ctypes.byref(self._module), cubin), "cuModuleLoadData")
        self._gemm = ctypes.c_void_p()
        self._transpose = ctypes.c_void_p()
        _check(lib.cuModuleGetFunction(ctypes.byref(self._gemm), self._module, KERNEL_NAME.encode()), KERNEL_NAME)
        _check(
            lib.cuModuleGetFunction(ctypes.byref(self._transpose), self._module, TRANSPOSE_NAME.encode()),
            TRANSPOSE_NAME,
        )
        _check(lib.cuFuncSetAttribute(self._gemm, _MAX_DYNAMIC_SMEM, config.smem_bytes), "cuFuncSetAttribute")
        self._ws = ctypes.c_uint64(0)  # split-K workspace (partial tiles), grown on demand, freed by unload()
        self._ws_bytes = 0

    def _workspace(self, nbytes: int) -> int:
        if nbytes > self._ws_bytes:
            lib = load_driver()
            if self._ws.value:
                _check(lib.cuMemFree_v2(self._ws), "cuMemFree")
                self._ws, self._ws_bytes = ctypes.c_uint64(0), 0
            _check(lib.cuMemAlloc_v2(ctypes.byref(self._ws), nbytes), "cuMemAlloc (split-K workspace)")
            self._ws_bytes = nbytes
        return self._ws.value

    def set_trace(self, buffer: int) -> None:
        """Point the block-trace build's `gemmviz_trace` global (kernels/trace.cuh) at a device buffer of
        4 u64 per block; raises DriverError for a cubin built without the trace."""
        lib = load_driver()
        dptr, size = ctypes.c_uint64(), ctypes.c_size_t()
        _check(
            lib.cuModuleGetGlobal_v2(ctypes.byref(dptr), ctypes.byref(size), self._module, b"gemmviz_trace"),
            "cuModuleGetGlobal(gemmviz_trace)",
        )
        value = ctypes.c_uint64(buffer)
        _check(lib.cuMemcpyHtoD_v2(dptr, ctypes.byref(value), ctypes.sizeof(value)), "cuMemcpyHtoD(gemmviz_trace)")

    def unload(self) -> None:
        if self._ws.value:
            _check(load_driver().cuMemFree_v2(self._ws), "cuMemFree")
            self._ws, self._ws_bytes = ctypes.c_uint64(0), 0
        if self._module:
            _check(load_driver().cuModuleUnload(self._module), "cuModuleUnload")
            self._module = ctypes.c_void_p()

    def launcher(
        self, a: int, b: int, c: int, m: int, n: int, k: int, bt: int | None = None, ldbt: int | None = None
    ) -> Launch:
        """A callable that launches C = A·B on stream 0 (no sync), every matrix dense: A m × k, B k × n, C m × n.

        k and n must be multiples of 4, TMA's 16-byte row pitches (the engine zero-pads to them: the variant's
        pad_to). With b_regs=False, bt is a scratch buffer of n × ldbt floats (ldbt ≥ k, a multiple of 4) and
        each launch first transposes B into it (both kernels run)."""
        cfg = self.config
        tm_a = tensor_map_2d(a, m, k, k, cfg.bm // cfg.cluster, 32)
        if cfg.b_regs:
            tm_b = tensor_map_2d(b, k, n, n, 32, 32)
        else:
            if bt is None or ldbt is None:
                raise ValueError("b_regs=False needs a scratch buffer bt of n × ldbt floats")
            tm_b = tensor_map_2d(bt, n, k, ldbt, cfg.bn, 32)
        c_ptr, mi, ni, ki = ctypes.c_uint64(c), ctypes.c_int(m), ctypes.c_int(n), ctypes.c_int(k)
        splits = cfg.split_k(m, n, k)
        ws = self._workspace(4 * cfg.tiles(m, n) * splits * cfg.bm * cfg.bn) if splits > 1 else 0
        args = [tm_a, tm_b, c_ptr, mi, ni, ki, ctypes.c_uint64(ws), ctypes.c_int(splits)]
        params = (ctypes.c_void_p * len(args))(*(ctypes.addressof(x) for x in args))
        grid = cfg.tiles(m, n) * splits
        lib = load_driver()
        gemm = self._gemm
        keep = [args, params]  # the driver reads the parameter memory at each launch
        if not cfg.b_regs:
            assert bt is not None and ldbt is not None  # refused above without them
            t_args = [ctypes.c_uint64(b), ctypes.c_uint64(bt), ctypes.c_int(k), ctypes.c_int(n), ctypes.c_int(ldbt)]
            t_params = (ctypes.c_void_p * len(t_args))(*(ctypes.addressof(x) for x in t_args))
            t_grid = (-(-n // 32), -(-k // 32))
            keep += [t_args, t_params]

        def launch() -> None:
            if not cfg.b_regs:
                _check(
                    lib.cuLaunchKernel(self._transpose, *t_grid, 1, 32, 8, 1, 0, None, t_params, None),
                    "transpose_kn launch",
                )
            _check(
                lib.cuLaunchKernel(gemm, grid, 1, 1, cfg.threads, 1, 1, cfg.smem_bytes, None, params, None),
                "wgmma_tf32 launch",
            )

        return Launch(launch, keep)
