"""Device harness for issue 14 (counters, block trace, L2 / shared bandwidth), run on the GPU machine:

    source .device/env.sh && python3 benchmarks/profile_dev.py --out $OUT

1. `ncu --version`, and the metric names of gemmviz.core.counters.METRICS looked up in `ncu --query-metrics`;
2. kernels/tiled.cu (TILE=16, and 32) built with the block trace (kernels/trace.cuh), run at 1000^3, 1024^3
   and 4096^3: result checked against float64, every block exactly once, start < end, sm < SM count;
   %globaltimer's real resolution (stamps of the trace, and a one-thread probe); cost of the trace;
3. kernels/membw.cu: L2 and shared-memory bandwidth, median of 20 event-timed runs;
4. ncu over `--one-launch` (gemm_naive 16x16 and gemm_tiled TILE=16 at 1024^3, one launch each): the CSV
   fixture tests/data/ncu-tiled-naive-1024.csv (base units) and -auto.csv (ncu's own unit scaling).

Standalone on purpose: PyCUDA directly, and gemmviz's counters/profile modules loaded by path, so it does
not depend on the engine (gemmviz.backends.__init__ imports the CUDA backend).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "kernels"
sys.path.insert(0, str(ROOT))


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


counters = _load("gemmviz.core.counters", ROOT / "gemmviz/core/counters.py")
profile = _load("gemmviz_profile", ROOT / "gemmviz/backends/profile.py")

TIMER_PROBE = r"""
extern "C" __global__ void timer_probe(unsigned long long *out, int n) {
    for (int i = 0; i < n; ++i) {
        unsigned long long t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : : "memory");
        out[i] = t;
    }
}
"""


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def event_ms(cuda, launch, repeats: int, warmup: int = 3) -> list[float]:
    for _ in range(warmup):
        launch()
    start, end = cuda.Event(), cuda.Event()
    samples = []
    for _ in range(repeats):
        start.record()
        launch()
        end.record()
        end.synchronize()
        samples.append(end.time_since(start))
    return samples


def gemm_inputs(cuda, n: int, rng):
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    return a, b, cuda.to_device(a), cuda.to_device(b), cuda.mem_alloc(n * n * 4)


def one_launch() -> None:
    """gemm_naive (16x16) then gemm_tiled (TILE=16) once each at 1024^3: what ncu profiles."""
    import pycuda.driver as cuda
    from pycuda.compiler import SourceModule

    cuda.init()
    ctx = cuda.Device(0).make_context()
    try:
        n = 1024
        _, _, da, db, dc = gemm_inputs(cuda, n, np.random.default_rng(1))
        naive = SourceModule((KERNELS / "naive.cu").read_text(), options=["-O3"], no_extern_c=True)
        tiled = SourceModule((KERNELS / "tiled.cu").read_text(), options=["-O3", "-DTILE=16"], no_extern_c=True)
        args = (da, db, dc, np.int32(n), np.int32(n), np.int32(n))
        naive.get_function("gemm_naive")(*args, block=(16, 16, 1), grid=(n // 16, n // 16, 1))
        tiled.get_function("gemm_tiled")(*args, block=(16, 16, 1), grid=(n // 16, n // 16, 1))
        ctx.synchronize()
        for buf in (da, db, dc):
            buf.free()
    finally:
        ctx.pop()


def membw_one_launch() -> None:
    """l2_read (16 MiB x 4) and shared_read (64 rounds) once each: ncu checks the bytes they claim to move."""
    import pycuda.driver as cuda
    from pycuda.compiler import SourceModule

    cuda.init()
    dev = cuda.Device(0)
    ctx = dev.make_context()
    try:
        sms = dev.get_attribute(cuda.device_attribute.MULTIPROCESSOR_COUNT)
        mod = SourceModule((KERNELS / "membw.cu").read_text(), options=["-O3"], no_extern_c=True)
        n_vec = (16 << 20) // 16
        buf, out = cuda.mem_alloc(n_vec * 16), cuda.mem_alloc(sms * 8 * 256 * 4)
        cuda.memset_d32(buf, 0x3F800000, n_vec * 4)
        mod.get_function("l2_read")(buf, np.uint32(n_vec), np.int32(4), out, block=(256, 1, 1), grid=(sms * 8, 1, 1))
        mod.get_function("shared_read")(np.int32(64), out, block=(256, 1, 1), grid=(sms * 8, 1, 1))
        ctx.synchronize()
        buf.free()
        out.free()
    finally:
        ctx.pop()


def check_metrics(ncu: str, out: Path, report: dict) -> None:
    proc = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True, timeout=120)
    (out / "query-metrics.txt").write_text(proc.stdout + proc.stderr)
    listed = {}
    for name in counters.METRIC_NAMES:
        base = name.split(".")[0]
        listed[name] = bool(re.search(r"^\s*" + re.escape(base) + r"\s", proc.stdout, re.M))
        print(f"  {'listed ' if listed[name] else 'MISSING'} {name}")
    for extra in ("launch__shared_mem_per_block", "l1tex__t_bytes", "lts__t_sectors"):
        found = re.search(r"^\s*" + extra + r"\s", proc.stdout, re.M)
        print(f"  (extra) {extra}: {'listed' if found else 'not listed'}")
    report["metrics_listed"] = listed


def trace_runs(cuda, SourceModule, sm_count: int, report: dict) -> dict:
    rng = np.random.default_rng(0)
    header = (KERNELS / "trace.cuh").read_text()
    tiled_src = (KERNELS / "tiled.cu").read_text()
    traced_src = profile.instrument_source(tiled_src, "gemm_tiled", header)
    naive_src = profile.instrument_source((KERNELS / "naive.cu").read_text(), "gemm_naive", header)
    traces, stamps = {}, []
    for kind, tile, n in (
        ("naive", 16, 1000),
        ("tiled", 16, 1000),
        ("tiled", 16, 1024),
        ("tiled", 32, 1000),
        ("tiled", 16, 4096),
    ):
        src, opts = (traced_src, [f"-DTILE={tile}"]) if kind == "tiled" else (naive_src, [])
        mod = SourceModule(src, options=["-O3", *opts], no_extern_c=True)
        func = mod.get_function(f"gemm_{kind}")
        a, b, da, db, dc = gemm_inputs(cuda, n, rng)
        grid = (ceil_div(n, tile), ceil_div(n, tile), 1)
        blocks = grid[0] * grid[1]
        tbuf = cuda.mem_alloc(blocks * 4 * 8)
        cuda.memset_d8(tbuf, 0xFF, blocks * 4 * 8)
        cuda.memset_d32(dc, 0x7FC00000, n * n)  # NaN: an unwritten element fails the check
        ptr, _ = mod.get_global("gemmviz_trace")
        cuda.memcpy_htod(ptr, np.array([int(tbuf)], dtype=np.uint64))
        func(da, db, dc, np.int32(n), np.int32(n), np.int32(n), block=(tile, tile, 1), grid=grid)
        cuda.Context.synchronize()
        raw = np.empty(blocks * 4, dtype=np.uint64)
        cuda.memcpy_dtoh(raw, tbuf)
        c = np.empty((n, n), np.float32)
        cuda.memcpy_dtoh(c, dc)
        if n <= 1024:
            ref = a.astype(np.float64) @ b.astype(np.float64)
            rel = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
        else:
            rows = rng.choice(n, 64, replace=False)
            ref = a[rows].astype(np.float64) @ b.astype(np.float64)
            rel = float(np.linalg.norm(c[rows] - ref) / np.linalg.norm(ref))
        rec = raw.reshape(-1, 4)
        decoded = counters.decode_trace(raw)  # refuses missing / duplicated / misplaced blocks
        strict = bool((rec[:, 3] > rec[:, 2]).all())
        sm_ok = bool((rec[:, 1] < sm_count).all())
        s = counters.trace_summary(decoded)
        key = f"{kind}{tile}_{n}"
        traces[key] = raw
        stamps.append(rec[:, 2:].ravel())
        print(
            f"  {key}: rel.err {rel:.1e}, {blocks} blocks once each, start<end {strict}, sm<{sm_count} {sm_ok}, "
            f"SMs used {s.sms_used}, per SM {s.blocks_per_sm_min}-{s.blocks_per_sm_max}, resident/SM max "
            f"{s.max_resident_per_sm}, total max {s.max_resident_total}, waves {s.waves:.2f}, tail {s.tail_pct:.1f}%, "
            f"block median {s.block_ns_median:.0f} ns, run {s.duration_ns / 1e3:.1f} us"
        )
        report[key] = {"rel_err": rel, "blocks": blocks, "start_lt_end": strict, "sm_ok": sm_ok, **s.__dict__}
        if key == "tiled16_4096":  # what the trace costs when on: plain vs traced, median of 10
            plain = SourceModule(tiled_src, options=["-O3", "-DTILE=16"], no_extern_c=True).get_function("gemm_tiled")
            args = (da, db, dc, np.int32(n), np.int32(n), np.int32(n))
            t_plain = statistics.median(event_ms(cuda, partial(plain, *args, block=(16, 16, 1), grid=grid), 10))
            t_traced = statistics.median(event_ms(cuda, partial(func, *args, block=(16, 16, 1), grid=grid), 10))
            print(f"  tiled16 4096^3: plain {t_plain:.3f} ms, traced {t_traced:.3f} ms")
            report["trace_cost_4096"] = {"plain_ms": t_plain, "traced_ms": t_traced}
        for buf in (da, db, dc, tbuf):
            buf.free()
    all_stamps = np.unique(np.concatenate(stamps))
    d = np.diff(all_stamps)
    report["trace_stamp_min_step_ns"] = int(d[d > 0].min())
    report["trace_stamp_gcd_ns"] = int(np.gcd.reduce(d[d > 0]))
    print(
        f"  trace stamps: smallest non-zero difference {report['trace_stamp_min_step_ns']} ns, "
        f"gcd of differences {report['trace_stamp_gcd_ns']} ns"
    )
    return traces


def timer_probe(cuda, SourceModule, report: dict) -> None:
    func = SourceModule(TIMER_PROBE, options=["-O3"], no_extern_c=True).get_function("timer_probe")
    n = 1 << 16
    buf = cuda.mem_alloc(n * 8)
    func(buf, np.int32(n), block=(1, 1, 1), grid=(1, 1, 1))
    cuda.Context.synchronize()
    t = np.empty(n, np.uint64)
    cuda.memcpy_dtoh(t, buf)
    buf.free()
    d = np.diff(t.astype(np.int64))
    distinct = np.unique(t)
    steps = np.diff(distinct.astype(np.int64))
    report["probe"] = {
        "reads": n,
        "span_ns": int(t[-1] - t[0]),
        "distinct": int(distinct.size),
        "ns_per_read": float((t[-1] - t[0]) / (n - 1)),
        "min_step_ns": int(steps.min()),
        "median_step_ns": float(np.median(steps)),
        "gcd_step_ns": int(np.gcd.reduce(steps)),
        "negative_steps": int((d < 0).sum()),
    }
    print(f"  timer probe: {report['probe']}")


def bandwidth(cuda, SourceModule, sm_count: int, report: dict) -> None:
    mod = SourceModule((KERNELS / "membw.cu").read_text(), options=["-O3"], no_extern_c=True)
    l2, sh = mod.get_function("l2_read"), mod.get_function("shared_read")
    threads, grid = 256, sm_count * 8
    out = cuda.mem_alloc(grid * threads * 4)
    report["l2"] = {}
    for mib in (8, 16, 32, 64):
        n_vec = (mib << 20) // 16
        buf = cuda.mem_alloc(n_vec * 16)
        cuda.memset_d32(buf, 0x3F800000, n_vec * 4)
        reps = max(1, (4 << 30) // (n_vec * 16))  # ~4 GiB per launch
        launch = partial(l2, buf, np.uint32(n_vec), np.int32(reps), out, block=(threads, 1, 1), grid=(grid, 1, 1))
        samples = event_ms(cuda, launch, 20)
        ms = statistics.median(samples)
        gbs = n_vec * 16 * reps / (ms * 1e-3) / 1e9
        report["l2"][mib] = {"gbs": gbs, "ms": ms, "spread_ms": [min(samples), max(samples)]}
        print(
            f"  L2 read, {mib} MiB buffer x {reps}: {gbs:,.0f} GB/s (median {ms:.3f} ms of 20, {min(samples):.3f}-{max(samples):.3f})"
        )
        buf.free()
    reps = 4096
    samples = event_ms(cuda, lambda: sh(np.int32(reps), out, block=(threads, 1, 1), grid=(grid, 1, 1)), 20)
    ms = statistics.median(samples)
    gbs = grid * threads * reps * 4 * 16 / (ms * 1e-3) / 1e9
    clock_khz = cuda.Context.get_device().get_attribute(cuda.device_attribute.CLOCK_RATE)
    peak = sm_count * 128 * clock_khz * 1e3 / 1e9  # 32 banks x 4 B per clock per SM
    report["shared"] = {
        "gbs": gbs,
        "ms": ms,
        "spread_ms": [min(samples), max(samples)],
        "blocks": grid,
        "peak_gbs": peak,
    }
    print(
        f"  shared read (LDS.128, conflict-free): {gbs:,.0f} GB/s (median {ms:.3f} ms of 20); "
        f"{sm_count} SMs x 128 B x {clock_khz / 1e3:.0f} MHz = {peak:,.0f} GB/s"
    )
    out.free()


def record_ncu(ncu: str, out: Path, report: dict) -> None:
    metrics = list(counters.METRIC_NAMES)
    argv = [sys.executable, str(Path(__file__).resolve()), "--one-launch"]
    for units in ("base", "auto"):
        log = out / f"ncu-{units}.csv"
        for _attempt in range(4):
            cmd = profile.profile_command(argv, "gemm_(naive|tiled)", metrics, launch_count=2, ncu=ncu, log_file=log)
            if units == "auto":
                i = cmd.index("--print-units")
                del cmd[i : i + 2]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            text = log.read_text() if log.exists() else ""
            bad = re.search(r"Failed to find metric[s]?\s*:?\s*(\S+)", text + proc.stdout + proc.stderr)
            if bad and bad.group(1).strip('"') in metrics:
                print(f"  dropping {bad.group(1)}: ncu does not know it")
                metrics.remove(bad.group(1).strip('"'))
                continue
            break
        print(f"  ncu ({units} units) exit {proc.returncode}; {len(text)} chars; cmd: {' '.join(cmd[:14])} ...")
        if proc.returncode:
            print((proc.stdout + proc.stderr)[-3000:])
            continue
        rows = counters.parse_ncu_csv(text, metrics)
        report[f"ncu_{units}"] = rows
        for row in rows:
            print(f"  {row['kernel']} grid {row['grid']} block {row['block']}")
            for name, value in row["counters"].items():
                print(f"    {name:62s} {value!r:>22} {row['units'][name]}")
    report["metrics_used"] = metrics
    check = [
        "lts__t_bytes.sum",
        "dram__bytes_read.sum",
        "smsp__inst_executed_op_shared_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "gpu__time_duration.sum",
    ]
    log = out / "ncu-membw.csv"
    argv = [sys.executable, str(Path(__file__).resolve()), "--membw-one-launch"]
    cmd = profile.profile_command(argv, "l2_read|shared_read", check, launch_count=2, ncu=ncu, log_file=log)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode == 0 and log.exists():
        for row in counters.parse_ncu_csv(log.read_text(), check):
            print(f"  ncu {row['kernel']}: {row['counters']}")
        print(
            f"  expected: l2_read moves {16 * 4 * 2**20:,} B through L2; shared_read issues "
            f"{report['sm_count'] * 8 * 8 * 64 * 4:,} LDS.128, 4 wavefronts each"
        )
    else:
        print((proc.stdout + proc.stderr)[-2000:])
    try:
        from gemmviz.core.model import naive_traffic, tiled_traffic
        from gemmviz.core.problem import Problem

        p = Problem(1024, 1024, 1024)
        for row in report.get("ncu_base", []):
            traffic = naive_traffic(p) if "naive" in row["kernel"] else tiled_traffic(p, 16)
            comp = counters.Comparison.of(traffic, row["counters"])
            print(f"  == {row['kernel']}: model vs measured")
            for r in comp.rows:
                ratio = "-" if r.ratio is None else f"{r.ratio:.3f}"
                print(
                    f"    {r.level:14s} {r.quantity:30s} model {r.model:>16,.0f} measured {r.measured!r:>16} ratio {ratio}"
                )
            for sentence in comp.sentences:
                print(f"    - {sentence}")
            print(f"    intensities: {comp.intensities}")
    except Exception as exc:  # the recording above is what matters; the model is printed when it imports
        print(f"  (comparison skipped: {exc!r})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--one-launch", action="store_true")
    ap.add_argument("--membw-one-launch", action="store_true")
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/profile_dev"))
    args = ap.parse_args()
    if args.one_launch:
        one_launch()
        return
    if args.membw_one_launch:
        membw_one_launch()
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report: dict = {"date": "2026-11-30"}
    ncu = str(profile.find_ncu())
    version = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"== {ncu}\n{version}")
    report["ncu_version"] = version
    print("== metric names (ncu --query-metrics)")
    check_metrics(ncu, out, report)

    import pycuda.driver as cuda
    from pycuda.compiler import SourceModule

    cuda.init()
    dev = cuda.Device(0)
    sm_count = dev.get_attribute(cuda.device_attribute.MULTIPROCESSOR_COUNT)
    report["device"], report["sm_count"] = dev.name(), sm_count
    ctx = dev.make_context()
    try:
        print(f"== block trace ({dev.name()}, {sm_count} SMs)")
        traces = trace_runs(cuda, SourceModule, sm_count, report)
        timer_probe(cuda, SourceModule, report)
        print("== bandwidth")
        bandwidth(cuda, SourceModule, sm_count, report)
    finally:
        ctx.pop()
    np.savez_compressed(out / "traces.npz", **traces)
    print("== ncu")
    record_ncu(ncu, out, report)
    (out / "report.json").write_text(json.dumps(report, indent=1, default=str))
    print("== summary")
    print(
        f"  globaltimer: probe step {report['probe']['min_step_ns']} ns (median {report['probe']['median_step_ns']}), "
        f"trace stamps gcd {report['trace_stamp_gcd_ns']} ns"
    )
    l2 = ", ".join(f"{k} MiB {v['gbs']:,.0f}" for k, v in report["l2"].items())
    print(f"  L2 {l2} GB/s; shared {report['shared']['gbs']:,.0f} GB/s")


if __name__ == "__main__":
    main()
