"""Benchmark results and the versioned session file (JSON) the app opens; CSV export."""

from __future__ import annotations

import csv
import io
import json
import os
import statistics
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from gemmviz.core.fileio import write_atomic  # also imported from here by the CLI and backends/ceilings.py
from gemmviz.core.problem import Problem

SCHEMA = "gemmviz.session"
SCHEMA_VERSION = 1


class SessionError(ValueError):
    """A session file that cannot be read; the message says why."""


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
    # Nsight Compute metric name -> value, units normalised by gemmviz.core.counters; None: not profiled.
    counters: dict[str, float | None] | None = None
    # [[block, sm, start_ns, end_ns], ...] from an instrumented run; None: not traced. Neither is in the CSV.
    block_trace: list[list[int]] | None = None

    @property
    def source(self) -> str:
        """Always "": where a result came from is the workspace's business (core/workspace.py), never stored
        in the result or its file. Kept only while core/roofline.py still compares it (always equal)."""
        return ""

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
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Result:
        known = {f.name for f in fields(cls)}
        missing = {"variant", "m", "n", "k", "valid"} - d.keys()
        if missing:
            raise SessionError(f"a result lacks {', '.join(sorted(missing))}")
        return cls(**{k: v for k, v in d.items() if k in known})


@dataclass
class Session:
    results: list[Result] = field(default_factory=list)
    environment: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    created: str = ""
    kind: str = "measured"  # "measured" or "published"
    label: str = ""

    def to_dict(self) -> dict:
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
        if not isinstance(d, dict) or d.get("schema") != SCHEMA:
            raise SessionError("not a gemmviz session (no 'schema': 'gemmviz.session')")
        version = d.get("schema_version")
        if not isinstance(version, int) or version > SCHEMA_VERSION or version < 1:
            raise SessionError(
                f"session schema version {version!r} is not supported (this gemmviz reads 1..{SCHEMA_VERSION})"
            )
        raw = d.get("results")
        if not isinstance(raw, list):
            raise SessionError("session has no list of results")
        try:
            results = [Result.from_dict(r) for r in raw]
        except TypeError as exc:
            raise SessionError(f"malformed result: {exc}") from None
        return cls(
            results=results,
            environment=d.get("environment") or {},
            settings=d.get("settings") or {},
            created=d.get("created", ""),
            kind=d.get("kind", "measured"),
            label=d.get("label", ""),
        )

    def save(self, path: str | os.PathLike) -> None:
        """Write atomically: a failed write leaves any earlier file untouched."""
        write_atomic(path, json.dumps(self.to_dict(), indent=1))

    @classmethod
    def load(cls, path: str | os.PathLike) -> Session:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise SessionError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise SessionError(f"{path} is not a text (JSON) file") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SessionError(f"{path} is not valid JSON: {exc}") from None
        return cls.from_dict(data)


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
    return min(candidates, key=lambda b: b.median_ms) if candidates else None


def speedup(results: list[Result], r: Result, baseline_variant: str) -> float | None:
    """How many times faster r is than the baseline variant at the same size (None if either is missing)."""
    base = find_baseline(results, r, baseline_variant)
    if base is None or not r.valid or not r.median_ms:
        return None
    return base.median_ms / r.median_ms


CSV_COLUMNS = [
    "variant", "params", "m", "n", "k", "valid", "median_ms", "min_ms", "max_ms", "gflops",
    "effective_gbs", "speedup_vs_cpu", "speedup_vs_naive", "pct_of_cublas", "rel_error",
    "threshold", "warmup", "repeats", "cold_l2", "error",
]  # fmt: skip


def results_rows(results: list[Result]) -> list[dict]:
    rows = []
    for r in results:
        vs_cublas = speedup(results, r, "cublas")
        rows.append(
            {
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
                "speedup_vs_cpu": speedup(results, r, "cpu-naive"),
                "speedup_vs_naive": speedup(results, r, "gpu-naive"),
                "pct_of_cublas": None if vs_cublas is None else 100 * vs_cublas,
                "rel_error": r.rel_error,
                "threshold": r.threshold,
                "warmup": r.warmup,
                "repeats": r.repeats,
                "cold_l2": r.cold_l2,
                "error": r.error or "",
            }
        )
    return rows


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
    reference (ref time / its time)."""
    by_key: dict[tuple[str, str, tuple[int, int, int]], Result] = {}
    for r in results:
        if r.valid and r.median_ms:
            key = (source_of(r), r.series, (r.m, r.n, r.k))
            if key not in by_key or r.median_ms < by_key[key].median_ms:
                by_key[key] = r
    others = sorted({s for s, _, _ in by_key if s != reference})
    rows = []
    keys = sorted(
        {(series, size) for s, series, size in by_key if s == reference},
        key=lambda k: (k[0], k[1][0] * k[1][1] * k[1][2]),
    )
    for series, size in keys:
        ref = by_key[(reference, series, size)]
        row = {"series": series, "size": ref.problem.label, "reference_ms": ref.median_ms, "others": {}}
        for other in others:
            r = by_key.get((other, series, size))
            if r is not None:
                row["others"][other] = (r.median_ms, ref.median_ms / r.median_ms)
        if row["others"]:
            rows.append(row)
    return others, rows
