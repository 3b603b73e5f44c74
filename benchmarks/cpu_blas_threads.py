"""Why did the H200 host's CPU BLAS take 20 ms at 512^3 (and exactly 4.0 / 20.0 / 44.0 ms)? Time numpy's matmul
at several sizes and BLAS thread counts, and print what the machine offers (CPUs, affinity, cgroup quota).

    python3 benchmarks/cpu_blas_threads.py
"""

import os
import statistics
import time

import numpy as np

from gemmviz.backends.blas_threads import blas_threads, set_blas_threads


def main() -> None:
    print("os.cpu_count", os.cpu_count(), "affinity", len(os.sched_getaffinity(0)))
    for f in ("/sys/fs/cgroup/cpu.max", "/sys/fs/cgroup/cpu/cpu.cfs_quota_us"):
        if os.path.exists(f):
            print(f, open(f).read().strip())
    print("BLAS threads now:", blas_threads())
    rng = np.random.default_rng(0)
    for n in (256, 512, 1024, 2048):
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        c = np.empty((n, n), np.float32)
        row = []
        for threads in (1, 2, 4, 8, 16, None):
            if threads is not None and not set_blas_threads(threads):
                row.append("n/a")
                continue
            if threads is None:
                set_blas_threads(os.cpu_count())
            for _ in range(3):
                np.matmul(a, b, out=c)
            t = []
            for _ in range(10):
                t0 = time.perf_counter()
                np.matmul(a, b, out=c)
                t.append((time.perf_counter() - t0) * 1e3)
            row.append(f"{threads or 'all'}:{statistics.median(t):.2f}ms(min {min(t):.2f})")
        print(n, " ".join(row), flush=True)


if __name__ == "__main__":
    main()
