"""Lesson mode and slides: every step of every shipped lesson fits (no text overlaps, none leaves the view) at
1280×720 and 1920×1080, normal and projector mode; the keys drive the steps wherever the focus is; the
window enters and leaves lesson mode; `gemmviz lesson` lists and exports."""

import re

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QRectF, QSettings, Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from gemmviz.backends.cpu import CpuBackend
from gemmviz.cli.main import main
from gemmviz.core.lesson.lessons import lesson_session, parse_lesson, shipped_lessons
from gemmviz.ui.lesson import mode as lesson_mode
from gemmviz.ui.lesson.mode import LessonView
from gemmviz.ui.lesson.render import has_view, slide_for, slide_layout
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend
from tests.lesson_checks import check_step_words, step_problems
from tests.overlap import problems
from tests.pdf_text import page_texts, words

LESSONS = shipped_lessons()
SIZES = [(1280, 720), (1920, 1080)]
BAD = 'title = "L"\n[[step]]\ntitle = "T"\ntext = "A."\nview = "movie"\n'


@pytest.fixture(scope="module")
def sources():
    return {name: lesson_session(lesson) for name, lesson in LESSONS.items()}


def _view(qtbot, lesson, source, size, projector=False):
    view = LessonView(lesson, source, projector)
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    return view


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", sorted(LESSONS))
def test_every_step_fits(qtbot, sources, name, size):
    """In normal type; projector type is checked by the same functions in tests/test_lesson_legible.py, whose
    walk of every step in projector type at these sizes is the same (it was done twice, once in each file)."""
    lesson = LESSONS[name]
    view = _view(qtbot, lesson, sources[name], size, False)
    found = []
    for i in range(len(lesson.steps)):
        view.go(i)
        assert view.index == i
        found += [f"step {i + 1}: {p}" for p in step_problems(view)]
        check_step_words(view, lesson, i)
    assert found == []


def test_projector_text_is_large_at_1080p(qapp, sources):  # font metrics need an application, alone too
    for lesson in LESSONS.values():
        for i, step in enumerate(lesson.steps):
            slide = slide_for(lesson, i, sources[lesson.name])
            assert slide_layout(1920, 1080, slide, True, has_view(step)).body_px >= 24


def test_exported_slides_fit(qtbot, sources):
    """In normal type; the slides in projector type are checked the same way in tests/test_lesson_legible.py, on
    the drawing it makes of each for its legibility (drawn twice before, once in each file)."""
    from PySide6.QtGui import QPainter

    from gemmviz.ui.lesson.render import render_slide

    for lesson in LESSONS.values():
        for i in range(len(lesson.steps)):
            image = QImage(1280, 720, QImage.Format.Format_ARGB32)
            painter = QPainter(image)
            texts = render_slide(painter, 1280, 720, lesson, i, sources[lesson.name], False)
            painter.end()
            assert problems(texts, QRectF(0, 0, 1280, 720)) == [], (lesson.name, i)


def test_keys_drive_the_steps_after_a_click_into_the_chart(qtbot, sources):
    lesson = LESSONS["seed000"]
    view = _view(qtbot, lesson, sources["seed000"], (1280, 720))
    at = next(i for i, s in enumerate(lesson.steps) if s.view == "chart" and i > 0)  # a chart
    view.go(at)
    chart = view.views[at]
    QTest.mouseClick(chart.viewport(), Qt.MouseButton.LeftButton)
    target = QApplication.focusWidget() or chart.viewport()
    assert target is not view
    last = len(lesson.steps) - 1
    for key, index in [
        (Qt.Key.Key_Right, at + 1),
        (Qt.Key.Key_Space, at + 2),
        (Qt.Key.Key_PageDown, at + 3),
        (Qt.Key.Key_Left, at + 2),
        (Qt.Key.Key_PageUp, at + 1),
        (Qt.Key.Key_End, last),
        (Qt.Key.Key_Right, last),
        (Qt.Key.Key_Home, 0),
        (Qt.Key.Key_Left, 0),
    ]:
        QTest.keyClick(view.views.get(view.index) or view, key)
        assert view.index == index, key
    with qtbot.waitSignal(view.left, timeout=1000):
        QTest.keyClick(view, Qt.Key.Key_Escape)


def test_p_plays_the_animation_and_a_step_switch_stops_it(qtbot, sources):
    lesson = LESSONS["seed000"]
    view = _view(qtbot, lesson, sources["seed000"], (1280, 720))
    view.go(3)
    anim = view.views[3]
    start = anim.state.step
    QTest.keyClick(view, Qt.Key.Key_P)
    qtbot.waitUntil(lambda: anim.state.step > start, timeout=30_000)
    view.go(4)
    assert not view.timer.isActive()


