"""The Exercise tab without a GPU: recorded checks shown (verdicts, cause, wrong regions, findings at their
source lines, timing bars), the starter written without overwriting work, a re-check on save, a real check in
the worker that compiles and says what needs a GPU, cancel, and the layout at 1280×720."""

from __future__ import annotations

import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

from gemmviz.core.exercise.record import load_check

DATA = Path(__file__).parent / "data" / "exercises"
NVCC = shutil.which("nvcc") or (Path("/usr/local/cuda/bin/nvcc") if Path("/usr/local/cuda/bin/nvcc").exists() else None)


@pytest.fixture
def tab(qtbot):
    from gemmviz.ui.exercise.tab import ExerciseTab

    widget = ExerciseTab()
    qtbot.addWidget(widget)
    yield widget
    widget.shutdown()


def test_a_recorded_failing_check_shows_verdicts_cause_map_and_lines(tab):
    tab.open_check(DATA / "records" / "tiled_nosync.check.json")
    text = tab.verdict_label.text()
    assert "✗ race-free" in text and "✓ compiles" in text
    assert "write-after-read" in tab.cause.text() and "barrier is missing" in tab.cause.text()
    items = tab.finding_lines
    assert items[0] in tab.findings.toPlainText()
    race = next(i for i in items if i.startswith("racecheck"))
    assert "line 17" in race and "tile_A[threadIdx.y][k]" in race  # the student's own source line
    assert tab.error_map.error_map and any(any(r) for r in tab.error_map.error_map["wrong"])
    assert "1020×1020×1020" in tab.error_map.caption


def test_a_recorded_slow_check_shows_timing_bars(tab):
    tab.open_check(DATA / "records" / "tiled_conflicts.check.json")
    names = [name for name, _v, _t in tab.bars.rows]
    assert names == ["yours", "gpu-tiled", "cuBLAS"]
    assert tab.bars.rows[0][1] < tab.bars.rows[1][1] < tab.bars.rows[2][1]
    assert "bank-conflicted" in tab.cause.text()


def test_a_hostile_check_file_gets_a_message_and_the_tab_keeps_working(tab, tmp_path, monkeypatch):
    import gemmviz.ui.exercise.tab as module

    shown = []
    monkeypatch.setattr(module, "warn", lambda *a: shown.append(a[2]))
    bad = tmp_path / "x.check.json"
    bad.write_text(
        '{"format": "gemmviz-exercise-check", "version": 1, "exercise": "t", "file": "f", "created": "2026-03-01", '
        '"shapes": [{"shape": [1e9, 1, 1], "status": "ok"}]}',
        encoding="utf-8",
    )
    assert not tab.open_check(bad)
    assert shown and "check.shapes[0].shape[0]" in shown[0]
    assert tab.open_check(DATA / "records" / "tiled_good.check.json")
    assert tab.cause.text() == "Every goal passed."


def test_the_starter_is_written_once_and_never_over_the_students_work(tab, tmp_path):
    tab.picker.setCurrentIndex(tab.picker.findData("tiled"))
    path = tab.write_starter(tmp_path)
    assert path.read_text(encoding="utf-8") == tab.exercise.starter_text()
    path.write_text("// my work", encoding="utf-8")
    assert tab.write_starter(tmp_path) == path
    assert path.read_text(encoding="utf-8") == "// my work"


def test_hints_unlock_one_at_a_time(tab):
    n = len(tab.exercise.hints)
    assert tab.hints.toPlainText() == "" and not tab.hints.isVisibleTo(tab)
    tab.hint_button.click()
    assert tab.hints.toPlainText().startswith("1. ") and "2. " not in tab.hints.toPlainText()
    for _ in range(n):
        tab.hint_button.click()
    assert not tab.hint_button.isEnabled() and f"{n}. " in tab.hints.toPlainText()


