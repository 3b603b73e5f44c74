"""A CUDA emulator on the CPU: a student's kernel compiled to PTX (nvcc -ptx -lineinfo), then run
instruction by instruction with numpy, threads vectorised, divergence exact. It answers what a GPU answers
about correctness (C, element by element) and what compute-sanitizer answers about safety (out-of-bounds
accesses, uninitialised shared reads, divergent barriers, shared-memory hazards), with the source line of
each; it records every global and shared request of the traced blocks in the access tracer's format. It never
says anything about speed. No Qt, no GPU, no driver.

    ptx = compile_ptx(path, ["-DTILE=16"], folder)      # (PtxBuild with .ptx, .log, .ok)
    kernel = load(ptx.ptx, "gemm_tiled", path.name)     # EmulatorRefusal names what it cannot run, and the line
    run = emulate_gemm(kernel, a, b, threads=(16, 16), block_tile=(16, 16))
    run.c, run.findings, run.trace(...)"""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gemmviz.backends.emulator.machine import Budget, Finding, Machine, Plan, Trap
from gemmviz.backends.emulator.printf import MAX_FIELD
from gemmviz.backends.emulator.ptx import SHARED_LIMIT_BYTES, EmulatorRefusal, Kernel, parse

__all__ = [
    "SHARED_LIMIT_BYTES",
    "EmulatedRun",
    "EmulatorRefusal",
    "Finding",
    "Kernel",
    "PtxBuild",
    "budget_for",
    "reference_work",
    "Trap",
    "compile_ptx",
    "emulate_gemm",
    "RunOptions",
    "exercise_geometry",
    "load",
    "to_raw",
    "trace_blocks",
]

NVCC_LIMIT_S = 120
PRINTF_CLAMPED = (
    f"(gemmviz: a printf field asked for more than {MAX_FIELD} characters of width or precision; printed at "
    f"{MAX_FIELD})"
)


@dataclass
class PtxBuild:
    ok: bool
    ptx: str
    log: str
    command: str
    error: str | None = None
    arch: str = "sm_90"


def compile_ptx(
    source_path: Path,
    defines: list[str],
    folder: Path,
    arch: str = "sm_90",
    nvcc: str | None = None,
    debug: bool = False,
    nvrtc: bool = False,
    include_dir: Path | None = None,
):
    """The kernel's PTX with line info and the compiler's messages: `nvcc -ptx -lineinfo -O3` where the CUDA
    toolkit is installed (and `nvrtc` is not asked for), else NVRTC from PyPI (pip install "gemmviz[emulate]").
    Neither needs a GPU or a driver. `debug`: -G instead (no optimisation: a value read before it is set is
    still read, where -O3 folds it to 0). `include_dir`: the one folder its #includes may come from (a hand-in's
    own). This runs the compiler in this process's limits: a hand-in's check calls it only in its emulate child
    (backends/sandbox.py)."""
    from gemmviz.backends.profile import find_cuda_tool

    source_path = Path(source_path).resolve()
    exe = None if nvrtc else nvcc or find_cuda_tool("nvcc")
    if exe is None:
        return compile_nvrtc(source_path, defines, arch, debug, include_dir)
    out = folder / f"{source_path.stem}{'.debug' if debug else ''}.ptx"
    level = ["-G"] if debug else ["-lineinfo", "-O3"]
    includes = [f"-I{include_dir}"] if include_dir else []
    argv = [str(exe), "-ptx", *level, f"-arch={arch}", *defines, *includes, "-o", str(out), str(source_path)]
    # its own process group, killed whole on a time-out or a signal: nvcc's cicc and ptxas end with it
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        cwd=folder,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=NVCC_LIMIT_S)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return PtxBuild(False, "", "", " ".join(argv), f"nvcc ran over {NVCC_LIMIT_S} s")
    except BaseException:
        _kill_group(proc)
        raise
    ok = proc.returncode == 0 and out.is_file()
    text = out.read_text(encoding="utf-8", errors="replace") if ok else ""
    return PtxBuild(ok, text, (stdout + stderr).strip(), " ".join(["nvcc", *argv[1:]]), arch=arch)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()


# Host headers a kernel file includes that NVRTC has no copy of: empty (printf is built in).
NVRTC_EMPTY_HEADERS = ("cstdio", "stdio.h", "cstdlib", "stdlib.h", "cuda_runtime.h", "cuda.h")


