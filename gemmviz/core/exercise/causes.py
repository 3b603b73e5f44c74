"""Why C is wrong, from evidence: each cause here is a claim the checker has tested — the
facts of the wrong C (core/exercise/diagnose.py), the sizes where the kernel is right and where it is wrong, and
the emulator's experiments — and it names the line, what is wrong there and the fix. A claim the data
contradicts is never made: "right at multiples of the tile" only when every such size passed, "square vs
non-square" only when every square size passed, "never written" only when no element of C was written. Where no
test tells the cause, the cause says so, names the sizes and points at the error map. Pure Python.

Here: what the layout of the wrong C says (a region never written, a constant offset or scale, whole numbers,
blocks transposed, one wrong column or row per block) and the cause where no test tells it. What the partial
sums over k say is k_sums.py, what the emulator's experiments say experiments.py, what all of them read of the
record evidence.py; their names are importable from here as before."""

from __future__ import annotations

import re

from gemmviz.core.exercise import where
from gemmviz.core.exercise.evidence import block_tile, line_msg, record_source, sizes, tile_k
from gemmviz.core.exercise.k_sums import k_loop_cause, partial_cause
from gemmviz.core.messages import Message, define, msg

__all__ = [  # what callers import from here (some of it lives in evidence.py and k_sums.py)
    "block_tile",
    "facts_cause",
    "grid_axes_tested",
    "k_loop_cause",
    "line_msg",
    "sizes",
    "tile_k",
    "tile_multiples_right",
    "unknown_cause",
]


def facts_cause(record: dict) -> Message | None:
    """A cause from what the wrong C is made of, at the sizes the check ran and in the K experiment."""
    bad = [s for s in record.get("shapes") or [] if s.get("status") == "wrong"]
    with_facts = [s for s in bad if s.get("facts")]
    exp = (record.get("emulator") or {}).get("experiments") or {}
    if not with_facts and not exp.get("multi_k_facts"):
        return None
    source = record_source(record)
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
        return line_msg("cause.never_written", record, line, shape=first)
    if written == {"column 0"}:
        return line_msg("cause.only_col0", record, where.store_line(source), shape=first)
    if written == {"row 0"}:
        return line_msg("cause.only_row0", record, where.store_line(source), shape=first)
    region = _region_cause(record, with_facts)
    if region:
        return region
    affine = _affine_cause(record, with_facts)
    if affine:
        return affine
    if with_facts and all(s["facts"].get("whole_numbers") for s in with_facts):
        if where.int_line(source) is None and all(s["facts"].get("zeros") for s in with_facts):
            return line_msg("cause.zeros", record, where.store_line(source), shape=first)
        return _whole(record, first)
    partial = partial_cause(record, with_facts, exp)
    if partial:
        return partial
    return _structure_cause(record, with_facts, first)


def _structure_cause(record: dict, with_facts: list[dict], first: list) -> Message | None:
    """Blocks or pieces of C transposed, or wrong only in every TILE-th column or row."""
    source = record_source(record)
    widths = {s["facts"].get("transposed_blocks") for s in with_facts}
    if with_facts and len(widths) == 1 and None not in widths:
        width = widths.pop()
        cols, rows = block_tile(record)
        if width == rows:
            line = where.assign_line(source, "row") or where.store_line(source)
            return line_msg("cause.blocks_transposed", record, line, shape=first)
        line = where.add_line(source) or where.store_line(source)
        return line_msg("cause.pieces_transposed", record, line, shape=first, width=width)
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
    source = record_source(record)
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
                return line_msg("cause.first_block_only", record, stop, shape=s["shape"], axis=axis, last=last)
            key = "cause.cols_first_block" if axis == "x" else "cause.rows_first_block"
            return line_msg(key, record, line, shape=s["shape"], last=last)
        if f.get("written_diagonal"):
            line = where.assign_line(source, "row") or where.store_line(source)
            return line_msg("cause.diagonal_blocks", record, line, shape=s["shape"])
        if f.get("written_first"):
            line = where.assign_line(source, "row") or where.store_line(source)
            return line_msg("cause.first_elements", record, line, shape=s["shape"], n=f["written_first"])
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
    source = record_source(record)
    name = where.accumulator(source)
    line = where.declaration_line(source, name) if abs(scale - 1) < 1e-3 else where.add_line(source)
    line = line or where.store_line(source)
    shape = with_facts[-1]["shape"]
    if abs(scale - 1) < 1e-3:
        return line_msg(
            "cause.offset", record, line, shape=shape, offset=f"{offset:g}", store=where.store_line(source) or "?"
        )
    return line_msg("cause.scale", record, line, shape=shape, scale=f"{scale:g}", offset=f"{offset:g}")


def _region_first_block(record: dict, index_line: int | None, axis: str) -> int | None:
    """Where the blocks after the first stop: a line that tests blockIdx.{axis} (an early return, a guard),
    where the index itself (at `index_line`) moves with the block."""
    source = record_source(record)
    text = where.source_line(record, index_line)
    if f"blockIdx.{axis}" not in text:
        return None
    lines = where.code_lines(source)
    for i, t in enumerate(lines):
        if f"blockIdx.{axis}" in t and re.search(r"\bif\b|\breturn\b|\?", t) and i + 1 != index_line:
            return i + 1
    return where.store_line(source)


def _whole(record: dict, shape: list) -> Message:
    source = record_source(record)
    line = where.int_line(source)
    if line is None:
        return msg("cause.whole_numbers_unseen", shape=shape)
    return line_msg("cause.whole_numbers", record, line, shape=shape, name=where.accumulator(source))


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
    "cause.pieces_transposed",
    en="each {width}×{width} piece of C holds its right piece transposed at {shape}: a thread's results are "
    "computed or stored with i and j swapped; line {line} ({text}): acc[i][j] += regM[i] * regN[j], stored at "
    "row base + i, column base + j",
    zh="在 {shape} 上 C 的每个 {width}×{width} 小块都是正确小块的转置：线程的结果在计算或写回时 i 和 j 交换了；第 {line} 行"
    "（{text}）：acc[i][j] += regM[i] * regN[j]，写回到行基址 + i、列基址 + j",
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
