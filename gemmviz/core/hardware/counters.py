"""Hardware counters beside the model: the names the backends, the CLI, the views and the lessons use, one
import away. Each idea is a module of its own:

- core/hardware/ncu_csv.py: the Nsight Compute metrics gemmviz records and the parser of `ncu --csv --page raw`;
- core/hardware/comparison.py: the model's counts beside the counters, level by level, one sentence per
  difference, and the intensity at each level of the memory hierarchy;
- core/hardware/block_trace.py: the block trace (kernels/trace.cuh) decoded, its residency, waves and tail.
No Qt, no GPU: a recorded session's counters and traces are read without one.
"""

from __future__ import annotations

from gemmviz.core.hardware.block_trace import (
    TRACE_FIELDS,
    TraceError,
    TraceSummary,
    decode_trace,
    resident_timeline,
    trace_summary,
    trace_summary_steps,
)
from gemmviz.core.hardware.comparison import (
    SECTOR_BYTES,
    WARP,
    WAVEFRONT_BYTES,
    Comparison,
    LevelRow,
    TrafficLike,
    level_bytes,
    level_intensities,
)
from gemmviz.core.hardware.ncu_csv import (
    METRIC_NAMES,
    METRICS,
    Metric,
    NcuCsvError,
    normalise_unit,
    parse_ncu_csv,
)

__all__ = [
    "Metric",
    "METRICS",
    "METRIC_NAMES",
    "NcuCsvError",
    "normalise_unit",
    "parse_ncu_csv",
    "SECTOR_BYTES",
    "WAVEFRONT_BYTES",
    "WARP",
    "TrafficLike",
    "level_bytes",
    "level_intensities",
    "LevelRow",
    "Comparison",
    "TRACE_FIELDS",
    "TraceError",
    "decode_trace",
    "resident_timeline",
    "TraceSummary",
    "trace_summary",
    "trace_summary_steps",
]
