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

from gemmviz.backends.emulator.budget import (
    BUDGET_FACTOR,
    REFERENCE_PER_ELEMENT,
    REFERENCE_PER_MAC,
    REFERENCE_PER_THREAD,
    budget_for,
    reference_work,
)
from gemmviz.backends.emulator.compiler import NVCC_LIMIT_S, NVRTC_EMPTY_HEADERS, PtxBuild, compile_nvrtc, compile_ptx
from gemmviz.backends.emulator.launch import (
    PRINTF_CLAMPED,
    EmulatedRun,
    RunOptions,
    emulate_gemm,
    exercise_geometry,
    load,
    to_raw,
    trace_blocks,
)
from gemmviz.backends.emulator.machine import Finding, Trap
from gemmviz.backends.emulator.ptx import SHARED_LIMIT_BYTES, EmulatorRefusal, Kernel

__all__ = [
    "BUDGET_FACTOR",
    "NVCC_LIMIT_S",
    "NVRTC_EMPTY_HEADERS",
    "PRINTF_CLAMPED",
    "REFERENCE_PER_ELEMENT",
    "REFERENCE_PER_MAC",
    "REFERENCE_PER_THREAD",
    "SHARED_LIMIT_BYTES",
    "EmulatedRun",
    "EmulatorRefusal",
    "Finding",
    "Kernel",
    "PtxBuild",
    "RunOptions",
    "Trap",
    "budget_for",
    "compile_nvrtc",
    "compile_ptx",
    "emulate_gemm",
    "exercise_geometry",
    "load",
    "reference_work",
    "to_raw",
    "trace_blocks",
]
