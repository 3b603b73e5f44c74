"""Closing the window: mid-run it cancels, waits at most 2 s and exits cleanly even when the worker is stuck in
a long native call; unsaved live results are saved, discarded or kept (Cancel) as asked; a recovery file of
live results is offered at the next start."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.session.results import Session
from gemmviz.ui.recovery import recovery_path
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend

STUCK_APP = textwrap.dedent("""
    import sys, tempfile, threading, time
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication
    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.run.controller import leave
    from gemmviz.ui.window import MainWindow
    from tests.fakes import FakeGpuBackend, _FakeRun

    inside = threading.Event()  # set by the worker once it is in the stuck job

    class Stuck(_FakeRun):
        def run(self, job, variant, inputs, settings, cancel):
            inside.set()
            for _ in range(300):  # 30 s in chunks that never look at the cancel flag (a long native call)
                time.sleep(0.1)
            raise AssertionError("not reached")

    class StuckGpu(FakeGpuBackend):
        def open(self):
            return Stuck(self)

    app = QApplication(sys.argv[:1])
    settings = QSettings(tempfile.mktemp(suffix=".ini"), QSettings.Format.IniFormat)
    w = MainWindow({"cpu": CpuBackend(), "cuda": StuckGpu()}, settings=settings, load_recorded_without_gpu=False)
    w.show()
    closing = []

    # Conditions, not times: run once the worker has probed and warmed up (numba's compile can take seconds
    # on a loaded machine), close once the worker is inside the stuck job.
    def step():
        if not w.controller.warm:
            return
        if not w.running and not closing and not inside.is_set():
            w.run_panel.set_selected_variants(["gpu-naive"])
            w.run_panel.size_preset.setCurrentText("256")
            w.run_current()
        elif inside.is_set() and not closing:
            poll.stop()
            closing.append(time.monotonic())
            w.close()

    poll = QTimer()
    poll.timeout.connect(step)
    poll.start(20)
    code = app.exec()
    print(f"closed after {time.monotonic() - closing[0]:.2f} s, running={w.controller.worker_thread.isRunning()}", flush=True)
    sys.exit(leave(code))
""")


def test_closing_with_a_stuck_worker_exits_cleanly_within_about_2_s(tmp_path):
    env_code = "import os; os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
    proc = subprocess.run(
        [sys.executable, "-c", env_code + STUCK_APP],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(Path(__file__).parent.parent),
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "GEMMVIZ_CONFIG_DIR": str(tmp_path / "gemmviz")},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "QThread: Destroyed" not in proc.stderr
    assert "running=True" in proc.stdout  # it really was stuck: the process left without waiting for it
    closed_after = float(proc.stdout.split("closed after ")[1].split(" s")[0])
    assert closed_after < 6  # about 2 s of waiting for the worker; the rest is slack for a loaded machine


@pytest.fixture
def window(qtbot, tmp_path):
    made = []

    def make():
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        w = MainWindow(
            {"cpu": CpuBackend(), "cuda": FakeGpuBackend(delay_s=0.01)},
            settings=settings,
            load_recorded_without_gpu=False,
        )
        w.recovery.ask = True  # as in the app (not qtbot.addWidget: its close would come before ours, and ask)
        w.show()
        qtbot.waitUntil(lambda: bool(w.workspace.environment), timeout=10000)
        made.append(w)
        return w

    yield make
    for w in made:
        w.recovery.ask = False
        w.close()


def run_some(qtbot, w):
    w.run_panel.set_selected_variants(["cpu-naive", "gpu-naive"])
    w.run_panel.size_preset.setCurrentText("256")
    w.run_panel.repeats_spin.setValue(2)
    w.run_current()
    qtbot.waitUntil(lambda: not w.running and len(w.workspace.live) == 2, timeout=30000)


def test_recovery_file_follows_the_live_results(window, qtbot):
    w = window()
    assert not w.recovery.path.exists()
    run_some(qtbot, w)
    assert [r.variant for r in Session.load(w.recovery.path).results] == ["cpu-naive", "gpu-naive"]


@pytest.mark.parametrize("answer", ["save", "discard", "cancel"])
def test_unsaved_results_ask_save_discard_cancel(window, qtbot, tmp_path, monkeypatch, answer):
    w = window()
    run_some(qtbot, w)
    asked = []
    button = {
        "save": QMessageBox.StandardButton.Save,
        "discard": QMessageBox.StandardButton.Discard,
        "cancel": QMessageBox.StandardButton.Cancel,
    }[answer]
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or button)
    target = tmp_path / "kept.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    closed = w.close()
    assert asked and "2 live results not saved" in asked[0]
    if answer == "save":
        assert closed and len(Session.load(target).results) == 2 and not w.recovery.path.exists()
    elif answer == "discard":
        assert closed and not target.exists() and not w.recovery.path.exists()
    else:
        assert not closed and w.isVisible() and w.recovery.path.exists() and not target.exists()
    asked.clear()
    w.close()
    assert closed or asked  # still unsaved after Cancel: asked again


def test_saved_results_close_without_asking(window, qtbot, tmp_path, monkeypatch):
    w = window()
    run_some(qtbot, w)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "s.json"), ""))
    assert w.save_action.isEnabled()
    w.save_action.trigger()
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: pytest.fail("asked although saved"))
    assert w.close()


def test_recovery_is_offered_and_restored_at_the_next_start(window, qtbot, monkeypatch):
    w = window()
    run_some(qtbot, w)
    assert w.recovery.path.exists()  # a crash now would leave it: the window never closed cleanly
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Yes)
    # a second window while the first is open: its unsaved results are not a crash's, and stay its own (two
    # windows shared one file: the second offered them, wrote over them and deleted them as it closed)
    other = window()
    assert other.recovery.offer() == 0 and not asked and w.recovery.path.exists()
    run_some(qtbot, other)
    assert other.recovery.path != w.recovery.path and len(Session.load(w.recovery.path).results) == 2
    other.recovery.ask = False
    other.close()
    assert w.recovery.path.exists() and not other.recovery.path.exists()
    w.recovery.release()  # the first window's process ends unexpectedly: its lock goes with it
    w2 = window()
    assert w2.recovery.offer() == 2
    assert "Restore 2 results from the last session that ended unexpectedly?" in asked[0]
    assert [r.variant for r in w2.workspace.live] == ["cpu-naive", "gpu-naive"]
    assert w2.recovery.unsaved  # restored results still need saving
    assert not w.recovery.path.exists() and w2.recovery.path.exists()  # now in the restoring window's own file


def test_broken_recovery_is_set_aside_not_deleted(window, qtbot, monkeypatch):
    recovery_path().parent.mkdir(parents=True, exist_ok=True)
    recovery_path().write_text('{"results": [1, 2]}')
    w = window()
    assert w.recovery.offer() == 0 and not recovery_path().exists() and "could not be read" in w.recovery.last_error
    (aside,) = recovery_path().parent.glob("recovery-unreadable-*.json")
    assert aside.read_text() == '{"results": [1, 2]}' and str(aside) in w.recovery.last_error
