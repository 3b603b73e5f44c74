"""The desktop app, offscreen, with the CPU backend and a slow fake GPU backend."""

import gc
import json
import threading
import time

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QElapsedTimer, QSettings, Qt, QThread, QTimer  # noqa: E402

from gemmviz.backends.cpu import CpuBackend  # noqa: E402
from gemmviz.ui.window import CUSTOM, MainWindow  # noqa: E402
from tests.fakes import FakeGpuBackend  # noqa: E402


@pytest.fixture
def make_window(qtbot, tmp_path):
    windows = []

    def make(gpu=None, **kw):
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        backends = {"cpu": CpuBackend(), "cuda": gpu or FakeGpuBackend()}
        w = MainWindow(backends=backends, settings=settings, load_recorded_without_gpu=kw.pop("replay", False), **kw)
        qtbot.addWidget(w)
        w.show()
        qtbot.waitUntil(lambda: bool(w.availability), timeout=10000)
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.close()
        assert w.worker is None  # closed: the worker thread was stopped and joined
    assert not [t for t in threading.enumerate() if t.name.startswith("gemmviz")]


def choose(w, variants, tiles=(16,)):
    w.set_selected_variants(variants)
    for t, box in w.tile_boxes.items():
        box.setChecked(t in tiles)


def wait_idle(qtbot, w, timeout=60000):
    qtbot.waitUntil(lambda: not w.running and not w.refresh_pending, timeout=timeout)


def test_window_opens_with_device_panel(make_window):
    w = make_window()
    assert w.windowTitle() == "gemmviz"
    assert "Fake GPU" in w.device_label.text()
    assert w.run_button.isEnabled()


def test_without_gpu_banner_and_gpu_variants_disabled(make_window):
    w = make_window(gpu=FakeGpuBackend(available=False))
    assert "No CUDA GPU:" in w.device_label.text() and "switched off" in w.device_label.text()
    names = w.selected_variants()
    assert names and all(n.startswith("cpu") for n in names)
    item = w.variant_list.item(2)
    assert not (item.flags() & Qt.ItemFlag.ItemIsEnabled) and "Unavailable" in item.toolTip()


def test_run_button_runs_the_engine_and_fills_table(make_window, qtbot):
    w = make_window()
    w.size_preset.setCurrentText(CUSTOM)
    w.m_edit.setText("17"), w.n_edit.setText("33"), w.k_edit.setText("65")
    choose(w, ["cpu-naive", "cpu-blas", "gpu-tiled"], tiles=(8, 32))
    w.repeats_spin.setValue(2)
    qtbot.mouseClick(w.run_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, w)
    assert [(r.variant, r.params, r.status) for r in w.live] == [
        ("cpu-naive", {}, "ok"), ("cpu-blas", {}, "ok"), ("gpu-tiled", {"tile": 8}, "ok"), ("gpu-tiled", {"tile": 32}, "ok"),
    ]  # fmt: skip
    assert all((r.m, r.n, r.k) == (17, 33, 65) and len(r.samples_ms) <= 2 for r in w.live)
    assert w.table.proxy.rowCount() == 4


def test_sweep_fills_charts_and_table(make_window, qtbot):
    w = make_window(gpu=FakeGpuBackend(delay_s=0.01))
    w.sweep_edit.setText("16,32,48")
    choose(w, ["cpu-naive", "gpu-naive", "gpu-tiled"])
    w.repeats_spin.setValue(2)
    w.run_sweep()
    wait_idle(qtbot, w)
    assert len(w.live) == 9 and all(r.valid for r in w.live)
    assert w.table.proxy.rowCount() == 9
    lines = [i for i in w.time_chart.getPlotItem().items if type(i).__name__ == "PlotDataItem"]
    assert len(lines) == 3  # one line per series
    bars = dict(w.speedup_chart.bars)
    assert set(bars) == {"cpu-naive", "gpu-naive (block 16)", "gpu-tiled (tile 16)"} and bars["cpu-naive"] == 1
    assert "vs CPU loop at 48³" in w.speedup_chart.getPlotItem().titleLabel.text


def test_cancel_keeps_partial_results(make_window, qtbot):
    w = make_window(gpu=FakeGpuBackend(delay_s=0.3))
    w.sweep_edit.setText("16,24,32,40,48,56")
    choose(w, ["gpu-naive"])
    w.run_sweep()
    qtbot.waitUntil(lambda: len(w.live) >= 1, timeout=10000)
    qtbot.mouseClick(w.cancel_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, w, timeout=5000)
    assert 1 <= len(w.live) < 6
    assert w.live[0].valid
    assert w.run_button.isEnabled() and "Cancelled" in w.statusBar().currentMessage()


def test_ui_thread_never_stalls_during_a_sweep(make_window, qtbot):
    w = make_window(gpu=FakeGpuBackend(delay_s=0.05))
    w.sweep_edit.setText("32,64,96,128,160,192")
    choose(w, ["cpu-blas", "gpu-naive", "gpu-tiled"], tiles=(8, 16, 32))
    w.repeats_spin.setValue(3)
    clock, gaps = QElapsedTimer(), []
    clock.start()
    last = [clock.elapsed()]

    def beat():
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.timeout.connect(beat)
    gc.collect()  # start from what a fresh app has, not the garbage of the tests before this one
    timer.start(10)
    w.run_sweep()
    wait_idle(qtbot, w)
    timer.stop()
    assert len(w.live) == 30 and len(gaps) > 20
    print(f"longest UI stall during the sweep: {max(gaps)} ms over {len(gaps)} beats")
    assert max(gaps) < 100, f"longest UI stall {max(gaps)} ms"


