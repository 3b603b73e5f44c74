"""The desktop app, offscreen, with the CPU backend and a slow fake GPU backend."""

import json
import threading
import time

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings, Qt, QThread, QTimer

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.problem import ProblemError
from gemmviz.ui.run.panel import CUSTOM
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend


@pytest.fixture
def make_window(qtbot, tmp_path):
    windows = []

    def make(gpu=None, **kw):
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        backends = {"cpu": CpuBackend(), "cuda": gpu or FakeGpuBackend()}
        w = MainWindow(backends=backends, settings=settings, load_recorded_without_gpu=kw.pop("replay", False), **kw)
        qtbot.addWidget(w)
        w.show()
        qtbot.waitUntil(lambda: bool(w.workspace.environment), timeout=10000)
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.close()
        # closed: the worker's QThread was stopped and joined, and no timer of the window is left running
        assert not w.controller.worker_thread.isRunning() and w.controller.worker_thread.isFinished()
        assert [
            (type(t.parent()).__name__, t.interval(), t.isSingleShot()) for t in w.findChildren(QTimer) if t.isActive()
        ] == []
        assert w.charts_tab.stopped


def choose(w, variants, tiles=(16,)):
    w.run_panel.set_selected_variants(variants)
    w.run_panel.set_param_values("tile", list(tiles))


def wait_idle(qtbot, w, timeout=60000):
    qtbot.waitUntil(lambda: not w.running and not w.charts_tab.refresh_pending, timeout=timeout)


def test_window_opens_with_device_panel(make_window):
    w = make_window()
    assert w.windowTitle() == "gemmviz"
    assert "Fake GPU" in w.device_label.text()
    assert w.run_panel.run_button.isEnabled()
    assert not w.access_tab.built  # its records are read when it is first shown, not before the first paint


def test_closing_the_window_during_the_cpu_warm_up_does_not_wait_for_the_compiler(make_window, qtbot, monkeypatch):
    """The engine warms the CPU loop up after its probe (numba's import and compile: seconds, tens under load).
    A window closed meanwhile stops its worker within 0.5 s of the cancel: the warm-up waits for the compile
    thread with the cancel flag in hand (the flake where make_window's teardown found the engine running)."""
    from gemmviz.backends import cpu

    gate, started, done = threading.Event(), threading.Event(), threading.Event()

    def compile_until_released(finished: threading.Event):  # a compiler slower than any close wait
        started.set()
        gate.wait()
        finished.set()

    if cpu.warming():  # a real compile still in flight (an earlier window's warm-up) ends before the stand-in
        cpu._warmed.wait()
    monkeypatch.setattr(cpu, "_warming", None)
    monkeypatch.setattr(cpu, "_warm_error", None)
    monkeypatch.setattr(cpu, "_warmed", done)
    monkeypatch.setattr(cpu, "_compile_and_calibrate", compile_until_released)
    try:
        w = make_window()
        qtbot.waitUntil(started.is_set, timeout=30000)
        assert w.controller.worker_thread.isRunning() and not w.controller.warm
        assert w.controller.shutdown(timeout_ms=500)  # cancel, then the engine thread has ended within 0.5 s
        assert w.controller.worker_thread.isFinished() and not w.controller.warm
    finally:
        gate.set()


def test_without_gpu_banner_and_gpu_variants_disabled(make_window):
    w = make_window(gpu=FakeGpuBackend(available=False))
    assert "No CUDA GPU:" in w.device_label.text() and "switched off" in w.device_label.text()
    names = w.run_panel.selected_variants()
    assert names and all(n.startswith("cpu") for n in names)
    item = w.run_panel.variant_list.item(2)
    assert not (item.flags() & Qt.ItemFlag.ItemIsEnabled) and "Unavailable" in item.toolTip()


