"""Speedup bars against a baseline at one size (ui/charts/plots.SpeedupChart); in the Charts tab with its choice
of source, baseline and size (ui/charts/panels.SpeedupPanel)."""

from __future__ import annotations

from gemmviz.core.catalogue import QT_TRANSLATE_NOOP
from gemmviz.core.charts import kinds as chart_kinds


@chart_kinds.register
class Speedup(chart_kinds.Speedup):
    tab_label = QT_TRANSLATE_NOOP("", "speedup")

    @classmethod
    def render(cls, results, theme, ceilings, view):
        from gemmviz.ui.charts.plots import SpeedupChart

        chart = SpeedupChart(theme)
        if view.source_of is not None:
            chart.source_of = view.source_of
        chart.baseline, chart.size_key, chart.source = view.baseline, view.size_key, view.source
        chart.set_results(results)
        return chart

    @classmethod
    def make_panel(cls, theme):
        from gemmviz.ui.charts.panels import SpeedupPanel

        return SpeedupPanel(theme)
