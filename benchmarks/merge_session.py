"""Merge a later run into a recorded session: its results replace the session's for the same job.

    python benchmarks/merge_session.py assets/sessions/h200-2026-11-30.json cpu4096.json --part cpu-4096

Used for the CPU loop at 4096^3 (about 8.5 minutes on the GPU machine's CPU, one command of its own:
`gemmviz bench --variants cpu-naive --sizes 4096 --repeats 1 --warmup 0 --allow-slow-cpu --seed 0 --out
cpu4096.json`): the recording's one-command budget could not hold it. The part's command is
kept in settings.merged_from under --part, so the session still says how every figure was made; both runs
must come from the same kind of machine (same GPU and CPU names), or nothing is written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_h200 import replace_jobs

from gemmviz.core.fileio import write_atomic
from gemmviz.core.session.results import Session


def carry_traces(results: list, new: list) -> int:
    """A new result without a block trace keeps the one it replaces where the kernel ran the same configuration
    (the trace is of that launch shape); returns how many were carried."""
    from record_h200 import job_key

    old = {job_key(r): r for r in results}
    carried = 0
    for r in new:
        was = old.get(job_key(r))
        if r.block_trace is None and was is not None and was.block_trace and was.config == r.config:
            r.block_trace = was.block_trace
            carried += 1
    return carried


def merge_part(base: Session, part: Session, name: str) -> tuple[Session, int]:
    for key in ("cpu", "cpu_count"):
        if base.environment.get(key) != part.environment.get(key):
            raise SystemExit(f"{key} differs: {base.environment.get(key)!r} vs {part.environment.get(key)!r}")
    gpu = lambda s: s.environment.get("backends", {}).get("cuda", {}).get("name")  # noqa: E731
    if gpu(base) != gpu(part):
        raise SystemExit(f"GPU differs: {gpu(base)!r} vs {gpu(part)!r}")
    carry_traces(base.results, part.results)
    replaced = replace_jobs(base.results, part.results)
    merged_from = dict(base.settings.get("merged_from") or {})
    merged_from[name] = part.settings.get("command")
    base.settings = {**base.settings, "merged_from": merged_from}
    return base, replaced


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("session")
    ap.add_argument("part")
    ap.add_argument("--part", dest="name", required=True, help="key under settings.merged_from")
    args = ap.parse_args()
    base, part = Session.load(args.session), Session.load(args.part)
    merged, replaced = merge_part(base, part, args.name)
    # one line, as the recording writes it (a 1.7 MB indented file would double the wheel's session)
    write_atomic(args.session, json.dumps(merged.to_dict(), allow_nan=False))
    print(f"{args.session}: {len(part.results)} result(s) merged, {replaced} replaced")


if __name__ == "__main__":
    main()