def test_views_are_built_once_and_reused(qtbot, sources):
    view = _view(qtbot, LESSONS["seed000"], sources["seed000"], (1280, 720))
    view.go(4)
    first = view.views[4]
    view.go(5)
    view.go(4)
    assert view.views[4] is first and first.isVisible() and not view.views[5].isVisible()


# ---- the window ------------------------------------------------------------------------------------------
@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    # closing with unsaved live results asks whether to save them: answer "discard", never block the test
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    made = []

    def make(gpu: bool):
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        backends = {"cpu": CpuBackend(), "cuda": FakeGpuBackend(delay_s=0.01, available=gpu)}
        w = MainWindow(backends=backends, settings=settings, load_recorded_without_gpu=False)
        qtbot.addWidget(w)
        w.resize(1280, 720)
        w.show()
        qtbot.waitUntil(lambda: bool(w.workspace.environment), timeout=10000)
        made.append(w)
        return w

    yield make
    for w in made:
        w.close()


def test_window_enters_and_leaves_lesson_mode_with_keys(qtbot, window):
    w = window(gpu=False)
    before = w.centralWidget()
    assert w.start_lesson(LESSONS["seed000"])
    view = w.lesson_view
    assert w.centralWidget() is view and not before.isVisible()
    # the window's own Space (play) and Esc (cancel) shortcuts must not take the lesson's keys
    QTest.keyClick(view, Qt.Key.Key_Space)
    assert view.index == 1
    at = next(i for i, s in enumerate(LESSONS["seed000"].steps) if s.view == "chart" and i > 0)
    view.go(at)
    QTest.mouseClick(view.views[at].viewport(), Qt.MouseButton.LeftButton)
    QTest.keyClick(view.views[at].viewport(), Qt.Key.Key_Right)
    assert view.index == at + 1
    QTest.keyClick(view.views[at], Qt.Key.Key_Escape)
    assert w.lesson_view is None and w.centralWidget() is before


