"""The likeliest cause of a wrong C, an unsafe access or a race, from where C is wrong, what the sanitizer or the
emulator saw, nvcc's warnings, the source line and the emulator's experiments; what the wrong C is made of is
core/exercise/causes.py. Each cause names the line and the fix. Pure Python."""

from __future__ import annotations

import re

from gemmviz.core.exercise.causes import facts_cause, grid_axes_tested, tile_multiples_right, unknown_cause
from gemmviz.core.exercise.evidence import line_msg
from gemmviz.core.exercise.findings import (
    RACE_KINDS,
    finding_message,
    in_order,
    memory_findings,
    race_findings,
    tool_findings,
)
from gemmviz.core.exercise.k_sums import k_loop_cause
from gemmviz.core.exercise.where import source_line
from gemmviz.core.messages import Message, define, msg


def _tile_index_line(record: dict, matrix: str) -> int | None:
    """The line that picks which of `matrix`'s columns (A) or rows (B) a tile loads: the line of its global load
    (`A[...]`), or, where that index uses a variable set inside the loop over the tiles (a_col = ...), that
    variable's line. None if the source has no such load."""
    lines = [text.split("//")[0] for text in (record.get("source") or "").splitlines()]
    load = re.compile(rf"(?<![\w.]){matrix}\s*\[([^\]]*)\]")
    at = next((i for i, text in enumerate(lines) if load.search(text)), None)
    if at is None:
        return None
    found = load.search(lines[at])
    assert found is not None  # the line `at` was picked because it matches
    names = set(re.findall(r"[A-Za-z_]\w*", found[1]))
    loop = next((i for i in range(at, -1, -1) if re.search(r"\bfor\s*\(", lines[i])), 0)
    for i in range(at - 1, loop, -1):
        for name in names:
            if re.search(rf"\b{name}\s*=(?!=)", lines[i]):
                return i + 1
    return at + 1


def correctness_cause(record: dict) -> Message | None:
    """Why C is wrong, from where it is wrong, what the sanitizer or the emulator saw, the source line, and the
    experiments the emulator ran."""
    shapes = record.get("shapes") or []
    for s in shapes:
        if s.get("status") == "timeout":
            return _timeout_cause(record, s)
    found = memory_findings(record)
    writes = [f for f in found if "write" in f["kind"] and f.get("line") and "shared" not in f["kind"]]
    reads = [f for f in found if "read" in f["kind"] and f.get("line") and "shared" not in f["kind"]]
    crashed = next((s for s in shapes if s.get("status") == "launch-error"), None)
    for f in writes + reads:
        return _oob_cause(record, f["line"], "write" in f["kind"])
    emulated = (record.get("emulator") or {}).get("findings") or []
    said = next((f for f in emulated if f["kind"] in ("uninit-register", "misaligned")), None)
    if said is not None:  # the finding's own sentence names the line and the fix
        return finding_message(said)
    shared = next((f for f in found if "shared" in f["kind"] and "uninit" not in f["kind"] and f.get("line")), None)
    if shared:
        return _shared_oob_cause(record, shared)
    if crashed is not None:
        return _crash_cause(record, crashed)
    bad = [s for s in shapes if s.get("status") == "wrong"]
    return _wrong_c_cause(record, bad) if bad else None


def _wrong_c_cause(record: dict, bad: list[dict]) -> Message:
    """Why C is wrong at the sizes `bad`, with no access outside the arrays: a compiler warning, a mistaken
    product, a race, the experiments, what the wrong C is made of (core/exercise/causes.py), else what the
    checker cannot tell."""
    emu = record.get("emulator") or {}
    warning = warning_cause(record)
    if warning:
        return warning
    equals = next((s["equals"] for s in bad if s.get("equals")), None)
    if equals:
        return _swapped_cause(record, equals)
    if any(not s.get("deterministic", True) for s in bad) or race_findings(record):
        return race_cause(record) or msg("cause.race_unsure")
    exp = emu.get("experiments") or {}
    uninit = next((f for f in emu.get("findings") or [] if f["kind"] == "uninit-shared"), None)
    if exp.get("zeroed") == "right" or exp.get("fresh_module") == "right":
        return experiment_cause(record) or unknown_cause(record)
    found = facts_cause(record) or _recorded_cause(record, bad) or experiment_cause(record)
    if found:
        return found
    if uninit:
        return _uninit_cause(record, uninit)
    return _pattern_cause(record, bad) or unknown_cause(record)


