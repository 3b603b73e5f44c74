"""What gemmviz asks Nsight Compute for and how it reads the answer: the metrics it records beside a run (name,
unit, meaning) and a parser for `ncu --csv --page raw`, its units normalised (SI prefixes, thousands separators,
the unit row under the header). Pure Python: no Qt, no GPU."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gemmviz.core.fileio import FileFormatError


@dataclass(frozen=True)
class Metric:
    name: str  # ncu's metric name, the key of a result's `counters` dict
    unit: str  # after parse_ncu_csv: "byte", "ns", "%", "count"
    meaning: str


METRICS: tuple[Metric, ...] = (
    Metric("dram__bytes_read.sum", "byte", "bytes read from DRAM (HBM)"),
    Metric("dram__bytes_write.sum", "byte", "bytes written to DRAM (HBM)"),
    Metric("lts__t_bytes.sum", "byte", "bytes through L2 (all requests that reached the L2 slices)"),
    Metric(
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "count",
        "global load requests at L1 (one per warp instruction)",
    ),
    Metric("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "count", "32-byte sectors the global loads asked L1 for"),
    Metric(
        "smsp__inst_executed_op_shared_ld.sum",
        "count",
        "shared-memory load warp instructions (a vector load counts once)",
    ),
    Metric("smsp__inst_executed_op_shared_st.sum", "count", "shared-memory store warp instructions"),
    Metric(
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "count",
        "shared load wavefronts (cycles of the shared pipe)",
    ),
    Metric("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "count", "shared store wavefronts"),
    Metric(
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "count",
        "shared load bank conflicts (extra wavefronts)",
    ),
    Metric(
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "count",
        "shared store bank conflicts (extra wavefronts)",
    ),
    Metric(
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "%",
        "achieved occupancy: resident warps / the SM's maximum",
    ),
    Metric("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "SM throughput, % of the busiest SM unit's peak"),
    Metric(
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
        "%",
        "memory throughput, % of the busiest memory unit's peak",
    ),
    Metric("launch__registers_per_thread", "count", "registers per thread"),
    Metric(
        "launch__shared_mem_per_block", "byte", "shared memory per block: static + dynamic + 1 KiB the driver reserves"
    ),
    Metric("launch__shared_mem_per_block_static", "byte", "static shared memory per block (bytes)"),
    Metric("launch__shared_mem_per_block_dynamic", "byte", "dynamic shared memory per block (bytes)"),
    Metric("gpu__time_duration.sum", "ns", "kernel duration measured by ncu (replayed, not the event-timed figure)"),
)
METRIC_NAMES: tuple[str, ...] = tuple(m.name for m in METRICS)


class NcuCsvError(FileFormatError):
    """ncu's CSV output could not be read; the message says why in one line."""


# ncu scales units with SI prefixes ("Kbyte" = 1000 bytes) unless run with --print-units base; even then it
# prints thousands separators ("8,394,496") and, in the raw page, a unit row under the header.
_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_TIME_NS = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9}
_PER_TIME_S = {k: v * 1e-9 for k, v in _TIME_NS.items()}
_BYTE = re.compile(r"([KMGT]?)(byte|B)")
_COUNT_UNITS = {"inst", "sector", "request", "warp", "cycle", "thread", "block", "register", "wavefront", "pass", "SM"}
_PREFIXED_COUNT = re.compile(r"([KMGT])(" + "|".join(sorted(_COUNT_UNITS)) + r")")
_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")
_GROUPED = re.compile(r"[-+]?\d{1,3}(,\d{3})+(\.\d*)?([eE][-+]?\d+)?")


