"""The Exercise tab checks once per change of the .cu (issue 32, item 4): a save that changes the content
gives exactly one check; the record the check writes, an editor's temporary files and an opened record give
none. A shown record names its file, stale messages go, the exercise follows the kernel's name, the hint
button stays put, the wheel over an unfocused combo changes nothing, the timing bars stay legible. A fake
checker stands in for the GPU: every wait is on a condition, never on a timer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

DATA = Path(__file__).parent / "data" / "exercises"


@pytest.fixture
def fake_checks(monkeypatch):
    """check_exercise replaced by one that returns a recorded check of the file it was given, and counts."""
    import gemmviz.backends.exercise as backend

    calls: list[str] = []

    def fake(path, exercise, options=None, progress=None):
        calls.append(f"{Path(path).name}:{exercise.name}")
        record = json.loads((DATA / "records" / f"{exercise.name}_good.check.json").read_text(encoding="utf-8"))
        record["file"] = str(Path(path).resolve())
        return record

    monkeypatch.setattr(backend, "check_exercise", fake)
    return calls


@pytest.fixture
def tab(qtbot):
    from gemmviz.ui.exercise.tab import ExerciseTab

    widget = ExerciseTab()
    qtbot.addWidget(widget)
    yield widget
    widget.shutdown()


def _kernel(tmp_path: Path, name: str = "tiled.cu", source: str = "tiled_good.cu") -> Path:
    path = tmp_path / name
    shutil.copy(DATA / source, path)
    return path


def test_one_save_gives_exactly_one_check(tab, qtbot, tmp_path, fake_checks):
    path = _kernel(tmp_path)
    tab.set_file(path)
    path.write_text(path.read_text(encoding="utf-8") + "\n// saved once\n", encoding="utf-8")
    qtbot.waitUntil(lambda: tab.checks_started == 1 and tab.worker is None, timeout=20_000)
    record = tmp_path / "tiled.check.json"
    assert record.is_file()  # written beside the .cu, in the folder the tab watches
    # the record's own write reached the tab as a folder event, and started nothing
    qtbot.waitUntil(lambda: tab.saves_unchanged >= 1, timeout=20_000)
    seen = tab.saves_unchanged
    # an editor's swap file and backup, and a touch of the kernel: still no check
    (tmp_path / ".tiled.cu.swp").write_text("swap", encoding="utf-8")
    (tmp_path / "tiled.cu~").write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    path.touch()
    qtbot.waitUntil(lambda: tab.saves_unchanged > seen, timeout=20_000)
    assert fake_checks == ["tiled.cu:tiled"] and tab.checks_started == 1
    # the next change of the content: one more
    path.write_text(path.read_text(encoding="utf-8") + "// twice\n", encoding="utf-8")
    qtbot.waitUntil(lambda: tab.checks_started == 2 and tab.worker is None, timeout=20_000)
    assert fake_checks == ["tiled.cu:tiled"] * 2


def test_a_save_that_replaces_the_file_with_the_same_content_starts_nothing(tab, qtbot, tmp_path, fake_checks):
    path = _kernel(tmp_path)
    tab.set_file(path)
    new = tmp_path / ".tiled.cu.new"
    new.write_bytes(path.read_bytes())
    new.replace(path)  # an editor that saves by renaming a new file over the old one
    qtbot.waitUntil(lambda: tab.saves_unchanged >= 1, timeout=20_000)
    assert fake_checks == [] and tab.checks_started == 0


def test_opening_a_record_starts_no_check_and_names_its_file(tab, qtbot, tmp_path, fake_checks):
    path = _kernel(tmp_path, "naive.cu", "naive_good.cu")
    tab.set_file(path)
    assert tab.exercise.name == "naive"
    tab._failed("an old error")  # a message left from an earlier check
    opened = tmp_path / "copy.check.json"
    shutil.copy(DATA / "records" / "tiled_good.check.json", opened)  # written into the watched folder
    assert tab.open_check(opened)
    qtbot.waitUntil(lambda: tab.saves_unchanged >= 1, timeout=20_000)
    assert fake_checks == [] and tab.checks_started == 0
    recorded = json.loads(opened.read_text(encoding="utf-8"))["file"]
    assert recorded in tab.record_label.text() and "naive.cu" not in tab.record_label.text()
    assert tab.progress.text() == ""  # the stale error is gone
    # the next save of naive.cu is checked as naive (its kernel), not as the tiled record shown
    path.write_text(path.read_text(encoding="utf-8") + "// edited\n", encoding="utf-8")
    qtbot.waitUntil(lambda: tab.checks_started == 1 and tab.worker is None, timeout=20_000)
    assert fake_checks == ["naive.cu:naive"]
    assert "naive.cu" in tab.record_label.text()


def test_the_exercise_is_picked_by_the_kernels_name_not_the_files(tab, tmp_path):
    tab.set_file(_kernel(tmp_path, "naive.cu", "tiled_good.cu"))  # a tiled kernel saved as naive.cu
    assert tab.exercise.name == "tiled"
    tab.set_file(_kernel(tmp_path, "mine.cu", "naive_good.cu"))
    assert tab.exercise.name == "naive"
    other = tmp_path / "regtile.cu"
    other.write_text("// gemm_tiled( in a comment is no kernel\n", encoding="utf-8")
    tab.set_file(other)  # defines none yet: the starter's file name decides
    assert tab.exercise.name == "regtile"


def test_the_hint_button_stays_in_place(tab, qtbot):
    tab.resize(1280, 720)
    tab.show()
    qtbot.waitExposed(tab)
    where = tab.hint_button.mapTo(tab, QPoint(0, 0)), tab.hint_button.size()
    for _ in range(len(tab.exercise.hints)):
        tab.hint_button.click()
        QApplication.processEvents()
        assert (tab.hint_button.mapTo(tab, QPoint(0, 0)), tab.hint_button.size()) == where
    assert tab.hints.toPlainText().count("\n") == len(tab.exercise.hints) - 1


@pytest.mark.parametrize("combo", ["picker", "access_kind"])
def test_the_wheel_over_an_unfocused_combo_changes_nothing(tab, qtbot, combo):
    tab.open_check(DATA / "records" / "tiled_conflicts.check.json")  # the access combo shows
    tab.resize(1280, 720)
    tab.show()
    qtbot.waitExposed(tab)
    box = getattr(tab, combo)
    assert box.count() > 1 and not box.hasFocus()
    before = box.currentIndex()
    for delta in (-120, 120, -120):
        event = QWheelEvent(
            QPointF(5, 5),
            QPointF(box.mapToGlobal(QPoint(5, 5))),
            QPoint(0, 0),
            QPoint(0, delta),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(box, event)
        assert not event.isAccepted()  # left to the column around it, which scrolls
    assert box.currentIndex() == before


def _window(qtbot, tmp_path, size):
    from PySide6.QtCore import QSettings

    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.window import MainWindow

    w = MainWindow(
        backends={"cpu": CpuBackend()}, settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    )
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.mark.parametrize("projector", [False, True])
def test_the_timing_bars_stay_legible(qtbot, tmp_path, projector):
    size = (1280, 720) if projector else (1500, 900)  # the default window (fit_screen(1500, 900))
    w = _window(qtbot, tmp_path, size)
    try:
        if projector:
            w.set_projector(True)
        assert w.open_exercise_check(DATA / "records" / "tiled_conflicts.check.json")
        QApplication.processEvents()
        bars = w.exercise_tab.bars
        assert len(bars.rows) == 3 and bars.isVisibleTo(w)
        spans = bars.bar_spans()
        peak = max(v for _n, v, _t in bars.rows)
        assert max(spans) >= 0.9 * bars.width() >= 150  # the fastest spans the column
        for (_n, value, _t), span in zip(bars.rows, spans, strict=True):
            assert span == pytest.approx(max(2.0, (bars.width() - 2) * value / peak))
        assert min(spans) >= 8  # yours (the slowest) is still a bar, not a pixel
        line = bars.fontMetrics()
        for name, _v, text in bars.rows:  # each row's words fit on their line
            assert line.horizontalAdvance(f"{name}: {text}") <= bars.width()
        assert bars.height() >= bars.row_height() * 3 - 1
        tab = w.exercise_tab
        assert tab.minimumSizeHint().width() <= w.width()
    finally:
        w.set_projector(False)  # projector type sets the application's font: left at 20 pt, every later window
        w.close()  # in this worker would start in projector type (the Tiling tab 1,161 px wide, not 766)


def test_the_task_reflows_english_with_spaces_and_chinese_without():
    from gemmviz.ui.exercise.tab import reflow

    assert reflow("one\ntwo\n\n写入，\n一个 warp\nlast") == "one two\n\n写入，一个 warp last"