def test_ctrl_p_restyles_the_lesson_shown_at_once_and_keeps_its_step(qtbot, window):
    """Issue 20: Ctrl+P during a lesson restyled the tabs behind it, not the lesson. Now the step shown (its
    words and its live view) takes the projector type, on the same step and frame. How fast is measured by
    benchmarks/projector_toggle.py --lesson seed000 (a benchmark, not a timed test)."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication

    from gemmviz.ui.tiling.widgets import TilingView

    w = window(gpu=False)
    lesson = LESSONS["seed000"]
    assert w.start_lesson(lesson)
    view = w.lesson_view
    index = next(i for i, s in enumerate(lesson.steps) if s.view == "animation")
    view.go(index)
    before_view, before_body = view.views[index], view._layout()[1].body_px
    frame = before_view.state
    for on in (True, False, True, False):
        target = w.focusWidget() or view  # this window's focus: another test's window may hold the app's
        for kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            QApplication.postEvent(target, QKeyEvent(kind, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier))
        qtbot.waitUntil(lambda on=on: view.projector is on, timeout=10000)
        shown = view.views[index]
        assert view.index == index and isinstance(shown, TilingView) and shown.isVisible()
        assert shown.state.step == frame.step and shown.state.schedule.steps == frame.schedule.steps
        assert (shown.theme.font_pt > before_view.theme.font_pt) is on
        assert (view._layout()[1].body_px > before_body) is on
    chart = next(i for i, s in enumerate(lesson.steps) if s.view == "chart")
    view.go(chart)
    w.projector_action.trigger()
    assert view.projector and view.views[chart].theme.name == "projector-light"
    w.leave_lesson()
    w.projector_action.trigger()  # no lesson now: nothing follows the action
    assert view.projector


def test_the_replayed_session_behind_a_lesson_opens_when_it_ends(qtbot, tmp_path):
    """`gemmviz --lesson` without a GPU: the tabs' copy of the recorded session is not opened and drawn behind
    the lesson's first slide (it froze the slide ~0.9 s), but when the lesson ends."""
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(backends={"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)}, settings=settings)
    qtbot.addWidget(w)
    w.show()
    assert w.start_lesson(LESSONS["seed000"])  # before the probe answers, as app.run starts it
    qtbot.waitUntil(lambda: bool(w.workspace.environment), timeout=10000)
    assert w.workspace.sessions == [] and w.replay_after_lesson
    w.lesson_view.key(Qt.Key.Key_Escape)
    assert w.lesson_view is None and len(w.workspace.sessions) == 1 and not w.replay_after_lesson
    assert w.charts_tab.gflops_chart.results  # drawn, as a first start draws it
    w.close()


def test_bad_lesson_file_gets_a_dialog_and_the_window_keeps_working(window, tmp_path):
    w = window(gpu=False)
    bad = tmp_path / "bad.toml"
    bad.write_text(BAD)
    assert not lesson_mode.open_lesson(w, str(bad))
    assert f"{bad}:5: view must be one of" in w.last_error_text
    assert getattr(w, "lesson_view", None) is None
    assert lesson_mode.open_lesson(w, "seed001")


def test_a_figure_the_session_lacks_is_said_in_the_window_and_on_its_slide(window, tmp_path):
    """Issue 20: a placeholder the session lacks read "n/a" with no word of why; the status bar names it when
    the lesson starts and the step's slide says how many of its figures are missing."""
    w = window(gpu=False)
    path = tmp_path / "gap.toml"
    path.write_text(
        'title = "L"\nsession = "h200-2026-12-01.json"\n[[step]]\ntitle = "T"\n'
        'text = "At 777³: {{ms gpu-naive[block=16] at 777}}."\n[[step]]\ntitle = "U"\ntext = "No figure."\n',
        encoding="utf-8",
    )
    assert lesson_mode.open_lesson(w, str(path))
    view = w.lesson_view
    assert "{{ms gpu-naive[block=16] at 777}} is not in" in w.statusBar().currentMessage()
    view.grab()
    words = [t for t, _ in view.texts]
    assert "1 figure(s) not in this session: n/a" in words and any("n/a (not in these results)" in t for t in words)
    view.go(1)
    view.grab()
    assert not any("not in this session" in t for t, _ in view.texts)  # a step with all its figures says nothing


def test_lesson_menu_lists_the_shipped_lessons(window):
    w = window(gpu=False)
    menu = next(a.menu() for a in w.menuBar().actions() if a.text() == "&Lesson")
    texts = [a.text() for a in menu.actions()]
    for lesson in LESSONS.values():
        assert any(t.startswith(lesson.title) for t in texts)
    assert "Open lesson file…" in texts


def test_run_step_measures_live_in_the_worker(qtbot, window, tmp_path):
    w = window(gpu=True)
    text = (
        'title = "Live"\nsession = "h200-2026-12-01.json"\n[[step]]\ntitle = "Tiled"\ntext = "It reaches '
        '{{gflops gpu-tiled[tile=16] at 64}}."\nview = "chart"\nseries = ["gpu-tiled[tile=16]"]\nsizes = [64]\n'
        "run = true\n"
    )
    lesson = parse_lesson(text, "live", "live.toml")
    assert w.start_lesson(lesson)
    view = w.lesson_view
    # the replayed session has no 64³: its figure reads n/a until R measures it, and the slide says so
    assert view.status == "1 figure(s) not in this session: n/a · R measures these kernels live on Fake GPU"
    assert view.source().label.startswith("Replayed")
    QTest.keyClick(view, Qt.Key.Key_R)
    assert w.controller.busy  # started in the worker: the key press returned at once
    qtbot.waitUntil(lambda: not w.controller.busy, timeout=30000)
    # the view follows the workspace's live results (results_added), as a run streams them in
    qtbot.waitUntil(lambda: view.source().label == "Live on Fake GPU", timeout=10000)
    assert view.live.results and {id(r) for r in view.live.results} <= {id(r) for r in w.workspace.live}
    assert "GFLOP/s" in slide_for(lesson, 0, view.source()).text
    w.files.clear_live()  # File > Clear live results: the replayed session again, at once
    assert view.live is None and view.source().label.startswith("Replayed")


# ---- the command line ------------------------------------------------------------------------------------
def test_cli_lists_lessons(capsys):
    assert main(["lesson", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == sorted(LESSONS)
    for line in lines:
        name, title, steps, langs = line.split("\t")
        assert title == LESSONS[name].title and steps == f"{len(LESSONS[name].steps)} steps"
        assert langs == "en, zh"  # every shipped lesson has its Chinese version


def test_slides_default_to_projector_type(tmp_path, monkeypatch):
    """Slides are for a room: projector type unless --no-projector asks for a screen's (issue 20). The handout
    drawn beside them (notes and key frames, 8 s of drawing for three exports) is stood in for as the slides are:
    what is checked is the type each is asked for (tests/test_handout.py draws it)."""
    import gemmviz.ui.lesson.handout as handout
    import gemmviz.ui.lesson.render as render

    asked, handouts = [], []

    def export(*a, **k):  # as export_slides: the handout is made once the slides are drawn
        asked.append(a[5])
        assert [make() for make in k["extra"].values()] == [b"%PDF"]
        return [tmp_path / "lesson.pdf"]

    monkeypatch.setattr(render, "export_slides", export)
    monkeypatch.setattr(handout, "handout_pdf", lambda *a, **k: handouts.append(a[4]) or b"%PDF")
    for extra, want in (([], True), (["--no-projector"], False), (["--projector"], True)):
        assert main(["lesson", "seed000", "--export", str(tmp_path / "s"), "--size", "640x360", *extra]) == 0
        assert asked[-1] is want and handouts[-1] is want


def test_cli_exports_pngs_and_a_pdf(tmp_path, capsys):
    out = tmp_path / "new" / "slides"
    assert main(["lesson", "seed000", "--export", str(out), "--size", "1280x720", "--projector"]) == 0
    n = len(LESSONS["seed000"].steps)
    pngs = sorted(out.glob("step-*.png"))
    assert [p.name for p in pngs] == [f"step-{i:02d}.png" for i in range(1, n + 1)]
    for p in pngs:
        image = QImage(str(p))
        assert (image.width(), image.height()) == (1280, 720)
    pdf = (out / "lesson.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page\b", pdf)) == n
    assert f"wrote {n} slides" in capsys.readouterr().out
    # vector pages with a text layer (issue 20): no page image, every font embedded, under 1 MB
    assert b"/Subtype /Image" not in pdf and len(pdf) < 1_000_000, len(pdf)
    font_objects = re.findall(rb"/Type /FontDescriptor.*?>>", pdf, re.S)
    assert font_objects and all(b"/FontFile" in f for f in font_objects)
    texts = [words(t) for t in page_texts(pdf)]
    source = lesson_session(LESSONS["seed000"])
    for i, text in enumerate(texts):
        slide = slide_for(LESSONS["seed000"], i, source)
        assert words(slide.title) in text and words(slide.text)[:60] in text, (i, slide.title, text[:200])
    traffic = next(i for i, s in enumerate(LESSONS["seed000"].steps) if s.chart == "traffic")
    assert "bytes(logscale)" in texts[traffic]  # a chart's own axis text is text too


def test_cli_refuses_bad_lessons_and_outputs(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(BAD)
    assert main(["lesson", str(bad), "--export", str(tmp_path / "x")]) == 2
    assert f"{bad}:5: view must be one of" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    assert main(["lesson", "nope", "--export", str(tmp_path / "x")]) == 2
    afile = tmp_path / "afile"
    afile.write_text("")
    assert main(["lesson", "seed000", "--export", str(afile), "--size", "640x360"]) == 1
    assert "is a file" in capsys.readouterr().err
    assert main(["lesson", "seed000"]) == 2
    assert main(["--lesson", str(bad)]) == 2
    assert f"{bad}:5:" in capsys.readouterr().err


def test_hardware_steps_draw_the_recorded_result(qtbot, sources):
    """The seed lesson's "why" steps show the H200's own counts: naive 16 beside tiled 16 at 4096³ (measured
    bytes per level) and the tiled kernel's 3,969 blocks at 1000³ on all 132 SMs, never the charts' empty state."""
    from gemmviz.ui.lesson.render import make_view_widget
    from gemmviz.ui.theme import theme_for

    lesson = LESSONS["seed000"]
    steps = [s for s in lesson.steps if s.view == "hardware"]
    assert [s.chart for s in steps] == ["traffic", "traffic", "sm-trace"]  # DRAM bytes, then requests and L1
    for step in steps:
        chart = make_view_widget(step, sources["seed000"], theme_for(False, False))
        qtbot.addWidget(chart)
        if step.chart == "traffic":
            assert [(r.variant, r.params, r.m) for r in chart.results] == [
                ("gpu-naive", {"block": 16}, 4096),
                ("gpu-tiled", {"tile": 16}, 4096),
            ]
            assert all(r.counters for r in chart.results) and chart.bars[0][2] > chart.bars[0][1]  # tiled reads more
            continue
        r = chart.result
        assert r is not None and (r.variant, r.params) == ("gpu-tiled", {"tile": 16})
        assert r.m == step.sizes[0] and r.block_trace
    assert chart.sm_count == 132 and len(chart.result.block_trace) == 3969


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_quoting_slide_shows_its_whole_source_in_the_footer(qtbot, lang):
    """A slide that quotes figures names where from, to the last word ("published"), at 1280×720: the data
    line is cut in its middle where it must be, never at its end (issue 20; seed000 step 12 read "pu…")."""
    from PySide6.QtGui import QImage, QPainter

    from gemmviz.core.lesson.lessons import shipped_lessons
    from gemmviz.ui.lesson.render import render_slide

    for lesson in shipped_lessons(lang).values():
        source = lesson_session(lesson)
        for i, step in enumerate(lesson.steps):
            if not step.quoted:
                continue
            image = QImage(1280, 720, QImage.Format.Format_ARGB32)
            painter = QPainter(image)
            try:
                texts = render_slide(painter, 1280, 720, lesson, i, source, projector=True)
            finally:
                painter.end()
            footer = [t for t, box in texts if box.top() > 650 and step.quoted[-12:] in t]
            assert footer, (lesson.name, i + 1, [t for t, box in texts if box.top() > 650])
            assert all(box.bottom() <= 720 and box.right() <= 1280 for _t, box in texts if box.top() > 650)
