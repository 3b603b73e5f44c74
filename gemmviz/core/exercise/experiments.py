"""What the emulator's experiments say of a wrong C: with A = I or B = I, which index gathers a matrix's elements
from the wrong place; K of one tile against four, and M = N = K against K apart, which loop or stride is wrong.
Pure Python."""

from __future__ import annotations

from gemmviz.core.exercise import where
from gemmviz.core.exercise.evidence import line_msg, record_source
from gemmviz.core.messages import Message, define, msg


def k_experiment_cause(record: dict, exp: dict, tk: int) -> Message | None:
    """What the experiments with I and with K of one tile against four say."""
    source = record_source(record)
    gathered = _gather_cause(record, exp)
    if gathered:
        return gathered
    if exp.get("multi_k") == "wrong" and exp.get("k_square") == "right":
        line = where.mixed_stride_line(source)
        return line_msg("cause.k_stride", record, line, several=exp["multi_k_shape"], square=exp["k_square_shape"])
    if exp.get("one_k") == "right" and exp.get("multi_k") == "wrong":
        line = where.reset_line(source) or where.index_line(source, "A") or where.index_line(source, "B")
        line = line or where.tile_loop_line(source)
        return line_msg("cause.multi_k", record, line, one=exp["one_k_shape"], several=exp["multi_k_shape"], tile=tk)
    return None


# a wrong gather rule of a matrix's row or column: (the thread coordinate it came from, the one it needs)
_GATHER = {"r@c": ("threadIdx.x", "threadIdx.y"), "c@r": ("threadIdx.y", "threadIdx.x")}


def _gather_cause(record: dict, exp: dict) -> Message | None:
    """With B = I (A = I), C holds A's (B's) elements at other places by a rule: which index is wrong."""
    source = record_source(record)
    both = [exp.get("gather_A"), exp.get("gather_B")]
    rule = next((r for r in (both[0] or []) + (both[1] or []) if r in _GATHER), None)
    if all(both) and ["r@c", "c@r"] not in both and rule is not None:
        # with A = I and with B = I alike: not one matrix's load, but what the multiply-adds read, or C's index
        used, needed = _GATHER[rule]
        line = where.add_line(source) or where.store_line(source)
        return line_msg("cause.gathered_both", record, line, used=used, needed=needed)
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
            return line_msg("cause.gathered", record, line, shape=exp.get("square_shape") or "", **params)
        return msg("cause.gathered_swap", matrix=matrix, identity="B" if matrix == "A" else "A")
    return None


define(
    "cause.multi_k",
    en="right when K is one tile ({one}), wrong when K spans four whole tiles ({several}) (emulated on the CPU): "
    "the sum is not carried from one tile to the next; look at line {line} ({text}): the sum must be set to 0 "
    "once before the loop, and each tile's loads must use the tile number t",
    zh="K 只有一个分块时（{one}）正确，跨四个完整分块时（{several}）错误（在 CPU 上模拟）：和没有从一个分块带到下一个；"
    "看第 {line} 行（{text}）：和只能在循环之前置 0 一次，每个分块的加载都要用分块编号 t",
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
    "cause.gathered_both",
    en="with A = I, C should be B, and with B = I, A, and both times C holds the elements at other places by the "
    "same rule (emulated on the CPU): not one matrix's load but the multiply-adds' reads of the tiles (or C's "
    "index) take {used} where {needed} belongs; line {line} ({text})",
    zh="令 A = I 时 C 应等于 B，令 B = I 时应等于 A，两次 C 中的元素都按同一规则放错了位置（在 CPU 上模拟）：不是某个矩阵"
    "的加载，而是乘加读取分块（或 C 的下标）时用了 {used}，应该用 {needed}；第 {line} 行（{text}）",
)
