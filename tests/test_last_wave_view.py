"""The last wave in the block-trace view (issue 48, technique 3), offscreen, no GPU: the idle SM-time hatched and
stated in the title at 1280×720 in projector type, the before / after of gpu-cpasync-any at 1024³ from the model
(labelled so) or from recorded traces where the workspace shows them, and benchmarks/traces_small.py's builds
matching what the view looks for."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QVBoxLayout, QWidget

from gemmviz.core.hardware.last_wave import last_wave
from gemmviz.core.hardware.model_trace import model_result, small_size_fix
from gemmviz.core.problem import Problem
from gemmviz.core.session.results import Result, Session
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.export.exporters import layout_offscreen
from gemmviz.ui.hardware.last_wave import LastWaveView, busiest_first_result
from gemmviz.ui.hardware.tab import LAST_WAVE_VIEW, HardwareTab
from gemmviz.ui.hardware.trace import SmTraceChart
from gemmviz.ui.theme import PROJECTOR_LIGHT
from tests.legibility import check
from tests.overlap import plot_texts, problems

ROOT = Path(__file__).resolve().parents[1]
P = Problem(1024, 1024, 1024)
PROJECTOR_720 = PROJECTOR_LIGHT  # the window's type at 720p in projector mode (tests/test_legibility.py)
MIN_PX_720 = 16  # the least a text may be there (tests/test_legibility.py's SIZES)
PANE_720 = (784, 380)  # about what the window gives the Hardware tab's chart at 720p, beside its banners


def traces_small():
    spec = importlib.util.spec_from_file_location("traces_small", ROOT / "benchmarks/traces_small.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def title_text(chart: SmTraceChart) -> str:
    return chart.sms_plot.titleLabel.item.toPlainText()


@pytest.mark.parametrize("size", [PANE_720, (1280, 720)], ids=["pane-720p", "whole-720p"])
def test_a_partial_wave_is_hatched_and_stated(qapp, size):
    """64 blocks on 64 of 132 SMs: 68 SMs' rows hatched for the whole run, and the title says 52%; in the
    window's pane at 720p the SMs alone (no residency plot), their time axis under them."""
    box = QWidget()  # tests/legibility.check reads the views inside a widget
    chart = SmTraceChart(PROJECTOR_720, parent=box)
    QVBoxLayout(box).addWidget(chart)
    box.layout().setContentsMargins(0, 0, 0, 0)
    before = small_size_fix(P)[0]
    chart.set_result(model_result(P, before), 132, before.launch.blocks_per_sm)
    layout_offscreen(box, *size)
    try:
        assert chart.compact == (size == PANE_720)
        assert chart.resident_plot.isVisible() != chart.compact
        assert chart.last is not None and chart.last.last_sms == 64
        bars = chart.idle_bars.opts
        assert sorted(np.asarray(bars["y0"]).astype(int).tolist()) == list(range(64, 132))
        assert np.allclose(bars["x1"], chart.duration_us) and np.allclose(bars["x0"], 0)
        assert chart.statement() == "last wave: 64 blocks on 64 of 132 SMs — 52% of SM-time idle"
        title = title_text(chart)  # in the pane at 720p the statement takes two lines, broken at its dash
        assert "last wave: 64 blocks on 64 of 132 SMs" in title and "52% of SM-time idle" in title
        assert "(model)" in title
        texts = plot_texts(chart, chart)
        assert problems(texts, QRectF(0, 0, *size)) == []
        report = check(box, MIN_PX_720)
        assert report.seen > 5 and report.all() == [], report.all()
    finally:
        box.hide()
        box.deleteLater()


def test_a_full_wave_has_nothing_hatched(qapp):
    trace = [[b, b, 0, 1000] for b in range(132)]
    r = Result("gpu-cpasync-any", {}, 1024, 1024, 1024, "cuda", "fp32", True, block_trace=trace)
    chart = SmTraceChart(PROJECTOR_720)
    chart.set_result(r, 132, 1)
    try:
        assert chart.idle_bars is None and "0% of SM-time idle" in title_text(chart)
        assert "(model)" not in title_text(chart)  # a recorded trace is not labelled a model
    finally:
        chart.deleteLater()


