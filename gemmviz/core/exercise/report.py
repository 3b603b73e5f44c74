"""A check record as text: the report `gemmviz exercise check` prints, and the parts of it the Exercise tab shows
(the emulator's findings, the kernel's printf output, the counters, the accesses). Its own lines are messages,
defined here, in every language. Pure Python."""

from __future__ import annotations

from gemmviz.core.exercise.check import SANITIZER_TOOLS, cause_lines, counter_ratio, shape_text, source_line
from gemmviz.core.exercise.record_schema import access_trace
from gemmviz.core.messages import define, msg, render
from gemmviz.core.numbers import duration, rate
from gemmviz.core.text import printable as one_line

MARK = {"pass": "PASS", "fail": "FAIL", "skipped": "skip"}


def report_text(record: dict, lang: str = "en") -> str:
    """The check as the CLI prints it: compile errors, sizes, sanitizer or emulator findings, timing, verdicts,
    and the cause with the source lines it cites. Verdicts and cause in `lang` (from their message keys)."""
    out = [render(msg("report.header", exercise=record["exercise"], file=record["file"]), lang)]
    env = record.get("environment") or {}
    if env.get("gpu"):
        cc = "".join(map(str, env.get("cc", [])))
        out.append(render(msg("report.gpu", gpu=env["gpu"], cc=cc, created=record["created"]), lang))
    emu = record.get("emulator") or {}
    if record.get("no_gpu") and emu:
        out.append(render(msg("emu.by", why=record["no_gpu"]), lang))
    out += _compile_lines(record, lang) + _shape_lines(record, lang) + _sanitizer_lines(record)
    out += _emulator_lines(record, lang) + _timing_lines(record, lang)
    out += [f"  {line}" for line in counter_lines(record)]
    out += [f"  {line}" for line in gap_lines(record, lang)]
    out += [f"  {line}" for line in access_lines(record, lang)]
    out.append("")
    for v in record.get("verdicts") or []:
        detail = render(v["message"], lang) if v.get("message") else v["detail"]
        out.append(f"  {MARK[v['status']]}  {v['goal']:<11} {detail}")
    if emu.get("advice"):
        out += ["", render(msg("report.advice", advice=emu["advice"]), lang)]
    if record.get("cause"):
        text = render(record["cause_message"], lang) if record.get("cause_message") else record["cause"]
        out += ["", render(msg("report.cause", cause=text), lang)]
        for line in cause_lines(record):
            src = source_line(record, line)
            if src:
                out.append(f"  {line:>5} | {src}")
    said = record.get("not_run_messages") or [msg("report.not_run", note=note) for note in record.get("not_run") or []]
    for note in said:
        out.append(render(note, lang))
    # one line per entry: a newline or a terminal code in a record's text is shown, never obeyed (a note
    # cannot print a forged "PASS" line after the verdicts)
    return "\n".join(one_line(line) for line in out)


def _emulator_lines(record: dict, lang: str) -> list[str]:
    out = []
    for text, line in emulator_findings(record, lang):
        out.append("  " + text)
        out += _with_source(record, line)
    calls, _lines = printf_output(record)
    groups = printf_groups(record)
    if calls:
        kept = sum(len(lines) for _shape, _calls, lines in groups)
        out.append("  " + render(msg("report.printf", calls=calls, kept=kept), lang))
        for shape, n, lines in groups:
            if shape is not None:
                out.append("    " + render(msg("report.printf_at", shape=shape, calls=n), lang))
            out += [f"    {line}" for line in lines]
    return out


_FINDING_FIELDS = ("line", "count", "access", "matrix", "other_line", "variable")
PRINTF_SHOWN = 20  # of the kernel's printf lines the record keeps (at most 200), the ones a report shows


def emulator_findings(record: dict, lang: str = "en") -> list[tuple[str, int | None]]:
    """The emulator's findings, each as one sentence in `lang` and the source line it names (None: no line)."""
    out = []
    for f in (record.get("emulator") or {}).get("findings") or []:
        params = {k: v for k, v in f.items() if k not in ("kind", "message")}
        if "access" in params:
            params["access"] = msg(f"access.{params['access']}")
        params.setdefault("other_line", "?")
        params.setdefault("matrix", "?")
        params["variable"] = msg("finding.variable", name=params["variable"]) if params.get("variable") else ""
        text = render(msg(f"finding.{f['kind']}", **{k: params.get(k) for k in _FINDING_FIELDS}), lang)
        out.append((text, f.get("line")))
    return out


