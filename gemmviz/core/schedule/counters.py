"""The counters beside a frame of the tiling animation: what one thread block has done after a step (loads,
multiply-adds, stores, reuse against the naive kernel, the highlighted thread's part of C), as messages
(core/messages.py) in any language. ui/tiling draws them; this module decides what they say. Pure Python.

`compact`: beside another picture (side by side, the code view: half a slide) only the lines that tell the
kernels apart, in their short wording, so that the rest stays at projector size (no bytes, no single thread's sum).
"""

from __future__ import annotations

from gemmviz.core.messages import Message, define, msg
from gemmviz.core.schedule.block import reuse_factor
from gemmviz.core.schedule.kinds import schedule_kind
from gemmviz.core.schedule.records import Schedule

Line = tuple[Message, bool]  # a line of the counters and whether it is set in bold

define("counters.text", en="{text}", zh="{text}")
define("counters.size", en="{size}  ·  {shape}", zh="{size}  ·  {shape}")
define("counters.size.short", en="{size} · {shape}", zh="{size} · {shape}")
define(
    "counters.block",
    en="block ({by}, {bx}) of {gy}×{gx}  ·  step {i}/{n}",
    zh="线程块 ({by}, {bx})，共 {gy}×{gx}  ·  第 {i}/{n} 步",
)
define(
    "counters.block.short",
    en="block ({by}, {bx}) of {gy}×{gx} · step {i}/{n}",
    zh="线程块 ({by}, {bx})，共 {gy}×{gx} · 第 {i}/{n} 步",
)
define("counters.so_far", en="this block so far:", zh="这个线程块到目前为止：")
define("counters.global_loads", en="global loads   {n:int}", zh="全局内存读取   {n:int}")
define("counters.shared_loads", en="shared loads   {n:int}", zh="共享内存读取   {n:int}")
define("counters.fmas", en="multiply-adds  {n:int}", zh="乘加运算次数   {n:int}")
define("counters.global_stores", en="global stores  {n:int}", zh="全局内存写入   {n:int}")
define("counters.global_bytes", en="global bytes   {n:int}", zh="全局内存字节   {n:int}")
define("counters.reuse", en="reuse: each loaded value used {x:sig3}×", zh="复用：每个读入的值用了 {x:sig3} 次")
define("counters.reuse.short", en="reuse: {x:sig3}× per loaded value", zh="复用：每个读入的值用 {x:sig3} 次")
define("counters.reuse.none", en="reuse: nothing computed yet", zh="复用：还没有计算")
define("counters.reuse.none.short", en="reuse: none yet", zh="复用：还没有")
define(
    "counters.naive",
    en="naive kernel: {n:int} global loads ({x:sig3}× more)",
    zh="朴素核函数：{n:int} 次全局内存读取（是它的 {x:sig3} 倍）",
)
define("counters.naive.short", en="naive kernel: {x:sig3}× more loads", zh="朴素核函数：读取是它的 {x:sig3} 倍")
define(
    "counters.per_read",
    en="{n:.0f} multiply-adds per shared-memory read (tiled: 0.5)",
    zh="每次共享内存读取做 {n:.0f} 次乘加（分块版：0.5）",
)
define("counters.per_read.short", en="{n:.0f} multiply-adds per shared read", zh="每次共享内存读取做 {n:.0f} 次乘加")
define("counters.thread", en="thread ({ty}, {tx}) → {what}", zh="线程 ({ty}, {tx}) → {what}")
define("counters.thread.sum", en="  = Σ over k < {k}", zh="  = 对 k < {k} 求和")
define("counters.thread.zero", en="  = 0 so far (no k summed yet)", zh="  = 0（还没有累加任何 k）")
define("counters.thread.outside", en="thread ({ty}, {tx}) is outside C:", zh="线程 ({ty}, {tx}) 在 C 之外：")
define("counters.thread.helps", en="  it only helps load (pads with 0)", zh="  它只帮忙加载（用 0 填充）")


