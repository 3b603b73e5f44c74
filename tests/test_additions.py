"""What an addition costs (CONTRIBUTING.md's "How to add"): a scratch addition of each kind is made here, in the
test, exactly as CONTRIBUTING says and touching nothing else (through its registry's `Registry.scratch`, or its
files beside the shipped ones, removed afterwards), and the suite's own checks of that kind
(tests/checks/, shared with the tests that hold the shipped entries to them) run over it. An addition that needs
another file edited, a list in a test extended or a new GPU recording fails here: a kernel variant, a chart
kind, an export format, a lesson, an exercise, a window string and a core message, and a lesson view. Chart
kinds and formats are also exercised end to end in test_chart_kinds.py, lesson views in test_lesson_views.py,
schedule kinds in test_schedule_kinds.py."""

import dataclasses
from pathlib import Path

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


def test_a_registry_written_as_one_literal_keeps_its_order_and_substitutes_in_place():
    a, b, c = (dataclasses.make_dataclass("E", ["name", "x"])(n, 0) for n in "abc")
    reg: Registry[str, object] = Registry("entry", entries=(a, b))
    assert list(reg) == ["a", "b"] and reg["b"] is b
    changed = dataclasses.replace(a, x=1)
    with reg.substitute(changed):
        assert list(reg) == ["a", "b"] and reg["a"] is changed  # its place kept
    assert reg["a"] is a
    with pytest.raises(KeyError, match=r"no entry 'c' \(known: a, b\)"), reg.substitute(c):
        pass
    assert list(reg) == ["a", "b"]


def test_the_kernel_variants_are_a_registry():
    assert isinstance(VARIANTS, Registry) and VARIANTS.find("gpu-tiled").name == "gpu-tiled"
    with pytest.raises(TypeError):
        VARIANTS["gpu-scratch"] = VARIANTS["gpu-tiled"]  # type: ignore[index]  # read-only: add through the registry


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
    monkeypatch.setitem(variants_module.NOT_RECORDED, SCRATCH, "added by a test; no GPU here to record it")
    with VARIANTS.scratch(v):
        yield v


def test_a_new_variant_gets_its_own_colour_and_markers_and_needs_no_recording(scratch_variant, monkeypatch, tmp_path):
    """No VARIANT_COLOUR entry (optional), three tile values: each of its series has its own colour and marker
    (none meets cpu-naive's, none needs a dash), and every check the style table holds the shipped kernels to holds;
    named in NOT_RECORDED, the shipped session and the presets' exports pass without an H200 recording."""
    from tests.checks import presets, sessions, styles
    from tests.checks.variants import variant_is_complete

    variant_is_complete(scratch_variant)  # test_variants'

    assert SCRATCH not in style.VARIANT_COLOUR
    mine = [s for s in style.registry_series() if s.startswith(SCRATCH)]
    assert len(mine) == 3 and len({style.style_of(s).colour for s in mine}) == 1
    others = [s for s in style.registry_series() if not s.startswith(SCRATCH)]
    per_colour = [sum(style.style_of(s).colour == c for s in others) for c in range(style.PALETTE_SIZE)]
    assert per_colour[style.style_of(mine[0]).colour] == min(per_colour)  # the colour with the most room
    styles.every_series_has_its_own_colour_and_marker()  # test_series_styles' checks, the scratch variant in
    styles.presets_and_every_prefix_of_the_registry()
    styles.seed_kernels_keep_their_styles()
    assert styles.lesson_charts_have_distinct_colours() >= 5
    sessions.h200_session_has_every_variant_and_size()  # test_sessions'
    presets.presets_draw_what_they_name(presets.spy_on_exports(monkeypatch), tmp_path)  # test_export_preset's


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
    """A chart kind with a panel in the Charts tab, outside its overview, that draws the GPU's results only: one
    class, its filter written once (`select`), for the tab and the export alike."""
    from gemmviz.ui.charts.kinds import series

    class ScratchKind(series.Gflops):
        name = "zz-scratch"
        label = "scratch"
        description = "a scratch chart"
        tab_label = "scratch"
        overview = False

        @classmethod
        def select(cls, results):
            return [r for r in results if r.backend == "cuda"]

    with chart_kinds._REGISTRY.scratch(ScratchKind):
        yield ScratchKind


def test_a_new_chart_kind_filters_once_for_tab_and_export_and_leaves_the_overview(scratch_kind, qtbot):
    from gemmviz.core.session.workspace import Workspace
    from gemmviz.ui.charts.tab import ALL, ChartsTab
    from gemmviz.ui.export.exporters import make_chart
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
    tab.refresh()
    in_tab = {r.series for r in tab.panels[scratch_kind.name].chart.results}
    exported = make_chart(scratch_kind.name, ws.shown(), LIGHT)
    assert in_tab == {r.series for r in exported.results} == {r.series for r in ws.shown() if r.backend == "cuda"}
    assert any(r.backend == "cpu" for r in ws.shown())  # the filter had something to leave out
    exported.deleteLater()
    tab.stop()


