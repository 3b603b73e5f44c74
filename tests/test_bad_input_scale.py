"""Hostile sizes and events (issue 21): a session over the result limit, a million-block trace, a burst of
2,000 keys in a lesson, the views that met absurd values, and the main window closed or destroyed by the
window system mid-sweep. What is asserted is behaviour (refused with the limit named, drawn in steps, one
view built, the process gone); the times are the benchmarks' (benchmarks/large_session.py, trace_stall.py,
lesson_keys.py)."""

import copy
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gemmviz.core.fileio import bulk_objects
from gemmviz.core.hardware.counters import TraceError, decode_trace, resident_timeline, trace_summary
from gemmviz.core.session import bounds
from gemmviz.core.session.results import Result, Session

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QEvent, QSettings, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from benchmarks.large_session import make_session
from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.hardware import trace_drawing as trace_chart
from gemmviz.core.hardware.trace_drawing import trace_lanes
from gemmviz.core.lesson.lessons import find_lesson, lesson_session
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.hardware.tab import HardwareTab
from gemmviz.ui.hardware.trace import SmTraceChart
from gemmviz.ui.lesson.mode import LessonView
from gemmviz.ui.window import MainWindow

ROOT = Path(__file__).resolve().parents[1]


def _traced(blocks: int, sms: int = 132, slots: int = 8) -> Result:
    """A result whose trace runs `blocks` blocks of 1 µs back to back in `slots` lanes of each SM."""
    i = np.arange(blocks)
    slot = i % (sms * slots)
    start = (i // (sms * slots)) * 1000
    trace = np.stack([i, slot % sms, start, start + 1000], axis=1).tolist()
    return Result(
        variant="gpu-tiled",
        params={"tile": 16},
        m=4096,
        n=4096,
        k=4096,
        backend="cuda",
        precision="fp32",
        valid=True,
        samples_ms=[1.0],
        block_trace=trace,
    )


# ---- large sessions ---------------------------------------------------------------------------------------
@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "open", lambda self, *a: shown.append(self.text()))
    w = MainWindow(
        {"cpu": CpuBackend()},
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
        load_recorded_without_gpu=False,
    )
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: bool(w.workspace.environment), timeout=10000)
    w.shown_dialogs = shown
    yield w
    w.close()


def test_a_100000_result_session_is_refused_with_the_limit_named_and_nothing_is_lost(window, tmp_path):
    small = tmp_path / "small.json"
    small.write_text(json.dumps(make_session(3)))
    assert window.files.open_session(small)
    big = tmp_path / "big.json"
    session = make_session(1)
    session["results"] *= 100_000  # one valid result 100,000 times: the count is refused, whatever they hold
    big.write_text(json.dumps(session))
    assert not window.files.open_session(big)
    assert window.shown_dialogs[-1] == (
        f"{big}: results: 100,000 results, over the 20,000 a session may hold "
        f"(the app draws and tabulates every one; split the file)"
    )
    assert [s.path for s in window.workspace.sessions] == [str(small)]
    assert window.charts_tab.table.model_.rowCount() == 3


def test_a_session_at_the_result_limit_opens_and_its_table_sorts(window, tmp_path):
    path = tmp_path / "limit.json"
    with bulk_objects():
        path.write_text(json.dumps(make_session(bounds.MAX_RESULTS)))
    assert window.files.open_session(path)
    table = window.charts_tab.table
    assert table.model_.rowCount() == bounds.MAX_RESULTS
    median = next(i for i, c in enumerate(trace_chart_columns()) if c == "median_ms")
    table.sortByColumn(median, Qt.SortOrder.DescendingOrder)
    values = [table.row_results[r].median_ms for r in range(0, bounds.MAX_RESULTS, 997)]
    assert values == sorted(values, reverse=True)
    assert table.proxy.index(0, median).data() == format(table.row_results[0].median_ms, ".4g")


