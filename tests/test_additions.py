"""What an addition costs (issue 35, CONTRIBUTING.md's "How to add"): a scratch addition of each kind is made here,
in the test, through its registry (monkeypatched or `Registry.scratch`, removed afterwards), and the suite's own
checks are run over it. An addition that needs another file edited, a list in a test extended or a new GPU
recording fails here. Chart kinds and formats are also exercised end to end in test_chart_kinds.py, lesson views
in test_lesson_views.py, schedule kinds in test_schedule_kinds.py."""

import dataclasses

import pytest

pytest.importorskip("PySide6")

from gemmviz.core import export_formats
from gemmviz.core.charts import kinds as chart_kinds
from gemmviz.core.charts import style
from gemmviz.core.kernels import variants as variants_module
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.paths import asset_path
from gemmviz.core.registry import Registry

SESSION = str(asset_path("sessions", "h200-2026-12-01.json"))


# ---- the one registry ---------------------------------------------------------------------------------------
def test_the_registry_adds_replaces_refuses_and_puts_back():
    reg: Registry[str, type] = Registry("thing", replaces=True)

    class Base:
        name = "a"

    class Ui(Base):
        pass

    class Other:
        name = "a"

    reg.add(Base)
    reg.add(Ui)  # the ui's subclass takes its base's place
    assert reg.find("a") is Ui and list(reg) == ["a"]
    with pytest.raises(ValueError, match="registered already"):
        reg.add(Other)
    reg.remove(Ui)
    assert reg["a"] is Base
    with reg.scratch(Other, "b"):
        assert list(reg) == ["a", "b"]
    assert list(reg) == ["a"]
    with pytest.raises(KeyError, match=r"no thing 'zz' \(known: a\)"):
        reg.find("zz")


# ---- a kernel variant -----------------------------------------------------------------------------------------
SCRATCH = "gpu-scratch"


@pytest.fixture
def scratch_variant(monkeypatch):
    """A variant added as CONTRIBUTING says: one registry entry (here a copy of the tiled kernel under a new name,
    with its title and explanation in Chinese), named as not recorded yet with its reason."""
    v = dataclasses.replace(
        VARIANTS["gpu-tiled"],
        name=SCRATCH,
        title="GPU scratch kernel",
        explanation="A scratch kernel a test adds.",
        default=False,
        translations={
            "zh": {"GPU scratch kernel": "GPU 试验内核", "A scratch kernel a test adds.": "测试加入的试验内核。"}
        },
    )
    monkeypatch.setitem(VARIANTS, SCRATCH, v)
    monkeypatch.setitem(variants_module.NOT_RECORDED, SCRATCH, "added by a test; no GPU here to record it")
    return v


def test_a_new_variant_gets_a_colour_with_room_and_needs_no_recording(scratch_variant):
    from tests import test_sessions

    assert style.check_registry_fits()  # every series its own colour, marker and dash: no fifth marker needed
    mine = [s for s in style.registry_series() if s.startswith(SCRATCH)]
    assert len(mine) == 3 and {style.style_of(s).colour for s in mine} == {style.style_of(mine[0]).colour}
    assert all(style.style_of(s).marker in style.MARKERS for s in mine)  # the table's own markers (and dashes)
    others = [s for s in style.registry_series() if not s.startswith(SCRATCH)]
    per_colour = [sum(style.style_of(s).colour == c for s in others) for c in range(style.PALETTE_SIZE)]
    assert per_colour[style.style_of(mine[0]).colour] == min(per_colour)  # the colour with the most room
    test_sessions.test_recorded_h200_session_has_every_variant_and_size()  # the shipped session still passes


def test_a_new_variants_title_and_explanation_come_from_the_registry_in_chinese(scratch_variant, qapp):
    from gemmviz.ui import i18n
    from gemmviz.ui.text import tr

    assert i18n.install(qapp, "zh")
    try:
        assert tr(scratch_variant.title) == "GPU 试验内核"
        assert tr(scratch_variant.explanation) == "测试加入的试验内核。"
        assert tr(VARIANTS["gpu-tiled"].title) != VARIANTS["gpu-tiled"].title  # the catalogue's own, as before
    finally:
        i18n.install(qapp, "en")
    assert tr(scratch_variant.title) == "GPU scratch kernel"


# ---- a chart kind -----------------------------------------------------------------------------------------------
@pytest.fixture
def scratch_kind():
    """A chart kind with a panel in the Charts tab, outside its overview: one class."""
    from gemmviz.ui.charts.kinds import series

    class ScratchKind(series.Gflops):
        name = "zz-scratch"
        label = "scratch"
        description = "a scratch chart"
        tab_label = "scratch"
        overview = False

    with chart_kinds._REGISTRY.scratch(ScratchKind):
        yield ScratchKind


def test_a_new_chart_kind_leaves_the_overview_as_it_was(scratch_kind, qtbot):
    from gemmviz.core.session.workspace import Workspace
    from gemmviz.ui.charts.tab import ALL, ChartsTab
    from gemmviz.ui.theme import LIGHT

    ws = Workspace()
    ws.open(SESSION)
    tab = ChartsTab(ws, LIGHT)
    qtbot.addWidget(tab)
    tab.show()
    tab.show_combo.setCurrentIndex(tab.show_combo.findData(ALL))
    shown = [name for name, panel in tab.panels.items() if panel.widget.isVisible()]
    assert shown == ["time", "gflops", "speedup"] and tab.table.isVisible()  # "all four" is still four
    tab.show_combo.setCurrentIndex(tab.show_combo.findData(scratch_kind.name))
    assert [name for name, panel in tab.panels.items() if panel.widget.isVisible()] == [scratch_kind.name]
    tab.stop()


@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
def test_the_overview_layout_checks_pass_with_a_new_kind(scratch_kind, qtbot, projector):
    from tests import test_charts

    test_charts.test_all_four_scales_its_panels_with_the_view(qtbot, projector)


# ---- an export format -------------------------------------------------------------------------------------------
def test_a_new_image_format_is_one_class_through_the_image_writer(tmp_path, capsys):
    """BMP, say: a description and an ImageFormat subclass; the CLI's check, help and writer follow."""
    from PySide6.QtGui import QImage

    from gemmviz.cli import main
    from gemmviz.ui.export.formats.charts import ImageFormat

    class Bmp(ImageFormat):
        name = "bmp"
        target = export_formats.CHART
        suffix = ".bmp"
        title = "BMP image"
        qt_format = "BMP"

    with export_formats._REGISTRY.scratch(Bmp):
        assert ".bmp" in export_formats.suffixes(export_formats.CHART)
        out = tmp_path / "chart.bmp"
        assert main(["export", SESSION, "--chart", "gflops", "--size", "640x360", "-o", str(out)]) == 0
        assert QImage(str(out)).width() == 640
    assert ".bmp" not in export_formats.suffixes(export_formats.CHART)
    out = tmp_path / "again.bmp"
    assert main(["export", SESSION, "--chart", "gflops", "-o", str(out)]) == 2 and not out.exists()
    assert "must end in" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".png", ".jpg", ".webp"])
def test_the_shipped_image_formats_share_one_writer(tmp_path, suffix):
    from PySide6.QtGui import QImage

    from gemmviz.cli import main
    from gemmviz.ui.export.formats import writer
    from gemmviz.ui.export.formats.charts import ImageFormat

    out = tmp_path / f"chart{suffix}"
    assert issubclass(writer(export_formats.CHART, out), ImageFormat)
    assert main(["export", SESSION, "--chart", "time", "--size", "640x360", "-o", str(out)]) == 0
    assert QImage(str(out)).size().height() == 360
