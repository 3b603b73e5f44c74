"""Time and GFLOP/s against the matrix size (log-log): a line per series (ui/charts/plots.py)."""

from __future__ import annotations

from gemmviz.core.catalogue import QT_TRANSLATE_NOOP
from gemmviz.core.charts import kinds as chart_kinds


def _series_chart(chart_class, results, theme, view: chart_kinds.ChartView):
    chart = chart_class(theme)
    if view.source_of is not None:
        chart.source_of = view.source_of
    chart.set_results(results)
    return chart


@chart_kinds.register
class Time(chart_kinds.Time):
    tab_label = QT_TRANSLATE_NOOP("", "time")

    @classmethod
    def render(cls, results, theme, ceilings, view):
        from gemmviz.ui.charts.plots import TimeChart

        return _series_chart(TimeChart, results, theme, view)

    @classmethod
    def make_panel(cls, theme):
        from gemmviz.ui.charts.panels import ChartPanel
        from gemmviz.ui.charts.plots import TimeChart

        return ChartPanel(TimeChart(theme))


@chart_kinds.register
class Gflops(chart_kinds.Gflops):
    tab_label = QT_TRANSLATE_NOOP("", "GFLOP/s")

    @classmethod
    def render(cls, results, theme, ceilings, view):
        from gemmviz.ui.charts.plots import GflopsChart

        return _series_chart(GflopsChart, results, theme, view)

    @classmethod
    def make_panel(cls, theme):
        from gemmviz.ui.charts.panels import ChartPanel
        from gemmviz.ui.charts.plots import GflopsChart

        return ChartPanel(GflopsChart(theme))
