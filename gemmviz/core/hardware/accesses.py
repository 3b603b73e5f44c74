"""What the kernel really touched, from the access tracer's records: the names the backends, the CLI, the views,
the exercise checks and the lessons use, one import away. Each idea is a module of its own:

- core/hardware/access_trace.py: one launch's recorded warp requests (AccessTrace) and what the tracer sees;
- core/hardware/access_figures.py: what follows from the addresses: sectors and lines, wavefronts and bank
  conflicts, per-block totals beside the model's and Nsight Compute's, the requests the views draw;
- core/hardware/access_decode.py: the tracer's raw output (backends/accesses.py) made an AccessTrace;
- core/hardware/access_json.py: a trace as JSON and back, every field checked;
- core/hardware/access_file.py: the access-record file (`NAME.accesses.json.gz` beside a session, or the shipped
  one), read with the bounds of core/session/bounds.py, written through the one writer.
Pure Python + numpy: no Qt, no GPU.
"""

from __future__ import annotations

from gemmviz.core.hardware.access_decode import (
    from_raw,
)
from gemmviz.core.hardware.access_figures import (
    SUMMARY_CHUNK,
    NcuRow,
    beside_ncu,
    element_counts,
    lanes_of,
    lanes_per_group,
    request_banks,
    request_lines,
    requests_in_order,
    sectors_and_lines,
    summarise,
    wavefronts,
    worst_global_request,
    worst_shared_request,
)
from gemmviz.core.hardware.access_file import (
    FORMAT,
    SHIPPED_SUFFIX,
    VERSION,
    AccessFile,
    companion_path,
    file_json,
    fit_file,
    keep_first,
    load_file,
    parse_file,
    save_file,
    shipped_file,
    shipped_path,
)
from gemmviz.core.hardware.access_json import (
    from_json,
    to_json,
)
from gemmviz.core.hardware.access_trace import (
    ASYNC,
    BANK_BYTES,
    BANKS,
    GLOBAL,
    LINE_BYTES,
    LOCAL,
    MATRICES,
    NCU_ACCESS_METRICS,
    NCU_OF,
    READ,
    RECORD_DTYPE,
    SECTOR_BYTES,
    SHARED,
    SPACES,
    SUMMARY_KEYS,
    WARP,
    WRITE,
    AccessError,
    AccessTrace,
    Pc,
    sees_messages,
    what_it_sees,
)

__all__ = [
    "SECTOR_BYTES",
    "LINE_BYTES",
    "BANKS",
    "BANK_BYTES",
    "WARP",
    "SPACES",
    "GLOBAL",
    "SHARED",
    "LOCAL",
    "READ",
    "WRITE",
    "ASYNC",
    "MATRICES",
    "RECORD_DTYPE",
    "NCU_ACCESS_METRICS",
    "NCU_OF",
    "SUMMARY_KEYS",
    "AccessError",
    "Pc",
    "AccessTrace",
    "sees_messages",
    "what_it_sees",
    "lanes_of",
    "sectors_and_lines",
    "lanes_per_group",
    "wavefronts",
    "summarise",
    "SUMMARY_CHUNK",
    "element_counts",
    "NcuRow",
    "beside_ncu",
    "request_lines",
    "request_banks",
    "worst_global_request",
    "worst_shared_request",
    "requests_in_order",
    "from_raw",
    "to_json",
    "from_json",
    "FORMAT",
    "SHIPPED_SUFFIX",
    "VERSION",
    "keep_first",
    "AccessFile",
    "fit_file",
    "file_json",
    "parse_file",
    "load_file",
    "shipped_path",
    "shipped_file",
    "save_file",
    "companion_path",
]
