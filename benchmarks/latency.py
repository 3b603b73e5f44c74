"""Load latency on the GPU by pointer chasing (kernels/latency.cu), the register file and shared memory per SM,
and the naive kernel's L1 hit rate from Nsight Compute: the microbenchmark the lessons quote (issue 31).

    source .device/env.sh && python3 benchmarks/latency.py --out $OUT/microbench.json   # on the GPU machine

Each latency is one thread following a chain of addresses (each load's result is the next load's address),
timed with clock64() in SM cycles, the median of 5 launches:
  register    4,096 dependent FFMAs (each uses the register the one before it wrote): cycles from an
              instruction's issue until its result can be used
  shared      4,096 loads around a 1,024-element chain in shared memory (ld.shared), after a warm pass
  L1 hit      4,096 loads around 64 lines (8 KiB) read with ld.global.ca, after a warm pass (all in L1)
  L2 hit      32,768 lines of 128 bytes (4 MiB) in random order, ld.global.cg (L1 bypassed), after a warm
              pass (all in the 50 MiB L2)
  DRAM        8,192 lines picked at random in 256 MiB, each visited once, ld.global.cg, after 512 MiB of other
              writes have pushed the chain out of L2 (every load misses L2; the chain stays within 128 pages
              of 2 MiB, so address translation adds little)
Each figure includes the loop's share (a branch per 16 loads). The L1 hit rate is ncu's
l1tex__t_sector_hit_rate.pct of gpu-naive (block 16) at 4096^3, its timed launch (gemmviz's child bench).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import shlex
import sys
from pathlib import Path

import numpy as np

LINE = 128
STEPS_SMALL = 4096


def _median_cycles(func, args, steps: int, out_buf, cuda) -> float:
    runs = []
    for _ in range(5):
        func(*args, out_buf, block=(1, 1, 1), grid=(1, 1))
        cuda.Context.synchronize()
        host = np.empty(2, dtype=np.int64)
        cuda.memcpy_dtoh(host, out_buf)
        runs.append(host[0] / steps)
    return float(np.median(runs))


def _chain_in(buf_ptr: int, offsets: np.ndarray, order: np.ndarray) -> np.ndarray:
    """uint64 words of a buffer where the word at offsets[order[i]] holds the address of offsets[order[i+1]]
    (a cycle). `offsets` are byte offsets (multiples of 8); returns the buffer's host image as uint64."""
    size = int(offsets.max()) // 8 + 1
    image = np.zeros(size, dtype=np.uint64)
    here = offsets[order]
    nxt = np.roll(here, -1)
    image[here // 8] = np.uint64(buf_ptr) + nxt.astype(np.uint64)
    return image


def measure_latencies(seed: int = 0) -> dict:
    import pycuda.autoinit
    import pycuda.driver as cuda

    from gemmviz.backends.kernel_cache import nvcc
    from gemmviz.core.paths import kernel_source

    dev = pycuda.autoinit.device
    cc = dev.compute_capability()
    cubin = nvcc(kernel_source("latency.cu"), ["-O3"], f"sm_{cc[0]}{cc[1]}", "latency.cu")
    mod = cuda.module_from_buffer(cubin)
    rng = np.random.default_rng(seed)
    out = cuda.mem_alloc(16)
    res: dict[str, float] = {}

    # register: a chain of dependent FFMAs
    f = mod.get_function("chain_ffma")
    res["register"] = _median_cycles(
        f, (np.float32(1.0001), np.float32(1e-7), np.int32(STEPS_SMALL)), STEPS_SMALL, out, cuda
    )

    # shared: a random cycle over 1,024 elements
    n = 1024
    order = rng.permutation(n)
    nxt = np.empty(n, dtype=np.uint32)
    nxt[order] = np.roll(order, -1)
    chain = cuda.to_device(nxt)
    f = mod.get_function("chase_shared")
    res["shared"] = _median_cycles(f, (chain, np.int32(n), np.int32(n), np.int32(STEPS_SMALL)), STEPS_SMALL, out, cuda)

    def global_chain(lines: int, footprint: int, visit_all_lines: bool):
        buf = cuda.mem_alloc(footprint)
        if visit_all_lines:
            picked = np.arange(lines)
        else:
            picked = np.sort(rng.choice(footprint // LINE, size=lines, replace=False))
        offsets = picked.astype(np.int64) * LINE
        order = rng.permutation(lines)
        image = _chain_in(int(buf), offsets, order)
        cuda.memcpy_htod(buf, image)
        return buf, int(buf) + int(offsets[order[0]])

    # L1 hit: 64 lines (8 KiB), ld.global.ca, warm pass first
    buf, start = global_chain(64, 64 * LINE, True)
    f = mod.get_function("chase_global_ca")
    res["l1"] = _median_cycles(f, (np.uint64(start), np.int32(256), np.int32(STEPS_SMALL)), STEPS_SMALL, out, cuda)
    buf.free()

    # L2 hit: 32,768 lines (4 MiB), ld.global.cg, one warm pass over every line first
    lines = 32768
    buf, start = global_chain(lines, lines * LINE, True)
    f = mod.get_function("chase_global_cg")
    res["l2"] = _median_cycles(f, (np.uint64(start), np.int32(lines), np.int32(lines)), lines, out, cuda)
    buf.free()

    # DRAM: 8,192 random lines of 256 MiB, each once, after 512 MiB of other writes flush L2 (per run)
    lines, footprint = 8192, 256 << 20
    buf, start = global_chain(lines, footprint, False)
    scratch = cuda.mem_alloc(512 << 20)
    runs = []
    for _ in range(5):
        cuda.memset_d32(scratch, 0, (512 << 20) // 4)
        f(np.uint64(start), np.int32(0), np.int32(lines), out, block=(1, 1, 1), grid=(1, 1))
        cuda.Context.synchronize()
        host = np.empty(2, dtype=np.int64)
        cuda.memcpy_dtoh(host, out)
        runs.append(host[0] / lines)
    res["dram"] = float(np.median(runs))
    scratch.free()
    buf.free()

    attr = cuda.device_attribute
    regs = dev.get_attribute(attr.MAX_REGISTERS_PER_MULTIPROCESSOR)
    smem = dev.get_attribute(attr.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
    clock_khz = dev.get_attribute(attr.CLOCK_RATE)
    return {
        "gpu": dev.name(),
        "latency_cycles": res,
        "registers_per_sm": regs,
        "register_file_kib_per_sm": regs * 4 / 1024,
        "shared_bytes_per_sm_max": smem,
        "clock_rate_khz": clock_khz,
    }


def naive_l1_hit_rate() -> float | None:
    """ncu's l1tex__t_sector_hit_rate.pct of gpu-naive, block 16, at 4096^3: the child bench's timed launch."""
    from gemmviz.backends.profile import ProfileError, run_profile
    from gemmviz.cli.profile import child_argv, launches_per_job, profiled_launch
    from gemmviz.core.measure.bench import plan_jobs
    from gemmviz.core.problem import Problem

    jobs = plan_jobs(["gpu-naive"], [Problem(4096, 4096, 4096)], {"block": (16,)})
    argv = child_argv(jobs, 0)
    metric = "l1tex__t_sector_hit_rate.pct"
    try:
        rows = run_profile(argv, "^gemm_naive$", [metric], launch_count=launches_per_job("ok"))
    except ProfileError as exc:
        print(f"ncu: {exc}", file=sys.stderr)
        return None
    row = rows[profiled_launch("ok")] if len(rows) > profiled_launch("ok") else rows[-1]
    return row["counters"].get(metric)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="JSON file to write (schema gemmviz-microbench)")
    ap.add_argument("--no-ncu", action="store_true", help="leave the naive kernel's L1 hit rate out")
    args = ap.parse_args()
    lat = measure_latencies()
    hit = None if args.no_ncu else naive_l1_hit_rate()
    c = lat["latency_cycles"]
    doc = {
        "schema": "gemmviz-microbench",
        "schema_version": 1,
        "gpu": lat["gpu"],
        "created": _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat(),
        "command": "python3 " + " ".join(shlex.quote(a) for a in ["benchmarks/latency.py", *sys.argv[1:]]),
        "source": "kernels/latency.cu",
        "figures": {
            "register_latency_cycles": round(c["register"], 1),
            "shared_load_latency_cycles": round(c["shared"], 1),
            "l1_hit_latency_cycles": round(c["l1"], 1),
            "l2_hit_latency_cycles": round(c["l2"], 1),
            "dram_latency_cycles": round(c["dram"], 1),
            "register_file_kib_per_sm": lat["register_file_kib_per_sm"],
            "shared_kib_per_sm_max": lat["shared_bytes_per_sm_max"] / 1024,
            "naive_l1_hit_rate_pct": None if hit is None else round(hit, 2),
        },
    }
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps(doc, indent=1))
    print(f"(clock rate attribute {lat['clock_rate_khz']} kHz; registers/SM {lat['registers_per_sm']})")


if __name__ == "__main__":
    main()