def reuse_figure(x: float) -> float:
    """A reuse figure as the counters write it: whole inside a block (16), to a tenth at an edge block (7.1)."""
    return float(round(x)) if abs(x - round(x)) < 0.05 else round(x, 1)


def counter_lines(
    s: Schedule,
    step_i: int,
    thread: tuple[int, int],
    compact: bool = False,
    title: str = "",
    shape: str = "",
    bank: str | None = None,
) -> list[Line]:
    """The counters after step `step_i` of `s`, (message, bold) per line. `title` is the kernel's title in the
    language drawn (compact: its name is shorter), `shape` the block's shape as its kind words it (the second
    line), `bank` a line on shared memory's bank conflicts (None: none to show)."""
    step = s.steps[step_i]
    p, total = s.problem, step.total
    reuse = reuse_factor(s, step)  # in-bounds loads already used, by threads inside C: at most the block's edge
    title = s.variant if compact or not title else title  # half a view: the name, shorter
    lines: list[Line] = [
        (msg("counters.text", text=title), True),
        (msg("counters.size.short" if compact else "counters.size", size=p.label, shape=shape), False),
        (
            msg(
                "counters.block.short" if compact else "counters.block",
                by=s.block[0],
                bx=s.block[1],
                gy=s.grid[0],
                gx=s.grid[1],
                i=step_i + 1,
                n=len(s.steps),
            ),
            False,
        ),
        *([(msg("counters.text", text=bank), False)] if bank else []),
        (msg("counters.so_far"), True),
        (msg("counters.global_loads", n=total.global_loads), False),
        (msg("counters.shared_loads", n=total.shared_loads), False),
        (msg("counters.fmas", n=total.fmas), False),
        (msg("counters.global_stores", n=total.global_stores), False),
        *([] if compact else [(msg("counters.global_bytes", n=total.global_bytes), False)]),
        (_reuse_line(reuse, compact), True),
    ]
    short = ".short" if compact else ""
    if schedule_kind(s.kind).shared_memory and reuse is not None:  # the naive kernel's loads per in-bounds use
        lines.append((msg("counters.naive" + short, n=_naive_loads(s, step.k_done), x=reuse_figure(reuse)), False))
    if s.tm * s.tn > 1 and total.shared_loads:  # block tiling: multiply-adds per shared read, against tiled's 0.5
        lines.append((msg("counters.per_read" + short, n=total.fmas / total.shared_loads), False))
    return lines if compact else lines + _thread_lines(s, thread, step.k_done)


def _reuse_line(reuse: float | None, compact: bool) -> Message:
    short = ".short" if compact else ""
    if reuse is None:
        return msg("counters.reuse.none" + short)
    return msg("counters.reuse" + short, x=reuse_figure(reuse))


def _naive_loads(s: Schedule, k_done: int) -> int:
    """What the naive kernel would have read for the same work: two loads per multiply-add of a thread inside C."""
    p = s.problem
    (r0, r1), (c0, c1) = s.rows, s.cols
    active = max(0, min(r1, p.m) - r0) * max(0, min(c1, p.n) - c0)  # threads inside C
    return 2 * active * min(k_done, p.k)


def _thread_lines(s: Schedule, thread: tuple[int, int], k_done: int) -> list[Line]:
    """The highlighted thread's elements of C and the part of K summed into them, or that it lies outside C."""
    ty, tx = thread
    r0, c0 = s.rows[0] + ty * s.tm, s.cols[0] + tx * s.tn
    if not (r0 < s.run_problem.m and c0 < s.run_problem.n):
        return [(msg("counters.thread.outside", ty=ty, tx=tx), False), (msg("counters.thread.helps"), False)]
    what = f"C[{r0}:{r0 + s.tm}][{c0}:{c0 + s.tn}]" if s.tm * s.tn > 1 else f"C[{r0}][{c0}]"
    summed = msg("counters.thread.sum", k=k_done) if k_done else msg("counters.thread.zero")
    return [(msg("counters.thread", ty=ty, tx=tx, what=what), False), (summed, False)]
