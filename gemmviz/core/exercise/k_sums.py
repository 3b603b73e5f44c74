"""What a wrong C as a partial sum over k says: C = Σ A[:, k]·B[k, :] with each k counted a whole number of times
(core/exercise/diagnose.py finds the counts), so the k's missing or counted twice, the first tile repeated, a
prefix of K, only the last tile kept or a stale partial tile name the loop that is wrong. Pure Python."""

from __future__ import annotations

from gemmviz.core.exercise import where
from gemmviz.core.exercise.evidence import line_msg, record_source, tile_k
from gemmviz.core.exercise.experiments import k_experiment_cause
from gemmviz.core.messages import Message, define


def k_loop_cause(record: dict, used: int, shape: list) -> Message:
    """C is A·B over only the first `used` of K: the loop stops early (the last, partial tile skipped)."""
    line = where.tiles_loop_line(record) or where.tile_loop_line(record.get("source") or "")
    return line_msg("cause.last_k_tile", record, line, used=used, shape=shape)


def _ranges(runs: list[list[int]], count: int) -> list[str]:
    """The k's of `runs` with this count, as '0', '15–31'."""
    return [str(a) if a == b else f"{a}–{b}" for a, b, c in runs if c == count]


def partial_cause(record: dict, with_facts: list[dict], exp: dict) -> Message | None:
    """C as a sum of A[:, k]·B[k, :] with whole counts: which k's are missing or counted twice, and the line."""
    source = record_source(record)
    tk = tile_k(record)
    cases = [(s["shape"], s["facts"]["k_counts"]) for s in with_facts if s["facts"].get("k_counts")]
    if exp.get("multi_k_facts", {}).get("k_counts"):
        cases.append((exp["multi_k_shape"], exp["multi_k_facts"]["k_counts"]))
    for shape, facts in _with(with_facts, exp, "k_every"):
        j, period, count = facts["k_every"]
        line = where.k_loop_line(source) if count == 0 else where.tile_loop_line(source)
        key = "cause.k_every_missing" if count == 0 else "cause.k_every_more"
        return line_msg(key, record, line, shape=shape, j=j, period=period, count=count)
    for shape, facts in _with(with_facts, exp, "fixed_tile"):
        matrix, width = facts["fixed_tile"]
        line = where.index_line(source, matrix) or where.load_line(source, matrix)
        return line_msg("cause.fixed_tile", record, line, shape=shape, matrix=matrix, width=width)
    tail = _tail_cause(record, cases, exp, tk)
    if tail:
        return tail
    for shape, runs in cases:
        found = _case_cause(record, shape, runs, tk)
        if found:
            return found
    return k_experiment_cause(record, exp, tk)


def _case_cause(record: dict, shape: list, runs: list[list[int]], tk: int) -> Message | None:
    """What one size's counts of k say: the first tile repeated, a prefix of K, a stale tile, k's missing or
    counted twice."""
    source = record_source(record)
    k = shape[2]
    counts = {c for _a, _b, c in runs}
    if counts == {0}:  # C is zero: no partial sum to speak of
        return None
    if len(counts) == 1 and counts != {1}:  # every product counted the same number of times: C = n·A·B
        line = where.add_line(source) or where.k_loop_line(source)
        return line_msg("cause.all_times", record, line, shape=shape, times=counts.pop())
    # the first tile counted once per tile: a tile index without t
    if len(runs) == 2 and runs[0][0] == 0 and runs[0][2] > 1 and runs[1][2] == 0 and runs[1][1] == k - 1:
        width, times = runs[0][1] + 1, runs[0][2]
        line_a, line_b = where.index_line(source, "A"), where.index_line(source, "B")
        matrix = "A" if line_a and not line_b else "B" if line_b and not line_a else "A and B"
        line = line_a or line_b or where.load_line(source, "A")
        return line_msg("cause.tile_repeated", record, line, shape=shape, width=width, times=times, matrix=matrix)
    # a prefix of K: the loop stops early, or a guard zeroes k from N or M on
    if len(runs) == 2 and runs[0] == [0, runs[0][1], 1] and runs[1][2] == 0 and runs[1][1] == k - 1:
        used = runs[0][1] + 1
        guard = where.k_guard_line(source)
        if guard and used in (shape[0], shape[1]):
            if guard in where.loop_lines(source):
                return line_msg("cause.k_dim", record, guard, used=used, shape=shape)
            return line_msg("cause.guard_dims", record, guard)
        line = where.tile_loop_line(source)
        return line_msg("cause.k_prefix", record, line, shape=shape, used=used, tile=tk)
    stale = _stale_tile(shape, runs, tk)
    if stale is not None:
        line = where.shared_store_line(source, "A") or where.load_line(source, "A")
        return line_msg("cause.stale_tile", record, line, shape=shape, twice=stale)
    if counts <= {0, 1, 2} and (0 in counts or 2 in counts):
        missing, twice = _ranges(runs, 0), _ranges(runs, 2)
        line = where.k_loop_line(source) if 0 in counts else where.tile_loop_line(source)
        key = "cause.k_missing" if not twice else "cause.k_twice" if not missing else "cause.k_partial"
        return line_msg(key, record, line, shape=shape, missing=missing[:8], twice=twice[:8], tile=tk)
    return None


def _tail_cause(record: dict, cases: list, exp: dict, tk: int) -> Message | None:
    """What the k's at the end of K say, where every case agrees: only the last tile kept (a reset inside the
    loop), only the last k kept (sum = instead of +=), the last k missing, the last partial tile skipped."""
    source = record_source(record)
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
                return line_msg("cause.reset_in_loop", record, line, shape=shape, first=start, one=one)
            return line_msg("cause.last_tile_only", record, where.tile_loop_line(source), shape=shape, first=start)
        if single and not tiles:
            return line_msg("cause.assigned", record, where.add_line(source), shape=shape)
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
        return line_msg("cause.k_last_missing", record, where.k_loop_line(source), shape=prefix[0][0])
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


def _with(with_facts: list[dict], exp: dict, key: str) -> list[tuple[list, dict]]:
    """(shape, facts) of the wrong sizes, then of the K experiment, whose facts hold `key`."""
    out = [(s["shape"], s["facts"]) for s in with_facts if s["facts"].get(key)]
    if (exp.get("multi_k_facts") or {}).get(key):
        out.append((exp["multi_k_shape"], exp["multi_k_facts"]))
    return out


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
    "cause.k_last_missing",
    en="C is A·B without its last k (k = K - 1) at every wrong size, first {shape}: the loop at line {line} "
    "({text}) stops one short; run it while k < K",
    zh="在每个出错的尺寸上（首先是 {shape}）C 都缺少最后一个 k（k = K - 1）的乘积：第 {line} 行（{text}）的循环少走了"
    "一步；让它在 k < K 时继续",
)
define(
    "cause.k_dim",
    en="the loop at line {line} ({text}) runs k to M or N instead of K; C is A·B over only the first {used} of K "
    "at {shape}: run k while k < K",
    zh="第 {line} 行（{text}）的循环让 k 走到 M 或 N 而不是 K；在 {shape} 上 C 只是 K 的前 {used} 项之和："
    "让 k 在 k < K 时循环",
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
    "cause.all_times",
    en="C is {times}·A·B at {shape}: every product is added {times} times, at line {line} ({text}) or by a loop "
    "around it that runs again; add each product once",
    zh="在 {shape} 上 C 是 {times}·A·B：每个乘积都加了 {times} 次，在第 {line} 行（{text}），或是外面的循环又运行了一遍；"
    "每个乘积只加一次",
)
