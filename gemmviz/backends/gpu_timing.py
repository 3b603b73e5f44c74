"""Kernel-only timing of one launch on the GPU (CudaRun's timing half), and the clocks NVML reports.

nvbench's method: a blocking kernel (kernels/hold_stream.cu) holds the stream while the start event, the launch
and the end event are queued; the host then releases it, so the events bracket only the GPU's work, never the
host's launch path. The blocking kernel spins at least HOLD_MIN_NS and reports the SM clock it ran at, so a
sample taken while the clock had fallen can be left out (core/measure/timing.py decides that, and when to stop).
"""

from __future__ import annotations

import statistics
import time
from typing import TYPE_CHECKING, Any

from gemmviz.core.measure.bench import BenchSettings, Cancelled, sample_policy
from gemmviz.core.measure.timing import SamplePolicy, Sampler
from gemmviz.core.paths import kernel_source
from gemmviz.core.session.results import TIMING_HOST_EVENTS, TIMING_KERNEL

if TYPE_CHECKING:  # numpy is imported where it is used: not on the window's first frame's path
    pass

HOLD_MIN_NS = 100_000  # the blocking kernel spins at least this long: the SM clock it reports is then within ~1 %
HOLD_TIMEOUT_NS = 1_000_000_000  # ...and gives up after 1 s if the host never releases it
BATCH_REGION_MS = 0.1  # a sample of a short kernel holds about this much GPU work (several launches)
HOST_SAMPLES_S = 0.25  # ...or fewer, once they took this long
HOST_SAMPLES = 5  # launch-inclusive samples ("what a Python caller waits"), stored beside the kernel's time


class Nvml:
    """Clocks and temperature through nvidia-ml-py when it is installed; silent otherwise."""

    def __init__(self, pci_bus_id: str | None):
        self.handle = None
        try:
            import pynvml

            pynvml.nvmlInit()
            self.pynvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByPciBusId(pci_bus_id) if pci_bus_id else None
        except Exception:
            self.handle = None

    def sm_clock_mhz(self) -> float | None:
        if self.handle is None:
            return None
        try:
            return float(self.pynvml.nvmlDeviceGetClockInfo(self.handle, self.pynvml.NVML_CLOCK_SM))
        except Exception:
            return None

    def temperature_c(self) -> float | None:
        if self.handle is None:
            return None
        try:
            return float(self.pynvml.nvmlDeviceGetTemperature(self.handle, self.pynvml.NVML_TEMPERATURE_GPU))
        except Exception:
            return None


