"""The roofline: GFLOP/s against arithmetic intensity under the GPU's ceilings (ui/charts/roofline.py); one
chosen result that measured its traffic gets its per-level roofline (ui/hardware/tab.LevelRooflineChart)."""

from __future__ import annotations

from gemmviz.core.charts import kinds as chart_kinds


@chart_kinds.register
class Roofline(chart_kinds.Roofline):
    @classmethod
    def render(cls, results, theme, ceilings, view):
        at = view.size_key
        gpu = [r for r in results if r.valid and r.backend == "cuda" and (not at or r.problem.key == at)]
        if len(gpu) == 1 and gpu[0].counters:
            # one chosen result (at --at's size, if given) that measured its traffic: its per-level roofline
            # (several results keep the one roofline with a point each, so that they can be compared)
            from gemmviz.ui.hardware.tab import LevelRooflineChart

            level_chart = LevelRooflineChart(theme)
            level_chart.set_result(gpu[0], ceilings)
            return level_chart
        from gemmviz.ui.charts.roofline import RooflineChart

        chart = RooflineChart(theme)
        if view.source_of is not None:
            chart.source_of = view.source_of
        chart.ceilings = ceilings
        chart.set_results(results)
        return chart
