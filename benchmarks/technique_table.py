"""Every technique at every size, in one table: each option of benchmarks/fp32_round3.py (builds of
kernels/cpasync_any.cu) and benchmarks/tf32_round3.py (options of kernels/wgmma_tf32.cu), beside cuBLAS FP32 and
TF32, with its kernel-only time, its share of cuBLAS, its L2 hit rate and the share of SM cycles left idle.

On the GPU (the recorder's `techniques=SIZES` recipe):

    source .device/env.sh && python3 benchmarks/technique_table.py sweep [--sizes 1000,1024,...] [--only NAMES]

runs, for each size in its own process under ncu (a crash loses that size only), one checked launch of every
option the two scripts list at that size (their option lists are imported, never copied: a new option shows up by
itself), plus cuBLAS FP32 and TF32 and the shipped configurations ("shipped", "registry"). Each launch is checked
element-wise against the float64 reference on NaN-poisoned output, as `gemmviz bench` does. ncu profiles only the
GEMM kernels (a kernel-name filter: not pad_rows, transpose_kn or anything else) with four metrics that need one
pass, `--clock-control none` and `--cache-control all` (caches flushed before each profiled kernel, as in the
earlier L2 tables): gpu__time_duration.sum, lts__t_sector_hit_rate.pct, sm__cycles_active.avg and
sm__cycles_elapsed.avg. Idle SMs = 1 - sm__cycles_active.avg / sm__cycles_elapsed.avg: the share of the SMs'
cycles during the kernel in which an SM had no warp resident. Each process writes manifest-SIZE.json (the launches
in order, each one's check and wall time under ncu) and ncu-SIZE.ncu-rep, read back into ncu-SIZE.csv
(`--page raw`, parsed by gemmviz.core.hardware.ncu_csv); ncu-SIZE.log holds ncu's progress lines, whose
"N pass(es)" say what each profiled launch cost.

Offline (no GPU):

    python3 benchmarks/technique_table.py table --timings benchmarks/results/... [--ncu DIR] [--markdown]

merges those ncu rows with the timing files of fp32_round3.py / tf32_round3.py runs: the time column is each
file's kernel-only median (warm L2), the share of cuBLAS is cuBLAS's median in the same file (same process, same
size) over it. The last column is the same share from the sweep alone: cuBLAS's ncu duration over the option's,
one launch each in the same process, caches flushed before each (cold L2), so it is there for every option the
sweep ran, timed or not, and it reads lower than the warm median's share where L2 reuse matters. An option never
run at a size has no row; a figure not measured shows as "—".
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from gemmviz.core.hardware.gap_file import CYCLES, DURATION, L2_HIT, size_text
from gemmviz.core.hardware.ncu_csv import parse_ncu_csv

ROOT = Path(__file__).resolve().parent.parent
ACTIVE = "sm__cycles_active.avg"
METRICS = (DURATION, L2_HIT, ACTIVE, CYCLES)
# The GEMM kernels ncu profiles, matched against demangled names: ours (gemm_cpasync_any, wgmma_tf32) and cuBLAS's
# (sm80_xmma_gemm_..., sm90_xmma_gemm_..., cutlass kernels, a split-K reduction).
KERNEL_REGEX = "gemm|xmma|cutlass|splitK|wgmma"
FP32_VARIANT = "gpu-cpasync-any"
TMA_KERNEL = "gemm_tma_fp32"  # backends/tma_fp32.KERNEL_NAME (kernels/cpasync_cluster.cu; its row-padding kernel
# pad_rows_fp32 is left out by the name filter)
TF32_VARIANT = "gpu-wgmma-tf32"
SIZES = "1000,1024,2048,4096,8192,2000x3000x1000,2048x3072x4096"  # the table's order of sizes
SWEEP_SIZES = "1000,1024,2048,4096,2000x3000x1000,2048x3072x4096,8192"  # the sweep's: the longest last
DASH = "—"
BASELINE = {"FP32": "cublas", "TF32": "cublas-tf32"}  # each rung's cuBLAS option in the sweep
Size = tuple[int, int, int]


# ---- sizes ------------------------------------------------------------------------------------------------------
def parse_size(text: str) -> Size:
    """1024, 1024³, 1024^3, 2000x3000x1000 or 2000×3000×1000 as (m, n, k)."""
    s = text.strip().replace("×", "x").replace("³", "").replace("^3", "")
    parts = [int(x) for x in s.split("x")]
    if len(parts) == 1:
        return parts[0], parts[0], parts[0]
    if len(parts) != 3:
        raise ValueError(f"not a size: {text!r}")
    return parts[0], parts[1], parts[2]


def size_tag(size: Size) -> str:
    """The file-name form: 1024 for a cube, 2000x3000x1000 otherwise."""
    m, n, k = size
    return str(m) if m == n == k else f"{m}x{n}x{k}"


# ---- what runs at a size ------------------------------------------------------------------------------------------
def _scripts():
    """benchmarks/fp32_round3.py and tf32_round3.py as modules (their option lists are the truth)."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    import fp32_round3
    import tf32_round3

    return fp32_round3, tf32_round3


