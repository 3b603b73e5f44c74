"""The recorded gap metrics (`gemmviz-gap-metrics`, assets/sessions/*-gap.json): the Nsight Compute metrics
`gemmviz profile --gap` asks for, one kernel's recorded figures, and the file's reader and writer. `load_gap_file`
checks every field (RecordError: one line, the file and the field); `gap_document` writes only what it reads.
core/hardware/gap_parts.py decomposes the time between two of its kernels. No Qt."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gemmviz.core.messages import define, render
from gemmviz.core.session import recorded
from gemmviz.core.session.recorded import RecordError, fail

SCHEMA = "gemmviz-gap-metrics"
MAX_BYTES = 2 << 20
MAX_KERNELS = 512  # a file of several sizes: every kernel at each (7 kernels at 10 sizes are 70)
MAX_METRICS = 256
MAX_N = 65536
METRIC_NAME = re.compile(r"[a-z0-9]+__[a-z0-9_]+(\.[a-z0-9_]+)*")

STALL_REASONS = (
    "long_scoreboard", "short_scoreboard", "mio_throttle", "math_pipe_throttle", "barrier", "wait",
    "not_selected", "selected", "dispatch_stall", "lg_throttle", "no_instruction", "membar", "sleeping",
    "branch_resolving", "drain", "misc", "tex_throttle", "imc_miss",
)  # fmt: skip


def stall_metric(reason: str) -> str:
    return f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"


CYCLES = "sm__cycles_elapsed.avg"
DURATION = "gpu__time_duration.sum"
ISSUE = "smsp__issue_active.avg.pct_of_peak_sustained_active"
IPC = "sm__inst_executed.avg.per_cycle_active"
FMA_PIPE = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"
TENSOR_PIPE = "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"
INSTRUCTIONS = "smsp__inst_executed.sum"
FFMA = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"
L2_HIT = "lts__t_sector_hit_rate.pct"
DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
L2 = "lts__throughput.avg.pct_of_peak_sustained_elapsed"
GRID = "launch__grid_size"
BLOCK = "launch__block_size"
WAVES = "launch__waves_per_multiprocessor"
LIMIT_REGISTERS = "launch__occupancy_limit_registers"
LIMIT_SHARED = "launch__occupancy_limit_shared_mem"
WARPS = "sm__warps_active.avg.pct_of_peak_sustained_active"

# what `gemmviz profile --gap` asks ncu for (backends/profile.py adds them to the counters)
GAP_METRICS: tuple[str, ...] = (
    CYCLES, DURATION, ISSUE, IPC, FMA_PIPE, TENSOR_PIPE, INSTRUCTIONS, FFMA, L2_HIT, DRAM, L2, GRID, BLOCK, WAVES,
    LIMIT_REGISTERS, LIMIT_SHARED, WARPS, *(stall_metric(r) for r in STALL_REASONS),
)  # fmt: skip

# (lowest, highest) a metric may read; a name not listed takes its suffix's range
_RANGES = {
    DURATION: (1.0, 3.6e12),  # ns: up to an hour
    CYCLES: (1.0, 1e13),
    IPC: (0.0, 8.0),  # Hopper issues at most 4 warp instructions per SM per cycle
    BLOCK: (1, 1024),
    GRID: (1, 1e12),
    WAVES: (0.0, 1e7),
    LIMIT_REGISTERS: (0, 1024),
    LIMIT_SHARED: (0, 1024),
}
_PCT = (0.0, 105.0)  # a percentage, with room for ncu's rounding and sampling above 100
_RATIO = (0.0, 1e4)
_COUNT = (0.0, 1e18)


@dataclass(frozen=True)
class Kernel:
    variant: str
    params: dict[str, int | str]
    m: int
    n: int
    k: int
    median_ms: float | None
    metrics: dict[str, float]

    @property
    def label(self) -> str:
        return recorded.label(self.variant, self.params)

    @property
    def size(self) -> tuple[int, int, int]:
        return self.m, self.n, self.k

    def get(self, name: str) -> float | None:
        return self.metrics.get(name)


def size_text(size: Sequence[int]) -> str:
    """4096³ for a cube, 2048×3072×4096 otherwise: how a kernel's size follows its label."""
    m, n, k = size
    return f"{m}³" if m == n == k else f"{m}×{n}×{k}"


_SIZED = re.compile(r"^(?P<label>.+?)\s*@\s*(?P<m>\d+)(?:[x×](?P<n>\d+)[x×](?P<k>\d+)|³)?$")


@dataclass(frozen=True)
class GapFile:
    header: recorded.Header
    kernels: tuple[Kernel, ...]

    def sizes(self) -> list[tuple[int, int, int]]:
        """The sizes recorded, smallest first (by m·n·k)."""
        return sorted({k.size for k in self.kernels}, key=lambda s: (s[0] * s[1] * s[2], s))

    def name_of(self, k: Kernel) -> str:
        """How the views and `--pair` name a kernel: its label, with "@size" where the file holds several sizes
        (gpu-cpasync-any@2048³; the CLI also takes @2048x2048x2048)."""
        return k.label if len(self.sizes()) < 2 else f"{k.label}@{size_text(k.size)}"

    def names(self) -> list[str]:
        return [self.name_of(k) for k in self.kernels]

    def kernel(self, name: str) -> Kernel:
        """The kernel `name` names: a label with "@size", or a bare label (at the largest size it is recorded at).
        KeyError where there is none."""
        for k in self.kernels:
            if self.name_of(k) == name:
                return k
        found = _SIZED.match(name.strip())
        if found:
            m = int(found["m"])
            size = (m, int(found["n"] or m), int(found["k"] or m))
            for k in self.kernels:
                if k.label == found["label"].strip() and k.size == size:
                    return k
            raise KeyError(name)
        same = [k for k in self.kernels if k.label == name.strip()]
        if not same:
            raise KeyError(name)
        return max(same, key=lambda k: k.m * k.n * k.k)