def test_run_button_runs_the_engine_and_fills_table(make_window, qtbot):
    w = make_window()
    w.run_panel.size_preset.setCurrentText(CUSTOM)
    w.run_panel.m_edit.setText("17"), w.run_panel.n_edit.setText("33"), w.run_panel.k_edit.setText("65")
    choose(w, ["cpu-naive", "cpu-blas", "gpu-tiled"], tiles=(8, 32))
    w.run_panel.repeats_spin.setValue(2)
    qtbot.mouseClick(w.run_panel.run_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, w)
    assert [(r.variant, r.params, r.status) for r in w.workspace.live] == [
        ("cpu-naive", {}, "ok"),
        ("cpu-blas", {}, "ok"),
        ("gpu-tiled", {"tile": 8}, "ok"),
        ("gpu-tiled", {"tile": 32}, "ok"),
    ]
    assert all((r.m, r.n, r.k) == (17, 33, 65) for r in w.workspace.live)
    # the BLAS samples until its noise is low (at least `repeats`), the others take `repeats`
    assert [
        len(r.samples_ms) >= 2 if r.variant == "cpu-blas" else len(r.samples_ms) <= 2 for r in w.workspace.live
    ] == [True] * 4
    assert w.charts_tab.table.proxy.rowCount() == 4


def test_sweep_fills_charts_and_table(make_window, qtbot):
    w = make_window(gpu=FakeGpuBackend(delay_s=0.01))
    w.run_panel.sweep_edit.setText("16,32,48")
    choose(w, ["cpu-naive", "gpu-naive", "gpu-tiled"])
    w.run_panel.repeats_spin.setValue(2)
    w.run_sweep()
    wait_idle(qtbot, w)
    assert len(w.workspace.live) == 9 and all(r.valid for r in w.workspace.live)
    assert w.charts_tab.table.proxy.rowCount() == 9
    lines = [i for i in w.charts_tab.time_chart.getPlotItem().items if type(i).__name__ == "PlotCurveItem"]
    assert len(lines) == 3  # one line per series
    bars = dict(w.charts_tab.speedup_chart.bars)
    assert (
        set(bars) == {"cpu-naive", "gpu-naive (block 16)", "gpu-tiled (tile 16)"} and bars["gpu-naive (block 16)"] == 1
    )
    assert "vs GPU naive, block 16×16 (the seed's) at 48³" in w.charts_tab.speedup_chart.getPlotItem().titleLabel.text


def test_cancel_keeps_partial_results(make_window, qtbot):
    w = make_window(gpu=FakeGpuBackend(delay_s=0.3))
    w.run_panel.sweep_edit.setText("16,24,32,40,48,56")
    choose(w, ["gpu-naive"])
    w.run_sweep()
    qtbot.waitUntil(lambda: len(w.workspace.live) >= 1, timeout=10000)
    qtbot.mouseClick(w.run_panel.cancel_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, w, timeout=5000)
    assert 1 <= len(w.workspace.live) < 6
    assert w.workspace.live[0].valid
    assert w.run_panel.run_button.isEnabled() and "Cancelled" in w.statusBar().currentMessage()


@pytest.mark.parametrize(
    "m, message",
    [("0", "at least 1"), ("-4", "at least 1"), ("abc", "whole number"), ("2.5", "whole number"), ("", "whole number")],
)
def test_bad_sizes_show_inline_message_and_disable_run(make_window, m, message):
    w = make_window()
    w.run_panel.size_preset.setCurrentText(CUSTOM)
    w.run_panel.m_edit.setText(m)
    assert message in w.run_panel.message.text()
    assert not w.run_panel.run_button.isEnabled()
    w.run_panel.m_edit.setText("64")
    assert w.run_panel.message.text() == "" and w.run_panel.run_button.isEnabled()