def test_saving_live_results_the_loader_would_refuse_says_why_and_keeps_the_earlier_file(window, tmp_path):
    path = tmp_path / "kept.json"
    path.write_text("an earlier session")
    bad = _traced(4)
    bad.block_trace[2][1] = 5000  # an SM id no GPU has
    window.workspace.add_live(bad)
    assert not window.files.save_session(str(path))
    assert "results[0].block_trace[2][1]: SM id 5000 is not below 1024" in window.last_error_text
    assert path.read_text() == "an earlier session"


def trace_chart_columns():
    from gemmviz.ui.charts.table import COLUMNS

    return [key for key, _title, _spec in COLUMNS]


# ---- views that met absurd values --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "field, value, words",
    [
        ("samples_ms", [1e308], "samples_ms[0]: 1e+308 ms is not a time"),
        ("samples_ms", [5e-324], "samples_ms[0]: 4.94066e-324 ms is not a time"),
        ("block_trace", [[0, 10**9, 0, 100]], "block_trace[0][1]: SM id 1000000000 is not below 1024"),
        ("block_trace", [[0, 0, 0, 0]], "block_trace: every block ends as it starts"),
        ("block_trace", [[0, 0, 0, 10**30]], "block_trace[0][3]: 1000000000000000000000000000000 ns"),
    ],
)
@pytest.mark.parametrize("chart", ["time", "sm-trace"])
def test_export_of_an_absurd_value_is_refused_before_any_chart(tmp_path, capsys, field, value, words, chart):
    from gemmviz.cli.main import main

    d = make_session(2)
    d["results"][0][field] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d))
    out = tmp_path / "chart.png"
    code = main(["export", str(path), "--chart", chart, "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and str(path) in err and len(err.strip().splitlines()) == 1 and not out.exists()
    assert words.split(": ")[0] in err


def test_the_hardware_tab_and_the_trace_view_survive_every_trace_the_loader_lets_through(qtbot):
    """The extremes that load: one block; one SM of the 1024 a session may have; an hour-long run; blocks of
    no time beside one that lasts."""
    cases = [[[0, 0, 0, 1]], [[0, 1023, 0, 10]], [[0, 0, 0, bounds.MAX_TRACE_NS]], [[0, 5, 7, 7], [1, 5, 7, 8]]]
    ws = Workspace()
    for trace in cases:
        d = {**_traced(1).to_dict(), "block_trace": trace}
        ws.add_live(Result.from_dict(json.loads(json.dumps(d))))
    tab = HardwareTab(ws)
    qtbot.addWidget(tab)
    tab.show()
    tab.refresh()
    for i, trace in enumerate(cases):
        tab.result_combo.setCurrentIndex(i)
        chart = tab.trace_chart
        assert chart.blocks == len(trace) and chart.rows <= bounds.MAX_SMS and chart.summary.max_resident_total >= 1
        tab.slider.setValue(500)
        assert "blocks" in tab.time_label.text() and "SM" in tab.text.toPlainText()


def test_a_run_never_keeps_a_trace_the_loader_would_refuse():
    raw = np.array([[0, 3, 5, 5], [1, 4, 5, 5]], dtype=np.uint64).ravel()
    with pytest.raises(TraceError, match="every block ends as it starts"):
        decode_trace(raw)
    raw = np.array([[0, 3, 0, 4 * 10**12]], dtype=np.uint64).ravel()
    with pytest.raises(TraceError, match="over an hour"):
        decode_trace(raw)


# ---- a million-block trace ----------------------------------------------------------------------------------
def _brute_summary(trace):
    """Residency by counting, at every instant, the blocks with start <= t < end: the reference for the sorts."""
    t = np.asarray(trace)
    instants = np.unique(t[:, 2:])
    on = (t[:, 2][None, :] <= instants[:, None]) & (instants[:, None] < t[:, 3][None, :])
    total = on.sum(axis=1)
    per_sm = max(int((on & (t[:, 1] == sm)[None, :]).sum(axis=1).max()) for sm in np.unique(t[:, 1]))
    busy = np.array([len(np.unique(t[row, 1])) for row in on])
    last_full = instants[np.flatnonzero(busy == busy.max())[-1] + 1]
    end = int(t[:, 3].max())
    return int(total.max()), per_sm, 100.0 * (end - int(last_full)) / end


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 40), st.integers(0, 12)), min_size=1, max_size=40))
def test_trace_summary_agrees_with_counting_at_every_instant(rows):
    trace = [[i, sm, start, start + length] for i, (sm, start, length) in enumerate(rows)]
    if all(length == 0 for _sm, _start, length in rows):
        with pytest.raises(TraceError, match="every block ends as it starts"):
            trace_summary(trace)
        return
    s = trace_summary(trace)
    most, per_sm, tail = _brute_summary(trace)
    assert (s.max_resident_total, s.max_resident_per_sm) == (most, per_sm)
    assert s.tail_pct == pytest.approx(tail) and s.waves == pytest.approx(len(trace) / most)
    times, resident = resident_timeline(trace)
    assert len(times) == 2 * len(trace) and resident[-1] == 0 and resident.max() == most


