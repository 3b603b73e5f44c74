"""A table step's table (view "table"): one row per series, one column per size, each cell the median time and how
many times faster than the baseline, or, beside a shipped published session, its rows first and each cell's growth
over the size before. Words in the lesson's language; the drawing is ui/lesson/seed_table.py's."""

from __future__ import annotations

from dataclasses import dataclass

from gemmviz.core.charts.style import series_name
from gemmviz.core.kernels.variants import baseline
from gemmviz.core.lesson.files import LessonError, shipped_session
from gemmviz.core.lesson.model import Step
from gemmviz.core.lesson.series import SeriesRef, best
from gemmviz.core.messages import define, render
from gemmviz.core.numbers import duration, ratio
from gemmviz.core.paths import asset_path
from gemmviz.core.session.results import Result, Session, SessionError

# how a table's own rows were obtained, in words (LessonSource.how): never "measured here" on a replay
HOW_KINDS = ("measured", "replayed", "published")
define("lesson.how.measured", en="measured here", zh="本机实测")
define("lesson.how.replayed", en="replayed", zh="回放记录")
define("lesson.how.published", en="published", zh="已发表")
define("lesson.times.same", en="1×", zh="1 倍")
NO_TIME = "—"  # a cell where the results have no valid run
ONE_RUN = "*"  # after a time that is a single run's, not a median of several (the CPU loop's largest sizes)


@dataclass(frozen=True)
class TableCell:
    time: str  # "5.46 s", or "—" where the results have no valid run
    ratio: str  # "16,265×" faster than the baseline at this size ("" where either is missing)


@dataclass(frozen=True)
class StepTable:
    """The seed's kind of table: one row per series, one column per size, each cell the median time and how
    many times faster than the baseline at the same size."""

    sizes: tuple[int, ...]
    rows: tuple[tuple[str, tuple[TableCell, ...]], ...]  # (series name, cells)
    baseline_label: str
    growth: bool = False  # × is each time over the size before's (a table with published rows beside)

    @property
    def one_run(self) -> bool:
        """Whether a cell's time is a single run's (marked ONE_RUN): the caption says what the mark means."""
        return any(c.time.endswith(ONE_RUN) for _name, cells in self.rows for c in cells)


def _ms(r: Result | None) -> float | None:
    return None if r is None else r.median_ms


def _time(r: Result | None, lang: str, measured: bool = True) -> str:
    """A cell's time: the median, marked ONE_RUN where the engine timed one run only (`measured`: a recording of
    ours, not published figures, which are one number each); NO_TIME without a valid run."""
    ms = _ms(r)
    if not ms:
        return NO_TIME
    one = measured and r is not None and r.repeats == 1 and len(r.samples_ms) == 1
    return duration(ms, lang) + (ONE_RUN if one else "")


def step_table(step: Step, results: list[Result], lang: str = "en", how: str | None = None) -> StepTable:
    """The step's table. With `beside` (a shipped published session), the published rows come first, each
    series' row of `results` after them, labelled by `how` they were obtained ("measured" here and now,
    "replayed" from a recording, "published"; None: no word), and a cell's × is its time over the size before
    it (the growth per doubling the seed's table hides), not the baseline's."""
    if step.beside:
        return _beside_table(step, results, lang, how)
    b = baseline(step.baseline or "cpu-naive")
    base_ref = SeriesRef(b.variant, tuple(sorted(b.params.items())))
    rows = []
    for ref in step.series:
        cells = []
        for n in step.sizes:
            r, base = best(results, ref, n), best(results, base_ref, n)
            ms, base_ms = _ms(r), _ms(base)
            if r is not None and r is base:
                times = render("lesson.times.same", lang)
            else:
                times = ratio(base_ms / ms, lang) if ms and base_ms else ""
            cells.append(TableCell(_time(r, lang, how != "published"), times))
        rows.append((series_name(ref.variant, dict(ref.params)), tuple(cells)))
    return StepTable(tuple(step.sizes), tuple(rows), b.label)


def published_session(name: str) -> Session:
    """A shipped session by name (a table's `beside`); LessonError if it is not shipped or does not load."""
    file = shipped_session(name)
    if file is None:
        raise LessonError(f"no shipped session {name!r}")
    try:
        return Session.load(asset_path("sessions", file))
    except SessionError as exc:
        raise LessonError(f"session {name!r}: {exc}") from None


def _growth_row(
    label: str, ref: SeriesRef, sizes: tuple[int, ...], results: list[Result], lang: str, measured: bool
) -> tuple[str, tuple[TableCell, ...]]:
    cells: list[TableCell] = []
    before: float | None = None
    for n in sizes:
        r = best(results, ref, n)
        ms = _ms(r)
        grew = ratio(ms / before, lang) if ms and before else ""
        cells.append(TableCell(_time(r, lang, measured), grew))
        before = ms
    return label, tuple(cells)


def how_words(how: str | None, lang: str) -> str:
    """'measured here', 'replayed' or 'published' (in `lang`); '' for None or an unknown kind."""
    return render("lesson.how." + how, lang) if how is not None and how in HOW_KINDS else ""


def _beside_table(step: Step, results: list[Result], lang: str, how: str | None = None) -> StepTable:
    published = published_session(step.beside)
    where = published.environment.get("gpu", "").removeprefix("NVIDIA ") or published.label
    rows = []
    for ref in step.series:
        name = series_name(ref.variant, dict(ref.params))
        kind = how_words("published", lang)
        rows.append(_growth_row(f"{name}, {where} ({kind})", ref, step.sizes, list(published.results), lang, False))
    words = how_words(how, lang)
    for ref in step.series:
        name = series_name(ref.variant, dict(ref.params))
        rows.append(
            _growth_row(f"{name}, {words}" if words else name, ref, step.sizes, results, lang, how != "published")
        )
    return StepTable(tuple(step.sizes), tuple(rows), "", growth=True)
