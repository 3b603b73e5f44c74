"""The physical bounds of a session's numbers, beyond their types (core/session/checks.py): what a GPU, a timer
and the registry can have produced. The loader (core/session/results.py) applies them to every file it reads and to
every session gemmviz writes (Session.save checks its own output with the loader), so a number the views
cannot draw (an SM id of 10^9, a sample of 1e308 ms, a trace that lasts 0 ns) is refused at the door with
its field named, never met by a chart.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from itertools import chain
from typing import TYPE_CHECKING

from gemmviz.core.session.checks import (
    MAX_ITEMS,
    MAX_TRACE_ROWS,
    _fail,
    _int,
    _int_dict,
    _list,
    _num,
    _object,
    _optional,
    _str,
)

if TYPE_CHECKING:  # numpy is imported where it is used: not on the window's first frame's path
    import numpy as np

MAX_RESULTS = 20_000  # a session the app opens, draws and tabulates within a few seconds (benchmarks/large_session.py)
MAX_SMS = 1024  # the H200 has 132; no GPU comes near a thousand
MIN_SAMPLE_MS, MAX_SAMPLE_MS = 1e-6, 8.64e7  # a sample lies within (1 ns, 1 day)
MAX_TRACE_NS = 3_600 * 10**9  # a traced kernel ends within an hour (times count from its first block's start)
MAX_BLOCKS = 2**31  # block ids of a trace, as the grid numbers them
MAX_CLOCK_MHZ = 10_000.0
TEMPERATURE_C = (-100.0, 200.0)
MAX_COUNTER = 1e18  # bytes or instructions of one kernel: an hour at 100 TB/s is 3.6e17
MAX_PERCENT = 120.0  # a percentage of peak (Nsight Compute reads a little over 100 at times)
MAX_REPEATS = MAX_ITEMS  # samples one result holds, and what --repeats allows
MAX_WARMUP = 100_000  # and what --warmup allows
MAX_GFLOPS = 1e8  # 100 PFLOP/s (the ceilings' limit)
MAX_BANDWIDTH_GBS = 1e6  # 1 PB/s
MAX_BYTES = 2**60
PRECISIONS = ("fp32", "tf32")


def sample_ms(v: object, where: str) -> float:
    """One timed sample: finite, above 1 ns and at most a day."""
    x = _num(v, where, lo=None)
    if not MIN_SAMPLE_MS < x <= MAX_SAMPLE_MS:
        raise _fail(
            where, f"{x:g} ms is not a time above 1 ns and at most a day ({MIN_SAMPLE_MS:g} .. {MAX_SAMPLE_MS:g} ms)"
        )
    return x


def samples_ms(v: object, where: str) -> list[float]:
    return [sample_ms(x, f"{where}[{i}]") for i, x in enumerate(_list(v, where))]


def clock_mhz(v: object, where: str) -> float | None:
    return _optional(_num, v, where, lo=0.0, hi=MAX_CLOCK_MHZ, above=True)


def temperature_c(v: object, where: str) -> float | None:
    return _optional(_num, v, where, lo=TEMPERATURE_C[0], hi=TEMPERATURE_C[1])


def counters(v: object, where: str) -> dict[str, float | None]:
    """Nsight Compute metric -> value (None: not measured): finite, at least 0, at most MAX_COUNTER; a
    percentage of peak at most MAX_PERCENT."""
    out = {}
    for key, x in _object(v, where).items():
        name = _str(key, f"{where} key")
        out[name] = _optional(_num, x, f"{where}.{name}", lo=0.0, hi=MAX_PERCENT if ".pct" in name else MAX_COUNTER)
    return out


def backend_entry(entry: Mapping, where: str) -> None:
    """The numbers of environment.backends.<name> (its strings and flags are checked by the loader)."""
    for key, value in entry.items():
        if value is None and key.endswith(("_mhz", "_gflops", "_c")):
            continue
        if key.endswith("_mhz"):
            _num(value, f"{where}.{key}", lo=0.0, hi=MAX_CLOCK_MHZ)
        elif key.endswith("_gflops"):
            _num(value, f"{where}.{key}", lo=0.0, hi=MAX_GFLOPS)
        elif key.endswith("_c"):
            temperature_c(value, f"{where}.{key}")
        elif key.endswith("_bytes"):
            _int(value, f"{where}.{key}", 0, MAX_BYTES)
        elif key == "sms":
            _int(value, f"{where}.{key}", 1, MAX_SMS)
        elif key in ("memory_bus_bits", "fp32_lanes_per_sm"):
            _int(value, f"{where}.{key}", 1, 65_536)


def session_sms(env: Mapping) -> int | None:
    """The SM count a session's environment names (environment.backends.cuda.sms), if any."""
    sms = env.get("backends", {}).get("cuda", {}).get("sms")
    return sms if isinstance(sms, int) and not isinstance(sms, bool) else None


