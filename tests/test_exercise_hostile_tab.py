"""The Exercise tab given a malformed check record: refused in one line naming the file and the field, and the
check it showed before stays as it was (tests/test_exercise_hostile.py has the records)."""

import copy
import json

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from tests.checks.hostile_records import DATA, GOOD, HOSTILE


@pytest.mark.parametrize(("edit", "words"), HOSTILE[:6])
def test_the_tab_refuses_it_in_one_line_and_keeps_the_check_it_showed(qtbot, tmp_path, monkeypatch, edit, words):
    import gemmviz.ui.exercise.tab as module

    tab = module.ExerciseTab()
    qtbot.addWidget(tab)
    try:
        assert tab.open_check(DATA / "records" / "tiled_nosync.check.json")
        before = (tab.verdict_label.text(), tab.cause.text(), tab.picker.currentData())
        shown = []
        monkeypatch.setattr(module, "warn", lambda *a: shown.append(a[2]))
        record = copy.deepcopy(GOOD)
        edit(record)
        bad = tmp_path / "x.check.json"
        bad.write_text(json.dumps(record), encoding="utf-8")
        assert not tab.open_check(bad)
        assert len(shown) == 1 and words in shown[0] and "\n" not in shown[0] and str(bad) in shown[0]
        assert (tab.verdict_label.text(), tab.cause.text(), tab.picker.currentData()) == before
    finally:
        tab.shutdown()