def printf_output(record: dict, shown: int = PRINTF_SHOWN) -> tuple[int, list[str]]:
    """How many times the emulated kernel called printf, and the first `shown` lines of what it printed."""
    printf = (record.get("emulator") or {}).get("printf") or {}
    return printf.get("calls") or 0, list(printf.get("lines") or [])[:shown]


def printf_groups(record: dict, shown: int = PRINTF_SHOWN) -> list[tuple[list[int] | None, int, list[str]]]:
    """The kernel's printf output by the size that printed it: (the size, its calls, its first `shown` lines
    kept), in the order the sizes ran. A record without the sizes (written before they were kept): one group
    whose size is None."""
    printf = (record.get("emulator") or {}).get("printf") or {}
    lines = list(printf.get("lines") or [])
    groups = printf.get("shapes")
    if not groups:
        calls, kept = printf_output(record, shown)
        return [(None, calls, kept)] if calls else []
    out: list[tuple[list[int] | None, int, list[str]]] = []
    at = 0
    for g in groups:
        out.append((list(g["shape"]), g["calls"], lines[at : at + g["lines"]][:shown]))
        at += g["lines"]
    return out


def finding_lines(record: dict) -> list[int]:
    """The source lines the emulator's findings name, in order, each once."""
    lines: list[int] = []
    for f in (record.get("emulator") or {}).get("findings") or []:
        for key in ("line", "other_line"):
            n = f.get(key)
            if isinstance(n, int) and n > 0 and n not in lines:
                lines.append(n)
    return lines


def _per(summary: dict, top: str, bottom: str) -> str:
    n = summary.get(bottom) or 0
    return f"{summary.get(top, 0) / n:.2f}" if n else "—"


COUNTER_ROWS = (
    (
        "global sectors per request",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    ),
    (
        "shared wavefronts per load",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "smsp__inst_executed_op_shared_ld.sum",
    ),
    ("L2 traffic (MB)", "lts__t_bytes.sum", None),
    ("DRAM read (MB)", "dram__bytes_read.sum", None),
    ("warp slots active (%)", "sm__warps_active.avg.pct_of_peak_sustained_active", None),
)


def gap_lines(record: dict, lang: str = "en") -> list[str]:
    """Where the time to the reference goes (core/exercise/gap.py), a sentence per part; none where the check's
    counters cannot tell (the window says why)."""
    from gemmviz.core.exercise.gap import check_gap
    from gemmviz.core.hardware.gap import readable, sentences

    g, _why = check_gap(record)
    return [] if g is None else sentences(readable(g), lang)


def counter_lines(record: dict) -> list[str]:
    """Nsight Compute's key counters, yours beside the reference's: 'name: yours vs reference'."""
    counters = record.get("counters") or {}
    mine, theirs = counters.get("yours") or {}, counters.get("reference") or {}
    if not mine:
        return [f"counters: {counters['note']}"] if counters.get("note") else []
    shape = shape_text(counters.get("shape", []))
    out = [f"Nsight Compute at {shape}, yours vs the reference:"]
    for name, top, bottom in COUNTER_ROWS:
        values = [counter_ratio(c, top, bottom) if bottom else c.get(top) for c in (mine, theirs)]
        if all(v is None for v in values):
            continue
        text = [rate(v / 1e6 if v is not None and "MB" in name else v) for v in values]  # one may be unmeasured
        out.append(f"  {name}: {text[0]} vs {text[1]}")
    return out


