"""The 2026-12-02 H200 session: the bench of benchmarks/h200_record_2026_12_02.sh at git 0d8610e (every registry variant, kernel-only
timing, 256-8192, 1000^3 and seed 001's 2048x3072x4096), merged with what 2026-12-01's recording measured and this
day's device time could not measure again, each carried part named in settings.merged_from:

  - Nsight Compute counters and block traces of 2026-12-01 for the same job (variant, params, size) run with the
    same configuration (a kernel whose configuration changed, gpu-wgmma-tf32 now CLUSTER=2, and the new
    gpu-cpasync-any get none); 2048x4096x3072 and 4096^3 traces go where they went (4096^3 to the gzip companion);
  - the CPU triple loop at 2048^3 and 4096^3 (the bench refuses a slow CPU loop there; 2026-12-01's runs carried);
  - the ceilings (gemmviz ceilings) of 2026-12-01.
Rows of a shape the bench did not finish for every variant (its 400 s budget ran out in 2000x3000x1000) are left out.

    python benchmarks/rerecord_h200.py BENCH.json --out assets/sessions
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import gzip
import json
from pathlib import Path

from gemmviz.core.fileio import write_atomic
from gemmviz.core.session.results import Session

HERE = Path(__file__).resolve().parents[1]
OLD = HERE / "assets" / "sessions" / "h200-2026-12-01.json"
OLD_TRACES = HERE / "assets" / "sessions" / "h200-2026-12-01-traces-4096.json.gz"


def key(r) -> tuple:
    return r.variant, tuple(sorted(r.params.items())), r.m, r.n, r.k


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    bench = Session.load(Path(args.bench))
    old, old_traces = Session.load(OLD), Session.load(OLD_TRACES)

    variants = {r.variant for r in bench.results}
    by_shape = collections.defaultdict(set)
    for r in bench.results:
        by_shape[(r.m, r.n, r.k)].add(r.variant)
    partial = sorted(s for s, v in by_shape.items() if v != variants)
    results = [r for r in bench.results if (r.m, r.n, r.k) not in partial]

    old_by = {key(r): r for r in old.results}
    for r in old_traces.results:
        if r.block_trace is not None and key(r) in old_by:
            old_by[key(r)] = dataclasses.replace(old_by[key(r)], block_trace=r.block_trace)
    counters = traces = 0
    carried_cpu = []
    for i, r in enumerate(results):
        o = old_by.get(key(r))
        if o is None:
            continue
        if r.variant == "cpu-naive" and not r.valid and o.valid:
            results[i] = o
            carried_cpu.append(f"{r.m}³")
            continue
        if (r.config or {}) != (o.config or {}) or not r.valid:
            continue
        if o.counters:
            r.counters = dict(o.counters)
            counters += 1
        if o.block_trace is not None:
            r.block_trace = o.block_trace
            traces += 1

    environment = dict(bench.environment)
    environment["ceilings"] = old.environment.get("ceilings")
    old_from = old.settings.get("merged_from") or {}
    settings = dict(bench.settings)
    settings["merged_from"] = {
        "bench": bench.settings.get("command"),
        "profile": f"carried over from {OLD.name} for {counters} jobs of the same variant, params, size and "
        f"configuration: {old_from.get('profile')}",
        "profile-duration": f"carried over from {OLD.name}: {old_from.get('profile-duration')}",
        "trace": f"carried over from {OLD.name} for {traces} jobs of the same variant, params, size and "
        f"configuration: {old_from.get('trace')}",
        "cpu": f"carried over from {OLD.name} ({', '.join(carried_cpu)}): {old_from.get('cpu')}; "
        f"{old_from.get('cpu-4096')}",
        "ceilings": f"carried over from {OLD.name} (gemmviz ceilings on the H200, 2026-12-01)",
    }
    if partial:
        settings["merged_from"]["left out"] = (
            "rows of " + ", ".join("x".join(map(str, s)) for s in partial) + ": the bench's 400 s budget ran out "
            "before every variant had run there"
        )
    merged = Session(
        results=results,
        environment=environment,
        settings=settings,
        created=bench.created,
        kind="measured",
        label=bench.label,
    )
    day = merged.created[:10]
    traced = [r for r in merged.results if r.block_trace is not None and r.m == r.n == r.k == 4096]
    companion = Session(
        results=[dataclasses.replace(r) for r in traced],
        environment=merged.environment,
        settings=merged.settings,
        created=merged.created,
        kind="measured",
        label=f"H200 {day}: 4096³ block traces",
    )
    for r in traced:
        r.block_trace = None
    out = Path(args.out)
    path = out / f"h200-{day}.json"
    write_atomic(path, json.dumps(merged.to_dict(), allow_nan=False))
    write_atomic(
        out / f"h200-{day}-traces-4096.json.gz",
        gzip.compress(json.dumps(companion.to_dict(), allow_nan=False).encode(), mtime=0),
    )
    print(
        f"{path.name}: {len(merged.results)} results ({len(partial)} partial shapes left out: {partial}), "
        f"{counters} with carried counters, {traces} with carried traces ({len(traced)} at 4096³ in the companion), "
        f"CPU loop carried at {carried_cpu}"
    )


if __name__ == "__main__":
    main()
