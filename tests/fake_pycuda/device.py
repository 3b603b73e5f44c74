"""The simulated GPU behind the fake PyCUDA: memory, the legacy default stream, a clock, and what was done.

Everything a test may want to see or steer is on `FakeGpu`:
- memory: device allocations at fake addresses (zeros until written, so a 100 MiB L2-flush buffer costs
  nothing), mapped host memory, out-of-memory when the fake's total is exceeded;
- the stream: work runs at once, in order, unless a blocking kernel (`gemmviz_hold_stream`) is pending;
  then it is queued behind it until the host synchronizes. At that point the blocking kernel ends released
  if the host has written its flag, or timed out if not (as the real one would after `timeout_ns`);
- time: a GPU clock in ns that launches advance by a modelled duration (flops at `gflops`, plus
  `launch_overhead_ns`, scaled by the SM clock and a seeded jitter), read by events;
- `log`: what the host asked for, in order (kind, detail), and `launches`: launches per kernel name;
- faults: `launch_hook(launch)` is called after each GEMM-like launch has written C and may corrupt
  `launch.c`, raise, or call `launch.crash()` (a sticky error: the context's next synchronizing call raises
  LaunchError and every later call in it fails); `hold_released(i)` decides whether the i-th blocking kernel
  sees its release; `sm_clock(i)` gives the SM clock of the i-th sample; `compile_hook(source, options)`
  may raise a CompileError; `trace_hook(records)` may change the block-trace records an instrumented
  build writes.

Rules a real driver enforces and this one checks: every call needs a current context in the calling
thread (contexts are per thread), objects are used in the context that made them, freed memory is not
used nor freed again, a launch stays within 1024 threads and its dynamic shared memory within the function's attribute,
and a kernel reads and writes only inside its buffers. `leaks` lists allocations still live when a
context was destroyed (the backend must free what it made); `warnings`, the clean-ups PyCUDA would warn of.
"""

from __future__ import annotations

import bisect
import builtins
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

H200_ATTRIBUTES = {
    "MULTIPROCESSOR_COUNT": 132,
    "CLOCK_RATE": 1_980_000,  # kHz
    "L2_CACHE_SIZE": 50 << 20,
    "MEMORY_CLOCK_RATE": 2_619_000,  # kHz
    "GLOBAL_MEMORY_BUS_WIDTH": 6144,
    "MAX_THREADS_PER_BLOCK": 1024,
    "MAX_SHARED_MEMORY_PER_BLOCK": 48 << 10,
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 227 << 10,
    "WARP_SIZE": 32,
    "COMPUTE_CAPABILITY_MAJOR": 9,
    "COMPUTE_CAPABILITY_MINOR": 0,
}


class FakeDriverError(Exception):
    """Raised by the simulation; driver.py turns it into the PyCUDA exception it names."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind  # "logic", "launch", "runtime", "memory"


def logic(message: str) -> FakeDriverError:
    return FakeDriverError("logic", message)


@dataclass
class Context:
    gpu: FakeGpu
    flags: int
    thread: int = field(default_factory=threading.get_ident)
    broken: str | None = None  # the sticky error, once a launch crashed
    crash_pending: str | None = None  # a crashed launch not yet seen by a synchronizing call
    detached: bool = False
    allocations: set = field(default_factory=set)

    def check(self) -> None:
        if self.broken:
            raise FakeDriverError("launch", self.broken)


class Allocation:
    """Device memory: zeros (or a 32-bit fill pattern) until something writes part of it."""

    def __init__(self, gpu: FakeGpu, context: Context | None, address: int, nbytes: int):
        self.gpu, self.context, self.address, self.nbytes = gpu, context, address, nbytes
        self.freed = False
        self._data: np.ndarray | None = None
        self._fill = 0  # u32 pattern of an unwritten allocation

    def bytes(self) -> np.ndarray:
        """The allocation's bytes (made real on first use)."""
        if self._data is None:
            self._data = np.zeros(self.nbytes, np.uint8)
            if self._fill:
                whole = self.nbytes // 4 * 4
                self._data[:whole].view(np.uint32)[:] = self._fill
        return self._data

    def fill32(self, value: int, count: int, offset: int = 0) -> None:
        if offset == 0 and count * 4 >= self.nbytes - 3:
            self._data, self._fill = None, value & 0xFFFFFFFF
            return
        self.view(np.uint32, offset, count)[:] = value

    def view(self, dtype, offset: int, count: int) -> np.ndarray:
        size = np.dtype(dtype).itemsize * count
        if offset < 0 or offset + size > self.nbytes:
            raise FakeDriverError(
                "launch",
                f"an access of {size} bytes at offset {offset} is outside an allocation "
                f"of {self.nbytes} bytes (illegal address)",
            )
        return self.bytes()[offset : offset + size].view(dtype)


