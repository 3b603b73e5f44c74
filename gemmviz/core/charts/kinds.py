"""The chart kinds every part of gemmviz offers (the Charts tab, the export dialog, `gemmviz export`, lessons): one
registry of small classes, as core/export_formats.py is for file formats (pyqtgraph's `Exporter.register()`).

A kind says its name, what it shows, what a chart of one result needs (counters, a block trace) and when it has
nothing to draw. Qt-free, so the CLI lists the kinds and refuses an empty chart without loading Qt: the ui gives
a kind its drawing by registering a subclass with `render` under the same name (gemmviz/ui/charts/kinds/), which
replaces the description it extends and keeps its place in the lists. A kind of its own is one such class."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from gemmviz.core.catalogue import QT_TRANSLATE_NOOP
from gemmviz.core.registry import Registry

if TYPE_CHECKING:
    from gemmviz.core.kernels.variants import Baseline

DEFAULT_BASELINE = "gpu-naive"  # what speedups are against unless chosen: the seed's naive kernel, block 16×16


class NothingToDraw(ValueError):
    """A chart would draw nothing; the message says why and, where it can, what does have data."""


class NoHardwareData(NothingToDraw):
    """No result has what a hardware chart needs; the message says what is missing and how to get it."""


@dataclass(frozen=True)
class ChartView:
    """How the window shows the results a chart draws, for every kind alike: the speedup chart's baseline (a
    key of core/kernels/variants.BASELINES), its size ("MxNxK", which also picks a chart of one result and a per-level
    roofline; None: the largest with the baseline) and its source (None or "": the first), and which session
    each result came from where several are open."""

    baseline: str = DEFAULT_BASELINE
    size_key: str | None = None
    source: str | None = None
    source_of: Callable[[Any], str] | None = None
    # the gap chart: the two kernels ("A,B", core/hardware/gap.pair_of; None: the best FP32 rung against cuBLAS) and the
    # gap file they come from (None: the newest the package ships)
    pair: str | None = None
    gap_file: str | None = None


def is_baseline(result, base: Baseline) -> bool:
    """Whether `result` is of the baseline's variant and params (core/session/results.find_baseline's match)."""
    return result.variant == base.variant and (not base.params or result.params == dict(base.params))


class ChartKind:
    """One kind of chart. Subclass it, set the class attributes and decorate the class with `@register`; the
    texts marked with QT_TRANSLATE_NOOP are the catalogue's, translated where the window shows them."""

    name: ClassVar[str]  # as `gemmviz export --chart` and lesson files spell it: "gflops"
    label: ClassVar[str]  # its name in the export dialog: "GFLOP/s"
    description: ClassVar[str]  # what it shows, one line: the dialog's tooltip and `--chart`'s help
    needs: ClassVar[tuple[str, str] | None] = None  # a chart of one result: (the Result field, how to get it)
    tab_label: ClassVar[str | None] = None  # a panel of the Charts tab: its name in the tab's "show" choice
    # a panel drawn in the Charts tab's overview ("all four": time, GFLOP/s, speedup and the table); a panel
    # without it is shown alone, by its "show" choice, and a new kind changes no overview
    overview: ClassVar[bool] = False
    # of the overview's panels, those a projector's short window (720p) draws: two charts legible from the back
    # of a room instead of four that are not (GFLOP/s and speedup: how fast, and how many times faster)
    overview_short: ClassVar[bool] = False
    in_lessons: ClassVar[bool] = True  # a lesson step may name it: a chart step, a hardware step (with `needs`)

    @classmethod
    def select(cls, results: Sequence) -> list:
        """The results this chart draws, of those shown: a kind that draws some of them (GPU results only, say)
        filters here, once; the export (`make_chart`, the CLI's check) and the Charts tab's panel both draw what
        it returns (`drawn`), and `check` and `render` are given it. All of them by default."""
        return list(results)

    @classmethod
    def check(cls, results: Sequence, view: ChartView) -> None:
        """Refuse (NothingToDraw) a chart that would draw nothing, naming what does have data."""
        if not any(r.valid and r.median_ms for r in results):
            raise NothingToDraw("nothing to chart: the session has no valid results")

    @classmethod
    def render(cls, results: Sequence, theme, ceilings, view: ChartView):
        """The chart's widget (the ui's subclass draws it)."""
        raise NotImplementedError(f"the {cls.name} chart has no drawing: import gemmviz.ui.charts.kinds")

    @classmethod
    def make_panel(cls, theme):
        """A kind with a `tab_label`: what the Charts tab shows, a ui/charts/panels.ChartPanel (the ui's subclass)."""
        raise NotImplementedError(f"the {cls.name} chart is no panel of the Charts tab")


