"""`gemmviz exercise check` on the CPU emulator: without a GPU the check still answers correct,
memory-safe and race-free, from the student's PTX run thread by thread (backends/emulator), with the same
inputs, the same element-wise verification and the same diagnosis of wrong results as on the GPU. When C is
wrong, the emulator runs the experiments that tell the causes apart (C zeroed, sizes that are multiples of
the tile, square sizes, a fresh module); when it finds a hazard, it runs the warps in another order. It also
records the accesses of an interior and an edge block, beside the reference kernel's. It never times.

With a GPU, `gpu_extras` adds what compute-sanitizer says less about (uninitialised shared reads, divergent
barriers), and tells a printf that only slowed the GPU down from an endless loop. No Qt, no PyCUDA."""

from __future__ import annotations

import copy
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gemmviz.backends import emulator as emu
from gemmviz.backends.exercise_child import alternative, edge_pattern, k_shift, k_used
from gemmviz.backends.exercise_facts import facts_of
from gemmviz.core.exercise import report as _report  # (defines the report's messages)
from gemmviz.core.exercise.diagnose import gather_rules
from gemmviz.core.exercise.exercises import Exercise
from gemmviz.core.measure.bench import Inputs, verify
from gemmviz.core.messages import msg, render
from gemmviz.core.problem import Problem

EMULATED_SHAPES = ((1, 1, 1), (33, 17, 65), (100, 77, 129), (128, 128, 128))
ACCESS_SHAPE = (160, 160, 64)  # an interior and an edge block of every exercise's grid; small enough to keep
ACCESS_KEEP_PER_BLOCK = 600  # requests kept in detail per traced block (totals come from all of them)
SCHEDULE_SHAPE = (33, 17, 65)  # where a hazard is run again with the warps in another order
SEES = (
    "Emulated on the CPU: every global and shared request of the kernel's PTX, per warp (a GPU runs the SASS "
    "ptxas makes of it; where ptxas unrolls a loop it merges shared loads of different iterations, and the GPU "
    "issues fewer, wider requests than these: docs/guide/emulator.md)."
)
BY = "the gemmviz emulator: the kernel's PTX (nvcc -ptx -lineinfo) run on the CPU, thread by thread"


def _finding(f: emu.Finding) -> dict:
    out = {"kind": f.kind, "line": f.line, "count": int(f.count)}
    for key in ("access", "matrix", "other_line"):
        if f.params.get(key) is not None:
            out[key] = f.params[key]
    return out


def _merge(into: dict, run: emu.EmulatedRun) -> None:
    for f in run.findings:
        key = (f.kind, f.line, f.params.get("other_line"), f.params.get("access"))
        if key in into:
            into[key]["count"] += int(f.count)
        else:
            into[key] = _finding(f)


