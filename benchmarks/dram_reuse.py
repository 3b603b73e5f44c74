"""Why does the tiled kernel read more from DRAM than the naive one at 4096³? (issue 20, item 5)

Hardware counters (Nsight Compute) for the shipped naive and tiled kernels at several sizes, and for
experimental copies of them (benchmarks/dram_reuse/reuse.cu) that change one thing each: block order, L1
bypass, a staggered first wave, one launch per wave. Every kernel is verified against a float64 reference
first, timed with events, and (the copies) traced: each block's SM, start and end, from which the script
computes how far apart in time the blocks that read the same strip of B run.

    python3 benchmarks/dram_reuse.py run --part main --out DIR      # GPU + ncu: dram-reuse.json, traces.npz, logs
    python3 benchmarks/dram_reuse.py run --part paired --out DIR2   # GPU + ncu: paired.json, paired-traces.npz
    python3 benchmarks/dram_reuse.py merge DIR/dram-reuse.json DIR2/paired.json --out REC.json
    python3 benchmarks/dram_reuse.py model REC.json   # CPU: replay the traces (beside REC.json) through a model L2
    python3 benchmarks/dram_reuse.py table REC.json   # CPU: the figures as Markdown tables

(`run` without --part does both into one folder.) The paired part traces launches and counts their DRAM bytes in
the same launch, and runs the L2 probe (dram_reuse/l2_probe.cu). benchmarks/README.md says more.

ncu runs with --clock-control none (the card's clocks are left alone) and, for the main figures,
--cache-control all: L2 is flushed before every replay pass, so each launch starts cold and its DRAM reads
are the compulsory ones plus every re-read. Two launches are also profiled with --cache-control none, as
`gemmviz profile` does, to compare with the shipped session. docs/dram-reuse-notes.md says what it found.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

SCHEMA = "gemmviz-dram-reuse"
VERSION = 1
REUSE_SOURCE = Path(__file__).resolve().parent / "dram_reuse" / "reuse.cu"
PROBE_SOURCE = Path(__file__).resolve().parent / "dram_reuse" / "l2_probe.cu"
STAGGER_US = 50.0  # a naive 16x16 block at 4096³ runs ~400 µs on the H200: 8 slots per SM spread over one block's time
SEED = 0
KERNEL_REGEX = "^(gemm_naive|gemm_tiled|reuse_naive|reuse_tiled|l2_probe)$"
METRICS = (
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_bytes.sum",
    "lts__t_sectors_op_read.sum",
    "lts__t_sector_op_read_hit_rate.pct",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum",
    "lts__t_sectors_srcunit_ltcfabric.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
    "l1tex__t_sector_hit_rate.pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
)


@dataclass(frozen=True)
class Job:
    """One kernel configuration at one size N³ (FP32, row-major, square)."""

    name: str  # unique: "tiled16@4096", "naive16-stagger@4096"
    family: str  # naive | tiled
    block: int  # the block side (naive) or TILE (tiled)
    n: int
    source: str = "shipped"  # shipped: kernels/NAME.cu as gemmviz compiles it; traced: the same with gemmviz's
    # block trace (backends.profile.instrument_source); reuse: benchmarks/dram_reuse/reuse.cu
    group: int = 1  # reuse: block-rows walked down before moving right (1: the shipped order)
    ldcg: bool = False  # reuse: every global load through __ldcg (L2 only)
    stagger: bool = False  # reuse: the first wave's slots start STAGGER_US apart
    per_wave: bool = False  # reuse: one launch per wave of block-rows, so each launch's blocks start together
    trace: bool = False  # reuse: also run once with the block trace
    resident: int = 0  # > 0: dynamic shared memory so that at most this many blocks fit on an SM
    repeats: int = 1  # paired part: launches profiled (each traced where it can be)
    what: str = ""  # the one thing it tests

    @property
    def blocks_per_row(self) -> int:
        return self.n // self.block

    @property
    def resident_per_sm(self) -> int:
        natural = 2048 // (self.block * self.block)  # both kernels: 32 registers, little shared memory
        return min(natural, self.resident) if self.resident else natural

    @property
    def traceable(self) -> bool:
        return self.source in ("traced", "reuse")

    def rows_per_launch(self, sms: int) -> int:
        if not self.per_wave:
            return self.blocks_per_row
        return max(1, sms * self.resident_per_sm // self.blocks_per_row)

    def launches(self, sms: int) -> int:
        rows = self.rows_per_launch(sms)
        return -(-self.blocks_per_row // rows)

    def build_key(self) -> tuple:
        if self.source in ("shipped", "traced"):
            return (self.source, self.family, self.block if self.family == "tiled" else 0)
        return ("reuse", self.block, self.group, int(self.ldcg))


@dataclass(frozen=True)
class Probe:
    """The partition test (dram_reuse/l2_probe.cu): a buffer of `mib` MiB read `passes` times by every SM."""

    name: str
    mib: int
    private: bool  # True: each line always read by the same SM; False: by another SM every pass
    passes: int = 6


def plan(quick: bool = False) -> list[Job]:
    """Every job of a run, in the order they are profiled."""
    sizes = (1024, 4096) if quick else (1024, 2048, 3072, 3584, 4096)
    jobs = [
        Job(f"{fam}{b}@{n}", fam, b, n, what="shipped kernel, size sweep")
        for n in sizes
        for fam in ("naive", "tiled")
        for b in (16, 32)
    ]
    n = 4096
    r = "reuse"
    jobs += [
        Job(f"naive16-copy@{n}", "naive", 16, n, r, trace=True, what="control: the experimental copy, shipped order"),
        Job(f"tiled16-copy@{n}", "tiled", 16, n, r, trace=True, what="control: the experimental copy, shipped order"),
        Job(f"naive32-copy@{n}", "naive", 32, n, r, trace=True, what="control: the experimental copy, shipped order"),
        Job(f"tiled32-copy@{n}", "tiled", 32, n, r, trace=True, what="control: the experimental copy, shipped order"),
        Job(
            f"naive16-stagger@{n}",
            "naive",
            16,
            n,
            r,
            stagger=True,
            trace=True,
            what="naive, first wave's slots started 50 us apart (the tiled kernel's spread)",
        ),
        Job(
            f"tiled16-perwave@{n}",
            "tiled",
            16,
            n,
            r,
            per_wave=True,
            trace=True,
            what="tiled, one launch per wave: each launch's blocks start together",
        ),
        Job(
            f"naive16-group8@{n}",
            "naive",
            16,
            n,
            r,
            group=8,
            trace=True,
            what="naive, launch order down 8 block-rows: blocks sharing B dispatched together",
        ),
        Job(
            f"tiled16-group8@{n}",
            "tiled",
            16,
            n,
            r,
            group=8,
            trace=True,
            what="tiled, launch order down 8 block-rows: blocks sharing B dispatched together",
        ),
        Job(f"naive16-ldcg@{n}", "naive", 16, n, r, ldcg=True, trace=True, what="naive, loads bypass L1 (__ldcg)"),
        Job(f"tiled16-ldcg@{n}", "tiled", 16, n, r, ldcg=True, trace=True, what="tiled, loads bypass L1 (__ldcg)"),
    ]
    if quick:
        jobs = [j for j in jobs if j.source == "shipped" or j.name.startswith(("naive16-copy", "tiled16-copy"))]
    return jobs


def paired_plan() -> list[Job]:
    """Part 2: each launch traced and its DRAM bytes counted in the same launch (one ncu pass, one metric)."""
    r, n = "reuse", 4096
    jobs = [
        Job(f"naive16@{n}", "naive", 16, n, repeats=3, what="shipped build: DRAM from launch to launch"),
        Job(f"tiled16@{n}", "tiled", 16, n, repeats=2, what="shipped build: DRAM from launch to launch"),
        Job(
            f"naive16-gvtrace@{n}",
            "naive",
            16,
            n,
            "traced",
            repeats=3,
            what="gemmviz's traced build of the shipped kernel",
        ),
        Job(
            f"tiled16-gvtrace@{n}",
            "tiled",
            16,
            n,
            "traced",
            repeats=2,
            what="gemmviz's traced build of the shipped kernel",
        ),
        Job(f"naive16-copy@{n}", "naive", 16, n, r, repeats=2, what="the copy, trace and DRAM of one launch"),
        Job(f"tiled16-copy@{n}", "tiled", 16, n, r, what="the copy, trace and DRAM of one launch"),
        Job(f"naive16-stagger@{n}", "naive", 16, n, r, stagger=True, what="staggered first wave, same launch"),
        Job(f"tiled16-perwave@{n}", "tiled", 16, n, r, per_wave=True, what="one launch per wave, same launches"),
        Job(f"naive16-res4@{n}", "naive", 16, n, r, resident=4, what="at most 4 blocks per SM"),
        Job(f"tiled16-res4@{n}", "tiled", 16, n, r, resident=4, what="at most 4 blocks per SM"),
        Job(f"tiled16-res2@{n}", "tiled", 16, n, r, resident=2, what="at most 2 blocks per SM"),
        Job(f"tiled16-res1@{n}", "tiled", 16, n, r, resident=1, what="1 block per SM: nothing to share the SM with"),
    ]
    for m in (2048, 3072, 3584):
        jobs += [
            Job(f"naive16-copy@{m}", "naive", 16, m, r, what="the copy at a size whose B fits L2 or nearly"),
            Job(f"tiled16-copy@{m}", "tiled", 16, m, r, what="the copy at a size whose B fits L2 or nearly"),
        ]
    return jobs


def probe_plan() -> list[Probe]:
    return [
        Probe(f"probe-{'private' if private else 'shared'}-{mib}MiB", mib, private)
        for private in (True, False)
        for mib in (8, 16, 24, 28, 32, 36, 40, 48, 56)
    ]


PAIRED_METRICS = ["dram__bytes_read.sum"]  # one metric, one replay pass: the trace and the count are one launch's
WARM_JOBS = ("naive16@4096", "tiled16@4096")  # also profiled with --cache-control none, as the shipped session was


# ------------------------------------------------------------------------------------------ pure (CPU-tested)


def derived(c: dict) -> dict:
    """Rates computed from counts (so they can be summed over launches first)."""

    def ratio(a: str, b: str) -> float | None:
        x, y = c.get(a), c.get(b)
        return None if x is None or not y else x / y

    return {
        "l1_global_ld_hit": ratio(
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        ),
        "l2_tex_read_hit": ratio(
            "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "lts__t_sectors_srcunit_tex_op_read.sum"
        ),
        "l2_tex_read_bytes": None
        if c.get("lts__t_sectors_srcunit_tex_op_read.sum") is None
        else 32.0 * c["lts__t_sectors_srcunit_tex_op_read.sum"],
    }


def sum_launches(rows: list[dict]) -> dict:
    """One job's counters: the sums over its launches; a percentage only where there was one launch."""
    out: dict[str, float | None] = {}
    for name in rows[0]:
        values = [r.get(name) for r in rows]
        if any(v is None for v in values):
            out[name] = None
        elif name.endswith(".pct") or ".pct_" in name or ".avg" in name:
            out[name] = values[0] if len(values) == 1 else None
        else:
            out[name] = float(sum(values))
    return out