def _metric_range(name: str) -> tuple[float, float]:
    if name in _RANGES:
        return _RANGES[name]
    if name.endswith(".pct") or ".pct_of_peak" in name:
        return _PCT
    if name.endswith(".ratio"):
        return _RATIO
    return _COUNT


def _kernel(d: object, file: str, i: int) -> Kernel:
    where = f"kernels[{i}]."
    if not isinstance(d, dict):
        raise fail(file, f"kernels[{i}]", "must be an object")
    variant = recorded.variant_name(d, file, where)
    p = recorded.params(d, file, where)
    m, n, k = (recorded.whole(d, x, file, 1, MAX_N, where) for x in "mnk")
    median = d.get("median_ms")
    median_ms = None if median is None else recorded.number(median, file, where + "median_ms", 1e-6, 3.6e6)
    if median_ms == 0:
        raise fail(file, where + "median_ms", "must be above 0")
    raw = d.get("metrics")
    if not isinstance(raw, dict) or len(raw) > MAX_METRICS:
        raise fail(file, where + "metrics", f"must be an object of at most {MAX_METRICS} ncu metrics")
    metrics = {}
    for name, value in raw.items():
        if not METRIC_NAME.fullmatch(name) or len(name) > 120:
            raise fail(file, where + "metrics", f"{name[:60]!r} is not an ncu metric name")
        lo, hi = _metric_range(name)
        metrics[name] = recorded.number(value, file, f"{where}metrics.{name}", lo, hi)
    return Kernel(variant, p, m, n, k, median_ms, metrics)


def read_gap(doc: object, file: str = "gap file") -> GapFile:
    """A parsed gap file, checked (RecordError: one line, the file and the field)."""
    head = recorded.header(doc, file, SCHEMA)
    kernels = doc.get("kernels") if isinstance(doc, dict) else None  # header() refused anything but an object
    if not isinstance(kernels, list) or not 1 <= len(kernels) <= MAX_KERNELS:
        raise fail(file, "kernels", f"must be a list of 1 to {MAX_KERNELS} kernels")
    out = tuple(_kernel(d, file, i) for i, d in enumerate(kernels))
    keys = [(k.label, k.size) for k in out]  # a kernel once per size (a file of several sizes lists it at each)
    twice = next((x for x in keys if keys.count(x) > 1), None)
    if twice is not None:
        raise fail(file, "kernels", f"{twice[0]} is listed twice at {size_text(twice[1])}")
    return GapFile(head, out)


def load_gap_file(path: str | os.PathLike) -> GapFile:
    name, doc = recorded.read_json(path, MAX_BYTES)
    return read_gap(doc, name)


def shipped_gap_files() -> list:
    """The gap files the package ships (assets/sessions/*-gap.json), newest name last."""
    from gemmviz.core.paths import asset_files

    suffix = recorded.RECORD_SUFFIXES[0]
    return sorted((f for f in asset_files("sessions", ".json") if f.name.endswith(suffix)), key=lambda f: f.name)


def load_shipped_gap(lang: str = "en") -> tuple[GapFile | None, str]:
    """(the newest shipped gap file, "") or (None, why there is none, in `lang`)."""
    files = shipped_gap_files()
    if not files:
        return None, render("gap.none_shipped", lang)
    from gemmviz.core.paths import asset_path

    try:
        return load_gap_file(asset_path("sessions", files[-1].name)), ""
    except RecordError as exc:
        return None, str(exc)


define(
    "gap.none_shipped",
    en="no recorded gap metrics are shipped: run `gemmviz profile --gap` on a GPU",
    zh="没有随附录制的差距指标：在 GPU 上运行 `gemmviz profile --gap`",
)


def gap_document(results: Sequence, gpu: str, created: str, command: str) -> dict:
    """A gemmviz-gap-metrics file of the profiled `results` (core.session.results.Result with counters): each kernel's
    median and the gap metrics ncu gave it (a metric it lacks is left out, and the view says so). Checked by
    the loader before it is returned, so a file gemmviz writes is one it reads."""
    kernels = []
    for r in results:
        if not r.counters:
            continue
        metrics = {name: r.counters[name] for name in GAP_METRICS if r.counters.get(name) is not None}
        kernels.append(
            {
                "variant": r.variant,
                "params": dict(r.params),
                "m": r.m,
                "n": r.n,
                "k": r.k,
                "median_ms": r.median_ms if r.valid and r.median_ms else None,
                "metrics": metrics,
            }
        )
    doc = {"schema": SCHEMA, "schema_version": 1, "gpu": gpu, "created": created, "command": command}
    doc["kernels"] = kernels
    read_gap(doc, "the gap metrics")
    return doc


def gap_path(session_path: str | os.PathLike) -> str:
    """Where `gemmviz profile --gap` writes the gap file: beside the session, h200-DATE.json -> h200-DATE-gap.json."""
    text = os.fspath(session_path)
    return (text[: -len(".json")] if text.endswith(".json") else text) + "-gap.json"
