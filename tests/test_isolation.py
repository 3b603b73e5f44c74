"""The guard in conftest.py (_no_leaked_qt) that keeps a test's process-wide Qt state from reaching the next test
in its worker: a test that leaves the application's font size or style sheet changed fails, naming what changed,
and the next test starts as it would alone. Found as an order-dependent failure: a window left in projector type
kept the application font at 20 pt, and every window made later in that worker was laid out in projector type
(test_projector_window's Tiling tab 1,161 px wide instead of 766)."""

import pytest

pytest.importorskip("PySide6")

from tests.conftest import _app_look, _put_back_look, _system_look


def test_a_changed_font_size_is_named_and_put_back(qapp):
    look = _app_look(qapp)
    font = qapp.font()
    font.setPointSize(20)  # what MainWindow.set_projector(True) does
    qapp.setFont(font)
    assert _put_back_look(qapp, look).startswith("font size (20 pt")
    assert _app_look(qapp) == look
    assert _put_back_look(qapp, look) == ""  # nothing changed: nothing named


def test_a_changed_style_sheet_is_named_and_put_back(qapp):
    look = _app_look(qapp)
    qapp.setStyleSheet("QWidget { font-size: 30px; }")
    assert _put_back_look(qapp, look).startswith("style sheet")
    assert _app_look(qapp) == look and qapp.styleSheet() == look[2]


def test_the_first_application_starts_at_the_platforms_font(qapp):
    """A test that makes the worker's first QApplication is compared with the look a new application has: the
    platform's general font, no style sheet (Qt's font database cannot say it before an application exists)."""
    assert _app_look(None) is None
    assert _app_look(qapp) == _system_look()  # the application as made, and as every test leaves it
    font = qapp.font()
    font.setPointSize(20)
    qapp.setFont(font)
    assert _put_back_look(qapp, None).startswith("font size (20 pt")
    assert _app_look(qapp) == _system_look()
