"""The results table: sortable by value, copyable as tab-separated text, invalid rows flagged. Cells are plain
text (item views never render HTML); tooltips, which Qt may read as HTML, go through ui.text.tooltip.

The model makes a row's cells when the view first asks for them: a session of 20,000 results made 280,000
QStandardItems up front (seconds), though a screen shows thirty rows."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from PySide6.QtCore import QAbstractTableModel, QIdentityProxyModel, QModelIndex, Qt
from PySide6.QtGui import QColor, QKeySequence, QShortcut, QStandardItem
from PySide6.QtWidgets import QAbstractItemView, QApplication, QTableView

from gemmviz.core.charts.explain import result_flags
from gemmviz.core.messages import render
from gemmviz.core.numbers import error_map_text, percent, plain_figures, rate, sig
from gemmviz.core.session import provenance
from gemmviz.core.session.results import Baselines, Result, result_row
from gemmviz.ui.charts.base import source_label
from gemmviz.ui.i18n import language
from gemmviz.ui.text import QT_TRANSLATE_NOOP, tooltip, tr

COLUMNS = [
    ("source", "source", None),
    ("variant", "variant", None),
    ("params", "params", None),
    ("size", "size", None),
    ("median_ms", "median ms", sig),  # 51,710, never 5.171e+04 (core/numbers.py)
    ("min_ms", "min ms", sig),
    ("max_ms", "max ms", sig),
    ("noise", "noise", percent),
    ("gflops", "GFLOP/s", rate),
    ("pct_of_peak", "% peak", ".1f"),  # of the FP32 (TF32) peak at the result's measured SM clock
    ("speedup_vs_cpu", "× CPU loop", ",.1f"),
    ("speedup_vs_naive", "× GPU naive", ".2f"),
    ("pct_of_cublas", "% cuBLAS", ".1f"),
    ("rel_error", "rel. error", ".1e"),
    ("status", "status", None),
]
# the columns' titles for the catalogue: the header shows them through tr()
COLUMN_TITLES = (QT_TRANSLATE_NOOP("", "source"), QT_TRANSLATE_NOOP("", "variant"), QT_TRANSLATE_NOOP("", "params"),
                 QT_TRANSLATE_NOOP("", "median ms"), QT_TRANSLATE_NOOP("", "min ms"), QT_TRANSLATE_NOOP("", "max ms"),
                 QT_TRANSLATE_NOOP("", "noise"), QT_TRANSLATE_NOOP("", "× CPU loop"), QT_TRANSLATE_NOOP("", "× GPU naive"),
                 QT_TRANSLATE_NOOP("", "% cuBLAS"), QT_TRANSLATE_NOOP("", "rel. error"), QT_TRANSLATE_NOOP("", "status"),
                 QT_TRANSLATE_NOOP("", "% peak"))  # fmt: skip
TIMING_NAMES = (QT_TRANSLATE_NOOP("", "kernel-only (events behind a blocking kernel)"),
                QT_TRANSLATE_NOOP("", "host-inclusive events (older method: includes the host's launch path)"),
                QT_TRANSLATE_NOOP("", "host wall clock"))  # fmt: skip
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
GpuOf = Callable[[Result], Mapping]  # a result's environment.backends.cuda entry (SMs, FP32 lanes, compute capability)


def no_gpu(_r: Result) -> Mapping:
    return {}


def table_row(r: Result, baselines: Baselines, gpu_of: GpuOf = no_gpu) -> dict:
    """result_row with what the table adds: the share of peak at the measured clock and the provenance the
    percentage cells' tooltips say (keys starting with "_" are not columns)."""
    share, said = provenance.peak_share(r, gpu_of(r)) if r.backend == "cuda" else (None, None)
    return {
        **result_row(r, baselines),
        "pct_of_peak": None if share is None else 100 * share,
        "_peak": said,
        "_cublas": baselines.of(r, "cublas"),
    }


def provenance_tip(r: Result, row: dict, key: str) -> str:
    """The tooltip of a percentage cell: which cuBLAS (with its own provenance), or which peak at which clock;
    what a result does not record is said so."""
    lang = language()
    if key == "pct_of_cublas" and row.get("pct_of_cublas") is not None:
        base = row.get("_cublas")
        version = base.cublas_version if base is not None else None
        lines = [render(provenance.pct_of_cublas(f"{row['pct_of_cublas']:.1f}%", version), lang)]
        lines += [render(m, lang) for m in provenance.details(base)] if base is not None else []
        return "\n".join(lines)
    if key == "pct_of_peak" and row.get("_peak") is not None:
        return "\n".join([render(row["_peak"], lang), *(render(m, lang) for m in provenance.details(r))])
    return ""