def assign_rows(jobs: list[Job], rows: list[dict], sms: int, paired: bool = False) -> dict[str, list[list[dict]]]:
    """ncu's rows (one per profiled launch, in launch order) to the jobs that launched them: for each job, one
    list of counter dicts per repeat (one repeat unless `paired`). Rows past the jobs' (the probes') are left.
    Raises ValueError when there are too few rows or a kernel name does not match the plan."""
    need = launch_count(jobs, [], sms, paired)
    if len(rows) < need:
        raise ValueError(f"ncu profiled {len(rows)} launches, the plan has {need}")
    out, i = {}, 0
    for j in jobs:
        want = ("reuse_" if j.source == "reuse" else "gemm_") + j.family
        out[j.name] = []
        for _ in range(j.repeats if paired else 1):
            mine = rows[i : i + j.launches(sms)]
            i += j.launches(sms)
            for r in mine:
                if r["kernel"] != want:
                    raise ValueError(f"{j.name}: ncu row {r['id']} is {r['kernel']}, expected {want}")
            out[j.name].append([r["counters"] for r in mine])
    return out


def trace_stats(rec: np.ndarray, blocks_per_row: int) -> dict:
    """How the blocks of one launch sequence ran, from reuse.cu's records (launch id, tile*256+SM, start, end).

    row_gap: for each tile (bx, by) with by > 0, the time from the start of (bx, by-1) to its own start, over
    the median block time L: how long after the previous block that read the same strip of B it ran.
    progress_iqr: at 9 times across the run, the spread (interquartile) of the resident blocks' progress
    through K (0 to 1, assuming a constant rate); the mean over the 9. Small: they march through k together."""
    rec = np.asarray(rec, dtype=np.uint64)
    tile = (rec[:, 1] >> np.uint64(8)).astype(np.int64)
    start = rec[:, 2].astype(np.int64)
    end = rec[:, 3].astype(np.int64)
    t0 = start.min()
    s = np.empty(len(rec), np.int64)
    e = np.empty(len(rec), np.int64)
    s[tile], e[tile] = start - t0, end - t0
    dur = e - s
    L = float(np.median(dur))
    rows = len(rec) // blocks_per_row
    grid = s.reshape(rows, blocks_per_row)
    gap = (grid[1:] - grid[:-1]).ravel() / L
    iqr = []
    for t in np.linspace(e.max() * 0.1, e.max() * 0.9, 9):
        live = (s <= t) & (e > t)
        if live.sum() > 3:
            p = (t - s[live]) / dur[live]
            q1, q3 = np.percentile(p, [25, 75])
            iqr.append(q3 - q1)
    p10, p50, p90 = np.percentile(gap, [10, 50, 90])
    return {
        "blocks": int(len(rec)),
        "resident_max_per_sm": max_resident(rec),
        "run_ms": float(e.max() / 1e6),
        "block_median_us": L / 1e3,
        "block_cv": float(dur.std() / dur.mean()),
        "row_gap_median_L": float(p50),
        "row_gap_p10_L": float(p10),
        "row_gap_p90_L": float(p90),
        "progress_iqr_mean": float(np.mean(iqr)) if iqr else None,
    }


