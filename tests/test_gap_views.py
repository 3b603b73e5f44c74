"""The gap waterfall and the pipeline timeline (issue 34, items 4-5) drawn from the SYNTHETIC fixtures
(tests/data/gap-synthetic.json, pipeline-synthetic.json: made up, never shown as figures): legible at 1280×720
and 1920×1080 in English and Chinese, in the Hardware tab, and saying what is missing without a recording."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QRect, QRectF
from PySide6.QtGui import QPainter

from gemmviz.core.hardware import gap, pipeline_trace
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.export.exporters import layout_offscreen
from gemmviz.ui.hardware.gap import GapView
from gemmviz.ui.hardware.pipeline import PipelineChart
from gemmviz.ui.hardware.tab import GAP_VIEW, PIPELINE_VIEW, HardwareTab
from gemmviz.ui.theme import PROJECTOR_LIGHT, theme_for
from tests.data.make_gap_fixtures import gap_file, pipeline_file
from tests.legibility import drawn_problems, painted_texts

SIZES = [(1280, 720), (1920, 1080)]


@pytest.fixture(scope="module")
def gap_data():
    return gap.read_gap(gap_file(), "gap-synthetic.json")


@pytest.fixture(scope="module")
def trace():
    return pipeline_trace.read_pipeline(pipeline_file(), "pipeline-synthetic.json")


@pytest.fixture
def cjk(qapp):
    from gemmviz.ui.fonts import install_cjk_fallback

    install_cjk_fallback(qapp)


def _legible(widget, min_px):
    texts = painted_texts(widget)
    report = drawn_problems(texts, QRectF(widget.rect()), min_px)
    assert texts and report.all() == [], report.all()
    return [t.text for t in texts]


@pytest.mark.parametrize("size", SIZES, ids=["720p", "1080p"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_waterfall_is_legible(qapp, cjk, gap_data, size, lang):
    """Every bar's label and figure inside the chart, none over another, at least 24 px at 1080p (16 at 720p,
    the same type scaled): the chart pane of the tab at a projector's type, about 60% of the window."""
    width, height = size
    view = GapView(PROJECTOR_LIGHT.scaled(min(width / 1920, height / 1080)), lang, gap_data)
    layout_offscreen(view, int(width * 0.6), int(height * 0.85))
    try:
        texts = _legible(view.chart, 24 * height / 1080)
        g = view.gap
        assert (g.a.label, g.b.label) == ("gpu-cpasync", "cublas")  # the best FP32 rung against cuBLAS
        for p in g.parts:
            assert p.label.text(lang) in texts
        assert any("2026-12-02" in t and "NVIDIA H200" in t for t in texts)
        lines = view.sentences().split("\n\n")
        assert len(lines) == 1 + len(g.parts) + len(g.notes) + 1 and "gap-synthetic.json" in lines[-1]
    finally:
        view.hide()
        view.deleteLater()