def test_too_big_for_memory_and_bad_combinations_are_explained(make_window):
    w = make_window()
    w.run_panel.size_preset.setCurrentText(CUSTOM)
    w.run_panel.m_edit.setText("2000000"), w.run_panel.n_edit.setText("2000000"), w.run_panel.k_edit.setText("8")
    assert "memory" in w.run_panel.message.text() and not w.run_panel.run_button.isEnabled()
    w.run_panel.size_preset.setCurrentText("256")
    choose(w, ["gpu-tiled"], tiles=())
    assert "tile size" in w.run_panel.message.text() and not w.run_panel.run_button.isEnabled()
    choose(w, [])
    assert "at least one" in w.run_panel.message.text()
    w.run_panel.sweep_edit.setText("64,x")
    choose(w, ["cpu-blas"])
    assert (
        "Sweep" in w.run_panel.message.text()
        and w.run_panel.run_button.isEnabled()
        and not w.run_panel.sweep_button.isEnabled()
    )


def test_closing_mid_run_stops_the_worker_cleanly(make_window, qtbot):
    w = make_window(gpu=FakeGpuBackend(delay_s=0.5))
    w.run_panel.sweep_edit.setText("16,24,32,40")
    choose(w, ["gpu-naive"])
    w.run_sweep()
    qtbot.waitUntil(lambda: w.running, timeout=30_000)
    thread = w.controller.worker_thread
    t0 = time.monotonic()
    w.close()
    assert thread.isFinished() and time.monotonic() - t0 < 5


def test_failed_job_shows_dialog_with_log_and_next_run_works(make_window, qtbot):
    w = make_window(gpu=FakeGpuBackend(delay_s=0.01, fail_m=13))
    w.run_panel.size_preset.setCurrentText(CUSTOM)
    for e in (w.run_panel.m_edit, w.run_panel.n_edit, w.run_panel.k_edit):
        e.setText("13")
    choose(w, ["gpu-tiled", "cpu-blas"])
    w.run_current()
    wait_idle(qtbot, w)
    assert [r.status for r in w.workspace.live] == ["ok", "failed"]  # registry order: cpu-blas first
    assert w.last_error is not None and "nvcc failed" in w.last_error.detailedText()
    assert "FAILED" in w.charts_tab.table.selection_text()
    w.last_error.close()
    w.run_panel.m_edit.setText("14")
    w.run_current()
    wait_idle(qtbot, w)
    assert [r.status for r in w.workspace.live[2:]] == ["ok", "ok"]


def test_corrupt_session_is_refused_and_changes_nothing(make_window, tmp_path):
    w = make_window()
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "gemmviz.session", "schema_version": 1, "results": [{"nope": 1}]}')
    assert not w.files.open_session(bad)
    assert "Cannot open session" in w.last_error_text and not w.workspace.sessions


def test_save_and_open_session_round_trip(make_window, qtbot, tmp_path):
    w = make_window()
    choose(w, ["cpu-blas"])
    w.run_panel.size_preset.setCurrentText("256")
    w.run_current()
    wait_idle(qtbot, w)
    path = tmp_path / "s.json"
    assert w.files.save_session(str(path))
    assert json.loads(path.read_text())["results"][0]["variant"] == "cpu-blas"
    assert not w.files.save_session(str(tmp_path / "no-such-dir" / "s.json"))
    assert "Cannot save session" in w.last_error_text
    assert w.files.open_session(path)
    assert len(w.shown_results()) == 2 and w.settings.value("recent", type=list)[0] == str(path)
    assert w.files.export_csv(str(tmp_path / "r.csv"))
    assert not w.files.export_csv(str(tmp_path / "no-such-dir" / "r.csv"))


def test_settings_are_remembered(make_window, tmp_path):
    w = make_window()
    w.run_panel.size_preset.setCurrentText("2048")
    choose(w, ["cpu-naive", "gpu-tiled"], tiles=(8, 32))
    w.run_panel.repeats_spin.setValue(7)
    w.close()
    w2 = make_window()
    assert w2.run_panel.size_preset.currentText() == "2048"
    assert w2.run_panel.selected_variants() == ["cpu-naive", "gpu-tiled"]
    assert [t for t, b in w2.run_panel.param_boxes["tile"].items() if b.isChecked()] == [8, 32]
    assert w2.run_panel.repeats_spin.value() == 7


