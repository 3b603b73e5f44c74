"""Messages as data: a key and its parameters, rendered in a language from that language's template.

The decision of what to say is made once, in one language-free place (it returns `msg(key, **params)`, or
names a key and its parameters); each language only says it. A record keeps the key and the parameters, so the
same record reads in English in the CLI and in Chinese in the window:

    m = msg("check.oob_write", line=20, text="C[row * N + col] = sum;")
    render(m, "zh")
    render("gap.note.pct", "zh", {"what": "gap.what.l2hit", "va": 80.0, "vb": 91.25})

Templates live in one table, TEMPLATES (key -> {language: template}); a module adds its own with `define`.
A field without a format spec is formatted by its value's type through core/numbers.py: a whole number with
thousands separators, a float with three significant digits, a list of whole numbers as a shape (33×17×65), a
list joined, `*_ms` as a duration, a nested message rendered in the same language. A field with a spec says
how to write it:
    {share:pct}  a fraction as a percentage (0.12 -> 12%, -1.7 -> -170%)
    {x:sig3}     3 significant digits, thousands separators, never an exponent (sigN for N digits)
    {n:int}      a whole number with thousands separators
    {ms:dur}     a duration in milliseconds (µs / ms / s, in the language's units)
    {t:us}       a time in µs, in µs whatever its size (the bars of one chart)
    {count:big}  a large count ("2.53 billion", "25.3 亿")
    {why:msg}    another message (its key, or a message) in the same language
    {n:count}    a count as core/numbers.count writes it ("137 billion", "1,374 亿")
    {r:of_model} measured over modelled (core/numbers.of_model: "1.9% of model", "模型的 1.9%")
    {b:bytes}    bytes in GB (two decimals) or MB (one), the same in every language: "10.40 GB", "512.0 MB"
    {x:mega}     millions with one decimal: "12.3 M"
    {xs:list}    a list joined with the language's list separator (", ", "、"); {xs:semi} with its "; " ("；")
    anything else: Python's format spec ({x:.2f}, {share:.0%}, {n:,.0f})
Language-specific punctuation lives in tables (SEPARATORS), never in a branch on the language.
Pure Python."""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from typing import Any

from gemmviz.core import numbers
from gemmviz.core.numbers import LANGUAGES, duration, rate

Message = dict  # {"key": str, "params": {name: value}}

# the words between the items of a list, per language: "list" for a plain list, "semi" for clauses
SEPARATORS = {"en": {"list": ", ", "semi": "; "}, "zh": {"list": "、", "semi": "；"}}


def msg(key: str, **params: Any) -> Message:
    """A message: its key and parameters (JSON-ready), checked against the English template's fields."""
    if key not in TEMPLATES:
        raise KeyError(f"no message {key!r}")
    return {"key": key, "params": params}


def define(key: str, **templates: str) -> str:
    """Add message `key` with a template per language (en is required; a missing language falls back to it)."""
    if key in TEMPLATES:
        raise ValueError(f"message {key!r} is defined twice")
    if "en" not in templates:
        raise ValueError(f"message {key!r} needs an English template")
    unknown = set(templates) - set(LANGUAGES)
    if unknown:
        raise ValueError(f"message {key!r}: unknown language {sorted(unknown)[0]!r}")
    names = {lang: fields(t) for lang, t in templates.items()}
    if any(f != names["en"] for f in names.values()):
        raise ValueError(f"message {key!r}: every language must use the same parameters")
    TEMPLATES[key] = dict(templates)
    return key


def fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def _value(name: str, v: object, lang: str) -> str:
    if isinstance(v, Mapping) and "key" in v:
        return render(v, lang)
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 10_000 else str(v)
    if isinstance(v, float):
        return duration(v, lang) if name.endswith("_ms") else rate(v)
    if isinstance(v, list | tuple):
        if v and all(isinstance(x, int) for x in v):
            return "×".join(str(x) for x in v)
        return SEPARATORS[lang]["list"].join(_value(name, x, lang) for x in v)
    return "" if v is None else str(v)