def test_a_large_trace_is_prepared_in_steps_and_drawn_as_one_image(qtbot):
    r = _traced(120_000)
    chart = SmTraceChart()
    qtbot.addWidget(chart)
    chart.resize(1280, 720)
    chart.show()
    turns = []
    step = chart._step
    chart._step = lambda: (turns.append(1), step())[1]
    chart._stepper.timeout.disconnect()
    chart._stepper.timeout.connect(chart._step)
    with qtbot.waitSignal(chart.ready, timeout=60000):
        chart.set_result_stepwise(r, 132)
        assert chart.preparing and chart.blocks == 0  # nothing computed yet: the call returned at once
    assert len(turns) >= 2 * 120_000 // trace_chart.STEP_ROWS  # the array and the lanes, in STEP_ROWS pieces
    assert chart.blocks == 120_000 and chart.rows == 132 and not chart.preparing
    images = [i for i in chart.sms_plot.items if type(i).__name__ == "ImageItem"]
    bars = [
        i
        for i in chart.sms_plot.items
        if type(i).__name__ == "BarGraphItem" and i.opts["x0"] is not None and len(i.opts["x0"]) > 1
    ]
    assert len(images) == 1 and bars == []
    assert chart.summary == trace_summary(r.block_trace) and chart.summary.max_resident_per_sm == 8
    xs, _ys = chart._drawing[2].resident_us
    assert len(xs) <= 4 * trace_chart.IMAGE_BINS + 2  # the residency curve decimated too
    chart.set_time(chart.duration_us / 2)
    assert chart.landed() == int((np.asarray(r.block_trace)[:, 2] / 1e3 <= chart.time_us).sum())
    chart.apply_theme(chart.theme)  # a theme change redraws from the prepared drawing
    assert chart.blocks == 120_000 and not chart.preparing


def test_the_image_shows_each_block_in_its_wave_colour(monkeypatch):
    monkeypatch.setattr(trace_chart, "DRAW_BARS_MAX", 0)
    trace = _traced(4 * 2 * 8, sms=2).block_trace  # 2 SMs × 8 lanes, 4 waves
    drawing = trace_chart.prepare(trace, 2)
    t, lane, wave = trace_lanes(trace)
    assert drawing.image.shape == (2 * 8, trace_chart.IMAGE_BINS) and drawing.lanes_drawn == 8
    duration = drawing.summary.duration_ns
    for (_b, sm, start, end), ln, wv in zip(t.tolist(), lane.tolist(), wave.tolist()):
        middle = int((start + end) / 2 * trace_chart.IMAGE_BINS / duration)
        assert drawing.image[sm * 8 + ln, middle] == wv % trace_chart.WAVE_COLOURS + 1


