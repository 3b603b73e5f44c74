"""Charts of one result's hardware data (ui/hardware/): its traffic beside the counters, its blocks on the SMs.
The view's size (`gemmviz export --at`) picks the result."""

from __future__ import annotations

from gemmviz.core.charts import kinds as chart_kinds


def _hardware_chart(kind: str, results, theme, view: chart_kinds.ChartView):
    from gemmviz.ui.hardware.tab import hardware_chart

    return hardware_chart(kind, results, theme, size_key=view.size_key)


@chart_kinds.register
class Traffic(chart_kinds.Traffic):
    @classmethod
    def render(cls, results, theme, ceilings, view):
        return _hardware_chart(cls.name, results, theme, view)


@chart_kinds.register
class SmTrace(chart_kinds.SmTrace):
    @classmethod
    def render(cls, results, theme, ceilings, view):
        return _hardware_chart(cls.name, results, theme, view)


@chart_kinds.register
class LastWave(chart_kinds.LastWave):
    @classmethod
    def render(cls, results, theme, ceilings, view):
        from gemmviz.core.hardware.fix_pick import SIZE, pick_cases
        from gemmviz.core.hardware.model_trace import shipped_fix_session
        from gemmviz.ui.hardware.last_wave import LastWaveStack

        return LastWaveStack(pick_cases(SIZE, list(results), shipped=lambda: shipped_fix_session(SIZE)), theme)