@pytest.mark.parametrize(
    "m, message",
    [("0", "at least 1"), ("-4", "at least 1"), ("abc", "whole number"), ("2.5", "whole number"), ("", "whole number")],
)
def test_bad_sizes_show_inline_message_and_disable_run(make_window, m, message):
    w = make_window()
    w.size_preset.setCurrentText(CUSTOM)
    w.m_edit.setText(m)
    assert message in w.message.text()
    assert not w.run_button.isEnabled()
    w.m_edit.setText("64")
    assert w.message.text() == "" and w.run_button.isEnabled()


def test_too_big_for_memory_and_bad_combinations_are_explained(make_window):
    w = make_window()
    w.size_preset.setCurrentText(CUSTOM)
    w.m_edit.setText("2000000"), w.n_edit.setText("2000000"), w.k_edit.setText("8")
    assert "memory" in w.message.text() and not w.run_button.isEnabled()
    w.size_preset.setCurrentText("256")
    choose(w, ["gpu-tiled"], tiles=())
    assert "tile size" in w.message.text() and not w.run_button.isEnabled()
    choose(w, [])
    assert "at least one" in w.message.text()
    w.sweep_edit.setText("64,x")
    choose(w, ["cpu-blas"])
    assert "Sweep" in w.message.text() and w.run_button.isEnabled() and not w.sweep_button.isEnabled()


def test_closing_mid_run_stops_the_worker_cleanly(make_window, qtbot):
    w = make_window(gpu=FakeGpuBackend(delay_s=0.5))
    w.sweep_edit.setText("16,24,32,40")
    choose(w, ["gpu-naive"])
    w.run_sweep()
    qtbot.waitUntil(lambda: w.running, timeout=2000)
    thread = w.worker.thread
    t0 = time.monotonic()
    w.close()
    assert thread.isFinished() and time.monotonic() - t0 < 5


def test_failed_job_shows_dialog_with_log_and_next_run_works(make_window, qtbot):
    w = make_window(gpu=FakeGpuBackend(delay_s=0.01, fail_m=13))
    w.size_preset.setCurrentText(CUSTOM)
    for e in (w.m_edit, w.n_edit, w.k_edit):
        e.setText("13")
    choose(w, ["gpu-tiled", "cpu-blas"])
    w.run_current()
    wait_idle(qtbot, w)
    assert [r.status for r in w.live] == ["ok", "failed"]  # registry order: cpu-blas first
    assert w.last_error is not None and "nvcc failed" in w.last_error.detailedText()
    assert "FAILED" in w.table.selection_text()
    w.last_error.close()
    w.m_edit.setText("14")
    w.run_current()
    wait_idle(qtbot, w)
    assert [r.status for r in w.live[2:]] == ["ok", "ok"]


def test_corrupt_session_is_refused_and_changes_nothing(make_window, tmp_path):
    w = make_window()
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "gemmviz.session", "schema_version": 1, "results": [{"nope": 1}]}')
    assert not w.open_session(bad)
    assert "Cannot open session" in w.last_error_text and not w.loaded


def test_save_and_open_session_round_trip(make_window, qtbot, tmp_path):
    w = make_window()
    choose(w, ["cpu-blas"])
    w.size_preset.setCurrentText("256")
    w.run_current()
    wait_idle(qtbot, w)
    path = tmp_path / "s.json"
    assert w.save_session(str(path))
    assert json.loads(path.read_text())["results"][0]["variant"] == "cpu-blas"
    assert not w.save_session(str(tmp_path / "no-such-dir" / "s.json"))
    assert "Cannot save session" in w.last_error_text
    assert w.open_session(path)
    assert len(w.shown_results()) == 2 and w.settings.value("recent", type=list)[0] == str(path)
    assert w.export_csv(str(tmp_path / "r.csv"))
    assert not w.export_csv(str(tmp_path / "no-such-dir" / "r.csv"))


def test_settings_are_remembered(make_window, tmp_path):
    w = make_window()
    w.size_preset.setCurrentText("2048")
    choose(w, ["cpu-naive", "gpu-tiled"], tiles=(8, 32))
    w.repeats_spin.setValue(7)
    w.close()
    w2 = make_window()
    assert w2.size_preset.currentText() == "2048"
    assert w2.selected_variants() == ["cpu-naive", "gpu-tiled"]
    assert [t for t, b in w2.tile_boxes.items() if b.isChecked()] == [8, 32]
    assert w2.repeats_spin.value() == 7


def test_no_qthread_left_running(make_window):
    w = make_window()
    thread = w.worker.thread
    w.close()
    assert isinstance(thread, QThread) and thread.isFinished()


def test_measuring_ceilings_runs_in_the_worker_and_failures_are_shown(make_window, qtbot, monkeypatch):
    import gemmviz.backends.ceilings as ceilings

    w = make_window()
    assert w.ceilings_button.isEnabled()  # the fake GPU is available
    calls = []

    def fake_measure():
        calls.append(threading.current_thread().name)
        raise RuntimeError("out of memory")

    monkeypatch.setattr(ceilings, "measure_ceilings", fake_measure)
    w.ceilings_button.click()
    qtbot.waitUntil(lambda: not w.running, timeout=5000)
    assert calls and calls[0] != threading.main_thread().name
    assert "Cannot measure the ceilings" in w.last_error_text and "out of memory" in w.last_error_text
    assert w.run_button.isEnabled()


def test_no_display_gives_a_clear_message(monkeypatch, capsys):
    from gemmviz.cli import main

    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    assert main([]) == 1
    assert "no display" in capsys.readouterr().err
