"""Issue 48, round 3, for the FP32 SIMT rung (gpu-cpasync-any): Stream-K, smaller tiles, split-K without turns,
the Hilbert order and 32-wide K-slices, each verified and timed beside cuBLAS FP32 and the shipped kernel.

    source .device/env.sh && python3 benchmarks/fp32_round3.py [--sizes ...] [--kernels DIR] [--out DIR]
    ncu --clock-control none --metrics lts__t_sector_hit_rate.pct,sm__cycles_active.avg,sm__cycles_elapsed.avg \
        --csv python3 benchmarks/fp32_round3.py --once --sizes 1024,4096 --only shipped,cublas,sk-128x128 ...

Options (kernels/cpasync_any.cu built with the macros named; `tile` is BMxBN):
  shipped           the registry's gpu-cpasync-any as the bench runs it (engine: tuned config, split-K by turns)
  s0-TILE           SCHED 0 (one block per tile and K slice, turn-ordered split-K as gpu-cpasync-any chooses)
  sk-TILE           SCHED 1, Stream-K on G = SMs x blocks per SM: whole waves of tiles data-parallel, the rest cut
                    into even K-slice ranges, partial tiles summed by the last block to finish (no waiting)
  sks-TILE          SCHED 1 on G = tiles x S (S as gpu-cpasync-any's split-K picks): split-K with that reduction
  s0-hilbert, sk-hilbert   ORDER 1 (Hilbert) with 128x256 tiles
  s0-bk32           128x256 tiles, K-slices of 32 (half the barriers per k)
  sk2-128x256       SCHED 2: Stream-K whose whole tiles are taken one at a time from an atomic counter
  tma-TILE, tma-x2a-TILE, tma-x2b-TILE   kernels/cpasync_cluster.cu (backends/tma_fp32.py): tiles loaded by TMA,
                    A swizzled; x2a/x2b: 2-block clusters along N/M multicasting A/B (issue 48, technique 2);
                    -w-: each warp frees a stage by an mbarrier arrival (no block barrier per K-slice, RELEASE 1, LAG 1)
  pbar, fdb2, pbar-fdb2   128x256 tiles, SCHED 0: PBAR 1 (named barriers per warp row and per warp column instead of
                    one block-wide barrier per K-slice), FRAG_DB 2 (fragments read across the K-slice boundary), both
  pbar2, pbar2-fdb2 PBAR 2: the same groups through mbarriers (arrive at both, then wait for both)
  pbar-fdb2-128x128 the same in 128x128 tiles (the other warp grid: 4 x 2), for the odd shapes

Every option is checked at each size before it is timed (poisoned C, float64 reference element by element, as
`gemmviz bench` does, and again after the timed launches), and once at odd shapes (verify only). Timing is the
engine's kernel-only protocol (CudaRun.measure: events behind a blocking kernel, median of >= 20 samples, warm
L2). Results go to $OUT/fp32_round3.json as they come, and a table is printed last.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from gemmviz.backends.cuda import CudaRun
from gemmviz.backends.tma_fp32 import SOURCE as TMA_SOURCE
from gemmviz.backends.tma_fp32 import TmaFp32Config, TmaFp32Kernel
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.bench import BenchSettings, Inputs, JobGuard, plan_jobs
from gemmviz.core.problem import Problem

ROOT = Path(__file__).resolve().parent.parent
TILES = {  # BMxBN: the warp and thread tiles of each (8x8 or 8x16 per thread; 8x4 for 64x64)
    "128x256": {"BM": 128, "BN": 256, "WM": 64, "WN": 64, "TM": 8, "TN": 16},
    "128x128": {"BM": 128, "BN": 128, "WM": 32, "WN": 64, "TM": 8, "TN": 8},
    "64x128": {"BM": 64, "BN": 128, "WM": 32, "WN": 64, "TM": 8, "TN": 8},
    "64x64": {"BM": 64, "BN": 64, "WM": 32, "WN": 32, "TM": 8, "TN": 4},
}
BASE = {"BK": 16, "STAGES": 3, "GROUP_M": 8, "ORDER": 0}
SIZES = "1000,1024,2048,4096,8192,2000x3000x1000,2048x3072x4096"
ODD = "33x17x65,1001x999x1003,257x383x200,1100x2101x40"
SM_SHARED = 228 * 1024
TMA = {  # issue 48 technique 2 (kernels/cpasync_cluster.cu): TMA loads; x2a/x2b: 2-block clusters sharing A/B
    "tma-128x256": TmaFp32Config(),
    "tma-x2a-128x256": TmaFp32Config(share=1),
    "tma-x2b-128x256": TmaFp32Config(share=2),
    "tma-w-128x256": TmaFp32Config(release=1, lag=1),  # w: each warp frees a stage, no block barrier per slice
    "tma-x2b-w-128x256": TmaFp32Config(share=2, release=1, lag=1),
    "tma-128x128": TmaFp32Config(128, 128, 32, 64, 8, 8, stages=3),
}


def threads(c: dict) -> int:
    return (c["BM"] // c["WM"]) * (c["BN"] // c["WN"]) * 32


def smem(c: dict) -> int:
    if c.get("SRC"):
        return TmaFp32Config.from_macros(c).smem_bytes
    return 4 * c["STAGES"] * c["BK"] * (c["BM"] + 4 + c["BN"])


def per_sm(c: dict) -> int:
    """Blocks per SM: the kernel's MIN_BLOCKS (registers) and shared memory (1 KiB reserved per block)."""
    regs = (512 if c["TM"] * c["TN"] <= 64 else 256) // threads(c)
    return max(1, min(regs, SM_SHARED // (smem(c) + 1024)))


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def any_splits(p: Problem, c: dict, sms: int) -> int:
    """gpu-cpasync-any's split-K rule (core/kernels/cpasync_model.any_splits) for this SM count."""
    tiles = cdiv(p.m, c["BM"]) * cdiv(p.n, c["BN"])
    if tiles > 4096:
        return 1
    slots = sms * per_sm(c)
    most = max(1, min(4, cdiv(p.k, c["BK"]) // 4))

    def cost(s: int) -> float:
        return cdiv(tiles * s, slots) / s * (1 + 0.03 * (s - 1))

    return min(range(1, most + 1), key=lambda s: (cost(s), s))


def options(p: Problem, small: bool) -> list[tuple[str, dict, str]]:
    """(name, macros, schedule) of the options run at this size; schedule is s0, sk or sks."""
    tiles = list(TILES) if small else ["128x256", "128x128"] if p.m * p.n * p.k < 8192**3 else ["128x256"]
    out = []
    for t in tiles:
        cfg = {**TILES[t], **BASE}
        out.append((f"s0-{t}", {**cfg, "SCHED": 0}, "s0"))
        out.append((f"sk-{t}", {**cfg, "SCHED": 1}, "sk"))
        if small:
            out.append((f"sks-{t}", {**cfg, "SCHED": 1}, "sks"))
    big = {**TILES["128x256"], **BASE}
    for name, pbar, fdb in (("pbar", 1, 1), ("fdb2", 0, 2), ("pbar-fdb2", 1, 2), ("pbar2", 2, 1), ("pbar2-fdb2", 2, 2)):
        out.append((name, {**big, "PBAR": pbar, "FRAG_DB": fdb, "SCHED": 0}, "s0"))  # technique 5, beside s0-128x256
    out.append(("pbar-fdb2-128x128", {**TILES["128x128"], **BASE, "PBAR": 1, "FRAG_DB": 2, "SCHED": 0}, "s0"))
    if not small:
        out.append(("s0-hilbert", {**big, "ORDER": 1, "SCHED": 0}, "s0"))
        out.append(("sk-hilbert", {**big, "ORDER": 1, "SCHED": 1}, "sk"))
        out.append(("sk2-128x256", {**big, "SCHED": 2}, "sk"))
        out.append(("s0-bk32", {**big, "BK": 32, "SCHED": 0}, "s0"))
    out += [(name, {**cfg.macros(), "SRC": 1}, "tma") for name, cfg in TMA.items()]  # SRC: cpasync_cluster.cu
    return out


def grid(p: Problem, c: dict, schedule: str, sms: int) -> tuple[int, int]:
    tm, tn = cdiv(p.m, c["BM"]), cdiv(p.n, c["BN"])
    if schedule == "s0":
        return tn, tm * any_splits(p, c, sms)
    if schedule == "tma":
        return TmaFp32Config.from_macros(c).grid(p.m, p.n), 1
    if schedule == "sk":
        return sms * per_sm(c), 1
    return tm * tn * any_splits(p, c, sms), 1  # sks


def key(c: dict) -> str:
    return "-".join(f"{k}{v}" for k, v in sorted(c.items()))


def compile_all(configs: list[dict], kernels: Path, arch: str) -> dict[str, bytes | str]:
    """nvcc -cubin for every distinct config in parallel: {key: cubin bytes, or the compiler's error}."""
    work = Path(tempfile.gettempdir()) / "fp32r3-cubins"  # shared by the processes of one run (one per size)
    work.mkdir(exist_ok=True)

    def one(c: dict) -> tuple[str, bytes | str]:
        out = work / f"{key(c)}.cubin"
        if out.exists():
            return key(c), out.read_bytes()
        argv = ["nvcc", "-cubin", f"-arch={arch}", "-O3", "-I", str(kernels), *(f"-D{k}={v}" for k, v in c.items())]
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        src = kernels / (TMA_SOURCE if c.get("SRC") else "cpasync_any.cu")
        r = subprocess.run([*argv, str(src), "-o", str(tmp)], capture_output=True, text=True)
        if r.returncode != 0:
            return key(c), r.stderr[-2000:]
        tmp.replace(out)
        return key(c), out.read_bytes()

    unique = {key(c): c for c in configs}
    with ThreadPoolExecutor(max_workers=min(16, os.cpu_count() or 4)) as pool:
        return dict(pool.map(one, unique.values()))


def parse(spec: str) -> Problem:
    if "x" in spec:
        m, n, k = (int(x) for x in spec.split("x"))
        return Problem(m, n, k)
    n = int(spec)
    return Problem(n, n, n)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=SIZES)
    ap.add_argument("--odd", default=ODD, help="shapes every option is verified at (no timing); '' for none")
    ap.add_argument("--only", default="", help="comma-separated option names (and shipped, cublas)")
    ap.add_argument("--once", action="store_true", help="one checked launch per option (under ncu)")
    ap.add_argument("--kernels", default=str(ROOT / "kernels"), help="folder holding cpasync_any.cu")
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/fp32_round3"))
    ap.add_argument("--tag", default="all", help="names this process's file: fp32_round3-TAG.json")
    ap.add_argument("--table", action="store_true", help="print the table of every fp32_round3-*.json in --out")
    ap.add_argument("--markdown", action="store_true", help="with --table: one markdown row per option")
    ap.add_argument("--plan", type=int, metavar="SMS", help="print each option's grid for this many SMs; no GPU")
    a = ap.parse_args()
    if a.plan:
        for spec in a.sizes.split(","):
            p = parse(spec)
            for name, c, schedule in options(p, p.m * p.n * p.k <= 1024**3):
                g = grid(p, c, schedule, a.plan)
                print(f"{p.label:18} {name:14} grid {g} {threads(c)} threads, {per_sm(c)}/SM, smem {smem(c)}")
        return 0
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    only = set(filter(None, a.only.split(",")))
    sizes = [parse(s) for s in a.sizes.split(",") if s]
    odd = [parse(s) for s in a.odd.split(",") if s] if not a.once else []
    if a.once:
        settings = BenchSettings(
            warmup=0, repeats=1, seed=0, max_samples=1, max_time_s=0.001, timing="host", max_batch=1
        )
    else:
        settings = BenchSettings(warmup=3, repeats=20, seed=0, max_time_s=0.3)
    guard = JobGuard(threading.Event(), 600)
    rng = np.random.default_rng(48)
    record: dict = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": [], "odd": []}
    record["command"] = shlex.join(["python3", *sys.argv])  # the technique table names each file's command
    path = out / f"fp32_round3-{'once-' if a.once else ''}{a.tag}.json"
    if a.table:
        return markdown(out) if a.markdown else table(out)

    def save() -> None:
        path.write_text(json.dumps(record, indent=1) + "\n")

    with CudaRun() as run:
        sms = run.device.get_attribute(run.cuda.device_attribute.MULTIPROCESSOR_COUNT)
        record["gpu"] = run.device.name()
        record["sms"] = sms
        plan = {p: [o for o in options(p, p.m * p.n * p.k <= 1024**3) if not only or o[0] in only] for p in sizes}
        every = list({o[0]: o for opts in plan.values() for o in opts}.values())
        if odd:  # every option of either list, once
            both = options(Problem(1024, 1024, 1024), True) + options(Problem(4096, 4096, 4096), False)
            every = list({o[0]: o for o in every + [o for o in both if not only or o[0] in only]}.values())
        t0 = time.monotonic()
        cubins = compile_all([c for _n, c, _s in every], Path(a.kernels), "sm_90a")
        print(f"compiled {len(cubins)} builds in {time.monotonic() - t0:.0f} s", flush=True)
        funcs: dict[str, object] = {}
        tma: dict[str, TmaFp32Kernel] = {}

        def func(c: dict):
            k = key(c)
            if k not in funcs:
                blob = cubins[k]
                if isinstance(blob, str):
                    raise RuntimeError(f"nvcc failed for {k}: {blob}")
                f = run.cuda.module_from_buffer(blob).get_function("gemm_cpasync_any")
                f.prepare("PPPiii")
                f.set_attribute(run.cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, smem(c))
                funcs[k] = f
            return funcs[k]

        def launcher(p: Problem, c: dict, schedule: str):
            bufs = run.buffers
            if schedule == "tma":
                k = key(c)
                if k not in tma:
                    blob = cubins[k]
                    if isinstance(blob, str):
                        raise RuntimeError(f"nvcc failed for {k}: {blob}")
                    tma[k] = TmaFp32Kernel(blob, TmaFp32Config.from_macros(c))
                ptrs = (int(bufs["a"]), int(bufs["b"]), int(bufs["c"]))
                return tma[k].launcher(*ptrs, p.m, p.n, p.k), grid(p, c, schedule, sms)
            f, g = func(c), grid(p, c, schedule, sms)
            args = (bufs["a"], bufs["b"], bufs["c"], np.int32(p.m), np.int32(p.n), np.int32(p.k))
            block, shared = (threads(c), 1, 1), smem(c)

            def launch():
                f.prepared_async_call(g, block, None, *args, shared_size=shared)

            return launch, g

        # odd shapes: every build, verify only (twice: a stale counter or turn would show on the second)
        for p in odd:
            inputs = Inputs.random(p, rng)
            run._upload(inputs)
            for name, c, schedule in every:
                try:
                    launch, g = launcher(p, c, schedule)
                    checks = [run._check_launch(launch, run.buffers, p, p, inputs, "fp32") for _ in range(2)]
                    ok = all(ch.valid for ch in checks)
                    why = next((ch.reason for ch in checks if not ch.valid), None)
                except Exception as exc:  # a failed build or launch is a result too
                    ok, why, g = False, str(exc)[:300], None
                record["odd"].append({"size": p.label, "option": name, "config": c, "grid": g, "valid": ok, "why": why})
                if not ok:
                    print(f"ODD {p.label} {name}: INVALID {why}", flush=True)
            save()
        if odd:
            bad = sum(not r["valid"] for r in record["odd"])
            print(f"odd shapes: {len(record['odd']) - bad} of {len(record['odd'])} checks valid", flush=True)

        for p in sizes:
            inputs = Inputs.random(p, rng)
            t1 = time.monotonic()
            _ = inputs.reference, inputs.bound
            print(f"== {p.label}: reference in {time.monotonic() - t1:.1f} s", flush=True)
            engine = [n for n in ("cublas", "shipped") if not only or n in only]
            for name in engine:
                variant = VARIANTS["cublas" if name == "cublas" else "gpu-cpasync-any"]
                (job,) = plan_jobs([variant.name], [p])
                print(f"CONFIG {p.label} {name}", flush=True)
                r = run.run(job, variant, inputs, settings, guard)
                fields = ("median_ms", "valid", "status", "noise", "note", "config", "rel_error", "clock_mhz")
                record["rows"].append({"size": p.label, "option": name, **{f: getattr(r, f) for f in fields}})
                save()
            for name, c, schedule in plan[p]:
                print(f"CONFIG {p.label} {name}", flush=True)
                row = {"size": p.label, "option": name, "config": c, "schedule": schedule}
                try:
                    run._upload(inputs)
                    launch, g = launcher(p, c, schedule)
                    row["grid"] = g
                    check = run._check_launch(launch, run.buffers, p, p, inputs, "fp32")
                    row.update(valid=check.valid, rel_error=check.rel_error, why=None if check.valid else check.reason)
                    if check.valid:
                        timing = run.measure(launch, settings, guard)
                        again = run._check_launch(launch, run.buffers, p, p, inputs, "fp32")
                        row.update(
                            median_ms=statistics.median(timing["samples_ms"]),
                            noise=timing["noise"],
                            clock_mhz=timing["clock_mhz"],
                            launches_per_sample=timing["launches_per_sample"],
                            valid=again.valid,
                            why=None if again.valid else f"wrong after the timed launches: {again.reason}",
                        )
                except Exception as exc:  # (a trap leaves the context broken: each size runs in its own process)
                    row.update(valid=False, why=str(exc)[:300])
                record["rows"].append(row)
                save()
        for kernel in tma.values():
            kernel.unload()

    return table(out)


def table(out: Path) -> int:
    """Each option's median and its share of cuBLAS (same process, same size), from every file in `out`."""
    files = sorted(out.glob("fp32_round3-*.json"))
    records = [json.loads(f.read_text()) for f in files if "-once-" not in f.name]
    rows = [r for rec in records for r in rec["rows"]]
    cublas = {r["size"]: r["median_ms"] for r in rows if r["option"] == "cublas" and r.get("valid")}
    bad = [r for rec in records for r in rec.get("odd", []) if not r["valid"]]
    checks = sum(len(rec.get("odd", [])) for rec in records)
    if records:
        print(f"\n{records[0].get('gpu')} ({records[0].get('sms')} SMs) {records[0]['date']}")
    print(f"odd shapes: {checks - len(bad)} of {checks} checks valid")
    for r in bad:
        print(f"  INVALID {r['size']} {r['option']}: {r['why']}")
    print(f"{'size':18} {'option':14} {'time us':>10} {'% cuBLAS':>9}  grid / note")
    for r in rows:
        ms, ok = r.get("median_ms"), r.get("valid")
        pct = f"{100 * cublas[r['size']] / ms:8.1f}%" if ms and ok and cublas.get(r["size"]) else "        -"
        t = f"{ms * 1e3:10.1f}" if ms and ok else "   INVALID" if not ok else "         -"
        print(f"{r['size']:18} {r['option']:14} {t} {pct}  {r.get('grid') or ''} {r.get('why') or ''}", flush=True)
    return 0


def markdown(out: Path) -> int:
    """docs/benchmarks.md's table: one row per option, per size its time in µs and its share of cuBLAS."""
    records = [json.loads(f.read_text()) for f in sorted(out.glob("fp32_round3-*.json")) if "-once-" not in f.name]
    rows = [r for rec in records for r in rec["rows"]]
    sizes = list(dict.fromkeys(r["size"] for r in rows))
    names = list(dict.fromkeys(r["option"] for r in rows))
    cell = {(r["size"], r["option"]): r for r in rows}
    cublas = {s: cell[s, "cublas"]["median_ms"] for s in sizes if (s, "cublas") in cell and cell[s, "cublas"]["valid"]}
    print("| option | " + " | ".join(f"{s} µs (% cuBLAS)" for s in sizes) + " |")
    print("|---|" + "---:|" * len(sizes))
    for name in names:
        cells = []
        for s in sizes:
            r = cell.get((s, name))
            if r is None:
                cells.append("")
            elif not r.get("valid") or not r.get("median_ms"):
                cells.append("invalid" if not r.get("valid") else "—")
            else:
                ms = r["median_ms"]
                pct = f" ({100 * cublas[s] / ms:.1f}%)" if s in cublas else ""
                cells.append(f"{ms * 1e3:,.1f}{pct}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