def _uninit_cause(record: dict, finding: dict) -> Message:
    from gemmviz.core.exercise import where

    line = finding.get("line")
    text = source_line(record, line)
    if line in where.loop_lines(record.get("source") or "") and re.search(r"<=\s*TILE|TILE\s*\+\s*\d", text):
        return line_msg("cause.read_padding", record, line)
    return line_msg("cause.uninit_shared", record, line)


def _recorded_cause(record: dict, bad: list[dict]) -> Message | None:
    """A cause from what a check without facts recorded (an older record, a GPU's): K rounded down to a tile,
    a tile index running ahead."""
    short = next((s for s in bad if s.get("k_used")), None)
    if short is not None and not any(s.get("facts") for s in bad):  # the facts tell a prefix of K apart
        return k_loop_cause(record, short["k_used"], short["shape"])
    shifted = next((s for s in bad if s.get("k_shift")), None)
    if shifted is not None:
        matrix = "A" if shifted["k_shift"] > 0 else "B"
        key = f"cause.{matrix.lower()}_tile_ahead"
        line = _tile_index_line(record, matrix)
        return line_msg(key, record, line, shift=abs(shifted["k_shift"]), shape=shifted["shape"])
    return None


def _shared_oob_cause(record: dict, finding: dict) -> Message:
    """An access outside the shared arrays: a loop over the tile whose bound runs past it, else the line."""
    from gemmviz.core.exercise import where

    line = finding["line"]
    text = source_line(record, line)
    cond = re.search(r"\w+\s*(<=?)\s*([\w\s+*()-]+?)\s*;", text)
    past = cond and (cond[1] == "<=" or re.search(r"\bK\b|\+", cond[2]) is not None)
    if cond is not None and line in where.loop_lines(record.get("source") or "") and past:
        return line_msg("cause.tile_loop_bound", record, line, bound=cond[0].rstrip("; "))
    access = msg("access.write" if "write" in finding["kind"] else "access.read")
    return line_msg("cause.shared_oob", record, line, access=access)


def _oob_cause(record: dict, line: int, write: bool) -> Message:
    """An access outside A, B or C at `line`: the guard that lets it through (|| for &&, <= for <, row against N
    or col against M), at the guard's line, else the access's own line and how to guard it."""
    from gemmviz.core.exercise import where

    here = source_line(record, line)
    loop = re.search(r"\bfor\s*\(.*?;\s*(\w+\s*<=\s*\w+)\s*;", here)
    if loop and line in where.loop_lines(record.get("source") or ""):  # for (k = 0; k <= K; ...) reads one past
        return line_msg("cause.loop_le", record, line, cond=loop[1])
    guard = where.guard_line(record.get("source") or "", line)
    text = source_line(record, guard) if guard else ""
    if guard and where.crossed_dims(text):
        return line_msg("cause.guard_dims", record, guard)
    if guard and "||" in text:
        return line_msg("cause.or_guard" if write else "cause.or_guard_read", record, guard)
    if guard and "<=" in text and write:
        return line_msg("cause.le_guard", record, guard)
    missing = where.guard_misses(text) if guard and write else None
    if missing:
        return line_msg("cause.guard_incomplete", record, line, guard=guard, missing=missing)
    stride = where.mixed_stride_line(record.get("source") or "")
    if guard and stride:
        return line_msg("cause.index_stride", record, stride, guard=guard)
    if guard and write:
        return line_msg("cause.oob_index", record, line, guard=guard)
    return line_msg("cause.oob_write" if write else "cause.oob_read", record, line)


# which load or store a mistaken product points at: (the line finder's matrix, the message)
_SWAPS = {"A·Bᵀ": "B", "Aᵀ·B": "A", "Aᵀ·Bᵀ": "A", "(A·B)ᵀ": "C"}


