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
PAD_NAME = "pad_rows"

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
    persist: int = 0  # 1: a persistent grid (one block per SM, whole clusters) walks the tiles; no split-K
    order: int = 0  # 0: grouped (group_m); 1: a Hilbert curve over the cluster tiles (a table built here)
    streamk: int = 0  # 1 (persistent only): the last partial wave's tiles shared out in k-blocks (stream-K)

    def __post_init__(self) -> None:
        if (
            self.persist not in (0, 1)
            or self.order not in (0, 1)
            or self.streamk not in (0, 1)
            or (self.streamk and not self.persist)
            or (self.persist and self.splits > 1)
            or self.bm not in (128, 192, 256)
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
        tag = f"bm{self.bm}-c{self.consumers}-s{self.stages}-g{self.group_m}-{'rs' if self.b_regs else 'ss'}-d{self.depth}-x{self.cluster}"
        return tag + ("-p" if self.persist else "") + ("-h" if self.order else "") + ("-sk" if self.streamk else "")

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
            "PERSIST": self.persist,
            "ORDER": self.order,
            "STREAMK": self.streamk,
        }

    def tiles(self, m: int, n: int) -> int:
        """Block tiles of C: whole clusters, so a cluster's last block may lie past N (it stores nothing)."""
        return -(-m // self.bm) * -(-n // (self.bn * self.cluster)) * self.cluster

    def split_k(self, m: int, n: int, k: int) -> int:
        """Slices of K per tile at m × n × k (hopper_model.wgmma_splits, the registry's geometry); 1 if persistent."""
        if self.persist:
            return 1
        from gemmviz.core.kernels.hopper_model import wgmma_splits
        from gemmviz.core.problem import Problem

        return wgmma_splits(Problem(m, n, k), {**self.macros(), "SPLITS": self.splits})

    def grid(self, m: int, n: int, k: int = 0) -> int:
        """Blocks (1-D): one per block tile and slice of K (k = 0: no split); persistent: one per SM of the
        H100/H200 (hopper_model.PERSIST_SMS, whole clusters), or one per tile where there are fewer tiles."""
        if self.persist and self.streamk:
            return self.streamk_plan(m, n, k)[0] * self.cluster
        if self.persist:
            from gemmviz.core.kernels.hopper_model import PERSIST_SMS

            return min(self.tiles(m, n), PERSIST_SMS // self.cluster * self.cluster)
        return self.tiles(m, n) * (self.split_k(m, n, k) if k else 1)

    def streamk_plan(self, m: int, n: int, k: int) -> tuple[int, int]:
        """(workers = clusters of the grid, cluster tiles shared out in k-blocks), hopper_model.streamk_plan."""
        from gemmviz.core.kernels.hopper_model import PERSIST_SMS, WGMMA_BK, streamk_plan

        return streamk_plan(self.tiles(m, n) // self.cluster, -(-k // WGMMA_BK), PERSIST_SMS // self.cluster)

    def streamk_workspace_bytes(self, m: int, n: int, k: int) -> int:
        """Partial tiles of stream-K: two slots per worker (the pieces its range starts and ends in), one
        BM × BN tile of floats per block of the cluster each; 0 when nothing is shared out."""
        workers, sk = self.streamk_plan(m, n, k) if self.streamk else (0, 0)
        return 4 * 2 * workers * self.cluster * self.bm * self.bn if sk else 0


def hilbert_d2xy(side: int, d: int) -> tuple[int, int]:
    """Cell (x, y) at distance d along the Hilbert curve filling a side × side square (side a power of two)."""
    x = y = 0
    s, t = 1, d
    while s < side:
        rx = 1 & (t // 2)
        ry = 1 & (t ^ rx)
        if ry == 0:
            if rx == 1:
                x, y = s - 1 - x, s - 1 - y
            x, y = y, x
        x += s * rx
        y += s * ry
        t //= 4
        s *= 2
    return x, y


def hilbert_order(rows: int, cols: int) -> list[int]:
    """The cells of a rows × cols grid in the order a Hilbert curve over the covering power-of-two square
    visits them (cells outside the grid skipped), each as row << 16 | column: the kernel's `order` table."""
    if rows >= 1 << 15 or cols >= 1 << 16:
        raise ValueError("grid too large for the tile-order table")
    side = 1
    while side < max(rows, cols):
        side *= 2
    out = []
    for d in range(side * side):
        x, y = hilbert_d2xy(side, d)
        if x < rows and y < cols:
            out.append(x << 16 | y)
    return out


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
    ptr: int, rows: int, cols: int, pitch_elems: int, box_rows: int, box_cols: int, swizzle: bool = True
) -> ctypes.Array[ctypes.c_uint64]:
    """TMA map of a row-major FP32 matrix (rows × cols, row pitch pitch_elems), 128-byte swizzle (or none), OOB → 0."""
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
        _SWIZZLE_128B if swizzle else 0,
        _L2_PROMOTION_256B,
        _OOB_FILL_ZERO,
    )
    _check(rc, "cuTensorMapEncodeTiled")
    return tmap


def config_from_macros(macros: dict) -> WgmmaConfig:
    """The WgmmaConfig of a registry/tuning config dict (BM, CONSUMERS, STAGES, GROUP_M, B_REGS, DEPTH, CLUSTER)."""
    return WgmmaConfig(
        persist=int(macros.get("PERSIST", 0)),
        streamk=int(macros.get("STREAMK", 0)),
        order=int(macros.get("ORDER", 0)),
        bm=int(macros["BM"]),
        splits=int(macros.get("SPLITS", 0)),
        consumers=int(macros["CONSUMERS"]),
        stages=int(macros["STAGES"]),
        group_m=int(macros["GROUP_M"]),
        b_regs=bool(macros["B_REGS"]),
        depth=int(macros["DEPTH"]),
        cluster=int(macros["CLUSTER"]),
    )


def kernel_params(args: list) -> ctypes.Array:
    """cuLaunchKernel's parameter array: the address of each ctypes argument (both must live until the launch)."""
    return (ctypes.c_void_p * len(args))(*(ctypes.addressof(x) for x in args))


def pad_rows_launch(
    src: int, dst: int, rows: int, cols: int, ld: int, keep: list
) -> tuple[tuple[int, int, int], ctypes.Array]:
    """The grid and parameters of a pad_rows kernel (the Hopper kernels' sources each have one) copying rows × cols
    floats at `src` to rows of pitch `ld` at `dst`, in blocks of 32 × 8 threads; its argument memory goes to `keep`."""
    args = [ctypes.c_uint64(src), ctypes.c_uint64(dst), ctypes.c_int(rows), ctypes.c_int(cols), ctypes.c_int(ld)]
    params = kernel_params(args)
    keep += [args, params]
    return (-(-cols // 32), -(-rows // 8), 1), params


class DriverKernel:
    """A loaded cubin through the driver API: its GEMM function (with its dynamic shared memory allowed), others
    looked up by name, and scratch buffers grown on demand and freed by unload(). Launches run in stream order, so
    launchers of one kernel may share the scratch. Create, use and unload it in the thread that owns the context."""

    def __init__(self, cubin: bytes, gemm: str, smem_bytes: int) -> None:
        lib = load_driver()
        self._module = ctypes.c_void_p()
        _check(lib.cuModuleLoadData(ctypes.byref(self._module), cubin), "cuModuleLoadData")
        self._gemm = self._function(gemm)
        _check(lib.cuFuncSetAttribute(self._gemm, _MAX_DYNAMIC_SMEM, smem_bytes), "cuFuncSetAttribute")
        self._scratch: dict[str, tuple[ctypes.c_uint64, int]] = {}

    def _function(self, name: str) -> ctypes.c_void_p:
        func = ctypes.c_void_p()
        _check(load_driver().cuModuleGetFunction(ctypes.byref(func), self._module, name.encode()), name)
        return func

    def _buffer(self, name: str, nbytes: int) -> int:
        ptr, size = self._scratch.get(name, (ctypes.c_uint64(0), 0))
        if nbytes > size:
            lib = load_driver()
            if ptr.value:
                _check(lib.cuMemFree_v2(ptr), "cuMemFree")
            ptr = ctypes.c_uint64(0)
            self._scratch.pop(name, None)
            _check(lib.cuMemAlloc_v2(ctypes.byref(ptr), nbytes), f"cuMemAlloc (scratch {name})")
            self._scratch[name] = (ptr, nbytes)
        return ptr.value

    def unload(self) -> None:
        lib = load_driver()
        for ptr, _size in self._scratch.values():
            _check(lib.cuMemFree_v2(ptr), "cuMemFree")
        self._scratch.clear()
        if self._module:
            _check(lib.cuModuleUnload(self._module), "cuModuleUnload")
            self._module = ctypes.c_void_p()


class WgmmaKernel(DriverKernel):
    """The loaded cubin of one WgmmaConfig. Scratch: "ws" the split-K workspace (partial tiles), "a" and "b" the
    row-pitch copies of an operand whose rows are not a multiple of 16 bytes."""

    def __init__(self, cubin: bytes, config: WgmmaConfig):
        super().__init__(cubin, KERNEL_NAME, config.smem_bytes)
        self.config = config
        self._transpose = self._function(TRANSPOSE_NAME)
        self._pad = self._function(PAD_NAME)
        self._orders: dict[tuple[int, int], ctypes.c_uint64] = {}  # tile-order tables by (rows, cluster columns)

    def _workspace(self, nbytes: int) -> int:
        return self._buffer("ws", nbytes)

    def _order_table(self, rows: int, cols: int) -> int:
        """The device copy of hilbert_order(rows, cols), uploaded once per grid shape."""
        key = (rows, cols)
        if key not in self._orders:
            lib = load_driver()
            table = (ctypes.c_int32 * (rows * cols))(*hilbert_order(rows, cols))
            ptr = ctypes.c_uint64(0)
            _check(lib.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.sizeof(table)), "cuMemAlloc (tile order)")
            self._orders[key] = ptr
            _check(lib.cuMemcpyHtoD_v2(ptr, ctypes.byref(table), ctypes.sizeof(table)), "cuMemcpyHtoD (tile order)")
        return self._orders[key].value

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
        lib = load_driver()
        for ptr in self._orders.values():
            _check(lib.cuMemFree_v2(ptr), "cuMemFree")
        self._orders.clear()
        super().unload()

    def launcher(
        self, a: int, b: int, c: int, m: int, n: int, k: int, bt: int | None = None, ldbt: int | None = None
    ) -> Launch:
        """A callable that launches C = A·B on stream 0 (no sync), every matrix dense: A m × k, B k × n, C m × n.

        Any m, n, k: where k (A's row) or n (B's row) is not a multiple of 4 floats, TMA's 16-byte row pitch,
        each launch first copies that operand into a scratch buffer with rows padded to a multiple of 4
        (pad_rows, inside the launch, so its time counts); the tensor map's width stays k or n, so TMA reads
        the pitch's tail as zeros. C is stored at m × n as it stands. With b_regs=False, bt is a scratch buffer
        of n × ldbt floats (ldbt ≥ k, a multiple of 4) and each launch first transposes B into it."""
        cfg = self.config
        lib = load_driver()
        pads = []  # (src, dst, rows, cols, ld) copies made before the product
        lda, ldb = k, n
        if k % 4:
            lda = -(-k // 4) * 4
            a_pad = self._buffer("a", 4 * m * lda)
            pads.append((a, a_pad, m, k, lda))
            a = a_pad
        if n % 4 and cfg.b_regs:
            ldb = -(-n // 4) * 4
            b_pad = self._buffer("b", 4 * k * ldb)
            pads.append((b, b_pad, k, n, ldb))
            b = b_pad
        tm_a = tensor_map_2d(a, m, k, lda, cfg.bm // cfg.cluster, 32)
        if cfg.b_regs:
            tm_b = tensor_map_2d(b, k, n, ldb, 32, 32)
        else:
            if bt is None or ldbt is None:
                raise ValueError("b_regs=False needs a scratch buffer bt of n × ldbt floats")
            tm_b = tensor_map_2d(bt, n, k, ldbt, cfg.bn, 32)
        c_ptr, mi, ni, ki = ctypes.c_uint64(c), ctypes.c_int(m), ctypes.c_int(n), ctypes.c_int(k)
        splits = cfg.split_k(m, n, k)
        ws = self._workspace(4 * cfg.tiles(m, n) * splits * cfg.bm * cfg.bn) if splits > 1 else 0
        sk_tiles = cfg.streamk_plan(m, n, k)[1] if cfg.streamk else 0
        if sk_tiles:
            ws = self._workspace(cfg.streamk_workspace_bytes(m, n, k))
        rows, cols = -(-m // cfg.bm), cfg.tiles(m, n) // (-(-m // cfg.bm) * cfg.cluster)
        order = self._order_table(rows, cols) if cfg.order else 0
        args = [
            tm_a,
            tm_b,
            c_ptr,
            mi,
            ni,
            ki,
            ctypes.c_uint64(ws),
            ctypes.c_int(splits),
            ctypes.c_uint64(order),
            ctypes.c_int(sk_tiles),
        ]
        params = kernel_params(args)
        grid = cfg.grid(m, n, k)
        gemm = self._gemm
        keep: list = [args, params]  # the driver reads the parameter memory at each launch
        pad_launches = [pad_rows_launch(*pad, keep) for pad in pads]
        if not cfg.b_regs:
            assert bt is not None and ldbt is not None  # refused above without them
            t_args = [ctypes.c_uint64(b), ctypes.c_uint64(bt), ctypes.c_int(k), ctypes.c_int(n), ctypes.c_int(ldbt)]
            t_params = kernel_params(t_args)
            t_grid = (-(-n // 32), -(-k // 32))
            keep += [t_args, t_params]

        def launch() -> None:
            for p_grid, p_params in pad_launches:
                _check(lib.cuLaunchKernel(self._pad, *p_grid, 32, 8, 1, 0, None, p_params, None), "pad_rows launch")
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