def test_saving_the_file_starts_a_check(tab, qtbot, tmp_path, monkeypatch):
    started = []
    monkeypatch.setattr(tab, "start_check", lambda: started.append(time.monotonic()))
    path = tmp_path / "tiled.cu"
    shutil.copy(DATA / "tiled_good.cu", path)
    tab.set_file(path)
    assert tab.exercise.name == "tiled"
    path.write_text(path.read_text(encoding="utf-8") + "\n// saved\n", encoding="utf-8")
    qtbot.waitUntil(lambda: bool(started), timeout=10_000)
    # an editor that saves by writing a new file and renaming it over the old one
    started.clear()
    new = tmp_path / ".tiled.cu.swp"
    new.write_text(path.read_text(encoding="utf-8") + "// again\n", encoding="utf-8")
    new.replace(path)
    qtbot.waitUntil(lambda: bool(started), timeout=10_000)


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_a_check_in_the_worker_compiles_and_says_what_needs_a_gpu(tab, qtbot, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pycuda", None)
    path = tmp_path / "tiled.cu"
    shutil.copy(DATA / "tiled_good.cu", path)
    tab.auto.setChecked(False)
    tab.set_file(path)
    tab.start_check()
    assert tab.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: tab.worker is None, timeout=120_000)
    text = tab.verdict_label.text()  # no GPU: the CPU emulator answers correct, memory-safe, race-free
    assert "✓ compiles" in text and "✓ correct" in text and "emulated on the CPU" in text and "– speed" in text
    # the heading says what ran, not what is missing (issue 43)
    assert "CPU emulator judges passed (ran on: CPU emulator, nvcc sm_90)" in tab.cause.text()
    assert load_check(tmp_path / "tiled.check.json")["no_gpu"]
    assert any("recorded" in name for name, _v, _t in tab.bars.rows)  # the reference's recorded figures


def test_cancel_ends_a_running_check_quickly(tab, qtbot, tmp_path, monkeypatch):
    import gemmviz.backends.exercise as ex

    def slow_probe(folder, cancel):
        ex.run_child([sys.executable, "-c", "import time; time.sleep(60)"], 60, cancel)
        return None, "never"

    monkeypatch.setattr(ex, "gpu_arch", slow_probe)
    path = tmp_path / "tiled.cu"
    shutil.copy(DATA / "tiled_good.cu", path)
    tab.set_file(path)
    tab.start_check()
    qtbot.waitUntil(lambda: "looking for a GPU" in tab.progress.text(), timeout=10_000)
    asked = time.monotonic()
    tab.cancel_button.click()
    qtbot.waitUntil(lambda: tab.worker is None, timeout=10_000)
    assert time.monotonic() - asked < 1.5
    assert tab.progress.text() == "Check cancelled."
    assert threading.active_count() < 50


def test_the_tab_fits_1280x720(tab, qtbot):
    tab.resize(1280, 640)
    tab.open_check(DATA / "records" / "tiled_or.check.json")
    tab.show()
    qtbot.waitExposed(tab)
    assert tab.minimumSizeHint().width() <= 1280 and tab.minimumSizeHint().height() <= 640
    tab.close()


def test_file_open_of_a_check_shows_it_in_the_windows_exercise_tab(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.window import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(backends={"cpu": CpuBackend()}, settings=settings)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    before = len(w.workspace.results) if hasattr(w.workspace, "results") else None
    assert w.files.open_session(DATA / "records" / "tiled_or.check.json")
    assert w.tabs.currentWidget() is w.exercise_tab
    assert "||" in w.exercise_tab.cause.text()
    if before is not None:
        assert len(w.workspace.results) == before  # a check is not a session: nothing added to the charts
    w.close()


def test_warnings_show_markup_as_text(tab, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    from gemmviz.ui.exercise.tab import warn

    warn(tab, "t", "<img src='file:///etc/passwd'><b>x</b>")
    box = next(b for b in tab.findChildren(QMessageBox))
    assert box.textFormat() == Qt.TextFormat.PlainText
    box.close()


def test_recorded_accesses_are_drawn_beside_the_references(tab):
    tab.open_check(DATA / "records" / "tiled_conflicts.check.json")
    assert tab.access_canvas.isVisibleTo(tab)
    tab.access_kind.setCurrentIndex(tab.access_kind.findData("banks"))
    from gemmviz.core.hardware import accesses as acc

    yours, theirs = tab.access_canvas.panels
    assert yours.title == "yours" and theirs.title.startswith("gpu-tiled")
    degree = [acc.request_banks(p.trace, p.index)["wavefronts"] for p in (yours, theirs)]
    assert degree[0] > 2 * degree[1]  # the transposed tile's loads conflict; the reference's do not
    tab.open_check(DATA / "records" / "tiled_or.check.json")  # a wrong kernel: no accesses recorded
    assert not tab.access_canvas.isVisibleTo(tab)
