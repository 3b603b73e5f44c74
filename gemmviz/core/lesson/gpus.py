"""Two recorded GPUs in a lesson: `{{gpus FIGURE}}` quotes what the shipped recording of a
second GPU (the H100) says beside the default replay (the H200), computed as the compare view computes it
(core/session/machines): ratios read "replay ÷ second GPU" (the H200's measured bandwidth is 1.41× the H100's).

FIGURE is one of FIGURES; `speed SERIES at N` is the replay's speed over the second GPU's for one kernel at N³
(its time there ÷ its time on the replay), "configs differ" where the two ran different block configurations."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from gemmviz.core.lesson.series import SeriesRef, parse_series
from gemmviz.core.messages import define, render
from gemmviz.core.numbers import missing, times_text
from gemmviz.core.problem import Problem
from gemmviz.core.session import machines
from gemmviz.core.session.results import Result, Session, compare_sources

FIGURES = ("bandwidth", "fp32_peak", "same", "same_pairs", "verdict", "configs", "configs_range")
FOOTER = define(
    "lesson.gpus.footer",
    en="{gpu}: recorded {date}, beside the {replay}",
    zh="{gpu}：{date} 录制，与 {replay} 对照",
)


@dataclass(frozen=True)
class Pair:
    replay: Session
    second: Session
    rows: list[dict]
    summary: machines.Summary

    def names(self) -> tuple[str, str]:
        return (
            machines.short_name(machines.machine(self.replay.environment).gpu) or "",
            machines.short_name(machines.machine(self.second.environment).gpu) or "",
        )


def _gpu(session: Session) -> str | None:
    return machines.machine(session.environment).gpu


def second_gpu_session(replay: Path, paths: list[Path]) -> Path | None:
    """The newest shipped measured session (not a published table) of a GPU other than the replay's."""
    gpu = _gpu(Session.load(replay))
    found = None
    for path in sorted(paths, key=lambda p: p.name):
        if path == replay or path.name.startswith("published") or not path.name.endswith(".json"):
            continue
        other = _gpu(Session.load(path))
        if other and other != gpu:
            found = path
    return found


@functools.cache
def shipped_pair() -> Pair | None:
    """The default replay and the second GPU's recording, compared once per process; None without either."""
    from gemmviz.core.session.workspace import default_replay_session, recorded_sessions

    replay = default_replay_session()
    second = second_gpu_session(replay, recorded_sessions()) if replay is not None else None
    if replay is None or second is None:
        return None
    a, b = Session.load(replay), Session.load(second)
    results = [*a.results, *b.results]
    owner = {id(r): "second" for r in b.results}

    def source_of(r: Result) -> str:
        return owner.get(id(r), "replay")

    _others, rows = compare_sources(results, "second", source_of)
    ref, other = machines.machine(b.environment), machines.machine(a.environment)
    only = machines.only_in(results, source_of, "second", "replay")
    summary = machines.summarize(machines.pairs(rows, "replay"), ref, other, only)
    return Pair(a, b, rows, summary)


def _range(speeds: tuple[float, ...]) -> str:
    return f"{times_text(min(speeds)).removesuffix('×')}–{times_text(max(speeds))}" if speeds else ""


def figure(expr: str, lang: str = "en") -> str | None:
    """`{{gpus …}}`'s figure, "n/a" where the recordings lack it; None for another placeholder; ValueError for
    an unknown figure (or series: ProblemError, a ValueError)."""
    m = re.fullmatch(r"gpus\s+(.+)", expr)
    if not m:
        return None
    what = m.group(1).strip()
    speed = re.fullmatch(r"speed\s+(\S+)\s+at\s+(\d+)", what)
    if what not in FIGURES and not speed:
        raise ValueError(f"{{{{{expr}}}}}: gpus takes one of {', '.join(FIGURES)}, or speed SERIES at N")
    pair = shipped_pair()
    if pair is None:
        return missing(lang)
    if speed:
        return _speed(pair, parse_series(speed.group(1)), int(speed.group(2)), lang)
    s = pair.summary
    main = s.main()
    figures = {
        "bandwidth": times_text(s.bandwidth) if s.bandwidth else None,
        "fp32_peak": times_text(s.peak) if s.peak else None,
        "same": _range(s.verdicts[main]) if main else None,
        "same_pairs": f"{len(s.verdicts[main])}/{s.same}" if main else None,
        "verdict": render(main, lang) if main else None,
        "configs": str(len(s.differing)),
        "configs_range": _range(s.differing) or None,
    }
    return figures[what] or missing(lang)


def _speed(pair: Pair, ref: SeriesRef, n: int, lang: str) -> str:
    size = Problem(n, n, n).label
    for row in pair.rows:
        if row["size"] != size or "replay" not in row["others"]:
            continue
        matching = [r for r in pair.second.results if ref.matches(r) and r.series == row["series"]]
        if not matching:
            continue
        if row["config"] != row["configs"]["replay"]:
            return render(machines.CONFIGS_DIFFER, lang)
        return times_text(row["others"]["replay"][1])
    return missing(lang)


def footer(lang: str = "en") -> str:
    """What a slide quoting `{{gpus …}}` names on its footer: the second GPU's recording."""
    pair = shipped_pair()
    if pair is None:
        return missing(lang)
    replay, second = pair.names()
    return render(FOOTER, lang, {"gpu": second, "date": pair.second.created[:10], "replay": replay})