def test_before_and_after_share_a_time_axis_and_fit_at_720p(qapp, monkeypatch):
    from gemmviz.core.hardware import model_trace

    monkeypatch.setattr(model_trace, "recorded_sessions", lambda: [])  # the model's, whatever the package ships
    view = LastWaveView(None, PROJECTOR_720)
    layout_offscreen(view, *PANE_720)
    try:
        assert not view.recorded and [s.case.name for s in view.shown] == ["tiles", "split", "stream-k"]
        idle = []
        for i in range(3):
            view.buttons[i].click()
            layout_offscreen(view, *PANE_720)
            chart = view.chart
            # the case's trace, its SMs numbered busiest first (busiest_first_result)
            assert chart.result.block_trace == busiest_first_result(view.shown[i].result).block_trace
            assert chart.blocks == view.shown[i].case.launch.grid
            (_x0, x1), _ = chart.sms_plot.getViewBox().viewRange()
            assert x1 >= chart.span_us  # the same span whichever is shown: the fix visibly ends sooner
            idle.append(chart.last.idle_share)
            report = check(view, MIN_PX_720)
            assert report.seen > 5 and report.all() == [], report.all()
        assert idle[0] > 0.5 > 0.05 > max(idle[1:])
        text = view.sentences()
        assert "52% of SM-time idle" in text and "not measurements" in text
    finally:
        view.hide()
        view.deleteLater()


def recorded_session(tmp_path) -> Path:
    """A session holding a trace of each of traces_small.py's builds, written as its run writes it (the traces
    are the model's here: what is tested is the matching and the file, not the GPU)."""
    results = []
    for case in traces_small().cases(P):
        trace = model_result(P, case).block_trace
        r = Result("gpu-cpasync-any", {}, 1024, 1024, 1024, "cuda", "fp32", True, samples_ms=[0.07])
        r.config, r.block_trace = dict(case.config), trace
        results.append(r)
    env = {"backends": {"cuda": {"available": True, "sms": 132, "name": "NVIDIA H100 80GB HBM3"}}}
    session = Session(results=results, environment=env, created="2026-12-07T12:00:00+00:00")
    path = traces_small().write_session(session, tmp_path, "NVIDIA H100 80GB HBM3", 1024)
    assert path.name == "h100-2026-12-07-traces-small-1024.json.gz"
    return path


def test_recorded_traces_replace_the_model_in_the_tab(qapp, tmp_path):
    ws = Workspace()
    ws.open(recorded_session(tmp_path))
    tab = HardwareTab(ws, PROJECTOR_720)
    layout_offscreen(tab, 1280, 720)
    try:
        names = [tab.result_combo.itemText(i) for i in range(tab.result_combo.count())]
        assert len(set(names)) == len(names) == 4  # one kernel in four builds: each named by its tiles and blocks
        assert "gpu-cpasync-any at 1024³ (trace, 128×128 64 blocks)" in names
        tab.view_combo.setCurrentIndex(LAST_WAVE_VIEW)
        view = tab.last_wave_view
        assert view.recorded and all(s.result.backend == "cuda" for s in view.shown)
        assert "recorded on NVIDIA H100 80GB HBM3, 2026-12-07" in tab.text.toPlainText()
        assert "(model)" not in title_text(view.chart)
        # the chart names its recording: the window's banner names the replayed session's (an H200's)
        axis = view.chart.sms_plot.getAxis("bottom").labelText or view.chart._time_axis_words
        assert "time (µs), recorded on H100, 2026-12-07" in axis
        assert tab.player.isVisible() and tab.swept() is view.chart
        tab.toggle_play()
        tab._tick()
        assert 0 < view.chart.time_us < view.chart.duration_us
        view.buttons[1].click()  # another case: the sweep stops on the whole run
        assert not tab.timer.isActive() and view.chart.time_us == view.chart.duration_us
        tab.toggle_play()
        tab._tick()
        tab.view_combo.setCurrentIndex(LAST_WAVE_VIEW - 1)  # another view mid-sweep: it stops there too
        tab.view_combo.setCurrentIndex(LAST_WAVE_VIEW)
        assert not tab.timer.isActive() and view.chart.time_us == view.chart.duration_us
        report = check(view, MIN_PX_720)  # (the tab's own controls take the window's font, set by the window)
        assert report.seen > 5 and report.all() == [], report.all()
    finally:
        tab.stop()
        tab.hide()
        tab.deleteLater()