def test_no_qthread_or_timer_left_running(make_window, qtbot):
    w = make_window()
    w.tabs.setCurrentWidget(w.tiling)
    w.tiling.toggle_play()
    assert w.tiling.timer.isActive()
    thread = w.controller.worker_thread
    w.close()
    assert isinstance(thread, QThread) and thread.isFinished() and not thread.isRunning()
    assert not w.tiling.timer.isActive()


def test_run_states_idle_running_cancelling_idle(make_window, qtbot):
    from gemmviz.ui.run.controller import RunState

    w = make_window(gpu=FakeGpuBackend(delay_s=0.3))
    states = []
    w.controller.stateChanged.connect(states.append)
    w.run_panel.sweep_edit.setText("16,24,32")
    choose(w, ["gpu-naive"])
    w.run_sweep()
    assert w.controller.state is RunState.RUNNING and not w.run_panel.run_button.isEnabled()
    w.run_sweep()  # a second start while running is refused
    w.cancel()
    wait_idle(qtbot, w, timeout=5000)
    assert states == [RunState.RUNNING, RunState.CANCELLING, RunState.IDLE]
    assert w.run_panel.run_button.isEnabled() and not w.run_panel.cancel_button.isEnabled()


class SpyGpuBackend(FakeGpuBackend):
    """Records from which thread its device is queried."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.device_calls = []

    def device_info(self):
        self.device_calls.append(threading.current_thread() is threading.main_thread())
        return super().device_info()


def test_saving_a_session_makes_no_device_call_on_the_ui_thread(make_window, qtbot, tmp_path):
    spy = SpyGpuBackend(delay_s=0.01)
    w = make_window(gpu=spy)
    assert spy.device_calls == [False]  # probed once, in the worker
    choose(w, ["gpu-tiled"])
    w.run_panel.size_preset.setCurrentText("256")
    w.run_current()
    wait_idle(qtbot, w)
    calls = len(spy.device_calls)
    assert w.files.save_session(str(tmp_path / "s.json"))
    assert len(spy.device_calls) == calls and True not in spy.device_calls
    saved = json.loads((tmp_path / "s.json").read_text())
    assert saved["environment"]["backends"]["cuda"]["name"] == "Fake GPU"  # the probed environment
    assert "source" not in saved["results"][0]


def test_two_sessions_of_the_same_gpu_and_day_are_both_shown(make_window, tmp_path):
    import shutil

    from gemmviz.core.session.workspace import default_replay_session

    w = make_window()
    for name in ("a.json", "b.json"):
        shutil.copy(default_replay_session(), tmp_path / name)
        assert w.files.open_session(tmp_path / name)
    labels = [s.label for s in w.workspace.sessions]
    assert labels == ["NVIDIA H200, 2026-12-02 (recorded)", "NVIDIA H200, 2026-12-02 (2) (recorded)"]
    assert {source for source, _ in w.charts_tab.time_chart._items} == set(labels)
    assert w.compare.table.rowCount() > 0


def test_measuring_ceilings_runs_in_the_worker_and_failures_are_shown(make_window, qtbot, monkeypatch):
    import gemmviz.backends.ceilings as ceilings

    w = make_window()
    assert w.roofline_tab.ceilings_button.isEnabled()  # the fake GPU is available
    calls = []

    def fake_measure():
        calls.append(threading.current_thread().name)
        raise RuntimeError("out of memory")

    monkeypatch.setattr(ceilings, "measure_ceilings", fake_measure)
    w.roofline_tab.ceilings_button.click()
    qtbot.waitUntil(lambda: not w.running, timeout=30_000)
    assert calls and calls[0] != threading.main_thread().name
    assert "Cannot measure the ceilings" in w.last_error_text and "out of memory" in w.last_error_text
    assert w.run_panel.run_button.isEnabled()


def test_no_display_gives_a_clear_message(monkeypatch, capsys):
    from gemmviz.cli import main

    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    assert main([]) == 1
    assert "no display" in capsys.readouterr().err


def test_no_gpu_start_shows_the_replay_and_overlays_a_published_session(make_window, qtbot):
    from gemmviz.core.session.workspace import recorded_sessions

    w = make_window(gpu=FakeGpuBackend(available=False), replay=True)
    qtbot.waitUntil(lambda: w.charts_tab.table.proxy.rowCount() > 0, timeout=10000)
    # one line says both: no GPU here, and which GPU's recording is replayed (the replay banner folded into it)
    assert w.device_label.text() == "No CUDA GPU: replaying NVIDIA H200, 2026-12-02; new CPU runs are live"
    assert (
        not w.replay_banner.isVisibleTo(w) and w.replay_banner.text() == "Recorded on NVIDIA H200, 2026-12-02 — replay"
    )
    assert "File ▸ Open recorded or published session" in w.device_label.label.toolTip()
    shown = w.shown_results()
    assert any(r.variant == "cublas" and w.workspace.source_of(r).startswith("NVIDIA H200") for r in shown)
    assert not w.run_panel.selected_variants() or all(v.startswith("cpu") for v in w.run_panel.selected_variants())
    # overlay a published session: every chart carries both, each with its own legend entry
    w.files.open_session(next(p for p in recorded_sessions() if "rtx4060" in p.name))
    sources = {s for s, _ in w.charts_tab.time_chart._items}
    assert sources == {"NVIDIA H200, 2026-12-02 (recorded)", "RTX 4060, seed 000 (published)"}
    legend = [label.text for _, label in w.charts_tab.time_chart.legend.items]
    assert "RTX 4060, seed 000 (published)" in legend
    assert w.compare.table.rowCount() > 0
    w.files.close_loaded()  # nothing replayed: the notice says where GPU figures come from again
    assert w.device_label.text().startswith("No CUDA GPU: GPU figures are replayed (File ▸")
    assert w.device_label.isVisibleTo(w) and not w.replay_banner.isVisibleTo(w)


def test_inputs_come_from_the_registry(make_window):
    from gemmviz.core.kernels.variants import BASELINES, VARIANTS, default_variants

    w = make_window()
    p = w.run_panel
    assert p.selected_variants() == default_variants()  # the fake GPU runs every variant
    for v in VARIANTS.values():
        for key, choices in v.param_choices.items():
            assert set(choices) <= set(p.param_boxes[key])  # every value any variant allows can be chosen
    combo = w.charts_tab.baseline_combo
    assert [combo.itemData(i) for i in range(combo.count())] == [b.key for b in BASELINES]


def test_hidden_series_leave_the_charts(make_window, qtbot):
    w = make_window()
    choose(w, ["cpu-naive", "cpu-blas"])
    w.run_panel.size_preset.setCurrentText("256")
    w.run_current()
    wait_idle(qtbot, w)
    w.workspace.set_hidden({"cpu-naive"})
    w.refresh()
    assert {name for _, name in w.charts_tab.time_chart._items} == {"cpu-blas"}
    assert w.charts_tab.table.proxy.rowCount() == 1 and len(w.workspace.live) == 2


# ---- start-up on Linux (gemmviz.core.startup: no Qt) ----------------------------------------------------------
def test_startup_checks_display_and_libraries(tmp_path):
    from gemmviz.core import startup

    ok = dict(reachable=lambda d: True, loads=lambda name: True)
    assert startup.window_problem({}, "linux", **ok).startswith("no display")
    assert "offscreen" in startup.window_problem({}, "linux", **ok)
    assert startup.window_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux", **ok) is None
    assert startup.window_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux", **ok) is None
    assert startup.window_problem({}, "win32", **ok) is None
    assert startup.window_problem({"DISPLAY": ":0"}, "linux", **ok) is None
    line = startup.window_problem({"DISPLAY": ":7"}, "linux", reachable=lambda d: False, loads=lambda n: True)
    assert "cannot reach the X display DISPLAY=:7" in line
    line = startup.window_problem(
        {"DISPLAY": ":0"},
        "linux",
        reachable=lambda d: True,
        loads=lambda n: n not in ("libxcb-cursor.so.0", "libEGL.so.1"),
    )
    assert "\n" not in line and "sudo apt install libxcb-cursor0 libegl1" in line


def test_display_reachable_tries_the_socket_and_tcp(tmp_path, monkeypatch):
    import socket

    from gemmviz.core import startup

    assert startup.parse_display(":1.0") == ("", 1) and startup.parse_display("host:10") == ("host", 10)
    assert startup.parse_display("garbage") is None and not startup.display_reachable("garbage")
    monkeypatch.setattr(startup, "X11_SOCKET_DIR", str(tmp_path))
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(tmp_path / "X5"))
    server.listen(1)
    try:
        assert startup.display_reachable(":5")
        assert not startup.display_reachable("unix:6")
    finally:
        server.close()
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(1)
    monkeypatch.setattr(startup, "X11_TCP_BASE", tcp.getsockname()[1] - 3)
    try:
        assert startup.display_reachable("127.0.0.1:3")
    finally:
        tcp.close()


def test_unreachable_display_exits_1_before_qt(monkeypatch, capsys):
    from gemmviz.cli import main
    from gemmviz.core import startup

    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setenv("DISPLAY", ":93")
    monkeypatch.setattr(startup, "display_reachable", lambda d: False)
    assert main([]) == 1
    assert "cannot reach the X display" in capsys.readouterr().err


def test_the_views_follow_the_workspace_without_being_told(make_window):
    """Workspace changes made past the File menu and the legends still reach every view (issue 22)."""
    from gemmviz.core.session.workspace import default_replay_session

    w = make_window()
    w.tabs.setCurrentWidget(w.roofline_tab)  # on screen: it redraws with each change (hidden: when next shown)
    loaded = w.workspace.open(default_replay_session())  # no files.open_session, no window.refresh
    assert w.charts_tab.table.model_.rowCount() == len(loaded.results)
    assert w.roofline_tab.chart.results
    series = loaded.results[0].series
    w.workspace.hidden ^= {series}
    assert series in w.charts_tab.time_chart.hidden_series and series in w.roofline_tab.chart.hidden_series
    w.workspace.select([loaded.results[0]])
    assert "at 256³" in w.roofline_tab.text()  # the explanation of the picked result
    w.workspace.close_all()
    assert w.charts_tab.table.model_.rowCount() == 0 and not w.roofline_tab.chart.results


def test_ctrl_p_during_a_lesson_restyles_the_banners_set_aside(make_window, request):
    """Started in projector mode, Ctrl+P during a lesson, then Esc: the banners (set aside with the tabs while
    the lesson is up) have the normal window's type, not the projector's they had before (issue 20)."""
    from gemmviz.core.lesson.lessons import shipped_lessons

    w = make_window(gpu=FakeGpuBackend(available=False))
    request.addfinalizer(lambda: w.set_projector(False))  # projector type sets the application's font
    label = w.device_label.label
    normal_px = label.fontInfo().pixelSize()
    w.set_projector(True)
    projector_px = label.fontInfo().pixelSize()
    assert projector_px > normal_px
    assert w.start_lesson(shipped_lessons()["seed000"])
    w.set_projector(False)
    w.leave_lesson()
    assert w.lesson_view is None and label.fontInfo().pixelSize() == normal_px
    w.set_projector(True)
    assert w.start_lesson(shipped_lessons()["seed000"])
    w.set_projector(False)
    w.set_projector(True)
    w.leave_lesson()
    assert label.fontInfo().pixelSize() == projector_px


def test_size_fields_are_typed_only_under_custom_and_refused_by_name(make_window):
    """A preset greys M, N and K out from the start (typing there did nothing before); under Custom a bad field
    is refused by its own name, not as the app's joined 'MxNxK' string."""
    w = make_window()
    panel = w.run_panel
    assert panel.size_preset.currentData() != CUSTOM
    assert not any(e.isEnabled() for e in (panel.m_edit, panel.n_edit, panel.k_edit))
    panel.size_preset.setCurrentText(CUSTOM)
    assert all(e.isEnabled() for e in (panel.m_edit, panel.n_edit, panel.k_edit))
    panel.m_edit.setText("0x10")
    with pytest.raises(ProblemError, match=r"^M must be a whole number, got '0x10'$"):
        panel.current_problem()
    panel.m_edit.setText("17")
    assert panel.current_problem().key == "17x1024x1024"
    panel.sweep_edit.setText(" , ")
    with pytest.raises(ProblemError, match="^give at least one size"):
        panel.sweep_problems()


