"""The H200 recording in two device commands (benchmarks/record_h200.sh PART), and the merge of their parts.

    source .device/env.sh && bash benchmarks/record_h200.sh bench     # device call 1: $OUT/bench.json, ceilings.json
    source .device/env.sh && bash benchmarks/record_h200.sh rest      # device call 2: traces, profile, CPU loop
    python benchmarks/record_h200.py --merge DIR1 DIR2 --out assets/sessions   # here: the merged session

Parts (each a gemmviz command with its own time budget, so each device call fits in its 10 minutes):
  bench    every registry variant, 256...8192, 1000^3, 2048x3072x4096 (seed 001's M x N x K) and 2000x3000x1000,
           tiles 8/16/32, blocks 16/32, kernel-only timing
           (at least 20 samples, until the noise is under 0.5%). Nothing else runs beside it: the CPU BLAS
           baseline ran with 16 threads beside the CPU loop's background process last time and read 20 ms at
           512^3 (it takes 0.3 ms on an idle machine: benchmarks/cpu_blas_threads.py)
  ceilings `gemmviz ceilings` (DRAM copy, L2, shared, FP32 and TF32)
  cpu      the CPU triple loop at 1024^3 and 2048^3 (repeats 1, slow-CPU limit off), in the background of call 2
           (one core; the GPU samples there are kernel-only, and only their counters and traces are kept)
  trace    --trace for the seed kernels at 1000^3 and 4096^3 and the best SIMT and tensor-core kernels
  profile  `gemmviz profile` (ncu counters, the timed launch at the same clocks and cache state) for every GPU
           variant at 256^3, 1024^3 and 4096^3
`merge` combines them: timings from the bench, counters from the profile, block traces from the trace run,
the CPU loop from its own run; results the bench lacks (1000^3 traces) are added as they are. 4096^3 block
traces go to a gzip companion file, so the default session stays small.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.session.results import Result, Session
from gemmviz.core.session.workspace import session_gpu

SIZES = "256,512,1000,1024,2048,4096,8192"
# seed 001's own shape (M=2048, N=3072, K=4096) and a rectangular odd one (issue 34, item 3)
MNK = ("2048x3072x4096", "2000x3000x1000")
SEED_TRACED = [("gpu-naive", ["--block", "16,32"]), ("gpu-tiled", ["--tile", "8,16,32"])]
# seconds each part may take; the CPU part runs beside trace and profile
BUDGET_S = {"bench": int(os.environ.get("GEMMVIZ_BENCH_BUDGET_S", "470")), "trace": 90, "profile": 330, "ceilings": 60}
PROFILE_SIZES = "256,1024,4096"


def job_key(r: Result) -> tuple:
    return r.variant, tuple(sorted(r.params.items())), r.m, r.n, r.k


def replace_jobs(results: list[Result], new: list[Result]) -> int:
    """Each of `new` replaces the result for the same job in `results` (or is added); returns how many it replaced."""
    index = {job_key(r): i for i, r in enumerate(results)}
    replaced = 0
    for r in new:
        i = index.get(job_key(r))
        if i is None:
            index[job_key(r)] = len(results)
            results.append(r)
        else:
            results[i] = r
            replaced += 1
    return replaced


def merge(
    bench: Session,
    cpu: Session | None = None,
    traces: Session | None = None,
    profile: Session | None = None,
    ceilings: dict | None = None,
) -> Session:
    """One session: the bench's results (timings), each with the profile's counters and the trace run's block
    trace for the same job; the CPU loop's results replace the bench's for the same job; results of the trace
    run the bench lacks are added. Parts that are missing (a step that ran out of time) are left out."""
    results = [r for r in bench.results]
    replace_jobs(results, cpu.results if cpu else [])
    index = {job_key(r): i for i, r in enumerate(results)}
    for r in traces.results if traces else []:
        i = index.get(job_key(r))
        if i is None:
            index[job_key(r)] = len(results)
            results.append(r)
        elif r.block_trace is not None:
            results[i].block_trace = r.block_trace
    for r in profile.results if profile else []:
        i = index.get(job_key(r))
        if i is not None and r.counters is not None:
            results[i].counters = r.counters
    environment = dict(bench.environment)
    if cpu:
        environment["cpu"] = cpu.environment.get("cpu", environment.get("cpu"))
        environment["cpu_count"] = cpu.environment.get("cpu_count")
    if ceilings:
        environment["ceilings"] = ceilings
    parts = {
        "bench": bench.settings.get("command"),
        "cpu": cpu and cpu.settings.get("command"),
        "trace": traces and traces.settings.get("command"),
        "profile": profile and profile.settings.get("command"),
    }
    settings = {**bench.settings, "merged_from": {k: v for k, v in parts.items() if v}}
    return Session(
        results=results,
        environment=environment,
        settings=settings,
        created=bench.created,
        kind="measured",
        label=bench.label,
    )


def best(results: list[Result], precision: str, size: int = 4096) -> Result | None:
    """The fastest valid gemmviz kernel (not cuBLAS) of a precision at size^3."""
    mine = [
        r
        for r in results
        if r.valid
        and r.m == r.n == r.k == size
        and r.backend == "cuda"
        and r.precision == precision
        and VARIANTS[r.variant].runner != "cublas"
    ]
    return max(mine, key=lambda r: r.gflops or 0, default=None)


def _gemmviz(args: list[str], log: Path, budget_s: float) -> int:
    cmd = [sys.executable, "-m", "gemmviz", *args]
    t0 = time.monotonic()
    with log.open("a") as f:
        f.write(f"$ {' '.join(cmd)}\n")
        f.flush()
        try:
            code = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=budget_s).returncode
        except subprocess.TimeoutExpired:
            code = 124
        f.write(f"# exit {code} after {time.monotonic() - t0:.0f} s\n")
    print(f"{args[0]} {' '.join(a for a in args[1:3])}: exit {code}, {time.monotonic() - t0:.0f} s", flush=True)
    return code


def _load(path: Path) -> Session | None:
    try:
        return Session.load(path)
    except Exception as exc:  # a step that ran out of time leaves no file or a partial one: merge the rest
        print(f"(skipping {path.name}: {exc})", flush=True)
        return None


def bench_args(variants: list[str], sizes: str, mnk: tuple[str, ...], out: Path) -> list[str]:
    """`gemmviz bench`'s arguments for the recording's protocol: tiles 8/16/32, blocks 16/32, 20 repeats, 3
    warm-ups, seed 0, kernel-only timing (the default), the session written to `out`."""
    shapes = [arg for shape in mnk for arg in ("--mnk", shape)]
    protocol = ["--tile", "8,16,32", "--block", "16,32", "--repeats", "20", "--warmup", "3", "--seed", "0"]
    return [
        "bench",
        "--variants",
        ",".join(variants),
        "--sizes",
        sizes,
        *shapes,
        *protocol,
        "--quiet",
        "--out",
        str(out),
    ]


def record_bench(out: Path, ceilings: bool = True) -> None:
    log = out / "record.log"
    _gemmviz(bench_args(list(VARIANTS), SIZES, MNK, out / "bench.json"), log, BUDGET_S["bench"])
    if ceilings:
        _gemmviz(["ceilings", "--save-to", str(out / "ceilings.json")], log, BUDGET_S["ceilings"])


def record_rest(out: Path, bench: Session | None) -> None:
    log = out / "record.log"
    gpu_variants = [v.name for v in VARIANTS.values() if v.backend == "cuda"]
    cpu_log = (out / "cpu.log").open("w")
    cpu = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gemmviz",
            "bench",
            "--variants",
            "cpu-naive",
            "--sizes",
            "1024,2048",
            "--repeats",
            "1",
            "--warmup",
            "0",
            "--allow-slow-cpu",
            "--quiet",
            "--seed",
            "0",
            "--out",
            str(out / "cpu.json"),
        ],
        stdout=cpu_log,
        stderr=subprocess.STDOUT,
    )
    traced = list(SEED_TRACED)
    for precision in ("fp32", "tf32"):
        top = bench and best(bench.results, precision)
        if top and top.variant not in dict(traced):
            traced.append((top.variant, []))
    for n, (variant, grid) in enumerate(traced):
        path = out / f"trace{n}.json"
        _gemmviz(
            [
                "bench",
                "--variants",
                variant,
                "--sizes",
                "1000,4096",
                *grid,
                "--repeats",
                "5",
                "--warmup",
                "1",
                "--max-time",
                "0.05",
                "--trace",
                "--seed",
                "0",
                "--quiet",
                "--out",
                str(path),
            ],
            log,
            BUDGET_S["trace"] / len(traced),
        )
    _gemmviz(
        [
            "profile",
            "--variants",
            ",".join(gpu_variants),
            "--sizes",
            PROFILE_SIZES,
            "--repeats",
            "20",
            "--warmup",
            "3",
            "--seed",
            "0",
            "--quiet",
            "--out",
            str(out / "profile.json"),
        ],
        log,
        BUDGET_S["profile"],
    )
    try:
        cpu.wait(timeout=90)
    except subprocess.TimeoutExpired:
        cpu.kill()
    cpu_log.close()


DURATION_KEYS = ("gpu__time_duration.sum", "gemmviz__call_time_duration.sum")


def apply_durations(results: list[Result], durations: Session) -> int:
    """Each result's ncu duration from a `gemmviz profile --duration-only` run (one replay pass per launch)
    instead of the counters run's (replayed among 19 metrics); returns how many were replaced."""
    by = {job_key(r): r for r in durations.results if r.counters}
    replaced = 0
    for r in results:
        d = by.get(job_key(r))
        if r.counters is None or d is None:
            continue
        for key in DURATION_KEYS:
            if d.counters.get(key) is not None:
                r.counters[key] = d.counters[key]
        replaced += 1
    return replaced


