"""Why C is wrong, from evidence: each cause here is a claim the checker has tested — the
facts of the wrong C (core/exercise/diagnose.py), the sizes where the kernel is right and where it is wrong, and
the emulator's experiments — and it names the line, what is wrong there and the fix. A claim the data
contradicts is never made: "right at multiples of the tile" only when every such size passed, "square vs
non-square" only when every square size passed, "never written" only when no element of C was written. Where no
test tells the cause, the cause says so, names the sizes and points at the error map. Pure Python."""

from __future__ import annotations

import re

from gemmviz.core.exercise import where
from gemmviz.core.messages import Message, define, msg


def sizes(record: dict) -> tuple[list, list]:
    """(the sizes where C was right, the sizes where it was wrong), as the check ran them."""
    shapes = record.get("shapes") or []
    right = [s["shape"] for s in shapes if s.get("status") == "ok"]
    wrong = [s["shape"] for s in shapes if s.get("status") == "wrong"]
    return right, wrong


def tile_k(record: dict) -> int:
    """The exercise's tile width along K (TILE or BK), from the experiments or the shipped exercise."""
    exp = (record.get("emulator") or {}).get("experiments") or {}
    if exp.get("one_k_shape"):
        return int(exp["one_k_shape"][2])
    try:
        from gemmviz.core.exercise.exercises import find_exercise

        defines = find_exercise(record.get("exercise") or "").defines
    except (ValueError, OSError):
        return 16
    return int(defines.get("TILE") or defines.get("BK") or 16)


def block_tile(record: dict) -> tuple[int, int]:
    """(columns, rows) of C per block of the record's exercise; (16, 16) where it is not a shipped one."""
    try:
        from gemmviz.core.exercise.exercises import find_exercise

        return find_exercise(record.get("exercise") or "").block_tile
    except (ValueError, OSError):
        return 16, 16


def _src(record: dict) -> str:
    return record.get("source") or ""


def _line_msg(key: str, record: dict, line: int | None, **params) -> Message:
    return msg(key, line=line or "?", text=where.source_line(record, line), **params)


def k_loop_cause(record: dict, used: int, shape: list) -> Message:
    """C is A·B over only the first `used` of K: the loop stops early (the last, partial tile skipped)."""
    line = where.tiles_loop_line(record) or where.tile_loop_line(record.get("source") or "")
    return _line_msg("cause.last_k_tile", record, line, used=used, shape=shape)


def facts_cause(record: dict) -> Message | None:
    """A cause from what the wrong C is made of, at the sizes the check ran and in the K experiment."""
    bad = [s for s in record.get("shapes") or [] if s.get("status") == "wrong"]
    with_facts = [s for s in bad if s.get("facts")]
    exp = (record.get("emulator") or {}).get("experiments") or {}
    if not with_facts and not exp.get("multi_k_facts"):
        return None
    source = _src(record)
    written = {s["facts"].get("written") for s in with_facts}
    findings = (record.get("emulator") or {}).get("findings") or []
    if written - {"all"} and any(f["kind"] == "uninit-shared" for f in findings):
        written = {"unsure"}  # unwritten shared memory reads as NaN: a NaN in C may have been written
    largest = sorted(with_facts or bad, key=lambda s: -s["shape"][0] * s["shape"][1] * s["shape"][2])
    first: list = largest[0]["shape"] if largest else exp.get("multi_k_shape") or []
    if with_facts and written == {"none"}:
        line = where.store_line(source)
        if line is None:
            return msg("cause.no_store", shape=first)
        return _line_msg("cause.never_written", record, line, shape=first)
    if written == {"column 0"}:
        return _line_msg("cause.only_col0", record, where.store_line(source), shape=first)
    if written == {"row 0"}:
        return _line_msg("cause.only_row0", record, where.store_line(source), shape=first)
    region = _region_cause(record, with_facts)
    if region:
        return region
    affine = _affine_cause(record, with_facts)
    if affine:
        return affine
    if with_facts and all(s["facts"].get("whole_numbers") for s in with_facts):
        if where.int_line(source) is None and all(s["facts"].get("zeros") for s in with_facts):
            return _line_msg("cause.zeros", record, where.store_line(source), shape=first)
        return _whole(record, first)
    partial = _partial_cause(record, with_facts, exp)
    if partial:
        return partial
    return _structure_cause(record, with_facts, first)


def _structure_cause(record: dict, with_facts: list[dict], first: list) -> Message | None:
    """Blocks or pieces of C transposed, or wrong only in every TILE-th column or row."""
    source = _src(record)
    widths = {s["facts"].get("transposed_blocks") for s in with_facts}
    if with_facts and len(widths) == 1 and None not in widths:
        width = widths.pop()
        cols, rows = block_tile(record)
        if width == rows:
            line = where.assign_line(source, "row") or where.store_line(source)
            return _line_msg("cause.blocks_transposed", record, line, shape=first)
        line = where.add_line(source) or where.store_line(source)
        return _line_msg("cause.pieces_transposed", record, line, shape=first, width=width)
    every = next((s for s in with_facts if s["facts"].get("wrong_cols_every")), None)
    if every is not None:
        j, period = every["facts"]["wrong_cols_every"]
        return msg("cause.every_col", col=j, period=period, shape=every["shape"], right=sizes(record)[0])
    every = next((s for s in with_facts if s["facts"].get("wrong_rows_every")), None)
    if every is not None:
        j, period = every["facts"]["wrong_rows_every"]
        return msg("cause.every_row", row=j, period=period, shape=every["shape"], right=sizes(record)[0])
    return None