def test_the_cases_are_picked_again_only_when_the_traced_results_change(qapp, tmp_path, monkeypatch):
    """The tab refreshes the view on every workspace change; picking the cases again (about 45 ms) waits for
    a change in the traced results the workspace shows."""
    import gemmviz.ui.hardware.last_wave as view_module

    calls = []
    real = view_module.pick_cases
    monkeypatch.setattr(view_module, "pick_cases", lambda *a: calls.append(1) or real(*a))
    ws = Workspace()
    view = LastWaveView(ws, PROJECTOR_720)
    try:
        view.refresh()
        assert len(calls) == 1  # built once; the same (no) traces again: nothing to do
        ws.open(recorded_session(tmp_path))
        view.refresh()
        assert len(calls) == 2 and view.recorded and all(s.result.backend == "cuda" for s in view.shown)
        view.refresh()
        assert len(calls) == 2
    finally:
        view.deleteLater()


def test_a_shipped_recording_is_drawn_where_the_workspace_has_none(qapp, tmp_path, monkeypatch):
    """Copied into assets/sessions/, the script's file is what the view draws on a laptop with no session of
    its own (a companion, so never the session replayed at start)."""
    from gemmviz.core.hardware import model_trace
    from gemmviz.core.session.workspace import COMPANION_SUFFIX

    path = recorded_session(tmp_path)
    assert path.name.endswith(COMPANION_SUFFIX)
    monkeypatch.setattr(model_trace, "recorded_sessions", lambda: [tmp_path / "h200-2026-12-01.json", path])
    view = LastWaveView(Workspace(), PROJECTOR_720)
    try:
        assert view.recorded and view.recorded_on == "NVIDIA H100 80GB HBM3, 2026-12-07"
        assert "(model)" not in title_text(view.chart)  # measured µs, and where (not the banner's H200):
        assert view.chart.time_words == "time (µs), recorded on H100, 2026-12-07"
        assert view.pick.origin == ("NVIDIA H100 80GB HBM3", "2026-12-07", "measured")
    finally:
        view.deleteLater()
    monkeypatch.setattr(model_trace, "recorded_sessions", lambda: [])
    view = LastWaveView(Workspace(), PROJECTOR_720)
    try:
        assert not view.recorded and "(model)" in title_text(view.chart)
    finally:
        view.deleteLater()


def test_the_gpu_scripts_builds_are_the_views_cases():
    """benchmarks/traces_small.py records the view's three cases (and the build shipped before the fix), each
    launching the blocks the model counts; the recorder runs it as `traces-small`."""
    from gemmviz.backends.cuda import launch_geometry

    script = traces_small()
    cases = script.cases(P)
    assert [c.name for c in cases[:3]] == [c.name for c in small_size_fix(P)]
    for case in cases:
        grid, _block = launch_geometry(script.variant_for(case, P), P, {}, case.config)
        assert grid[0] * grid[1] * grid[2] == case.launch.grid
    spec = importlib.util.spec_from_file_location("recorder", ROOT / "benchmarks/recorder.py")
    recorder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recorder)
    ((argv, limit, _log),) = recorder.recipe_commands("traces-small", None, Path("/tmp/x"))
    assert "benchmarks/traces_small.py" in argv and limit <= 90


def test_idle_share_stated_is_the_measure_of_the_trace_drawn():
    before = small_size_fix(P)[0]
    r = model_result(P, before)
    assert last_wave(r.block_trace, 132, 2).idle_share == pytest.approx(68 / 132)