def merge_parts(
    first: Path, second: Path, out: Path, previous: Path | None = None, durations: Path | None = None
) -> Path:
    """The session from the two device calls' folders. `previous`: an earlier recording whose CPU loop at
    4096^3 (8.5 minutes, a device call of its own) is carried over, named in settings.merged_from."""
    bench = _load(first / "bench.json")
    if bench is None:
        raise SystemExit("the bench step wrote no session: nothing to merge (see record.log)")
    traces = merge_traces([t for t in (_load(p) for p in sorted(second.glob("trace*.json"))) if t])
    ceilings_file = first / "ceilings.json"
    ceilings = json.loads(ceilings_file.read_text()) if ceilings_file.exists() else None
    merged = merge(bench, _load(second / "cpu.json"), traces, _load(second / "profile.json"), ceilings)
    if durations is not None:
        d = Session.load(durations)
        n = apply_durations(merged.results, d)
        merged.settings["merged_from"]["profile-duration"] = f"{d.settings.get('command')} ({n} durations)"
    if previous is not None:
        old = Session.load(previous)
        carried = [r for r in old.results if r.variant == "cpu-naive" and r.m == r.n == r.k == 4096 and r.valid]
        if carried and old.environment.get("cpu") == merged.environment.get("cpu"):
            replace_jobs(merged.results, carried)
            merged.settings["merged_from"]["cpu-4096"] = (
                f"carried over from {previous.name} (the same CPU; the host's clock times the CPU loop, which the "
                f"new GPU timing does not change): {(old.settings.get('merged_from') or {}).get('cpu-4096')}"
            )
    day = merged.created[:10] or _dt.date.today().isoformat()
    traced = [r for r in merged.results if r.block_trace is not None and r.m == r.n == r.k == 4096]
    companion = Session(
        results=[dataclasses.replace(r) for r in traced],
        environment=merged.environment,
        settings=merged.settings,
        created=merged.created,
        kind="measured",
        label=f"H200 {day}: 4096³ block traces",
    )
    for r in traced:  # the default session keeps the result, its 4096^3 trace lives in the companion
        r.block_trace = None
    path = out / f"h200-{day}.json"
    from gemmviz.core.fileio import write_atomic

    write_atomic(path, json.dumps(merged.to_dict(), allow_nan=False))
    import gzip

    write_atomic(
        out / f"h200-{day}-traces-4096.json.gz",
        gzip.compress(json.dumps(companion.to_dict(), allow_nan=False).encode(), mtime=0),
    )
    with_counters = sum(r.counters is not None for r in merged.results)
    with_trace = sum(r.block_trace is not None for r in merged.results)
    print(
        f"{path.name}: {len(merged.results)} results, {with_counters} with counters, {with_trace} with traces; "
        f"{len(companion.results)} 4096³ traces in the companion"
    )
    return path