def plan(size: Size, only: Iterable[str] = ()) -> list[dict]:
    """The launches of one size, in the order they run: cuBLAS FP32, the shipped FP32 kernel, every option
    fp32_round3.options lists at this size, every option in tf32_round3.OPTIONS ("registry" is the shipped one),
    cuBLAS TF32 last. `only`: option names to keep (all when empty). Each launch: rung, option, variant, config
    (None: the engine's choice), schedule (FP32 builds: s0, sk or sks), kernel (the kernel name ncu will list;
    None for a library call, which may launch several)."""
    from gemmviz.core.kernels.variants import VARIANTS
    from gemmviz.core.problem import Problem

    f32, t32 = _scripts()
    p = Problem(*size)
    fp32_kernel, tf32_kernel = VARIANTS[FP32_VARIANT].kernel_name, VARIANTS[TF32_VARIANT].kernel_name
    out = [
        {"rung": "FP32", "option": "cublas", "variant": "cublas", "config": None, "kernel": None},
        {"rung": "FP32", "option": "shipped", "variant": FP32_VARIANT, "config": None, "kernel": fp32_kernel},
    ]
    for name, config, schedule in f32.options(p, p.m * p.n * p.k <= 1024**3):  # fp32_round3.main's rule
        out.append(
            {
                "rung": "FP32",
                "option": name,
                "variant": None,
                "config": config,
                "schedule": schedule,
                "kernel": TMA_KERNEL if schedule == "tma" else fp32_kernel,
            }
        )
    for name, option in t32.OPTIONS.items():
        # macros, and the "_" keys: hopper_model constants set while the option runs (tf32_round3's rule)
        rules = {k[1:]: v for k, v in (option or {}).items() if k.startswith("_")}
        e = {"rung": "TF32", "option": name, "variant": TF32_VARIANT, "config": t32.macros_of(option)}
        out.append({**e, "kernel": tf32_kernel, **({"rules": rules} if rules else {})})
    out.append({"rung": "TF32", "option": "cublas-tf32", "variant": "cublas-tf32", "config": None, "kernel": None})
    keep = set(only)
    return [e for e in out if not keep or e["option"] in keep]


# ---- ncu's rows to launches ---------------------------------------------------------------------------------------
def base_name(kernel: str) -> str:
    """A demangled kernel name without its return type, parameters or template arguments."""
    name = kernel.strip().removeprefix("void ").strip()
    return re.split(r"[(<]", name, maxsplit=1)[0].strip()


def assign(launches: Sequence[dict], rows: Sequence[dict]) -> list[list[dict] | None]:
    """ncu's rows (in profiling order) shared out to the launches that made them: our kernels make exactly one row
    with their kernel name; a library call (kernel None) makes every row up to the next of ours. A launch that never
    started (launched false) made none. Where the order no longer fits (an expected row is missing, or two library
    calls ran back to back, or a launch raised after it started), that launch and every later one get None: nothing
    is guessed."""
    ours = {e["kernel"] for e in launches if e.get("kernel")}
    out: list[list[dict] | None] = [None] * len(launches)
    i = 0
    started = [j for j, e in enumerate(launches) if e.get("launched")]
    for j, e in enumerate(launches):
        if not e.get("launched"):
            out[j] = []
            continue
        if e.get("raised"):
            break  # it failed after it started: whether its kernel ran (and made a row) is not known
        if e.get("kernel"):
            if i < len(rows) and base_name(rows[i]["kernel"]) == e["kernel"]:
                out[j] = [rows[i]]
                i += 1
                continue
            break
        later = [x for x in started if x > j]
        if later and not launches[later[0]].get("kernel"):
            break  # two library calls in a row: their kernels cannot be told apart
        end = i
        while end < len(rows) and base_name(rows[end]["kernel"]) not in ours:
            end += 1
        out[j] = list(rows[i:end])
        i = end
    return out


def idle_share(active: float | None, elapsed: float | None) -> float | None:
    """1 - active / elapsed SM cycles (averages over the SMs): the share of the kernel's SM cycles with no warp
    resident. None where either is missing or elapsed is not positive."""
    if active is None or elapsed is None or elapsed <= 0:
        return None
    return min(1.0, max(0.0, 1.0 - active / elapsed))


def launch_figures(rows: list[dict] | None) -> dict:
    """One launch's ncu figures: duration summed over its kernels, L2 hit rate and idle share of the longest."""
    if not rows:
        return {"ncu_us": None, "l2_pct": None, "idle": None, "kernels": 0 if rows is not None else None}

    def dur(r: dict) -> float:
        return r["counters"].get(DURATION) or 0.0

    main = max(rows, key=dur)
    c = main["counters"]
    durations = [r["counters"].get(DURATION) for r in rows]
    total = sum(d for d in durations if d is not None) / 1e3 if any(d is not None for d in durations) else None
    return {
        "ncu_us": total,
        "l2_pct": c.get(L2_HIT),
        "idle": idle_share(c.get(ACTIVE), c.get(CYCLES)),
        "kernels": len(rows),
        "kernel": main["kernel"],
    }


def passes_of(log: str) -> list[int]:
    """The pass count of each kernel ncu profiled, from its progress lines (`==PROF== Profiling "k" ... - 1 pass`)."""
    return [int(m.group(1)) for m in re.finditer(r"==PROF== Profiling .*?(\d+) pass(?:es)?\b", log)]