def test_no_tab_asks_for_more_than_a_1280_screen_in_projector_mode(make_window, request):
    """At 1280×720 in projector type, visiting every tab (and every animated kernel) never widens the window
    beyond the screen: long combo items and source lines elide or wrap (the Accesses tab asked for 1,556 px)."""
    from PySide6.QtWidgets import QApplication

    w = make_window(gpu=FakeGpuBackend(available=False))
    w.resize(1280, 720)
    w.show()
    request.addfinalizer(lambda: w.set_projector(False))  # projector type sets the application's font
    w.set_projector(True)
    for i in range(w.tabs.count()):
        w.tabs.setCurrentIndex(i)
        QApplication.processEvents()  # the font change and the tab's restyle are delivered as events
        tab = w.tabs.widget(i)
        assert tab.minimumSizeHint().width() <= 1240, (w.tabs.tabText(i), tab.minimumSizeHint().width())
    combo = w.tiling.variant_combo
    for k in range(combo.count()):
        combo.setCurrentIndex(k)
        QApplication.processEvents()
        assert w.tiling.minimumSizeHint().width() <= 1240, (combo.itemText(k), w.tiling.minimumSizeHint().width())
    QApplication.processEvents()
    assert w.minimumSizeHint().width() <= 1280 and w.width() <= 1280, w.width()