def _region_cause(record: dict, with_facts: list[dict]) -> Message | None:
    """Only the first block's columns or rows of C written, or only the first elements in row-major order."""
    source = _src(record)
    cols, rows = block_tile(record)
    for s in with_facts:
        f = s["facts"]
        m, n, _k = s["shape"]
        box = f.get("written_box")
        sides = (
            ("x", "col", box[3] if box else 0, box and box[1] == m - 1),
            ("y", "row", box[1] if box else 0, box and box[3] == n - 1),
        )
        for axis, part, last, short in sides:
            size = cols if axis == "x" else rows
            if not short or last >= (n if axis == "x" else m) - 1 or last >= size:
                continue
            line = where.assign_line(source, part) or where.store_line(source)
            stop = _region_first_block(record, line, axis)
            if stop is not None:
                return _line_msg("cause.first_block_only", record, stop, shape=s["shape"], axis=axis, last=last)
            key = "cause.cols_first_block" if axis == "x" else "cause.rows_first_block"
            return _line_msg(key, record, line, shape=s["shape"], last=last)
        if f.get("written_diagonal"):
            line = where.assign_line(source, "row") or where.store_line(source)
            return _line_msg("cause.diagonal_blocks", record, line, shape=s["shape"])
        if f.get("written_first"):
            line = where.assign_line(source, "row") or where.store_line(source)
            return _line_msg("cause.first_elements", record, line, shape=s["shape"], n=f["written_first"])
    return None


def _affine_cause(record: dict, with_facts: list[dict]) -> Message | None:
    """C = A·B + c, or s·A·B with s not a whole number, at every wrong size alike."""
    sized = [s for s in with_facts if s["shape"][0] * s["shape"][1] >= 4]  # 1×1×1 fits any line
    fits = {tuple(s["facts"]["affine"]) for s in sized if s["facts"].get("affine")}
    if len(fits) != 1 or not all(s["facts"].get("affine") for s in sized):
        return None
    scale, offset = fits.pop()
    if abs(offset) < 1e-4 and abs(scale - round(scale)) < 1e-4:  # 0·A·B or n·A·B: the zeros and the counts say it
        return None
    source = _src(record)
    name = where.accumulator(source)
    line = where.declaration_line(source, name) if abs(scale - 1) < 1e-3 else where.add_line(source)
    line = line or where.store_line(source)
    shape = with_facts[-1]["shape"]
    if abs(scale - 1) < 1e-3:
        return _line_msg(
            "cause.offset", record, line, shape=shape, offset=f"{offset:g}", store=where.store_line(source) or "?"
        )
    return _line_msg("cause.scale", record, line, shape=shape, scale=f"{scale:g}", offset=f"{offset:g}")


def _region_first_block(record: dict, index_line: int | None, axis: str) -> int | None:
    """Where the blocks after the first stop: a line that tests blockIdx.{axis} (an early return, a guard),
    where the index itself (at `index_line`) moves with the block."""
    source = _src(record)
    text = where.source_line(record, index_line)
    if f"blockIdx.{axis}" not in text:
        return None
    lines = where.code_lines(source)
    for i, t in enumerate(lines):
        if f"blockIdx.{axis}" in t and re.search(r"\bif\b|\breturn\b|\?", t) and i + 1 != index_line:
            return i + 1
    return where.store_line(source)


def _whole(record: dict, shape: list) -> Message:
    source = _src(record)
    line = where.int_line(source)
    if line is None:
        return msg("cause.whole_numbers_unseen", shape=shape)
    return _line_msg("cause.whole_numbers", record, line, shape=shape, name=where.accumulator(source))


def _ranges(runs: list[list[int]], count: int) -> list[str]:
    """The k's of `runs` with this count, as '0', '15–31'."""
    return [str(a) if a == b else f"{a}–{b}" for a, b, c in runs if c == count]


def _partial_cause(record: dict, with_facts: list[dict], exp: dict) -> Message | None:
    """C as a sum of A[:, k]·B[k, :] with whole counts: which k's are missing or counted twice, and the line."""
    source = _src(record)
    tk = tile_k(record)
    cases = [(s["shape"], s["facts"]["k_counts"]) for s in with_facts if s["facts"].get("k_counts")]
    if exp.get("multi_k_facts", {}).get("k_counts"):
        cases.append((exp["multi_k_shape"], exp["multi_k_facts"]["k_counts"]))
    for shape, facts in _with(with_facts, exp, "k_every"):
        j, period, count = facts["k_every"]
        line = where.k_loop_line(source) if count == 0 else where.tile_loop_line(source)
        key = "cause.k_every_missing" if count == 0 else "cause.k_every_more"
        return _line_msg(key, record, line, shape=shape, j=j, period=period, count=count)
    for shape, facts in _with(with_facts, exp, "fixed_tile"):
        matrix, width = facts["fixed_tile"]
        line = where.index_line(source, matrix) or where.load_line(source, matrix)
        return _line_msg("cause.fixed_tile", record, line, shape=shape, matrix=matrix, width=width)
    tail = _tail_cause(record, cases, exp, tk)
    if tail:
        return tail
    for shape, runs in cases:
        found = _case_cause(record, shape, runs, tk)
        if found:
            return found
    return _k_experiment_cause(record, exp, tk)


