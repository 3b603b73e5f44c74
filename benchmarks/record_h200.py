"""The H200 recording for issue 14 in one device command (benchmarks/record_h200.sh), and the merge of its parts.

    source .device/env.sh && bash benchmarks/record_h200.sh        # writes $OUT/h200-<date>.json + logs

Parts (each a gemmviz command, each with its own time budget so the whole fits in 9 minutes):
  cpu      the CPU triple loop at 1024^3 and 2048^3 (repeats 1, slow-CPU limit off), in the background from
           the start (one core; the GPU jobs are event-timed, so it does not disturb them)
  bench    every registry variant, 256...8192 and 2048x4096x3072, tiles 8/16/32, blocks 16/32, repeats 20
  trace    --trace for the seed kernels at 1000^3 and 4096^3 and the best SIMT and tensor-core kernels
  profile  `gemmviz profile` (ncu counters) for every GPU variant at 1024^3 and 4096^3
  ceilings `gemmviz ceilings` (DRAM copy, L2, shared, FP32 and TF32)
`merge` combines them: timings from the bench, counters from the profile, block traces from the trace run,
the CPU loop from its own run; results the bench lacks (1000^3 traces) are added as they are.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import subprocess
import sys
import time
from pathlib import Path

from gemmviz.core.results import Result, Session
from gemmviz.core.variants import VARIANTS

SIZES = "256,512,1024,2048,4096,8192"
MNK = "2048x4096x3072"
SEED_TRACED = [("gpu-naive", ["--block", "16,32"]), ("gpu-tiled", ["--tile", "8,16,32"])]
# seconds each part may take; the CPU part runs beside the others
BUDGET_S = {"bench": 250, "trace": 70, "profile": 150, "ceilings": 50}


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


def merge(bench: Session, cpu: Session | None = None, traces: Session | None = None,
          profile: Session | None = None, ceilings: dict | None = None) -> Session:  # fmt: skip
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
    parts = {"bench": bench.settings.get("command"), "cpu": cpu and cpu.settings.get("command"),
             "trace": traces and traces.settings.get("command"),
             "profile": profile and profile.settings.get("command")}  # fmt: skip
    settings = {**bench.settings, "merged_from": {k: v for k, v in parts.items() if v}}
    return Session(results=results, environment=environment, settings=settings, created=bench.created,
                   kind="measured", label=bench.label)  # fmt: skip


def best(results: list[Result], precision: str, size: int = 4096) -> Result | None:
    """The fastest valid gemmviz kernel (not cuBLAS) of a precision at size^3."""
    mine = [r for r in results if r.valid and r.m == r.n == r.k == size and r.backend == "cuda"
            and r.precision == precision and VARIANTS[r.variant].runner != "cublas"]  # fmt: skip
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


def record(out: Path) -> Path:
    log = out / "record.log"
    gpu_variants = [v.name for v in VARIANTS.values() if v.backend == "cuda"]
    cpu_log = (out / "cpu.log").open("w")
    cpu = subprocess.Popen([sys.executable, "-m", "gemmviz", "bench", "--variants", "cpu-naive", "--sizes",
                            "1024,2048", "--repeats", "1", "--warmup", "0", "--allow-slow-cpu", "--quiet",
                            "--seed", "0", "--out", str(out / "cpu.json")], stdout=cpu_log, stderr=subprocess.STDOUT)  # fmt: skip
    _gemmviz(["bench", "--variants", ",".join(VARIANTS), "--sizes", SIZES, "--mnk", MNK, "--tile", "8,16,32",
              "--block", "16,32", "--repeats", "20", "--warmup", "3", "--seed", "0", "--quiet",
              "--out", str(out / "bench.json")], log, BUDGET_S["bench"])  # fmt: skip
    bench = _load(out / "bench.json")
    traced = list(SEED_TRACED)
    for precision in ("fp32", "tf32"):
        top = bench and best(bench.results, precision)
        if top and top.variant not in dict(traced):
            traced.append((top.variant, []))
    traces = []
    for n, (variant, grid) in enumerate(traced):
        path = out / f"trace{n}.json"
        _gemmviz(["bench", "--variants", variant, "--sizes", "1000,4096", *grid, "--repeats", "5", "--warmup",
                  "1", "--trace", "--seed", "0", "--quiet", "--out", str(path)], log, BUDGET_S["trace"] / len(traced))  # fmt: skip
        traces.append(_load(path))
    _gemmviz(["profile", "--variants", ",".join(gpu_variants), "--sizes", "1024,4096", "--repeats", "3",
              "--warmup", "1", "--quiet", "--out", str(out / "profile.json")], log, BUDGET_S["profile"])  # fmt: skip
    _gemmviz(["ceilings", "--save-to", str(out / "ceilings.json")], log, BUDGET_S["ceilings"])
    try:
        cpu.wait(timeout=60)
    except subprocess.TimeoutExpired:
        cpu.kill()
    cpu_log.close()
    if bench is None:
        raise SystemExit("the bench step wrote no session: nothing to merge (see record.log)")
    trace = merge_traces([t for t in traces if t])
    ceilings = json.loads((out / "ceilings.json").read_text()) if (out / "ceilings.json").exists() else None
    merged = merge(bench, _load(out / "cpu.json"), trace, _load(out / "profile.json"), ceilings)
    path = out / f"h200-{_dt.date.today().isoformat()}.json"
    merged.save(path)
    with_counters = sum(r.counters is not None for r in merged.results)
    with_trace = sum(r.block_trace is not None for r in merged.results)
    print(f"{path.name}: {len(merged.results)} results, {with_counters} with counters, {with_trace} with traces")
    return path


def merge_traces(sessions: list[Session]) -> Session | None:
    if not sessions:
        return None
    first = sessions[0]
    return Session(results=[r for s in sessions for r in s.results], environment=first.environment,
                   settings=first.settings, created=first.created)  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for the parts, the logs and the merged session")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    record(out)


if __name__ == "__main__":
    main()