@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
def test_the_overview_layout_checks_pass_with_a_new_kind(scratch_kind, qtbot, projector):
    from tests.checks.charts import all_four_scales_its_panels_with_the_view

    all_four_scales_its_panels_with_the_view(qtbot, projector)  # test_charts'


# ---- an export format -------------------------------------------------------------------------------------------
@pytest.fixture
def scratch_tiff():
    """TIFF as CONTRIBUTING says: an ImageFormat subclass naming Qt's writer, its suffixes and its option. Its name,
    suffixes and title are throwaways, so that a contributor who adds TIFF itself (CONTRIBUTING's example) breaks
    nothing here."""
    from gemmviz.ui.export.formats.charts import ImageFormat

    class Tiff(ImageFormat):
        name = "zz-tiff"
        target = export_formats.CHART
        suffix = ".zztiff"
        aliases = (".zztif",)
        title = "zz TIFF image"  # marked with QT_TRANSLATE_NOOP in a real module, translated in tools/zh_CN.py
        qt_format = "TIFF"
        options = {"compression": 1}  # QImageWriter.setCompression(1): LZW

    with export_formats._REGISTRY.scratch(Tiff):
        yield Tiff


def test_a_new_image_format_is_one_class_written_by_the_cli_and_the_access_views(scratch_tiff, tmp_path, capsys):
    from PySide6.QtGui import QImage

    from gemmviz.cli import main
    from gemmviz.ui.accesses.export import export_access_view

    assert {".zztiff", ".zztif"} <= set(export_formats.suffixes(export_formats.CHART))
    assert scratch_tiff.file_filter() == "zz TIFF image (*.zztiff *.zztif)"
    out = tmp_path / "chart.zztif"  # the alias
    assert main(["export", SESSION, "--chart", "gflops", "--size", "640x360", "-o", str(out)]) == 0
    assert QImage(str(out)).width() == 640
    view = export_access_view("coalescing", tmp_path / "view.zztiff", 640, 360)  # the access views: the same writer
    assert QImage(str(view)).size().height() == 360
    capsys.readouterr()


def test_a_new_formats_untranslated_title_is_named_by_the_suite(scratch_tiff, qapp):
    """The scratch title is in no catalogue: the check the shipped formats meet (test_i18n) names it."""
    from tests.checks.formats import titles_without_translation

    assert titles_without_translation(qapp) == ["zz TIFF image"]


def test_every_format_qt_writes_is_a_few_lines_on_the_one_image_exporter(qapp):
    """pyqtgraph's ImageExporter writes whatever QImageWriter writes; so does ImageFormat: each format Qt lists,
    made a scratch ImageFormat, encodes a picture Qt reads back at its size."""
    from PySide6.QtGui import QImageReader, QImageWriter

    from gemmviz.ui.export.formats.charts import ImageFormat
    from tests.checks.formats import image_round_trip

    readable = {bytes(f.data()).decode().lower() for f in QImageReader.supportedImageFormats()}
    written = sorted({bytes(f.data()).decode().lower() for f in QImageWriter.supportedImageFormats()} & readable)
    assert {"bmp", "jpeg", "png", "tiff", "webp"} <= set(written)
    for qt in written:
        if qt in (
            "cur",
            "ico",
            "icns",
            "xbm",
            "pbm",
        ):  # icons and bitmaps: Qt writes them at sizes or depths of their own
            continue
        attrs = {"name": f"zz{qt}", "target": export_formats.CHART, "suffix": f".zz{qt}", "qt_format": qt.upper()}
        fmt = type(qt, (ImageFormat,), {**attrs, "title": qt})
        with export_formats._REGISTRY.scratch(fmt):
            image_round_trip(fmt)


@pytest.mark.parametrize("suffix", [".png", ".jpg", ".jpeg", ".webp"])
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
# are put beside the shipped ones (core/lesson/library.py finds lessons through `asset_files`), and the suite's
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
    from gemmviz.core.lesson import library

    folder = tmp_path / "scratch-lessons"
    folder.mkdir()
    for name, text in SCRATCH_LESSON.items():
        (folder / name).write_text(text, encoding="utf-8")
    shipped = library.asset_files

    def with_scratch(kind, suffix=".json"):
        found = shipped(kind, suffix)
        return sorted([*found, *folder.glob(f"*{suffix}")], key=lambda f: f.name) if kind == "lessons" else found

    monkeypatch.setattr(library, "asset_files", with_scratch)
    by_lang = library.all_shipped_lessons()["zzscratch"]
    assert set(by_lang) == {"en", "zh"}
    return by_lang