# ---- block traces ------------------------------------------------------------------------------------------
def block_trace(v: object, where: str, sms: int | None) -> list[list[int]]:
    """[[block, sm, start_ns, end_ns], ...]: block ids each once and below the row count, SM ids below the
    session's SM count (MAX_SMS without one), times from 0 to at most an hour, no block ending before it
    starts, and not every block ending as it starts (a run of no time was not measured: nothing is resident). Checked with numpy where every value is a plain whole number (a million rows
    in a fraction of a second); the first bad row is then named by the row-by-row check."""
    import numpy as np

    rows = _list(v, where, MAX_TRACE_ROWS)
    if not rows:
        raise _fail(where, "empty (a traced result has one row per block; leave block_trace out instead)")
    limit = sms or MAX_SMS
    t = _as_array(rows)
    bad = 0 if t is None else _first_bad(t, limit)
    if bad is not None:
        for i in range(bad, len(rows)):
            trace_row(rows[i], f"{where}[{i}]", limit, sms is not None, len(rows))
        t = np.asarray(rows, dtype=np.int64)
    assert t is not None  # an array, or the rows were checked one by one and made into one
    seen = np.bincount(t[:, 0], minlength=len(t))
    if seen.max() > 1:
        block = int(np.flatnonzero(seen > 1)[0])
        first, second = np.flatnonzero(t[:, 0] == block)[:2]
        raise _fail(f"{where}[{int(second)}][0]", f"block {block} again (row {int(first)} has it): each block once")
    if bool((t[:, 3] == t[:, 2]).all()):
        raise _fail(where, "every block ends as it starts (0 ns each): not a measured run")
    return rows


def _as_array(rows: list) -> np.ndarray | None:
    """The rows as an n×4 int64 array when every row is a list of four plain ints; else None."""
    import numpy as np

    # Each test a loop in C (map, chain): row by row in Python they took 2 s for the traces session's results.
    if set(map(type, rows)) != {list} or set(map(len, rows)) != {4}:
        return None
    if set(map(type, chain.from_iterable(rows))) != {int}:
        return None
    try:
        return np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=4 * len(rows)).reshape(-1, 4)
    except OverflowError:
        return None


def _first_bad(t: np.ndarray, sms: int) -> int | None:
    import numpy as np

    bad = (
        (t[:, 0] < 0)
        | (t[:, 0] >= len(t))
        | (t[:, 1] < 0)
        | (t[:, 1] >= sms)
        | (t[:, 2] < 0)
        | (t[:, 3] < t[:, 2])
        | (t[:, 3] > MAX_TRACE_NS)
    )
    where = np.flatnonzero(bad)
    return int(where[0]) if where.size else None


