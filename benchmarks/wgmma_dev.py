"""Development harness for kernels/wgmma_tf32.cu: build, verify and time configurations beside cuBLAS TF32.

Runs on the GPU machine (see /work/shared/device/README.md), standalone: its own PyCUDA context in the
main thread, cuBLAS through ctypes in the same process, the kernel through gemmviz.backends.hopper.

  python3 benchmarks/wgmma_dev.py --configs "bm=256 stages=4;bm=256 stages=4 cluster=2" \
      --check 37x53x71,1000 --time 2048,4096,8192 --repeats 50 [--batch 10] --out $OUT/wgmma.json

Config keys are WgmmaConfig's fields (bm, consumers, stages, group_m, b_regs, depth, cluster).

Protocol: fresh random inputs per size (standard normal), output poisoned with NaN before every checked
run, float64 reference on the CPU (all rows up to 4096³, 1024 random rows above), pass if
‖C − ref‖/‖ref‖ < 5e-3 and nothing is left NaN; a configuration that fails is never timed. Timing: CUDA
events around each launch (or --batch launches), 5 warm-up launches, the median of --repeats samples, all
entries sampled in turn within each round; the inputs stay in L2 where they fit, for cuBLAS and the kernel
alike. After timing, each kernel is checked once more and must
reproduce its first result bit for bit (a moving result means a race).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from gemmviz.backends.hopper import WgmmaConfig, WgmmaKernel  # noqa: E402

SOURCE = ROOT / "kernels" / "wgmma_tf32.cu"
TOLERANCE = 5e-3


def parse_config(text: str) -> WgmmaConfig:
    fields = {}
    for item in text.split():
        key, value = item.split("=")
        fields[key] = bool(int(value)) if key == "b_regs" else int(value)
    return WgmmaConfig(**fields)


def parse_size(text: str) -> tuple[int, int, int]:
    parts = [int(x) for x in text.lower().split("x")]
    return (parts[0],) * 3 if len(parts) == 1 else tuple(parts)


def compile_config(cfg: WgmmaConfig, folder: str) -> tuple[WgmmaConfig, bytes, str]:
    out = os.path.join(folder, cfg.tag + ".cubin")
    cmd = ["nvcc", "-cubin", *cfg.nvcc_options(), "-Xptxas", "-v", "-o", out, str(SOURCE)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"nvcc failed for {cfg.tag}:\n{proc.stderr}")
    lines = proc.stderr.splitlines()
    # Report only the gemm kernel's registers/spills and any warning.
    keep = [ln.strip() for ln in lines if "C75" in ln or "warning" in ln.lower()]
    after = False
    for ln in lines:
        if "Function properties for wgmma_tf32" in ln:
            after = True
        elif after and ("spill" in ln or "Used" in ln):
            keep.append(ln.strip())
    return cfg, Path(out).read_bytes(), " | ".join(keep)


class Cublas:
    def __init__(self) -> None:
        lib = ctypes.CDLL("libcublas.so.13")
        lib.cublasCreate_v2.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        lib.cublasDestroy_v2.argtypes = [ctypes.c_void_p]
        lib.cublasSetMathMode.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.cublasSgemm_v2.argtypes = [
            ctypes.c_void_p,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_float),
            ctypes.c_void_p,
            ctypes.c_int,
            ctypes.c_void_p,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_float),
            ctypes.c_void_p,
            ctypes.c_int,
        ]
        self.lib = lib
        self.handle = ctypes.c_void_p()
        self._check(lib.cublasCreate_v2(ctypes.byref(self.handle)), "cublasCreate")
        self._check(lib.cublasSetMathMode(self.handle, 3), "cublasSetMathMode")  # CUBLAS_TF32_TENSOR_OP_MATH
        self.alpha, self.beta = ctypes.c_float(1.0), ctypes.c_float(0.0)

    @staticmethod
    def _check(rc: int, what: str) -> None:
        if rc:
            raise RuntimeError(f"{what} failed: {rc}")

    def launcher(self, a: int, b: int, c: int, m: int, n: int, k: int):
        pa, pb, pc = ctypes.c_void_p(a), ctypes.c_void_p(b), ctypes.c_void_p(c)

        def launch() -> None:
            # Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: swap the operands, no transposes.
            self._check(
                self.lib.cublasSgemm_v2(
                    self.handle, 0, 0, n, m, k, ctypes.byref(self.alpha), pb, n, pa, k, ctypes.byref(self.beta), pc, n
                ),
                "cublasSgemm",
            )

        return launch

    def close(self) -> None:
        self.lib.cublasDestroy_v2(self.handle)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", default="bm=256 stages=4", help="';'-separated, each 'key=value ...'")
    ap.add_argument("--check", default="37x53x71,1000", help="sizes verified only (MxNxK or N)")
    ap.add_argument("--time", default="2048,4096,8192", help="sizes verified and timed")
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--batch", type=int, default=1, help="launches per timed sample (sample = their mean)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="JSON file for every figure")
    args = ap.parse_args()

    configs = [parse_config(t) for t in args.configs.split(";") if t.strip()]
    check_sizes = [parse_size(s) for s in args.check.split(",") if s]
    time_sizes = [parse_size(s) for s in args.time.split(",") if s]

    with tempfile.TemporaryDirectory() as folder, concurrent.futures.ThreadPoolExecutor(8) as pool:
        built = list(pool.map(lambda c: compile_config(c, folder), configs))
    for cfg, _, report in built:
        print(f"build {cfg.tag}: {report}")

    import pycuda.driver as cuda

    cuda.init()
    dev = cuda.Device(0)
    ctx = dev.make_context()
    records = []
    try:
        print(f"device: {dev.name()}  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
        kernels = [(cfg, WgmmaKernel(cubin, cfg)) for cfg, cubin, _ in built]
        blas = Cublas()
        rng = np.random.default_rng(args.seed)
        for size in check_sizes + time_sizes:
            timed = size in time_sizes
            records += run_size(cuda, size, timed, kernels, blas, rng, args.repeats, args.batch)
        blas.close()
        for _, kern in kernels:
            kern.unload()
    finally:
        ctx.pop()

    print()
    print(f"{'size':>16} {'config':<28} {'ms':>9} {'TFLOP/s':>8} {'%cuBLAS':>8} {'rel.err':>9}  note")
    for r in records:
        ms = f"{r['median_ms']:.4f}" if r.get("median_ms") else "-"
        tf = f"{r['tflops']:.1f}" if r.get("tflops") else "-"
        pct = f"{r['pct_cublas']:.1f}" if r.get("pct_cublas") else "-"
        print(f"{r['size']:>16} {r['config']:<28} {ms:>9} {tf:>8} {pct:>8} {r['rel_err']:>9.2e}  {r['note']}")
    if args.out:
        Path(args.out).write_text(json.dumps({"records": records, "builds": [b[2] for b in built]}, indent=1))
    return 0 if all(r["ok"] for r in records) else 1


def run_size(cuda, size, timed, kernels, blas, rng, repeats, batch):
    m, n, k = size
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    # TMA needs 16-byte row pitches: pad A to K and B to N multiples of 4 (outside the timed region).
    lda, ldb = -(-k // 4) * 4, -(-n // 4) * 4
    a_dev = cuda.to_device(np.pad(a, ((0, 0), (0, lda - k))) if lda != k else a)
    b_dev = cuda.to_device(np.pad(b, ((0, 0), (0, ldb - n))) if ldb != n else b)
    plain_b = cuda.to_device(b) if ldb != n else b_dev  # cuBLAS and transpose_kn read B with pitch n
    plain_a = cuda.to_device(a) if lda != k else a_dev
    c_dev = cuda.mem_alloc(4 * m * n)
    bt_dev = cuda.mem_alloc(4 * n * lda)

    rows = np.arange(m) if m * n * k <= 4096**3 else np.sort(rng.choice(m, 1024, replace=False))
    ref = a[rows].astype(np.float64) @ b.astype(np.float64)
    flop = 2.0 * m * n * k
    label = f"{m}x{n}x{k}"
    out = []

    def check(launch):
        cuda.memset_d32(c_dev, 0x7FC00000, m * n)  # NaN
        launch()
        cuda.Context.synchronize()
        c = cuda.from_device(c_dev, (m, n), np.float32)
        unwritten = int(np.isnan(c).sum())
        err = float(np.linalg.norm(c[rows] - ref) / np.linalg.norm(ref))
        return c, unwritten, err

    def free():
        for buf in {id(x): x for x in (a_dev, b_dev, c_dev, bt_dev, plain_a, plain_b)}.values():
            buf.free()
        return []

    entries = [("cublas-tf32", blas.launcher(int(plain_a), int(plain_b), int(c_dev), m, n, k))]
    for cfg, kern in kernels:
        try:
            if cfg.b_regs:
                launch = kern.launcher(int(a_dev), int(b_dev), int(c_dev), m, n, k, lda=lda, ldb=ldb)
            else:  # transpose_kn reads B with pitch n and writes Bt with pitch lda
                launch = kern.launcher(
                    int(a_dev), int(plain_b), int(c_dev), m, n, k, lda=lda, ldb=n, bt=int(bt_dev), ldbt=lda
                )
        except Exception as exc:  # a config that cannot launch is a failed record, not a crash
            out.append(dict(size=label, config=cfg.tag, ok=False, rel_err=float("nan"), note=f"setup: {exc}"))
            continue
        entries.append((cfg.tag, launch))

    # 1. verify every entry; 2. time the ones that passed, interleaved round by round so that clock and
    # power changes fall on all of them alike; 3. verify again and demand the same bits.
    passed = []
    for name, launch in entries:
        rec = dict(size=label, config=name, ok=False, rel_err=float("nan"), note="")
        out.append(rec)
        try:
            first, unwritten, err = check(launch)
        except Exception as exc:  # a launch error poisons the context: stop this size
            rec["note"] = f"FAIL: {type(exc).__name__}: {exc}"
            print(f"  {label} {name}: {rec['note']}")
            return out + free()
        rec["rel_err"] = err
        if unwritten or not err < TOLERANCE:
            rec["note"] = f"FAIL: {unwritten} NaN, rel.err {err:.2e}"
        else:
            rec["ok"] = True
            passed.append((rec, launch, first))
        print(f"  {label} {name}: {'ok' if rec['ok'] else rec['note']} err {err:.2e}")
    if not timed:
        return out + free()
    samples = {id(rec): [] for rec, _, _ in passed}
    start, end = cuda.Event(), cuda.Event()
    for _, launch, _ in passed:
        for _ in range(5):
            launch()
    for _ in range(repeats):
        for rec, launch, _ in passed:
            start.record()
            for _ in range(batch):
                launch()
            end.record()
            end.synchronize()
            samples[id(rec)].append(end.time_since(start) / batch)
    clock = sm_clock_mhz()
    cublas_ms = None
    for rec, launch, first in passed:
        s = samples[id(rec)]
        med = float(np.median(s))
        again, _, err2 = check(launch)
        rec.update(
            median_ms=med,
            min_ms=float(min(s)),
            max_ms=float(max(s)),
            samples_ms=s,
            tflops=flop / med / 1e9,
            rel_err_after=err2,
            repeatable=bool(np.array_equal(first, again)),
            sm_clock_mhz_after=clock,
            note=f"spread {min(s):.4f}-{max(s):.4f} ms",
        )
        if rec["config"] == "cublas-tf32":
            cublas_ms = med
        elif cublas_ms:
            rec["pct_cublas"] = 100.0 * cublas_ms / med
        if not rec["repeatable"] and rec["config"] != "cublas-tf32":
            rec.update(ok=False, note="FAIL: result changed between runs")
    return out + free()


def sm_clock_mhz():
    try:
        import pynvml

        pynvml.nvmlInit()
        return pynvml.nvmlDeviceGetClockInfo(pynvml.nvmlDeviceGetHandleByIndex(0), pynvml.NVML_CLOCK_SM)
    except Exception:
        return None


if __name__ == "__main__":
    raise SystemExit(main())