def test_projector_start_fills_the_screen(make_window):
    """`gemmviz --projector` on a 1920×1080 screen opened a 1500×900 window where no window manager made
    full screen happen (issue 35): the window takes the whole screen itself."""
    from gemmviz.ui.app import fill_screen

    w = make_window()
    fill_screen(w)
    screen = w.screen().geometry()  # offscreen's is 800×800, narrower than the window can be
    assert w.isFullScreen() and w.geometry().topLeft() == screen.topLeft()
    assert w.size() == screen.size().expandedTo(w.minimumSizeHint())
    w.showNormal()


def test_the_first_run_shows_its_result_under_the_seed_kernels_preset(make_window, qtbot):
    """No GPU: the replay opens under "seed kernels", which hides the replay's cpu-blas. The first Run with the
    default controls (cpu-blas) must add its series to what is shown, not only "1 of 1 result(s) valid"."""
    w = make_window(gpu=FakeGpuBackend(available=False), replay=True)
    qtbot.waitUntil(lambda: bool(w.workspace.sessions), timeout=10000)
    qtbot.waitUntil(lambda: "cpu-blas" in w.workspace.hidden, timeout=10000)  # the first view's preset
    w.run_panel.size_preset.setCurrentText(CUSTOM)
    w.run_panel.m_edit.setText("32"), w.run_panel.n_edit.setText("32"), w.run_panel.k_edit.setText("32")
    choose(w, ["cpu-blas"])
    w.run_panel.repeats_spin.setValue(2)
    qtbot.mouseClick(w.run_panel.run_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, w)
    assert [r.variant for r in w.workspace.live] == ["cpu-blas"]
    assert "cpu-blas" not in w.workspace.hidden and w.workspace.live[0] in w.shown_results()
    assert any(name == "cpu-blas" for source, name in w.charts_tab.gflops_chart._items if source == "")