def trace_row(row: object, where: str, sms: int = MAX_SMS, named: bool = True, blocks: int = MAX_BLOCKS) -> list[int]:
    """One row [block, sm, start_ns, end_ns], its refusal naming the number that is wrong."""
    row = _list(row, where)
    if len(row) != 4:
        raise _fail(where, f"{len(row)} numbers, not 4 (block, sm, start_ns, end_ns)")
    block, sm, start, end = (_int(x, f"{where}[{i}]") for i, x in enumerate(row))
    if block >= blocks:
        raise _fail(f"{where}[0]", f"block {block} is not below the trace's {blocks:,} blocks")
    if sm >= sms:
        whose = f"the session's {sms} SMs" if named else f"{sms} (no GPU has more SMs)"
        raise _fail(f"{where}[1]", f"SM id {sm} is not below {whose}")
    if end < start:
        raise _fail(where, f"ends ({end}) before it starts ({start})")
    if end > MAX_TRACE_NS:
        raise _fail(f"{where}[3]", f"ends at {end} ns, over an hour ({MAX_TRACE_NS} ns)")
    return [block, sm, start, end]


# ---- what the registry allows ------------------------------------------------------------------------------
def params(v: object, where: str, variant) -> dict[str, int]:
    """A variant's params: its own keys, each one of its choices."""
    out = _int_dict(v, where, variant.param_defaults, variant.name)
    for key, value in out.items():
        choices = variant.param_choices.get(key, ())
        if value not in choices:
            raise _fail(
                f"{where}.{key}", f"{value} is not one of {variant.name}'s choices ({', '.join(map(str, choices))})"
            )
    return out


@functools.cache
def _config_values(name: str) -> dict[str, frozenset[int]]:
    """Per configuration key of a variant: its default, every value its tuning space has, and its fit's."""
    from gemmviz.core.kernels.variants import VARIANTS

    v = VARIANTS[name]
    values = {key: {x} for key, x in v.config.items()}
    for config in v.tune_space() if v.tune_space else ():
        for key, x in config.items():
            values.setdefault(key, set()).add(x)
    for key, xs in v.fit_values.items():  # what the variant's per-size fit may run (smaller tiles, Stream-K)
        values.setdefault(key, set()).update(xs)
    return {key: frozenset(xs) for key, xs in values.items()}


def config(v: object, where: str, variant) -> dict[str, int]:
    """A block-tiling configuration: the variant's keys, each with its default or a value of its tuning space."""
    out = _int_dict(v, where, lo=0)
    allowed = _config_values(variant.name)
    for key, value in out.items():
        if key not in allowed:
            has = f"its keys: {', '.join(allowed)}" if allowed else "it has none"
            raise _fail(f"{where}.{key}", f"not a configuration key of {variant.name} ({has})")
        if value not in allowed[key]:
            what = "its tuning space's" if variant.tune_space else "its only"
            raise _fail(
                f"{where}.{key}", f"{value} is not one of {what} values ({', '.join(map(str, sorted(allowed[key])))})"
            )
    return out


def check_result(r, where: str) -> None:
    """What must hold between a result's fields: its variant's backend and precision, samples for an ok
    result, a valid one within its threshold with no wrong element, counts of C's elements within M×N, the first
    wrong element inside C."""
    from gemmviz.core.kernels.variants import VARIANTS

    v = VARIANTS[r.variant]
    if r.backend != v.backend:
        raise _fail(f"{where}.backend", f"{_q(r.backend)}, but {r.variant} runs on {_q(v.backend)}")
    if r.precision not in PRECISIONS:
        raise _fail(f"{where}.precision", f"{_q(r.precision)} is not one of: {', '.join(PRECISIONS)}")
    if r.precision != v.precision:
        raise _fail(f"{where}.precision", f"{_q(r.precision)}, but {r.variant} computes in {v.precision}")
    if r.status == "ok" and not r.samples_ms:
        raise _fail(f"{where}.samples_ms", "empty, but the status is ok (a measured result has at least one sample)")
    cells = r.m * r.n
    for name in ("unwritten", "wrong_elements"):
        count = getattr(r, name)
        if count is not None and count > cells:
            raise _fail(f"{where}.{name}", f"{count} is more than C's {cells:,} elements ({r.m}×{r.n})")
    if r.valid and r.rel_error is not None and r.threshold is not None and not r.rel_error <= r.threshold:
        raise _fail(  # the verifier's own rule (core/measure/verify.py): such a result failed its check
            f"{where}.rel_error",
            f"{r.rel_error:.3g} is over its threshold {r.threshold:.3g}, but the result is valid (a result that "
            "failed its check is never charted)",
        )
    if r.valid and (r.wrong_elements or r.unwritten):
        raise _fail(f"{where}.valid", "true, but elements of C are wrong or unwritten (that result failed its check)")
    if r.first_wrong is not None:
        row, col = r.first_wrong[:2]
        if row >= r.m or col >= r.n:
            raise _fail(f"{where}.first_wrong", f"element [{row}, {col}] is outside C ({r.m}×{r.n})")
    if r.error_map is not None:
        rows, cols = r.error_map["cell"]
        for i, line in enumerate(r.error_map["wrong"]):
            for j, count in enumerate(line):
                if count > rows * cols:
                    raise _fail(f"{where}.error_map.wrong[{i}][{j}]", f"{count} wrong in a cell of {rows}×{cols}")