def _swapped_cause(record: dict, equals: str) -> Message:
    from gemmviz.core.exercise import where

    matrix = _SWAPS.get(equals, "C")
    source = record.get("source") or ""
    line = where.store_line(source) if matrix == "C" else where.load_line(source, matrix)
    if matrix == "C":
        add = where.add_line(source)
        return line_msg("cause.swapped_c", record, line, equals=equals, other=add if add != line else "?")
    key = {"A": "cause.swapped_a", "B": "cause.swapped_b"}[matrix]
    return line_msg(key, record, line, equals=equals)


def _crash_cause(record: dict, crashed: dict) -> Message:
    trap = next((f for f in (record.get("emulator") or {}).get("findings") or [] if f["kind"] == "trap"), None)
    if trap is not None:  # the emulator ran trap: its line
        return line_msg("cause.trap", record, trap.get("line"))
    return msg("cause.crashed", shape=crashed["shape"], error=crashed.get("error", ""))


def _timeout_cause(record: dict, s: dict) -> Message:
    exp = (record.get("emulator") or {}).get("experiments") or {}
    if exp.get("printf_off") == "finished":  # the calls were counted at the emulator's size
        where = ((record.get("emulator") or {}).get("shapes") or [s["shape"]])[0]
        return msg("cause.printf_slow", calls=exp.get("printf_calls", 0), shape=where)
    if s.get("endless"):
        return line_msg("cause.endless", record, s.get("line"), shape=s["shape"])
    if s.get("instructions"):
        params = {"shape": s["shape"], "instructions": s["instructions"], "ratio": s.get("ratio", 0)}
        return line_msg("cause.stopped", record, s.get("line"), **params)
    if s.get("budget_steps"):
        return line_msg("cause.budget", record, s.get("line"), shape=s["shape"], steps=s["budget_steps"])
    return msg("cause.timeout", timeout=f"{s.get('timeout_s') or 10:g}", shape=s["shape"])


# nvcc's warnings that mean a bug: (words of the warning, words of the line, what it means)
WARNING_BUGS = (("expression has no effect", "__syncthreads", "fix.syncthreads_call"),)


def warning_cause(record: dict) -> Message | None:
    """A compiler warning that means a bug (`__syncthreads;` never runs the barrier), as a cause."""
    for d in (record.get("compile") or {}).get("diagnostics") or []:
        if d.get("severity") != "warning" or not d.get("line"):
            continue
        text = source_line(record, d["line"])
        for words, code, what in WARNING_BUGS:
            if words in d["message"] and code in text:
                return line_msg("cause.warning_bug", record, d["line"], what=msg(what), warning=d["message"])
    return None


def experiment_cause(record: dict) -> Message | None:
    """What the emulator's experiments showed: accumulating into C, edge tiles, the grid's axes, state kept."""
    exp = (record.get("emulator") or {}).get("experiments") or {}
    if exp.get("zeroed") == "right":
        from gemmviz.core.exercise import where

        line = where.store_line(record.get("source") or "")
        return line_msg("cause.accumulates_at", record, line) if line else msg("cause.accumulates")
    if exp.get("fresh_module") == "right":
        return msg("cause.state")
    if exp.get("transposed"):
        from gemmviz.core.exercise import where

        source = record.get("source") or ""
        which = exp["transposed"]
        key = "fix.tile_a" if which == "A" else "fix.tile_bt" if "tile_Bt" in source else "fix.tile_b"
        identity = "B" if which == "A" else "A"
        return line_msg(
            "cause.tile_transposed",
            record,
            exp.get("transposed_line"),
            tile=which,
            identity=identity,
            fix=msg(key),
            shape=exp.get("square_shape"),
            other=where.shared_store_line(source, which) or "?",
        )
    if exp.get("square") == "right" and exp.get("rectangle") == "wrong" and grid_axes_tested(record):
        from gemmviz.core.exercise import where

        line = where.assign_line(record.get("source") or "", "row")
        good, bad = exp["square_shape"], exp["rectangle_shape"]
        if line:
            return line_msg("cause.grid_axes_at", record, line, good=good, bad=bad)
        return msg("cause.grid_axes", good=good, bad=bad)
    if exp.get("rectangle") == "right" and exp.get("odd") == "wrong" and tile_multiples_right(record):
        return msg("cause.edge_tiles", good=[exp["square_shape"], exp["rectangle_shape"]], bad=exp["odd_shape"])
    return None


