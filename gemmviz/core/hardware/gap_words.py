"""What the gap view says, in every language (core/messages renders them): the sentence and short label of each
bar core/hardware/gap_parts.py and gap_fold.py make, the headline, the measured notes, each stall reason in Nsight
Compute's words and ours, and the words the views draw (ui/hardware/gap.py, pipeline.py). Templates only: no
figure is worked out here."""

from gemmviz.core.messages import define

_ = define
_(
    "gap.part.clock",
    en="{share:pct} of the gap: the SM clock ran at {fa:sig3} GHz against {fb:sig3} GHz",
    zh="差距的 {share:pct}：SM 时钟为 {fa:sig3} GHz，对方为 {fb:sig3} GHz",
)
_(
    "gap.part.idle",
    en="{share:pct} of the gap: SMs sat idle {ia:pct} of the run against {ib:pct}; the last of "
    "{waves:sig3} waves fills {last:int} of {sms:int} SMs",
    zh="差距的 {share:pct}：SM 空闲占运行时间的 {ia:pct}，对方为 {ib:pct}；{waves:sig3} 波中的最后一波只占满 "
    "{sms:int} 个 SM 中的 {last:int} 个",
)
_(
    "gap.part.idle_one_wave",
    en="{share:pct} of the gap: SMs sat idle {ia:pct} of the run against {ib:pct}; one wave of blocks fills "
    "{last:int} of {sms:int} SMs",
    zh="差距的 {share:pct}：SM 空闲占运行时间的 {ia:pct}，对方为 {ib:pct}；只有一波线程块，占满 {sms:int} 个 SM 中的 "
    "{last:int} 个",
)
_(
    "gap.part.idle_nowaves",
    en="{share:pct} of the gap: SMs sat idle {ia:pct} of the run against {ib:pct} (launch geometry not recorded)",
    zh="差距的 {share:pct}：SM 空闲占运行时间的 {ia:pct}，对方为 {ib:pct}（未记录启动配置）",
)
_(
    "gap.part.instructions_fma",
    en="{share:pct} of the gap: {ia:sig3} instructions per FMA against {ib:sig3}",
    zh="差距的 {share:pct}：每条 FMA 需要 {ia:sig3} 条指令，对方为 {ib:sig3} 条",
)
_(
    "gap.part.instructions",
    en="{share:pct} of the gap: {na:big} instructions issued against {nb:big}",
    zh="差距的 {share:pct}：发射了 {na:big} 条指令，对方为 {nb:big} 条",
)
_(
    "gap.part.occupancy",
    en="{share:pct} of the gap: {wa:sig3} warps per scheduler share its issue slot against {wb:sig3}",
    zh="差距的 {share:pct}：每个调度器有 {wa:sig3} 个线程束共用发射槽，对方为 {wb:sig3} 个",
)
_(
    "gap.part.issue",
    en="{share:pct} of the gap: {ua:sig3} instructions per active cycle against {ub:sig3} (stall reasons not recorded)",
    zh="差距的 {share:pct}：每个活跃周期发射 {ua:sig3} 条指令，对方为 {ub:sig3} 条（未记录停顿原因）",
)
_(
    "gap.part.stall",
    en="{share:pct} of the gap: {why:msg}, {sa:sig3} against {sb:sig3} of a scheduler's cycles per instruction",
    zh="差距的 {share:pct}：{why:msg}，每条指令占调度器 {sa:sig3} 个周期，对方为 {sb:sig3} 个",
)
_(
    "gap.part.stalls_rest",
    en="{share:pct} of the gap: {count:int} other stall reasons together",
    zh="差距的 {share:pct}：其余 {count:int} 种停顿原因合计",
)
_(
    "gap.part.other",
    en="{share:pct} of the gap: not attributed (what the counters' identities do not close)",
    zh="差距的 {share:pct}：未归因（计数器恒等式未能解释的部分）",
)
_(
    "gap.part.small",
    en="{share:pct} of the gap: {count:int} parts that cancel: they add {up:us} and take away {down:us} "
    "(the largest: {largest:msg}, {big:us})",
    zh="差距的 {share:pct}：{count:int} 个相互抵消的部分：共增加 {up:us}，减少 {down:us}（最大的一项：{largest:msg}，{big:us}）",
)
_(
    "gap.part.small_one_way",
    en="{share:pct} of the gap: {count:int} parts, each under {limit:pct} of {b}'s time (they add {up:us} and "
    "take away {down:us})",
    zh="差距的 {share:pct}：{count:int} 个部分，每个都不到 {b} 时间的 {limit:pct}（共增加 {up:us}，减少 {down:us}）",
)
_(
    "gap.part.stall_mix",
    en="{share:pct} of the gap: the stall reasons shift {moved:us} between them and cancel to {net:us} "
    "(most: {up:msg} {upv:us}, {down:msg} {downv:us})",
    zh="差距的 {share:pct}：停顿原因之间转移了 {moved:us}，相互抵消后为 {net:us}"
    "（最多的：{up:msg} {upv:us}，{down:msg} {downv:us}）",
)
_("gap.label.stall_mix", en="stall mix (net)", zh="停顿构成（净值）")
_("gap.label.small", en="small parts (cancelling)", zh="小项（相互抵消）")
_("gap.label.small_one_way", en="small parts", zh="小项")
_("gap.label.clock", en="SM clock", zh="SM 时钟")
_("gap.label.idle", en="idle SMs (waves, tail)", zh="SM 空闲（波与尾部）")
_("gap.label.instructions", en="instructions", zh="指令数")
_("gap.label.occupancy", en="warps resident", zh="驻留线程束数")
_("gap.label.issue", en="issue rate", zh="发射率")
_("gap.label.stall", en="stall: {reason}", zh="停顿：{reason}")
_("gap.label.stalls_rest", en="other stalls", zh="其他停顿")
# a chart short of room merged named stall bars into it: the sentences beside still name each reason
_("gap.label.stalls_merged", en="other stalls ({count:int} reasons)", zh="其他停顿（{count:int} 种）")
_("gap.label.other", en="not attributed", zh="未归因")
_(
    "gap.head.slower",
    en="{a} takes {ta:dur}, {b} {tb:dur}: {a} is {gap:dur} slower",
    zh="{a} 耗时 {ta:dur}，{b} 耗时 {tb:dur}：{a} 慢 {gap:dur}",
)
_(
    "gap.head.faster",
    en="{a} takes {ta:dur}, {b} {tb:dur}: {a} is {gap:dur} faster",
    zh="{a} 耗时 {ta:dur}，{b} 耗时 {tb:dur}：{a} 快 {gap:dur}",
)
_(
    "gap.note.stall_step",
    en="each stall bar is good to ±{us:sig3} µs ({share:.0%} of the gap): ncu gave the stall counts to two decimals",
    zh="每根停顿柱子的误差在 ±{us:sig3} 微秒以内（差距的 {share:.0%}）：ncu 给出的停顿计数只有两位小数",
)
_("gap.note.pct", en="{what:msg}: {va:sig3}% against {vb:sig3}%", zh="{what:msg}：{va:sig3}%，对方为 {vb:sig3}%")
_(
    "gap.note.pct_unreliable",
    en="{what:msg}: ncu read {va:sig3}% and {vb:sig3}%, outside 0–100%, so not a reliable measure here",
    zh="{what:msg}：ncu 读数为 {va:sig3}% 和 {vb:sig3}%，超出 0–100%，此处不可靠",
)
_("gap.note.missing", en="not recorded: {names}", zh="未记录：{names}")
_(
    "gap.note.trade",
    en="warps resident and “not selected” are one trade: more warps per scheduler, more of them waiting for its "
    "issue slot; together {net:us}, {share:pct} of the gap",
    zh="驻留线程束与“未被选中”是同一笔交换：每个调度器的线程束越多，等待其发射槽的也越多；两者合计 {net:us}，占差距的 "
    "{share:pct}",
)
_(
    "gap.note.timing_median",
    en="times: the event-timed medians (ncu's durations not recorded)",
    zh="时间：CUDA 事件计时的中位数（未记录 ncu 的时长）",
)
_("gap.what.issue", en="issue slots busy", zh="发射槽忙碌")
_("gap.what.fma", en="FMA pipe busy", zh="FMA 流水线忙碌")
_("gap.what.tensor", en="tensor pipe (wgmma) busy", zh="张量流水线（wgmma）忙碌")
_("gap.what.l2hit", en="L2 hit rate", zh="L2 命中率")
_("gap.what.dram", en="DRAM throughput, of peak", zh="DRAM 吞吐量（占峰值）")
_("gap.what.l2", en="L2 throughput, of peak", zh="L2 吞吐量（占峰值）")
for _reason, _en, _zh in (
    ("long_scoreboard", "waiting for global memory (long scoreboard)", "等待全局内存（long scoreboard）"),
    ("short_scoreboard", "waiting for shared memory (short scoreboard)", "等待共享内存（short scoreboard）"),
    ("mio_throttle", "the shared-memory queue was full (MIO throttle)", "共享内存指令队列已满（MIO throttle）"),
    ("math_pipe_throttle", "the math pipe was busy (math pipe throttle)", "运算流水线繁忙（math pipe throttle）"),
    ("barrier", "waiting at __syncthreads (barrier)", "在 __syncthreads 等待（barrier）"),
    ("wait", "a fixed-latency dependency (wait)", "固定延迟依赖（wait）"),
    ("not_selected", "ready, another warp issued (not selected)", "已就绪但选了别的线程束（not selected）"),
    ("selected", "issuing (selected)", "正在发射（selected）"),
    ("dispatch_stall", "the dispatcher stalled (dispatch)", "分派停顿（dispatch）"),
    ("lg_throttle", "the global-memory queue was full (LG throttle)", "全局内存指令队列已满（LG throttle）"),
    ("no_instruction", "no instruction fetched (no instruction)", "没有取到指令（no instruction）"),
    ("membar", "waiting at a memory fence (membar)", "在内存栅栏等待（membar）"),
    ("sleeping", "sleeping, e.g. an mbarrier wait (sleeping)", "休眠，例如 mbarrier 等待（sleeping）"),
    ("branch_resolving", "resolving a branch (branch resolving)", "解析分支（branch resolving）"),
    ("drain", "draining stores at exit (drain)", "退出时排空写操作（drain）"),
    ("misc", "other causes (misc)", "其他原因（misc）"),
    ("tex_throttle", "the texture queue was full (tex throttle)", "纹理队列已满（tex throttle）"),
    ("imc_miss", "a constant-cache miss (IMC miss)", "常量缓存未命中（IMC miss）"),
):
    _(f"gap.stall.{_reason}", en=_en, zh=_zh)