class KernelTimer:
    """Timing for CudaRun: needs self.cuda, self.context, self.device, self.events, self.hold and self.flush."""

    # what the class it is mixed into sets (CudaRun, the exercise child's timer): PyCUDA's objects
    cuda: Any  # pycuda.driver
    context: Any
    device: Any
    events: tuple[Any, Any] | None  # (start, end) events; None once the run is closed
    arch: str
    hold: tuple | None  # the blocking kernel (_hold), made on first use
    flush: Any  # the buffer written to flush L2 (_flush_buffer), made on first use
    flush_bytes: int

    def _flush_buffer(self):
        if self.flush is None:
            l2 = self.device.get_attribute(self.cuda.device_attribute.L2_CACHE_SIZE)
            self.flush_bytes = max(2 * l2, 64 << 20)
            self.flush = self.cuda.mem_alloc(self.flush_bytes)
        return self.flush

    def _hold(self):
        """The blocking kernel, its mapped release flag and its mapped report (compiled on first use)."""
        import numpy as np

        if self.hold is None:
            from pycuda.compiler import SourceModule

            cuda = self.cuda
            module = SourceModule(kernel_source("hold_stream.cu"), no_extern_c=True, arch=self.arch)
            func = module.get_function("gemmviz_hold_stream")
            func.prepare("PQQP")
            flag = cuda.pagelocked_zeros((1,), np.int32, mem_flags=cuda.host_alloc_flags.DEVICEMAP)
            out = cuda.pagelocked_zeros((3,), np.uint64, mem_flags=cuda.host_alloc_flags.DEVICEMAP)
            self.hold = (module, func, flag, out, flag.base.get_device_pointer(), out.base.get_device_pointer())
        return self.hold

    def measure(self, launch, settings: BenchSettings, cancel) -> dict:
        """Samples of one launch in ms, with the Result fields that describe them (core/measure/timing.py decides when
        to stop and which samples count). Warm-ups first; L2 flushed before each sample in cold mode.

        Kernel-only (settings.timing "kernel", nvbench's method): a blocking kernel holds the stream while the
        start event, the launch and the end event are queued; the host then releases it, so the events bracket
        the GPU's work only. The blocking kernel also measures the SM clock just before each sample. "host":
        events around the host's launch, which include its launch path (for runs under a profiler)."""
        flush = self._flush_buffer() if settings.cold_l2 else None
        for _ in range(settings.warmup):
            if cancel.is_set():
                raise Cancelled
            launch()
        self.context.synchronize()
        kernel_only = settings.timing == "kernel"
        hold = self._hold() if kernel_only else None
        # Host timing (under a profiler) takes exactly `repeats` samples, so a profiler can count the launches.
        policy = sample_policy(settings) if kernel_only else SamplePolicy(settings.repeats, settings.repeats, 1.0, 1e9)
        batch = 1
        if kernel_only and flush is None and settings.max_batch > 1:
            # A short kernel is launched several times back to back per sample (behind the blocking kernel, so
            # each waits only on the one before): the GPU's few microseconds of work between the start event and
            # the first block are then shared by the batch instead of added to each kernel.
            probe, _clock, _rejected = self._sample(launch, hold, 1, None)
            batch = max(1, min(settings.max_batch, int(BATCH_REGION_MS / max(probe, 1e-6))))
        sampler = Sampler(policy)
        self.nvml_clocks: list[float] = []  # NVML's SM clock, read while each sample's launches run (_sample)
        t0 = time.perf_counter()
        while not sampler.done(time.perf_counter() - t0):
            if cancel.is_set():
                raise Cancelled
            sampler.add(*self._sample(launch, hold, batch, flush))
        result = sampler.summary()
        kept, _dropped, rejected = sampler.split()
        if not kept:
            raise RuntimeError(f"no kernel-only sample: the blocking kernel timed out in all {rejected} samples")
        notes = []
        if rejected:
            notes.append(f"{rejected} sample(s) left out: the host took over {HOLD_TIMEOUT_NS / 1e9:g} s to queue them")
        if result["dropped_ms"]:
            notes.append(
                f"{len(result['dropped_ms'])} sample(s) left out: the SM clock had fallen over "
                f"{100 * sampler.policy.clock_drop:.0f}% below {sampler.level_mhz():.0f} MHz"
            )
        result["note"] = "; ".join(notes) or None
        result["timing"] = TIMING_KERNEL if kernel_only else TIMING_HOST_EVENTS
        result["launches_per_sample"] = batch
        result["sm_clock_nvml_mhz"] = statistics.median(self.nvml_clocks) if self.nvml_clocks else None
        result["host_ms"] = self._host_samples(launch, flush, cancel) if kernel_only else []
        probed = kernel_only and flush is None and settings.max_batch > 1
        # every launch made, for messages (not a Result field: the caller pops it)
        result["launches"] = settings.warmup + int(probed) + batch * len(sampler.samples) + len(result["host_ms"])
        return result

    def _sample(self, launch, hold, batch: int, flush) -> tuple[float, float | None, bool]:
        """One sample in ms per launch: (time, SM clock measured by the blocking kernel, whether it timed out).
        Without `hold`, events around the host's launch (host-inclusive)."""
        cuda = self.cuda
        if flush is not None:
            cuda.memset_d32_async(flush, 0, self.flush_bytes // 4)
        if self.events is None:
            raise RuntimeError("the CUDA run is closed: no events to time with")
        start, end = self.events
        if hold is not None:
            _module, func, flag, out, flag_ptr, out_ptr = hold
            flag[0] = 0
            func.prepared_call((1, 1), (1, 1, 1), flag_ptr, HOLD_MIN_NS, HOLD_TIMEOUT_NS, out_ptr)
        start.record()
        for _ in range(batch):
            launch()
        end.record()
        if hold is None:
            self._read_nvml_clock()
            end.synchronize()
            return end.time_since(start) / batch, None, False
        flag[0] = 1
        self._read_nvml_clock()  # the GPU now runs the sample's launches; the host waits for them after this
        end.synchronize()
        ns, cycles, timed_out = (int(x) for x in out)
        return end.time_since(start) / batch, (cycles / ns * 1e3 if ns > 0 else None), bool(timed_out)

    def _read_nvml_clock(self) -> None:
        """NVML's SM clock now, kept for the result's sm_clock_nvml_mhz (nothing where there is no NVML: the
        exercise child's timer has none)."""
        nvml = getattr(self, "nvml", None)
        clocks = getattr(self, "nvml_clocks", None)
        if nvml is None or clocks is None:
            return
        mhz = nvml.sm_clock_mhz()
        if mhz is not None and mhz > 0:
            clocks.append(mhz)

    def _host_samples(self, launch, flush, cancel) -> list[float]:
        """What a Python caller waits: the host's clock around launch + synchronize (never charted)."""
        samples: list[float] = []
        begin = time.perf_counter()
        for _ in range(HOST_SAMPLES):
            if cancel.is_set():
                raise Cancelled
            if samples and time.perf_counter() - begin > HOST_SAMPLES_S:  # a long kernel: one is enough
                break
            if flush is not None:
                self.cuda.memset_d32_async(flush, 0, self.flush_bytes // 4)
                self.context.synchronize()
            t = time.perf_counter()
            launch()
            self.context.synchronize()
            samples.append((time.perf_counter() - t) * 1e3)
        return samples

    def time_launches(self, launch, settings: BenchSettings, cancel) -> list[float]:
        """Kept samples of `launch` in ms (measure() without its description), for the tuner and ceilings."""
        return self.measure(launch, settings, cancel)["samples_ms"]  # its other fields are not needed here
