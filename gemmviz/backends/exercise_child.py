"""The child process of `gemmviz exercise check`: runs a student's cubin on the GPU (PyCUDA), never in the app.

    python -m gemmviz.backends.exercise_child SPEC.json

SPEC: {"mode": "probe" | "verify" | "launch" | "time" | "profile", "cubin", "kernel", "threads", "block_tile",
"shapes", "timeout_s", "seed", "reference", "reference_params"}. Each finding is one JSON line on stdout
({"event": ...}); the parent (backends/exercise.py) reads them as they come and kills this process when it runs
past its time limit, so a kernel that never ends, or a context that an illegal address destroyed, only ends
this process. "launch" is the one-launch run that compute-sanitizer and ncu wrap.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

import numpy as np

from gemmviz.backends.exercise_facts import facts_of
from gemmviz.core.measure.bench import BenchSettings, Engine, Inputs, plan_jobs
from gemmviz.core.problem import Problem

EXIT_TIMEOUT = 4  # the kernel did not finish within timeout_s: the context cannot be used again
EXIT_LAUNCH = 5  # the launch failed (illegal address, too many resources, ...)


def emit(**record) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


class Student:
    """The student's kernel in a context of its own."""

    def __init__(self, spec: dict):
        import pycuda.driver as cuda

        cuda.init()
        self.cuda = cuda
        self.device = cuda.Device(0)
        self.context = self.device.make_context()
        with open(spec["cubin"], "rb") as f:
            self.module = cuda.module_from_buffer(f.read())
        self.func = self.module.get_function(spec["kernel"])
        self.func.prepare("PPPiii")
        self.threads = (int(spec["threads"][0]), int(spec["threads"][1]), 1)
        self.block_tile = spec["block_tile"]
        self.timeout_s = float(spec.get("timeout_s", 10.0))
        self.bufs: dict = {}
        cc = self.device.compute_capability()
        self.arch = f"sm_{cc[0]}{cc[1]}"
        self.events: tuple | None = (cuda.Event(), cuda.Event())
        self.hold: tuple | None = None  # KernelTimer's blocking kernel, made on first use
        self.flush = None

    def grid(self, m: int, n: int) -> tuple[int, int]:
        cols, rows = self.block_tile
        return -(-n // cols), -(-m // rows)

    def upload(self, inputs: Inputs) -> None:
        cuda = self.cuda
        self.free()
        p = inputs.problem
        self.bufs = {
            "a": cuda.to_device(inputs.a),
            "b": cuda.to_device(inputs.b),
            "c": cuda.mem_alloc(p.m * p.n * 4),
            "p": p,
        }

    def free(self) -> None:
        for key in ("a", "b", "c"):
            buf = self.bufs.get(key)
            if buf is not None:
                buf.free()
        self.bufs = {}

    def launch(self) -> None:
        p = self.bufs["p"]
        b = self.bufs
        self.func.prepared_call(self.grid(p.m, p.n), self.threads, b["a"], b["b"], b["c"], p.m, p.n, p.k)

    def run_once(self, where: str) -> np.ndarray:
        """Poison C, launch, wait at most timeout_s (then exit: the kernel never ends), read C back."""
        cuda = self.cuda
        p = self.bufs["p"]
        c = np.full((p.m, p.n), np.nan, dtype=np.float32)
        cuda.memcpy_htod(self.bufs["c"], c)
        done = cuda.Event()
        t0 = time.perf_counter()
        try:
            self.launch()
            done.record()
            while not done.query():
                if time.perf_counter() - t0 > self.timeout_s:
                    emit(event="timeout", shape=where, timeout_s=self.timeout_s)
                    os._exit(EXIT_TIMEOUT)  # the context holds a running kernel: only the process can end it
                time.sleep(0.002)
            cuda.memcpy_dtoh(c, self.bufs["c"])
        except cuda.Error as exc:
            emit(event="launch-error", shape=where, error=f"{type(exc).__name__}: {exc}".strip())
            os._exit(EXIT_LAUNCH)
        return c

    def close(self) -> None:
        self.free()
        self.context.pop()
        self.context.detach()


ALTERNATIVES = (("A·Bᵀ", False, True, False), ("Aᵀ·B", True, False, False), ("(A·B)ᵀ", False, False, True),
                ("Aᵀ·Bᵀ", True, True, False))  # fmt: skip


def alternative(c: np.ndarray, inputs: Inputs) -> str | None:
    """On a square size: which mistaken product the output equals (swapped indices), if any."""
    p = inputs.problem
    if not p.m == p.n == p.k:
        return None
    a, b = inputs.a.astype(np.float64), inputs.b.astype(np.float64)
    for name, ta, tb, tc in ALTERNATIVES:
        want = (a.T if ta else a) @ (b.T if tb else b)
        want = want.T if tc else want
        scale = np.abs(a) @ np.abs(b) + 1e-30
        with np.errstate(invalid="ignore"):
            if np.all(np.abs(c - want) <= 1e-4 * scale):
                return name
    return None


def k_used(c: np.ndarray, inputs: Inputs) -> int | None:
    """The K' < K, a multiple of a tile width (2 to 128), for which C equals A[:, :K']·B[:K', :]: a loop that
    stops before the last, partial tile of K. None if C is not such a product."""
    p = inputs.problem
    a, b = inputs.a[: p.m, : p.k].astype(np.float64), inputs.b[: p.k, : p.n].astype(np.float64)
    scale = np.abs(a) @ np.abs(b) + 1e-30
    for kt in sorted({p.k // t * t for t in (2, 4, 8, 16, 32, 64, 128)} - {0, p.k}, reverse=True):
        want = a[:, :kt] @ b[:kt, :]
        with np.errstate(invalid="ignore"):
            if np.all(np.abs(c[: p.m, : p.n] - want) <= 1e-4 * scale):
                return int(kt)
    return None


def k_shift(c: np.ndarray, inputs: Inputs) -> int | None:
    """The shift s > 0, a tile width (2 to 128), for which C pairs A's column k + s with B's row k (s > 0: A's
    tile index runs ahead) or A's column k with B's row k + s (s < 0: B's runs ahead), the rest zero-filled: a
    wrong tile index in one of the loads. None if C is not such a product."""
    p = inputs.problem
    a, b = inputs.a[: p.m, : p.k].astype(np.float64), inputs.b[: p.k, : p.n].astype(np.float64)
    scale = np.abs(a) @ np.abs(b) + 1e-30
    for s in (2, 4, 8, 16, 32, 64, 128):
        if s >= p.k:
            break
        for sign, want in ((1, a[:, s:] @ b[: p.k - s, :]), (-1, a[:, : p.k - s] @ b[s:, :])):
            with np.errstate(invalid="ignore"):
                if np.all(np.abs(c[: p.m, : p.n] - want) <= 1e-4 * scale):
                    return sign * s
    return None


def edge_pattern(c: np.ndarray, inputs: Inputs, block_tile, wrong: np.ndarray) -> dict:
    """Where the wrong elements of C lie, for the checker's diagnosis: their row and column span, whether
    they all sit in the last block row or column, and which of them were never written."""
    rows = np.nonzero(wrong.any(axis=1))[0]
    cols = np.nonzero(wrong.any(axis=0))[0]
    p = inputs.problem
    last_row0 = (-(-p.m // block_tile[1]) - 1) * block_tile[1]
    last_col0 = (-(-p.n // block_tile[0]) - 1) * block_tile[0]
    in_edge = np.zeros_like(wrong)
    in_edge[last_row0:, :] = True
    in_edge[:, last_col0:] = True
    return {
        "rows": [int(rows.min()), int(rows.max())] if rows.size else None,
        "cols": [int(cols.min()), int(cols.max())] if cols.size else None,
        "only_edge_blocks": bool(wrong.any() and not (wrong & ~in_edge).any()),
        "last_block_row": int(last_row0),
        "last_block_col": int(last_col0),
        "only_last_row": bool(rows.size and rows.min() == p.m - 1),
        "only_last_col": bool(cols.size and cols.min() == p.n - 1),
        "fraction": float(np.count_nonzero(wrong) / wrong.size),
        "unwritten": int(np.count_nonzero(np.isnan(c))),
    }


def verify_shapes(spec: dict) -> None:
    from gemmviz.core.measure.bench import verify

    student = Student(spec)
    rng = np.random.default_rng(spec.get("seed"))
    try:
        emit(event="device", name=student.device.name(), cc=list(student.device.compute_capability()))
        for m, n, k in spec["shapes"]:
            where = f"{m}x{n}x{k}"
            inputs = Inputs.random(Problem(m, n, k), rng)
            student.upload(inputs)
            t0 = time.perf_counter()
            c = student.run_once(where)
            seconds = time.perf_counter() - t0
            check = verify(c, inputs, "fp32")
            again = student.run_once(where)  # a race shows as a second launch that differs from the first
            same = bool(np.array_equal(c, again, equal_nan=True))
            record = {
                "event": "shape",
                "shape": [m, n, k],
                "valid": check.valid,
                "seconds": seconds,
                "deterministic": same,
                **check.result_fields(),
                "reason": check.reason,
            }
            if not check.valid:
                ref, bound = inputs.reference, inputs.bound
                with np.errstate(invalid="ignore"):
                    wrong = ~(np.abs(c.astype(np.float64) - ref) <= 1e-5 * (bound + 1))
                record["pattern"] = edge_pattern(c, inputs, student.block_tile, wrong)
                record["equals"] = alternative(c, inputs)
                record["facts"] = facts_of(c, inputs.a, inputs.b, student.block_tile)
            emit(**record)
    finally:
        student.close()


def launch_once(spec: dict) -> None:
    """One launch at spec's first shape (under compute-sanitizer or ncu)."""
    student = Student(spec)
    try:
        m, n, k = spec["shapes"][0]
        inputs = Inputs.random(Problem(m, n, k), np.random.default_rng(spec.get("seed")))
        student.upload(inputs)
        student.run_once(f"{m}x{n}x{k}")
        emit(event="launched", shape=[m, n, k])
    finally:
        student.close()


def _engine_times(spec: dict, problem: Problem, settings: BenchSettings) -> None:
    """The reference kernel and cuBLAS through the engine (its kernel-only timing and verification)."""
    from gemmviz.backends.cuda import CudaBackend

    params = {k: [v] for k, v in spec.get("reference_params", {}).items()}
    jobs = plan_jobs([spec["reference"]], [problem], params)
    if not spec.get("no_cublas"):
        jobs += plan_jobs(["cublas"], [problem])
    for result in Engine({"cuda": CudaBackend()}, settings).run(jobs, cancel=threading.Event()):
        emit(
            event="timed",
            who="reference" if result.variant == spec["reference"] else "cublas",
            series=result.series,
            status=result.status,
            median_ms=result.median_ms,
            noise=result.noise,
            samples=len(result.samples_ms),
            reason=result.error,
        )


def time_kernels(spec: dict) -> None:
    """The student's kernel at spec's timing shape with the engine's kernel-only method (KernelTimer), then
    the reference and cuBLAS through the engine."""
    from gemmviz.backends.gpu_timing import KernelTimer
    from gemmviz.core.measure.bench import verify

    m, n, k = spec["shapes"][0]
    problem = Problem(m, n, k)
    settings = BenchSettings(warmup=3, repeats=10, seed=spec.get("seed"))
    inputs = Inputs.random(problem, np.random.default_rng(spec.get("seed")))

    class Timed(Student, KernelTimer):
        pass

    student = Timed(spec)
    try:
        student.upload(inputs)
        check = verify(student.run_once(f"{m}x{n}x{k}"), inputs, "fp32")
        if not check.valid:
            emit(event="timed", who="yours", status="invalid", reason=check.reason)
        else:
            measured = student.measure(student.launch, settings, threading.Event())
            again = verify(student.run_once(f"{m}x{n}x{k}"), inputs, "fp32")  # still right after the timing
            samples = measured["samples_ms"]
            emit(
                event="timed",
                who="yours",
                status="ok" if again.valid else "invalid",
                median_ms=float(np.median(samples)),
                noise=measured.get("noise"),
                samples=len(samples),
                clock_mhz=measured.get("clock_mhz"),
                reason=again.reason,
            )
    finally:
        student.close()
    _engine_times(spec, problem, settings)


def profile_kernels(spec: dict) -> None:
    """Under ncu: the student's kernel once, then the reference through the engine with host timing (ncu
    serialises launches) — the parent profiles the first launch of each."""
    launch_once(spec)
    m, n, k = spec["shapes"][0]
    settings = BenchSettings(warmup=0, repeats=1, timing="host", max_batch=1, seed=spec.get("seed"))
    _engine_times({**spec, "no_cublas": True}, Problem(m, n, k), settings)


def probe(_spec: dict) -> None:
    import pycuda.driver as cuda

    cuda.init()
    device = cuda.Device(0)
    emit(event="device", name=device.name(), cc=list(device.compute_capability()), count=cuda.Device.count())


MODES = {"probe": probe, "verify": verify_shapes, "launch": launch_once, "time": time_kernels,
         "profile": profile_kernels}  # fmt: skip


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    try:
        MODES[spec["mode"]](spec)
    except Exception as exc:  # reported to the parent as one line; the process ends here either way
        emit(event="error", error=f"{type(exc).__name__}: {exc}".strip()[:2000])
        return 1
    emit(event="done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
