"""What an addition costs (issue 35, CONTRIBUTING.md's "How to add"): a scratch addition of each kind is made here,
in the test, through its registry (monkeypatched or `Registry.scratch`, removed afterwards), and the suite's own
checks are run over it. An addition that needs another file edited, a list in a test extended or a new GPU
recording fails here: a variant, a chart kind, an export format, a lesson (its two TOML files beside the shipped
ones) and a lesson view (its core part and its drawing). Chart kinds and formats are also exercised end to end in
test_chart_kinds.py, lesson views in test_lesson_views.py, schedule kinds in test_schedule_kinds.py."""

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


# ---- a lesson -----------------------------------------------------------------------------------------------
# What a teacher adds: assets/lessons/NAME.toml and its translation NAME.zh.toml, nothing else. The scratch files
# are put beside the shipped ones (core/lesson/lessons.py finds lessons through `asset_files`), and the suite's
# checks over every shipped lesson run with them in place.
SCRATCH_LESSON = {
    "zzscratch.toml": '''title = "A scratch lesson"
summary = "Two slides a test adds."
session = "h200-2026-12-02.json"

[[step]]
title = "V1 and V2"
text = "V2 stages 32×32 tiles in shared memory. Same arithmetic, very different memory traffic."
view = "chart"
chart = "gflops"
series = ["gpu-naive[block=32]", "gpu-tiled[tile=32]"]
sizes = [1024, 2048, 4096]
notes = """The three versions compute exactly the same sums; only where the operands come from changes."""

[[step]]
title = "Arithmetic intensity"
text = "Intensity is FLOPs per byte moved from memory."
notes = """Count the bytes the code asks for. V1: two four-byte loads per multiply-add, two FLOPs, so 0.25 FLOP per byte."""
''',
    "zzscratch.zh.toml": '''title = "算术强度"
summary = "两页。"
session = "h200-2026-12-02.json"
lang = "zh"

[[step]]
title = "V1、V2"
text = "V2 把 32×32 分块暂存到共享内存。计算量相同，内存流量天差地别。"
view = "chart"
chart = "gflops"
series = ["gpu-naive[block=32]", "gpu-tiled[tile=32]"]
sizes = [1024, 2048, 4096]
notes = """原文的三个版本计算完全相同的和，变的只是操作数从哪里来。V1 启动 32×32 的线程块，V2 暂存 32×32 的分块。"""

[[step]]
title = "算术强度"
text = "强度即每字节的浮点运算次数。"
notes = """数一数代码请求的字节。V1：每次乘加两次 4 字节读取、两次浮点运算，所以是 0.25 FLOP/字节。"""
''',
}


@pytest.fixture
def scratch_lesson(tmp_path, monkeypatch):
    """The scratch lesson among the shipped ones, in English and Chinese; the shipped ones alone afterwards."""
    from gemmviz.core.lesson import lessons

    folder = tmp_path / "scratch-lessons"
    folder.mkdir()
    for name, text in SCRATCH_LESSON.items():
        (folder / name).write_text(text, encoding="utf-8")
    shipped = lessons.asset_files

    def with_scratch(kind, suffix=".json"):
        found = shipped(kind, suffix)
        return sorted([*found, *folder.glob(f"*{suffix}")], key=lambda f: f.name) if kind == "lessons" else found

    monkeypatch.setattr(lessons, "asset_files", with_scratch)
    by_lang = lessons.all_shipped_lessons()["zzscratch"]
    assert set(by_lang) == {"en", "zh"}
    return by_lang


