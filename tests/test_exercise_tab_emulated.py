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


def test_the_code_box_shows_14_lines_at_720p_and_scrolls_to_the_cited_line(qtbot, tmp_path):
    """Issue 43 item 4: the code box is tall enough at 1280×720 (it showed about 8 lines) and the cause's line is
    scrolled into view when the check arrives, and again when the verdicts, the cause or a finding is clicked."""
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtGui import QTextCursor
    from PySide6.QtWidgets import QApplication

    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.window import MainWindow

    w = MainWindow(
        backends={"cpu": CpuBackend()}, settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    )
    qtbot.addWidget(w)
    try:
        w.resize(1280, 720)
        w.show()
        qtbot.waitExposed(w)
        assert w.open_exercise_check(RECORD)
        QApplication.processEvents()
        code = w.exercise_tab.source_view
        assert code.viewport().height() >= 14 * code.fontMetrics().lineSpacing()
        assert code.highlighted == [23] and code.line_visible(23)  # on arrival

        def hide_it():
            code.verticalScrollBar().setValue(0)
            QApplication.processEvents()
            assert not code.line_visible(23)  # a 24-line kernel: line 23 is below the first 14

        for label in (w.exercise_tab.cause, w.exercise_tab.verdict_label):
            hide_it()
            qtbot.mouseClick(label, Qt.MouseButton.LeftButton)
            assert code.shown_line == 23 and code.line_visible(23)
        # a click in the emulator's finding (its text and its source line under it) shows the finding's line
        tab = w.exercise_tab
        i = next(i for i, line in enumerate(tab.finding_sources) if line == 23)
        block = sum(text.count("\n") + 1 for text in tab.finding_lines[:i]) + 1  # the finding's second block
        hide_it()
        at = tab.findings.cursorRect(QTextCursor(tab.findings.document().findBlockByNumber(block))).center()
        qtbot.mouseClick(tab.findings.viewport(), Qt.MouseButton.LeftButton, pos=at)
        assert tab.findings.textCursor().blockNumber() == block and code.line_visible(23)
    finally:
        w.close()


def test_printf_output_is_grouped_by_the_size_that_printed_it(qtbot, tmp_path):
    """Issue 43 item 4: each size's printf lines under "at M×N×K (n line(s)):". The record keeps which size
    printed what (emulator.printf.shapes); the groups here follow from the kernel: block (0, 0)'s first thread
    prints one line per K tile (TILE 16), so ceil(K / 16) lines at each size, "tile 0" first."""
    import json
    import math
    import shutil

    from gemmviz.core.exercise.report import report_text

    record = json.loads(RECORD.read_text())
    printf = record["emulator"]["printf"]
    groups = [{"shape": s["shape"], "calls": math.ceil(s["shape"][2] / 16)} for s in record["shapes"]]
    assert sum(g["calls"] for g in groups) == printf["calls"] == len(printf["lines"])
    printf["shapes"] = [{**g, "lines": g["calls"]} for g in groups]
    shutil.copy(DATA / "tiled_printf.cu", tmp_path / "tiled_printf.cu")
    record["file"] = str(tmp_path / "tiled_printf.cu")
    path = tmp_path / "tiled_printf.check.json"
    path.write_text(json.dumps(record))

    tab = _tab(qtbot, "en")
    try:
        assert tab.open_check(path)
        shown = tab.printf_view.toPlainText().splitlines()
        heads = [i for i, line in enumerate(shown) if line.startswith("at ")]
        assert [shown[i] for i in heads] == [
            f"at {'×'.join(map(str, g['shape']))} ({g['calls']} line(s)):" for g in groups
        ]
        for i, g in zip(heads, groups):  # each size's own lines under its label, from tile 0
            assert [line.split(":")[0] for line in shown[i + 1 : i + 1 + g["calls"]]] == [
                f"tile {t}" for t in range(g["calls"])
            ]
        assert "at 33×17×65 (5 line(s)):" in report_text(record)  # the CLI's report groups them the same way
    finally:
        tab.shutdown()


def test_before_a_check_the_column_says_what_will_appear_and_shows_no_empty_boxes(qtbot):
    """At 1280×720 the column showed four empty lines and an empty code box over the fold before any check; now
    one sentence says what will appear, and the check's boxes come with the check."""
    from gemmviz.ui.exercise.tab import ExerciseTab

    tab = ExerciseTab("en")
    qtbot.addWidget(tab)
    boxes = (tab.source_view, tab.findings, tab.error_map, tab.printf_view, tab.verdict_label, tab.cause)
    assert tab.no_check.isVisibleTo(tab) and "Check now" in tab.no_check.text()
    assert not any(w.isVisibleTo(tab) for w in (*boxes, tab.progress, tab.record_label))
    tab.start_check()  # no kernel open: the refusal is said, in the line that was hidden while empty
    assert tab.progress.isVisibleTo(tab) and "Open your kernel first" in tab.progress.text()
    assert tab.open_check(RECORD)
    assert not tab.no_check.isVisibleTo(tab) and not tab.progress.isVisibleTo(tab)  # the earlier message is gone
    assert all(w.isVisibleTo(tab) for w in boxes) and tab.record_label.isVisibleTo(tab)