class EmulatedCheck:
    """One student kernel on the emulator: its PTX loaded, the exercise's launch geometry, the inputs' seed."""

    def __init__(self, kernel: emu.Kernel, exercise: Exercise, seed: int | None):
        self.kernel, self.exercise = kernel, exercise
        self.rng = np.random.default_rng(seed)
        self.inputs: dict[tuple, Inputs] = {}
        self.instructions = 0  # steps run, every run of the check
        self.unwritten: list[tuple] = []  # the sizes whose run read shared words no thread wrote

    def inputs_for(self, shape) -> Inputs:
        shape = tuple(shape)
        if shape not in self.inputs:
            self.inputs[shape] = Inputs.random(Problem(*shape), self.rng)
        return self.inputs[shape]

    def run(self, shape, **options) -> emu.EmulatedRun:
        inputs = self.inputs_for(shape)
        grid, block = emu.exercise_geometry(shape[0], shape[1], self.exercise.threads, self.exercise.block_tile)
        run = emu.emulate_gemm(self.kernel, inputs.a, inputs.b, grid, block, emu.RunOptions(**options))
        self.instructions += run.instructions
        return run

    def transposed_tile(self, shape) -> str | None:
        """'A' if, with B = I, C holds A's square tiles transposed (tile_A read as tile_A[k][threadIdx.y]); 'B' if,
        with A = I, C holds B's tiles transposed (tile_B[threadIdx.x][k]); None otherwise (or tiles not square)."""
        cols, rows = self.exercise.block_tile
        m, n, k = shape
        if cols != rows or not m == n == k or m % cols:
            return None
        grid, block = emu.exercise_geometry(m, n, self.exercise.threads, self.exercise.block_tile)
        eye = np.eye(m, dtype=np.float32)
        other = self.inputs_for(shape).a[:m, :k].astype(np.float32)
        t = cols
        for which, a, b in (("B", eye, other), ("A", other, eye)):
            run = emu.emulate_gemm(self.kernel, a, b, grid, block)
            self.instructions += run.instructions
            x = other.reshape(m // t, t, m // t, t)
            want = x.transpose(0, 3, 2, 1).reshape(m, m)  # each t×t tile transposed in place
            if run.finished and np.array_equal(run.c, want) and not np.array_equal(want, other):
                return which
        return None

    def right(self, shape, **options) -> bool:
        run = self.run(shape, **options)
        return run.finished and verify(run.c, self.inputs_for(shape), "fp32").valid

    def shape_entry(self, shape, run: emu.EmulatedRun, seconds: float) -> dict:
        """The shape's outcome as the GPU's verify step writes it."""
        m, n, k = shape
        if run.trap is not None:
            where = f"line {run.trap}" if run.trap else "a line the PTX does not name"
            entry: dict[str, Any] = {"shape": [m, n, k], "status": "launch-error", "error": f"trap at {where}"}
            return {**entry, "line": run.trap} if run.trap else entry
        if not run.finished:
            return {
                "shape": [m, n, k],
                "status": "timeout",
                "budget_steps": run.budget,
                "instructions": run.work,
                "ratio": round(run.work / emu.reference_work(m, n, k, _threads(run)), 1),
                "endless": run.endless,
                "line": run.last_line,
            }
        inputs = self.inputs_for(shape)
        check = verify(run.c, inputs, "fp32")
        entry = {"shape": [m, n, k], "status": "ok" if check.valid else "wrong", "seconds": round(seconds, 3)}
        entry.update({key: v for key, v in check.result_fields().items() if key in _SHAPE_FIELDS})
        entry["deterministic"] = True
        if check.reason:
            entry["reason"] = check.reason
        if not check.valid:
            with np.errstate(invalid="ignore"):
                wrong = ~(np.abs(run.c.astype(np.float64) - inputs.reference) <= 1e-5 * (inputs.bound + 1))
            entry["pattern"] = edge_pattern(run.c, inputs, self.exercise.block_tile, wrong)
            entry["equals"] = alternative(run.c, inputs)
            used = k_used(run.c, inputs)
            if used is not None:
                entry["k_used"] = used
            shift = k_shift(run.c, inputs) if used is None else None
            if shift is not None:
                entry["k_shift"] = shift
            entry["facts"] = facts_of(run.c, inputs.a, inputs.b, self.exercise.block_tile)
        return entry


def _threads(run: emu.EmulatedRun) -> int:
    return run.grid[0] * run.grid[1] * run.block[0] * run.block[1] * run.block[2]


_SHAPE_FIELDS = ("rel_error", "unwritten", "wrong_elements", "first_wrong", "error_margin", "error_map")


def _tile_shapes(exercise: Exercise) -> tuple[tuple, tuple]:
    """A square size and an M ≠ N size, both multiples of the block's tile in M, N and K."""
    cols, rows = exercise.block_tile
    edge = math.lcm(cols, rows, 16)
    return (edge, edge, edge), (edge, 2 * edge, edge)


def tile_k(exercise: Exercise) -> int:
    """The width of a tile along K: the exercise's TILE or BK (16 where it tiles no K)."""
    return int(exercise.defines.get("TILE") or exercise.defines.get("BK") or 16)


def _k_shapes(exercise: Exercise) -> tuple[tuple, tuple]:
    """One block of C with K exactly one tile, and the same block with K four whole tiles."""
    cols, rows = exercise.block_tile
    tk = tile_k(exercise)
    return (rows, cols, tk), (rows, cols, 4 * tk)


def _gather_experiment(check: EmulatedCheck, out: dict) -> None:
    """With B = I, C must be A; with A = I, B. Where C holds elements of A (B) at other places, the rule that
    places them says which index of the load or the store came from the wrong thread coordinate: kept as
    gather_A / gather_B, [rule of the row, rule of the column] (core/exercise/diagnose.gather_rules)."""
    cols, rows = check.exercise.block_tile
    edge = math.lcm(cols, rows, 16)
    edge *= 2 if edge < 64 else 1  # two tiles each way: a rule within a tile and one across tiles differ
    grid, block = emu.exercise_geometry(edge, edge, check.exercise.threads, check.exercise.block_tile)
    other = check.inputs_for((edge, edge, edge)).a.astype(np.float32)
    eye = np.eye(edge, dtype=np.float32)
    for which, a, b in (("A", other, eye), ("B", eye, other)):
        run = emu.emulate_gemm(check.kernel, a, b, grid, block)
        check.instructions += run.instructions
        if run.finished:
            rules = gather_rules(run.c, other, min(cols, rows))
            if rules is not None and rules != ["r", "c"]:
                out[f"gather_{which}"] = rules


def _k_experiment(check: EmulatedCheck, out: dict) -> None:
    """K of one whole tile against K of four: a reset inside the loop over the tiles, or a tile
    index without t, is right at the first and wrong at the second; C at the second is kept as facts."""
    one, several = _k_shapes(check.exercise)
    out.update(one_k_shape=list(one), multi_k_shape=list(several))
    out["one_k"] = "right" if check.right(one) else "wrong"
    run = check.run(several)
    inputs = check.inputs_for(several)
    if run.finished and verify(run.c, inputs, "fp32").valid:
        out["multi_k"] = "right"
        return
    out["multi_k"] = "wrong"
    if run.finished:
        out["multi_k_facts"] = facts_of(run.c, inputs.a, inputs.b, check.exercise.block_tile)
    _gather_experiment(check, out)
    cube = (several[2],) * 3  # M = N = K: an index that mixes K with M or N is right here
    out["k_square_shape"] = list(cube)
    out["k_square"] = "right" if check.right(cube) else "wrong"


def experiments(check: EmulatedCheck, shapes: list[dict], has_state: bool) -> dict:
    """Runs that tell the causes of a wrong C apart, each answered 'right' or 'wrong'."""
    first = next(s for s in shapes if s["status"] == "wrong")["shape"]
    out: dict = {}
    if has_state:
        out["fresh_module"] = "right" if check.right(first) else "wrong"
        if out["fresh_module"] == "right":
            return out
    out["zeroed"] = "right" if check.right(first, c_init=0.0) else "wrong"
    if out["zeroed"] == "right":
        return out
    _k_experiment(check, out)
    square, rectangle = _tile_shapes(check.exercise)
    out.update(square_shape=list(square), rectangle_shape=list(rectangle), odd_shape=list(first))
    out["square"] = "right" if check.right(square) else "wrong"
    if out["square"] == "wrong":
        which = check.transposed_tile(square)
        if which:
            out["transposed"] = which
            loads = [i.line for i in check.kernel.instrs if i.op == "ld" and "shared" in i.mods and i.line]
            if loads:
                out["transposed_line"] = loads[0]
    out["rectangle"] = "right" if check.right(rectangle) else "wrong"
    out["odd"] = "wrong"
    return out


@dataclass
class EmulateOptions:
    """How emulate_exercise runs: the inputs' seed, the access figures, a PTX already built, the sizes."""

    seed: int | None = None
    accesses: bool = True
    build: emu.PtxBuild | None = None
    shapes: tuple | None = None  # the check's, EMULATED_SHAPES, by default
    registers: bool = True  # look for values used before they are set, in a -G build (_uninitialised)


def emulate_exercise(
    record: dict, source_path: Path, exercise: Exercise, folder: Path, options: EmulateOptions | None = None
) -> None:
    """Fill the record's shapes and its 'emulator' part from emulated runs (the record says no GPU ran)."""
    o = options or EmulateOptions()
    t0 = time.perf_counter()
    part: dict = {"by": BY}
    record["emulator"] = part
    build = o.build or emu.compile_ptx(
        source_path, exercise.nvcc_defines(), folder, include_dir=include_dir(source_path)
    )
    if not build.ok:
        part["refused"] = msg("emu.no_nvcc", why=build.error or build.log[-300:] or "nvcc failed")
        return
    try:
        kernel = emu.load(build.ptx, exercise.kernel, source_path.name)
    except emu.EmulatorRefusal as exc:
        part["refused"] = msg(exc.key, **exc.params)
        return
    check = EmulatedCheck(kernel, exercise, o.seed)
    shapes = o.shapes or EMULATED_SHAPES
    try:
        found = _run_shapes(record, part, check, shapes)
    except emu.EmulatorRefusal as exc:  # met only while running (an operand it cannot read): no size is judged
        record["shapes"] = []
        part["refused"] = msg(exc.key, **exc.params)
        return
    done = record["shapes"]
    _unwritten_shared(check, found)
    if o.registers and all(s["status"] in ("ok", "wrong") for s in done):
        _uninitialised(check, found, source_path, folder, build)
    if any(f["kind"] in RACES for f in found.values()) and all(s["status"] == "ok" for s in done):
        _other_order(check, done)
    if any(s["status"] == "wrong" and s.get("deterministic", True) for s in done):
        has_state = any(not name.startswith("$str") for name in kernel.globals_)
        part["experiments"] = experiments(check, done, has_state)
    part["findings"] = sorted(found.values(), key=lambda f: (f["line"] or 0, f["kind"]))[:50]
    part["shapes"] = [list(s) for s in shapes]
    if o.accesses and done and done[-1]["status"] != "timeout":
        _accesses(record, part, check, exercise, folder)
    part["instructions"] = check.instructions
    part["seconds"] = round(time.perf_counter() - t0, 2)


RACES = ("read-after-write", "write-after-read", "write-after-write")
REGISTER_SHAPE = (5, 3, 7)  # where a -G build is run for values used before they are set (any size shows them)
DEBUG_WORK = 10  # a -G build runs a few times the instructions of -O3's: its budget's factor


def _unwritten_shared(check: EmulatedCheck, found: dict) -> None:
    """Reads of shared words no thread wrote are a finding where their value reaches C (or an address, a
    branch): each size that read them runs again, smallest first, with a shadow of each value's origin, until
    every such read is seen to reach C. Those whose
    value never reached C (read by threads outside C, which store nothing) become a note (failing no goal):
    a tiled kernel without zero fill whose k loop stops at the tile's edge is correct."""
    unwritten = [key for key, f in found.items() if f["kind"] == "uninit-shared"]
    if not unwritten:
        return
    used: set = set()
    for shape in sorted(check.unwritten, key=lambda x: x[0] * x[1] * x[2]):  # the sizes that read them
        run = check.run(shape, shadow="shared")
        if not run.finished:
            return  # not known: each stays a finding
        used |= {line for kind, line, _ in run.used if kind == "uninit-shared"}
        if all(found[key]["line"] in used for key in unwritten):
            return
    for key in unwritten:
        if found[key]["line"] not in used:
            found[key]["kind"] = "uninit-shared-unused"


_ARITHMETIC = r"(?:unsigned\s+|signed\s+|const\s+)*(?:float[1-4]?|double[1-4]?|int[1-4]?|uint[1-4]?|long|short|char|unsigned|size_t|half|__half|bool)"
_DECLARATION = re.compile(rf"(?:^|(?<=[;{{}}(])|\bfor\s*\()\s*{_ARITHMETIC}\s+([^;=(){{}}][^;()]*);", re.M)


def undeclared_values(source: str) -> list[str]:
    """The variables a kernel's source declares without a value (`float sum;`, `float acc[4][4];`, `int a, b = 0;`
    gives a), outside __shared__ and __device__ declarations: where there is none, the -G run is not needed."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.S)
    code = re.sub(r"(?:__shared__|__device__|__constant__|extern|static)[^;]*;", ";", code)
    names = []
    for m in _DECLARATION.finditer(code):
        depth, part = 0, ""
        for ch in m[1] + ",":
            depth += ch in "[<{" and 1 or ch in "]>}" and -1 or 0
            if ch == "," and depth == 0:
                if "=" not in part and part.strip():
                    names.append(part.strip().split("[")[0].strip(" *&"))
                part = ""
            else:
                part += ch
    return names


def include_dir(source_path: Path) -> Path | None:
    """A hand-in's folder, where backends/exercise.HandIn lays it beside the copy it compiles (src/NAME.cu and
    the link include/): its own headers are found there, and only there (core/exercise/includes.py)."""
    link = source_path.parent.parent / "include"
    return link if source_path.parent.name == "src" and link.is_symlink() else None


def _uninitialised(check: EmulatedCheck, found: dict, source_path: Path, folder: Path, build) -> None:
    """Values used before they are set (`float sum;`, `float acc[4][4];`): -O3 folds them to 0, so its PTX
    cannot show them; a -G build (no optimisation, the same compiler) still reads the register or the local
    array before any write. It runs at REGISTER_SHAPE with a shadow of each value's origin; each origin whose
    value reaches C (or an address, a branch) is a finding at its line. Where the -G build does not compile or
    run here, nothing is said."""
    source = source_path.read_text(encoding="utf-8", errors="replace")
    names = undeclared_values(source)
    if not names:
        return
    nvrtc = bool(build and build.command.startswith("nvrtc"))
    defines = check.exercise.nvcc_defines()
    debug = emu.compile_ptx(source_path, defines, folder, debug=True, nvrtc=nvrtc, include_dir=include_dir(source_path))
    if not debug.ok:
        return
    try:
        kernel = emu.load(debug.ptx, check.exercise.kernel, source_path.name)
        inputs = check.inputs_for(REGISTER_SHAPE)
        m, n, k = REGISTER_SHAPE
        grid, block = emu.exercise_geometry(m, n, check.exercise.threads, check.exercise.block_tile)
        budget = DEBUG_WORK * emu.budget_for(m, n, k, grid[0] * grid[1] * block[0] * block[1])
        options = emu.RunOptions(shadow="registers", budget=budget, printf=False)
        run = emu.emulate_gemm(kernel, inputs.a, inputs.b, grid, block, options)
    except emu.EmulatorRefusal:
        return
    check.instructions += run.instructions
    lines = source.splitlines()
    for kind, line, threads in run.used:
        key = (kind, line, None, None)
        if key in found:
            found[key]["count"] += threads
            continue
        found[key] = {"kind": kind, "line": line, "count": threads}
        text = lines[line - 1] if line and line <= len(lines) else ""
        named = [x for x in names if re.search(rf"\b{re.escape(x)}\b", text)]
        if len(named) == 1:  # the one variable declared without a value that the line names
            found[key]["variable"] = named[0]


def _run_shapes(record: dict, part: dict, check: EmulatedCheck, shapes) -> dict:
    """Each size in one module (as the GPU's check loads one), verified; its findings merged; printf kept."""
    module: dict | None = None
    found: dict = {}
    by_size: list[tuple[list[int], int, list[str]]] = []  # each size's printf: its calls and its lines
    for shape in shapes:
        t = time.perf_counter()
        run = check.run(shape, module=module)
        module = run.module
        _merge(found, run)
        if any(f.kind == "uninit-shared" for f in run.findings):
            check.unwritten.append(shape)
        if run.printf_calls:
            by_size.append((list(shape), run.printf_calls, list(run.printed)))
        entry = check.shape_entry(shape, run, time.perf_counter() - t)
        record["shapes"].append(entry)
        if entry["status"] in ("timeout", "launch-error"):
            break  # as on the GPU: the sizes after an endless one (or a trap) are not run
    if by_size:
        part["printf"] = _printf_kept(by_size)
    return found


def _printf_kept(by_size: list[tuple[list[int], int, list[str]]], limit: int = 200) -> dict:
    """The record's printf: at most `limit` lines, each size's first PRINTF_SHOWN first (a size that prints a
    lot leaves the others their first lines), then the rest in the order the sizes ran; `shapes` says which
    size printed which lines."""
    kept = [min(len(lines), _report.PRINTF_SHOWN) for _s, _c, lines in by_size]
    room = limit - sum(kept)
    for i, (_s, _c, lines) in enumerate(by_size):
        more = max(0, min(len(lines) - kept[i], room))
        kept[i] += more
        room -= more
    return {
        "calls": sum(c for _s, c, _l in by_size),
        "lines": [line for (_s, _c, lines), k in zip(by_size, kept) for line in lines[:k]],
        "shapes": [{"shape": s, "calls": c, "lines": k} for (s, c, _l), k in zip(by_size, kept)],
    }


def _other_order(check: EmulatedCheck, done: list[dict]) -> None:
    """A hazard was found: run SCHEDULE_SHAPE with one warp at a time (an order a GPU may take); where C is
    wrong then, the size is wrong and not deterministic, as two launches that differ on a GPU."""
    entry = next((s for s in done if s["shape"] == list(SCHEDULE_SHAPE)), None)
    if entry is None:
        return
    other = check.run(SCHEDULE_SHAPE, schedule="warp")
    if other.finished and not verify(other.c, check.inputs_for(SCHEDULE_SHAPE), "fp32").valid:
        entry.update(check.shape_entry(SCHEDULE_SHAPE, other, entry.get("seconds", 0.0)), deterministic=False)
        entry["reason"] = render("report.shape.order", "en")  # the English, for readers of the file
        entry["reason_message"] = msg("report.shape.order")


def _accesses(record: dict, part: dict, check: EmulatedCheck, exercise: Exercise, folder: Path) -> None:
    """The student's requests in an interior and an edge block at ACCESS_SHAPE (the record's access trace, as
    the GPU tracer's), and the reference kernel's per-block figures for the same blocks."""
    from gemmviz.core.hardware.accesses import AccessError, from_raw, keep_first, to_json

    try:
        run = check.run(ACCESS_SHAPE, trace=True, only_traced=True)
        header, recs, sass = emu.to_raw(run, exercise.kernel)
        trace = from_raw(header, recs, sass, exercise.reference, ACCESS_SHAPE, {})
        trace.sees = SEES
        kept = keep_first(trace, ACCESS_KEEP_PER_BLOCK)  # the totals still come from every request
        record["accesses"] = {"shape": list(ACCESS_SHAPE), "trace": to_json(kept)}
    except (AccessError, ValueError, emu.EmulatorRefusal) as exc:
        record["accesses"] = {"note": f"no emulated access records: {exc}"}
        return
    part["reference"] = reference_accesses(exercise, folder)
    advice = access_advice(trace.summary, part["reference"].get("summary") or [])
    if advice:
        part["advice"] = advice


RATIO = 1.5  # a figure this many times the reference's is worth a word


def access_advice(mine: list[dict], theirs: list[dict]) -> dict | None:
    """What the emulated access figures say against the reference's, with the fix (never a time)."""
    for a, b in zip(mine, theirs, strict=False):
        sectors, ref_sectors = (
            _per(a, "global_ld_sectors", "global_ld_requests"),
            _per(b, "global_ld_sectors", "global_ld_requests"),
        )
        if sectors and ref_sectors and sectors > RATIO * ref_sectors:
            return msg("advice.uncoalesced", sectors=f"{sectors:.2f}", ref=f"{ref_sectors:.2f}")
        waves, ref_waves = (
            _per(a, "shared_ld_wavefronts", "shared_ld_requests"),
            _per(b, "shared_ld_wavefronts", "shared_ld_requests"),
        )
        if waves and ref_waves and waves > RATIO * ref_waves:
            return msg("advice.conflicts", ways=f"{waves:.1f}", ref=f"{ref_waves:.1f}")
    return None


def _per(summary: dict, top: str, bottom: str) -> float | None:
    n = summary.get(bottom) or 0
    return summary.get(top, 0) / n if n else None


_REFERENCES: dict[tuple, dict] = {}  # this process's reference figures: a batch's checks share one exercise


def reference_accesses(exercise: Exercise, folder: Path) -> dict:
    """The reference kernel's emulated per-block figures at ACCESS_SHAPE: {"variant", "blocks", "summary"}.

    They depend only on the reference's source, parameters and compiler (the inputs' seed is fixed), so they are
    worked out once per process (a compile and an emulated run, 0.5 to 1 s, for every check of a grade batch
    before) and each caller gets its own copy. A note (no figures) is never kept: the next check tries again."""
    from gemmviz.core.kernels.variants import VARIANTS

    variant = VARIANTS[exercise.reference]
    params = variant.resolve_params(exercise.reference_params)
    key = _reference_key(exercise)
    if key not in _REFERENCES:
        out = _reference_accesses(variant, params, folder)
        if "note" in out:
            return out
        _REFERENCES[key] = out
    return copy.deepcopy(_REFERENCES[key])


def _reference_key(exercise: Exercise) -> tuple:
    from gemmviz.backends.profile import find_cuda_tool
    from gemmviz.core.kernels.variants import VARIANTS

    variant = VARIANTS[exercise.reference]
    params = variant.resolve_params(exercise.reference_params)
    return (variant.name, repr(sorted(params.items())), variant.source_text(), str(find_cuda_tool("nvcc")))


def remember_reference(exercise: Exercise, figures: dict) -> None:
    """Keep figures that reference_accesses gave for this exercise in another process (the parent of the child
    that emulates each check: it hands them to the next child, which need not work them out again)."""
    if "note" not in figures:
        _REFERENCES[_reference_key(exercise)] = copy.deepcopy(figures)


def _reference_accesses(variant, params: dict, folder: Path) -> dict:
    from gemmviz.core.hardware.accesses import from_raw

    out: dict = {"variant": variant.name}
    try:
        src = folder / f"reference-{variant.name}.cu"
        src.write_text(variant.source_text(), encoding="utf-8")
        build = emu.compile_ptx(src, variant.macro_options(params), folder)
        if not build.ok:
            return {**out, "note": f"the reference did not compile for the emulator: {build.error or build.log[-200:]}"}
        kernel = emu.load(build.ptx, variant.kernel_name, src.name)
        problem = Problem(*ACCESS_SHAPE)
        run_p = variant.run_problem(problem)
        grid, block = variant.geometry(run_p, params, variant.config)
        rng = np.random.default_rng(0)
        a = rng.standard_normal((run_p.m, run_p.k)).astype(np.float32)
        b = rng.standard_normal((run_p.k, run_p.n)).astype(np.float32)
        run = emu.emulate_gemm(kernel, a, b, grid[:2], block, emu.RunOptions(trace=True, only_traced=True))
        header, recs, sass = emu.to_raw(run, variant.kernel_name)
        trace = from_raw(header, recs, sass, variant.name, (run_p.m, run_p.n, run_p.k), params)
    except (emu.EmulatorRefusal, ValueError, OSError) as exc:
        return {**out, "note": f"the reference was not emulated: {exc}"}
    return {**out, "blocks": [list(b) for b in trace.blocks], "summary": trace.summary}


def gpu_extras(
    record: dict,
    source_path: Path,
    exercise: Exercise,
    folder: Path,
    seed: int | None,
    build: emu.PtxBuild | None = None,
) -> None:
    """On a GPU: the emulator's findings at the sanitizer's size (what compute-sanitizer says less about), the
    experiments when C is wrong at a size the emulator runs, and, where the GPU timed out in a kernel that
    calls printf, whether it finishes with printf disabled. `build`: the PTX nvcc already made (else compiled)."""
    build = build or emu.compile_ptx(source_path, exercise.nvcc_defines(), folder, include_dir=include_dir(source_path))
    if not build.ok:
        return
    try:
        kernel = emu.load(build.ptx, exercise.kernel, source_path.name)
    except emu.EmulatorRefusal:
        return
    check = EmulatedCheck(kernel, exercise, seed)
    part: dict = {"by": BY}
    shapes = record.get("shapes") or []
    if any(s.get("status") == "timeout" for s in shapes):
        if "printf" in record.get("source", ""):
            largest = EMULATED_SHAPES[-1]
            run = check.run(largest, printf=False)  # printf's calls are still counted, not printed
            if run.finished and run.printf_calls:
                part["experiments"] = {"printf_off": "finished", "printf_calls": run.printf_calls}
                part["shapes"] = [list(largest)]
                record["emulator"] = part
        return
    found: dict = {}
    run = check.run(SCHEDULE_SHAPE)
    _merge(found, run)
    if any(f.kind == "uninit-shared" for f in run.findings):
        check.unwritten.append(SCHEDULE_SHAPE)
        _unwritten_shared(check, found)
    if run.finished:
        _uninitialised(check, found, source_path, folder, build)
    # what compute-sanitizer's tools say less about (or not at all: registers read before they are set)
    keep = ("uninit-shared", "uninit-shared-unused", "uninit-register", "divergent-barrier")
    part["findings"] = [f for f in found.values() if f["kind"] in keep]
    part["shapes"] = [list(SCHEDULE_SHAPE)]
    small = [s for s in shapes if tuple(s["shape"]) in EMULATED_SHAPES]
    if any(s["status"] == "wrong" and s.get("deterministic", True) for s in small):
        has_state = any(not name.startswith("$str") for name in kernel.globals_)
        part["experiments"] = experiments(check, small, has_state)
    record["emulator"] = part
