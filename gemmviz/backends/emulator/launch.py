"""One emulated GEMM launch: the kernel loaded from its PTX, run on A and B with C poisoned, and what came of it
(EmulatedRun: C, the findings, printf's output, the traced blocks' requests in the GPU tracer's form)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gemmviz.backends.emulator.budget import budget_for
from gemmviz.backends.emulator.machine import Budget, Finding, Machine, Plan, Trap
from gemmviz.backends.emulator.printf import MAX_FIELD
from gemmviz.backends.emulator.ptx import Kernel, parse

PRINTF_CLAMPED = (
    f"(gemmviz: a printf field asked for more than {MAX_FIELD} characters of width or precision; printed at "
    f"{MAX_FIELD})"
)


def load(ptx: str, kernel: str, source_name: str | None = None) -> Kernel:
    return parse(ptx, kernel, source_name)


def trace_blocks(grid: tuple[int, int]) -> list[tuple[int, int, int]]:
    """The blocks the GPU tracer picks by default: one interior, and the last (an edge block)."""
    gx, gy = grid
    out = [((gx - 1) // 2 if gx // 2 else 0, (gy - 1) // 2, 0), (gx - 1, gy - 1, 0)]
    return list(dict.fromkeys(out))


@dataclass
class EmulatedRun:
    c: np.ndarray
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