def normalise_unit(unit: str) -> tuple[str, float]:
    """(normalised unit, factor to multiply a value by): "byte", "ns", "%", "count", or a ratio such as
    "byte/block" or "byte/second" (rates per second); an empty unit is a count."""
    unit = unit.strip()
    if unit == "%":
        return "%", 1.0
    if unit in _TIME_NS:
        return "ns", _TIME_NS[unit]
    num, _, den = unit.partition("/")
    factor = 1.0
    if m := _BYTE.fullmatch(num):
        base, factor = "byte", _PREFIX[m.group(1)]
    elif m := _PREFIXED_COUNT.fullmatch(num):
        base, factor = m.group(2), _PREFIX[m.group(1)]
    else:
        base = num
    if den in _PER_TIME_S:
        return f"{base}/second", factor / _PER_TIME_S[den]
    if den:
        return f"{base}/{den}", factor
    if base == "byte":
        return "byte", factor
    return "count", factor


def _number(text: str) -> float | None:
    """The value of one ncu field, None when it is empty or not a number."""
    s = text.strip()
    if _GROUPED.fullmatch(s):
        s = s.replace(",", "")
    return float(s) if _NUMBER.fullmatch(s) else None


def parse_ncu_csv(text: str, metrics: Sequence[str] | None = METRIC_NAMES) -> list[dict]:
    """Rows of `ncu --csv --page raw` output, one dict per profiled kernel launch.

    Each dict: id, kernel, block, grid, device, cc (as ncu printed them), `counters` {metric: float or
    None} with units normalised (see `normalise_unit`), and `units` {metric: normalised unit}.
    `metrics` picks the counters: each must hold a number (or be empty, giving None); a metric ncu did not
    print is None. metrics=None keeps every numeric metric column (the raw page also holds device
    attributes and launch settings, some of them words). Lines before the header (the program's output,
    ==PROF== and ==WARNING== lines) are skipped.
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        errors = [line for line in lines if line.startswith("==ERROR==")]
        why = errors[0] if errors else 'no header line starting with "ID"'
        raise NcuCsvError(f"not ncu --csv --page raw output: {why}")
    body = [line for line in lines[start:] if line.startswith('"')]
    table = list(csv.reader(io.StringIO("\n".join(body))))
    header = table[0]
    for needed in ("ID", "Kernel Name"):
        if needed not in header:
            raise NcuCsvError(f"ncu CSV: the header has no {needed!r} column")
    if len(table) < 2 or table[1][0] != "":
        raise NcuCsvError("ncu CSV: the units row under the header is missing (expected --page raw output)")
    if len(table[1]) != len(header):
        raise NcuCsvError(f"ncu CSV: the units row has {len(table[1])} fields, the header {len(header)}")
    col = {name: i for i, name in enumerate(header)}
    wanted = [n for n in header if "__" in n] if metrics is None else list(metrics)
    scales = {n: normalise_unit(table[1][col[n]]) for n in wanted if n in col}
    rows = []
    for line_no, values in enumerate(table[2:], start=3):
        if len(values) != len(header):
            raise NcuCsvError(f"ncu CSV: row {line_no} has {len(values)} fields, the header {len(header)}")
        counters: dict[str, float | None] = {}
        for name in wanted:
            if name not in col:
                counters[name] = None
                continue
            raw = values[col[name]]
            value = _number(raw)
            if value is None and raw.strip() not in ("", "n/a", "N/A"):
                if metrics is None:
                    continue  # a word-valued attribute ("PolicySpread", "No-CC")
                raise NcuCsvError(f"ncu CSV: metric {name!r} holds {raw!r}, not a number (row {line_no})")
            counters[name] = None if value is None else value * scales[name][1]
        rows.append(
            {
                "id": int(values[col["ID"]]),
                "kernel": values[col["Kernel Name"]],
                "block": values[col["Block Size"]] if "Block Size" in col else "",
                "grid": values[col["Grid Size"]] if "Grid Size" in col else "",
                "device": values[col["Device"]] if "Device" in col else "",
                "cc": values[col["CC"]] if "CC" in col else "",
                "counters": counters,
                "units": {n: scales[n][0] for n in counters if n in scales},
            }
        )
    return rows