def _case_cause(record: dict, shape: list, runs: list[list[int]], tk: int) -> Message | None:
    """What one size's counts of k say: the first tile repeated, a prefix of K, a stale tile, k's missing or
    counted twice."""
    source = _src(record)
    k = shape[2]
    counts = {c for _a, _b, c in runs}
    if counts == {0}:  # C is zero: no partial sum to speak of
        return None
    if len(counts) == 1 and counts != {1}:  # every product counted the same number of times: C = n·A·B
        line = where.add_line(source) or where.k_loop_line(source)
        return _line_msg("cause.all_times", record, line, shape=shape, times=counts.pop())
    # the first tile counted once per tile: a tile index without t
    if len(runs) == 2 and runs[0][0] == 0 and runs[0][2] > 1 and runs[1][2] == 0 and runs[1][1] == k - 1:
        width, times = runs[0][1] + 1, runs[0][2]
        line_a, line_b = where.index_line(source, "A"), where.index_line(source, "B")
        matrix = "A" if line_a and not line_b else "B" if line_b and not line_a else "A and B"
        line = line_a or line_b or where.load_line(source, "A")
        return _line_msg("cause.tile_repeated", record, line, shape=shape, width=width, times=times, matrix=matrix)
    # a prefix of K: the loop stops early, or a guard zeroes k from N or M on
    if len(runs) == 2 and runs[0] == [0, runs[0][1], 1] and runs[1][2] == 0 and runs[1][1] == k - 1:
        used = runs[0][1] + 1
        guard = where.k_guard_line(source)
        if guard and used in (shape[0], shape[1]):
            if guard in where.loop_lines(source):
                return _line_msg("cause.k_dim", record, guard, used=used, shape=shape)
            return _line_msg("cause.guard_dims", record, guard)
        line = where.tile_loop_line(source)
        return _line_msg("cause.k_prefix", record, line, shape=shape, used=used, tile=tk)
    stale = _stale_tile(shape, runs, tk)
    if stale is not None:
        line = where.shared_store_line(source, "A") or where.load_line(source, "A")
        return _line_msg("cause.stale_tile", record, line, shape=shape, twice=stale)
    if counts <= {0, 1, 2} and (0 in counts or 2 in counts):
        missing, twice = _ranges(runs, 0), _ranges(runs, 2)
        line = where.k_loop_line(source) if 0 in counts else where.tile_loop_line(source)
        key = "cause.k_missing" if not twice else "cause.k_twice" if not missing else "cause.k_partial"
        return _line_msg(key, record, line, shape=shape, missing=missing[:8], twice=twice[:8], tile=tk)
    return None


def _k_experiment_cause(record: dict, exp: dict, tk: int) -> Message | None:
    """What the experiments with I and with K of one tile against four say."""
    source = _src(record)
    gathered = _gather_cause(record, exp)
    if gathered:
        return gathered
    if exp.get("multi_k") == "wrong" and exp.get("k_square") == "right":
        line = where.mixed_stride_line(source)
        return _line_msg("cause.k_stride", record, line, several=exp["multi_k_shape"], square=exp["k_square_shape"])
    if exp.get("one_k") == "right" and exp.get("multi_k") == "wrong":
        line = where.reset_line(source) or where.index_line(source, "A") or where.index_line(source, "B")
        line = line or where.tile_loop_line(source)
        return _line_msg("cause.multi_k", record, line, one=exp["one_k_shape"], several=exp["multi_k_shape"], tile=tk)
    return None


