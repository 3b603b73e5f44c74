"""Goals on what a kernel touched (issue 32, item 5): an exercise may ask for at most so many 32-byte sectors
per global load, or wavefronts per shared load or store, and these are read from the access trace of the check
record (core/accesses.py's format: the GPU's tracer writes it, and the CPU emulator writes the same), summed
over the traced blocks (an interior and an edge one).

The verdict is worked out from the record and the exercise whenever it is shown (the CLI's report, the app's
Exercise tab, `exercise grade`'s CSV), so the record's format and the check's own goals stay as they are. It
says the figure, the goal and, when it fails, the exercise's fix, in English or Chinese. Pure Python: no Qt."""

from __future__ import annotations

from dataclasses import dataclass

from gemmviz.core.numbers import rate

GOAL = "accesses"


@dataclass(frozen=True)
class Figure:
    top: str  # summary key (core/accesses.SUMMARY_KEYS) summed over the traced blocks
    bottom: str
    en: str  # the figure's name in a sentence
    zh: str


# the figures an exercise's `access_goals` may name, each "at most" a number
FIGURES = {
    "global_ld_sectors_per_request": Figure(
        "global_ld_sectors", "global_ld_requests", "sectors per global load request", "每个全局加载请求的扇区数"
    ),
    "global_st_sectors_per_request": Figure(
        "global_st_sectors", "global_st_requests", "sectors per global store request", "每个全局写入请求的扇区数"
    ),
    "shared_ld_wavefronts_per_request": Figure(
        "shared_ld_wavefronts",
        "shared_ld_requests",
        "wavefronts per shared load request",
        "每个共享内存加载请求的 波前数",
    ),
    "shared_st_wavefronts_per_request": Figure(
        "shared_st_wavefronts",
        "shared_st_requests",
        "wavefronts per shared store request",
        "每个共享内存写入请求的 波前数",
    ),
}
MAX_LIMIT = 64.0  # a request of 32 lanes touches at most 32 sectors, or 32 wavefronts (64 for 16-byte lanes)

_TEXT = {
    "en": {
        "name": "accesses",
        "wrong": "a kernel that is not correct is not judged on its accesses",
        "none": "no access records in this check",
        "no_requests": "no {figure}: the kernel made none",
        "figure": "{value} {figure} (goal: at most {limit})",
        "blocks": "in {n} traced blocks at {shape}",
        "cause": "{detail}: {fix}",
    },
    "zh": {
        "name": "访存",
        "wrong": "不正确的核函数不评判其访存",
        "none": "这次检查没有访存记录",
        "no_requests": "没有{figure}：核函数没有发出这类请求",
        "figure": "{figure} {value}（目标：最多 {limit}）",
        "blocks": "记录了 {shape} 下的 {n} 个线程块",
        "cause": "{detail}：{fix}",
    },
}


def goal_name(lang: str = "en") -> str:
    return _TEXT.get(lang, _TEXT["en"])["name"]


def figures_of(trace) -> dict[str, float | None]:
    """Every figure of FIGURES from a trace (core/accesses.AccessTrace), over all its traced blocks; None where
    the kernel made no request of that kind."""
    totals: dict[str, int] = {}
    for block in trace.summary:
        for key, value in block.items():
            totals[key] = totals.get(key, 0) + int(value)
    out: dict[str, float | None] = {}
    for name, f in FIGURES.items():
        bottom = totals.get(f.bottom, 0)
        out[name] = totals.get(f.top, 0) / bottom if bottom else None
    return out


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


def check_goals(value: object, where: str) -> dict[str, float]:
    """An exercise file's `access_goals` table, checked: ValueError naming the field otherwise."""
    if value is None:
        return {}
    if not isinstance(value, dict) or not value:
        raise ValueError(f"{where}: 'access_goals' must be a table of figures, each at most a number")
    out = {}
    for name, limit in value.items():
        if name not in FIGURES:
            raise ValueError(f"{where}: 'access_goals.{name}' is no figure; the figures are {', '.join(FIGURES)}")
        if type(limit) not in (int, float) or not 1.0 <= limit <= MAX_LIMIT:
            raise ValueError(f"{where}: 'access_goals.{name}' must be a number from 1 to {MAX_LIMIT:g}")
        out[name] = float(limit)
    return out