def _pattern_cause(record: dict, bad: list[dict]) -> Message | None:
    """Where the wrong elements lie, when that alone tells the cause: only the last row or column never written,
    or wrong only in the edge blocks while every size that is a multiple of the tile is right."""
    # a shape whose wrong elements lie outside its edge blocks too rules out a cause at the edge (at 1×1×1 the
    # only block is an edge block, whatever is wrong)
    inside = any(s.get("pattern") and not s["pattern"].get("only_edge_blocks") for s in bad)
    for s in bad:
        if inside:
            break
        p = s.get("pattern") or {}
        m, n, _k = s["shape"]
        if p.get("only_last_row") and p.get("unwritten"):
            return msg("cause.last_row", row=m - 1, shape=s["shape"])
        if p.get("only_last_col") and p.get("unwritten"):
            return msg("cause.last_col", col=n - 1, shape=s["shape"])
        if p.get("only_edge_blocks") and tile_multiples_right(record):
            rows, cols = p.get("rows") or [0, 0], p.get("cols") or [0, 0]
            if rows[0] >= p.get("last_block_row", 0) > 0:
                where = msg("where.last_block_row", row=rows[0])
            elif cols[0] >= p.get("last_block_col", 0) > 0:
                where = msg("where.last_block_col", col=cols[0])
            else:
                where = msg("where.edge_blocks")
            return msg("cause.edge", where=where, shape=s["shape"])
    first = bad[0]
    m, n, _k = first["shape"]
    if all(s.get("unwritten") == s["shape"][0] * s["shape"][1] for s in bad):  # not one element written
        from gemmviz.core.exercise import where as lines

        return line_msg(
            "cause.never_written", record, lines.store_line(record.get("source") or ""), shape=first["shape"]
        )
    return None


def race_cause(record: dict) -> Message | None:
    sync = tool_findings(record, "synccheck")
    emu = [f for f in (record.get("emulator") or {}).get("findings") or [] if f["kind"] in RACE_KINDS]
    barrier = next((f for f in emu if f["kind"] == "divergent-barrier"), None)
    if barrier:
        return line_msg("cause.divergent_barrier", record, barrier.get("line"), threads=barrier.get("count", 1))
    warning = warning_cause(record)
    if warning:
        return warning
    if sync:
        f = sync[0]
        return msg("cause.synccheck", message=f["message"], line=f.get("line") or "?")
    races = tool_findings(record, "racecheck")
    tool = msg("tool.racecheck")
    if not races:
        # the two lines in source order, as racecheck's report names them
        races = [{**f, **in_order(f)} for f in emu]
        tool = msg("tool.emulator")
    if not races:
        return None
    f = max(races, key=lambda r: (r.get("count", 1), -(r.get("other_line") or 0)))
    key = {"write-after-read": "cause.war", "read-after-write": "cause.raw"}.get(f["kind"], "cause.waw")
    return msg(key, tool=tool, other=f.get("other_line") or "?", line=f.get("line") or "?")


def memory_cause(record: dict) -> Message | None:
    """memory-safe failed with C right: a read of shared memory no thread wrote, named at its line."""
    uninit = next((f for f in memory_findings(record) if f["kind"] == "uninitialized shared read"), None)
    return _uninit_cause(record, uninit) if uninit else None