def merge_traces(sessions: list[Session]) -> Session | None:
    if not sessions:
        return None
    first = sessions[0]
    return Session(
        results=[r for s in sessions for r in s.results],
        environment=first.environment,
        settings=first.settings,
        created=first.created,
    )


def replace_rungs(shipped: Session, rungs: Session) -> Session:
    """The shipped session with the results of the rungs that changed since it was recorded measured again (the
    recorder's `rungs` recipe: the same protocol and sizes, their cuBLAS baselines beside them). Only a run on
    the same GPU model, driver and protocol may replace results; every other result is kept as recorded.
    settings.rerecorded names what was replaced, by which command and when, so the session says its results
    come from two runs."""
    if session_gpu(shipped) != session_gpu(rungs):
        raise SystemExit(f"the rungs ran on {session_gpu(rungs)}, the session on {session_gpu(shipped)}: not merged")
    old_cuda = (shipped.environment.get("backends") or {}).get("cuda") or {}
    new_cuda = (rungs.environment.get("backends") or {}).get("cuda") or {}
    stack = ("driver_cuda_version", "cublas_version", "pycuda_cuda_version", "sms", "max_sm_clock_mhz")
    moved = [f"{k} {new_cuda.get(k)} against {old_cuda.get(k)}" for k in stack if old_cuda.get(k) != new_cuda.get(k)]
    if moved:
        raise SystemExit(f"the rungs ran on another stack ({'; '.join(moved)}): not merged")
    protocol = ("warmup", "repeats", "timing", "max_noise", "max_samples", "max_time_s", "cold_l2", "seed")
    differ = [k for k in protocol if shipped.settings.get(k) != rungs.settings.get(k)]
    if differ:
        raise SystemExit(f"the rungs ran another protocol ({', '.join(differ)}): not merged")
    results = list(shipped.results)
    replaced = replace_jobs(results, rungs.results)
    variants = sorted({r.variant for r in rungs.results})
    settings = dict(shipped.settings)
    settings["rerecorded"] = [
        *(settings.get("rerecorded") or []),
        {
            "created": rungs.created,
            "variants": variants,
            "command": rungs.settings.get("command"),
            "results": len(rungs.results),
            "replaced": replaced,
        },
    ]
    return Session(
        results=results,
        environment=shipped.environment,
        settings=settings,
        created=shipped.created,
        kind=shipped.kind,
        label=shipped.label,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("bench", "rest"), help="the device call to make")
    ap.add_argument("--bench", help="rest: bench.json of call 1 (picks the best kernels to trace)")
    ap.add_argument("--merge", nargs=2, metavar=("CALL1", "CALL2"), help="folders the two device calls wrote")
    ap.add_argument("--previous", help="merge: an earlier recording whose CPU loop at 4096^3 is carried over")
    ap.add_argument("--durations", help="merge: a `gemmviz profile --duration-only` session (ncu's duration alone)")
    ap.add_argument("--out", required=True, help="folder for the parts and logs, or for the merged session")
    ap.add_argument("--no-ceilings", action="store_true", help="bench: leave `gemmviz ceilings` out")
    ap.add_argument(
        "--replace",
        nargs=2,
        metavar=("SESSION", "RUNGS"),
        help="a shipped session and the recorder's rungs.json: the session with those rungs measured again, as --out",
    )
    args = ap.parse_args()
    out = Path(args.out)
    if args.replace:
        from gemmviz.core.fileio import write_atomic

        merged = replace_rungs(Session.load(Path(args.replace[0])), Session.load(Path(args.replace[1])))
        write_atomic(out, json.dumps(merged.to_dict(), allow_nan=False, indent=1) + "\n")
        print(f"{out}: {merged.settings['rerecorded'][-1]}")
        return
    out.mkdir(parents=True, exist_ok=True)
    if args.merge:
        merge_parts(
            Path(args.merge[0]),
            Path(args.merge[1]),
            out,
            Path(args.previous) if args.previous else None,
            Path(args.durations) if args.durations else None,
        )
    elif args.part == "bench":
        record_bench(out, ceilings=not args.no_ceilings)
    elif args.part == "rest":
        record_rest(out, _load(Path(args.bench)) if args.bench else None)
    else:
        ap.error("give --part bench, --part rest or --merge")


if __name__ == "__main__":
    main()
