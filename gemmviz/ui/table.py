"""The results table: sortable by value, copyable as tab-separated text, invalid rows flagged. Cells are plain
text (item views never render HTML); tooltips, which Qt may read as HTML, go through ui.text.tooltip."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor, QKeySequence, QShortcut, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QApplication, QTableView

from gemmviz.core.numbers import error_map_text, percent, rate
from gemmviz.core.results import Result, results_rows
from gemmviz.core.rigor import flags
from gemmviz.ui.text import tooltip

COLUMNS = [
    ("source", "source", None),
    ("variant", "variant", None),
    ("params", "params", None),
    ("size", "size", None),
    ("median_ms", "median ms", ".4g"),
    ("min_ms", "min ms", ".4g"),
    ("max_ms", "max ms", ".4g"),
    ("noise", "noise", percent),
    ("gflops", "GFLOP/s", rate),
    ("speedup_vs_cpu", "× CPU loop", ",.1f"),
    ("speedup_vs_naive", "× GPU naive", ".2f"),
    ("pct_of_cublas", "% cuBLAS", ".1f"),
    ("rel_error", "rel. error", ".1e"),
    ("status", "status", None),
]
SORT_ROLE = Qt.ItemDataRole.UserRole + 1


def timing_text(r: Result) -> str:
    """How the median was measured: method, samples kept and dropped, noise, clock, the launch-inclusive time."""
    lines = [f"{r.timing_label}", f"median of {len(r.samples_ms)} samples, noise {percent(r.noise)} (stdev/mean)"]
    if r.dropped_ms:
        lines.append(f"{len(r.dropped_ms)} sample(s) left out: the SM clock had fallen")
    if r.clock_mhz:
        lines.append(f"SM clock {r.clock_mhz:,.0f} MHz")
    if r.host_ms:
        host = sorted(r.host_ms)[len(r.host_ms) // 2]
        lines.append(f"what a Python caller waits (launch + sync): {host:.4g} ms, not charted")
    return "\n".join(lines)


class ResultsTable(QTableView):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.model_ = QStandardItemModel(0, len(COLUMNS), self)
        self.model_.setHorizontalHeaderLabels([c[1] for c in COLUMNS])
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model_)
        self.proxy.setSortRole(SORT_ROLE)
        self.setModel(self.proxy)
        self.setSortingEnabled(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        self.results: list[Result] = []
        self.row_results: list[Result] = []
        QShortcut(QKeySequence.StandardKey.Copy, self, activated=self.copy_selection)

    def set_results(self, results: list[Result], source_of: Callable[[Result], str] = lambda _r: "") -> None:
        """One row per result; speedups are computed within each source (never across machines)."""
        self.results = list(results)
        self.row_results: list[Result] = []
        self.model_.removeRows(0, self.model_.rowCount())
        by_source: dict[str, list[Result]] = {}
        for r in self.results:
            by_source.setdefault(source_of(r), []).append(r)
        for source, source_results in by_source.items():
            for r, row in zip(source_results, results_rows(source_results)):
                self.model_.appendRow(self._row(r, {**row, "source": source}))
                self.row_results.append(r)
        self.resizeColumnsToContents()

    def _row(self, r: Result, row: dict) -> list[QStandardItem]:
        row = {**row, "size": r.problem.label, "status": r.status}
        warnings = flags(r) if r.valid else []
        items = []
        for key, _title, spec in COLUMNS:
            value = row.get(key)
            if value is None:
                text = "—"
            elif callable(spec):
                text = spec(value)
            elif spec:
                text = format(value, spec)
            else:
                text = str(value)
            if key == "status" and not r.valid:
                text = f"{r.status.upper()}: {r.error}"
            elif key == "status" and warnings:
                text = "ok ⚠ " + "; ".join(w.split(":")[0] for w in warnings)
            item = QStandardItem(text)
            sort_value = value if isinstance(value, int | float) and not isinstance(value, bool) else text
            if key == "size":
                sort_value = r.m * r.n * r.k
            item.setData(sort_value if value is not None or key == "size" else float("-inf"), SORT_ROLE)
            if key == "status" and not r.valid:
                item.setForeground(QColor("#B00020"))
                item.setToolTip(tooltip("\n\n".join(filter(None, [r.error, error_map_text(r.error_map)]))))
            elif key == "status" and warnings:
                item.setForeground(QColor("#8A5A00"))
                item.setToolTip(tooltip("\n".join(warnings)))
            if key == "median_ms" and r.valid:
                item.setToolTip(tooltip(timing_text(r)))
            items.append(item)
        return items

    def selection_text(self) -> str:
        rows = sorted({i.row() for i in self.selectionModel().selectedIndexes()})
        if not rows:
            rows = list(range(self.proxy.rowCount()))
        lines = ["\t".join(c[1] for c in COLUMNS)]
        for row in rows:
            lines.append("\t".join(self.proxy.index(row, c).data() or "" for c in range(len(COLUMNS))))
        return "\n".join(lines)

    def copy_selection(self) -> None:
        QApplication.clipboard().setText(self.selection_text())