def access_lines(record: dict, lang: str = "en") -> list[str]:
    """What the access tracer recorded (or the emulator, without a GPU): per block, the requests and their
    average sectors / wavefronts, in `lang`; an emulated check's figures beside the reference kernel's,
    emulated on the same blocks, once per block."""
    part = record.get("accesses") or {}
    if part.get("note"):
        return [render(msg("report.accesses_note", note=part["note"]), lang)]
    trace = access_trace(record) if part else None
    ref = ((record.get("emulator") or {}).get("reference") or {}) if record.get("no_gpu") else {}
    if trace is None:
        return [render(msg("report.accesses_note", note=ref["note"]), lang)] if ref.get("note") else []
    theirs = list(ref.get("summary") or [])
    blocks = [str(b) for b in trace.blocks]
    emulated = record.get("no_gpu") and record.get("emulator")
    if theirs:
        head = msg(
            "report.emulated_accesses", shape=part.get("shape", []), blocks=blocks, reference=ref.get("variant", "")
        )
    else:
        key = "report.accesses_emulated" if emulated else "report.accesses_recorded"
        head = msg(key, shape=part.get("shape", []), blocks=blocks)
    out = [render(head, lang)]
    for i, (slot, summary) in enumerate(zip(trace.blocks, trace.summary)):
        other = theirs[i] if i < len(theirs) else None
        per = []
        for space, unit in (("global", "sectors"), ("shared", "wavefronts")):
            for op in ("ld", "st"):
                top, bottom = f"{space}_{op}_{unit}", f"{space}_{op}_requests"
                if not summary.get(bottom, 0):
                    continue
                part_msg = msg(f"report.{space}_{op}", x=_per(summary, top, bottom))
                if other is not None:
                    part_msg = msg("report.vs", mine=part_msg, theirs=_per(other, top, bottom))
                per.append(part_msg)
        figures = msg("report.per_block", parts=per) if per else msg("report.no_requests")
        out.append("  " + render(msg("report.block", block=str(slot), figures=figures), lang))
    from gemmviz.core.hardware.accesses import sees_messages, what_it_sees

    seen = what_it_sees(trace, lang) if sees_messages(trace) else trace.sees  # a file's own sentence, else ours
    if seen:
        out.append(f"  {seen}")
    return out


def _with_source(record: dict, line: int | None) -> list[str]:
    src = source_line(record, line)
    return [f"          | {src}"] if src else []


def _compile_lines(record: dict, lang: str = "en") -> list[str]:
    out = []
    diagnostics = (record.get("compile") or {}).get("diagnostics", [])
    warnings = [d for d in diagnostics if d["severity"] != "error"]
    if warnings:
        first = warnings[0]
        where = str(first.get("line") or "?")
        said = msg("report.nvcc_warnings", n=len(warnings), line=where, message=first["message"])
        out.append("  " + render(said, lang))
    for d in [d for d in diagnostics if d["severity"] == "error"][:10]:
        at = f"line {d['line']}" if d.get("line") else "nvcc"
        out.append(f"  {d['severity']:<7} {at}: {d['message']}")
        out += _with_source(record, d.get("line"))
    return out


def _shape_lines(record: dict, lang: str = "en") -> list[str]:
    out = []
    for s in record.get("shapes") or []:
        state = render(f"report.shape.{s['status']}", lang)
        extra = (
            render(s["reason_message"], lang) if s.get("reason_message") else s.get("reason") or s.get("error") or ""
        )
        out.append(f"  {shape_text(s['shape']):>16}  {state}  {extra}".rstrip())
    return out + error_map_lines(record, lang)


def error_map_lines(record: dict, lang: str = "en") -> list[str]:
    """Where C is wrong at the largest wrong size, as text: one character per cell of the error map (█ wrong,
    · right), under a line that says the size and the cell."""
    mapped = [s for s in record.get("shapes") or [] if s.get("error_map") and s.get("status") == "wrong"]
    if not mapped:
        return []
    s = max(mapped, key=lambda s: s["shape"][0] * s["shape"][1])
    rows, cols = s["error_map"].get("cell") or [1, 1]
    head = render(msg("report.error_map", shape=s["shape"], rows=rows, cols=cols), lang)
    grid = ["".join("█" if x else "·" for x in row) for row in s["error_map"]["wrong"]]
    return [f"  {head}", *[f"    {row}" for row in grid]]


def _sanitizer_lines(record: dict) -> list[str]:
    out = []
    for tool in SANITIZER_TOOLS:
        part = (record.get("sanitizer") or {}).get(tool) or {}
        if not part.get("ran"):
            continue
        found = part.get("findings") or []
        out.append(f"  {tool}: {'clean' if not found else f'{len(found)} problem(s) found'}")
        for f in found[:5]:
            out.append(f"    line {f.get('line') or '?'}: {f['message']} (×{f.get('count', 1)})")
            out += _with_source(record, f.get("line"))
    return out


def _timing_lines(record: dict, lang: str = "en") -> list[str]:
    out = []
    timing = record.get("timing") or {}
    for who in ("yours", "reference", "cublas"):
        part = timing.get(who) or {}
        if part.get("median_ms"):
            out.append(f"  {who:<9} {duration(part['median_ms']):>10}  {part.get('series', '')}".rstrip())
    recorded = record.get("recorded_reference")
    if recorded:
        said = msg("report.recorded", gpu=recorded["gpu"], session=recorded["session"], day=recorded["created"][:10])
        out.append("  " + render(said, lang))
        for row in recorded["rows"]:
            if row["size"][0] in (1024, 2048, 4096):
                out.append(f"    {row['series']:<24} {shape_text(row['size']):>16} {duration(row['median_ms']):>10}")
    return out