def timing_text(r: Result) -> str:
    """How the median was measured: method, samples kept and dropped, noise, clock, the launch-inclusive time."""
    lines = [
        tr(r.timing_label),  # TIMING_NAMES marks core/session/results.TIMING_LABELS
        tr("median of {n} samples, noise {noise} (stdev/mean)").format(n=len(r.samples_ms), noise=percent(r.noise)),
    ]
    if r.dropped_ms:
        lines.append(tr("{n} sample(s) left out: the SM clock had fallen").format(n=len(r.dropped_ms)))
    if r.clock_mhz:
        lines.append(tr("SM clock {mhz} MHz").format(mhz=f"{r.clock_mhz:,.0f}"))
    if r.host_ms:
        host = sorted(r.host_ms)[len(r.host_ms) // 2]
        lines.append(tr("what a Python caller waits (launch + sync): {ms} ms, not charted").format(ms=sig(host)))
    return "\n".join(lines)


class _Cell:
    __slots__ = ("text", "sort", "tip", "colour")

    def __init__(self, text: str, sort: object, tip: str = "", colour: str | None = None):
        self.text, self.sort, self.tip, self.colour = text, sort, tip, colour


def _cells(r: Result, row: dict) -> list[_Cell]:
    row = _with_size(r, row)
    warnings = result_flags(r, language()) if r.valid else []
    return [_cell(r, row, key, spec, warnings) for key, _title, spec in COLUMNS]


def _with_size(r: Result, row: dict) -> dict:
    return {**row, "size": r.problem.label, "status": r.status}


def _figure_sort(r: Result, key: str, value) -> object:
    """A cell's sort value where it needs no text: the size by its M·N·K, a figure as it is, a missing value
    first; None where the cell sorts by its text."""
    if key == "size":
        return r.m * r.n * r.k
    if value is None:
        return float("-inf")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return None


def _sort_key(r: Result, row: dict, column: int) -> object:
    """The sort value of one cell: a number as it is (a sort by a figure formats none of the 20,000 rows' cells),
    a text column's text."""
    key, _title, spec = COLUMNS[column]
    row = _with_size(r, row)
    sort = _figure_sort(r, key, row.get(key))
    if sort is not None:
        return sort
    warnings = result_flags(r, language()) if r.valid and key == "status" else []
    return _cell(r, row, key, spec, warnings).sort


def _cell(r: Result, row: dict, key: str, spec, warnings: list[str]) -> _Cell:
    value = row.get(key)
    if value is None:
        text = "—"
    elif callable(spec):
        text = spec(value)
    elif spec:
        text = format(value, spec)
    else:
        text = str(value)
    tip, colour = "", None
    if key == "status" and not r.valid:
        text = f"{r.status.upper()}: {plain_figures(r.error or '')}"
        tip, colour = tooltip("\n\n".join(filter(None, [r.error, error_map_text(r.error_map)]))), "#B00020"
    elif key == "status" and warnings:
        text = "ok ⚠ " + "; ".join(re.split("[:：]", w)[0] for w in warnings)  # each warning's first word
        tip, colour = tooltip("\n".join(warnings)), "#8A5A00"
    if key == "median_ms" and r.valid:
        tip = tooltip(timing_text(r))
    if key in ("pct_of_cublas", "pct_of_peak"):
        tip = tooltip(provenance_tip(r, row, key))
    sort = _figure_sort(r, key, value)
    return _Cell(text, text if sort is None else sort, tip, colour)


class ResultsModel(QAbstractTableModel):
    """One row per result; speedups within the result's source (never across machines), cells made on demand."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows: list[tuple[Result, str, Baselines]] = []
        self.row_results: list[Result] = []
        self._cells: dict[int, list[_Cell]] = {}
        self.gpu_of: GpuOf = no_gpu

    def set_rows(
        self,
        rows: list[tuple[Result, str, Baselines]],
        column: int = -1,
        order: Qt.SortOrder = Qt.SortOrder.AscendingOrder,
    ) -> None:
        self.beginResetModel()
        self._rows, self._cells = rows, {}
        self._sort(column, order)
        self.row_results = [r for r, _s, _b in self._rows]  # each row's result, in the rows' order
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sorted here, once per row, rather than by a sort proxy that asks for two cells per comparison."""
        self.layoutAboutToBeChanged.emit()
        self._sort(column, order)
        self.row_results = [r for r, _s, _b in self._rows]
        self.layoutChanged.emit()

    def _sort(self, column: int, order: Qt.SortOrder) -> None:
        if not 0 <= column < len(COLUMNS) or not self._rows:
            return
        keys = []
        for i in range(len(self._rows)):
            value = self.sort_key(i, column)
            keys.append((0, value, "") if isinstance(value, int | float) else (1, 0, str(value)))
        order_ = sorted(range(len(self._rows)), key=keys.__getitem__, reverse=order == Qt.SortOrder.DescendingOrder)
        self._rows = [self._rows[i] for i in order_]
        self._cells = {new: self._cells[old] for new, old in enumerate(order_) if old in self._cells}

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(COLUMNS)
        ):
            return tr(COLUMNS[section][1])  # COLUMN_TITLES marks them; a copy keeps the English
        return None

    def sort_key(self, row: int, column: int) -> object:
        """A cell's sort value, from its made cell where there is one, else from its figure alone."""
        cells = self._cells.get(row)
        if cells is not None or column == 0:
            return self.cell(row, column).sort
        r, source, baselines = self._rows[row]
        return _sort_key(r, {**table_row(r, baselines, self.gpu_of), "source": source}, column)

    def cell(self, row: int, column: int) -> _Cell:
        cells = self._cells.get(row)
        if cells is None:
            r, source, baselines = self._rows[row]
            shown = source_label(source) if source else tr("live (this machine)")  # a live result's cell was empty
            if column == 0:  # the source: what a sort on the first column asks of every row
                return _Cell(shown, source)
            cells = self._cells[row] = _cells(r, {**table_row(r, baselines, self.gpu_of), "source": shown})
        return cells[column]

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(index.row(), index.column()).text
        if role == SORT_ROLE:
            return self.cell(index.row(), index.column()).sort
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.cell(index.row(), index.column()).tip or None
        if role == Qt.ItemDataRole.ForegroundRole:
            colour = self.cell(index.row(), index.column()).colour
            return QColor(colour) if colour else None
        return None

    def item(self, row: int, column: int) -> QStandardItem:
        """A cell as an item (its text, tooltip and colour), as a QStandardItemModel would give it."""
        cell = self.cell(row, column)
        item = QStandardItem(cell.text)
        item.setToolTip(cell.tip)
        if cell.colour:
            item.setForeground(QColor(cell.colour))
        return item