@pytest.mark.parametrize("size", SIZES, ids=["720p", "1080p"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pipeline_is_legible(qapp, cjk, trace, size, lang):
    width, height = size
    chart = PipelineChart(PROJECTOR_LIGHT.scaled(min(width / 1920, height / 1080)), lang, trace)
    layout_offscreen(chart, int(width * 0.6), int(height * 0.85))
    try:
        texts = _legible(chart, 24 * height / 1080)
        lanes = ["WG0 producer", "WG1 consumer", "WG2 consumer"] if lang == "en" else ["WG0 生产者", "WG1 消费者"]
        assert set(lanes) <= set(texts)
        assert any("2026-12-02" in t for t in texts)
    finally:
        chart.hide()
        chart.deleteLater()


def test_picking_two_kernels_and_the_same_one_twice(qapp, gap_data):
    view = GapView(PROJECTOR_LIGHT, "en", gap_data)
    try:
        view.select("gpu-wgmma-tf32", "cublas-tf32")
        assert (view.gap.a.label, view.gap.b.label) == ("gpu-wgmma-tf32", "cublas-tf32")
        assert view.sentences().startswith("gpu-wgmma-tf32 takes 0.840 ms, cublas-tf32 0.820 ms")
        view.select("cublas", "cublas")
        assert view.gap is None and view.sentences() == "Pick two different kernels"
    finally:
        view.deleteLater()


def test_without_a_recording_the_views_say_what_is_missing(qapp, monkeypatch):
    monkeypatch.setattr("gemmviz.core.hardware.gap_file.shipped_gap_files", lambda: [])
    monkeypatch.setattr(pipeline_trace, "load_shipped_pipeline", lambda lang="en": (None, "no trace here"))
    view, chart = GapView(PROJECTOR_LIGHT, "zh"), PipelineChart(PROJECTOR_LIGHT, "en")
    try:
        assert view.gap is None and "gemmviz profile --gap" in view.sentences() and "没有" in view.sentences()
        assert chart.sentences() == "No pipeline trace to draw: no trace here"
        layout_offscreen(chart, 800, 500)
        assert painted_texts(chart)[0].text == chart.sentences()
    finally:
        view.deleteLater()
        chart.deleteLater()


def test_a_broken_shipped_file_is_refused_in_one_line(qapp, monkeypatch, tmp_path):
    bad = tmp_path / "h200-gap.json"
    bad.write_text('{"schema": "gemmviz-gap-metrics", "schema_version": 1}', encoding="utf-8")
    monkeypatch.setattr("gemmviz.core.hardware.gap_file.shipped_gap_files", lambda: [bad])
    monkeypatch.setattr("gemmviz.core.paths.asset_path", lambda _folder, _name: bad)
    view = GapView(PROJECTOR_LIGHT, "en")
    try:
        assert view.sentences() == "No gap to draw: h200-gap.json: gpu: must be a text of 1 to 100 characters"
    finally:
        view.deleteLater()


@pytest.mark.parametrize("size", SIZES, ids=["720p", "1080p"])
def test_the_hardware_tab_shows_both_views(qapp, monkeypatch, gap_data, trace, size):
    monkeypatch.setattr(gap, "load_shipped_gap", lambda lang="en": (gap_data, ""))
    monkeypatch.setattr(pipeline_trace, "load_shipped_pipeline", lambda lang="en": (trace, ""))
    tab = HardwareTab(Workspace(), theme_for(True))  # no results at all: the file views still draw
    layout_offscreen(tab, *size)
    try:
        tab.view_combo.setCurrentIndex(GAP_VIEW)
        assert tab.stack.currentWidget() is tab.gap_view and not tab.result_combo.isVisible()
        assert tab.text.toPlainText().startswith("gpu-cpasync takes 2.83 ms")
        _legible(tab.gap_view.chart, 24 * size[1] / 1080)
        tab.gap_view.select("gpu-tiled[tile=16]", "cublas")
        assert "smsp__average_warps_issue_stalled_*" in tab.text.toPlainText()  # missing, and said so
        tab.view_combo.setCurrentIndex(PIPELINE_VIEW)
        assert tab.stack.currentWidget() is tab.pipeline_view
        assert "Tensor cores busy" in tab.text.toPlainText()
        chart = tab.pipeline_view.chart
        _legible(chart, 24 * size[1] / 1080)
        combo = tab.pipeline_view.window_combo
        assert [combo.itemData(i) for i in range(combo.count())] == ["all", "start", "bubble"]
        combo.setCurrentIndex(2)  # around the longest bubble: the axis starts there, the texts still fit
        lo, hi = chart.span
        assert 0 < hi - lo < chart.trace.span
        bubble = max(pipeline_trace.bubbles(chart.trace), key=lambda g: g[1] - g[0])
        assert lo <= bubble[0] and bubble[1] <= hi
        _legible(chart, 24 * size[1] / 1080)
        tab.view_combo.setCurrentIndex(1)
        assert tab.result_combo.isVisible()
    finally:
        tab.hide()
        tab.deleteLater()


LESSON = """title = "The last 5%"
summary = "Where the gap to cuBLAS goes."

[[step]]
title = "What the last 5% is"
text = "Each bar is one measured part of the gap."
view = "gap"
{series}
"""


def test_a_lesson_step_shows_the_gap(qapp, cjk, monkeypatch, gap_data):
    from PySide6.QtGui import QImage

    from gemmviz.core.lesson.lessons import LessonSource, parse_lesson
    from gemmviz.ui.lesson.views import ViewContext, ui_view

    monkeypatch.setattr(gap, "load_shipped_gap", lambda lang="en": (gap_data, ""))
    lesson = parse_lesson(LESSON.format(series='series = ["gpu-wgmma-tf32", "cublas-tf32"]'), "gap")
    step = lesson.steps[0]
    assert step.view == "gap" and [s.text for s in step.series] == ["gpu-wgmma-tf32", "cublas-tf32"]
    image = QImage(1600, 700, QImage.Format.Format_ARGB32)
    for lang in ("en", "zh"):
        ctx = ViewContext(step, LessonSource((), "recorded", "", None), PROJECTOR_LIGHT, lang)
        image.fill(0xFFFFFFFF)
        painter = QPainter(image)
        try:
            texts = ui_view("gap").paint(painter, QRect(0, 0, 1600, 700), ctx)
        finally:
            painter.end()
        words = [t for t, _ in texts]
        assert any("gpu-wgmma-tf32" in w for w in words) and any("2026-12-02" in w for w in words)
        assert all(QRectF(0, 0, 1600, 700).contains(box) for _, box in texts)
        widget = ui_view("gap").widget(ctx)
        try:
            assert widget.gap.a.label == "gpu-wgmma-tf32" and not widget.a_combo.isVisibleTo(widget)
        finally:
            widget.deleteLater()
    missing = parse_lesson(LESSON.format(series='series = ["gpu-naive", "cublas"]'), "gap").steps[0]
    widget = ui_view("gap").widget(ViewContext(missing, LessonSource((), "recorded", "", None), PROJECTOR_LIGHT, "en"))
    try:
        assert widget.gap is None and "gpu-naive is not among the recorded kernels" in widget.sentences()
    finally:
        widget.deleteLater()


def test_a_gap_step_names_two_kernels_or_none():
    from gemmviz.core.lesson.lessons import LessonError, parse_lesson

    assert parse_lesson(LESSON.format(series=""), "gap").steps[0].series == ()
    with pytest.raises(LessonError, match="a gap step names two kernels"):
        parse_lesson(LESSON.format(series='series = ["gpu-cpasync"]'), "gap")


def test_the_bundled_font_has_every_chinese_character_of_the_messages(qapp):
    """core/messages.py's Chinese templates (the gap's and the pipeline's sentences and the views' words) render
    with the bundled font on a machine without a CJK font (tests/test_fonts_cjk.py covers the other files)."""
    import re

    from PySide6.QtGui import QFont, QRawFont

    from gemmviz.core.messages import TEMPLATES
    from gemmviz.core.paths import asset_path
    from gemmviz.ui.fonts import CJK_FONT_FILE

    raw = QRawFont(str(asset_path("fonts", CJK_FONT_FILE)), 20, QFont.HintingPreference.PreferNoHinting)
    cjk = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")
    chars = {c for t in TEMPLATES.values() for c in cjk.findall(t.get("zh", ""))}
    assert len(chars) > 100
    assert not sorted(c for c in chars if not raw.supportsCharacter(ord(c))), "rerun tools/cjk_font.py"


@pytest.mark.parametrize("height", [0, 30, 120, 260, 2000])
def test_sentences_that_do_not_fit_are_counted_never_dropped_unsaid(qapp, gap_data, height):
    """An export at 1280×720 dropped its last context lines without a word (L2 throughput, what was not
    recorded); now the last line that fits says how many more there are and where they are."""
    from PySide6.QtGui import QImage

    from gemmviz.ui.hardware.gap import draw_sentences

    g = gap.decompose(gap_data.kernel("gpu-cpasync"), gap_data.kernel("cublas"), "NVIDIA H200")
    every = [*(p.sentence.text("en") for p in g.parts), *(n.text("en") for n in g.notes)]
    image = QImage(900, height, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    texts: list = []
    try:
        used = draw_sentences(painter, QRectF(0, 0, 900, height), g, PROJECTOR_LIGHT, "en", texts)
    finally:
        painter.end()
    drawn = [t for t, _r in texts]
    assert used <= height and all(r.bottom() <= height + 0.5 for _t, r in texts)
    if not drawn:
        assert height < 60 and used == 0  # not even the count fits: nothing drawn past the rect
    elif drawn == every:
        assert height == 2000  # room for all: no count
    else:
        *kept, last = drawn
        left = len(every) - len(kept)
        assert kept == every[: len(kept)] and last.startswith(f"… {left} more line{'s' if left > 1 else ''} ")


def test_column_time_is_the_share_of_each_slice_the_intervals_cover():
    ct = pipeline_trace.column_time
    assert list(ct([(0, 1), (2, 3)], 0, 4, 4)) == [1, 0, 1, 0]
    assert list(ct([(0.5, 1.5)], 0, 4, 4)) == [0.5, 0.5, 0, 0]  # a box across two columns: half in each
    assert list(ct([(0.5, 3.5)], 0, 2, 4)) == [0, 1, 1, 1]  # past the window: cut at its edge
    assert list(ct([], 0, 2, 3)) == [0, 0, 0] and list(ct([(0, 1)], 1, 1, 2)) == [0, 0]
    spans = [(0.1 * i, 0.1 * i + 0.03) for i in range(1000)]  # a thousand batches narrower than a column
    shares = ct(spans, 0, 100, 37)
    assert shares.mean() == pytest.approx(0.3) and shares.max() < 0.35  # each column: what it spent


def _boxes(chart, width, height):
    image, texts = _drawn(chart, width, height, boxes=True)
    return image, dict(texts)


def _drawn(chart, width, height, boxes=False):
    from PySide6.QtGui import QImage

    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(0xFFFFFFFF)
    painter = QPainter(image)
    texts: list = []
    chart.draw(painter, QRectF(0, 0, width, height), texts)
    painter.end()
    return image, texts if boxes else [t for t, _ in texts]


def test_batches_thinner_than_a_pixel_are_drawn_as_shares_not_a_blend(qapp):
    """The shipped H200 trace at 720p: 256 k-steps of wgmma batches and data waits, each a pixel or two wide,
    drawn one by one blended green and yellow into an olive band that is neither. Each pixel column now shows the
    share of its time a batch was in flight (above) and a wait (below); the legend says so. Zoomed in (the
    pipeline's start), the boxes are wide and drawn as boxes, with no note."""
    from PySide6.QtGui import QColor

    from gemmviz.ui.hardware.pipeline import is_dense

    shipped, why = pipeline_trace.load_shipped_pipeline()
    assert shipped is not None, why
    theme = PROJECTOR_LIGHT.scaled(720 / 1080)
    chart = PipelineChart(theme, "en", shipped)
    try:
        image, texts = _drawn(chart, 768, 446)
        note = "height: share of time"
        assert note in texts and "TMA copy (a row per stage)" in texts
        green, yellow = (QColor(theme.color(i)).rgb() for i in (2, 1))
        mixed = []  # pixel rows where batches and waits alternate: what the eye blends
        for y in range(image.height()):
            row = [image.pixel(x, y) for x in range(image.width())]
            if row.count(green) > 40 and row.count(yellow) > 40:
                mixed.append(y)
        assert not mixed, mixed
        consumer = [e for e in shipped.events if e.role == "consumer" and e.warpgroup == 1]
        assert is_dense(consumer, lambda t: t / shipped.span * 600)
        chart.set_window(pipeline_trace.windows(shipped)["start"])
        _, zoomed = _drawn(chart, 768, 446)
        assert note not in zoomed and "wgmma batch" in zoomed
    finally:
        chart.deleteLater()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_shipped_pipeline_is_legible_in_the_720p_pane(qapp, cjk, lang):
    """The shipped trace in the Hardware tab's pane at 1280×720 (its legend four rows in Chinese): every lane
    named whole, nothing over anything else ("张量核心空闲" was cut in half under its lane)."""
    shipped, why = pipeline_trace.load_shipped_pipeline(lang)
    assert shipped is not None, why
    chart = PipelineChart(theme_for(True, False), lang, shipped)  # the window's projector type, 20 pt
    layout_offscreen(chart, 785, 470)
    try:
        texts = _legible(chart, 14)
        assert ("tensor idle" if lang == "en" else "张量核心空闲") in texts
        _, boxes = _boxes(chart, 785, 470)
        names = (
            ["WG1 consumer", "WG2 consumer", "tensor idle"]
            if lang == "en"
            else ["WG1 消费者", "WG2 消费者", "张量核心空闲"]
        )
        lanes = [boxes[n] for n in names]
        # each name whole in its lane (drawText clips to the lane: "张量核心空闲" lost its lower third), one under
        # the other, above the axis
        axis_line = boxes["0"].top() - 2  # the ticks hang 2 px under the axis
        rows = [*(b.top() for b in lanes[1:]), axis_line]
        assert all(b.bottom() <= below + 1 for b, below in zip(lanes, rows)), (lanes, axis_line)
    finally:
        chart.hide()
        chart.deleteLater()