def _q(s: str) -> str:
    return repr(s) if len(s) <= 40 else repr(s[:37] + "...")


# ---- access records (core/hardware/accesses.py) -----------------------------------------------------------------------

MAX_ACCESS_REQUESTS = 2**24  # warp requests one trace stores: the tracer's own cap
# Requests kept in detail over a whole access-record file (or one check record's trace), checked before any
# column is decompressed: 271 bytes each as arrays (68 MB) and the figures of each derived a chunk at a time,
# so a file the loader accepts stays well under 1 GB and loads in a second or two. The shipped records keep
# about 150,000; `gemmviz profile --accesses` keeps the first ones of each block within it (fit_file).
MAX_ACCESS_FILE_REQUESTS = 250_000
MAX_ACCESS_TRACES = 1_000
MAX_ACCESS_PCS = 100_000  # distinct memory instructions of one kernel
MAX_ACCESS_PACKED_CHARS = 48 * 2**20  # one packed column, base64 text
MAX_ACCESS_COUNT = 2**40  # requests, sectors, wavefronts of one block
_ACCESS_SIZES = (1, 2, 4, 8, 16)
_MAX_ADDRESS = 2**40  # bytes from a matrix's start or in the shared window (1 TB)


def access_columns(cols: Mapping[str, np.ndarray], where: str, n_slots: int, n_pcs: int) -> None:
    """The columns of one access trace: a slot among the traced blocks, a warp of a 1024-thread block, an
    instruction among the trace's, a known space, flags and size, and addresses from -1 (lane off) to 1 TB."""
    import numpy as np

    def bad(name: str, ok: np.ndarray, what: str) -> None:
        if not ok.all():
            i = int(np.argmin(ok.reshape(len(ok), -1).all(axis=1) if ok.ndim > 1 else ok))
            raise _fail(f"{where}.{name}[{i}]", what)

    bad("slot", cols["slot"] < max(n_slots, 1), f"not one of the {n_slots} traced blocks")
    bad("warp", cols["warp"] < 32, "not a warp of a block of at most 1024 threads")
    bad("pc", cols["pc"] < max(n_pcs, 1), f"not one of the {n_pcs} instructions")
    bad("space", cols["space"] <= 2, "not global (0), shared (1) or local (2)")
    bad("flags", (cols["flags"] & ~np.uint8(0x13)) == 0, "unknown flags")
    bad("size", np.isin(cols["size"], _ACCESS_SIZES), "not an access of 1, 2, 4, 8 or 16 bytes")
    bad("matrix", (cols["matrix"] >= -1) & (cols["matrix"] <= 3), "not A, B, C, other (0..3) or -1")
    bad("addr", (cols["addr"] >= -1) & (cols["addr"] < _MAX_ADDRESS), "an address outside -1 .. 1 TB")


def access_summary(v: object, where: str, keys) -> dict[str, int]:
    """Per-block totals of an access trace: every key present, whole numbers from 0 to MAX_ACCESS_COUNT."""
    obj = _object(v, where)
    return {k: _int(obj.get(k), f"{where}.{k}", hi=MAX_ACCESS_COUNT) for k in keys}
