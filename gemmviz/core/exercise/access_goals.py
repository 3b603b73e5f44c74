"""Goals on what a kernel touched: an exercise may ask for at most so many 32-byte sectors
per global load, or wavefronts per shared load or store, and these are read from the access trace of the check
record (core/hardware/accesses.py's format: the GPU's tracer writes it, and the CPU emulator writes the same), summed
over the traced blocks (an interior and an edge one).

The verdict is worked out from the record and the exercise whenever it is shown (the CLI's report, the app's
Exercise tab, `exercise grade`'s CSV), so the record's format and the check's own goals stay as they are. It
says the figure, the goal and, when it fails, the exercise's fix, as messages rendered in the reader's language
(core/messages.py). Pure Python: no Qt."""

from __future__ import annotations

from gemmviz.core.exercise.access_figures import FIGURES, figures_of
from gemmviz.core.messages import Message, define, msg, render

GOAL = "accesses"


def access_verdict(record: dict, goals: dict[str, float], fix: str = "", lang: str = "en") -> dict | None:
    """{"goal": "accesses", "status", "detail", "cause", "figures"} for an exercise's `goals` ({figure: at most}),
    from the record's access trace, its words in `lang`; None when the exercise sets none. Skipped when the kernel
    is not correct or the check recorded no accesses (the record's note says why); `cause` is set only when it
    fails."""
    if not goals:
        return None
    out = access_messages(record, goals, fix)
    return {**out, "detail": render(out["detail"], lang), "cause": render(out["cause"], lang) or None}


def access_messages(record: dict, goals: dict[str, float], fix: Message | str = "") -> dict:
    """access_verdict with its detail and cause as messages (core/messages.py)."""

    def skipped(detail: Message) -> dict:
        return {"goal": GOAL, "status": "skipped", "detail": detail, "cause": None, "figures": {}}

    verdicts = {v.get("goal"): v.get("status") for v in record.get("verdicts") or []}
    shapes = record.get("shapes") or []
    if verdicts.get("compiles") == "fail" or any(s.get("status") != "ok" for s in shapes):
        return skipped(msg("access.wrong"))
    try:
        trace = _trace(record)
    except ValueError as exc:
        return skipped(msg("access.unreadable", error=f"accesses: {exc}"))
    if trace is None:
        note = (record.get("accesses") or {}).get("note")  # the check's own words on why (English)
        return skipped(msg("access.none_because", note=note) if note else msg("access.none"))
    figures = figures_of(trace)
    parts, failed = [], False
    for name, limit in goals.items():
        value, figure = figures.get(name), "access.figure." + name
        if value is None:
            parts.append(msg("access.no_requests", figure=figure))
            continue
        failed |= value > limit
        parts.append(msg("access.figure", value=float(value), figure=figure, limit=float(limit)))
    where = msg("access.blocks", n=len(trace.blocks), shape=list(trace.mnk))
    cause = (msg("access.cause", parts=parts, fix=fix) if fix else msg("access.parts", parts=parts)) if failed else None
    return {
        "goal": GOAL,
        "status": "fail" if failed else "pass",
        "detail": msg("access.detail", parts=parts, where=where),
        "cause": cause,
        "figures": {k: figures[k] for k in goals},
    }


def _trace(record: dict):
    """The record's access trace (core/hardware/accesses.AccessTrace), None where it has none; ValueError where
    it is out of bounds (as record.access_trace, without importing the record's module: it imports this one's
    judge through check.finish)."""
    part = record.get("accesses")
    if not isinstance(part, dict) or part.get("trace") is None:
        return None
    from gemmviz.core.hardware.accesses import from_json

    return from_json(part["trace"], "accesses.trace")


for _name, _figure in FIGURES.items():  # the figures' names in a sentence
    define("access.figure." + _name, en=_figure.en, zh=_figure.zh)
define(
    "access.wrong",
    en="a kernel that is not correct is not judged on its accesses",
    zh="不正确的核函数不评判其访存",
)
define("access.none", en="no access records in this check", zh="这次检查没有访存记录")
define("access.unreadable", en="no access records in this check: {error}", zh="这次检查没有访存记录：{error}")
define("access.none_because", en="{note}", zh="这次检查没有访存记录（{note}）")
define("access.no_requests", en="no {figure:msg}: the kernel made none", zh="没有{figure:msg}：核函数没有发出这类请求")
define(
    "access.figure",
    en="{value} {figure:msg} (goal: at most {limit})",
    zh="{figure:msg} {value}（目标：最多 {limit}）",
)
define("access.blocks", en="in {n} traced blocks at {shape}", zh="记录了 {shape} 下的 {n} 个线程块")
define("access.parts", en="{parts:semi}", zh="{parts:semi}")
define("access.detail", en="{parts:semi} ({where:msg})", zh="{parts:semi}（{where:msg}）")
define("access.cause", en="{parts:semi}: {fix}", zh="{parts:semi}：{fix}")
