"""The chart kinds every part of gemmviz offers (the Charts tab, the export dialog, `gemmviz export`, lessons): one
registry of small classes, as core/export_formats.py is for file formats (pyqtgraph's `Exporter.register()`).

A kind says its name, what it shows, what a chart of one result needs (counters, a block trace) and when it has
nothing to draw. Qt-free, so the CLI lists the kinds and refuses an empty chart without loading Qt: the ui gives
a kind its drawing by registering a subclass with `render` under the same name (gemmviz/ui/charts/kinds/), which
replaces the description it extends and keeps its place in the lists. A kind of its own is one such class."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from gemmviz.core.catalogue import QT_TRANSLATE_NOOP


class NothingToDraw(ValueError):
    """A chart would draw nothing; the message says why and, where it can, what does have data."""


class NoHardwareData(NothingToDraw):
    """No result has what a hardware chart needs; the message says what is missing and how to get it."""


@dataclass(frozen=True)
class ChartView:
    """How the window shows the results a chart draws, for every kind alike: the speedup chart's baseline (a
    key of core/variants.BASELINES), its size ("MxNxK", which also picks a chart of one result and a per-level
    roofline) and its source, and which session each result came from where several are open."""

    baseline: str | None = None
    size_key: str | None = None
    source: str | None = None
    source_of: Callable[[Any], str] | None = None

    @classmethod
    def of(cls, speedup_view: tuple | None, source_of: Callable[[Any], str] | None = None) -> ChartView:
        """From the (baseline, size key, source) triple the Charts tab and lessons name a speedup view by."""
        return cls(*(speedup_view or (None, None, None)), source_of=source_of)

    @property
    def speedup(self) -> tuple[str | None, str | None, str | None] | None:
        """The (baseline, size, source) asked for, or None where nothing was."""
        triple = (self.baseline, self.size_key, self.source)
        return None if triple == (None, None, None) else triple


class ChartKind:
    """One kind of chart. Subclass it, set the class attributes and decorate the class with `@register`; the
    texts marked with QT_TRANSLATE_NOOP are the catalogue's, translated where the window shows them."""

    name: ClassVar[str]  # as `gemmviz export --chart` and lesson files spell it: "gflops"
    label: ClassVar[str]  # its name in the export dialog: "GFLOP/s"
    description: ClassVar[str]  # what it shows, one line: the dialog's tooltip and `--chart`'s help
    needs: ClassVar[tuple[str, str] | None] = None  # a chart of one result: (the Result field, how to get it)
    panel: ClassVar[str] = ""  # where the Charts tab shows it: its name in the tab's "show" choice, "GFLOP/s"

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
        """A kind with a `panel`: what the Charts tab shows, a ui/charts/panels.ChartPanel (the ui's subclass)."""
        raise NotImplementedError(f"the {cls.name} chart is no panel of the Charts tab")


_REGISTRY: dict[str, type[ChartKind]] = {}
_REPLACED: dict[type[ChartKind], type[ChartKind]] = {}  # a subclass registered in its base's place -> base


def register(cls: type[ChartKind]) -> type[ChartKind]:
    """Add a kind (a class decorator). A subclass of a registered kind, under its name, replaces it (the ui's
    drawing extending core's description) and keeps its place; any other clash of names is refused."""
    for attr in ("name", "label", "description"):
        if not isinstance(getattr(cls, attr, None), str) or not getattr(cls, attr):
            raise TypeError(f"{cls.__name__}: a chart kind needs {attr} (a str)")
    if cls.needs is not None and (len(cls.needs) != 2 or not all(isinstance(x, str) for x in cls.needs)):
        raise TypeError(f"{cls.__name__}: needs is (the Result field, how to get it)")
    known = _REGISTRY.get(cls.name)
    if known is not None and not issubclass(cls, known):
        raise ValueError(f"{cls.__name__}: a chart kind called {cls.name!r} is registered already")
    if known is not None and known is not cls:
        _REPLACED[cls] = known
    _REGISTRY[cls.name] = cls
    return cls


def unregister(cls: type[ChartKind]) -> None:
    """Remove a kind (for tests and plug-ins); a subclass that replaced its base puts the base back."""
    if _REGISTRY.get(cls.name) is not cls:
        return
    if cls in _REPLACED:
        _REGISTRY[cls.name] = _REPLACED.pop(cls)
    else:
        del _REGISTRY[cls.name]


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
        wanted = " at ".join(x for x in (series, size_key) if x)
        raise NoHardwareData(f"no result of {wanted} has {attr.replace('_', ' ')}; results with it: {offer}")
    return chosen[0]


def times_text(x: float) -> str:
    """A ratio as charts and lessons write it: 1.53×, 15.3×, 153×, 15,300× (three figures up to 100)."""
    if round(x, 1) >= 100:
        return f"{x:,.0f}×"
    return f"{x:.1f}×" if round(x, 2) >= 10 else f"{x:.2f}×"


# ---- the kinds gemmviz ships (their drawing: gemmviz/ui/charts/kinds/) ------------------------------------
@register
class Time(ChartKind):
    name = "time"
    label = QT_TRANSLATE_NOOP("", "time")
    description = QT_TRANSLATE_NOOP("", "median time vs size (log-log)")


@register
class Gflops(ChartKind):
    name = "gflops"
    label = QT_TRANSLATE_NOOP("", "GFLOP/s")
    description = QT_TRANSLATE_NOOP("", "GFLOP/s vs size (log-log)")


@register
class Speedup(ChartKind):
    name = "speedup"
    label = QT_TRANSLATE_NOOP("", "speedup")
    description = QT_TRANSLATE_NOOP("", "speedup bars vs a baseline at one size")

    @classmethod
    def check(cls, results: Sequence, view: ChartView) -> None:
        """Also: the baseline asked for at the size asked for (a view given), naming the sizes that have it."""
        from gemmviz.core.variants import baseline

        super().check(results, view)
        if view.speedup is None:
            return
        base = baseline(view.baseline or "gpu-naive")
        valid = [r for r in results if r.valid and r.median_ms]
        mine = [r for r in valid if view.source_of is None or not view.source or view.source_of(r) == view.source]
        mine = mine or valid
        matches = [r for r in mine if r.variant == base.variant and (not base.params or r.params == dict(base.params))]
        with_base = sorted({r.problem for r in matches}, key=lambda p: p.m * p.n * p.k)
        if not with_base:
            raise NothingToDraw(f"nothing to chart: no {base.label} result to compare with at any size")
        at = view.size_key
        if at and at not in {p.key for p in with_base} and at in {r.problem.key for r in mine}:
            names = ", ".join(p.label for p in with_base)
            raise NothingToDraw(
                f"nothing to chart: no {base.label} result at {at.replace('x', '×')}; sizes with one: {names}"
            )


@register
class Roofline(ChartKind):
    name = "roofline"
    label = QT_TRANSLATE_NOOP("", "roofline")
    description = QT_TRANSLATE_NOOP("", "GFLOP/s vs arithmetic intensity under the GPU's ceilings")

    @classmethod
    def check(cls, results: Sequence, view: ChartView) -> None:
        super().check(results, view)
        if not any(r.valid and r.median_ms and r.backend == "cuda" for r in results):
            raise NothingToDraw("nothing to chart: the roofline needs GPU results and these have none")


@register
class Dashboard(ChartKind):
    name = "dashboard"
    label = QT_TRANSLATE_NOOP("", "dashboard")
    description = QT_TRANSLATE_NOOP("", "time, GFLOP/s, speedup and roofline on one 2x2 page")
    panels = ("time", "gflops", "speedup", "roofline")  # its quarters, row by row


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