def _by_tile(rec: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start and end (ns from the first start) indexed by tile, and the launch id of each tile."""
    rec = np.asarray(rec, dtype=np.uint64)
    tile = (rec[:, 1] >> np.uint64(8)).astype(np.int64)
    s, e, lid = (np.empty(len(rec), np.int64) for _ in range(3))
    t0 = rec[:, 2].astype(np.int64).min()
    s[tile], e[tile], lid[tile] = rec[:, 2].astype(np.int64) - t0, rec[:, 3].astype(np.int64) - t0, rec[:, 0]
    return s, e, lid


def gap_speed(
    rec: np.ndarray,
    blocks_per_row: int,
    rows: tuple[int, int] = (4, 40),
    edges: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 1.5),
) -> list[dict]:
    """Does a block run faster when it starts soon after the block above it (same column, the row before: the
    last block that read the same strip of B)? For the blocks of block-rows rows[0]..rows[1]-1: their time over
    the median block time L, by how long after that block they started (in L), in the bins `edges`."""
    s, e, _ = _by_tile(rec)
    L = float(np.median(e - s))
    grid_s, dur = s.reshape(-1, blocks_per_row), (e - s).reshape(-1, blocks_per_row) / L
    lo, hi = rows
    gap = ((grid_s[lo:hi] - grid_s[lo - 1 : hi - 1]) / L).ravel()
    d = dur[lo:hi].ravel()
    out = []
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        m = (gap >= a) & (gap < b)
        if m.sum():
            out.append({"gap_from_L": a, "gap_to_L": b, "blocks": int(m.sum()), "time_over_L": float(d[m].mean())})
    return out


def wave_profile(rec: np.ndarray, blocks_per_row: int, slots: int, waves: tuple[int, ...] = (0, 1, 2, 5, 10, 30)):
    """The first wave's blocks (launch id < slots): median end over L per block-row, and the share of pairs of
    them on one SM that finish in launch order (0.5: no order); and for some waves the 10th and 90th percentile of
    the start times over L (how spread out that wave's blocks start)."""
    s, e, lid = _by_tile(rec)
    L = float(np.median(e - s))
    row = np.arange(len(s)) // blocks_per_row
    first = lid < slots
    by_row = {int(r): float(np.median(e[first & (row == r)]) / L) for r in np.unique(row[first])}
    spread = {}
    for w in waves:
        m = (lid >= w * slots) & (lid < (w + 1) * slots)
        if m.any():
            spread[str(w)] = [float(x) for x in np.percentile(s[m] / L, [10, 90])]
    sm = (np.asarray(rec, dtype=np.uint64)[:, 1] & np.uint64(255)).astype(np.int64)
    sm_of = np.empty(len(s), np.int64)
    sm_of[(np.asarray(rec, dtype=np.uint64)[:, 1] >> np.uint64(8)).astype(np.int64)] = sm
    in_order = pairs = 0
    for k in np.unique(sm_of[first]):
        ends = e[first & (sm_of == k)][np.argsort(lid[first & (sm_of == k)])]
        later = ends[None, :] > ends[:, None]
        in_order += int(np.triu(later, 1).sum())
        pairs += len(ends) * (len(ends) - 1) // 2
    return {
        "first_wave_end_by_row_L": by_row,
        "wave_start_p10_p90_L": spread,
        "first_wave_pairs_in_launch_order": in_order / pairs if pairs else None,
    }


def max_resident(rec: np.ndarray) -> int:
    """The most blocks that ran on one SM at the same time (an end at the same time as a start: not both)."""
    rec = np.asarray(rec, dtype=np.uint64)
    sm = (rec[:, 1] & np.uint64(255)).astype(np.int64)
    t = np.concatenate([rec[:, 2], rec[:, 3]]).astype(np.int64)
    step = np.concatenate([np.ones(len(rec), np.int64), -np.ones(len(rec), np.int64)])
    order = np.lexsort((step, t, np.concatenate([sm, sm])))  # by SM, then time, ends (-1) before starts
    sms, steps = np.concatenate([sm, sm])[order], step[order]
    best = 0
    for k in np.unique(sms):
        best = max(best, int(np.cumsum(steps[sms == k]).max()))
    return best


def lru_dram_model(rec: np.ndarray, n: int, block: int, capacity_bytes: int, chunk_k: int = 16) -> float:
    """Bytes a fully associative LRU cache of `capacity_bytes` would miss on, if every block read its strips of
    A and B in chunks of block x chunk_k floats at a constant rate between its traced start and end. A model of
    the L2 (no sets, no partitions, no write traffic, no L1), driven by the real schedule of the blocks."""
    rec = np.asarray(rec, dtype=np.uint64)
    tile = (rec[:, 1] >> np.uint64(8)).astype(np.int64)
    s = rec[:, 2].astype(np.float64)
    e = rec[:, 3].astype(np.float64)
    per_row, nk = n // block, n // chunk_k
    chunk_bytes = block * chunk_k * 4
    k = np.arange(nk)
    times = (s[:, None] + (k[None, :] + 0.5) / nk * (e - s)[:, None]).ravel()
    by, bx = np.repeat(tile // per_row, nk), np.repeat(tile % per_row, nk)
    kk = np.tile(k, len(rec))
    order = np.argsort(times, kind="stable")
    key_a = by * nk + kk
    key_b = per_row * nk + kk * per_row + bx
    keys = np.stack([key_a[order], key_b[order]], 1).ravel().tolist()
    cap = capacity_bytes // chunk_bytes
    cache: OrderedDict[int, None] = OrderedDict()
    misses = 0
    for key in keys:
        if key in cache:
            cache.move_to_end(key)
        else:
            misses += 1
            cache[key] = None
            if len(cache) > cap:
                cache.popitem(last=False)
    return float(misses * chunk_bytes)


def check_record(doc: dict) -> None:
    """Raise ValueError unless `doc` is a dram-reuse record this script wrote (schema, fields, sane ranges)."""
    if doc.get("schema") != SCHEMA or doc.get("version") != VERSION:
        raise ValueError(f"not a {SCHEMA} v{VERSION} record")
    for key in ("gpu", "driver", "command", "date", "ncu", "jobs"):
        if key not in doc:
            raise ValueError(f"the record has no {key!r}")
    for j in doc["jobs"]:
        for key in ("name", "family", "block", "n", "rel_error", "median_ms", "counters"):
            if key not in j:
                raise ValueError(f"job {j.get('name')!r} has no {key!r}")
        if not (j["rel_error"] is not None and 0 <= j["rel_error"] < 1e-4):
            raise ValueError(f"job {j['name']}: rel_error {j['rel_error']} (not verified)")
        cold = j["counters"].get("all") or {}
        dram = cold.get("dram__bytes_read.sum")
        if dram is not None and not 0 <= dram < 1e12:
            raise ValueError(f"job {j['name']}: dram__bytes_read.sum {dram} out of range")


def check_paired(doc: dict) -> None:
    """Raise ValueError unless `doc` is the paired part this script wrote."""
    if doc.get("schema") != SCHEMA or doc.get("part") != "paired":
        raise ValueError(f"not the paired part of a {SCHEMA} record")
    for j in doc["jobs"]:
        if not (j.get("rel_error") is not None and 0 <= j["rel_error"] < 1e-4):
            raise ValueError(f"job {j.get('name')}: rel_error {j.get('rel_error')} (not verified)")
        if len(j.get("launches", [])) != j["repeats"]:
            raise ValueError(f"job {j['name']}: {len(j.get('launches', []))} launches, {j['repeats']} repeats")
        for x in j["launches"]:
            if not (x["dram_read"] is not None and 0 <= x["dram_read"] < 1e12):
                raise ValueError(f"job {j['name']}: dram_read {x['dram_read']} out of range")
    for p in doc.get("probes", []):
        if not 0 <= p["dram_read_over_size"] <= 2 * p["passes"]:
            raise ValueError(f"{p['name']}: DRAM over size {p['dram_read_over_size']} out of range")


# ----------------------------------------------------------------------------------------------- on the GPU


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def build(jobs: list, folder: Path, arch: str) -> tuple[dict, str]:
    """nvcc -cubin for each distinct kernel build; returns {build key: cubin path} and the log."""
    from gemmviz.backends.profile import instrument_source
    from gemmviz.core.kernels.variants import get_variant

    built, log = {}, []
    for job in jobs:
        key = job.build_key() if isinstance(job, Job) else ("probe",)
        if key in built:
            continue
        if key == ("probe",):
            src, macros = PROBE_SOURCE, []
        elif job.source in ("shipped", "traced"):
            v = get_variant(f"gpu-{job.family}")
            src = folder / f"{job.source}-{job.family}.cu"
            text = v.source_text()
            src.write_text(instrument_source(text, v.kernel_name) if job.source == "traced" else text)
            macros = [f"-DTILE={job.block}"] if job.family == "tiled" else []
        else:
            src = REUSE_SOURCE
            macros = [f"-DBLOCK={job.block}", f"-DGROUP={job.group}", f"-DLDCG={int(job.ldcg)}"]
        out = folder / ("_".join(str(x) for x in key) + ".cubin")
        cmd = ["nvcc", "-cubin", f"-arch={arch}", "-O3", "-Xptxas", "-v", *macros, "-o", str(out), str(src)]
        p = _run(cmd)
        log.append(f"$ {shlex.join(cmd)}\n{p.stdout}{p.stderr}")
        if p.returncode:
            raise RuntimeError(f"nvcc failed for {job.name}:\n{p.stderr}")
        built[key] = str(out)
        log.append(sass_loads(out))
    return built, "\n".join(log)


def sass_loads(cubin: Path) -> str:
    """The global-load instructions in a cubin, by form and count (cuobjdump, where it is installed)."""
    p = _run(["cuobjdump", "--dump-sass", str(cubin)]) if shutil.which("cuobjdump") else None
    if p is None or p.returncode:
        return f"{cubin.name}: no cuobjdump"
    forms: dict[str, int] = {}
    kernel = ""
    for line in p.stdout.splitlines():
        if "Function :" in line:
            kernel = line.split(":")[-1].strip()
        m = re.search(r"\b(LDG[\w.]*)", line)
        if m:
            forms[f"{kernel} {m.group(1)}"] = forms.get(f"{kernel} {m.group(1)}", 0) + 1
    return f"{cubin.name} SASS global loads: {forms}"


class Gpu:
    """The context, inputs and kernels of one process (PyCUDA; created in this thread, freed by close)."""

    def __init__(self, built: dict):
        import pycuda.driver as cuda

        cuda.init()
        self.cuda = cuda
        self.dev = cuda.Device(0)
        self.ctx = self.dev.make_context()
        self.sms = self.dev.get_attribute(cuda.device_attribute.MULTIPROCESSOR_COUNT)
        self.smem_per_sm = self.dev.get_attribute(cuda.device_attribute.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
        self.modules = {k: cuda.module_from_file(p) for k, p in built.items()}
        self.inputs: dict[int, tuple] = {}

    def close(self) -> None:
        for a, b, c in self.inputs.values():
            a.free(), b.free(), c.free()
        self.inputs.clear()
        self.modules.clear()
        self.ctx.pop()
        self.ctx.detach()

    def host_inputs(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(SEED + n)
        return (rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32))

    def buffers(self, n: int) -> tuple:
        if n not in self.inputs:  # one size at a time: the 4096³ inputs and output are 201 MB
            for a, b, c in self.inputs.values():
                a.free(), b.free(), c.free()
            self.inputs.clear()
            a, b = self.host_inputs(n)
            self.inputs[n] = (self.cuda.to_device(a), self.cuda.to_device(b), self.cuda.mem_alloc(4 * n * n))
        return self.inputs[n]

    def launch(self, job: Job, trace=None) -> None:
        """Queue every launch of `job` (no synchronisation)."""
        a, b, c = self.buffers(job.n)
        mod = self.modules[job.build_key()]
        nn = np.int32(job.n)
        block = (job.block, job.block, 1)
        if job.source in ("shipped", "traced"):
            f = mod.get_function(f"gemm_{job.family}")
            if job.source == "traced":  # kernels/trace.cuh: the records go where the global points (0: none)
                ptr, _ = mod.get_global("gemmviz_trace")
                self.cuda.memcpy_htod(ptr, np.array([0 if trace is None else int(trace)], np.uint64))
            f(a, b, c, nn, nn, nn, block=block, grid=(job.blocks_per_row, job.blocks_per_row))
            return
        f = mod.get_function(f"reuse_{job.family}")
        shared = self.limit_residency(f, job)
        rows = job.rows_per_launch(self.sms)
        stagger = np.uint32(int(STAGGER_US * 1000) if job.stagger else 0)
        slots = np.int32(self.sms * job.resident_per_sm)
        tr = np.uintp(0) if trace is None else trace
        for row0 in range(0, job.blocks_per_row, rows):
            these = min(rows, job.blocks_per_row - row0)
            f(
                a,
                b,
                c,
                nn,
                nn,
                nn,
                np.int32(row0),
                tr,
                stagger,
                np.int32(self.sms),
                slots,
                block=block,
                grid=(job.blocks_per_row, these),
                shared=shared,
            )

    def limit_residency(self, f, job: Job) -> int:
        """Dynamic shared memory (unused by the kernel) that lets at most job.resident blocks share an SM."""
        if not job.resident:
            return 0
        static = 2 * job.block * job.block * 4 if job.family == "tiled" else 0
        dynamic = self.smem_per_sm // job.resident - static - 1024 - 256  # 1 KiB per block is the driver's
        fa = self.cuda.function_attribute
        f.set_attribute(fa.MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic)
        f.set_attribute(fa.PREFERRED_SHARED_MEMORY_CARVEOUT, 100)
        return dynamic

    def probe(self, p: Probe) -> None:
        n4 = p.mib * 2**20 // 16
        if ("probe", p.mib) not in self.inputs:
            data = np.random.default_rng(SEED).random(4 * n4, dtype=np.float32)
            self.inputs[("probe", p.mib)] = (self.cuda.to_device(data), self.cuda.mem_alloc(4), self.cuda.mem_alloc(4))
        buf, out, _ = self.inputs[("probe", p.mib)]
        f = self.modules[("probe",)].get_function("l2_probe")
        f(
            buf,
            np.uint64(n4),
            np.int32(p.passes),
            np.int32(int(p.private)),
            out,
            block=(256, 1, 1),
            grid=(self.sms * 8, 1),
        )

    def poison(self, n: int) -> None:
        self.cuda.memset_d8(self.buffers(n)[2], 0xFF, 4 * n * n)  # all-ones bytes: NaN

    def result(self, n: int) -> np.ndarray:
        return self.cuda.from_device(self.buffers(n)[2], (n, n), np.float32)


def verify_and_time(gpu: Gpu, job: Job, ref: np.ndarray, repeats: int) -> dict:
    gpu.poison(job.n)
    gpu.launch(job)
    gpu.ctx.synchronize()
    got = gpu.result(job.n)
    unwritten = int(np.isnan(got).sum())
    rel = float(np.linalg.norm(got.astype(np.float64) - ref) / np.linalg.norm(ref)) if not unwritten else None
    start, stop = gpu.cuda.Event(), gpu.cuda.Event()
    samples = []
    for _ in range(repeats):
        start.record()
        gpu.launch(job)
        stop.record()
        stop.synchronize()
        samples.append(stop.time_since(start))
    return {"rel_error": rel, "unwritten": unwritten, "samples_ms": samples, "median_ms": float(np.median(samples))}


def traced(gpu: Gpu, job: Job) -> np.ndarray:
    blocks = job.blocks_per_row**2
    buf = gpu.cuda.mem_alloc(32 * blocks)
    try:
        gpu.cuda.memset_d8(buf, 0xFF, 32 * blocks)
        gpu.launch(job, trace=np.uintp(int(buf)))
        gpu.ctx.synchronize()
        rec = gpu.cuda.from_device(buf, (blocks, 4), np.uint64)
    finally:
        buf.free()
    if job.source == "traced":  # trace.cuh's (id, SM, start, end); the shipped order: tile = id
        rec[:, 1] = rec[:, 0] * np.uint64(256) + rec[:, 1]
    if (rec[:, 0] == np.uint64(2**64 - 1)).any() or len(np.unique(rec[:, 1] >> np.uint64(8))) != blocks:
        raise RuntimeError(f"{job.name}: the trace misses blocks or repeats a tile")
    rec[:, 2:] -= rec[:, 2].min()  # ns from the first block's start (compresses well)
    return rec


def gpu_phase(jobs: list[Job], built: dict, repeats: int) -> tuple[dict, dict, dict]:
    """Verify, time and trace every job in this process; returns per-job figures, traces and device facts."""
    gpu = Gpu(built)
    figures, traces = {}, {}
    try:
        facts = {
            "gpu": gpu.dev.name(),
            "sms": gpu.sms,
            "l2_bytes": gpu.dev.get_attribute(gpu.cuda.device_attribute.L2_CACHE_SIZE),
            "cc": ".".join(map(str, gpu.dev.compute_capability())),
            "driver_cuda": ".".join(map(str, divmod(gpu.cuda.get_driver_version() // 10, 100))),
        }
        for n in sorted({j.n for j in jobs}):
            a, b = gpu.host_inputs(n)
            ref = a.astype(np.float64) @ b.astype(np.float64)
            for job in (j for j in jobs if j.n == n):
                figures[job.name] = verify_and_time(gpu, job, ref, repeats)
                if job.trace:
                    traces[job.name] = traced(gpu, job)
                    figures[job.name]["trace"] = trace_stats(traces[job.name], job.blocks_per_row)
                print(
                    f"  {job.name:22} rel {figures[job.name]['rel_error']} {figures[job.name]['median_ms']:.3f} ms",
                    flush=True,
                )
    finally:
        gpu.close()
    return figures, traces, facts


def launch_child(plan_file: Path) -> None:
    """Under ncu: every job of the plan, in order, synchronising after each launch. With "paired", each of a
    job's `repeats` launches is traced (where the build can be) and the traces go to the plan's npz."""
    spec = json.loads(plan_file.read_text())
    jobs = [Job(**j) for j in spec["jobs"]]
    probes = [Probe(**p) for p in spec.get("probes", [])]
    built = {tuple(k): p for k, p in spec["built"]}
    paired = spec.get("paired", False)
    gpu = Gpu(built)
    traces = {}
    try:
        for job in jobs:
            for r in range(job.repeats if paired else 1):
                if paired and job.traceable:
                    traces[f"{job.name}#{r}"] = traced(gpu, job)
                else:
                    gpu.launch(job)
                    gpu.ctx.synchronize()
        for p in probes:
            gpu.probe(p)
            gpu.ctx.synchronize()
    finally:
        gpu.close()
    if paired:
        np.savez_compressed(spec["traces"], **traces)


def query_metrics() -> tuple[list[str], str]:
    """The METRICS this GPU's ncu knows (by base name), and ncu's version line."""
    version = _run(["ncu", "--version"]).stdout.strip().splitlines()[-1]
    listing = _run(["ncu", "--query-metrics"]).stdout
    known = {line.split()[0] for line in listing.splitlines() if line.strip() and "__" in line.split()[0]}
    return [m for m in METRICS if m.split(".")[0] in known] or list(METRICS), version


def launch_count(jobs: list[Job], probes: list[Probe], sms: int, paired: bool) -> int:
    return sum(j.launches(sms) * (j.repeats if paired else 1) for j in jobs) + len(probes)


def run_ncu(spec: dict, metrics: list[str], cache: str, folder: Path, log: Path, count: int) -> list[dict]:
    """ncu over this script's `launch` child for the plan `spec`; parse_ncu_csv's rows, one per launch."""
    from gemmviz.backends.profile import profile_command
    from gemmviz.core.hardware.counters import parse_ncu_csv

    plan_file = folder / f"plan-{log.stem}.json"
    plan_file.write_text(json.dumps(spec))
    argv = [sys.executable, str(Path(__file__).resolve()), "launch", str(plan_file)]
    cmd = profile_command(argv, KERNEL_REGEX, metrics, launch_count=count, log_file=log, cache_control=cache)
    for _ in range(3):  # a metric this ncu does not know is dropped (and named in the log), then again
        t = time.time()
        p = _run(cmd, timeout=400)
        print(
            f"  ncu --cache-control {cache}: {count} launches in {time.time() - t:.0f} s (exit {p.returncode})",
            flush=True,
        )
        unknown = re.search(r"Failed to find metric[s]?\s*:?\s*([\w.]+)", p.stdout + p.stderr)
        if not unknown or unknown.group(1) not in metrics:
            break
        print(f"  ncu does not know {unknown.group(1)}: dropped", flush=True)
        metrics.remove(unknown.group(1))
        cmd = profile_command(argv, KERNEL_REGEX, metrics, launch_count=count, log_file=log, cache_control=cache)
    if p.returncode or not log.exists():
        raise RuntimeError(f"ncu failed: {(p.stdout + p.stderr)[-2000:]}")
    rows = parse_ncu_csv(log.read_text(), metrics)
    if len(rows) != count:
        raise RuntimeError(f"ncu profiled {len(rows)} launches, the plan has {count}")
    return rows


def _spec(jobs: list[Job], built: dict, probes: list[Probe] = (), paired: bool = False, traces: str = "") -> dict:
    return {
        "jobs": [asdict(j) for j in jobs],
        "probes": [asdict(p) for p in probes],
        "paired": paired,
        "traces": traces,
        "built": [[list(k), p] for k, p in built.items()],
    }


def profile(jobs: list[Job], built: dict, metrics: list[str], cache: str, folder: Path, out: Path, sms: int) -> dict:
    """Each job's counters (summed over its launches) with --cache-control `cache`."""
    count = launch_count(jobs, [], sms, False)
    rows = run_ncu(_spec(jobs, built), metrics, cache, folder, out / f"ncu-{cache}.csv", count)
    per_job = assign_rows(jobs, rows, sms)
    return {name: sum_launches(reps[0]) for name, reps in per_job.items()}


def nvidia_smi() -> dict:
    q = "name,driver_version,clocks.sm,clocks.mem,temperature.gpu"
    p = _run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"])
    return dict(zip(q.split(","), (x.strip() for x in p.stdout.split(",")), strict=False)) if not p.returncode else {}


def header(facts: dict, before: dict, ncu_version: str, metrics: list[str], repeats: int) -> dict:
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "gpu": facts["gpu"],
        "cc": facts["cc"],
        "sms": facts["sms"],
        "l2_bytes": facts["l2_bytes"],
        "driver": before.get("driver_version", ""),
        "driver_cuda": facts["driver_cuda"],
        "nvcc": _run(["nvcc", "--version"]).stdout.strip().splitlines()[-1],
        "ncu": ncu_version,
        "clocks_before": before,
        "clocks_after": nvidia_smi(),
        "command": shlex.join([sys.executable, *sys.argv]),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "host": platform.node(),
        "metrics": metrics,
        "stagger_us": STAGGER_US,
        "seed": SEED,
        "repeats": repeats,
    }


def run(out: Path, quick: bool, repeats: int) -> dict:
    """Part 1: every job of plan() verified, timed, traced (the copies) and profiled with the full METRICS."""
    jobs = plan(quick)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="dram-reuse-"))
    before = nvidia_smi()
    print(f"GPU: {before}", flush=True)
    built, build_log = build(jobs, work, os.environ.get("DRAM_REUSE_ARCH", "sm_90"))
    (out / "build.log").write_text(build_log)
    figures, traces, facts = gpu_phase(jobs, built, repeats)
    (out / "gpu-phase.json").write_text(json.dumps({"facts": facts, "figures": figures}, indent=1))  # kept if ncu fails
    np.savez_compressed(out / "traces.npz", **{k.replace("@", "_at_"): v for k, v in traces.items()})
    metrics, ncu_version = query_metrics()
    cold = profile(jobs, built, metrics, "all", work, out, facts["sms"])
    warm_jobs = [j for j in jobs if j.name in WARM_JOBS]
    warm = profile(warm_jobs, built, metrics, "none", work, out, facts["sms"])
    records = []
    for j in jobs:
        c = {"all": cold[j.name], **({"none": warm[j.name]} if j.name in warm else {})}
        records.append(
            {
                **asdict(j),
                "launches": j.launches(facts["sms"]),
                **figures[j.name],
                "counters": c,
                "derived": {k: derived(v) for k, v in c.items()},
            }
        )
    doc = {
        **header(facts, before, ncu_version, metrics, repeats),
        "part": "main",
        "ncu_settings": "--clock-control none; counters['all']: --cache-control all, "
        "counters['none']: --cache-control none",
        "jobs": records,
    }
    check_record(doc)
    (out / "dram-reuse.json").write_text(json.dumps(doc, indent=1))
    return doc


def run_paired(out: Path, repeats: int) -> dict:
    """Part 2: paired_plan()'s launches, each traced and counted (DRAM bytes read) in the same launch, and the
    L2 probe (probe_plan()) with the full METRICS."""
    jobs, probes = paired_plan(), probe_plan()
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="dram-reuse-"))
    before = nvidia_smi()
    print(f"GPU: {before}", flush=True)
    built, build_log = build([*jobs, *probes], work, os.environ.get("DRAM_REUSE_ARCH", "sm_90"))
    (out / "build-paired.log").write_text(build_log)
    figures, _, facts = gpu_phase(jobs, built, repeats)
    sms = facts["sms"]
    traces_file = out / "paired-traces.npz"
    rows = run_ncu(
        _spec(jobs, built, paired=True, traces=str(traces_file)),
        list(PAIRED_METRICS),
        "all",
        work,
        out / "ncu-paired.csv",
        launch_count(jobs, [], sms, True),
    )
    per_job = assign_rows(jobs, rows, sms, paired=True)
    traces = np.load(traces_file)
    records = []
    for j in jobs:
        launches = []
        for r, rep in enumerate(per_job[j.name]):
            key = f"{j.name}#{r}"
            stats = trace_stats(traces[key], j.blocks_per_row) if key in traces.files else None
            launches.append({"dram_read": sum_launches(rep)["dram__bytes_read.sum"], "trace": stats})
        records.append({**asdict(j), **figures[j.name], "launches": launches})
        print(f"  {j.name:22} DRAM GB {[round(x['dram_read'] / 1e9, 2) for x in launches]}", flush=True)
    metrics, ncu_version = query_metrics()
    probe_rows = run_ncu(_spec([], built, probes), metrics, "all", work, out / "ncu-probe.csv", len(probes))
    probe_records = []
    for p, row in zip(probes, probe_rows, strict=True):
        if row["kernel"] != "l2_probe":
            raise RuntimeError(f"{p.name}: ncu row {row['id']} is {row['kernel']}")
        size = p.mib * 2**20
        probe_records.append(
            {
                **asdict(p),
                "bytes": size,
                "counters": row["counters"],
                "dram_read_over_size": row["counters"]["dram__bytes_read.sum"] / size,
            }
        )
    doc = {
        **header(facts, before, ncu_version, metrics, repeats),
        "part": "paired",
        "ncu_settings": f"--clock-control none --cache-control all; launches: {PAIRED_METRICS} alone (one "
        "replay pass, so each trace and its count come from one launch); probes: metrics",
        "jobs": records,
        "probes": probe_records,
    }
    check_paired(doc)
    (out / "paired.json").write_text(json.dumps(doc, indent=1))
    return doc


# ------------------------------------------------------------------------------------------------ reporting


def _model_figures(rec: np.ndarray, n: int, block: int, l2_bytes: int) -> dict[str, float]:
    return {str(l2_bytes // share): lru_dram_model(rec, n, block, l2_bytes // share) for share in (1, 2)}


def model(path: Path, traces: Path | None, paired_traces: Path | None) -> dict:
    """Add the LRU model's DRAM bytes (capacity: the device's L2, and half of it) to each traced job of a main
    record (traces.npz beside it) and each traced launch of its paired part (paired-traces.npz)."""
    doc = json.loads(path.read_text())
    check_record(doc)
    main_traces = np.load(traces or path.with_name("traces.npz"))
    for j in doc["jobs"]:
        key = j["name"].replace("@", "_at_")
        if key in main_traces.files:
            j["lru_model"] = _model_figures(main_traces[key], j["n"], j["block"], doc["l2_bytes"])
            print(
                f"  {j['name']:24} measured {_gb(j['counters']['all']['dram__bytes_read.sum'])} GB, model "
                f"{[_gb(v) for v in j['lru_model'].values()]}",
                flush=True,
            )
    part = doc.get("paired")
    pt = paired_traces or path.with_name("paired-traces.npz")
    if part and pt.exists():
        ptraces = np.load(pt)
        for j in part["jobs"]:
            for r, x in enumerate(j["launches"]):
                key = f"{j['name']}#{r}"
                if key in ptraces.files:
                    x["lru_model"] = _model_figures(ptraces[key], j["n"], j["block"], doc["l2_bytes"])
                    print(
                        f"  {key:24} measured {_gb(x['dram_read'])} GB, model "
                        f"{[_gb(v) for v in x['lru_model'].values()]}",
                        flush=True,
                    )
    doc["lru_model_how"] = (
        "lru_dram_model: fully associative LRU over block x 16-float chunks of A and B, each "
        "block reading its strips at a constant rate between its traced start and end; keys: "
        "capacity in bytes (the L2, and half of it)"
    )
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return doc


def analyse(path: Path, traces: Path | None, paired_traces: Path | None) -> dict:
    """Add gap_speed and wave_profile of each traced job (main part) and launch (paired part) to the record."""
    doc = json.loads(path.read_text())
    check_record(doc)
    sms = doc["sms"]
    sources = [
        (doc["jobs"], np.load(traces or path.with_name("traces.npz")), lambda j, r: j["name"].replace("@", "_at_"))
    ]
    pt = paired_traces or path.with_name("paired-traces.npz")
    if doc.get("paired") and pt.exists():
        sources.append((doc["paired"]["jobs"], np.load(pt), lambda j, r: f"{j['name']}#{r}"))
    for jobs, npz, key_of in sources:
        for j in jobs:
            job = Job(**{k: j[k] for k in Job.__dataclass_fields__ if k in j})
            for r in range(j.get("repeats", 1) if "launches" in j and isinstance(j["launches"], list) else 1):
                key = key_of(j, r)
                if key not in npz.files:
                    continue
                rec = npz[key]
                found = {
                    "gap_speed": gap_speed(rec, job.blocks_per_row),
                    **wave_profile(rec, job.blocks_per_row, sms * job.resident_per_sm),
                }
                target = j["launches"][r] if isinstance(j.get("launches"), list) else j
                target["trace_analysis"] = found
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return doc


def _gb(x) -> str:
    return "—" if x is None else f"{x / 1e9:.2f}"


def _model(m: dict | None) -> str:
    return ", ".join(_gb(v) for v in m.values()) if m else ""


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f} %"


def table(doc: dict) -> str:
    head = (
        "| job | ms | DRAM read GB | L2 tex read GB | L2 tex read hit | L1 ld hit | row gap / L | progress IQR "
        "| LRU model GB (L2, half) |\n|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for j in doc["jobs"]:
        c, d, t = j["counters"]["all"], j["derived"]["all"], j.get("trace") or {}
        gap = f"{t['row_gap_median_L']:.3f}" if t else ""
        iqr = f"{t['progress_iqr_mean']:.2f}" if t.get("progress_iqr_mean") is not None else ""
        lines.append(
            f"| {j['name']} | {j['median_ms']:.2f} | {_gb(c.get('dram__bytes_read.sum'))} | "
            f"{_gb(d.get('l2_tex_read_bytes'))} | {_pct(d.get('l2_tex_read_hit'))} | "
            f"{_pct(d.get('l1_global_ld_hit'))} | {gap} | {iqr} | {_model(j.get('lru_model'))} |"
        )
    return "\n".join(lines)


def merge(main_part: dict, paired_part: dict) -> dict:
    """The main part's record with the paired part under "paired" (the same GPU, or ValueError)."""
    check_record(main_part)
    check_paired(paired_part)
    if (main_part["gpu"], main_part["driver"]) != (paired_part["gpu"], paired_part["driver"]):
        raise ValueError("the two parts come from different GPUs or drivers")
    return {**main_part, "paired": paired_part}


def paired_table(doc: dict) -> str:
    lines = [
        "| job | DRAM read GB, each launch | LRU model GB (L2, half) | row gap / L | progress IQR | resident per SM "
        "| ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for j in doc["jobs"]:
        ts = [x["trace"] for x in j["launches"] if x["trace"]]
        gaps = ", ".join(f"{t['row_gap_median_L']:.3f}" for t in ts)
        iqr = ", ".join(f"{t['progress_iqr_mean']:.2f}" for t in ts if t["progress_iqr_mean"] is not None)
        res = ", ".join(str(t["resident_max_per_sm"]) for t in ts)
        dram = ", ".join(_gb(x["dram_read"]) for x in j["launches"])
        model = "; ".join(_model(x.get("lru_model")) for x in j["launches"] if x.get("lru_model"))
        lines.append(f"| {j['name']} | {dram} | {model} | {gaps} | {iqr} | {res} | {j['median_ms']:.2f} |")
    lines += ["", "| probe | MiB | reads | DRAM read / size |", "|---|---|---|---|"]
    for p in doc.get("probes", []):
        lines.append(f"| {p['name']} | {p['mib']} | {p['passes']} | {p['dram_read_over_size']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="GPU + ncu: every job, verified, timed, traced and profiled")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--quick", action="store_true", help="1024 and 4096 only, and the two controls")
    r.add_argument("--repeats", type=int, default=5)
    r.add_argument(
        "--part",
        choices=("main", "paired", "all"),
        default="all",
        help="main: the counters of every job; paired: trace and DRAM of the same launches, and the L2 "
        "probe (the 2026-12-01 record ran them as two commands)",
    )
    la = sub.add_parser("launch", help="(internal) the process ncu profiles")
    la.add_argument("plan", type=Path)
    m = sub.add_parser("model", help="CPU: the LRU model over the recorded traces")
    m.add_argument("record", type=Path)
    m.add_argument("--traces", type=Path, help="the main part's traces (default: traces.npz beside the record)")
    m.add_argument("--paired-traces", type=Path, help="default: paired-traces.npz beside the record")
    t = sub.add_parser("table", help="CPU: the record as a Markdown table")
    t.add_argument("record", type=Path)
    a = sub.add_parser("analyse", help="CPU: how block time depends on the gap, and how each wave starts")
    a.add_argument("record", type=Path)
    a.add_argument("--traces", type=Path)
    a.add_argument("--paired-traces", type=Path)
    g = sub.add_parser("merge", help="CPU: one record of a main part and a paired part")
    g.add_argument("main_part", type=Path)
    g.add_argument("paired_part", type=Path)
    g.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "launch":
        launch_child(args.plan)
    elif args.cmd == "run":
        doc = run(args.out, args.quick, args.repeats) if args.part in ("main", "all") else None
        paired = run_paired(args.out, 3) if args.part in ("paired", "all") else None
        if doc and paired:
            doc = merge(doc, paired)
            (args.out / "dram-reuse.json").write_text(json.dumps(doc, indent=1))
        print(table(doc) if doc else paired_table(paired))
    elif args.cmd == "analyse":
        analyse(args.record, args.traces, args.paired_traces)
    elif args.cmd == "merge":
        doc = merge(json.loads(args.main_part.read_text()), json.loads(args.paired_part.read_text()))
        args.out.write_text(json.dumps(doc, indent=1) + "\n")
        print(table(doc))
    elif args.cmd == "model":
        model(args.record, args.traces, args.paired_traces)
    else:
        doc = json.loads(args.record.read_text())
        check_record(doc)
        print(table(doc))
        if "paired" in doc:
            print()
            print(paired_table(doc["paired"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
