"""Goals on what a kernel touched (issue 32, item 5): an exercise may ask for at most so many 32-byte sectors
per global load, or wavefronts per shared load or store, and these are read from the access trace of the check
record (core/accesses.py's format: the GPU's tracer writes it, and the CPU emulator writes the same), summed
over the traced blocks (an interior and an edge one).

The verdict is worked out from the record and the exercise whenever it is shown (the CLI's report, the app's
Exercise tab, `exercise grade`'s CSV), so the record's format and the check's own goals stay as they are. It
says the figure, the goal and, when it fails, the exercise's fix, in English or Chinese. Pure Python: no Qt."""

from __future__ import annotations

from gemmviz.core.access_figures import FIGURES, figures_of
from gemmviz.core.numbers import rate

GOAL = "accesses"

_TEXT = {
    "en": {
        "wrong": "a kernel that is not correct is not judged on its accesses",
        "none": "no access records in this check",
        "no_requests": "no {figure}: the kernel made none",
        "figure": "{value} {figure} (goal: at most {limit})",
        "blocks": "in {n} traced blocks at {shape}",
        "cause": "{detail}: {fix}",
    },
    "zh": {
        "wrong": "不正确的核函数不评判其访存",
        "none": "这次检查没有访存记录",
        "no_requests": "没有{figure}：核函数没有发出这类请求",
        "figure": "{figure} {value}（目标：最多 {limit}）",
        "blocks": "记录了 {shape} 下的 {n} 个线程块",
        "cause": "{detail}：{fix}",
    },
}


def access_verdict(record: dict, goals: dict[str, float], fix: str = "", lang: str = "en") -> dict | None:
    """{"goal": "accesses", "status", "detail", "cause", "figures"} for an exercise's `goals` ({figure: at most}),
    from the record's access trace; None when the exercise sets none. Skipped when the kernel is not correct
    or the check recorded no accesses (the record's note says why); `cause` is set only when it fails."""
    if not goals:
        return None
    t = _TEXT.get(lang, _TEXT["en"])

    def skipped(detail: str) -> dict:
        return {"goal": GOAL, "status": "skipped", "detail": detail, "cause": None, "figures": {}}

    verdicts = {v.get("goal"): v.get("status") for v in record.get("verdicts") or []}
    shapes = record.get("shapes") or []
    if verdicts.get("compiles") == "fail" or any(s.get("status") != "ok" for s in shapes):
        return skipped(t["wrong"])
    from gemmviz.core.check_record import CheckFileError, access_trace

    try:
        trace = access_trace(record)
    except CheckFileError as exc:
        return skipped(f"{t['none']}: {exc}")
    if trace is None:
        note = (record.get("accesses") or {}).get("note")  # the check's own words on why (English)
        if not note:
            return skipped(t["none"])
        return skipped(f"{t['none']}（{note}）" if lang == "zh" else note)
    figures = figures_of(trace)
    parts, failed = [], False
    for name, limit in goals.items():
        value, words = figures.get(name), getattr(FIGURES[name], "zh" if lang == "zh" else "en")
        if value is None:
            parts.append(t["no_requests"].format(figure=words))
            continue
        failed |= value > limit
        parts.append(t["figure"].format(value=rate(value), figure=words, limit=rate(limit)))
    where = t["blocks"].format(n=len(trace.blocks), shape="×".join(map(str, trace.mnk)))
    said = ("；" if lang == "zh" else "; ").join(parts)
    detail = f"{said}（{where}）" if lang == "zh" else f"{said} ({where})"
    cause = (t["cause"].format(detail=said, fix=fix) if fix else said) if failed else None
    return {
        "goal": GOAL,
        "status": "fail" if failed else "pass",
        "detail": detail,
        "cause": cause,
        "figures": {k: figures[k] for k in goals},
    }
