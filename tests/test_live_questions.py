"""Issue 44, live questions: "what about 1000×1000?" in the Tiling tab in at most three actions (click the size
menu, type the size, Enter), the tile kept."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from gemmviz.core.problem import Problem
from gemmviz.ui.tiling.view import TilingPanel, is_text_entry


def _type_size(qtbot, panel, text):
    """The three actions: a click into the size menu's field, the size typed, Enter."""
    field = panel.size_combo.lineEdit()
    QTest.mouseClick(field, Qt.MouseButton.LeftButton)
    field.selectAll()
    QTest.keyClicks(field, text)
    QTest.keyClick(field, Qt.Key.Key_Return)


def test_any_size_typed_into_the_tiling_tab_keeps_the_kernel_and_tile(qtbot):
    panel = TilingPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.set_problem(Problem(64, 64, 64), tile=32, variant="gpu-tiled")
    _type_size(qtbot, panel, "1000")
    assert panel.problem == Problem(1000, 1000, 1000)
    assert panel.tiles["gpu-tiled"] == 32 and panel.tile_combo.currentData() == 32 and panel.variant == "gpu-tiled"
    assert panel.block_y.maximum() == 31  # 1000 / 32 rounded up: 32 blocks a side, the edge one partly outside
    _type_size(qtbot, panel, "1000x800x600")
    assert panel.problem == Problem(1000, 800, 600) and panel.tiles["gpu-tiled"] == 32
    _type_size(qtbot, panel, "100×70×90")  # as the menu writes sizes
    assert panel.problem == Problem(100, 70, 90)
    _type_size(qtbot, panel, "big")  # a typo: said, the animation kept
    assert panel.problem == Problem(100, 70, 90) and panel.message.isVisibleTo(panel)
    assert is_text_entry(panel.size_combo)  # the arrows and Space stay the field's while typing
    _type_size(qtbot, panel, panel.size_combo.itemText(0))  # a menu entry's words pick it
    assert panel.size_combo.currentIndex() == 0