def compile_nvrtc(
    source_path: Path, defines: list[str], arch: str = "sm_90", debug: bool = False, include_dir: Path | None = None
) -> PtxBuild:
    """NVRTC (the nvidia-cuda-nvrtc and cuda-bindings wheels): the PTX, and messages in nvcc's form. NVRTC
    compiles in the calling process: a hand-in's check calls this only in its child (backends/emulate_child.py),
    under the sandbox's limits."""
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        why = 'neither nvcc nor NVRTC found: install the CUDA toolkit, or pip install "gemmviz[emulate]"'
        return PtxBuild(False, "", "", "", why)
    source = source_path.read_bytes()
    names = [h.encode() for h in NVRTC_EMPTY_HEADERS]
    err, prog = nvrtc.nvrtcCreateProgram(source, source_path.name.encode(), len(names), [b""] * len(names), names)
    options = [b"-G" if debug else b"-lineinfo", f"--gpu-architecture=compute_{arch.removeprefix('sm_')}".encode()]
    options += [d.encode() for d in defines]
    if include_dir is not None:
        options.append(f"--include-path={include_dir}".encode())
    try:
        (result,) = nvrtc.nvrtcCompileProgram(prog, len(options), options)
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        ptx = ""
        if result == nvrtc.nvrtcResult.NVRTC_SUCCESS:
            _, size = nvrtc.nvrtcGetPTXSize(prog)
            raw = b" " * size
            nvrtc.nvrtcGetPTX(prog, raw)
            ptx = raw.rstrip(b"\0").decode("utf-8", "replace")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    text = log.rstrip(b"\0").decode("utf-8", "replace").strip()
    command = " ".join(["nvrtc", *(o.decode() for o in options), source_path.name])
    return PtxBuild(bool(ptx), ptx, text, command, arch=f"compute_{arch.removeprefix('sm_')}")


def load(ptx: str, kernel: str, source_name: str | None = None) -> Kernel:
    return parse(ptx, kernel, source_name)