# the report's own lines (the verdicts, causes and findings have theirs in core/messages.py)
define("report.header", en="exercise {exercise}: {file}", zh="练习 {exercise}：{file}")
define("report.gpu", en="GPU {gpu} (sm_{cc}), {created}", zh="GPU {gpu}（sm_{cc}），{created}")
define("report.not_run", en="not run: {note}", zh="未运行：{note}")
define(
    "report.emulated_pass",
    en="Every goal the CPU emulator judges passed (ran on: {ran_on}); speed is measured only on a GPU: run "
    "gemmviz exercise check on a GPU machine, then open the check file it writes here.",
    zh="CPU 模拟器判定的每个目标都通过了（运行于：{ran_on}）；速度只能在 GPU 上测量：请在有 GPU 的机器上运行 "
    "gemmviz exercise check，再在这里打开它写出的检查文件。",
)
define(
    "report.not_finished_map",
    en="C: not judged at {shape} (the kernel did not finish there)",
    zh="C：在 {shape} 上未判定（核函数在那里没有结束）",
)
define("report.nvcc_warning", en="nvcc warning, line {line}: {message}", zh="nvcc 警告，第 {line} 行：{message}")
define(
    "report.error_map",
    en="where C is wrong at {shape} (rows down, columns across; a cell is {rows}×{cols} elements; █ wrong, · right):",
    zh="{shape} 上 C 出错的位置（行向下，列向右；每格 {rows}×{cols} 个元素；█ 错误，· 正确）：",
)
define(
    "report.not_run_gpu",
    en="not run: timing, compute-sanitizer and Nsight Compute's counters need a CUDA GPU ({why}); run `{command}` on "
    "a GPU machine, then open the check file it writes in the app",
    zh="未运行：计时、compute-sanitizer 和 Nsight Compute 计数器需要 CUDA GPU（{why}）；请在有 GPU 的机器上运行 "
    "`{command}`，再在应用中打开它写出的检查文件",
)
define("report.shape.ok", en="right", zh="正确")
define(
    "report.shape.order",
    en="C depends on the order the warps run in (emulated: one warp at a time)",
    zh="C 取决于线程束运行的顺序（模拟时：一次一个线程束）",
)
define("report.shape.wrong", en="WRONG", zh="错误")
define("report.shape.timeout", en="TIMED OUT", zh="超时")
define("report.shape.launch-error", en="CRASHED", zh="崩溃")
define(
    "report.nvcc_warnings",
    en="nvcc: {n} warning(s), first at line {line}: {message}",
    zh="nvcc：{n} 个警告，第一个在第 {line} 行：{message}",
)
define(
    "report.recorded",
    en="recorded on {gpu} ({session}, {day}), not on this machine:",
    zh="录制于 {gpu}（{session}，{day}），不是在本机：",
)
define("report.accesses_note", en="accesses: {note}", zh="访存：{note}")
define(
    "report.accesses_emulated",
    en="accesses emulated on the CPU at {shape}, blocks {blocks}:",
    zh="在 CPU 上以 {shape} 模拟的访存，线程块 {blocks}：",
)
define(
    "report.accesses_recorded",
    en="accesses recorded at {shape}, blocks {blocks}:",
    zh="以 {shape} 录制的访存，线程块 {blocks}：",
)
define("report.global_ld", en="global loads {x} sectors/request", zh="全局加载每请求 {x} 个扇区")
define("report.global_st", en="global stores {x} sectors/request", zh="全局写入每请求 {x} 个扇区")
define("report.shared_ld", en="shared loads {x} wavefronts/request", zh="共享内存加载每请求 {x} 个波前")
define("report.shared_st", en="shared stores {x} wavefronts/request", zh="共享内存写入每请求 {x} 个波前")
define("report.vs", en="{mine} (reference {theirs})", zh="{mine}（参考 {theirs}）")
define("report.per_block", en="{parts:semi}", zh="{parts:semi}")
define("report.no_requests", en="no per-thread memory requests", zh="没有逐线程的访存请求")
define("report.block", en="block {block}: {figures}", zh="线程块 {block}：{figures}")