# name -> kind; the ui's subclass of a kind (its drawing) replaces it in its place (core/registry.py)
_REGISTRY: Registry[str, type[ChartKind]] = Registry("chart kind", replaces=True)


def register(cls: type[ChartKind]) -> type[ChartKind]:
    """Add a kind (a class decorator). A subclass of a registered kind, under its name, replaces it (the ui's
    drawing extending core's description) and keeps its place; any other clash of names is refused."""
    for attr in ("name", "label", "description"):
        if not isinstance(getattr(cls, attr, None), str) or not getattr(cls, attr):
            raise TypeError(f"{cls.__name__}: a chart kind needs {attr} (a str)")
    if cls.needs is not None and (len(cls.needs) != 2 or not all(isinstance(x, str) for x in cls.needs)):
        raise TypeError(f"{cls.__name__}: needs is (the Result field, how to get it)")
    if cls.tab_label is not None and (not isinstance(cls.tab_label, str) or not cls.tab_label):
        raise TypeError(f"{cls.__name__}: tab_label is its name in the Charts tab (a str), or None")
    shown = [k.name for k in _REGISTRY.values() if k.name != cls.name and k.tab_label == cls.tab_label]
    if cls.tab_label is not None and shown:
        raise ValueError(f"{cls.__name__}: the Charts tab shows {shown[0]} as {cls.tab_label!r} already")
    return _REGISTRY.add(cls)


def drawn(name: str, results: Sequence) -> list:
    """The results the kind `name` draws of those shown (its `select`): what every caller hands its `check`,
    `render` and panel."""
    return get(name).select(results)


def unregister(cls: type[ChartKind]) -> None:
    """Remove a kind (for tests and plug-ins); a subclass that replaced its base puts the base back."""
    _REGISTRY.remove(cls)


def kinds() -> list[type[ChartKind]]:
    """Every registered kind, in the order they were first registered."""
    return list(_REGISTRY.values())


def get(name: str) -> type[ChartKind]:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown chart {name!r}; choose one of {', '.join(_REGISTRY)}") from None


class _Live(Mapping):
    """A read-only view of the registry (what `CHART_KINDS` and `HARDWARE_KINDS` were as dicts)."""

    def __init__(self, value: Callable[[type[ChartKind]], Any], keep: Callable[[type[ChartKind]], bool]):
        self._value, self._keep = value, keep

    def __getitem__(self, name: str):
        cls = _REGISTRY[name]
        if not self._keep(cls):
            raise KeyError(name)
        return self._value(cls)

    def __iter__(self) -> Iterator[str]:
        return iter([name for name, cls in _REGISTRY.items() if self._keep(cls)])

    def __len__(self) -> int:
        return sum(1 for _ in self)


# kind -> what it shows, in the words the export dialog and `gemmviz export --help` use
CHART_KINDS: Mapping[str, str] = _Live(lambda cls: cls.description, lambda cls: True)
# single-result kinds -> the Result field they need, and how to get it
HARDWARE_KINDS: Mapping[str, tuple[str, str]] = _Live(lambda cls: cls.needs, lambda cls: cls.needs is not None)


def hardware_result(kind: str, results: Sequence, series: str | None = None, size_key: str | None = None):
    """The result a `traffic` or `sm-trace` chart draws: the first valid one (in the given order) that carries
    counters / a block trace, narrowed to a series label (Result.series, or a bare variant name) and a size
    key (\"MxNxK\") when given. Raises NoHardwareData naming what is missing."""
    attr, how = HARDWARE_KINDS[kind]
    having = [r for r in results if r.valid and getattr(r, attr, None)]
    if not having:
        raise NoHardwareData(f"no result in this session has {how}")
    chosen = [r for r in having if series is None or series in (r.series, r.variant)]
    chosen = [r for r in chosen if size_key is None or r.problem.key == size_key]
    if not chosen:
        offer = ", ".join(sorted({f"{r.series} at {r.problem.label}" for r in having}))
        wanted = " at ".join(x for x in (series, size_key and _size_words(size_key)) if x)
        raise NoHardwareData(f"no result of {wanted} has {attr.replace('_', ' ')}; results with it: {offer}")
    return chosen[0]


def _size_words(key: str) -> str:
    """A size key ("8192x8192x8192") as messages write it: 8192×8192×8192 (never with an x)."""
    return key.replace("x", "×")


# ---- the kinds gemmviz ships (their drawing: gemmviz/ui/charts/kinds/) ------------------------------------
@register
class Time(ChartKind):
    name = "time"
    overview = True
    label = QT_TRANSLATE_NOOP("", "time")
    description = QT_TRANSLATE_NOOP("", "median time vs size (log-log)")


@register
class Gflops(ChartKind):
    name = "gflops"
    overview = True
    overview_short = True
    label = QT_TRANSLATE_NOOP("", "GFLOP/s")
    description = QT_TRANSLATE_NOOP("", "GFLOP/s vs size (log-log)")