# a bar's short label: Nsight Compute's own name in English, a short Chinese one (the sentence gives both)
SHORT_STALL_NAMES = (
    ("long_scoreboard", "等全局内存"), ("short_scoreboard", "等共享内存"), ("mio_throttle", "共享内存队列满"),
    ("math_pipe_throttle", "运算流水线忙"), ("barrier", "线程块同步"), ("wait", "固定延迟"), ("not_selected", "未被选中"),
    ("selected", "发射中"), ("dispatch_stall", "分派停顿"), ("lg_throttle", "全局内存队列满"), ("no_instruction", "无指令"),
    ("membar", "内存栅栏"), ("sleeping", "休眠"), ("branch_resolving", "分支解析"), ("drain", "排空写"), ("misc", "其他"),
    ("tex_throttle", "纹理队列满"), ("imc_miss", "常量缓存未命中"),
)  # fmt: skip
for _reason, _zh in SHORT_STALL_NAMES:  # "stall: dispatch stall" said stall twice: "stall: dispatch"
    _(f"gap.short.{_reason}", en=_reason.replace("_", " ").removesuffix(" stall"), zh=_zh)

# the words the views draw (ui/hardware/gap.py, pipeline.py), in the view's language like the sentences
_("view.recorded", en="recorded on {gpu}, {date}", zh="录制于 {gpu}，{date}")
_("view.file", en="Figures from {file}: {command}", zh="数据来自 {file}：{command}")
_(
    "view.gap.title",
    en="Where {gap:dur} between {a} and {b} at {size} goes",
    zh="{a} 与 {b} 在 {size} 相差的 {gap:dur} 去了哪里",
)
_("view.gap.total", en="the gap", zh="差距")
# which way the bars point: "-1,086 µs" alone did not say whether the part made the first kernel faster
_("view.gap.axis", en="{a} − {b}, µs (+ = {a} slower)", zh="{a} − {b}（微秒；+ 即 {a} 更慢）")
_("view.gap.value", en="{d:us} · {share:pct}", zh="{d:us} · {share:pct}")
_("view.gap.none", en="No gap to draw: {why}", zh="没有可画的差距：{why}")
_(
    "view.gap.not_in",
    en="{name} is not among the recorded kernels ({names})",
    zh="录制的核函数中没有 {name}（有：{names}）",
)
_("view.gap.same", en="Pick two different kernels", zh="请选择两个不同的核函数")
_(
    "view.gap.more_one",
    en="… 1 more line that does not fit here: the Hardware tab's gap view lists every one",
    zh="… 还有 1 行放不下：硬件页的差距视图列出全部",
)
_(
    "view.gap.more",
    en="… {n:int} more lines that do not fit here: the Hardware tab's gap view lists every one",
    zh="… 还有 {n:int} 行放不下：硬件页的差距视图列出全部",
)