def test_a_new_lesson_passes_the_lesson_checks_and_the_cli_lists_and_exports_it(scratch_lesson, tmp_path, capsys):
    from gemmviz.cli.main import main
    from gemmviz.core.lesson.lessons import lesson_gaps, lesson_session
    from tests import test_lessons

    test_lessons.test_shipped_lessons_load_and_have_the_seed_lessons()
    test_lessons.test_shipped_lessons_show_no_markup_and_name_quoted_figures()
    test_lessons.test_no_two_rows_of_a_lesson_table_share_a_colour()
    test_lessons.test_one_set_of_ceilings_in_slides_and_docs()
    test_lessons.test_slides_say_at_most_30_words_and_every_step_has_notes()
    test_lessons.test_no_measured_here_on_a_replay_in_either_language()
    for lesson in scratch_lesson.values():
        assert lesson_gaps(lesson, lesson_session(lesson)) == []
    assert main(["lesson", "--list"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("zzscratch")]
    assert len(listed) == 1 and "A scratch lesson" in listed[0]
    out = tmp_path / "slides"
    assert main(["lesson", "zzscratch", "--lang", "zh", "--export", str(out), "--size", "640x360"]) == 0
    assert len(list(out.glob("step-*.png"))) == 2 and (out / "lesson.pdf").stat().st_size > 0


def test_a_new_lessons_slides_are_legible_and_its_chinese_is_in_the_bundled_font(scratch_lesson, qtbot, monkeypatch):
    from PySide6.QtGui import QFont, QRawFont

    from gemmviz.core.lesson.lessons import lesson_session, shipped_lessons
    from gemmviz.core.paths import asset_path
    from gemmviz.ui.fonts import CJK_FONT_FILE
    from tests import test_fonts_cjk, test_lesson_legible

    monkeypatch.setattr(test_lesson_legible, "LESSONS", {lang: shipped_lessons(lang) for lang in ("en", "zh")})
    sources = {(lang, "zzscratch"): lesson_session(lesson) for lang, lesson in scratch_lesson.items()}
    for lang in ("en", "zh"):
        test_lesson_legible.test_every_step_in_the_window_is_legible_on_a_projector(
            qtbot, sources, lang, "zzscratch", "720p"
        )
        test_lesson_legible.test_every_exported_slide_is_legible(qtbot, sources, lang, "zzscratch", "1080p")
    raw = QRawFont(str(asset_path("fonts", CJK_FONT_FILE)), 20, QFont.HintingPreference.PreferNoHinting)
    chinese = set(test_fonts_cjk.CJK.findall(SCRATCH_LESSON["zzscratch.zh.toml"]))
    assert len(chinese) > 20 and all(raw.supportsCharacter(ord(c)) for c in chinese)


def test_a_new_lesson_is_in_the_lesson_menu(scratch_lesson, qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings

    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.window import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(backends={"cpu": CpuBackend()}, settings=settings, load_recorded_without_gpu=False)
    qtbot.addWidget(w)
    menu = next(a.menu() for a in w.menuBar().actions() if a.text() == "&Lesson")
    assert any(a.text().startswith(scratch_lesson["en"].title) for a in menu.actions())
    w.close()


# ---- a lesson view ------------------------------------------------------------------------------------------
def test_a_new_lesson_view_is_a_core_part_and_a_drawing_and_the_view_checks_pass(qtbot):
    """Both parts added through their registries (as core/lesson/view_NAME.py and ui/lesson/view_NAME.py would
    add them): parsed, refused with its own message, listed in the errors, drawn on a slide and in lesson mode,
    and the suite's every-view-has-a-drawing check holds; afterwards neither registry has it."""
    from PySide6.QtWidgets import QLabel

    from gemmviz.core.lesson import views as lesson_views
    from gemmviz.core.lesson.lessons import NO_DATA, LessonError, parse_lesson
    from gemmviz.ui.lesson import views as ui_views
    from gemmviz.ui.lesson.mode import LessonView
    from gemmviz.ui.lesson.render import render_slide_image
    from tests import test_lesson_views as shipped_checks

    kind = lesson_views.LessonViewKind("zzstripes", ("stripes",), shipped_checks._check)
    lesson_text = shipped_checks.LESSON.replace('"stripes"\n', '"zzstripes"\n')
    with lesson_views.VIEW_KINDS.scratch(kind), ui_views.UI_VIEWS.scratch(shipped_checks.StripesUi(), "zzstripes"):
        shipped_checks.test_every_registered_view_has_a_drawing()
        lesson = parse_lesson(lesson_text, "x", "my.toml")
        assert lesson.steps[0].view == "zzstripes" and lesson.steps[0].chart == "stripes-4"
        with pytest.raises(LessonError, match="stripes must be 1…9"):
            parse_lesson(lesson_text.replace("= 4", "= 12"), "x", "my.toml")
        with pytest.raises(LessonError, match="view must be one of.*zzstripes"):
            parse_lesson(lesson_text.replace('"zzstripes"', '"movie"'), "x", "my.toml")
        image = render_slide_image(640, 360, lesson, 0, NO_DATA)
        assert shipped_checks.COLOUR in {image.pixelColor(x, 250).name() for x in range(0, 640, 4)}
        view = LessonView(lesson, None)
        qtbot.addWidget(view)
        view.resize(960, 540)
        view.show()
        view.go(0)
        assert isinstance(view.views[0], QLabel) and view.views[0].text() == "stripes-4"
        view.close()  # no paint of the scratch view once it is gone
    assert "zzstripes" not in lesson_views.view_names() and "zzstripes" not in ui_views.UI_VIEWS
    with pytest.raises(LessonError, match="view must be one of"):
        parse_lesson(lesson_text, "x", "my.toml")