class ResultsTable(QTableView):
    def __init__(self, parent=None, gpu_of: GpuOf = no_gpu):
        super().__init__(parent)
        self.model_ = ResultsModel(self)
        self.model_.gpu_of = gpu_of  # the % peak column's GPU (Workspace.gpu_entry); without it, "—"
        self.proxy = QIdentityProxyModel(self)  # sorting is the model's own (ResultsModel.sort)
        self.proxy.setSourceModel(self.model_)
        self.setModel(self.proxy)
        self.setSortingEnabled(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        self.results: list[Result] = []
        self.columns_stale = False  # the widths wait for the table to be shown (fit_columns)
        QShortcut(QKeySequence.StandardKey.Copy, self).activated.connect(self.copy_selection)

    def set_results(self, results: list[Result], source_of: Callable[[Result], str] = lambda _r: "") -> None:
        """One row per result, grouped by source; speedups are computed within each source."""
        self.results = list(results)
        by_source: dict[str, list[Result]] = {}
        for r in self.results:
            by_source.setdefault(source_of(r), []).append(r)
        rows = [(r, source, baselines) for source, rs in by_source.items() for baselines in [Baselines(rs)] for r in rs]
        header = self.horizontalHeader()
        self.model_.set_rows(rows, header.sortIndicatorSection(), header.sortIndicatorOrder())
        # one source says the same in every row (at 1280×720 it took 40% of the width, the times past the edge):
        # the column shows where there are two to tell apart; the banner names a replayed one, a copy keeps it
        self.setColumnHidden(0, len(by_source) < 2)
        self.fit_columns()

    def fit_columns(self) -> None:
        """Columns as wide as their contents: now on screen, else when next shown (measuring every row's text
        took 70 ms at 192 rows, for a table the "show" choice had hidden)."""
        self.columns_stale = not self.isVisible()
        if not self.columns_stale:
            self.resizeColumnsToContents()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.columns_stale:
            self.fit_columns()

    @property
    def row_results(self) -> list[Result]:
        """The result of each of the model's rows, in their order."""
        return self.model_.row_results

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
