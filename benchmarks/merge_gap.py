"""One gap file (core/hardware/gap.py) from several `gemmviz profile --gap` sessions of the same GPU: a later
session's job (variant, params, size) replaces an earlier one's, and jobs without counters are left out. The
file's command names every run, so a reader sees which run measured what.

    python benchmarks/merge_gap.py RUN1.json RUN2.json --out assets/sessions/h200-DATE-gap.json

Used on 2026-12-02 (second session): benchmarks/h200_record_2026_12_02d.sh's profile ran out of time before its
last TF32 ncu steps, and benchmarks/h200_record_2026_12_02d2.sh profiled those pairs in a run of their own
(both scripts at git 0d8610e; benchmarks/recorder.py's recipes replace them).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_h200 import job_key

from gemmviz.core.fileio import write_atomic
from gemmviz.core.hardware.gap import gap_document
from gemmviz.core.session.results import Session


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sessions", nargs="+")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    runs = [Session.load(p) for p in args.sessions]
    gpus = {s.environment.get("backends", {}).get("cuda", {}).get("name") for s in runs}
    if len(gpus) != 1 or None in gpus:
        raise SystemExit(f"the sessions are not of one GPU: {sorted(map(str, gpus))}")
    jobs: dict = {}
    commands = []
    for i, s in enumerate(runs, 1):
        kept = [r for r in s.results if r.counters]
        for r in kept:
            jobs[job_key(r)] = r
        commands.append(f"run {i} ({s.created}): {s.settings.get('command')}")
    doc = gap_document(list(jobs.values()), gpus.pop(), runs[0].created, "; ".join(commands))
    write_atomic(args.out, json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}: {len(doc['kernels'])} kernels")


if __name__ == "__main__":
    main()