class _Formatter(string.Formatter):
    """Fills a template's fields: by their spec where one is given, else by the value's type (_value)."""

    def __init__(self, lang: str):
        super().__init__()
        self.lang = lang

    def get_value(self, key: int | str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[int | str, Any]:
        return key, kwargs.get(str(key))

    def format_field(self, value: tuple[int | str, Any], spec: str) -> str:
        name, v = value
        if not spec:
            return _value(str(name), v, self.lang)
        if spec == "pct":
            return _pct(float(v))
        if spec.startswith("sig"):
            return numbers.sig(v, int(spec[3:] or 3))
        if spec == "int":
            return f"{round(v):,}"
        if spec == "us":
            return numbers.microseconds(v, self.lang)
        if spec == "dur":
            return numbers.duration(v, self.lang)
        if spec == "msg":
            return render(v, self.lang)
        if spec == "big":
            return _big(float(v), self.lang)
        if spec == "count":
            return numbers.count(float(v), self.lang)
        if spec == "of_model":
            return numbers.of_model(v, self.lang)
        if spec == "bytes":
            return f"{v / 1e9:,.2f} GB" if v >= 1e9 else f"{v / 1e6:,.1f} MB"
        if spec == "mega":
            return f"{v / 1e6:,.1f} M"
        if spec in ("list", "semi"):
            return SEPARATORS[self.lang][spec].join(_value(str(name), x, self.lang) for x in v)
        return format(v, spec)


def _pct(x: float) -> str:
    """A fraction as a percentage, a negative one too: 0.12 -> 12%, -1.7 -> -170%, 0.0042 -> 0.42%."""
    p = 100 * x
    return f"{p:,.0f}%" if abs(p) >= 10 else f"{numbers.sig(p, 2)}%"


def _big(x: float, lang: str) -> str:
    """A large count: 2.53 billion, 400 million; Chinese by 亿 and 万 (numbers.count)."""
    if lang == "zh":
        return numbers.count(x, lang)
    return f"{numbers.sig(x / 1e9, 3)} billion" if x >= 1e9 else f"{numbers.sig(x / 1e6, 3)} million"


def render(
    message: Mapping[str, Any] | str | None, lang: str = "en", params: Mapping[str, object] | None = None
) -> str:
    """The message in `lang` (English where the language lacks the key or is unknown); '' for None. `message` is
    a Message, or a key with its `params`."""
    if not message:
        return ""
    if isinstance(message, str):
        message = {"key": message, "params": dict(params or {})}
    lang = lang if lang in LANGUAGES else "en"
    table = TEMPLATES.get(message["key"])
    if table is None:
        return str(message.get("params", {}).get("text") or message["key"])
    template = table.get(lang) or table["en"]
    return _Formatter(lang).vformat(template, (), message.get("params") or {})


def valid(message: object) -> bool:
    """A message a record may hold: a known key, and parameters of plain JSON values or nested messages."""
    if not isinstance(message, dict) or set(message) != {"key", "params"}:
        return False
    if not isinstance(message["key"], str) or message["key"] not in TEMPLATES:  # a list is no key (unhashable)
        return False
    params = message["params"]
    return isinstance(params, dict) and len(params) <= 16 and all(_plain(v, 3) for v in params.values())


def _plain(v: object, depth: int) -> bool:
    if depth < 0:
        return False
    if v is None or isinstance(v, bool | int | float):
        return True
    if isinstance(v, str):
        return len(v) <= 2000
    if isinstance(v, list):
        return len(v) <= 64 and all(_plain(x, depth - 1) for x in v)
    return valid(v) and depth > 0


# One table per language: key -> template. Chinese keeps the code (__syncthreads(), &&, <) as code.
TEMPLATES: dict[str, dict[str, str]] = {
    # --- verdicts --------------------------------------------------------------------------------------------
    "goal.compiles.fail": {"en": "{at}{message}", "zh": "{at}{message}"},
    "goal.compiles.pass": {"en": "{compiler} {arch}", "zh": "{compiler} {arch}"},
    "goal.at_line": {"en": "line {line}: ", "zh": "第 {line} 行："},
    "goal.not_compiled": {"en": "it does not compile", "zh": "无法编译"},
    "goal.no_gpu": {"en": "no GPU here (see below)", "zh": "这里没有 GPU（见下文）"},
    "goal.did_not_run": {"en": "the kernel did not run", "zh": "核函数没有运行"},
    "goal.text": {"en": "{text}", "zh": "{text}"},
    "goal.correct.fail": {
        "en": "wrong at {bad} (right at {right} of {total} sizes){where}",
        "zh": "在 {bad} 上结果错误（{total} 个尺寸中 {right} 个正确）{where}",
    },
    "goal.correct.pass": {
        "en": "every element within the FP32 bound at {total} sizes, {first} to {last}{where}",
        "zh": "{total} 个尺寸（{first} 到 {last}）的每个元素都在 FP32 误差界内{where}",
    },
    "goal.correct.undefined": {
        "en": "C depends on a value never set (line {line}): right here only because this run's register held 0;"
        " on a GPU C gets whatever the register held{where}",
        "zh": "C 依赖一个从未赋值的值（第 {line} 行）：这里结果正确只是因为这次运行中寄存器恰好为 0；"
        "在 GPU 上 C 得到的是寄存器里原有的任意值{where}",
    },
    "goal.emulated": {"en": " (emulated on the CPU)", "zh": "（在 CPU 上模拟）"},
    "goal.memory.fail": {"en": "{tools}", "zh": "{tools}"},
    "goal.memory.pass": {"en": "{tools} clean at {shape}{missing}", "zh": "{tools} 在 {shape} 上没有发现问题{missing}"},
    "goal.race.fail": {"en": "{tools}", "zh": "{tools}"},
    "goal.race.pass": {"en": "{tools} clean at {shape}{missing}", "zh": "{tools} 在 {shape} 上没有发现问题{missing}"},
    "goal.findings": {"en": "{tool}: {n} problem(s) found", "zh": "{tool}：发现 {n} 处问题"},
    "goal.tools_missing": {"en": " ({tools} did not run)", "zh": "（{tools} 没有运行）"},
    "goal.sanitizer_missing": {"en": "compute-sanitizer did not run", "zh": "compute-sanitizer 没有运行"},
    "goal.emu.memory.pass": {
        "en": "no access outside A, B, C or the shared arrays, none misaligned, no value of unwritten shared memory "
        "or of a variable never set that reaches C, at {n} sizes (emulated on the CPU)",
        "zh": "在 {n} 个尺寸上没有越出 A、B、C 或共享数组的访问，没有未对齐的访问，也没有未写入的共享内存或从未赋值的变量的值"
        "进入 C（在 CPU 上模拟）",
    },
    "goal.emu.memory.fail": {"en": "{n} finding(s) (emulated on the CPU)", "zh": "{n} 处问题（在 CPU 上模拟）"},
    "goal.emu.unfinished": {
        "en": "not judged: the kernel did not finish at {shape}, so the emulator saw only part of its accesses "
        "(emulated on the CPU)",
        "zh": "未判定：核函数在 {shape} 上没有结束，模拟器只看到了它的一部分访问（在 CPU 上模拟）",
    },
    "goal.emu.race.pass": {
        "en": "every barrier reached by every thread, no shared-memory hazard between warps, at {n} sizes "
        "(emulated on the CPU)",
        "zh": "在 {n} 个尺寸上每个线程都到达了每个屏障，线程束之间没有共享内存冲突（在 CPU 上模拟）",
    },
    "goal.emu.race.fail": {"en": "{n} finding(s) (emulated on the CPU)", "zh": "{n} 处问题（在 CPU 上模拟）"},
    "goal.emu.not_run": {"en": "{why}", "zh": "{why}"},
    "goal.speed.skipped_wrong": {"en": "a wrong kernel is not timed", "zh": "错误的核函数不计时"},
    "goal.speed.not_timed": {"en": "not timed", "zh": "未计时"},
    "goal.speed.not_here": {
        "en": "speed: not measured here (emulated on the CPU; check on a GPU for the time)",
        "zh": "速度：这里不测量（在 CPU 上模拟；计时请在 GPU 上检查）",
    },
    "goal.speed": {
        "en": "{ratio}× the reference's speed at {shape} ({yours_ms} vs {ref_ms}; goal {goal}×)",
        "zh": "在 {shape} 上是参考实现速度的 {ratio} 倍（{yours_ms} 对 {ref_ms}；目标 {goal} 倍）",
    },
    # --- causes: compile -------------------------------------------------------------------------------------
    "cause.nvcc": {"en": "nvcc: {detail}", "zh": "nvcc：{detail}"},
    "cause.warning_bug": {
        "en": 'line {line} ({text}): {what}; nvcc warned "{warning}"',
        "zh": "第 {line} 行（{text}）：{what}；nvcc 警告“{warning}”",
    },
    "fix.syncthreads_call": {
        "en": "`__syncthreads;` names the function without calling it, so no barrier runs: write __syncthreads()",
        "zh": "`__syncthreads;` 只写了函数名而没有调用它，所以屏障从未执行：写成 __syncthreads()",
    },
    # --- causes: correctness ---------------------------------------------------------------------------------
    "cause.timeout": {
        "en": "the kernel did not finish at {shape}: stopped after {timeout} s, still running: a loop that never ends "
        "(check the loops' bounds and steps), a __syncthreads() not every thread reaches, or work far beyond what "
        "this size needs (each thread computes one element of C)",
        "zh": "在 {shape} 上核函数运行 {timeout} 秒后仍未结束而被停止：循环不会结束（检查循环的边界和步长）、有线程到达不了的 "
        "__syncthreads()，或做了远超这个尺寸所需的工作（每个线程只计算 C 的一个元素）",
    },
    "cause.budget": {
        "en": "the kernel was stopped at {shape} after {steps} steps (emulated on the CPU), still in the loop at "
        "line {line} ({text}): the checker cannot tell a loop that never ends from one far longer than this size "
        "needs; check that loop's bound and step, and that each thread computes one element of C",
        "zh": "在 {shape} 上核函数模拟 {steps} 步后（在 CPU 上模拟）仍在第 {line} 行（{text}）的循环中而被停止："
        "检查器分不清永不结束的循环和远比这个尺寸所需更长的循环；检查这个循环的边界和步长，以及每个线程是否只计算 C 的一个元素",
    },
    "cause.printf_slow": {
        "en": "the kernel is not endless: with printf disabled it finishes (emulated on the CPU); printf in every "
        "thread ({calls} lines at {shape}) is what ran past the limit: print from one thread "
        "(if (threadIdx.x == 0 && blockIdx.x == 0)) or remove it",
        "zh": "核函数并不是死循环：禁用 printf 后它能结束（在 CPU 上模拟）；超时的原因是每个线程都在 printf（在 {shape} "
        "上 {calls} 行）：只让一个线程打印（if (threadIdx.x == 0 && blockIdx.x == 0)），或删掉它",
    },
    "cause.or_guard": {
        "en": "threads outside C write at line {line} ({text}): the guard uses || where both conditions must hold: "
        "write &&",
        "zh": "C 之外的线程在第 {line} 行（{text}）写入：判断用了 ||，但两个条件必须同时成立：写成 &&",
    },
    "cause.le_guard": {
        "en": "an out-of-bounds write at line {line} ({text}): the guard lets one row or column too many through "
        "(<= where < is needed): write row < M && col < N",
        "zh": "第 {line} 行（{text}）越界写入：判断多放过了一行或一列（该用 < 的地方用了 <=）：写成 row < M && col < N",
    },
    "cause.oob_write": {
        "en": "an out-of-bounds write at line {line} ({text}): a thread writes outside C; guard the store with "
        "if (row < M && col < N)",
        "zh": "第 {line} 行（{text}）越界写入：有线程写到了 C 之外；用 if (row < M && col < N) 保护写回",
    },
    "cause.oob_read": {
        "en": "an out-of-bounds read at line {line} ({text}): guard the load, or load 0.0f outside the matrix",
        "zh": "第 {line} 行（{text}）越界读取：保护这次加载，或在矩阵之外加载 0.0f",
    },
    "cause.shared_oob": {
        "en": "{access} outside the shared arrays at line {line} ({text}): an index of the tile runs past its "
        "size; check it against the array's dimensions",
        "zh": "第 {line} 行（{text}）在共享数组之外{access}：分块的下标超出了数组大小；对照数组的维度检查它",
    },
    "cause.crashed": {
        "en": "the kernel crashed at {shape} ({error}); memcheck below shows where",
        "zh": "核函数在 {shape} 上崩溃（{error}）；下面的 memcheck 指出位置",
    },
    "cause.swapped_a": {
        "en": "C equals {equals}, not A·B (a square size): A is read with its row and column swapped at line {line} "
        "({text}): A is M×K row-major, element (row, k) is A[row * K + k]",
        "zh": "C 等于 {equals} 而不是 A·B（方阵尺寸）：第 {line} 行（{text}）读取 A 时行和列交换了：A 是按行存储的 M×K "
        "矩阵，元素 (row, k) 是 A[row * K + k]",
    },
    "cause.swapped_b": {
        "en": "C equals {equals}, not A·B (a square size): B is read with its row and column swapped at line {line} "
        "({text}): B is K×N row-major, element (k, col) is B[k * N + col]",
        "zh": "C 等于 {equals} 而不是 A·B（方阵尺寸）：第 {line} 行（{text}）读取 B 时行和列交换了：B 是按行存储的 K×N "
        "矩阵，元素 (k, col) 是 B[k * N + col]",
    },
    "cause.swapped_c": {
        "en": "C equals {equals}, not A·B (a square size): row and column are swapped, either in the store at line "
        "{line} ({text}), where element (row, col) of C is C[row * N + col], or in the multiply-adds at line "
        "{other}, where C's row must take A's row and C's column B's column",
        "zh": "C 等于 {equals} 而不是 A·B（方阵尺寸）：行和列交换了，要么在第 {line} 行（{text}）的写回中（C 的元素 (row, col) "
        "是 C[row * N + col]），要么在第 {other} 行的乘加中（C 的行要取 A 的行，C 的列要取 B 的列）",
    },
    "cause.swapped": {
        "en": "C equals {equals}, not A·B: the row and column indices are swapped in a load or the store",
        "zh": "C 等于 {equals} 而不是 A·B：某次加载或写回把行和列的下标交换了",
    },
    "cause.last_k_tile": {
        "en": "C equals A·B summed over only the first {used} of K at {shape}: the loop at line {line} ({text}) "
        "stops before the last, partial tile of K; loop over (K + TILE - 1) / TILE tiles and load 0.0f where "
        "t·TILE + threadIdx.x ≥ K",
        "zh": "在 {shape} 上 C 只等于 K 的前 {used} 项之和：第 {line} 行（{text}）的循环在 K 最后一个不完整的分块之前"
        "就停了；循环 (K + TILE - 1) / TILE 个分块，并在 t·TILE + threadIdx.x ≥ K 处加载 0.0f",
    },
    "cause.tile_transposed": {
        "en": "with {identity} = I at {shape}, C holds {tile}'s tiles transposed (emulated on the CPU): the shared "
        "tile of {tile} is stored at line {other} and read at line {line} ({text}) with their indices in "
        "disagreement (one of them swapped); {fix}",
        "zh": "在 {shape} 上令 {identity} = I 时，C 中是 {tile} 的分块的转置（在 CPU 上模拟）：{tile} 的共享分块在第 {other} 行"
        "写入、在第 {line} 行（{text}）读取，两处的下标不一致（其中一处交换了）；{fix}",
    },
    "cause.a_tile_ahead": {
        "en": "C pairs A's column k + {shift} with B's row k at {shape}: the A tile is loaded {shift} columns ahead "
        "of the B tile, at line {line} ({text}); take both from the same tile t: a_col = t·TILE + threadIdx.x, b_row = t·TILE + threadIdx.y",
        "zh": "在 {shape} 上 C 把 A 的第 k + {shift} 列与 B 的第 k 行相乘：A 的分块比 B 的分块超前 {shift} 列加载，见第 {line} 行（{text}）；"
        "两者都取自同一个分块 t：a_col = t·TILE + threadIdx.x，b_row = t·TILE + threadIdx.y",
    },
    "cause.b_tile_ahead": {
        "en": "C pairs A's column k with B's row k + {shift} at {shape}: the B tile is loaded {shift} rows ahead "
        "of the A tile, at line {line} ({text}); take both from the same tile t: a_col = t·TILE + threadIdx.x, b_row = t·TILE + threadIdx.y",
        "zh": "在 {shape} 上 C 把 A 的第 k 列与 B 的第 k + {shift} 行相乘：B 的分块比 A 的分块超前 {shift} 行加载，见第 {line} 行（{text}）；"
        "两者都取自同一个分块 t：a_col = t·TILE + threadIdx.x，b_row = t·TILE + threadIdx.y",
    },
    "cause.race_unsure": {
        "en": "C differs from one launch to the next: a race, likely a missing __syncthreads()",
        "zh": "C 每次运行结果不同：存在竞争，很可能缺少 __syncthreads()",
    },
    "cause.last_row": {
        "en": "row {row} (the last) is never written at {shape}: the guard stops one short",
        "zh": "在 {shape} 上最后一行（第 {row} 行）从未写入：判断少算了一行",
    },
    "cause.last_col": {
        "en": "column {col} (the last) is never written at {shape}: the guard stops one short",
        "zh": "在 {shape} 上最后一列（第 {col} 列）从未写入：判断少算了一列",
    },
    "cause.edge": {
        "en": "{where} at {shape}: the edge guard (loads outside A or B must give 0.0f)",
        "zh": "在 {shape} 上{where}：边缘判断（A 或 B 之外的加载必须得到 0.0f）",
    },
    "where.last_block_row": {
        "en": "rows ≥ {row} wrong in the last block row",
        "zh": "最后一行线程块中第 {row} 行起的结果错误",
    },
    "where.last_block_col": {
        "en": "columns ≥ {col} wrong in the last block column",
        "zh": "最后一列线程块中第 {col} 列起的结果错误",
    },
    "where.edge_blocks": {
        "en": "only the last block row and column are wrong",
        "zh": "只有最后一行和最后一列线程块错误",
    },
    "cause.never_written": {
        "en": "no element of C is written at {shape}: the store at line {line} ({text}) never runs or writes "
        "elsewhere: its guard is never true, or its index is not row * N + col",
        "zh": "在 {shape} 上 C 的元素一个也没有写入：第 {line} 行（{text}）的写回从未执行或写到了别处：它的判断永远不成立，"
        "或下标不是 row * N + col",
    },
    "cause.wrong": {
        "en": "{reason} at {shape}: compare your indices with the task's",
        "zh": "在 {shape} 上{reason}：把你的下标和题目中的对照一下",
    },
    "reason.wrong": {"en": "C is wrong", "zh": "C 的结果错误"},
    # the checker's experiments
    "cause.accumulates": {
        "en": "C is right when it starts zeroed and wrong when it starts poisoned (emulated on the CPU): the kernel "
        "adds into C (C[...] += ...) and reads what was there; sum into a register (float sum = 0.0f) and store "
        "it once",
        "zh": "C 预先清零时结果正确，预先填入毒值时结果错误（在 CPU 上模拟）：核函数把结果累加进 C（C[...] += ...），"
        "读到了原来的值；在寄存器里求和（float sum = 0.0f），最后只写一次",
    },
    "cause.edge_tiles": {
        "en": "right at sizes that are multiples of the tile ({good}), wrong at {bad} (emulated on the CPU): the "
        "edge tiles are not zero-filled; where t·TILE + threadIdx.x ≥ K or row ≥ M store 0.0f in the tile, so "
        "no stale value or element of another row enters the sum",
        "zh": "尺寸是分块整数倍时（{good}）结果正确，在 {bad} 上错误（在 CPU 上模拟）：边缘分块没有补零；"
        "当 t·TILE + threadIdx.x ≥ K 或 row ≥ M 时向分块写 0.0f，使旧值或别的行的元素不会进入求和",
    },
    "cause.grid_axes": {
        "en": "right when M = N ({good}), wrong when M ≠ N ({bad}) (emulated on the CPU): the grid's x covers the "
        "columns of C (N) and y the rows (M); take row from blockIdx.y·blockDim.y + threadIdx.y and col from "
        "blockIdx.x·blockDim.x + threadIdx.x",
        "zh": "M = N 时（{good}）结果正确，M ≠ N 时（{bad}）错误（在 CPU 上模拟）：网格的 x 覆盖 C 的列（N），"
        "y 覆盖行（M）；row 取 blockIdx.y·blockDim.y + threadIdx.y，col 取 blockIdx.x·blockDim.x + threadIdx.x",
    },
    "cause.state": {
        "en": "the first launch in a fresh module is right, a second launch is wrong (emulated on the CPU): the "
        "kernel keeps state from one launch to the next in a __device__ or static variable; compute everything "
        "from the kernel's arguments",
        "zh": "新模块中的第一次启动结果正确，第二次启动错误（在 CPU 上模拟）：核函数在 __device__ 或 static 变量中"
        "保留了上一次启动的状态；所有值都应由核函数的参数算出",
    },
    # --- causes: races and barriers --------------------------------------------------------------------------
    "cause.synccheck": {
        "en": "synccheck: {message} at line {line}: every thread of the block must reach each __syncthreads()",
        "zh": "synccheck：第 {line} 行 {message}：线程块中的每个线程都必须到达每个 __syncthreads()",
    },
    "cause.divergent_barrier": {
        "en": "the barrier at line {line} ({text}) is not reached by every thread of the block: {threads} threads "
        "skip it (emulated on the CPU); keep __syncthreads() outside if (row < M && col < N) and guard only the "
        "loads and the store",
        "zh": "第 {line} 行（{text}）的屏障不是线程块中所有线程都能到达：{threads} 个线程跳过了它（在 CPU 上模拟）；"
        "把 __syncthreads() 放在 if (row < M && col < N) 之外，只保护加载和写回",
    },
    "cause.war": {
        "en": "{tool}shared write-after-read hazard at lines {other} and {line}: a barrier is missing after the "
        "multiply-adds, before the next tile's load overwrites the tile; add __syncthreads() at the end of the loop",
        "zh": "{tool}第 {other} 行和第 {line} 行之间存在共享内存先读后写冲突：乘加之后、下一个分块的加载覆盖分块之前"
        "缺少屏障；在循环末尾加上 __syncthreads()",
    },
    "cause.raw": {
        "en": "{tool}shared read-after-write hazard at lines {other} and {line}: a barrier is missing between the "
        "tile loads and the multiply-adds that read them; add __syncthreads() after the loads",
        "zh": "{tool}第 {other} 行和第 {line} 行之间存在共享内存先写后读冲突：分块加载和读取它们的乘加之间缺少屏障；"
        "在加载之后加上 __syncthreads()",
    },
    "cause.waw": {
        "en": "{tool}shared write-after-write hazard at lines {other} and {line}: two warps write the same word of "
        "the tile; give each thread its own elements (index the tile by threadIdx.y and threadIdx.x, or start a "
        "loop over the tile's elements at the thread's index and step it by the block's thread count)",
        "zh": "{tool}第 {other} 行和第 {line} 行之间存在共享内存先写后写冲突：两个线程束写同一个字；"
        "让每个线程写自己的元素（用 threadIdx.y 和 threadIdx.x 索引分块，或让遍历分块元素的循环从线程的编号开始、"
        "以线程块的线程数为步长）",
    },
    "tool.racecheck": {"en": "racecheck: ", "zh": "racecheck："},
    "tool.emulator": {"en": "emulated on the CPU: ", "zh": "在 CPU 上模拟："},
    "cause.uninit_shared": {
        "en": "line {line} ({text}) reads shared memory no thread has written (emulated on the CPU): part of the "
        "tile is never loaded; every element of the tile needs a store before the barrier (0.0f outside the "
        "matrix)",
        "zh": "第 {line} 行（{text}）读取了没有任何线程写过的共享内存（在 CPU 上模拟）：分块有一部分从未加载；"
        "分块的每个元素都要在屏障之前写入（矩阵之外写 0.0f）",
    },
    # --- causes: speed ---------------------------------------------------------------------------------------
    "cause.speed": {"en": "{head}: {reasons}", "zh": "{head}：{reasons}"},
    "cause.speed_no_counters": {
        "en": "{head}; no counters to say why ({why})",
        "zh": "{head}；没有计数器说明原因（{why}）",
    },
    "cause.speed_same": {
        "en": "{head}; its memory counters match the reference's, so look at the instructions per multiply-add",
        "zh": "{head}；内存计数器与参考实现一致，请看每次乘加用了多少条指令",
    },
    "speed.slower": {"en": "{ratio}× slower than the reference", "zh": "比参考实现慢 {ratio} 倍"},
    "speed.conflicts": {
        "en": "shared loads {ways}-way bank-conflicted (the reference: {ref}): pad the tile to [TILE][TILE + 1], or "
        "make threadIdx.x walk the tile's columns (tile[k][threadIdx.x]), so a warp's lanes hit different banks",
        "zh": "共享内存加载有 {ways} 路 bank 冲突（参考实现：{ref}）：把分块补成 [TILE][TILE + 1]，或让 threadIdx.x "
        "沿分块的列走（tile[k][threadIdx.x]），使一个线程束的各线程落在不同的 bank",
    },
    "speed.uncoalesced": {
        "en": "global loads uncoalesced: {sectors} sectors per request (the reference: {ref}): make threadIdx.x "
        "walk the columns (col = blockIdx.x·blockDim.x + threadIdx.x), so a warp reads consecutive addresses",
        "zh": "全局内存加载不是合并访存：每个请求 {sectors} 个扇区（参考实现：{ref}）：让 threadIdx.x 沿列走"
        "（col = blockIdx.x·blockDim.x + threadIdx.x），使一个线程束读取连续地址",
    },
    "speed.l2": {
        "en": "{ratio}× the reference's L2 traffic: tiles are not reused from shared memory",
        "zh": "L2 流量是参考实现的 {ratio} 倍：分块没有在共享内存中复用",
    },
    "speed.occupancy": {
        "en": "{occ}% of the warp slots active against the reference's {ref}% (registers or shared memory per block)",
        "zh": "活跃线程束槽位为 {occ}%，参考实现为 {ref}%（每个线程块的寄存器或共享内存）",
    },
    "advice.uncoalesced": {
        "en": "the emulated global loads take {sectors} sectors per request against the reference's {ref}: make "
        "threadIdx.x walk the columns (col = blockIdx.x·blockDim.x + threadIdx.x), so a warp reads consecutive "
        "addresses (how much slower it runs, only a GPU can say)",
        "zh": "模拟的全局加载每个请求 {sectors} 个扇区，参考实现为 {ref}：让 threadIdx.x 沿列走"
        "（col = blockIdx.x·blockDim.x + threadIdx.x），使一个线程束读取连续地址（慢多少只有 GPU 能回答）",
    },
    "advice.conflicts": {
        "en": "the emulated shared loads take {ways} wavefronts per request against the reference's {ref} (bank "
        "conflicts): pad the tile to [TILE][TILE + 1], or index it tile[k][threadIdx.x] so a warp's lanes hit "
        "different banks (how much slower it runs, only a GPU can say)",
        "zh": "模拟的共享内存加载每个请求 {ways} 个波前，参考实现为 {ref}（bank 冲突）：把分块补成 [TILE][TILE + 1]，"
        "或按 tile[k][threadIdx.x] 索引，使一个线程束的各线程落在不同的 bank（慢多少只有 GPU 能回答）",
    },
    "report.advice": {"en": "what the access figures say: {advice}", "zh": "访问数据说明：{advice}"},
    # --- the emulator ----------------------------------------------------------------------------------------
    "emu.refuse": {
        "en": "the emulator does not run {what} (line {line}); check this kernel on a GPU",
        "zh": "模拟器不能运行 {what}（第 {line} 行）；请在 GPU 上检查这个核函数",
    },
    "emu.no_entry": {
        "en": "the emulator found no kernel {kernel} in the PTX; check this kernel on a GPU",
        "zh": "模拟器在 PTX 中没有找到核函数 {kernel}；请在 GPU 上检查这个核函数",
    },
    "emu.local_limit": {
        "en": "the kernel keeps {bytes} bytes of local memory per thread (an array each thread declares); the "
        "emulator gives at most {limit}: keep per-thread arrays small, or check this kernel on a GPU",
        "zh": "核函数每个线程使用 {bytes} 字节局部内存（每个线程声明的数组）；模拟器最多提供 {limit} 字节："
        "把每个线程的数组改小，或在 GPU 上检查这个核函数",
    },
    "emu.shared_limit": {
        "en": "the kernel asks for {bytes} bytes of static shared memory{largest}; a block may have {limit}: make "
        "the tiles smaller",
        "zh": "核函数申请了 {bytes} 字节静态共享内存{largest}；一个线程块最多 {limit} 字节：把分块改小",
    },
    "emu.largest": {"en": " ({name} is its largest array)", "zh": "（最大的数组是 {name}）"},
    "emu.no_nvcc": {
        "en": "no emulated run: {why}",
        "zh": "没有模拟运行：{why}",
    },
    "sandbox.memory": {
        "en": "stopped: more than {limit} of memory ({what:msg}); a check may use at most {limit}",
        "zh": "已停止：内存超过 {limit}（{what:msg}）；一次检查最多使用 {limit}",
    },
    "sandbox.time": {
        "en": "stopped after {seconds} s ({what:msg}); a check's step may take at most {seconds} s",
        "zh": "{seconds} 秒后已停止（{what:msg}）；检查的一步最多用时 {seconds} 秒",
    },
    "sandbox.emulated_run": {"en": "the emulated run of your kernel", "zh": "在模拟器上运行你的核函数"},
    "sandbox.extra_runs": {"en": "the emulator's extra runs", "zh": "模拟器的补充运行"},
    "emu.by": {
        "en": "no GPU here ({why}): emulated on the CPU (the kernel's PTX, every thread, every element verified); "
        "speed: not measured here",
        "zh": "这里没有 GPU（{why}）：在 CPU 上模拟（核函数的 PTX，每个线程、每个元素都经过验证）；速度：这里不测量",
    },
    "finding.global-oob": {
        "en": "line {line}: {access} outside the allocations ({matrix} is the nearest) by {count} thread(s)",
        "zh": "第 {line} 行：{count} 个线程在分配之外{access}（最近的是 {matrix}）",
    },
    "finding.shared-oob": {
        "en": "line {line}: {access} of shared memory outside the arrays by {count} thread(s)",
        "zh": "第 {line} 行：{count} 个线程在共享内存的数组之外{access}",
    },
    "finding.local-oob": {
        "en": "line {line}: a per-thread array indexed outside its size by {count} thread(s)",
        "zh": "第 {line} 行：{count} 个线程越界访问线程私有数组",
    },
    "finding.uninit-shared": {
        "en": "line {line}: {count} read(s) of shared words no thread has written",
        "zh": "第 {line} 行：{count} 次读取了没有线程写过的共享内存字",
    },
    "finding.divergent-barrier": {
        "en": "line {line}: a barrier not every thread of the block reaches ({count} thread(s) skip it)",
        "zh": "第 {line} 行：不是线程块中所有线程都能到达的屏障（{count} 个线程跳过）",
    },
    "finding.read-after-write": {
        "en": "line {line}: reads words another warp wrote at line {other_line} with no barrier between ({count} times)",
        "zh": "第 {line} 行：读取另一个线程束在第 {other_line} 行写入的字，中间没有屏障（{count} 次）",
    },
    "finding.write-after-read": {
        "en": "line {line}: overwrites words another warp read at line {other_line} with no barrier between ({count} times)",
        "zh": "第 {line} 行：覆盖另一个线程束在第 {other_line} 行读过的字，中间没有屏障（{count} 次）",
    },
    "finding.write-after-write": {
        "en": "line {line}: writes words another warp wrote at line {other_line} with no barrier between ({count} times)",
        "zh": "第 {line} 行：写入另一个线程束在第 {other_line} 行写过的字，中间没有屏障（{count} 次）",
    },
    "finding.misaligned": {
        "en": 'line {line}: {access} not aligned to its size by {count} thread(s) (a GPU stops with "misaligned '
        'address"): a float4 access needs an address that is a multiple of 16 bytes; load floats one by one '
        "where a row's start is not (K or N not a multiple of 4)",
        "zh": "第 {line} 行：{count} 个线程的{access}没有按其大小对齐（GPU 会以“misaligned address”停止）：float4 访问"
        "需要 16 字节倍数的地址；在行首不对齐处（K 或 N 不是 4 的倍数）逐个加载 float",
    },
    "finding.uninit-register": {
        "en": "line {line}: a variable{variable} is used before its value is set ({count} thread(s)); C gets "
        "whatever the register or local array held: initialise it where it is declared (float sum = 0.0f; every "
        "element of an accumulator array set to 0.0f)",
        "zh": "第 {line} 行：变量{variable}在赋值之前就被使用（{count} 个线程）；C 得到的是寄存器或局部数组里原有的值："
        "在声明处初始化它（float sum = 0.0f;，累加数组的每个元素都设为 0.0f）",
    },
    "finding.variable": {"en": " ({name})", "zh": "（{name}）"},
    "finding.uninit-shared-unused": {
        "en": "line {line}: {count} read(s) of shared words no thread has written, whose values never reach C (a "
        "note: it fails no goal)",
        "zh": "第 {line} 行：{count} 次读取了没有线程写过的共享内存字，但读到的值从未进入 C（仅提示：不判定为失败）",
    },
    "finding.trap": {
        "en": "line {line}: the kernel ran trap (__trap() or a failed assert), which ends the launch with an error",
        "zh": "第 {line} 行：核函数执行了 trap（__trap() 或失败的 assert），启动以错误结束",
    },
    "cause.trap": {
        "en": "the kernel ran trap at line {line} ({text}) (emulated on the CPU): __trap() or a failed assert ends "
        "the launch with an error on a GPU; check the condition that leads there",
        "zh": "核函数在第 {line} 行（{text}）执行了 trap（在 CPU 上模拟）：在 GPU 上 __trap() 或失败的 assert 会让"
        "启动以错误结束；检查通向那里的条件",
    },
    "cause.endless": {
        "en": "the kernel did not finish at {shape}: the loop at line {line} ({text}) is an endless loop: it makes no "
        "progress (emulated on the CPU: a turn came back to the same instruction with every register unchanged); "
        "check the loop's bound and step",
        "zh": "在 {shape} 上核函数没有结束：第 {line} 行（{text}）的循环是死循环：它没有进展（在 CPU 上模拟：一轮之后回到"
        "同一条指令，所有寄存器都没有变化）；检查循环的边界和步长",
    },
    "cause.stopped": {
        "en": "the kernel was stopped at {shape} after {instructions:count} instructions, {ratio}× what the naive "
        "reference kernel needs at this size (emulated on the CPU), in the loop at line {line} ({text}): a loop that "
        "runs far longer than this size needs; check its bound and step",
        "zh": "在 {shape} 上核函数运行 {instructions:count} 条指令后被停止，是朴素参考核函数在这个尺寸上所需的 {ratio} "
        "倍（在 CPU 上模拟），停在第 {line} 行（{text}）的循环中：循环远比这个尺寸需要的长；检查它的边界和步长",
    },
    "emu.global_limit": {
        "en": "the kernel's module declares __device__ arrays of {total:bytes} ({name}: {bytes:bytes}); the "
        "emulator gives at most {limit:bytes}: make {name} smaller, or check this kernel on a GPU",
        "zh": "核函数所在模块声明了共 {total:bytes} 的 __device__ 数组（{name}：{bytes:bytes}）；模拟器最多提供 "
        "{limit:bytes}：把 {name} 改小，或在 GPU 上检查这个核函数",
    },
    "goal.emu.findings": {
        "en": "{first}{more} (emulated on the CPU)",
        "zh": "{first}{more}（在 CPU 上模拟）",
    },
    "goal.emu.more": {"en": "; and {n} more finding(s) listed above", "zh": "；另有上面列出的 {n} 处问题"},
    "finding.budget": {
        "en": "line {line}: stopped here by the instruction budget (many times what the naive reference kernel needs "
        "at this size)",
        "zh": "第 {line} 行：在这里被指令预算停止（是朴素参考核函数在这个尺寸上所需的许多倍）",
    },
    "finding.endless": {
        "en": "line {line}: a loop that makes no progress (it came round with every register unchanged): it never ends",
        "zh": "第 {line} 行：没有进展的循环（回到同一处时所有寄存器都没有变化）：它永远不会结束",
    },
    "access.read": {"en": "a read", "zh": "读取"},
    "access.write": {"en": "a write", "zh": "写入"},
    "report.emulated_accesses": {
        "en": "accesses emulated on the CPU at {shape}, blocks {blocks}, yours beside the reference ({reference}):",
        "zh": "在 CPU 上以 {shape} 模拟的访存，线程块 {blocks}，你的与参考实现（{reference}）并列：",
    },
    "report.printf": {
        "en": "printf: {calls} line(s) printed (emulated; the first {kept} kept):",
        "zh": "printf：打印了 {calls} 行（模拟；保留前 {kept} 行）：",
    },
    "report.printf_at": {
        "en": "at {shape} ({calls} line(s)):",
        "zh": "在 {shape}（{calls} 行）：",
    },
    "report.access_goal": {"en": "access goal: {cause}", "zh": "访问目标：{cause}"},
    "report.cause": {"en": "likeliest cause: {cause}", "zh": "最可能的原因：{cause}"},
    "report.source_line": {"en": "line {line}: {text}", "zh": "第 {line} 行：{text}"},
}

for _key, _table in TEMPLATES.items():  # every language speaks of the same parameters
    for _lang in LANGUAGES:
        if _lang in _table and fields(_table[_lang]) != fields(_table["en"]):
            raise AssertionError(f"message {_key}: the {_lang} template's fields differ from the English")
