"""Checks over the Charts tab, over the chart kinds registered when called."""

from gemmviz.core.paths import asset_path
from gemmviz.ui.export.exporters import layout_offscreen
from gemmviz.ui.theme import theme_for
from tests.overlap import plot_texts, problems


def all_four_scales_its_panels_with_the_view(qtbot, projector):
    """The overview at 1280×720: in projector mode two charts (the kinds marked overview_short: GFLOP/s and
    speedup) side by side at 80% of the theme's type, the choice named "two charts" (four charts at 60% of it
    could not be read from the back of a room); in normal mode all four, the quarters equal; every chart inside
    its panel; one chart alone at the theme's size."""
    from PySide6.QtCore import QRectF

    from gemmviz.core.session.workspace import Workspace
    from gemmviz.ui.charts import kinds
    from gemmviz.ui.charts.tab import ALL, ALL_FOUR_SCALE, TWO_SCALE, ChartsTab

    ws = Workspace()
    ws.open(asset_path("sessions", "h200-2026-12-01.json"))
    theme = theme_for(projector)
    tab = ChartsTab(ws, theme)
    qtbot.addWidget(tab)
    tab.apply_theme(theme)
    tab.show_combo.setCurrentIndex(tab.show_combo.findData(ALL))
    tab.refresh()
    layout_offscreen(tab, 1268, 480)  # 1280×720 less the window's menu, banners and tab bar
    short = [k.name for k in kinds.panels() if k.overview and k.overview_short]
    assert short == ["gflops", "speedup"]
    shown = [name for name, panel in tab.panels.items() if panel.widget.isVisible()]
    assert shown == (short if projector else tab.overview)
    assert tab.table.isVisible() != projector
    assert tab.show_combo.currentText() == ("two charts" if projector else "all four")
    want = round(theme.font_pt * TWO_SCALE) if projector else theme.font_pt
    overview = [tab.panels[name].chart for name in shown]  # a kind's panel outside it is not drawn here
    assert all(c.theme.font_pt == want for c in overview)
    assert round(theme.font_pt * ALL_FOUR_SCALE) < want or not projector
    widths = [c.width() for c in overview]
    assert abs(widths[0] - widths[1]) <= 0.1 * max(widths) or not projector  # scaled: equal halves
    if projector:  # the two charts fill the view's height: one row, not the top half of a grid
        assert all(c.height() >= 0.8 * 480 - 60 for c in overview), [c.height() for c in overview]
    for chart in overview:
        assert chart.getPlotItem().geometry().width() <= chart.width() + 1
        outside = [t for t in problems(plot_texts(chart, chart), QRectF(chart.rect())) if t.startswith("outside")]
        assert outside == [], outside
    tab.show_combo.setCurrentText("GFLOP/s")
    assert tab.gflops_chart.theme.font_pt == theme.font_pt
    tab.stop()
