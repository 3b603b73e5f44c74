"""Benchmark results and the versioned session file (JSON) the app opens; CSV export.

Session files are checked on load by the code below, not by pydantic or jsonschema: the CLI on the GPU machine
and the Qt-free core run with numpy only, and core stays dependency-light. Older versions are migrated first.
"""

from __future__ import annotations

import csv
import io
import json
import os
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from itertools import chain
from typing import Any

from gemmviz.core.fileio import bulk_objects, write_atomic
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.problem import Problem
from gemmviz.core.session import bounds
from gemmviz.core.session.checks import (  # noqa: F401  (re-exported: the loader's limits and errors)
    CONTROL_IN_NAMES,
    KINDS,
    MAX_DEPTH,
    MAX_DIM,
    MAX_ITEMS,
    MAX_NAME_CHARS,
    MAX_SESSION_BYTES,
    MAX_TEXT_CHARS,
    MAX_TRACE_ROWS,
    STATUSES,
    SessionError,
    _bool,
    _fail,
    _int,
    _int_dict,
    _list,
    _NonFinite,
    _num,
    _object,
    _optional,
    _read_json,
    _shown,
    _str,
    _tree,
)
from gemmviz.core.settings import SIZE_PRESETS

SCHEMA = "gemmviz.session"
SCHEMA_VERSION = 3  # 2: results lost "source" and gained the optional counters and block_trace; 3: "timing" (how
# the samples were taken), noise, dropped samples, the launch-inclusive time and element-wise verification

# How a result's samples were taken (Result.timing). Files before version 3 load as host-inclusive.
TIMING_KERNEL = "kernel"  # CUDA events queued behind a blocking kernel: the GPU's time, no host launch path
TIMING_HOST_EVENTS = "host-events"  # CUDA events recorded around the host's launch: includes its launch path
TIMING_HOST_CLOCK = "host-clock"  # the host's wall clock around a synchronous call (the CPU kernels)
TIMING_LABELS = {
    TIMING_KERNEL: "kernel-only (events behind a blocking kernel)",
    TIMING_HOST_EVENTS: "host-inclusive events (older method: includes the host's launch path)",
    TIMING_HOST_CLOCK: "host wall clock",
}