def test_the_hardware_tab_says_it_is_preparing_then_explains_the_trace(qtbot):
    ws = Workspace()
    small, big = _traced(500), _traced(60_000)
    big.k = 2048
    for r in (small, big):
        ws.add_live(r)
    tab = HardwareTab(ws)
    qtbot.addWidget(tab)
    tab.show()
    tab.refresh()
    with qtbot.waitSignal(tab.trace_chart.ready, timeout=60000):
        tab.result_combo.setCurrentIndex(tab.candidates.index(big))
        assert "preparing its 60,000 blocks" in tab.text.toPlainText()
    assert "60000" not in tab.text.toPlainText() and "blocks" in tab.text.toPlainText()
    assert tab.trace_chart.blocks == 60_000 and tab.time_label.text().endswith("60,000 blocks")
    tab.result_combo.setCurrentIndex(tab.candidates.index(small))  # a switch mid-preparation drops it
    assert tab.trace_chart.blocks == 500


# ---- a burst of keys in a lesson --------------------------------------------------------------------------
def test_2000_mashed_keys_build_one_view_and_end_on_the_right_step(qtbot):
    lesson = find_lesson("seed000")
    view = LessonView(lesson, lesson_session(lesson))
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    qtbot.waitExposed(view)
    view._drop_views()
    built = []
    make = view._view
    view._view = lambda index: (built.append(index), make(index))[1]
    keys = [Qt.Key.Key_Right] * 1200 + [Qt.Key.Key_Left] * 795 + [Qt.Key.Key_PageDown] * 3 + [Qt.Key.Key_Space] * 2
    for key in keys:
        QApplication.postEvent(view, QKeyEvent(QEvent.Type.KeyPress, key, Qt.KeyboardModifier.NoModifier))
    QApplication.processEvents()  # every queued key: the step moves
    # at most the last step's view and the next one's prefetch: on a loaded machine the settle timer may fire
    # inside that processEvents (its keys took longer than the timer), so "none yet" is not a condition to test
    assert view.index == 5 and set(built) <= {5, 6}
    qtbot.waitUntil(lambda: not view.settle.isActive() and view.views.get(5) is not None, timeout=10000)
    assert set(built) <= {5, 6}  # the step's view, and the next one prefetched
    assert view.views[5].isVisible()


def test_a_step_key_then_p_plays_the_step_it_moved_to(qtbot):
    lesson = find_lesson("seed000")
    view = LessonView(lesson, lesson_session(lesson))
    qtbot.addWidget(view)
    view.show()
    animation = next(i for i, s in enumerate(lesson.steps) if s.view == "animation" and i > 0)
    view.go(animation - 1)
    view.key(Qt.Key.Key_Right)
    view.key(Qt.Key.Key_P)  # before the event loop built the view: P builds it first
    assert view.index == animation and view.timer.isActive()


