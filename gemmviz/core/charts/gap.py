"""The gap chart kind (`gemmviz export --chart gap`): the waterfall of two kernels of a gap file, decomposed by
core/hardware/gap.py; its drawing is ui/charts/kinds/gap.py. It lives in charts/, which may import hardware/,
not the other way round."""

from __future__ import annotations

from collections.abc import Sequence

from gemmviz.core.catalogue import QT_TRANSLATE_NOOP
from gemmviz.core.charts import kinds as chart_kinds
from gemmviz.core.hardware.gap import (
    Gap,
    GapError,
    GapFile,
    decompose,
    load_gap_file,
    load_shipped_gap,
    pair_of,
    readable,
)
from gemmviz.core.session.recorded import RecordError


@chart_kinds.register
class GapChartKind(chart_kinds.ChartKind):
    """`gemmviz export --chart gap`: the waterfall of two kernels of a gap file (ui/charts/kinds/gap.py draws it)."""

    name = "gap"
    label = QT_TRANSLATE_NOOP("", "gap")
    description = QT_TRANSLATE_NOOP(
        "", "where the time between two kernels goes, from their recorded counters (a gap file; --pair A,B)"
    )
    in_lessons = False  # a lesson's gap step draws it (its own view, with the step's two kernels)

    @classmethod
    def check(cls, results: Sequence, view: chart_kinds.ChartView) -> None:
        """The gap file loads and holds the pair (the session's results are not what it draws)."""
        gap_of(view)


def gap_of(view: chart_kinds.ChartView) -> tuple[GapFile, Gap]:
    """(the gap file, the gap of the view's pair as the views draw it: `readable`); NothingToDraw in one line
    where the file cannot be read or lacks the pair. The file: the view's, else the newest the package ships."""
    try:
        if view.gap_file is None:
            f, why = load_shipped_gap()
            if f is None:
                raise chart_kinds.NothingToDraw(f"nothing to chart: {why}")
        else:
            f = load_gap_file(view.gap_file)
        a, b = pair_of(f, view.pair)
        return f, readable(decompose(a, b, f.header.gpu))
    except (RecordError, GapError) as exc:
        raise chart_kinds.NothingToDraw(f"nothing to chart: {exc}") from None
