"""The Exercise tab showing a check the CPU emulator made (no GPU): the verdict per goal and the cause in the
window's language (from the record's message keys), the student's code with the cited lines highlighted, the
emulator's findings at their source lines, and the kernel's printf output, bounded; in English and Chinese.

The record was made by the CLI on a machine without a GPU:
    cd tests/data/exercise_tab && gemmviz exercise check tiled_printf.cu --seed 1
(the off-by-one guard of tests/data/exercises/tiled_offbyone.cu, plus a printf of block (0, 0)'s first thread)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "exercise_tab"
RECORD = DATA / "tiled_printf.check.json"
HAN = re.compile("[\u4e00-\u9fff]")


@pytest.fixture
def zh(qapp):
    from gemmviz.ui import i18n

    assert i18n.install(qapp, "zh")
    yield
    i18n.install(qapp, "en")  # the other tests' window is English


def _tab(qtbot, lang):
    from gemmviz.ui.exercise.tab import ExerciseTab

    tab = ExerciseTab(lang)
    qtbot.addWidget(tab)
    assert tab.open_check(RECORD)
    return tab


def _shown(tab):
    return tab.verdict_label.text(), tab.cause.text(), tab.findings.toPlainText()


def test_an_emulated_check_shows_findings_cited_lines_and_printf_in_english(qtbot):
    tab = _tab(qtbot, "en")
    try:
        verdicts, cause, findings = _shown(tab)
        assert "✗ memory-safe" in verdicts and "✗ correct" in verdicts and "✓ race-free" in verdicts
        assert "emulated on the CPU" in verdicts
        assert "write row &lt; M &amp;&amp; col &lt; N" in verdicts or "write row < M && col < N" in cause
        # the emulator's finding, with the student's own line under it
        finding = next(line for line in tab.finding_lines if "line 23" in line and "C" in line)
        assert "if (row <= M && col <= N) C[row * N + col] = sum;" in finding and finding in findings
        # the code beside it: line 23 highlighted, and only the cited lines
        assert tab.source_view.isVisibleTo(tab) and tab.source_view.highlighted == [23]
        code = tab.source_view.toPlainText().splitlines()
        assert code[22].endswith("if (row <= M && col <= N) C[row * N + col] = sum;") and code[22].startswith("23")
        assert len(tab.source_view.extraSelections()) == 1
        # the kernel's printf output: bounded to the first 20 of the 23 calls, counted in full
        printed = tab.printf_view.toPlainText().splitlines()
        assert tab.printf_view.isVisibleTo(tab) and len(printed) == 20
        assert printed[0] == "tile 0: A[0][0] = 1.729104"
        assert "23 line(s) printed" in tab.printf_title.text() and "first 20" in tab.printf_title.text()
    finally:
        tab.shutdown()


def test_an_emulated_check_shows_the_same_in_chinese(qtbot, zh):
    tab = _tab(qtbot, "zh")
    try:
        verdicts, cause, findings = _shown(tab)
        assert HAN.search(verdicts) and HAN.search(cause) and "row < M && col < N" in cause  # the fix, in Chinese
        assert "✗" in verdicts and "✓" in verdicts
        assert "if (row <= M && col <= N) C[row * N + col] = sum;" in findings
        assert any(HAN.search(line) and "23" in line for line in tab.finding_lines)
        assert "memory-safe" not in verdicts and "emulated on the CPU" not in verdicts  # no English left over
        assert tab.source_view.highlighted == [23] and HAN.search(tab.source_title.text())
        assert HAN.search(tab.printf_title.text()) and len(tab.printf_view.toPlainText().splitlines()) == 20
    finally:
        tab.shutdown()


def test_a_gpu_record_without_printf_or_emulator_hides_their_boxes(qtbot):
    tab = _tab(qtbot, "en")
    try:
        assert tab.open_check(Path(__file__).parent / "data" / "exercises" / "records" / "tiled_nosync.check.json")
        assert not tab.printf_view.isVisibleTo(tab) and tab.printf_view.toPlainText() == ""
        assert tab.source_view.highlighted == [14, 17]  # the two lines the racecheck cause cites
        assert not any("emulated" in line for line in tab.finding_lines)
    finally:
        tab.shutdown()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_column_needs_no_sideways_scroll_at_720p_projector(qtbot, qapp, tmp_path, lang):
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui import i18n
    from gemmviz.ui.window import MainWindow

    assert i18n.install(qapp, lang)
    w = MainWindow(
        backends={"cpu": CpuBackend()}, settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    )
    qtbot.addWidget(w)
    try:
        w.resize(1280, 720)
        w.show()
        qtbot.waitExposed(w)
        w.set_projector(True)
        w.resize(1280, 720)
        assert w.open_exercise_check(RECORD)
        QApplication.processEvents()
        tab = w.exercise_tab
        content = tab.source_view.parentWidget()
        area = content.parentWidget().parentWidget()
        # every text of the column wraps within it: nothing is cut at its right edge or needs a sideways scroll
        assert content.minimumSizeHint().width() <= area.viewport().width()
        assert not area.horizontalScrollBar().isVisible()
    finally:
        w.set_projector(False)
        w.close()
        i18n.install(qapp, "en")