# ---- the window system closes or destroys the window mid-sweep --------------------------------------------
WM_APP = textwrap.dedent("""
    import ctypes, sys, time
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox
    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui import native_window
    from gemmviz.ui.run.controller import leave
    from gemmviz.ui.window import MainWindow
    from tests.fakes import FakeGpuBackend

    how = sys.argv[1]
    x = ctypes.CDLL("libX11.so.6")
    x.XOpenDisplay.restype = ctypes.c_void_p
    x.XInternAtom.restype = ctypes.c_ulong
    x.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x.XDestroyWindow.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
    x.XFlush.argtypes = [ctypes.c_void_p]

    class Message(ctypes.Structure):
        _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                    ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("message_type", ctypes.c_ulong),
                    ("format", ctypes.c_int), ("data", ctypes.c_long * 5), ("pad", ctypes.c_long * 16)]

    x.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.POINTER(Message)]

    def window_manager(wid):
        # what a window manager does: ask to close (WM_DELETE_WINDOW), or destroy the window outright
        d = x.XOpenDisplay(None)
        if how == "destroy":
            x.XDestroyWindow(d, wid)
        else:
            m = Message(type=33, window=wid, message_type=x.XInternAtom(d, b"WM_PROTOCOLS", 0), format=32)
            m.data[0] = x.XInternAtom(d, b"WM_DELETE_WINDOW", 0)
            x.XSendEvent(d, wid, 0, 0, ctypes.byref(m))
        x.XFlush(d)

    asked = []
    QMessageBox.question = lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Discard
    app = QApplication(sys.argv[:1])
    w = MainWindow({"cpu": CpuBackend(), "cuda": FakeGpuBackend(delay_s=0.3)},
                   settings=QSettings(sys.argv[2], QSettings.Format.IniFormat), load_recorded_without_gpu=False)
    w.recovery.ask = True  # as the app does
    w.show()
    native_window.watch(w)  # as the app does
    sent = []

    def step():
        if not w.controller.warm:
            return
        if not w.running and not sent and not w.workspace.live:
            w.run_panel.set_selected_variants(["gpu-naive"])
            w.run_panel.sweep_edit.setText(",".join(str(64 + 8 * i) for i in range(40)))
            w.run_sweep()
        elif len(w.workspace.live) >= 2 and not sent:
            sent.append(time.monotonic())
            window_manager(int(w.winId()))

    poll = QTimer()
    poll.timeout.connect(step)
    poll.start(20)
    code = app.exec()
    print(f"left after {time.monotonic() - sent[0]:.2f} s, asked {len(asked)}, live {len(w.workspace.live)}",
          flush=True)
    sys.exit(leave(code))
""")


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs Xvfb (xvfb-run) for a real X11 window")
@pytest.mark.parametrize("how", ["close", "destroy"])
def test_a_window_the_window_system_closes_or_destroys_mid_sweep_quits_the_process(tmp_path, how):
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "xcb",
        "GEMMVIZ_CONFIG_DIR": str(tmp_path / "config"),
        "XDG_CONFIG_HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
    }
    try:
        proc = subprocess.run(
            [
                "xvfb-run",
                "-a",
                "-s",
                "-screen 0 1280x800x24",
                sys.executable,
                "-c",
                WM_APP,
                how,
                str(tmp_path / "s.ini"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=str(ROOT),
            env=env,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the process was still running 120 s after the window was {how}d")
    if "could not connect to display" in proc.stderr or "Could not load the Qt platform plugin" in proc.stderr:
        pytest.skip("no usable X11 display here")
    assert proc.returncode == 0, proc.stderr[-2000:]
    left = float(proc.stdout.split("left after ")[1].split(" s")[0])
    assert left < 10  # the run is cancelled at its next job (0.3 s each), the worker waited for at most 2 s
    if how == "close":  # asked as any close with unsaved results is (answered Discard here)
        assert "asked 1" in proc.stdout
    else:  # no window to ask in: the results are kept for the next start
        assert "asked 0" in proc.stdout and "destroyed by the window system" in proc.stderr
        (kept,) = (tmp_path / "config").glob("recovery-*.json")  # the window's own recovery file
        recovered = Session.load(kept)
        assert len(recovered.results) >= 2


def test_a_session_with_a_trace_row_out_of_bounds_in_a_lesson_is_refused(tmp_path):
    """A lesson's session gets the same bounds (the lesson hit MemoryError on an SM id of 10^9)."""
    from gemmviz.core.lesson.lessons import LessonError, load_lesson

    d = copy.deepcopy(make_session(1))
    d["results"][0]["block_trace"] = [[0, 10**9, 0, 100]]
    (tmp_path / "s.json").write_text(json.dumps(d))
    (tmp_path / "l.toml").write_text('title = "L"\nsession = "s.json"\n[[step]]\ntitle = "T"\ntext = "One sentence."\n')
    with pytest.raises(LessonError, match=r"block_trace\[0\]\[1\]: SM id 1000000000 is not below 1024"):
        lesson_session(load_lesson(tmp_path / "l.toml"))