def read_ncu(folder: Path) -> list[dict]:
    """Every size a sweep left in `folder` (manifest-SIZE.json beside ncu-SIZE.csv): one dict per launch that
    started, with its ncu figures, or an `ncu_error` where the CSV is missing or unreadable."""
    from gemmviz.core.fileio import FileFormatError

    out = []
    for manifest in sorted(folder.glob("manifest-*.json")):
        rec = json.loads(manifest.read_text())
        csv = manifest.with_name(manifest.name.replace("manifest-", "ncu-").replace(".json", ".csv"))
        rows: list[dict] | None = None
        error = None
        try:
            rows = parse_ncu_csv(csv.read_text(), METRICS)
        except (OSError, FileFormatError) as exc:
            error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        shares = assign(rec["launches"], rows) if rows is not None else [None] * len(rec["launches"])
        for e, share in zip(rec["launches"], shares, strict=True):
            if not e.get("launched"):
                continue  # never ran (a failed build, or the process stopped before it): no row
            out.append(
                {
                    **e,
                    **launch_figures(share),
                    "size": parse_size(rec["size"]),
                    "source": str(manifest),
                    "gpu": rec.get("gpu"),
                    "date": rec.get("date"),
                    "ncu_error": error,
                }
            )
    return out


# ---- timing files ---------------------------------------------------------------------------------------------------
def _source(path: Path, rec: dict, script: str) -> dict:
    """GPU, date and command of a timing file: its own fields, else a recorder.json or date.txt beside it."""
    date, command = rec.get("date"), rec.get("command")
    beside = path.parent / "recorder.json"
    if command is None and beside.is_file():
        steps = json.loads(beside.read_text()).get("steps", [])
        command = next((s["command"] for s in steps if script in s.get("command", "")), None)
    if date is None and (path.parent / "date.txt").is_file():
        date = (path.parent / "date.txt").read_text().strip()
    return {"file": str(path), "gpu": rec.get("gpu"), "date": date, "command": command}


def read_fp32(path: Path, rec: dict) -> list[dict]:
    source = _source(path, rec, "fp32_round3.py")
    rows = rec.get("rows", [])
    cublas = {r["size"]: r.get("median_ms") for r in rows if r["option"] == "cublas" and r.get("valid")}
    return [
        {
            "rung": "FP32",
            "option": r["option"],
            "size": parse_size(r["size"]),
            "ms": r.get("median_ms") if r.get("valid") else None,
            "valid": bool(r.get("valid")),
            "cublas_ms": cublas.get(r["size"]),
            "config": r.get("config") if r["option"] not in ("cublas", "shipped") else None,
            "ran": r.get("config") if r["option"] == "shipped" else None,
            "schedule": r.get("schedule"),
            "source": source,
        }
        for r in rows
    ]


def read_tf32(path: Path, rec: dict) -> list[dict]:
    source = _source(path, rec, "tf32_round3.py")
    cublas = rec.get("cublas_tf32_ms", {})
    out = [
        {
            "rung": "TF32",
            "option": "cublas-tf32",
            "size": parse_size(s),
            "ms": ms,
            "valid": ms is not None,
            "cublas_ms": ms,
            "config": None,
            "source": source,
        }
        for s, ms in cublas.items()
    ]
    for r in rec.get("rows", []):
        if not r.get("timed", r.get("shape") in cublas):
            continue  # an odd shape (or an error there): checked, not timed
        out.append(
            {
                "rung": "TF32",
                "option": r["option"],
                "size": parse_size(r["shape"]),
                "ms": r.get("median_ms") if r.get("valid") else None,
                "valid": bool(r.get("valid")),
                "cublas_ms": cublas.get(r["shape"]),
                "config": r.get("config"),
                "note": r.get("note"),
                "source": source,
            }
        )
    return out


