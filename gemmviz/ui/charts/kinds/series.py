"""Time and GFLOP/s against the matrix size (log-log): a line per series (ui/charts/plots.py)."""

from __future__ import annotations

from gemmviz.core import views
from gemmviz.core.catalogue import QT_TRANSLATE_NOOP


def _series_chart(chart_class, results, theme, view: views.ChartView):
    chart = chart_class(theme)
    if view.source_of is not None:
        chart.source_of = view.source_of
    chart.set_results(results)
    return chart


@views.register
class Time(views.Time):
    panel = QT_TRANSLATE_NOOP("", "time")

    @classmethod
    def render(cls, results, theme, ceilings, view):
        from gemmviz.ui.charts.plots import TimeChart

        return _series_chart(TimeChart, results, theme, view)

    @classmethod
    def make_panel(cls, theme):
        from gemmviz.ui.charts.panels import ChartPanel
        from gemmviz.ui.charts.plots import TimeChart

        return ChartPanel(TimeChart(theme))


@views.register
class Gflops(views.Gflops):
    panel = QT_TRANSLATE_NOOP("", "GFLOP/s")

    @classmethod
    def render(cls, results, theme, ceilings, view):
        from gemmviz.ui.charts.plots import GflopsChart

        return _series_chart(GflopsChart, results, theme, view)

    @classmethod
    def make_panel(cls, theme):
        from gemmviz.ui.charts.panels import ChartPanel
        from gemmviz.ui.charts.plots import GflopsChart

        return ChartPanel(GflopsChart(theme))