@dataclass
class Result:
    variant: str
    params: dict[str, int]
    m: int
    n: int
    k: int
    backend: str
    precision: str
    valid: bool
    # "ok"; "invalid" (ran, failed verification); "failed" (error while running); "refused"
    # (not run: constraints, memory, time limit); "unavailable" (no backend); "cancelled".
    status: str = "ok"
    error: str | None = None  # why the result is not "ok"
    rel_error: float | None = None
    threshold: float | None = None
    unwritten: int | None = None  # elements of C still holding the NaN poison
    samples_ms: list[float] = field(default_factory=list)
    warmup: int = 0
    repeats: int = 0
    cold_l2: bool = False
    compile_cached: bool | None = None
    sm_clock_mhz_before: float | None = None
    sm_clock_mhz_after: float | None = None
    temperature_c_before: float | None = None
    temperature_c_after: float | None = None
    note: str | None = None
    config: dict[str, int] = field(default_factory=dict)  # block-tiling configuration the kernel ran with
    # Nsight Compute metric name -> value, units normalised by gemmviz.core.hardware.counters; None: not profiled.
    counters: dict[str, float | None] | None = None
    # [[block, sm, start_ns, end_ns], ...] from an instrumented run; None: not traced. Neither is in the CSV.
    block_trace: list[list[int]] | None = None
    timing: str = TIMING_HOST_CLOCK  # how samples_ms were taken (TIMING_LABELS)
    noise: float | None = None  # relative standard deviation of samples_ms
    clock_mhz: float | None = None  # the SM clock the kept samples ran at (measured around each sample)
    dropped_ms: list[float] = field(default_factory=list)  # samples left out: the SM clock had fallen (throttled)
    host_ms: list[float] = field(default_factory=list)  # launch + wait as a Python caller sees it (not charted)
    launches_per_sample: int = 1  # a short kernel's sample is a batch of back-to-back launches, divided by this
    wrong_elements: int | None = None  # elements of C outside the error bound (core/measure/verify.py)
    first_wrong: list | None = None  # [row, column, got (None: NaN or inf), expected]
    error_margin: float | None = None  # largest |error| / bound over C: under 1 passes
    error_map: dict | None = None  # {"cell": [rows, cols], "wrong": [[count, ...], ...]}: where C is wrong
    # Provenance, None where not recorded (results before it, CPU results, no NVML, no ncu):
    cublas_version: str | None = None  # the libcublas the GPU run loaded, "13.1.0" (cublasGetProperty)
    # NVML's SM clock read while each sample's launches ran on the GPU (the host's read between releasing the
    # blocking kernel and waiting for the end event), the median over the samples
    sm_clock_nvml_mhz: float | None = None
    cublas_kernels: list[str] | None = None  # the kernels one cuBLAS call launched, as ncu named them (profile)

    @property
    def timing_label(self) -> str:
        return TIMING_LABELS.get(self.timing, self.timing)

    @property
    def problem(self) -> Problem:
        return Problem(self.m, self.n, self.k)

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.samples_ms) if self.samples_ms else None

    @property
    def min_ms(self) -> float | None:
        return min(self.samples_ms) if self.samples_ms else None

    @property
    def max_ms(self) -> float | None:
        return max(self.samples_ms) if self.samples_ms else None

    @property
    def gflops(self) -> float | None:
        """2MNK over the median time. None for invalid results: they are never charted."""
        t = self.median_ms
        if not self.valid or not t:
            return None
        return self.problem.flops / (t * 1e-3) / 1e9

    @property
    def effective_gbs(self) -> float | None:
        """Compulsory bytes (A and B read once, C written once) over the median time."""
        t = self.median_ms
        if not self.valid or not t:
            return None
        return self.problem.matrix_bytes / (t * 1e-3) / 1e9

    @property
    def series(self) -> str:
        """The label of this result's line on a chart: variant and its params."""
        if not self.params:
            return self.variant
        return f"{self.variant} ({', '.join(f'{k} {v}' for k, v in self.params.items())})"

    def to_dict(self) -> dict:
        """Its JSON object, a copy sharing nothing with the result: what dataclasses.asdict gives, made without
        its deep copy of every value, which took seconds for one result with a 4096³ block trace (a million
        rows; saving the traces session took minutes)."""
        with bulk_objects():
            return {f.name: _json_copy(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: object, where: str = "result") -> Result:
        """A result from its JSON object, checked field by field (SessionError naming the field)."""
        return _result(d, where)


def _json_copy(value):
    """A copy of a JSON value (dicts, lists, scalars). The types in a list are collected by map (a loop in C),
    so a block trace of a million flat rows is copied row by row in C too: its rows were looked at one by one
    in Python, 8 s for the traces session's results."""
    if isinstance(value, dict):
        return {k: _json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        kinds = set(map(type, value))
        if not any(issubclass(k, (list, dict)) for k in kinds):
            return list(value)
        if kinds == {list} and not any(issubclass(k, (list, dict)) for k in set(map(type, chain(*value)))):
            return list(map(list, value))  # rows of scalars (a block trace)
        return [_json_copy(v) for v in value]
    return value


@dataclass
class Session:
    results: list[Result] = field(default_factory=list)
    environment: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    created: str = ""
    kind: str = "measured"  # "measured" or "published"
    label: str = ""

    def to_dict(self) -> dict:
        with bulk_objects():
            return self._to_dict()

    def _to_dict(self) -> dict:
        return {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "created": self.created,
            "kind": self.kind,
            "label": self.label,
            "environment": self.environment,
            "settings": self.settings,
            "results": [r.to_dict() for r in self.results],
        }

    @classmethod
    def from_dict(cls, d: object) -> Session:
        """A session from parsed JSON: migrated to this version, then checked field by field."""
        with bulk_objects():
            return _session(d)

    def save(self, path: str | os.PathLike) -> None:
        """Write atomically: a failed write leaves any earlier file untouched. What is written is first read back
        by the loader, so gemmviz never writes a session it would refuse (SessionError naming the field)."""
        with bulk_objects():
            d = self.to_dict()
            _session(json.loads(json.dumps(d)))  # the loader's own view: JSON types, not the dataclasses'
            text = json.dumps(d, indent=1, allow_nan=False)
        write_atomic(path, text)

    @classmethod
    def load(cls, path: str | os.PathLike) -> Session:
        """Read and check a session file; SessionError says which file and which field is wrong, in one line."""
        try:
            with bulk_objects():
                return cls.from_dict(_read_json(path))
        except SessionError as exc:
            raise SessionError(f"{path}: {exc}", exc.field) from None


def _environment(v: object) -> dict:
    """The fields the app reads are typed; the rest is free-form."""
    env = _tree(_object(v, "environment"), "environment")
    for key in ("cpu", "gpu", "gemmviz", "os", "python", "numpy", "cuda", "source", "caveats"):
        if key in env:
            env[key] = _str(env[key], f"environment.{key}", MAX_TEXT_CHARS if key == "caveats" else MAX_NAME_CHARS)
    for key, hi in (("bandwidth_gbs", bounds.MAX_BANDWIDTH_GBS), ("fp32_peak_gflops", bounds.MAX_GFLOPS)):
        if key in env:
            _num(env[key], f"environment.{key}", hi=hi)
    for name, entry in _object(env.get("backends", {}), "environment.backends").items():
        where = f"environment.backends.{name}"
        _object(entry, where)
        if "available" in entry:
            _bool(entry["available"], f"{where}.available")
        for key in ("name", "reason", "compute_capability"):
            if key in entry:
                _str(entry[key], f"{where}.{key}", MAX_NAME_CHARS if key != "reason" else MAX_TEXT_CHARS)
        bounds.backend_entry(entry, where)
    for name, entry in _object(env.get("variants", {}), "environment.variants").items():
        where = f"environment.variants.{name}"
        pair = _list(entry, where)
        if len(pair) != 2:
            raise _fail(where, "not a pair [available, reason]")
        _bool(pair[0], f"{where}[0]")
        _str(pair[1], f"{where}[1]", MAX_TEXT_CHARS)
    return env


def _result(d: object, where: str, sms: int | None = None) -> Result:
    """One result, checked field by field; `sms` is the session's SM count (environment.backends.cuda.sms)."""
    d = _object(d, where)
    missing = [name for name in REQUIRED if name not in d]
    if missing:
        raise _fail(where, f"lacks {', '.join(missing)}")
    variant = _str(d["variant"], f"{where}.variant")
    if variant not in VARIANTS:
        raise _fail(f"{where}.variant", f"unknown kernel variant {_shown(variant)} (known: {', '.join(VARIANTS)})")
    v = VARIANTS[variant]
    backend = _str(d["backend"], f"{where}.backend")
    backends = sorted({x.backend for x in VARIANTS.values()})
    if backend not in backends:
        raise _fail(f"{where}.backend", f"unknown backend {_shown(backend)} (one of: {', '.join(backends)})")
    status = _str(d.get("status", "ok"), f"{where}.status")
    if status not in STATUSES:
        raise _fail(f"{where}.status", f"unknown status {_shown(status)} (one of: {', '.join(STATUSES)})")
    valid = _bool(d["valid"], f"{where}.valid")
    if valid != (status == "ok"):
        raise _fail(f"{where}.valid", f"{str(valid).lower()} does not match status {status!r}")
    trace = _optional(bounds.block_trace, d.get("block_trace"), f"{where}.block_trace", sms)
    m, n = _int(d["m"], f"{where}.m", 1, MAX_DIM), _int(d["n"], f"{where}.n", 1, MAX_DIM)
    r = Result(
        variant=variant,
        params=bounds.params(d["params"], f"{where}.params", v),
        m=m,
        n=n,
        k=_int(d["k"], f"{where}.k", 1, MAX_DIM),
        backend=backend,
        precision=_str(d["precision"], f"{where}.precision"),
        valid=valid,
        status=status,
        error=_optional(_str, d.get("error"), f"{where}.error", MAX_TEXT_CHARS),
        rel_error=_optional(_num, d.get("rel_error"), f"{where}.rel_error"),
        threshold=_optional(_num, d.get("threshold"), f"{where}.threshold"),
        unwritten=_optional(_int, d.get("unwritten"), f"{where}.unwritten"),
        samples_ms=bounds.samples_ms(d.get("samples_ms", []), f"{where}.samples_ms"),
        warmup=_int(d.get("warmup", 0), f"{where}.warmup", 0, bounds.MAX_WARMUP),
        repeats=_int(d.get("repeats", 0), f"{where}.repeats", 0, bounds.MAX_REPEATS),
        cold_l2=_bool(d.get("cold_l2", False), f"{where}.cold_l2"),
        compile_cached=_optional(_bool, d.get("compile_cached"), f"{where}.compile_cached"),
        sm_clock_mhz_before=bounds.clock_mhz(d.get("sm_clock_mhz_before"), f"{where}.sm_clock_mhz_before"),
        sm_clock_mhz_after=bounds.clock_mhz(d.get("sm_clock_mhz_after"), f"{where}.sm_clock_mhz_after"),
        temperature_c_before=bounds.temperature_c(d.get("temperature_c_before"), f"{where}.temperature_c_before"),
        temperature_c_after=bounds.temperature_c(d.get("temperature_c_after"), f"{where}.temperature_c_after"),
        note=_optional(_str, d.get("note"), f"{where}.note", MAX_TEXT_CHARS),
        config=bounds.config(d.get("config", {}), f"{where}.config", v),
        counters=_optional(bounds.counters, d.get("counters"), f"{where}.counters"),
        block_trace=trace,
        timing=_choice(d.get("timing", TIMING_HOST_CLOCK), f"{where}.timing", tuple(TIMING_LABELS)),
        noise=_optional(_num, d.get("noise"), f"{where}.noise", hi=1e3),
        clock_mhz=bounds.clock_mhz(d.get("clock_mhz"), f"{where}.clock_mhz"),
        dropped_ms=bounds.samples_ms(d.get("dropped_ms", []), f"{where}.dropped_ms"),
        host_ms=bounds.samples_ms(d.get("host_ms", []), f"{where}.host_ms"),
        launches_per_sample=_int(d.get("launches_per_sample", 1), f"{where}.launches_per_sample", 1, 1000),
        wrong_elements=_optional(_int, d.get("wrong_elements"), f"{where}.wrong_elements"),
        first_wrong=_optional(_first_wrong, d.get("first_wrong"), f"{where}.first_wrong"),
        error_margin=_optional(_num, d.get("error_margin"), f"{where}.error_margin"),
        error_map=_optional(_error_map, d.get("error_map"), f"{where}.error_map"),
        cublas_version=_optional(_cublas_version, d.get("cublas_version"), f"{where}.cublas_version"),
        sm_clock_nvml_mhz=bounds.clock_mhz(d.get("sm_clock_nvml_mhz"), f"{where}.sm_clock_nvml_mhz"),
        cublas_kernels=_optional(_kernel_names, d.get("cublas_kernels"), f"{where}.cublas_kernels"),
    )
    bounds.check_result(r, where)
    return r


def _choice(v: object, where: str, choices: tuple[str, ...]) -> str:
    v = _str(v, where)
    if v not in choices:
        raise _fail(where, f"{_shown(v)} is not one of: {', '.join(choices)}")
    return v


def _cublas_version(v: object, where: str) -> str:
    """A library version as cuBLAS reports it: numbers joined by dots ("13.1.0")."""
    v = _str(v, where, MAX_NAME_CHARS)
    if not all(part.isdigit() and len(part) <= 6 for part in v.split(".")) or v.count(".") > 3:
        raise _fail(where, f"{_shown(v)} is not a version such as 13.1.0")
    return v


MAX_LIBRARY_KERNELS = 64  # kernels of one library call that `gemmviz profile` names at most


def _kernel_names(v: object, where: str) -> list[str]:
    names = _list(v, where, MAX_LIBRARY_KERNELS)
    return [_str(x, f"{where}[{i}]", MAX_TEXT_CHARS) for i, x in enumerate(names)]


def _first_wrong(v: object, where: str) -> list:
    v = _list(v, where)
    if len(v) != 4:
        raise _fail(where, f"{len(v)} entries, not 4 (row, column, got, expected)")
    return [
        _int(v[0], f"{where}[0]", 0, MAX_DIM),
        _int(v[1], f"{where}[1]", 0, MAX_DIM),
        _optional(_num, v[2], f"{where}[2]", lo=None),
        _num(v[3], f"{where}[3]", lo=None),
    ]


MAX_MAP_CELLS = 64  # along each side of an error map


def _error_map(v: object, where: str) -> dict:
    v = _object(v, where)
    cell = _list(v.get("cell"), f"{where}.cell")
    if len(cell) != 2:
        raise _fail(f"{where}.cell", "not a pair [rows, columns]")
    rows = _list(v.get("wrong"), f"{where}.wrong", MAX_MAP_CELLS)
    if not rows:
        raise _fail(f"{where}.wrong", "empty")
    grid = [
        [_int(x, f"{where}.wrong[{i}][{j}]") for j, x in enumerate(_list(row, f"{where}.wrong[{i}]", MAX_MAP_CELLS))]
        for i, row in enumerate(rows)
    ]
    if len({len(row) for row in grid}) != 1 or not grid[0]:
        raise _fail(f"{where}.wrong", "rows of different lengths")
    return {
        "cell": [_int(cell[0], f"{where}.cell[0]", 1, MAX_DIM), _int(cell[1], f"{where}.cell[1]", 1, MAX_DIM)],
        "wrong": grid,
    }


REQUIRED = ("variant", "params", "m", "n", "k", "backend", "precision", "valid")


def _migrate_1(d: dict) -> dict:
    """Version 1 stored where each result was shown from ("source"); that is the workspace's business now."""
    results = d.get("results")
    if isinstance(results, list):
        d["results"] = [{k: v for k, v in r.items() if k != "source"} if isinstance(r, dict) else r for r in results]
    return d


def _migrate_2(d: dict) -> dict:
    """Version 2 timed GPU kernels with events recorded around the host's launch: label them so."""
    results = d.get("results")
    if isinstance(results, list):
        d["results"] = [
            {**r, "timing": TIMING_HOST_EVENTS if r.get("backend") == "cuda" else TIMING_HOST_CLOCK}
            if isinstance(r, dict) and "timing" not in r
            else r
            for r in results
        ]
    return d


# version -> the function that lifts a file of that version to the next one
MIGRATIONS: dict[int, Callable[[dict], dict]] = {1: _migrate_1, 2: _migrate_2}


# gemmviz's other JSON files, and where each is read (a session's reader said only "not a gemmviz session")
OTHER_FILES = {
    "gemmviz-gap-metrics": "gap metrics: the Hardware tab's gap view, or gemmviz export SESSION --chart gap --gap FILE",
    "gemmviz-pipeline-trace": "a Hopper pipeline trace: gemmviz export SESSION --chart trace --pipeline FILE",
}


def _session(d: object) -> Session:
    if isinstance(d, dict) and isinstance(d.get("schema"), str) and d["schema"] in OTHER_FILES:
        raise SessionError(f"not a session but {OTHER_FILES[d['schema']]}", "schema")
    if isinstance(d, dict) and d.get("format") == "gemmviz-accesses":
        raise SessionError("not a session but an access recording: the Accesses tab reads it", "schema")
    if isinstance(d, dict) and d.get("format") == "gemmviz-exercise-check":
        raise SessionError(
            "not a session but an exercise check record: the Exercise tab opens it, or gemmviz exercise show", "schema"
        )
    if not isinstance(d, dict) or d.get("schema") != SCHEMA:
        raise SessionError(f'not a gemmviz session (no "schema": "{SCHEMA}")', "schema")
    version = d.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= SCHEMA_VERSION:
        raise SessionError(
            f"schema_version: version {_shown(version)} is not supported (this gemmviz reads versions 1..{SCHEMA_VERSION}"
            f"{'; a newer gemmviz wrote it: update gemmviz' if isinstance(version, int) and version > SCHEMA_VERSION else ''})",
            "schema_version",
        )
    d = dict(d)
    while version < SCHEMA_VERSION:
        d = MIGRATIONS[version](d)
        version += 1
    if "results" not in d:
        raise _fail("results", "missing (a session has a list of results)")
    raw = _list(d["results"], "results")
    if len(raw) > bounds.MAX_RESULTS:
        raise _fail(
            "results",
            f"{len(raw):,} results, over the {bounds.MAX_RESULTS:,} a session may hold (the app "
            f"draws and tabulates every one; split the file)",
        )
    environment = _environment({} if d.get("environment") is None else d["environment"])
    sms = bounds.session_sms(environment)
    kind = _str(d.get("kind", "measured"), "kind")
    if kind not in KINDS:
        raise _fail("kind", f"{_shown(kind)} is not one of: {', '.join(KINDS)}")
    return Session(
        results=[_result(r, f"results[{i}]", sms) for i, r in enumerate(raw)],
        environment=environment,
        settings=_tree(_object({} if d.get("settings") is None else d["settings"], "settings"), "settings"),
        created=_created(d.get("created") or ""),
        kind=kind,
        label=_str(d.get("label") or "", "label"),
    )


def _created(value: object) -> str:
    """When the session was recorded: ISO 8601 (a date, or a date and time), or empty; "2026-13-45T25:61" was shown
    as the day it was recorded on."""
    import datetime

    text = _str(value, "created")
    if text:
        try:
            datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise _fail("created", f"{_shown(text)} is not a date and time (ISO 8601: 2026-12-07T14:30:00Z)") from None
    return text


def line_results(results: list[Result]) -> list[Result]:
    """The results of a series a chart joins with a line: its sweep of square sizes (N³). A shape that is not
    square (seed 001's 2048×3072×4096) stands as a point of its own at the cube root of M·N·K, never joined into
    the square sweep's line, which it would bend into a zig-zag. Where the series has sizes of the presets' sweep
    (256, 512, … 8192), the line is that sweep and another square size beside it (the odd-size check at 1000³,
    next to 1024³) is a point too; a series of only other square sizes (a custom sweep) is joined whole."""
    squares = [r for r in results if r.m == r.n == r.k]
    sweep = {int(n) for n in SIZE_PRESETS}
    on_sweep = [r for r in squares if r.m in sweep]
    return on_sweep or squares


def find_baseline(
    results: list[Result], r: Result, variant: str, params: Mapping[str, int] | None = None
) -> Result | None:
    """The valid result of `variant` (with `params`, if given) at r's size (the fastest one if there are several)."""
    candidates = [
        b
        for b in results
        if b.variant == variant
        and (not params or b.params == dict(params))
        and b.valid
        and (b.m, b.n, b.k) == (r.m, r.n, r.k)
        and b.median_ms
    ]
    return min(candidates, key=lambda b: b.median_ms or 0.0) if candidates else None  # each has a time


def speedup(results: list[Result], r: Result, baseline_variant: str) -> float | None:
    """How many times faster r is than the baseline variant at the same size (None if either is missing)."""
    return Baselines(results).speedup(r, baseline_variant)


class Baselines:
    """find_baseline (without params) for every result of a list, indexed once: a look-up per result instead of
    a scan of all of them (a table of 100,000 results scanned 10^10 pairs)."""

    def __init__(self, results: list[Result]):
        self._fastest: dict[tuple[str, int, int, int], tuple[float, Result]] = {}
        for b in results:
            t = b.median_ms if b.valid else None
            key = (b.variant, b.m, b.n, b.k)
            if t and (key not in self._fastest or t < self._fastest[key][0]):
                self._fastest[key] = (t, b)

    def of(self, r: Result, variant: str) -> Result | None:
        best = self._fastest.get((variant, r.m, r.n, r.k))
        return best[1] if best else None

    def speedup(self, r: Result, variant: str) -> float | None:
        best = self._fastest.get((variant, r.m, r.n, r.k))
        t = r.median_ms if r.valid else None
        return best[0] / t if best and t else None


CSV_COLUMNS = [
    "variant", "params", "m", "n", "k", "valid", "median_ms", "min_ms", "max_ms", "gflops",
    "effective_gbs", "speedup_vs_cpu", "speedup_vs_naive", "pct_of_cublas", "rel_error",
    "threshold", "warmup", "repeats", "cold_l2", "noise", "dropped", "timing", "error",
    "cublas_version", "sm_clock_nvml_mhz",
]  # fmt: skip


def results_rows(results: list[Result]) -> list[dict]:
    baselines = Baselines(results)
    return [result_row(r, baselines) for r in results]


def result_row(r: Result, baselines: Baselines) -> dict:
    """One row of the CSV and the tables, its speedups against `baselines` (the results of r's source)."""
    vs_cublas = baselines.speedup(r, "cublas")
    return {
        "variant": r.variant,
        "params": " ".join(f"{k}={v}" for k, v in r.params.items()),
        "m": r.m,
        "n": r.n,
        "k": r.k,
        "valid": r.valid,
        "median_ms": r.median_ms,
        "min_ms": r.min_ms,
        "max_ms": r.max_ms,
        "gflops": r.gflops,
        "effective_gbs": r.effective_gbs,
        "speedup_vs_cpu": baselines.speedup(r, "cpu-naive"),
        "speedup_vs_naive": baselines.speedup(r, "gpu-naive"),
        "pct_of_cublas": None if vs_cublas is None else 100 * vs_cublas,
        "rel_error": r.rel_error,
        "threshold": r.threshold,
        "warmup": r.warmup,
        "repeats": r.repeats,
        "cold_l2": r.cold_l2,
        "noise": r.noise,
        "dropped": len(r.dropped_ms),
        "timing": r.timing,
        "error": r.error or "",
        # which cuBLAS pct_of_cublas is of (the cuBLAS result's library; empty: not recorded), and r's clock
        "cublas_version": _cublas_of(baselines, r),
        "sm_clock_nvml_mhz": r.sm_clock_nvml_mhz,
    }


def _cublas_of(baselines: Baselines, r: Result) -> str | None:
    base = baselines.of(r, "cublas")
    return base.cublas_version if base is not None else r.cublas_version


def results_csv(results: list[Result]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in results_rows(results):
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return out.getvalue()


def compare_sources(
    results: list[Result], reference: str, source_of: Callable[[Result], str]
) -> tuple[list[str], list[dict]]:
    """Rows of (series, size) measured both in `reference` and in another source (`source_of` says which
    source each result came from), with each source's median time and how many times faster it is than the
    reference (ref time / its time), and the block configuration each ran with ("config", "configs": a tuned
    configuration on one GPU and the registry's default on another are the same series, not the same kernel)."""
    by_key: dict[tuple[str, str, tuple[int, int, int]], Result] = {}
    for r in results:
        if r.valid and r.median_ms:
            key = (source_of(r), r.series, (r.m, r.n, r.k))
            if key not in by_key or r.median_ms < (by_key[key].median_ms or float("inf")):
                by_key[key] = r
    others = sorted({s for s, _, _ in by_key if s != reference})
    rows = []
    keys = sorted(
        {(series, size) for s, series, size in by_key if s == reference},
        key=lambda k: (k[0], k[1][0] * k[1][1] * k[1][2]),
    )
    for series, size in keys:
        ref = by_key[(reference, series, size)]
        row: dict[str, Any] = {
            "series": series,
            "variant": ref.variant,
            "size": ref.problem.label,
            "reference_ms": ref.median_ms,
            "backend": ref.backend,
            "config": dict(ref.config),
            "others": {},
            "configs": {},
        }
        for other in others:
            theirs = by_key.get((other, series, size))
            if theirs is not None and ref.median_ms and theirs.median_ms:  # by_key holds timed results only
                row["others"][other] = (theirs.median_ms, ref.median_ms / theirs.median_ms)
                row["configs"][other] = dict(theirs.config)
        if row["others"]:
            rows.append(row)
    return others, rows