def test_the_last_wave_chart_exports_the_three_cases_one_above_the_other(qapp, tmp_path, monkeypatch):
    """`gemmviz export --chart last-wave`: the cases stacked on one time axis, each headed by its case, in the
    model where the session has no recording of them; written as an image of the size asked for."""
    from PySide6.QtGui import QImage

    from gemmviz.core.hardware import model_trace
    from gemmviz.ui.export.exporters import export_chart, make_chart

    monkeypatch.setattr(model_trace, "recorded_sessions", lambda: [])
    stack = make_chart("last-wave", [], PROJECTOR_LIGHT)
    layout_offscreen(stack, 1280, 720)
    try:
        heads = [title_text(c).splitlines()[0] for c in stack.charts]
        assert [h.split(" · ")[0] for h in heads] == ["128×128 tiles, one block each", "64×64 + split-K", "Stream-K"]
        assert all(h.endswith("(model)") for h in heads)
        assert {c.span_us for c in stack.charts} == {stack.pick.span_us}
        assert all(c.compact for c in stack.charts)  # a third of 720 px each: the SMs alone, each with time
        # the model's times are not the kernel's (every SM at its FP32 peak): the axis and the footer say so, and
        # the footer does not name the session's GPU as the traces' source
        assert {c.time_words for c in stack.charts} == {"model time (µs), not measured"}
        assert not any(c.show_tail for c in stack.charts)  # one share per case, the idle SM-time's
        assert stack.origins() == [(None, "", "model")]
        report = check(stack, MIN_PX_720)
        assert report.seen > 10 and report.all() == [], report.all()
    finally:
        stack.hide()
        stack.deleteLater()
    path = export_chart("last-wave", [], tmp_path / "last-wave.png", 1280, 720, PROJECTOR_LIGHT)
    image = QImage(str(path))
    assert (image.width(), image.height()) == (1280, 720)


def test_a_model_footer_names_no_machine():
    from gemmviz.ui.export.exporters import footer_text

    line = footer_text([(None, "", "model")])
    assert line.startswith("the model's traces, not measured · gemmviz") and "no GPU" not in line
    assert footer_text([("NVIDIA H100 80GB HBM3", "2026-12-07", "measured")]).startswith(
        "NVIDIA H100 80GB HBM3 2026-12-07 measured"
    )


def test_the_sm_trace_counts_waves_as_the_last_wave_view_does(qapp):
    """The same recorded trace said "0.48 waves" in the SMs x time view (one block per SM, all the trace showed)
    and "0.24 waves" in the last-wave view (the model's two blocks of 128x128 per SM): a wave is now the SMs
    times the blocks the kernel's model says an SM holds, in both."""
    from gemmviz.core.hardware.model_trace import shipped_fix_session
    from gemmviz.core.kernels.variants import occupancy
    from gemmviz.ui.hardware.tab import hardware_chart

    session = shipped_fix_session(P)
    assert session is not None  # assets/sessions/h100-2026-12-07-traces-small-1024.json.gz
    before = next(r for r in session.results if r.config.get("BM") == 128 and len(r.block_trace) == 64)
    assert occupancy(before.variant, before.config) == small_size_fix(P)[0].launch.blocks_per_sm == 2
    assert occupancy("gpu-naive", {}) is None and occupancy(before.variant, {"BM": 128}) is None  # not known
    chart = hardware_chart("sm-trace", [before], PROJECTOR_LIGHT, sm_count=132)
    view = LastWaveView(Workspace(), PROJECTOR_720)
    try:
        assert chart.last.waves == pytest.approx(view.shown[0].last.waves) == pytest.approx(64 / 264)
        # and both say what a wave is: "0.24 waves" of 64 blocks on 132 SMs read as a slip without it
        assert "64 blocks, 0.24 waves of 264" in chart._title
        from gemmviz.core.hardware.model_trace import fix_messages
        from gemmviz.core.messages import render

        words = [render(m, "en") for m in fix_messages(P, [(s.case, s.last) for s in view.shown], "an H100")]
        assert any("64 blocks in 0.24 waves of 264 (2 per SM at once)" in w for w in words), words
    finally:
        chart.deleteLater()
        view.deleteLater()


