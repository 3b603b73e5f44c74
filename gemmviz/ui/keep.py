"""What a user has set in a widget's controls, taken and put back: the choices of its combo boxes, check boxes,
spin boxes, line edits and tab widgets, its splitters' sizes, and the selected rows, the current row and the sort
of its item views. A tab built again in another language (MainWindow.retranslate) is given its old self's
choices this way; a test compares two states to say nothing was lost.

A state is a list per kind of control, in the order `findChildren` gives (the order they were made): a tab made
again by the same code has the same controls in the same order. Where a kind's count differs (a tab that made
a panel lazily), that kind is left as it is rather than given another control's value."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QDoubleSpinBox,
    QLineEdit,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QWidget,
)


@dataclass
class WidgetState:
    combos: list[int] = field(default_factory=list)
    checks: list[bool] = field(default_factory=list)
    spins: list[float] = field(default_factory=list)
    edits: list[str] = field(default_factory=list)
    tabs: list[int] = field(default_factory=list)
    splitters: list[list[int]] = field(default_factory=list)
    views: list[tuple[tuple[int, ...], int, tuple[int, int]]] = field(default_factory=list)  # rows, current, sort


def _inside_control(w: QWidget, root: QWidget) -> bool:
    """A part of another control (a combo box's list and line edit, a spin box's edit, an item view's editor)."""
    parent = w.parentWidget()
    while parent is not None and parent is not root:
        if isinstance(parent, QComboBox | QAbstractSpinBox | QAbstractItemView):
            return True
        parent = parent.parentWidget()
    return False


def _all(root: QWidget, kind) -> list:
    return [w for w in root.findChildren(kind) if not _inside_control(w, root)]


def _view_state(view: QAbstractItemView) -> tuple[tuple[int, ...], int, tuple[int, int]]:
    model = view.selectionModel()
    rows = tuple(sorted({i.row() for i in model.selectedIndexes()})) if model is not None else ()
    current = view.currentIndex().row() if view.currentIndex().isValid() else -1
    sort = (-1, 0)
    if isinstance(view, QTableView) and view.isSortingEnabled():
        header = view.horizontalHeader()
        sort = (header.sortIndicatorSection(), header.sortIndicatorOrder().value)
    return rows, current, sort


def capture(root: QWidget, shown: bool = False) -> WidgetState:
    """The choices made in `root`'s controls now; `shown`: only those on screen (a chart the "show" choice hides
    fills its menus when it is first drawn: a test compares what the user sees)."""

    def every(kind) -> list:
        return [w for w in _all(root, kind) if not shown or w.isVisibleTo(root)]

    return WidgetState(
        combos=[c.currentIndex() for c in every(QComboBox)],
        checks=[b.isChecked() for b in every(QAbstractButton) if b.isCheckable()],
        spins=[s.value() for s in every(QSpinBox) + every(QDoubleSpinBox)],
        edits=[e.text() for e in every(QLineEdit)],
        tabs=[t.currentIndex() for t in every(QTabWidget)],
        splitters=[s.sizes() for s in every(QSplitter)],
        views=[_view_state(v) for v in every(QAbstractItemView)],
    )


def restore(root: QWidget, state: WidgetState) -> None:
    """Put `state`'s choices back into `root`'s controls, kind by kind where the counts agree."""

    def each(controls: list, values: list, put) -> None:
        if len(controls) == len(values):
            for control, value in zip(controls, values):
                put(control, value)

    each(_all(root, QComboBox), state.combos, lambda c, i: c.setCurrentIndex(i) if i < c.count() else None)
    each([b for b in _all(root, QAbstractButton) if b.isCheckable()], state.checks, QAbstractButton.setChecked)
    each(_all(root, QSpinBox) + _all(root, QDoubleSpinBox), state.spins, lambda s, v: s.setValue(type(s.value())(v)))
    each(_all(root, QLineEdit), state.edits, QLineEdit.setText)
    each(_all(root, QTabWidget), state.tabs, QTabWidget.setCurrentIndex)
    each(_all(root, QSplitter), state.splitters, QSplitter.setSizes)
    each(_all(root, QAbstractItemView), state.views, _restore_view)


def _restore_view(view: QAbstractItemView, state: tuple[tuple[int, ...], int, tuple[int, int]]) -> None:
    rows, current, (section, order) = state
    if isinstance(view, QTableView) and view.isSortingEnabled() and section >= 0:
        view.sortByColumn(section, Qt.SortOrder(order))
    model, selection = view.model(), view.selectionModel()
    if model is None or selection is None:
        return
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    selection.clearSelection()
    for row in rows:
        if row < model.rowCount():
            selection.select(model.index(row, 0), flags)
    if 0 <= current < model.rowCount():
        selection.setCurrentIndex(model.index(current, 0), QItemSelectionModel.SelectionFlag.NoUpdate)
