"""The fake `pycuda.driver`: the part of PyCUDA's API that gemmviz calls, over the simulated GPU in device.py.

`gpu` is the FakeGpu of the test that installed the fake (tests/fake_pycuda/__init__.py: install).
"""

from __future__ import annotations

import builtins
import functools
import json
import sys

import numpy as np

from tests.fake_pycuda.device import Allocation, FakeDriverError, FakeGpu, logic, raise_as

gpu: FakeGpu | None = None


class Error(Exception):
    pass


class LogicError(Error):
    pass


class LaunchError(Error):
    pass


class RuntimeError(Error):
    pass


class MemoryError(Error):
    pass


class CompileError(Error):
    def __init__(self, msg, command_line=None, stdout=None, stderr=None):
        super().__init__(msg)
        self.command_line, self.stdout, self.stderr = command_line, stdout, stderr


def _driver_call(fn):
    """Simulation errors become the PyCUDA exceptions a real call raises."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except FakeDriverError as exc:
            raise raise_as(_module, exc) from None

    return call


class _Flags:
    def __init__(self, **values):
        self.__dict__.update(values)


ctx_flags = _Flags(SCHED_AUTO=0, SCHED_SPIN=1, SCHED_YIELD=2, SCHED_BLOCKING_SYNC=4, MAP_HOST=8, LMEM_RESIZE_TO_MAX=16)
host_alloc_flags = _Flags(PORTABLE=1, DEVICEMAP=2, WRITECOMBINED=4)
device_attribute = _Flags(
    **{
        name: name
        for name in (
            "MULTIPROCESSOR_COUNT",
            "CLOCK_RATE",
            "L2_CACHE_SIZE",
            "MEMORY_CLOCK_RATE",
            "GLOBAL_MEMORY_BUS_WIDTH",
            "MAX_THREADS_PER_BLOCK",
            "MAX_SHARED_MEMORY_PER_BLOCK",
            "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
            "WARP_SIZE",
            "COMPUTE_CAPABILITY_MAJOR",
            "COMPUTE_CAPABILITY_MINOR",
        )
    }
)
function_attribute = _Flags(
    MAX_DYNAMIC_SHARED_SIZE_BYTES="MAX_DYNAMIC_SHARED_SIZE_BYTES",
    MAX_THREADS_PER_BLOCK="MAX_THREADS_PER_BLOCK",
    NUM_REGS="NUM_REGS",
)

_initialized = False


def _gpu() -> FakeGpu:
    if gpu is None:
        raise builtins.RuntimeError("the fake PyCUDA is not installed (tests/fake_pycuda: install)")
    return gpu


def init(flags: int = 0) -> None:
    global _initialized
    if _gpu().init_error:
        raise RuntimeError(f"cuInit failed: {gpu.init_error}")
    _initialized = True


def get_driver_version() -> int:
    return 13000


def get_version() -> tuple[int, int, int]:
    return (13, 0, 0)


def _need_init() -> None:
    if not _initialized:
        raise LogicError("cuInit has not been called")


class Device:
    def __init__(self, ordinal: int):
        _need_init()
        if not 0 <= ordinal < _gpu().count:
            raise LogicError("cuDeviceGet failed: invalid device ordinal")
        self.ordinal = ordinal

    @staticmethod
    def count() -> int:
        _need_init()
        return _gpu().count

    def name(self) -> str:
        return gpu.name

    def compute_capability(self) -> tuple[int, int]:
        return gpu.compute_capability

    def total_memory(self) -> int:
        return gpu.total_bytes

    def pci_bus_id(self) -> str:
        return f"0000:{0x18 + self.ordinal:02x}:00.0"

    def get_attribute(self, attribute) -> int:
        try:
            return gpu.attributes[attribute]
        except KeyError:
            raise LogicError(f"cuDeviceGetAttribute failed: {attribute!r} unknown to the fake") from None

    def get_attributes(self) -> dict:
        return dict(gpu.attributes)

    def make_context(self, flags: int = 0) -> Context:
        return Context(gpu.push_context(flags))


class Context:
    def __init__(self, state):
        self._state = state

    @staticmethod
    @_driver_call
    def synchronize() -> None:
        gpu.note("sync", "context")
        gpu.drain()

    @staticmethod
    def pop() -> None:
        stack = _gpu().stack
        if not stack:
            raise LogicError("cuCtxPopCurrent failed: invalid context")
        stack.pop()

    def push(self) -> None:
        gpu.stack.append(self._state)

    def detach(self) -> None:
        if self._state.detached:
            raise LogicError("cuCtxDetach failed: the context was already detached")
        if self._state in gpu.stack:
            gpu.stack.remove(self._state)
        gpu.destroy(self._state)


class DeviceAllocation:
    def __init__(self, alloc: Allocation):
        self._alloc = alloc

    def __int__(self) -> int:
        return self._alloc.address

    __index__ = __int__

    @_driver_call
    def free(self) -> None:
        gpu.note("free", self._alloc.nbytes)
        gpu.free(self._alloc)


def _pointer(p):
    return p._alloc if isinstance(p, DeviceAllocation) else p


@_driver_call
def mem_alloc(nbytes: int) -> DeviceAllocation:
    ctx = gpu.current()
    gpu.note("alloc", int(nbytes))
    return DeviceAllocation(gpu.allocate(int(nbytes), ctx))


@_driver_call
def mem_get_info() -> tuple[int, int]:
    gpu.current()
    return gpu.mem_info()


def to_device(array: np.ndarray) -> DeviceAllocation:
    buf = mem_alloc(array.nbytes)
    memcpy_htod(buf, array)
    return buf


@_driver_call
def memcpy_htod(dest, src: np.ndarray) -> None:
    gpu.note("htod", src.nbytes)
    gpu.drain()
    gpu.array(_pointer(dest), np.uint8, src.nbytes)[:] = np.ascontiguousarray(src).view(np.uint8).ravel()


@_driver_call
def memcpy_dtoh(dest: np.ndarray, src) -> None:
    gpu.note("dtoh", dest.nbytes)
    gpu.drain()
    if not dest.flags.c_contiguous:
        raise LogicError("memcpy_dtoh needs a contiguous destination")
    dest.view(np.uint8).ravel()[:] = gpu.array(_pointer(src), np.uint8, dest.nbytes)


@_driver_call
def memcpy_dtod(dest, src, size: int) -> None:
    gpu.drain()
    memcpy_dtod_async(dest, src, size)


@_driver_call
def memcpy_dtod_async(dest, src, size: int, stream=None) -> None:
    ctx = gpu.current()
    gpu.note("dtod", int(size))

    def work():
        gpu.array(_pointer(dest), np.uint8, size)[:] = gpu.array(_pointer(src), np.uint8, size)
        gpu.now_ns += int(size / 2e3)  # about 2 TB/s read + write

    gpu.submit(_guarded(work, ctx))


def _guarded(work, ctx):
    def run():
        if ctx.broken:
            return
        try:
            work()
        except FakeDriverError as exc:
            ctx.crash_pending = str(exc)

    return run


def _memset(dest, pattern: int, count: int, width: int, asynchronous: bool) -> None:
    ctx = gpu.current()
    gpu.note("memset", int(count) * width)
    if not asynchronous:
        gpu.drain()
    alloc, offset = gpu.resolve(_pointer(dest))
    if offset + count * width > alloc.nbytes:
        raise logic(f"memset of {count * width} bytes past the end of an allocation of {alloc.nbytes}")
    value = pattern * 0x01010101 if width == 1 else pattern

    def work():
        if width == 1 and count % 4:
            alloc.view(np.uint8, offset, count)[:] = pattern
        else:
            alloc.fill32(value, count * width // 4, offset)
        gpu.now_ns += 1_000 + int(count * width / 3e3)

    gpu.submit(_guarded(work, ctx))


@_driver_call
def memset_d32(dest, value: int, count: int) -> None:
    _memset(dest, value, count, 4, False)


@_driver_call
def memset_d32_async(dest, value: int, count: int, stream=None) -> None:
    _memset(dest, value, count, 4, True)


@_driver_call
def memset_d8(dest, value: int, count: int) -> None:
    _memset(dest, value, count, 1, False)


class HostAllocation(bytearray):
    """Page-locked host memory; with DEVICEMAP, also at a device address (mapped memory)."""

    mapped_address: int | None = None

    @_driver_call
    def get_device_pointer(self) -> int:
        ctx = gpu.current()
        if self.mapped_address is None:
            raise LogicError("cuMemHostGetDevicePointer failed: the memory was not allocated with DEVICEMAP")
        if not ctx.flags & ctx_flags.MAP_HOST:
            raise LogicError("cuMemHostGetDevicePointer failed: the context was made without MAP_HOST")
        return self.mapped_address


@_driver_call
def pagelocked_zeros(shape, dtype, order: str = "C", mem_flags: int = 0) -> np.ndarray:
    gpu.current()
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    host = HostAllocation(count * dtype.itemsize)
    array = np.ndarray(shape, dtype, buffer=host, order=order)
    if mem_flags & host_alloc_flags.DEVICEMAP:
        mapped = gpu.allocate(max(1, len(host)), None)  # an address for the device; its bytes are the host's
        mapped._data = np.frombuffer(host, np.uint8)
        host.mapped_address = mapped.address
    return array


class Event:
    def __init__(self, flags: int = 0):
        self._ctx = _driver_call(gpu.current)()
        self._time_ns: int | None = None
        self._pending = False

    @_driver_call
    def record(self, stream=None) -> Event:
        gpu.require(self._ctx)
        gpu.note("record", id(self))
        self._pending = True

        def work():
            self._time_ns, self._pending = gpu.now_ns, False

        gpu.submit(work)
        return self

    @_driver_call
    def synchronize(self) -> Event:
        gpu.require(self._ctx)
        gpu.note("sync", "event")
        gpu.drain()
        return self

    def query(self) -> bool:
        return not self._pending

    @_driver_call
    def time_since(self, start: Event) -> float:
        gpu.require(self._ctx)
        for event in (self, start):
            if event._time_ns is None or event._pending:
                raise LogicError("cuEventElapsedTime failed: an event was not recorded or is not complete")
        return (self._time_ns - start._time_ns) / 1e6


# ---- modules and functions ----------------------------------------------------------------------
CUBIN_MAGIC = b"FAKE-CUBIN\n"


def fake_cubin(source: str, options: list, arch: str | None) -> bytes:
    """What the fake compiler returns: the kernels a source defines and whether it is the block-trace build."""
    from tests.fake_pycuda.compiler import global_functions

    meta = {
        "functions": global_functions(source),
        "traced": "#define GEMMVIZ_TRACE" in source,
        "options": list(options or []),
        "arch": arch,
    }
    return CUBIN_MAGIC + json.dumps(meta).encode()


@_driver_call
def module_from_buffer(buffer: bytes, options=None, message_handler=None) -> Module:
    ctx = gpu.current()
    data = bytes(buffer)
    if not data.startswith(CUBIN_MAGIC):
        raise LogicError("cuModuleLoadDataEx failed: device kernel image is invalid")
    return Module(json.loads(data[len(CUBIN_MAGIC) :]), ctx)


class Module:
    def __init__(self, meta: dict, ctx):
        self.meta, self._ctx = meta, ctx
        self.trace_global = gpu.allocate(8, None) if meta["traced"] else None

    @_driver_call
    def get_function(self, name: str) -> Function:
        gpu.require(self._ctx)
        if name not in self.meta["functions"]:
            raise LogicError(f"cuModuleGetFunction failed: named symbol not found ({name!r})")
        return Function(self, name)

    @_driver_call
    def get_global(self, name: str) -> tuple[int, int]:
        gpu.require(self._ctx)
        if name != "gemmviz_trace" or self.trace_global is None:
            raise LogicError(f"cuModuleGetGlobal failed: named symbol not found ({name!r})")
        return self.trace_global.address, 8


_SIZES = {"P": 8, "Q": 8, "q": 8, "i": 4, "I": 4, "f": 4, "d": 8}


class Function:
    def __init__(self, module: Module, name: str):
        self.module, self.name = module, name
        self.arg_types: str | None = None
        self.attributes = {"MAX_DYNAMIC_SHARED_SIZE_BYTES": 0}

    def prepare(self, arg_types: str) -> Function:
        if any(t not in _SIZES for t in arg_types):
            raise LogicError(f"prepare: unknown argument type in {arg_types!r}")
        self.arg_types = arg_types
        return self

    @_driver_call
    def set_attribute(self, attribute, value: int) -> None:
        gpu.require(self.module._ctx)
        if attribute == "MAX_DYNAMIC_SHARED_SIZE_BYTES":
            optin = gpu.attributes["MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"]
            if not 0 <= value <= optin:
                raise LogicError(f"cuFuncSetAttribute failed: {value} bytes of dynamic shared memory (at most {optin})")
        self.attributes[attribute] = int(value)

    @_driver_call
    def prepared_call(self, grid, block, *args, shared_size: int = 0) -> None:
        self._launch(grid, block, args, shared_size)  # on the legacy stream, not synchronized (as PyCUDA's)

    @_driver_call
    def prepared_async_call(self, grid, block, stream, *args, shared_size: int = 0) -> None:
        if stream is not None:
            raise LogicError("the fake runs only the legacy default stream (stream None)")
        self._launch(grid, block, args, shared_size)

    @_driver_call
    def __call__(self, *args, block=(1, 1, 1), grid=(1, 1), stream=None, shared: int = 0, **_kw) -> None:
        self._launch(grid, block, args, shared, prepared=False)

    def _launch(self, grid, block, args, shared_size: int, prepared: bool = True) -> None:
        ctx = gpu.require(self.module._ctx)
        if prepared:
            if self.arg_types is None:
                raise LogicError(f"{self.name}: prepared call before prepare()")
            if len(args) != len(self.arg_types):
                raise LogicError(f"{self.name}: {len(args)} arguments for the signature {self.arg_types!r}")
        block = tuple(block) + (1,) * (3 - len(block))
        grid = tuple(grid) + (1,) * (3 - len(grid))
        if int(np.prod(block)) > gpu.attributes["MAX_THREADS_PER_BLOCK"] or min(block) < 1:
            raise LogicError(f"cuLaunchKernel failed: invalid argument (block {block})")
        if min(grid) < 1 or grid[0] >= 2**31 or max(grid[1:]) > 65535:
            raise LogicError(f"cuLaunchKernel failed: invalid argument (grid {grid})")
        static_limit = gpu.attributes["MAX_SHARED_MEMORY_PER_BLOCK"]
        if shared_size > max(static_limit, self.attributes["MAX_DYNAMIC_SHARED_SIZE_BYTES"]):
            raise LogicError(f"cuLaunchKernel failed: {shared_size} bytes of dynamic shared memory were not allowed")
        if self.name == "gemmviz_hold_stream":
            flag_ptr, min_ns, timeout_ns, out_ptr = args
            gpu.count_launch(self.name)
            gpu.note("launch", self.name)
            gpu.start_hold(gpu.array(flag_ptr, np.int32, 1), gpu.array(out_ptr, np.uint64, 3), min_ns, timeout_ns)
        elif self.name in ("l2_read", "shared_read"):
            gpu.count_launch(self.name)
            gpu.note("launch", self.name)
            gpu.submit(lambda: setattr(gpu, "now_ns", gpu.now_ns + 50_000))
        else:
            a, b, c, m, n, k = args
            trace = None
            if self.module.trace_global is not None:
                pointer = int(self.module.trace_global.view(np.uint64, 0, 1)[0])
                trace = (pointer, grid[0] * grid[1] * grid[2])
            gpu.gemm(self.name, _pointer(a), _pointer(b), _pointer(c), int(m), int(n), int(k), ctx, trace)


_module = sys.modules[__name__]