def test_a_new_lesson_passes_the_lesson_checks_and_the_cli_lists_and_exports_it(scratch_lesson, tmp_path, capsys):
    from gemmviz.cli.main import main
    from gemmviz.core.lesson.lessons import lesson_gaps, lesson_session
    from tests.checks import lessons as lesson_checks

    lesson_checks.shipped_lessons_load_and_have_the_seed_lessons()  # test_lessons' checks, the scratch one in
    lesson_checks.shipped_lessons_show_no_markup_and_name_quoted_figures()
    lesson_checks.no_two_rows_of_a_lesson_table_share_a_colour()
    lesson_checks.one_set_of_ceilings_in_slides_and_docs()
    lesson_checks.slides_say_at_most_30_words_and_every_step_has_notes()
    lesson_checks.no_measured_here_on_a_replay_in_either_language()
    for lesson in scratch_lesson.values():
        assert lesson_gaps(lesson, lesson_session(lesson)) == []
    assert main(["lesson", "--list"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("zzscratch")]
    assert len(listed) == 1 and "A scratch lesson" in listed[0]
    out = tmp_path / "slides"
    assert main(["lesson", "zzscratch", "--lang", "zh", "--export", str(out), "--size", "640x360"]) == 0
    assert len(list(out.glob("step-*.png"))) == 2 and (out / "lesson.pdf").stat().st_size > 0


def test_a_teachers_own_lesson_is_told_what_the_suite_would_say(tmp_path):
    """The rules the lesson checks hold a shipped lesson to are the loader's (core/lesson/rules.py): a teacher's
    file with short notes or a long slide is refused with the file, the line and the rule."""
    from gemmviz.core.lesson.lessons import LessonError, load_lesson

    mine = tmp_path / "mine.toml"
    short = SCRATCH_LESSON["zzscratch.toml"].replace('"""The three versions', '"""Same sums.""" # """The three')
    mine.write_text(short.replace('session = "h200-2026-12-02.json"\n', ""), encoding="utf-8")
    with pytest.raises(
        LessonError, match=r"mine.toml:\d+: speaker notes are what the teacher says .* at least 10 words"
    ):
        load_lesson(mine)
    long = SCRATCH_LESSON["zzscratch.toml"].replace("Same arithmetic,", "Same arithmetic, " + "more words " * 10)
    mine.write_text(long, encoding="utf-8")
    with pytest.raises(LessonError, match=r"mine.toml:7: a slide says at most 30 words, this one 33"):
        load_lesson(mine)


def test_a_new_lessons_slides_are_legible_and_its_chinese_is_in_the_bundled_font(scratch_lesson, qtbot):
    from gemmviz.core.lesson.lessons import lesson_session
    from tests.checks.fonts import missing_from_bundled_font
    from tests.checks.lesson_legible import exported_slides_are_legible, window_steps_are_legible

    for lesson in scratch_lesson.values():  # test_lesson_legible's checks
        source = lesson_session(lesson)
        window_steps_are_legible(qtbot, lesson, source, "720p")
        exported_slides_are_legible(lesson, source, "1080p")
    assert missing_from_bundled_font(SCRATCH_LESSON["zzscratch.zh.toml"]) == []  # test_fonts_cjk's


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
    from tests.checks import lesson_views as shipped_checks

    kind = lesson_views.LessonViewKind("zzstripes", ("stripes",), shipped_checks.check_stripes)
    lesson_text = shipped_checks.LESSON.replace('"stripes"\n', '"zzstripes"\n')
    with lesson_views.VIEW_KINDS.scratch(kind), ui_views.UI_VIEWS.scratch(shipped_checks.StripesUi(), "zzstripes"):
        shipped_checks.every_registered_view_has_a_drawing()  # test_lesson_views'
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


# ---- an exercise --------------------------------------------------------------------------------------------------
@pytest.fixture
def scratch_exercise(tmp_path, monkeypatch):
    """An exercise as CONTRIBUTING says: NAME.toml (a copy of tiled.toml: its name, kernel, starter and order
    changed) and its starter NAME.cu beside the shipped ones, and its reference solution NAME_good.cu; no H200
    record, no expected.json entry, no list in a test."""
    from gemmviz.core.exercise import exercises
    from gemmviz.core.paths import asset_path

    folder = tmp_path / "exercises"
    folder.mkdir()
    toml = asset_path("exercises", "tiled.toml").read_text(encoding="utf-8")
    changes = (('name = "tiled"', 'name = "zzscratch"'), ("order = 3", "order = 97"))
    for old, new in (*changes, ('starter = "tiled.cu"', 'starter = "zzscratch.cu"')):
        assert old in toml
        toml = toml.replace(old, new)
    (folder / "zzscratch.toml").write_text(toml.replace("gemm_tiled", "gemm_zzscratch"), encoding="utf-8")
    starter = asset_path("exercises", "tiled.cu").read_text(encoding="utf-8")
    (folder / "zzscratch.cu").write_text(starter.replace("gemm_tiled", "gemm_zzscratch"), encoding="utf-8")
    good = (Path(__file__).parent / "data" / "exercises" / "tiled_good.cu").read_text(encoding="utf-8")
    (tmp_path / "zzscratch_good.cu").write_text(good.replace("gemm_tiled", "gemm_zzscratch"), encoding="utf-8")
    shipped = exercises.exercise_files()
    monkeypatch.setattr(exercises, "exercise_files", lambda: [*shipped, folder / "zzscratch.toml"])
    return exercises.find_exercise("zzscratch"), tmp_path / "zzscratch_good.cu"


def test_a_new_exercise_is_listed_from_its_file_and_passes_the_exercise_checks(scratch_exercise, capsys):
    from gemmviz.cli.main import main
    from gemmviz.core.exercise.exercises import guess_exercise, shipped_exercises
    from tests.checks.exercises import shipped_exercises_load_in_both_languages

    exercise, _good = scratch_exercise
    assert [e.name for e in shipped_exercises()][-1] == "zzscratch"  # by its order, after the shipped ones
    assert main(["exercise", "--list"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].split("\t")[0] == "zzscratch"
    assert guess_exercise(exercise.starter_text()).name == "zzscratch"  # the tab and `check FILE` find it
    shipped_exercises_load_in_both_languages()  # test_exercises' check, the scratch one in


def test_a_new_exercises_reference_solution_passes_on_the_emulator_without_a_gpu_record(scratch_exercise, tmp_path):
    from gemmviz.backends.profile import find_cuda_tool
    from tests.checks.exercises import reference_passes_on_the_emulator

    if find_cuda_tool("nvcc") is None:
        pytest.skip("nvcc not installed (CI has it)")
    exercise, good = scratch_exercise
    reference_passes_on_the_emulator(exercise, tmp_path, good)  # test_emulator's check


# ---- a window string and a core message ------------------------------------------------------------------------
def test_a_new_core_message_is_one_define_and_meets_the_message_checks():
    from gemmviz.core.messages import TEMPLATES, define, msg, render
    from tests.checks.messages import every_template_renders, messages_missing_a_language

    key = define("zzscratch.things", en="{n:int} scratch things", zh="{n:int} 个试验")
    try:
        assert messages_missing_a_language([key]) == {} and every_template_renders([key]) == 1
        assert render(msg(key, n=1200), "zh").endswith("个试验") and render(msg(key, n=3)) == "3 scratch things"
    finally:
        TEMPLATES.pop(key)


def test_a_new_window_string_is_one_line_where_it_is_shown_and_one_in_the_table_then_one_command(tmp_path, qapp):
    """`tr("…")` where it is shown and its translation in tools/zh_CN.py; `python tools/catalogue.py` does the rest
    (lupdate, fill, lrelease). Before the command the suite's check names what to run; after it Qt translates it."""
    import shutil

    from PySide6.QtCore import QTranslator

    from tools import catalogue

    module = tmp_path / "scratch_view.py"
    module.write_text('from gemmviz.ui.text import tr\n\nLABEL = tr("A scratch window string")\n', encoding="utf-8")
    table = tmp_path / "zh_CN.py"
    shutil.copy(catalogue.ROOT / "tools" / "zh_CN.py", table)
    with table.open("a", encoding="utf-8") as f:
        f.write('\nZH["A scratch window string"] = "试验窗口文字"\n')
    files = [*catalogue.marked_files(), module]
    found = catalogue.problems(files=files, table=table)
    assert any("'A scratch window string' is marked but not in the catalogue" in p for p in found), found
    assert all("run python tools/catalogue.py" in p for p in found)
    ts, qm = tmp_path / "zh.ts", tmp_path / "zh.qm"
    shutil.copy(catalogue.ROOT / "assets" / "i18n" / "gemmviz_zh_CN.ts", ts)
    assert catalogue.build(ts, table, qm, files) == []  # the one command, into a copy
    translator = QTranslator()
    assert translator.load(str(qm)) and translator.translate("", "A scratch window string") == "试验窗口文字"