@register
class Speedup(ChartKind):
    name = "speedup"
    overview = True
    overview_short = True
    label = QT_TRANSLATE_NOOP("", "speedup")
    description = QT_TRANSLATE_NOOP("", "speedup bars vs a baseline at one size")

    @classmethod
    def check(cls, results: Sequence, view: ChartView) -> None:
        """Also: the view's baseline at the view's size, naming the sizes (or the baselines) that have one."""
        from gemmviz.core.kernels.variants import BASELINES, baseline

        super().check(results, view)
        base = baseline(view.baseline)
        valid = [r for r in results if r.valid and r.median_ms]
        mine = [r for r in valid if view.source_of is None or not view.source or view.source_of(r) == view.source]
        mine = mine or valid
        with_base = sorted({r.problem for r in mine if is_baseline(r, base)}, key=lambda p: p.m * p.n * p.k)
        if not with_base:
            others = ", ".join(b.key for b in BASELINES if any(is_baseline(r, b) for r in mine)) or "none"
            raise NothingToDraw(
                f"nothing to chart: no {base.label} result to compare with at any size; baselines with results: {others}"
            )
        at = view.size_key
        if at and at not in {p.key for p in with_base} and at in {r.problem.key for r in mine}:
            names = ", ".join(p.label for p in with_base)
            raise NothingToDraw(
                f"nothing to chart: no {base.label} result at {_size_words(at)}; sizes with one: {names}"
            )


@register
class Roofline(ChartKind):
    name = "roofline"
    label = QT_TRANSLATE_NOOP("", "roofline")
    description = QT_TRANSLATE_NOOP("", "GFLOP/s vs arithmetic intensity under the GPU's ceilings")
    in_lessons = False  # a lesson's roofline step draws it (its own view, with the step's points)

    @staticmethod
    def has_points(results: Sequence) -> bool:
        """Whether any result can stand under a GPU's roof: a valid, timed GPU result."""
        return any(r.valid and r.median_ms and r.backend == "cuda" for r in results)

    @classmethod
    def check(cls, results: Sequence, view: ChartView) -> None:
        super().check(results, view)
        if not cls.has_points(results):
            raise NothingToDraw("nothing to chart: the roofline needs GPU results and these have none")


@register
class Dashboard(ChartKind):
    name = "dashboard"
    label = QT_TRANSLATE_NOOP("", "dashboard")
    description = QT_TRANSLATE_NOOP("", "time, GFLOP/s, speedup and roofline on one 2x2 page")
    quarters = ("time", "gflops", "speedup", "roofline")  # row by row
    in_lessons = False  # four charts: too much for one step's message

    @classmethod
    def check(cls, results: Sequence, view: ChartView) -> None:
        """Each quarter's own check, in the same view (a size or baseline it has no data for is refused), but for
        a quarter empty by nature (the roofline of a CPU-only session), which says why in its place."""
        for name in cls.quarters:
            if not cls.empty_reason(name, results, view):
                get(name).check(drawn(name, results), view)

    @classmethod
    def empty_reason(cls, name: str, results: Sequence, view: ChartView) -> str:
        """Why the quarter `name` is drawn empty, or "": the roofline's refusal where no result ran on a GPU."""
        if name != Roofline.name or Roofline.has_points(results):
            return ""
        try:
            get(name).check(drawn(name, results), view)
        except NothingToDraw as exc:
            return str(exc)
        return ""


@register
class Traffic(ChartKind):
    name = "traffic"
    label = QT_TRANSLATE_NOOP("", "traffic")
    description = QT_TRANSLATE_NOOP(
        "", "the model's traffic beside the hardware counters, per memory level (a profiled result)"
    )
    needs = ("counters", "hardware counters: run `gemmviz profile` on a GPU")


@register
class SmTrace(ChartKind):
    name = "sm-trace"
    label = QT_TRANSLATE_NOOP("", "sm-trace")
    description = QT_TRANSLATE_NOOP("", "thread blocks on the SMs over time, in waves (a traced result)")
    needs = ("block_trace", "block traces: run `gemmviz profile` with block tracing on a GPU")


@register
class LastWave(ChartKind):
    name = "last-wave"
    label = QT_TRANSLATE_NOOP("", "last wave")
    description = QT_TRANSLATE_NOOP(
        "",
        "gpu-cpasync-any at 1024³ before and after the small-size fix, its idle SM-time hatched (recorded traces"
        " where the session has them, else the model's)",
    )
    in_lessons = False  # drawn from its own pick of traces, not a step's results

    @classmethod
    def check(cls, results: Sequence, view: ChartView) -> None:
        """Always something to draw: the model's traces where no recording is open."""
