"""Make the shipped access-record file (assets/sessions/accesses/h200-DATE-accesses.json.gz) from what
benchmarks/record_accesses.sh recorded on the GPU machine (its accesses.tar.gz, unpacked).

    python tools/ship_accesses.py UNPACKED_FOLDER assets/sessions/accesses/h200-2026-12-01-accesses.json.gz [--keep N]
        [--rederive raw/wgmma_tf32-0=gpu-wgmma-tf32 ...]

Every trace keeps its totals from all its recorded requests; only the first N requests of each traced block
stay in detail (default 6000: the first k-steps of every warp), and the first 32 of each instruction (every
warp's final store): 0.7 MB for the whole file.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gemmviz.core.hardware.accesses import AccessFile, keep_first, load_file, save_file

FILES = ("s1024", "s1000", "rungs1024")  # benchmarks/record_accesses.sh's profiles, in this order


def rederive(trace, folder: Path):
    """The trace again from the tracer's own files of the same launch (kept by GEMMVIZ_ACCESS_KEEP: trace.json,
    trace.bin, trace.sass), by this version's rules (e.g. naming C among the allocations), with the ncu
    counters recorded beside it."""
    from gemmviz.backends.accesses import parse_nvdisasm, read_trace
    from gemmviz.core.hardware.accesses import from_raw

    raw = read_trace(folder / "trace", trace.kernel)
    listing = parse_nvdisasm((folder / "trace.sass").read_text()) if (folder / "trace.sass").is_file() else {}
    code = listing.get(trace.kernel) or (next(iter(listing.values())) if len(listing) == 1 else {})
    again = from_raw(raw.header, raw.records, code, trace.variant, trace.mnk, trace.params)
    again.ncu = trace.ncu
    return again


def main(argv: list[str]) -> int:
    folder, out = Path(argv[0]), Path(argv[1])
    keep = int(argv[argv.index("--keep") + 1]) if "--keep" in argv else 6000
    loaded = [
        load_file(folder / f"{name}.accesses.json.gz")
        for name in FILES
        if (folder / f"{name}.accesses.json.gz").is_file()
    ]
    again = dict(item.split("=", 1)[::-1] for i, item in enumerate(argv) if i and argv[i - 1] == "--rederive")
    traces = [rederive(t, folder / again[t.variant]) if t.variant in again else t for f in loaded for t in f.traces]
    traces = [keep_first(t, keep, per_pc=32) for t in traces]  # and every warp's final store
    merged = AccessFile(loaded[0].gpu, loaded[0].date, " ; ".join(f.command for f in loaded), traces)
    save_file(merged, out)
    print(f"{out}: {len(traces)} traces, {out.stat().st_size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