def _tail_cause(record: dict, cases: list, exp: dict, tk: int) -> Message | None:
    """What the k's at the end of K say, where every case agrees: only the last tile kept (a reset inside the
    loop), only the last k kept (sum = instead of +=), the last k missing, the last partial tile skipped."""
    source = _src(record)
    if not cases:
        return None

    def last_only(shape, runs):  # zero up to `start`, one from there to the end
        ok = len(runs) == 2 and runs[0][:1] + runs[0][2:] == [0, 0] and runs[1][1:] == [shape[2] - 1, 1]
        return runs[1][0] if ok else None

    starts = [(shape, last_only(shape, runs)) for shape, runs in cases]
    if all(start is not None for _shape, start in starts):
        tiles = all(start == (shape[2] - 1) // tk * tk for shape, start in starts)
        single = all(start == shape[2] - 1 for shape, start in starts)
        shape, start = starts[-1]
        if tiles and not single:
            line = where.reset_line(source)
            if line is not None:
                one = exp.get("one_k_shape") or ""
                return _line_msg("cause.reset_in_loop", record, line, shape=shape, first=start, one=one)
            return _line_msg("cause.last_tile_only", record, where.tile_loop_line(source), shape=shape, first=start)
        if single and not tiles:
            return _line_msg("cause.assigned", record, where.add_line(source), shape=shape)
    prefix = [
        (shape, runs[0][1] + 1) for shape, runs in cases if len(runs) == 2 and runs[0][:1] + runs[0][2:] == [0, 1]
    ]
    if len(prefix) != len(cases) or any(runs[1][2] != 0 for _s, runs in cases):
        return None
    right_k = [s["shape"] for s in record.get("shapes") or [] if s.get("status") == "ok" and s["shape"][2] > 1]
    if exp.get("multi_k") == "right":
        right_k.append(exp["multi_k_shape"])
    if all(used == shape[2] // tk * tk for shape, used in prefix) and all(k % tk == 0 for _m, _n, k in right_k):
        return k_loop_cause(record, prefix[0][1], prefix[0][0])
    if all(used == shape[2] - 1 for shape, used in prefix) and not right_k:
        return _line_msg("cause.k_last_missing", record, where.k_loop_line(source), shape=prefix[0][0])
    return None


def _stale_tile(shape: list, runs: list[list[int]], tk: int) -> str | None:
    """'49–63' where C counts again the k's of the tile before the last, partial one, exactly those the partial
    tile's loads leave unwritten (the last tile keeps the previous tile's values: no zero fill); None otherwise."""
    k = shape[2]
    rem = k % tk
    if not rem or k < tk:
        return None
    start = k - rem  # the last tile's first k
    want = [[0, start - (tk - rem) - 1, 1], [start - (tk - rem), start - 1, 2], [start, k - 1, 1]]
    return f"{want[1][0]}–{want[1][1]}" if runs == [w for w in want if w[0] <= w[1]] else None


# a wrong gather rule of a matrix's row or column: (the thread coordinate it came from, the one it needs)
_GATHER = {"r@c": ("threadIdx.x", "threadIdx.y"), "c@r": ("threadIdx.y", "threadIdx.x")}


def _gather_cause(record: dict, exp: dict) -> Message | None:
    """With B = I (A = I), C holds A's (B's) elements at other places by a rule: which index is wrong."""
    source = _src(record)
    both = [exp.get("gather_A"), exp.get("gather_B")]
    rule = next((r for r in (both[0] or []) + (both[1] or []) if r in _GATHER), None)
    if all(both) and ["r@c", "c@r"] not in both and rule is not None:
        # with A = I and with B = I alike: not one matrix's load, but what the multiply-adds read, or C's index
        used, needed = _GATHER[rule]
        line = where.add_line(source) or where.store_line(source)
        return _line_msg("cause.gathered_both", record, line, used=used, needed=needed)
    for matrix in ("A", "B"):
        rules = exp.get(f"gather_{matrix}")
        if not rules or rules == ["r@c", "c@r"]:  # the tile transposed: the experiment with I says so
            continue
        for part, rule, right in (("row", rules[0], "r"), ("column", rules[1], "c")):
            if rule == right or rule not in _GATHER:
                continue
            used, needed = _GATHER[rule]
            name = {("A", "column"): "a_col", ("B", "row"): "b_row"}.get((matrix, part), part[:3])
            line = where.assign_line(source, name) if name in ("a_col", "b_row") else None
            line = line or where.shared_store_line(source, matrix) or where.load_line(source, matrix)
            identity = "B" if matrix == "A" else "A"
            params = {"matrix": matrix, "part": part, "used": used, "needed": needed, "identity": identity}
            return _line_msg("cause.gathered", record, line, shape=exp.get("square_shape") or "", **params)
        return msg("cause.gathered_swap", matrix=matrix, identity="B" if matrix == "A" else "A")
    return None


def _with(with_facts: list[dict], exp: dict, key: str) -> list[tuple[list, dict]]:
    """(shape, facts) of the wrong sizes, then of the K experiment, whose facts hold `key`."""
    out = [(s["shape"], s["facts"]) for s in with_facts if s["facts"].get(key)]
    if (exp.get("multi_k_facts") or {}).get(key):
        out.append((exp["multi_k_shape"], exp["multi_k_facts"]))
    return out


def unknown_cause(record: dict) -> Message:
    """What the checker says where no test tells the cause: the sizes, and the map below."""
    right, wrong = sizes(record)
    bad = [s for s in record.get("shapes") or [] if s.get("status") == "wrong"]
    first = max(bad, key=lambda s: s["shape"][0] * s["shape"][1] * s["shape"][2]) if bad else None
    reason = msg("goal.text", text=first["reason"]) if first and first.get("reason") else msg("reason.wrong")
    if not right:
        return msg("cause.unknown_all", reason=reason, wrong=wrong)
    return msg("cause.unknown", reason=reason, right=right, wrong=wrong)


def grid_axes_tested(record: dict) -> bool:
    """Whether every square size the check ran was right (the claim "right when M = N" holds)."""
    return all(s.get("status") == "ok" for s in record.get("shapes") or [] if s["shape"][0] == s["shape"][1])


def tile_multiples_right(record: dict) -> bool:
    """Whether every size the check ran that is a multiple of the tile in M, N and K was right, and the K
    experiment too (the claim "right at multiples of the tile" holds)."""
    cols, rows = block_tile(record)
    tk = tile_k(record)
    for s in record.get("shapes") or []:
        m, n, k = s["shape"]
        if m % rows == 0 and n % cols == 0 and k % tk == 0 and s.get("status") != "ok":
            return False
    exp = (record.get("emulator") or {}).get("experiments") or {}
    return exp.get("multi_k", "right") == "right" and exp.get("one_k", "right") == "right"


define(
    "cause.no_store",
    en="no element of C is written at {shape}, and the kernel has no store into C: write C[row * N + col] = sum "
    "inside if (row < M && col < N)",
    zh="在 {shape} 上 C 的元素一个也没有写入，核函数中没有写 C 的语句：在 if (row < M && col < N) 里写 "
    "C[row * N + col] = sum",
)
define(
    "cause.only_col0",
    en="only column 0 of C is written at {shape}: the store at line {line} ({text}) leaves the column out of the "
    "index, so every thread of a row writes C[row][0]; write C[row * N + col]",
    zh="在 {shape} 上只有 C 的第 0 列被写入：第 {line} 行（{text}）的写回下标里没有列，同一行的所有线程都写 C[row][0]；"
    "写成 C[row * N + col]",
)
define(
    "cause.only_row0",
    en="only row 0 of C is written at {shape}: the store at line {line} ({text}) leaves the row out of the index, "
    "so every thread of a column writes C[0][col]; write C[row * N + col]",
    zh="在 {shape} 上只有 C 的第 0 行被写入：第 {line} 行（{text}）的写回下标里没有行，同一列的所有线程都写 C[0][col]；"
    "写成 C[row * N + col]",
)
define(
    "cause.whole_numbers",
    en="every element of C is a whole number at {shape}, and A·B's are not: the sum is cut to an integer at "
    "line {line} ({text}); keep it in a float: declare {name} float, not int, and cast nothing to int",
    zh="在 {shape} 上 C 的每个元素都是整数，而 A·B 的不是：第 {line} 行（{text}）把和截成了整数；用 float 保存它"
    "：把 {name} 声明为 float 而不是 int，也不要转换成 int",
)
define(
    "cause.whole_numbers_unseen",
    en="every element of C is a whole number at {shape}, and A·B's are not: somewhere the sum is cut to an "
    "integer (an int accumulator, an (int) cast, a float-to-int call); the checker found no such line, so look "
    "for one that keeps the sum or a product in an integer",
    zh="在 {shape} 上 C 的每个元素都是整数，而 A·B 的不是：某处把和截成了整数（int 累加器、(int) 转换或浮点转整数的"
    "函数）；检查器没有找到这样的行，请找出把和或乘积存为整数的地方",
)
define(
    "cause.zeros",
    en="every element of C is 0 at {shape}: the value stored at line {line} ({text}) never receives the "
    "multiply-adds (the loop over k does not run, or it adds into another variable); store the sum the loop builds",
    zh="在 {shape} 上 C 的每个元素都是 0：第 {line} 行（{text}）写回的值没有得到乘加的结果（k 的循环没有执行，"
    "或加到了别的变量上）；写回循环累加的那个和",
)
define(
    "cause.reset_in_loop",
    en="C holds only the last tile of K at {shape} (A·B over k ≥ {first}; K of one tile is right: {one}): the sum "
    "is set back to 0 inside the loop over the tiles, at line {line} ({text}); set it to 0 once, before the loop",
    zh="在 {shape} 上 C 只含 K 的最后一个分块（k ≥ {first} 部分的 A·B；K 只有一个分块时正确：{one}）：第 {line} 行"
    "（{text}）在分块循环内把和重置为 0；只在循环之前置 0 一次",
)
define(
    "cause.last_tile_only",
    en="C holds only the last tile of K at {shape} (A·B over k ≥ {first}): what the earlier tiles added is lost in "
    "the loop at line {line} ({text}); keep one sum from the first tile to the last, set to 0 before the loop",
    zh="在 {shape} 上 C 只含 K 的最后一个分块（k ≥ {first} 部分的 A·B）：前面分块加上的值在第 {line} 行（{text}）"
    "的循环中丢失了；从第一个分块到最后一个只用一个和，在循环之前置 0",
)
define(
    "cause.tile_repeated",
    en="C holds the first {width} values of k {times} times over at {shape}: every pass of the loop over the tiles "
    "loads the same tile, because the index of {matrix} at line {line} ({text}) does not move with the tile: add "
    "the tile's offset along K (t * TILE, or k0) to it, as in A[row * K + t * TILE + threadIdx.x]",
    zh="在 {shape} 上 C 把 k 的前 {width} 个值重复累加了 {times} 次：分块循环每一次都加载同一个分块，因为第 {line} 行"
    "（{text}）中 {matrix} 的下标没有随分块移动：把分块沿 K 的偏移（t * TILE 或 k0）加进下标，如 "
    "A[row * K + t * TILE + threadIdx.x]",
)
define(
    "cause.k_missing",
    en="C is A·B without the products of k = {missing} at {shape}: the loop of the multiply-adds at line {line} "
    "({text}) skips them; run k from 0 over every value (k < K, or k < TILE inside a tile of {tile})",
    zh="在 {shape} 上 C 是缺少 k = {missing} 这些乘积的 A·B：第 {line} 行（{text}）的乘加循环跳过了它们；让 k 从 0 走遍"
    "每个值（k < K，或在 {tile} 宽的分块内 k < TILE）",
)
define(
    "cause.k_twice",
    en="C counts the products of k = {twice} twice at {shape}: the loop at line {line} ({text}) visits them twice "
    "(a step or a bound that overlaps the next tile); each k must be summed once",
    zh="在 {shape} 上 C 把 k = {twice} 的乘积算了两次：第 {line} 行（{text}）的循环访问了它们两次（步长或边界与下一个"
    "分块重叠）；每个 k 只能累加一次",
)
define(
    "cause.k_partial",
    en="C is a wrong partial sum of A·B at {shape}: k = {missing} are missing and k = {twice} counted twice; the "
    "loops over K at line {line} ({text}) do not visit each k once",
    zh="在 {shape} 上 C 是错误的部分和：缺少 k = {missing}，而 k = {twice} 算了两次；第 {line} 行（{text}）的 K 循环"
    "没有让每个 k 恰好出现一次",
)
define(
    "cause.multi_k",
    en="right when K is one tile ({one}), wrong when K spans four whole tiles ({several}) (emulated on the CPU): "
    "the sum is not carried from one tile to the next; look at line {line} ({text}): the sum must be set to 0 "
    "once before the loop, and each tile's loads must use the tile number t",
    zh="K 只有一个分块时（{one}）正确，跨四个完整分块时（{several}）错误（在 CPU 上模拟）：和没有从一个分块带到下一个；"
    "看第 {line} 行（{text}）：和只能在循环之前置 0 一次，每个分块的加载都要用分块编号 t",
)
define(
    "cause.blocks_transposed",
    en="each block of C holds its right block transposed at {shape}: inside the block, row comes from threadIdx.x "
    "and col from threadIdx.y; line {line} ({text}): row = blockIdx.y·TILE + threadIdx.y, "
    "col = blockIdx.x·TILE + threadIdx.x",
    zh="在 {shape} 上 C 的每个线程块都是正确结果的转置：在线程块内 row 取自 threadIdx.x，col 取自 threadIdx.y；第 {line} 行"
    "（{text}）：row = blockIdx.y·TILE + threadIdx.y，col = blockIdx.x·TILE + threadIdx.x",
)
define(
    "cause.every_col",
    en="at {shape} C is wrong only in every {period}th column (column {col} of each block) and right elsewhere "
    "(right at {right}): one thread position of the block computes or loads the wrong thing; the checker cannot "
    "point at the line: look for code that treats threadIdx.x == {col} apart (a bound off by one in a tile "
    "loop, a guard). The map below shows the columns",
    zh="在 {shape} 上 C 只在每第 {period} 列（每个线程块的第 {col} 列）错误，其余正确（在 {right} 上正确）：线程块中某个"
    "线程位置算错或加载错了；检查器无法指出是哪一行：找找对 threadIdx.x == {col} 区别对待的代码（分块循环的边界差一、"
    "某个判断）。下面的图显示这些列",
)
define(
    "cause.every_row",
    en="at {shape} C is wrong only in every {period}th row (row {row} of each block) and right elsewhere "
    "(right at {right}): one thread position of the block computes or loads the wrong thing; the checker cannot "
    "point at the line: look for code that treats threadIdx.y == {row} apart. The map below shows the rows",
    zh="在 {shape} 上 C 只在每第 {period} 行（每个线程块的第 {row} 行）错误，其余正确（在 {right} 上正确）：线程块中某个"
    "线程位置算错或加载错了；检查器无法指出是哪一行：找找对 threadIdx.y == {row} 区别对待的代码。下面的图显示这些行",
)
define(
    "cause.unknown",
    en="{reason}: right at {right}, wrong at {wrong}; the checker cannot tell the cause (C is not a partial sum "
    "of A·B, not transposed, not shifted by a tile, not wrong only at the edge): the map below shows which "
    "elements are wrong; compare the indices of the loads and the store at those rows and columns",
    zh="{reason}：在 {right} 上正确，在 {wrong} 上错误；检查器无法判断原因（C 不是 A·B 的部分和，没有转置，没有错开"
    "一个分块，也不只是边缘错误）：下面的图显示哪些元素错误；对照这些行和列检查加载和写回的下标",
)
define(
    "cause.unknown_all",
    en="{reason}: wrong at every size ({wrong}); the checker cannot tell the cause (C is not a partial sum of A·B, "
    "not transposed, not shifted by a tile, not wrong only at the edge): the map below shows which elements are "
    "wrong; compare the indices of the loads and the store at those rows and columns",
    zh="{reason}：在每个尺寸（{wrong}）上都错误；检查器无法判断原因（C 不是 A·B 的部分和，没有转置，没有错开一个"
    "分块，也不只是边缘错误）：下面的图显示哪些元素错误；对照这些行和列检查加载和写回的下标",
)
define(
    "cause.k_every_missing",
    en="C is A·B without the products of every k ≡ {j} (mod {period}) at {shape}: the loop of the multiply-adds "
    "at line {line} ({text}) skips one k in every {period}; step k by 1 over every value (k < K, or k < TILE in a "
    "tile)",
    zh="在 {shape} 上 C 是缺少所有 k ≡ {j}（mod {period}）乘积的 A·B：第 {line} 行（{text}）的乘加循环每 {period} 个 k "
    "跳过一个；让 k 每次加 1，走遍每个值（k < K，或在分块内 k < TILE）",
)
define(
    "cause.k_every_more",
    en="C counts the products of every k ≡ {j} (mod {period}) {count} times at {shape}: the loops at line {line} "
    "({text}) visit those k more than once; each k must be summed once",
    zh="在 {shape} 上 C 把所有 k ≡ {j}（mod {period}）的乘积算了 {count} 次：第 {line} 行（{text}）的循环多次访问了"
    "这些 k；每个 k 只能累加一次",
)
define(
    "cause.fixed_tile",
    en="at {shape} C pairs every tile of the other matrix with the first {width} columns (A) or rows (B) of "
    "{matrix}: {matrix}'s tile index does not move with the tile, at line {line} ({text}); add the tile's offset "
    "along K (t * TILE, or k0) to it, as in B[(t * TILE + threadIdx.y) * N + col]",
    zh="在 {shape} 上 C 把另一个矩阵的每个分块都与 {matrix} 的前 {width} 列（A）或行（B）相乘：第 {line} 行（{text}）"
    "中 {matrix} 的分块下标没有随分块移动；把分块沿 K 的偏移（t * TILE 或 k0）加进下标，如 "
    "B[(t * TILE + threadIdx.y) * N + col]",
)
define(
    "cause.assigned",
    en="C holds only the product of the last k at {shape}: the sum is assigned instead of added to, at line "
    "{line} ({text}); write sum += ..., not sum = ...",
    zh="在 {shape} 上 C 只含最后一个 k 的乘积：第 {line} 行（{text}）对和做了赋值而不是累加；写 sum += ...，"
    "不要写 sum = ...",
)
define(
    "cause.k_prefix",
    en="C is A·B over only the first {used} values of k at {shape}: the later tiles never enter the sum; the "
    "loop over the tiles at line {line} ({text}) stops or steps wrong (t counts tiles of {tile}: "
    "for (t = 0; t < (K + TILE - 1) / TILE; ++t), with the offset t * TILE)",
    zh="在 {shape} 上 C 只是 k 的前 {used} 个值上的 A·B：后面的分块从未加入求和；第 {line} 行（{text}）的分块循环"
    "结束得太早或步长不对（t 是第几个 {tile} 宽的分块：for (t = 0; t < (K + TILE - 1) / TILE; ++t)，偏移是 t * TILE）",
)
define(
    "cause.guard_dims",
    en="the guard at line {line} ({text}) compares an index with the wrong dimension: row runs to M, col to N "
    "(and k, a_col, b_row to K); write row < M && col < N, and compare the tile's k index with K",
    zh="第 {line} 行（{text}）的判断把下标和错误的维度比较：row 到 M 为止，col 到 N 为止（k、a_col、b_row 到 K 为止）；"
    "写成 row < M && col < N，分块的 k 下标与 K 比较",
)
define(
    "cause.cols_first_block",
    en="only columns 0 to {last} of C are written at {shape} (one block's width), in every row: the column index "
    "does not move from block to block; line {line} ({text}): col = blockIdx.x * blockDim.x + threadIdx.x",
    zh="在 {shape} 上只有 C 的第 0 到 {last} 列被写入（一个线程块的宽度），每一行都是：列下标没有随线程块变化；第 {line} 行"
    "（{text}）：col = blockIdx.x * blockDim.x + threadIdx.x",
)
define(
    "cause.rows_first_block",
    en="only rows 0 to {last} of C are written at {shape} (one block's height), in every column: the row index "
    "does not move from block to block; line {line} ({text}): row = blockIdx.y * blockDim.y + threadIdx.y",
    zh="在 {shape} 上只有 C 的第 0 到 {last} 行被写入（一个线程块的高度），每一列都是：行下标没有随线程块变化；第 {line} 行"
    "（{text}）：row = blockIdx.y * blockDim.y + threadIdx.y",
)
define(
    "cause.first_elements",
    en="only the first {n} elements of C in row-major order are written at {shape}: every block computes the same "
    "elements, because the thread's index leaves out blockIdx; line {line} ({text}): row = blockIdx.y * "
    "blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x",
    zh="在 {shape} 上只有 C 按行优先顺序的前 {n} 个元素被写入：每个线程块都在算同样的元素，因为线程的下标没有用 blockIdx；"
    "第 {line} 行（{text}）：row = blockIdx.y * blockDim.y + threadIdx.y，col = blockIdx.x * blockDim.x + threadIdx.x",
)
define(
    "cause.k_last_missing",
    en="C is A·B without its last k (k = K - 1) at every wrong size, first {shape}: the loop at line {line} "
    "({text}) stops one short; run it while k < K",
    zh="在每个出错的尺寸上（首先是 {shape}）C 都缺少最后一个 k（k = K - 1）的乘积：第 {line} 行（{text}）的循环少走了"
    "一步；让它在 k < K 时继续",
)
define(
    "cause.k_stride",
    en="wrong at {several} (K ≠ M, N) but right at {square} where M = N = K (emulated on the CPU): an index uses M "
    "or N where K belongs, or K where N belongs; line {line} ({text}): A[row * K + k], B[k * N + col], "
    "C[row * N + col]",
    zh="在 {several}（K ≠ M、N）上错误，但在 M = N = K 的 {square} 上正确（在 CPU 上模拟）：某个下标把 K 写成了 M 或 N，"
    "或把 N 写成了 K；第 {line} 行（{text}）：A[row * K + k]、B[k * N + col]、C[row * N + col]",
)
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
    "cause.pieces_transposed",
    en="each {width}×{width} piece of C holds its right piece transposed at {shape}: a thread's results are "
    "computed or stored with i and j swapped; line {line} ({text}): acc[i][j] += regM[i] * regN[j], stored at "
    "row base + i, column base + j",
    zh="在 {shape} 上 C 的每个 {width}×{width} 小块都是正确小块的转置：线程的结果在计算或写回时 i 和 j 交换了；第 {line} 行"
    "（{text}）：acc[i][j] += regM[i] * regN[j]，写回到行基址 + i、列基址 + j",
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
    "cause.k_dim",
    en="the loop at line {line} ({text}) runs k to M or N instead of K; C is A·B over only the first {used} of K "
    "at {shape}: run k while k < K",
    zh="第 {line} 行（{text}）的循环让 k 走到 M 或 N 而不是 K；在 {shape} 上 C 只是 K 的前 {used} 项之和："
    "让 k 在 k < K 时循环",
)
# an exercise's own words (its access_fix) in each language, kept in the record as one message
define("fix.exercise", en="{en}{zh:.0}", zh="{zh}{en:.0}")
define(
    "cause.read_padding",
    en="the loop at line {line} ({text}) runs one step past the tile and reads shared words no thread has written "
    "(the padding, or past the array; emulated on the CPU): run k while k < TILE",
    zh="第 {line} 行（{text}）的循环比分块多走了一步，读取了没有线程写过的共享内存字（填充列或数组之外；在 CPU 上模拟）："
    "让 k 在 k < TILE 时循环",
)
define(
    "cause.stale_tile",
    en="C counts k = {twice} twice at {shape}: the last, partial tile of K still holds the previous tile's values "
    "where its loads fall outside K, because they leave the tile unwritten there; store 0.0f in the tile where "
    "t·TILE + threadIdx.x ≥ K (line {line}: {text}), and likewise for B",
    zh="在 {shape} 上 C 把 k = {twice} 算了两次：K 最后一个不完整的分块在加载越出 K 的位置仍保留着上一个分块的值，"
    "因为那里没有写入分块；在 t·TILE + threadIdx.x ≥ K 时向分块写 0.0f（第 {line} 行：{text}），B 也一样",
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
    "cause.gathered",
    en="with {identity} = I, C should be {matrix}, and it holds {matrix}'s elements at other places (emulated on "
    "the CPU): the {part} of {matrix} that a thread loads within the tile comes from {used} where {needed} "
    "belongs; line {line} ({text}): index {matrix}'s {part} by {needed}",
    zh="令 {identity} = I 时 C 应等于 {matrix}，但 C 中 {matrix} 的元素放错了位置（在 CPU 上模拟）：线程在分块内加载的 "
    "{matrix} 的{part}取自 {used}，应取自 {needed}；第 {line} 行（{text}）：用 {needed} 作为 {matrix} 的{part}下标",
)
define(
    "cause.gathered_swap",
    en="with {identity} = I, C should be {matrix}, and it holds {matrix}'s elements with row and column swapped "
    "(emulated on the CPU): a load or the store of {matrix} swaps its two indices",
    zh="令 {identity} = I 时 C 应等于 {matrix}，但 C 中 {matrix} 的元素行列交换了（在 CPU 上模拟）：{matrix} 的某次加载或"
    "写回交换了两个下标",
)
define(
    "cause.tile_loop_bound",
    en="the loop at line {line} ({text}) runs past the tile (while {bound}) and reads outside the shared arrays: "
    "a loop over one tile runs while k < TILE (the tile's width along K)",
    zh="第 {line} 行（{text}）的循环（条件 {bound}）超出了分块，读到了共享数组之外：遍历一个分块的循环应在 k < TILE"
    "（分块沿 K 的宽度）时进行",
)
define("cause.access_at", en="{cause}; line {line} ({text})", zh="{cause}；第 {line} 行（{text}）")
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
define(
    "cause.gathered_both",
    en="with A = I, C should be B, and with B = I, A, and both times C holds the elements at other places by the "
    "same rule (emulated on the CPU): not one matrix's load but the multiply-adds' reads of the tiles (or C's "
    "index) take {used} where {needed} belongs; line {line} ({text})",
    zh="令 A = I 时 C 应等于 B，令 B = I 时应等于 A，两次 C 中的元素都按同一规则放错了位置（在 CPU 上模拟）：不是某个矩阵"
    "的加载，而是乘加读取分块（或 C 的下标）时用了 {used}，应该用 {needed}；第 {line} 行（{text}）",
)
define(
    "cause.all_times",
    en="C is {times}·A·B at {shape}: every product is added {times} times, at line {line} ({text}) or by a loop "
    "around it that runs again; add each product once",
    zh="在 {shape} 上 C 是 {times}·A·B：每个乘积都加了 {times} 次，在第 {line} 行（{text}），或是外面的循环又运行了一遍；"
    "每个乘积只加一次",
)
define(
    "cause.diagonal_blocks",
    en="only the blocks on C's diagonal are written at {shape} (block row = block column): row and col take the "
    "same block index; line {line} ({text}): row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * "
    "blockDim.x + threadIdx.x",
    zh="在 {shape} 上只有 C 对角线上的线程块被写入（块行 = 块列）：row 和 col 用了同一个线程块下标；第 {line} 行（{text}）："
    "row = blockIdx.y * blockDim.y + threadIdx.y，col = blockIdx.x * blockDim.x + threadIdx.x",
)
define(
    "cause.offset",
    en="C is A·B + {offset} at every element at {shape}: a constant is added: the sum starts at {offset} (line "
    "{line}: {text}) or the store at line {store} adds it; start the sum at 0.0f and store it as it is",
    zh="在 {shape} 上 C 的每个元素都是 A·B + {offset}：多加了一个常数：和从 {offset} 开始（第 {line} 行：{text}），"
    "或第 {store} 行的写回加上了它；让和从 0.0f 开始，原样写回",
)
define(
    "cause.scale",
    en="C is {scale}·A·B + {offset} at every element at {shape}: each product is scaled, at line {line} ({text}) or "
    "in the store; add each product A·B once, unscaled",
    zh="在 {shape} 上 C 的每个元素都是 {scale}·A·B + {offset}：乘积被缩放了，在第 {line} 行（{text}）或写回中；每个乘积"
    "只加一次，不缩放",
)
define(
    "cause.first_block_only",
    en="only the first block along {axis} writes C at {shape} (up to index {last}), though the index moves with "
    "blockIdx.{axis}: the other blocks stop before the store, at line {line} ({text}); let every block reach it "
    "and guard only row < M && col < N",
    zh="在 {shape} 上只有沿 {axis} 的第一个线程块写了 C（到下标 {last} 为止），尽管下标随 blockIdx.{axis} 移动：其余线程块在"
    "写回之前就停了，见第 {line} 行（{text}）；让每个线程块都到达写回，只用 row < M && col < N 判断",
)