@dataclass
class Launch:
    """What a launch hook sees: the kernel, its index among launches of that name, and its output."""

    name: str
    index: int
    c: np.ndarray | None
    m: int = 0
    n: int = 0
    k: int = 0
    context: Context | None = None

    def crash(self, message: str = "unspecified launch failure") -> None:
        self.context.crash_pending = message


@dataclass
class _Hold:
    flag: np.ndarray
    out: np.ndarray
    min_ns: int
    timeout_ns: int
    index: int


class FakeGpu:
    def __init__(
        self,
        name: str = "Fake H200 (sm_90)",
        compute_capability: tuple[int, int] = (9, 0),
        total_bytes: int = 141 << 30,
        count: int = 1,
        attributes: dict | None = None,
        gflops: float = 20_000.0,
        seed: int = 0,
    ):
        self.name = name
        self.compute_capability = compute_capability
        self.total_bytes = total_bytes
        self.count = count
        self.attributes = {**H200_ATTRIBUTES, **(attributes or {})}
        self.gflops = gflops
        self.launch_overhead_ns = 3_000
        self.jitter = 0.001  # relative standard deviation of a launch's duration
        self.hold_ns = 150_000  # how long a released blocking kernel spins (at least its min_ns)
        self.init_error: str | None = None
        self.free_bytes_reported: int | None = None  # mem_get_info's free figure, if it should differ from the truth
        self.launch_hook: Callable[[Launch], None] | None = None
        self.hold_released: Callable[[int], bool] = lambda _i: True
        self.sm_clock: Callable[[int], float] = lambda _i: self.attributes["CLOCK_RATE"] / 1e3
        self.compile_hook: Callable[[str, list], None] | None = None
        self.trace_hook: Callable[[np.ndarray], None] | None = None  # may change the (blocks, 4) records written
        self.now_ns = 1_000_000_000
        self.log: list[tuple[str, object]] = []
        self.launches: Counter = Counter()
        self.contexts: list[Context] = []
        self.leaks: list[tuple[int, int]] = []  # (address, bytes) still allocated when their context went
        self.cublas_handles: set[int] = set()
        self.warnings: list[str] = []  # what PyCUDA would print as a warning (clean-ups that failed)
        self._rng = np.random.default_rng(seed)
        self._local = threading.local()
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._addresses: list[int] = []
        self._by_address: dict[int, Allocation] = {}
        self._next_address = 0x7F00_0000_0000
        self._hold: _Hold | None = None
        self._queue: list[Callable[[], None]] = []
        self._holds = 0

    # ---- contexts (one stack per thread, as CUDA's) --------------------------------------------
    @property
    def stack(self) -> list[Context]:
        if not hasattr(self._local, "stack"):
            self._local.stack = []
        return self._local.stack

    def current(self) -> Context:
        """The calling thread's current context, raising as the driver does when there is none."""
        if not self.stack:
            raise logic("no current context in this thread (cuCtxGetCurrent: invalid context)")
        ctx = self.stack[-1]
        if ctx.crash_pending:  # the GPU has faulted: from now on every call in the context returns the error
            ctx.broken, ctx.crash_pending = ctx.crash_pending, None
        ctx.check()
        return ctx

    def require(self, owner: Context | None) -> Context:
        ctx = self.current()
        if owner is not None and owner is not ctx:
            raise logic("an object of another context used (invalid handle: objects belong to their context)")
        return ctx

    def push_context(self, flags: int) -> Context:
        with self._lock:
            ctx = Context(self, flags)
            self.contexts.append(ctx)
            self.stack.append(ctx)
            return ctx

    def destroy(self, ctx: Context) -> None:
        with self._lock:
            if ctx.broken is None:
                self.leaks += [(a.address, a.nbytes) for a in ctx.allocations if not a.freed]
            for alloc in list(ctx.allocations):
                self._release(alloc)
            ctx.detached = True

    def live_contexts(self) -> list[Context]:
        return [c for c in self.contexts if not c.detached]

    # ---- memory --------------------------------------------------------------------------------
    def used_bytes(self) -> int:
        return sum(a.nbytes for a in self._by_address.values() if a.context is not None)

    def allocate(self, nbytes: int, context: Context | None) -> Allocation:
        with self._lock:
            if nbytes <= 0:
                raise logic(f"cuMemAlloc of {nbytes} bytes: invalid value")
            if context is not None and self.used_bytes() + nbytes > self.total_bytes:
                raise FakeDriverError("memory", "cuMemAlloc failed: out of memory")
            address = self._next_address
            self._next_address += (nbytes + 511) // 512 * 512 + 512
            alloc = Allocation(self, context, address, nbytes)
            bisect.insort(self._addresses, address)
            self._by_address[address] = alloc
            if context is not None:
                context.allocations.add(alloc)
            return alloc

    def _release(self, alloc: Allocation) -> None:
        alloc.freed = True
        self._by_address.pop(alloc.address, None)
        i = bisect.bisect_left(self._addresses, alloc.address)
        if i < len(self._addresses) and self._addresses[i] == alloc.address:
            del self._addresses[i]
        if alloc.context is not None:
            alloc.context.allocations.discard(alloc)

    def free(self, alloc: Allocation) -> None:
        """PyCUDA's DeviceAllocation.free(): a second free raises; a free in a dead context, or from a thread
        the context is not current in, only prints PyCUDA's clean-up warning (here: `warnings`)."""
        with self._lock:
            if alloc.freed:
                raise logic("device_allocation::free failed: invalid resource handle (freed twice)")
            ctx = alloc.context
            if ctx is not None and ctx.thread != threading.get_ident():
                self.warnings.append(f"free of {alloc.nbytes} bytes from a thread outside its context: not freed")
                return
            if ctx is not None and ctx.broken:
                self.warnings.append(f"a clean-up operation failed (dead context maybe?): cuMemFree ({ctx.broken})")
            self._release(alloc)

    def resolve(self, pointer) -> tuple[Allocation, int]:
        """(allocation, offset) of a device pointer: an allocation object or an int inside one."""
        if isinstance(pointer, Allocation):
            alloc, offset = pointer, 0
        else:
            address = int(pointer)
            with self._lock:
                i = bisect.bisect_right(self._addresses, address) - 1
                alloc = self._by_address[self._addresses[i]] if i >= 0 else None
            if alloc is None or not alloc.address <= address < alloc.address + alloc.nbytes:
                raise FakeDriverError("launch", f"address {address:#x} is in no allocation (illegal address)")
            offset = address - alloc.address
        if alloc.freed:
            raise FakeDriverError("launch", f"address {alloc.address:#x} was freed (illegal address)")
        return alloc, offset

    def array(self, pointer, dtype, count: int) -> np.ndarray:
        alloc, offset = self.resolve(pointer)
        return alloc.view(dtype, offset, count)

    def mem_info(self) -> tuple[int, int]:
        free = self.total_bytes - self.used_bytes()
        return (free if self.free_bytes_reported is None else self.free_bytes_reported), self.total_bytes

    # ---- the stream --------------------------------------------------------------------------------
    def note(self, kind: str, detail: object = None) -> None:
        with self._lock:
            self.log.append((kind, detail))

    def submit(self, work: Callable[[], None]) -> None:
        """Queue `work` on the legacy stream: behind a pending blocking kernel, else at once."""
        with self._lock:
            if self._hold is not None:
                self._queue.append(work)
            else:
                work()

    def drain(self) -> None:
        """What a synchronizing call does: the blocking kernel ends (released or timed out), then the work
        queued behind it runs; a crash of a launch surfaces as the context's sticky error."""
        with self._lock:
            ctx = self.current()
            hold, self._hold = self._hold, None
            if hold is not None:
                released = bool(hold.flag[0]) and self.hold_released(hold.index)
                ns = max(hold.min_ns, self.hold_ns) if released else hold.timeout_ns + 1
                mhz = self.sm_clock(hold.index)
                hold.out[:] = (ns, int(ns * mhz / 1e3), 0 if released else 1)
                self.now_ns += ns
                queue, self._queue = self._queue, []
                for work in queue:
                    work()
            if ctx.crash_pending:
                ctx.broken, ctx.crash_pending = ctx.crash_pending, None
                raise FakeDriverError("launch", f"cuCtxSynchronize failed: {ctx.broken}")

    def start_hold(self, flag: np.ndarray, out: np.ndarray, min_ns: int, timeout_ns: int) -> None:
        with self._lock:
            if self._hold is not None:
                raise logic("a second blocking kernel queued behind the first (the stream would deadlock)")
            self._hold = _Hold(flag, out, int(min_ns), int(timeout_ns), self._holds)
            self._holds += 1

    def kernel_ns(self, flops: float, sample: int | None = None) -> int:
        ns = self.launch_overhead_ns + flops / self.gflops
        nominal = self.attributes["CLOCK_RATE"] / 1e3
        clock = self.sm_clock(self._holds - 1 if sample is None else sample)
        return max(1, int(ns * nominal / clock * (1 + self.jitter * self._rng.standard_normal())))

    def count_launch(self, name: str) -> int:
        with self._changed:
            index = self.launches[name]
            self.launches[name] += 1
            self._changed.notify_all()
            return index

    def wait_for(self, condition: Callable[[], bool], timeout_s: float = 10.0) -> bool:
        """Wait until condition() holds (checked after each launch); False if it did not within timeout_s."""
        with self._changed:
            return self._changed.wait_for(condition, timeout_s)

    # ---- the GEMM every gemmviz kernel computes ----------------------------------------------------
    def run_kernel(
        self, name: str, ctx: Context, compute: Callable[[], np.ndarray], shape: tuple[int, int, int], trace=None
    ) -> None:
        """Queue a GEMM-like launch: `compute()` reads the inputs, writes C and returns it (an m×n view);
        `trace`: (pointer, blocks) of the block-trace buffer of an instrumented build."""
        index = self.count_launch(name)
        self.note("launch", name)
        m, n, k = shape

        def work() -> None:
            if ctx.broken:
                return
            try:
                c = compute()
            except FakeDriverError as exc:
                ctx.crash_pending = str(exc)
                return
            start = self.now_ns
            self.now_ns += self.kernel_ns(2.0 * m * n * k)
            if trace is not None:
                self._write_trace(trace, start, ctx)
            if self.launch_hook is not None:
                self.launch_hook(Launch(name, index, c, m, n, k, ctx))

        self.submit(work)

    def gemm(self, name: str, a, b, c, m: int, n: int, k: int, ctx: Context, trace=None) -> None:
        """Queue C = A·B (row-major float32 m×k, k×n, m×n) as kernel `name`."""

        def compute() -> np.ndarray:
            av = self.array(a, np.float32, m * k).reshape(m, k)
            bv = self.array(b, np.float32, k * n).reshape(k, n)
            cv = self.array(c, np.float32, m * n).reshape(m, n)
            np.matmul(av, bv, out=cv)
            return cv

        self.run_kernel(name, ctx, compute, (m, n, k), trace)

    def _write_trace(self, trace, start: int, ctx: Context) -> None:
        pointer, blocks = trace
        sms = self.attributes["MULTIPROCESSOR_COUNT"]
        span = max(1, (self.now_ns - start) // max(1, -(-blocks // sms)))
        ids = np.arange(blocks, dtype=np.uint64)
        wave = ids // np.uint64(sms)
        begin = np.uint64(start) + wave * np.uint64(span)
        records = np.stack([ids, ids % np.uint64(sms), begin, begin + np.uint64(span)], axis=1)
        if self.trace_hook is not None:
            self.trace_hook(records)
        try:
            self.array(pointer, np.uint64, records.size)[:] = records.ravel()
        except FakeDriverError as exc:
            ctx.crash_pending = str(exc)


def raise_as(module, exc: FakeDriverError):
    """The PyCUDA exception of the driver module for a simulation error."""
    kinds = {
        "logic": module.LogicError,
        "launch": module.LaunchError,
        "runtime": module.RuntimeError,
        "memory": module.MemoryError,
    }
    return kinds.get(exc.kind, builtins.RuntimeError)(str(exc))