def read_timings(paths: Iterable[Path]) -> list[dict]:
    """Rows of fp32_round3-*.json and tf32_round3*.json files (folders are searched for both); the once-under-ncu
    and odd-shape files hold no times and are skipped."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files += sorted(f for f in p.rglob("*.json") if re.match(r"(fp32_round3-|tf32_round3)", f.name))
        else:
            files.append(p)
    out = []
    for f in files:
        if "-once-" in f.name:
            continue
        rec = json.loads(f.read_text())
        if "cublas_tf32_ms" in rec:
            out += read_tf32(f, rec)
        elif isinstance(rec.get("rows"), list):
            out += read_fp32(f, rec)
    return out


# ---- technique names --------------------------------------------------------------------------------------------------
FP32_KNOWN = {"BM", "BN", "WM", "WN", "TM", "TN", "BK", "STAGES", "GROUP_M", "ORDER", "SCHED"}
TF32_KNOWN = {"BM", "CONSUMERS", "STAGES", "GROUP_M", "B_REGS", "DEPTH", "CLUSTER", "SPLITS", "PERSIST", "ORDER"}
# A macro's value -> its words ("" where the value is the kernel's own default, which changes nothing)
MACRO_WORDS = {
    "SRC": {0: "", 1: "TMA loads, A swizzled"},  # kernels/cpasync_cluster.cu
    "SHARE": {0: "", 1: "2-block cluster sharing A (TMA multicast)", 2: "2-block cluster sharing B (TMA multicast)"},
    "RELEASE": {0: "", 1: "warps free the stages (no block barrier)"},
    "LAG": {0: "", 1: ""},  # part of RELEASE's way of refilling a stage
    "PBAR": {0: "", 1: "named barriers per warp row and column", 2: "row and column barriers through mbarriers"},
    "FRAG_DB": {1: "", 0: "one fragment buffer", 2: "fragments across the K-slice boundary"},
    "STREAMK": {0: "", 1: "stream-K of the last wave"},
    "TMAP_PREFETCH": {0: "", 1: "tensor maps prefetched"},
}
# options that run the registry's own choice under a changed rule (tf32_round3's "_" keys), by name
REGISTRY_RULES = {"registry sk": "the registry's choice + stream-K of the last wave (STREAMK_FIT on)"}


def _common(config: dict, known: set[str], bk_default: int | None) -> list[str]:
    parts = []
    if config.get("ORDER") == 1:
        parts.append("Hilbert order")
    if bk_default is not None and config.get("BK", bk_default) != bk_default:
        parts.append(f"{config['BK']}-wide K-slices")
    if config.get("GROUP_M", 8) != 8:
        parts.append(f"GROUP_M {config['GROUP_M']}")
    for k, v in sorted(config.items(), key=lambda kv: kv[0] != "SRC"):  # the kernel first, then its options
        if k in known:
            continue
        words = MACRO_WORDS.get(k, {}).get(v)
        if words is None:
            parts.append(f"{k}={v}")
        elif words:
            parts.append(words)
    return parts


def technique(rung: str, option: str, config: dict | None, schedule: str | None = None) -> str:
    """A human name for an option, from what its build changes (a new option's new macro shows as NAME=value)."""
    if option == "cublas":
        return "cuBLAS FP32"
    if option == "cublas-tf32":
        return "cuBLAS TF32"
    if config is None:
        return REGISTRY_RULES.get(option, "as shipped (registry)")
    if rung == "FP32":
        tile = f"{config.get('BM')}×{config.get('BN')}"
        sched = config.get("SCHED", 0)
        first = {
            ("sk", 1): "Stream-K",
            ("sk", 2): "Stream-K, tiles from an atomic counter",
            ("sks", 1): "split-K with Stream-K's reduction",
        }.get((schedule or "s0", sched), "" if sched == 0 else f"SCHED {sched}")
        parts = ([first] if first else []) + _common(config, FP32_KNOWN, 16)
        return " + ".join(parts) + f" ({tile} tiles)" if parts else f"{tile} tiles"
    parts = ["persistent"] if config.get("PERSIST") else []
    if config.get("CONSUMERS") == 1:
        parts.append("one consumer warpgroup")
    if config.get("CLUSTER", 1) > 1:
        parts.append(f"{config['CLUSTER']}-block cluster + TMA multicast")
    if config.get("SPLITS", 0) > 1:
        parts.append(f"split-K {config['SPLITS']}")
    parts += _common(config, TF32_KNOWN, None)
    tile = f"{config.get('BM')}-row tiles"
    return " + ".join(parts) + f" ({tile})" if parts else f"{tile}, one block per tile"


# ---- the table ------------------------------------------------------------------------------------------------------
def _gpu(r: dict) -> str:
    return (r["source"] if "source" in r and isinstance(r["source"], dict) else r).get("gpu") or "GPU not recorded"


def _newest(rows: Iterable[dict], date: Callable[[dict], str]) -> dict:
    """One row per (rung, option, size, GPU): the newest file's (the later file on a tie)."""
    best: dict = {}
    for r in rows:
        k = (r["rung"], r["option"], r["size"], _gpu(r))
        if k not in best or date(r) >= date(best[k]):
            best[k] = r
    return best


def merge(timings: list[dict], ncu: list[dict]) -> list[dict]:
    """The table's rows: every (rung, option, size) either source holds, never one that neither ran. Times and
    counters are joined only where they come from the same GPU; figures from two GPUs make two rows."""
    t = _newest(timings, lambda r: r["source"].get("date") or "")
    n = _newest(ncu, lambda r: r.get("date") or "")
    order_opt = list(dict.fromkeys((r["rung"], r["option"]) for r in [*timings, *ncu]))
    sizes = [parse_size(s) for s in SIZES.split(",")]
    keys = sorted(
        set(t) | set(n),
        key=lambda k: (k[0] != "FP32", order_opt.index(k[:2]), sizes.index(k[2]) if k[2] in sizes else 99, k[2:]),
    )
    out = []
    for k in keys:
        both = t.get(k), n.get(k)
        ran = [_ran(r) for r in both]
        # the engine's own choice ("shipped", "registry") is joined only where both runs ran the same build: a
        # change of the registry between the two runs makes two rows, each naming what it ran
        split = ran[0] is not None and ran[1] is not None and not _same_build(ran[0], ran[1])
        for tr, nr in [(both[0], None), (None, both[1])] if split else [both]:
            out.append(_row(k, tr, nr, n.get((k[0], BASELINE[k[0]], k[2], k[3]))))
    return out


def _ran(r: dict | None) -> dict | None:
    """The build the engine's choice ran (config None in the plan): the sweep's ran_config, a timing file's
    recorded config or the configuration its note names."""
    if r is None or r.get("option") not in ("shipped", "registry"):
        return None
    if r.get("ran_config"):
        return dict(r["ran_config"])
    if r.get("ran"):
        return dict(r["ran"])
    found = re.search(r"config ((?:[A-Z_]+=\d+ ?)+)", r.get("note") or "")
    return {k: int(v) for k, v in (x.split("=") for x in found.group(1).split())} if found else None


def _same_build(a: dict, b: dict) -> bool:
    """Two configurations of one kernel are the same build: every macro equal, a missing one read as 0."""
    return all(a.get(k, 0) == b.get(k, 0) for k in set(a) | set(b))


def _row(k: tuple, tr: dict | None, nr: dict | None, base: dict | None) -> dict:
    config = tr.get("config") if tr else (nr or {}).get("config")
    schedule = (tr or {}).get("schedule") or (nr or {}).get("schedule")
    ms = tr["ms"] if tr else None
    ran = _ran(tr) or _ran(nr)
    # what the engine's choice was at this size, in the same words as the options
    built = technique(k[0], "", ran, "sk" if ran.get("SCHED") else "s0") if ran is not None else None
    name = technique(k[0], k[1], config, schedule) + (f": {built}" if built else "")
    return {
        "rung": k[0],
        "option": k[1],
        "size": k[2],
        "gpu": k[3],
        "technique": name,
        "built": built,
        "us": ms * 1e3 if ms else None,
        "valid": (tr["valid"] if tr else None, nr.get("valid") if nr else None),
        "pct": 100 * tr["cublas_ms"] / ms if tr and ms and tr.get("cublas_ms") else None,
        "l2_pct": nr.get("l2_pct") if nr else None,
        "idle": nr.get("idle") if nr else None,
        "ncu_us": nr.get("ncu_us") if nr else None,
        "ncu_pct": _share(base, nr),
    }


def _share(base: dict | None, row: dict | None) -> float | None:
    """cuBLAS's ncu duration over the option's, where both launches ran, passed their check and were profiled."""
    if not (base and row and base.get("valid") and row.get("valid")):
        return None
    b, r = base.get("ncu_us"), row.get("ncu_us")
    return 100 * b / r if b and r else None


def _fmt(x: float | None, spec: str, suffix: str = "") -> str:
    return DASH if x is None else f"{x:{spec}}{suffix}"


def render(rows: list[dict], sources: list[dict]) -> str:
    """Markdown: the table, then one line per source file (GPU, date, command)."""
    several = len({r["gpu"] for r in rows}) > 1  # a GPU column only where the rows come from more than one
    lines = [
        f"| {'GPU | ' if several else ''}rung | technique | option | size | time µs | % of cuBLAS | L2 hit rate | "
        "idle SMs | ncu µs | % of cuBLAS (ncu) |",
        f"|{'---|' if several else ''}---|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        timed_ok, ncu_ok = r["valid"]
        time_cell = "invalid" if timed_ok is False else _fmt(r["us"], ",.1f")
        gpu = f"{r['gpu']} | " if several else ""
        lines.append(
            f"| {gpu}{r['rung']} | {r['technique']} | {r['option']} | {size_text(r['size'])} | {time_cell} | "
            f"{_fmt(r['pct'], '.1f', '%')} | {_fmt(r['l2_pct'], '.1f', '%')} | "
            f"{_fmt(None if r['idle'] is None else 100 * r['idle'], '.1f', '%')} | "
            f"{'invalid' if ncu_ok is False else _fmt(r['ncu_us'], ',.1f')} | {_fmt(r['ncu_pct'], '.1f', '%')} |"
        )
    lines.append("")
    for s in sources:
        lines.append(
            f"- `{s['file']}`: {s.get('gpu') or 'GPU not recorded'}, {s.get('date') or 'date not recorded'}, "
            f"{'`' + s['command'] + '`' if s.get('command') else 'command not recorded in the file'}"
        )
    return "\n".join(lines)


def best(rows: list[dict]) -> str:
    """Markdown: per GPU, rung and size, the shipped configuration's share of cuBLAS beside the best option's, by
    the sweep's share (the one every option has) and by the timed share where a timing run covered the size."""
    shipped = {"FP32": "shipped", "TF32": "registry"}
    sizes = [parse_size(s) for s in SIZES.split(",")]
    lines = [
        "| GPU | rung | size | shipped (ncu) | best option (ncu) | shipped (timed) | best option (timed) |",
        "|---|---|---|---:|---|---:|---|",
    ]
    keys = sorted(
        {(r["gpu"], r["rung"], r["size"]) for r in rows},
        key=lambda k: (k[0], k[1], sizes.index(k[2]) if k[2] in sizes else 99, k[2]),  # then by size: no hash order
    )
    for gpu, rung, size in keys:
        mine = [
            r for r in rows if (r["gpu"], r["rung"], r["size"]) == (gpu, rung, size) and r["option"] != BASELINE[rung]
        ]
        cells = []
        ships = [r for r in mine if r["option"] == shipped[rung]]
        for col in ("ncu_pct", "pct"):
            ship = next((r for r in ships if r[col] is not None), None)
            top = max((r for r in mine if r[col] is not None), key=lambda r: r[col], default=None)
            built = f" ({ship['built']})" if ship is not None and len(ships) > 1 else ""
            cells.append(_fmt(ship[col] if ship else None, ".1f", "%") + built)  # two builds: each names its own
            cells.append(DASH if top is None else f"{top['option']}: {top[col]:.1f}%")
        lines.append(f"| {gpu} | {rung} | {size_text(size)} | {' | '.join(cells)} |")
    return "\n".join(lines)


def table(timing_paths: Sequence[Path], ncu_dirs: Sequence[Path]) -> str:
    timings = read_timings(timing_paths)
    ncu = [r for d in ncu_dirs for r in read_ncu(d)]
    sources = list({r["source"]["file"]: r["source"] for r in timings}.values())
    for d in ncu_dirs:
        for m in sorted(d.glob("manifest-*.json")):
            rec = json.loads(m.read_text())
            sources.append(
                {"file": str(m), "gpu": rec.get("gpu"), "date": rec.get("date"), "command": rec.get("command")}
            )
    return render(merge(timings, ncu), sources)


def best_table(timing_paths: Sequence[Path], ncu_dirs: Sequence[Path]) -> str:
    return best(merge(read_timings(timing_paths), [r for d in ncu_dirs for r in read_ncu(d)]))


# ---- on the GPU ---------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def _rules(e: dict) -> Iterator[None]:
    """An option's hopper_model constants ("rules": STREAMK_FIT, SK_MIN_GAIN) set while it is configured and run."""
    from gemmviz.core.kernels import hopper_model

    rules = e.get("rules") or {}
    saved = {k: getattr(hopper_model, k) for k in rules}
    try:
        for k, v in rules.items():
            setattr(hopper_model, k, v)
        yield
    finally:
        for k, v in saved.items():
            setattr(hopper_model, k, v)


def _engine_check(run, e: dict, p, inputs, started: Callable[[Callable[[], None]], Callable[[], None]]):
    """One checked launch through the engine's own path (CudaRun.run without the timing), under the option's rules."""
    with _rules(e):
        return _engine_check_as_is(run, e, p, inputs, started)


def _engine_check_as_is(run, e: dict, p, inputs, started: Callable[[Callable[[], None]], Callable[[], None]]):
    from gemmviz.core.kernels.variants import VARIANTS
    from gemmviz.core.measure.bench import plan_jobs

    variant = VARIANTS[e["variant"]]
    if e["config"] is None:
        run.config_override.pop(variant.name, None)
    else:
        run.config_override[variant.name] = e["config"]
    (job,) = plan_jobs([variant.name], [p])
    config, note = run._configure(p, variant)
    e["ran_config"], e["note"] = dict(config), note or None
    refusal = variant.refusal(p, job.params_dict, config)
    if refusal:
        raise RuntimeError(refusal)
    run._upload(inputs)
    rp = variant.run_problem(p, config)
    bufs = run.buffers if rp == p else run._padded_buffers(inputs, rp)
    try:
        launch, _cached = run._launcher(variant, job.params_dict, rp, bufs, config)
        return run._check_launch(started(launch), bufs, rp, p, inputs, variant.precision)
    finally:
        if bufs is not run.buffers:
            for buf in bufs.values():
                buf.free()


def _build_check(run, e: dict, p, inputs, started, cubins: dict, sms: int):
    """One checked launch of an fp32_round3 build (its grid and launch as fp32_round3 makes them)."""
    import numpy as np

    f32, _ = _scripts()
    c = e["config"]
    blob = cubins[f32.key(c)]
    if isinstance(blob, str):
        raise RuntimeError(f"nvcc failed: {blob[-300:]}")
    run._upload(inputs)
    bufs = run.buffers
    if e["schedule"] == "tma":  # kernels/cpasync_cluster.cu: tensor maps, made and launched as fp32_round3 does
        from gemmviz.backends.tma_fp32 import TmaFp32Config, TmaFp32Kernel

        kernel = TmaFp32Kernel(blob, TmaFp32Config.from_macros(c))
        e["grid"] = list(f32.grid(p, c, "tma", sms))
        try:
            go = kernel.launcher(int(bufs["a"]), int(bufs["b"]), int(bufs["c"]), p.m, p.n, p.k)
            return run._check_launch(started(go), bufs, p, p, inputs, "fp32")
        finally:
            kernel.unload()
    f = run.cuda.module_from_buffer(blob).get_function(e["kernel"])
    f.prepare("PPPiii")
    f.set_attribute(run.cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, f32.smem(c))
    g = f32.grid(p, c, e["schedule"], sms)
    e["grid"] = list(g)
    args = (bufs["a"], bufs["b"], bufs["c"], np.int32(p.m), np.int32(p.n), np.int32(p.k))

    def launch() -> None:
        f.prepared_async_call(g, (f32.threads(c), 1, 1), None, *args, shared_size=f32.smem(c))

    return run._check_launch(started(launch), bufs, p, p, inputs, "fp32")


def launch_size(size: Size, only: Sequence[str], manifest: Path) -> int:
    """Under ncu: one checked launch of each planned option at `size`, in plan order; manifest written as it goes.
    A launch that raised after it started may have broken the context: the process stops there."""
    import numpy as np

    from gemmviz.backends.cuda import CudaRun
    from gemmviz.core.measure.bench import Inputs
    from gemmviz.core.problem import Problem

    f32, _ = _scripts()
    p = Problem(*size)
    launches = plan(size, only)
    rec = {
        "size": size_tag(size),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": shlex.join([Path(sys.executable).name, *sys.argv]),
        "metrics": list(METRICS),
        "launches": launches,
    }

    def save() -> None:
        manifest.write_text(json.dumps(rec, indent=1) + "\n")

    with CudaRun() as run:
        sms = run.device.get_attribute(run.cuda.device_attribute.MULTIPROCESSOR_COUNT)
        rec["gpu"], rec["sms"] = run.device.name(), sms
        builds = [e["config"] for e in launches if e["variant"] is None]
        cubins = f32.compile_all(builds, ROOT / "kernels", "sm_90a") if builds else {}
        inputs = Inputs.random(p, np.random.default_rng(48))
        _ = inputs.reference, inputs.bound
        for e in launches:
            e["launched"] = False

            def started(launch: Callable[[], None], e: dict = e) -> Callable[[], None]:
                def go() -> None:
                    e["launched"] = True
                    launch()

                return go

            t0 = time.monotonic()
            try:
                if e["variant"] is None:
                    check = _build_check(run, e, p, inputs, started, cubins, sms)
                else:
                    check = _engine_check(run, e, p, inputs, started)
                e.update(valid=check.valid, rel_error=check.rel_error, why=None if check.valid else check.reason)
            except Exception as exc:  # a failed build, refusal or launch is a result too
                e.update(valid=False, why=str(exc)[:300], raised=True)
            e["wall_s"] = round(time.monotonic() - t0, 3)
            print(f"{size_tag(size)} {e['rung']} {e['option']}: valid {e['valid']} in {e['wall_s']} s", flush=True)
            save()
            if e["launched"] and e.get("raised"):
                print("stopping: a launch failed after it started (the context may be broken)", flush=True)
                break
    return 0


def _engine_builds(sizes: Sequence[Size], only: Sequence[str]) -> list[tuple]:
    """(variant, params, config, arch, gpu) of every engine launch the sweep makes ("shipped", "registry", the TF32
    options), with the configuration the engine picks at each size."""
    from gemmviz.backends.cuda import CudaRun
    from gemmviz.core.kernels.variants import VARIANTS
    from gemmviz.core.measure.bench import plan_jobs
    from gemmviz.core.problem import Problem

    found: dict[str, tuple] = {}
    with CudaRun() as run:
        gpu = run.device.name()
        for s in sizes:
            p = Problem(*s)
            for e in plan(s, only):
                if e["variant"] in (None, "cublas", "cublas-tf32"):
                    continue
                variant = VARIANTS[e["variant"]]
                if e["config"] is None:
                    run.config_override.pop(variant.name, None)
                else:
                    run.config_override[variant.name] = e["config"]
                with _rules(e):
                    config, _note = run._configure(p, variant)
                (job,) = plan_jobs([variant.name], [p])
                arch = "sm_90a" if variant.runner == "wgmma-tma" else run.arch
                key = json.dumps([variant.name, config, job.params_dict, arch], sort_keys=True)
                found[key] = (variant, job.params_dict, config, arch, gpu)
    return list(found.values())


def build(sizes: Sequence[Size], only: Sequence[str]) -> int:
    """Compile every build the sweep will launch, before any process runs under ncu (in parallel): the FP32 builds
    into fp32_round3's shared cubin folder, the engine's (shipped, registry, TF32 options) into the kernel cache
    (GEMMVIZ_CACHE_DIR), with the configuration the engine picks at each size."""
    from concurrent.futures import ThreadPoolExecutor

    from gemmviz.backends.kernel_cache import compile_cubin

    f32, _ = _scripts()
    t0 = time.monotonic()
    configs = [e["config"] for s in sizes for e in plan(s, only) if e["variant"] is None]
    engine = _engine_builds(sizes, only)
    with ThreadPoolExecutor(8) as pool:
        fp32 = pool.submit(f32.compile_all, configs, ROOT / "kernels", "sm_90a") if configs else None
        futures = [pool.submit(compile_cubin, *job) for job in engine]
        failed = [str(f.exception())[:200] for f in futures if f.exception() is not None]
        cubins = fp32.result() if fp32 else {}
    bad = [k for k, v in cubins.items() if isinstance(v, str)]
    print(f"FP32 builds: {len(cubins)}, {len(bad)} failed {bad}", flush=True)
    print(f"engine builds: {len(engine)}, {len(failed)} failed {failed}", flush=True)
    print(f"built in {time.monotonic() - t0:.0f} s", flush=True)
    return 0


def _step(argv: list[str], limit: float, log: Path) -> dict:
    t0 = time.monotonic()
    with log.open("w") as sink:
        try:
            status: int | str = subprocess.run(argv, stdout=sink, stderr=subprocess.STDOUT, timeout=limit).returncode
        except subprocess.TimeoutExpired:
            status = f"stopped after {limit:.0f} s"
        except OSError as exc:
            status = f"could not start: {exc}"
    return {"command": shlex.join(argv), "status": status, "seconds": round(time.monotonic() - t0, 1)}


def ncu_argv(ncu: str, report: Path, demangled: bool = True) -> list[str]:
    """ncu's options for the sweep: the four metrics (one pass), GEMM kernels only (the filter matched against
    demangled names where `demangled`), the card's clocks, caches flushed before each profiled kernel, every
    launch of every process."""
    base = ["--kernel-name-base", "demangled"] if demangled else []
    return [
        ncu,
        "--export",
        str(report),
        "--force-overwrite",
        "--clock-control",
        "none",
        "--cache-control",
        "all",
        "--target-processes",
        "all",
        *base,
        "--kernel-name",
        f"regex:{KERNEL_REGEX}",
        "--metrics",
        ",".join(METRICS),
    ]


def sweep(sizes: Sequence[Size], only: Sequence[str], out: Path, budget: float, per_size: float) -> int:
    """build, then each size in its own process under ncu, then its report read back as CSV; sweep.json says what
    ran, with what status and how long; a summary of the ncu figures is printed last."""
    from gemmviz.backends.profile import find_ncu

    out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    ncu = str(find_ncu() or "ncu")
    script = str(Path(__file__).resolve())
    py = sys.executable
    pick = ["--only", ",".join(only)] if only else []
    rec: dict = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "command": shlex.join(sys.argv)}
    rec.update(metrics=list(METRICS), kernel_regex=KERNEL_REGEX, steps=[])

    def save() -> None:
        (out / "sweep.json").write_text(json.dumps(rec, indent=1) + "\n")

    demangled = True
    sizes_arg = ",".join(size_tag(s) for s in sizes)
    rec["steps"].append(_step([py, script, "build", "--sizes", sizes_arg, *pick], min(120, budget), out / "build.log"))
    print(f"[{time.monotonic() - start:5.0f} s] build: {rec['steps'][-1]['status']}", flush=True)
    save()
    for i, s in enumerate(sizes):
        tag = size_tag(s)
        left = budget - (time.monotonic() - start)
        limit = min(per_size, left - 5 * (len(sizes) - i - 1))
        if limit < 10:
            rec["steps"].append({"command": f"size {tag}", "status": "no time left"})
            continue
        report = out / f"ncu-{tag}.ncu-rep"
        child = [py, script, "launch", "--size", tag, "--manifest", str(out / f"manifest-{tag}.json"), *pick]
        log = out / f"ncu-{tag}.log"
        rec["steps"].append(_step([*ncu_argv(ncu, report, demangled), *child], limit, log))
        if (
            demangled
            and not report.exists()
            and re.search(r"(unrecogni[sz]ed|unknown|invalid) option", _text(log), re.I)
        ):
            demangled = False  # an ncu without --kernel-name-base: again, matching function names
            rec["steps"].append(_step([*ncu_argv(ncu, report, demangled), *child], limit, log))
        read = [ncu, "--import", str(report), "--csv", "--page", "raw", "--print-units", "base"]
        rec["steps"].append(_step(read, 30, out / f"ncu-{tag}.csv") if report.exists() else {"command": "no report"})
        print(f"[{time.monotonic() - start:5.0f} s] {tag}: {rec['steps'][-2]['status']}", flush=True)
        save()
    summary(out)
    return 0


def _text(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def summary(out: Path) -> None:
    """What the sweep measured: passes per profiled kernel, wall time per launch, and each launch's figures."""
    passes = [n for log in sorted(out.glob("ncu-*.log")) for n in passes_of(log.read_text(errors="replace"))]
    if passes:
        print(f"passes per profiled kernel (passes: kernels): {dict(sorted(_count(passes).items()))}", flush=True)
    rows = read_ncu(out)
    walls = [r["wall_s"] for r in rows if r.get("wall_s") is not None]
    if walls:
        print(
            f"{len(walls)} launches, wall time each under ncu: median {statistics.median(walls):.2f} s, max {max(walls):.2f} s"
        )
    for r in rows:
        print(
            f"{size_tag(r['size']):15} {r['rung']} {r['option']:28} valid {str(r.get('valid')):5} "
            f"ncu {_fmt(r['ncu_us'], '.1f')} us  L2 {_fmt(r['l2_pct'], '.1f')}%  "
            f"idle {_fmt(None if r['idle'] is None else 100 * r['idle'], '.1f')}%  kernels {r['kernels']}  "
            f"{r.get('why') or ''}{r.get('ncu_error') or ''}"
        )


def _count(xs: Iterable[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for x in xs:
        out[x] = out.get(x, 0) + 1
    return out


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("sweep", "build", "plan"):
        s = sub.add_parser(name)
        s.add_argument("--sizes", default=SWEEP_SIZES)
        s.add_argument("--only", default="", help="comma-separated option names (cublas, shipped, registry, ...)")
    sw = sub.choices["sweep"]
    sw.add_argument("--out", default=os.environ.get("OUT", "/tmp/techniques"))
    sw.add_argument("--budget", type=float, default=190, help="seconds for the whole sweep")
    sw.add_argument("--per-size", type=float, default=70, help="most seconds one size's process may take")
    la = sub.add_parser("launch", help="(under ncu) one checked launch of each option at one size")
    la.add_argument("--size", required=True)
    la.add_argument("--only", default="")
    la.add_argument("--manifest", required=True)
    ta = sub.add_parser("table", help="the markdown table of timing files and sweep folders (no GPU)")
    ta.add_argument("--timings", nargs="*", default=[], help="fp32_round3-*.json / tf32_round3*.json files or folders")
    ta.add_argument("--ncu", nargs="*", default=[], help="folders a sweep wrote")
    ta.add_argument("--best", action="store_true", help="per rung and size: the shipped share beside the best")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    a = parser().parse_args(argv)
    only = [x for x in a.only.split(",") if x] if hasattr(a, "only") else []
    if a.cmd == "table":
        show = best_table if a.best else table
        print(show([Path(x) for x in a.timings], [Path(x) for x in a.ncu]))
        return 0
    if a.cmd == "launch":
        return launch_size(parse_size(a.size), only, Path(a.manifest))
    sizes = [parse_size(s) for s in a.sizes.split(",") if s]
    if a.cmd == "plan":
        total = 0
        for s in sizes:
            names = [f"{e['rung']}:{e['option']}" for e in plan(s, only)]
            total += len(names)
            print(f"{size_tag(s):15} {len(names):3} launches: {', '.join(names)}")
        print(f"{total} launches in all")
        return 0
    if a.cmd == "build":
        return build(sizes, only)
    return sweep(sizes, only, Path(a.out), a.budget, a.per_size)


if __name__ == "__main__":
    sys.exit(main())