define(
    "cause.index_stride",
    en="an access outside A, B or C although the guard at line {guard} holds: the index at line {line} ({text}) "
    "uses the wrong row stride; A is M×K (A[row * K + k]), B is K×N (B[k * N + col]), C is M×N (C[row * N + col])",
    zh="尽管第 {guard} 行的判断成立，仍然访问到了 A、B 或 C 之外：第 {line} 行（{text}）的下标用错了行跨度；A 是 M×K"
    "（A[row * K + k]），B 是 K×N（B[k * N + col]），C 是 M×N（C[row * N + col]）",
)
define(
    "cause.oob_index",
    en="a write outside C at line {line} ({text}) although the guard at line {guard} holds: the index itself "
    "runs past C; element (row, col) of C is C[row * N + col]",
    zh="尽管第 {guard} 行的判断成立，第 {line} 行（{text}）仍写到了 C 之外：下标本身超出了 C；C 的元素 (row, col) 是 "
    "C[row * N + col]",
)
define(
    "fix.tile_a",
    en="store tile_A[threadIdx.y][threadIdx.x] = A[row][t·TILE + threadIdx.x] and read tile_A[threadIdx.y][k]",
    zh="写入 tile_A[threadIdx.y][threadIdx.x] = A[row][t·TILE + threadIdx.x]，读取 tile_A[threadIdx.y][k]",
)
define(
    "fix.tile_b",
    en="store tile_B[threadIdx.y][threadIdx.x] = B[t·TILE + threadIdx.y][col] and read tile_B[k][threadIdx.x]",
    zh="写入 tile_B[threadIdx.y][threadIdx.x] = B[t·TILE + threadIdx.y][col]，读取 tile_B[k][threadIdx.x]",
)
define(
    "fix.tile_bt",
    en="store the transposed tile as tile_Bt[threadIdx.x][threadIdx.y] = B[t·TILE + threadIdx.y][col] and read "
    "tile_Bt[threadIdx.x][k]",
    zh="把转置的分块写成 tile_Bt[threadIdx.x][threadIdx.y] = B[t·TILE + threadIdx.y][col]，读取 tile_Bt[threadIdx.x][k]",
)
define(
    "cause.guard_incomplete",
    en="a write outside C at line {line} ({text}): the guard at line {guard} checks one dimension only; add "
    "{missing}: write if (row < M && col < N)",
    zh="第 {line} 行（{text}）写到了 C 之外：第 {guard} 行的判断只检查了一个维度；加上 {missing}："
    "写成 if (row < M && col < N)",
)
define(
    "cause.read_padding",
    en="the loop at line {line} ({text}) runs one step past the tile and reads shared words no thread has written "
    "(the padding, or past the array; emulated on the CPU): run k while k < TILE",
    zh="第 {line} 行（{text}）的循环比分块多走了一步，读取了没有线程写过的共享内存字（填充列或数组之外；在 CPU 上模拟）："
    "让 k 在 k < TILE 时循环",
)
define(
    "cause.accumulates_at",
    en="C is right when it starts zeroed and wrong when it starts poisoned (emulated on the CPU): line {line} "
    "({text}) adds into C and reads what was there; sum into a register (float sum = 0.0f) and store it once",
    zh="C 预先清零时结果正确，预先填入毒值时结果错误（在 CPU 上模拟）：第 {line} 行（{text}）把结果累加进 C，"
    "读到了原来的值；在寄存器里求和（float sum = 0.0f），最后只写一次",
)
define(
    "cause.grid_axes_at",
    en="right when M = N ({good}, and every square size), wrong when M ≠ N ({bad}) (emulated on the CPU): the "
    "grid's x covers the columns of C (N) and y the rows (M); line {line} ({text}): take row from "
    "blockIdx.y·blockDim.y + threadIdx.y and col from blockIdx.x·blockDim.x + threadIdx.x",
    zh="M = N 时（{good}，以及每个方阵尺寸）结果正确，M ≠ N 时（{bad}）错误（在 CPU 上模拟）：网格的 x 覆盖 C 的列（N），"
    "y 覆盖行（M）；第 {line} 行（{text}）：row 取 blockIdx.y·blockDim.y + threadIdx.y，"
    "col 取 blockIdx.x·blockDim.x + threadIdx.x",
)
define(
    "cause.tile_loop_bound",
    en="the loop at line {line} ({text}) runs past the tile (while {bound}) and reads outside the shared arrays: "
    "a loop over one tile runs while k < TILE (the tile's width along K)",
    zh="第 {line} 行（{text}）的循环（条件 {bound}）超出了分块，读到了共享数组之外：遍历一个分块的循环应在 k < TILE"
    "（分块沿 K 的宽度）时进行",
)
define(
    "cause.or_guard_read",
    en="threads read outside A or B at line {line} ({text}): the guard uses || where both conditions must hold: "
    "write &&",
    zh="第 {line} 行（{text}）有线程读到了 A 或 B 之外：判断用了 ||，但两个条件必须同时成立：写成 &&",
)
define(
    "cause.loop_le",
    en="the loop at line {line} ({text}) runs one step too far ({cond}) and reaches past the matrix: a loop over "
    "K runs while k < K",
    zh="第 {line} 行（{text}）的循环多走了一步（{cond}），越出了矩阵：遍历 K 的循环应在 k < K 时进行",
)
