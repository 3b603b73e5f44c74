"""The gap between two kernels as a chart of its own (`gemmviz export --chart gap --pair A,B`): the Hardware tab's
waterfall (ui/hardware/gap.py) with its sentences under it, from a recorded gap file."""

from __future__ import annotations

from gemmviz.core.charts import gap as gapcore
from gemmviz.core.charts import kinds as chart_kinds


@chart_kinds.register
class Gap(gapcore.GapChartKind):
    @classmethod
    def render(cls, results, theme, ceilings, view):
        from gemmviz.ui import i18n
        from gemmviz.ui.hardware.gap import GapChart

        f, g = gapcore.gap_of(view)
        chart = GapChart(theme, i18n.language(), sentences=True)  # alone, so with its sentences
        chart.set_gap(g, f.header)
        return chart