def trace_blocks(grid: tuple[int, int]) -> list[tuple[int, int, int]]:
    """The blocks the GPU tracer picks by default: one interior, and the last (an edge block)."""
    gx, gy = grid
    out = [((gx - 1) // 2 if gx // 2 else 0, (gy - 1) // 2, 0), (gx - 1, gy - 1, 0)]
    return list(dict.fromkeys(out))


# What the exercises' reference kernels need, measured on the emulator (instructions, thread by thread, as
# Machine.work counts them): gpu-naive 5.9 per multiply-add at 128³, 6.2 at 64³, 6.9 at 33×17×65
# where the threads outside C add theirs (5,407 at 1×1×1: 5 per launched thread); gpu-tiled (TILE 16) 5.0 at
# 128³. The budget is BUDGET_FACTOR times the naive one's: a correct kernel whose every thread computes its whole
# row does N times its work (128 times at 128³, the check's largest size), and passes.
REFERENCE_PER_MAC = 6
REFERENCE_PER_ELEMENT = 20
REFERENCE_PER_THREAD = 5
BUDGET_FACTOR = 200


def reference_work(m: int, n: int, k: int, threads: int = 0) -> int:
    """About what the exercises' naive reference runs at m×n×k with `threads` launched (instructions, thread by
    thread)."""
    return int(REFERENCE_PER_MAC * m * n * k + REFERENCE_PER_ELEMENT * m * n + REFERENCE_PER_THREAD * threads) + 1


def budget_for(m: int, n: int, k: int, threads: int = 0) -> int:
    """Instructions (thread by thread) one launch of `threads` may run before it is stopped: BUDGET_FACTOR times
    what the naive reference needs at this size, so a slow but correct kernel (a thread per row that computes
    it all) finishes, and a loop that runs on is stopped in seconds. A loop that makes no progress at all is
    stopped sooner, as endless (machine.Chunk._no_progress)."""
    return BUDGET_FACTOR * reference_work(m, n, k, threads) + 100_000


@dataclass
class EmulatedRun:
    c: np.ndarray | None
    findings: list[Finding]
    finished: bool  # False: stopped (the instruction budget, an endless loop, or a trap)
    printed: list[str]
    printf_calls: int
    instructions: int
    grid: tuple[int, int]
    block: tuple[int, int, int]
    records: list = field(default_factory=list)
    traced: list = field(default_factory=list)
    allocations: list = field(default_factory=list)
    pcs: dict = field(default_factory=dict)  # instruction index -> (opcode, line)
    module: dict = field(default_factory=dict)  # the module's __device__ variables after the run
    last_line: int | None = None  # the line of the last instruction run (where an endless loop was stopped)
    work: int = 0  # instructions run, thread by thread
    budget: int = 0  # the instructions (thread by thread) it was allowed
    endless: bool = False  # stopped in a loop that made no progress (not only by the budget)
    trap: int | None = None  # the line of the trap that ended the launch (0: a line the PTX does not name)
    used: list = field(default_factory=list)  # with a shadow: (kind, line, threads) of undefined values used


@dataclass
class RunOptions:
    c_init: float = float("nan")  # C before the launch: poisoned (NaN), or 0 for the zeroed-C experiment
    launches: int = 1  # launches of the same module: a second sees what the first left in __device__ variables
    printf: bool = True
    trace: bool = False  # record the requests of an interior and an edge block
    only_traced: bool = False  # run only those blocks (their access figures, not C)
    budget: int | None = None  # instructions (thread by thread) before it is stopped (budget_for by default)
    steps: int = 400_000  # steps (a group of threads' instruction) before it is stopped: a bound on its time
    schedule: str = "lockstep"  # or "warp": one warp at a time as far as it goes (another order a GPU may take)
    module: dict | None = None  # __device__ variables' bytes from an earlier run of the same module
    shadow: str | None = None  # "registers" or "shared": where undefined values go (emulator/shadow.py)


def exercise_geometry(m: int, n: int, threads, block_tile) -> tuple[tuple[int, int], tuple[int, int, int]]:
    """The grid and block the check launches: ceil(N / cols) × ceil(M / rows) blocks of threads."""
    cols, rows = block_tile
    return (-(-n // cols), -(-m // rows)), (threads[0], threads[1], 1)


def emulate_gemm(kernel: Kernel, a: np.ndarray, b: np.ndarray, grid, block, options: RunOptions | None = None):
    """C = A·B by the kernel: A (m×k) and B (k×n) float32, C filled with options.c_init, launched on `grid`
    blocks of `block` threads. An EmulatedRun: C, the findings, whether it finished, printf's output."""
    o = options or RunOptions()
    m, k = a.shape
    n = b.shape[1]
    c = np.full((m, n), o.c_init, np.float32)
    arrays = {"A": a.astype(np.float32), "B": b.astype(np.float32), "C": c}
    machine = Machine(kernel, arrays, printf=o.printf, module=o.module, shadow=o.shadow)
    grid = (int(grid[0]), int(grid[1]))
    block = (int(block[0]), int(block[1]), int(block[2]) if len(block) > 2 else 1)
    traced = trace_blocks(grid) if o.trace else []
    params = [machine.address("A"), machine.address("B"), machine.address("C"), m, n, k]
    finished, endless, trap, budget = True, False, None, 0
    try:
        for i in range(o.launches):
            budget = o.budget or budget_for(m, n, k, grid[0] * grid[1] * block[0] * block[1] * block[2])
            plan = Plan(budget, tuple(traced) if i == 0 else (), o.only_traced, o.schedule, o.steps)
            machine.launch(grid, block, params, plan)
    except Budget as stop:
        finished, endless = False, stop.endless
    except Trap as stop:
        finished, trap = False, stop.line or 0
        machine.find("trap", stop.line)
    if machine.printf_clamped:
        machine.printed.insert(0, PRINTF_CLAMPED)
    return EmulatedRun(
        c=machine.array("C", np.float32, (m, n)),
        findings=list(machine.findings.values()),
        finished=finished,
        printed=machine.printed,
        printf_calls=machine.printf_calls,
        instructions=machine.instructions,
        grid=grid,
        block=block,
        records=machine.records,
        traced=traced,
        allocations=machine.allocations(),
        pcs={i.index: (i.text.split()[0], i.line) for i in kernel.instrs},
        module=machine.module_state(),
        last_line=machine.last_line,
        work=machine.work,
        budget=budget,
        used=machine.shadow.findings() if machine.shadow else [],
        endless=endless,
        trap=trap,
    )


def to_raw(run: EmulatedRun, kernel_name: str):
    """The traced blocks' requests as the GPU tracer writes them: (header, records, sass) for
    core/hardware/accesses.from_raw. A PC is the instruction's index × 16 (its place in the PTX, not in SASS)."""
    from gemmviz.core.hardware.accesses import RECORD_DTYPE

    recs = np.zeros(len(run.records), RECORD_DTYPE)
    if run.records:
        slot, warp, seq, pc, space, flags, size, active, addr = zip(*run.records, strict=True)
        recs["pc"] = np.array(pc, np.uint64) * 16
        recs["addr"] = np.stack(addr)
        recs["seq"], recs["active"], recs["slot"] = seq, active, slot
        recs["warp"], recs["size"], recs["space"], recs["flags"] = warp, size, space, flags
    header = {
        "kernel": kernel_name,
        "grid": [run.grid[0], run.grid[1], 1],
        "block": list(run.block),
        "blocks": [list(b) for b in run.traced],
        "cap": max(len(recs), 1),
        "attempted": len(recs),
        "stored": len(recs),
        "allocations": run.allocations,
        "function_pc": 0,
    }
    sass = {i * 16: (f"{op} (PTX)", line) for i, (op, line) in run.pcs.items()}
    return header, recs, sass