def test_the_stack_shown_alone_offscreen_says_nothing_on_stderr(qapp):
    """Shown as a window of its own (an export, a slide), the stack's layout pushed a minimum size to the window;
    the offscreen platform answered "This plugin does not support propagateSizeHints()" on stderr, a second line
    under the CLI's one-line error (tests/test_hostile_round4's full disk caught it in a lesson export)."""
    from PySide6.QtCore import qInstallMessageHandler

    from gemmviz.core.hardware.fix_pick import SIZE, pick_cases
    from gemmviz.ui.hardware.last_wave import LastWaveStack

    said: list[str] = []
    previous = qInstallMessageHandler(lambda _mode, _ctx, text: said.append(text))
    w = LastWaveStack(pick_cases(SIZE, []), PROJECTOR_720, one_line=True)
    try:
        layout_offscreen(w, 640, 360)
        assert not w.grab().isNull()
    finally:
        qInstallMessageHandler(previous)
        w.deleteLater()
    assert said == []


@pytest.mark.parametrize(("projector", "size"), [(False, (1920, 1080)), (True, (1024, 768)), (True, (1280, 720))])
def test_every_case_gets_the_same_height_of_sms_at_any_size(qapp, tmp_path, monkeypatch, projector, size):
    """The lowest chart, made taller for its time axis's name, crossed into the other layout alone at 1920×1080
    (screen type) and 1024×768 (projector): its SM band came out 149 px against 132, or 189 against 303."""
    import gemmviz.ui.export.exporters as ex
    from gemmviz.ui.theme import theme_for

    made = []
    real = ex.make_chart
    monkeypatch.setattr(ex, "make_chart", lambda *a, **k: made.append(real(*a, **k)) or made[-1])
    ex.export_chart("last-wave", [], str(tmp_path / "lw.png"), *size, theme_for(projector, False))
    charts = made[0].charts
    bands = [c.sms_plot.getViewBox().height() for c in charts]
    assert max(bands) - min(bands) <= 2, bands
    assert len({c.compact for c in charts}) == 1


def test_stacked_strips_share_one_time_scale_and_name_their_axis_within_their_height(qapp):
    """A Chinese slide's three last-wave strips at 720p: each repeated the time axis's numbers, and the rotated
    "SM（按负载）" ran past its strip into the next one's. In a compact stack the numbers are under the lowest only,
    and a strip shorter than its axis's name says less ("SM rank", or nothing), never "SM": its rows are sorted."""
    from PySide6.QtGui import QFont, QFontMetricsF

    from gemmviz.core.hardware.fix_pick import SIZE, pick_cases
    from gemmviz.ui.hardware.last_wave import LastWaveStack

    w = LastWaveStack(pick_cases(SIZE, []), PROJECTOR_720, one_line=True)
    try:
        layout_offscreen(w, 1230, 400)
        charts = w.charts
        assert all(c.compact for c in charts)
        shows = [c.sms_plot.getAxis("bottom").style["showValues"] for c in charts]
        assert shows == [False] * (len(charts) - 1) + [True]
        font = QFont()
        font.setPointSizeF(charts[0].theme.font_pt)
        for c in charts:
            height = c.sms_plot.getViewBox().height()
            name = c.sms_plot.getAxis("left").labelText
            # rows sorted busiest first are never named "SM" (row 0 is not SM 0); a name fits its strip
            assert name != "SM" and (name == "" or QFontMetricsF(font).horizontalAdvance(name) <= height)
            assert name in (c.sm_words, "SM rank", "")
        assert {c.sms_plot.getAxis("left").labelText for c in charts} != {c.sm_words for c in charts}  # 400 px
    finally:
        w.deleteLater()
