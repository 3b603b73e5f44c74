"""Compare sessions: the same kernel and size measured on several machines, side by side. Session labels and
series come from files: they go into combo items, headers and cells, which show plain text."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from gemmviz.core.numbers import sig, times_text
from gemmviz.core.session.results import Result, compare_sources
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.charts.base import source_label
from gemmviz.ui.follow import WorkspaceFollower
from gemmviz.ui.text import tr


def ratio_text(x: float) -> str:
    """× vs the reference: 1.53× where faster, "312× slower" where the machine took hundreds of times longer
    (0.00× and 0.01× said nothing)."""
    if x <= 0:
        return "—"
    return times_text(x) if x >= 1 else tr("{ratio} slower").format(ratio=times_text(1 / x))


class ComparePanel(QWidget):
    """The shown results side by side against a reference session. Given a workspace, it follows it (at once,
    hidden or not, as the roofline does); without one, `set_results` fills it."""

    def __init__(self, workspace: Workspace | None = None, parent=None):
        super().__init__(parent)
        self.workspace = workspace
        self.results: list[Result] = []
        self.source_of: Callable[[Result], str] = lambda _r: ""
        self.reference = QComboBox()
        self.reference.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.reference.setMinimumContentsLength(16)  # a long session name is cut, the window is not widened
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.table = QTableWidget()
        self.table.setSortingEnabled(True)
        top = QHBoxLayout()
        top.addWidget(QLabel(tr("reference")))
        top.addWidget(self.reference)
        top.addStretch()
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.note)
        layout.addWidget(self.table, 1)
        self.reference.currentIndexChanged.connect(lambda _i: self._fill())
        self.follower = (
            None if workspace is None else WorkspaceFollower(self, workspace, self.refresh, now_when_hidden=True)
        )

    def refresh(self) -> None:
        """The workspace's shown results, again."""
        if self.workspace is not None:
            self.set_results(self.workspace.shown(), self.workspace.source_of)

    def set_results(self, results: list[Result], source_of: Callable[[Result], str]) -> None:
        self.results = results
        self.source_of = source_of
        sources = sorted({source_of(r) for r in results if r.valid})
        current = self.reference.currentData()
        self.reference.blockSignals(True)
        self.reference.clear()
        for s in sources:
            self.reference.addItem(source_label(s) or tr("live (this machine)"), s)
        index = self.reference.findData(current)
        self.reference.setCurrentIndex(index if index >= 0 else 0)
        self.reference.blockSignals(False)
        self._fill()

    def _fill(self) -> None:
        reference = self.reference.currentData()
        self.table.setSortingEnabled(False)
        self.table.clear()
        if reference is None:
            self.table.setRowCount(0)
            self.note.setText(tr("Open two or more sessions (File ▸ Open) to compare machines."))
            return
        others, rows = compare_sources(self.results, reference, self.source_of)
        headers = [tr("kernel"), tr("size"), tr("reference ms")]
        for o in others:
            name = source_label(o) or tr("live")
            # on two lines: a header as wide as its machine's name cut the table at 1280×720
            headers += [f"{name}\n" + tr("ms"), tr("× vs reference") + f"\n({name})"]
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            cells = [row["series"], row["size"], sig(row["reference_ms"])]
            for o in others:
                ms, x = row["others"].get(o, (None, None))
                cells += [sig(ms), "—" if x is None else ratio_text(x)]
            for j, text in enumerate(cells):
                self.table.setItem(i, j, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        self.table.setSortingEnabled(True)
        self.note.setText(
            tr(
                "{n} kernel/size pairs measured both in the reference and elsewhere. "
                "“× vs reference” is reference time ÷ that machine's time (above 1: faster than the reference). "
                "Published figures are the seeds' own numbers, not measurements."
            ).format(n=len(rows))
            if rows
            else tr("No kernel and size appears both in the reference and in another session.")
        )
