"""Compare sessions: the same kernel and size measured on several machines, side by side, beside what each
machine is (its GPU, measured memory bandwidth and FP32 peak, and their ratios to the reference's), with which
of those ratios each kernel's speed ratio follows (core/session/machines.py). Session labels and series come
from files: they go into combo items, headers and cells, which show plain text."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gemmviz.core.messages import render
from gemmviz.core.numbers import rate, sig, times_text
from gemmviz.core.session import machines
from gemmviz.core.session.results import Result, compare_sources
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.charts.base import source_label
from gemmviz.ui.follow import WorkspaceFollower
from gemmviz.ui.i18n import language
from gemmviz.ui.text import tooltip, tr

EnvironmentOf = Callable[[str], Mapping]  # a source's session environment (Workspace.environment_of)


def ratio_text(x: float) -> str:
    """× vs the reference: 1.53× where faster, "312× slower" where the machine took hundreds of times longer
    (0.00× and 0.01× said nothing)."""
    if x <= 0:
        return "—"
    return times_text(x) if x >= 1 else tr("{ratio} slower").format(ratio=times_text(1 / x))


def machine_of(environment: Mapping) -> machines.Machine:
    """The session's machine; where its file holds no ceilings, those `gemmviz ceilings` measured on a GPU of
    that name (the user's cache, then the shipped ones), saying so."""
    found = machines.machine(environment)
    if found.bandwidth_gbs is not None or not found.gpu:
        return found
    from gemmviz.core.hardware.roofline import load_ceilings

    ceilings = load_ceilings(found.gpu)
    if ceilings is None or not ceilings.bandwidth_gbs:
        return found
    how = (ceilings.how or {}).get("bandwidth_how") or ""
    where = tr("not in the session: the ceilings measured on a {gpu} (gemmviz ceilings)").format(gpu=found.gpu)
    peak = found.fp32_peak_gflops or ceilings.fp32_peak_gflops
    return replace(
        found, bandwidth_gbs=ceilings.bandwidth_gbs, bandwidth_how=f"{where}; {how}".strip("; "), fp32_peak_gflops=peak
    )


class ComparePanel(QWidget):
    """The shown results side by side against a reference session. Given a workspace, it follows it (at once,
    hidden or not, as the roofline does); without one, `set_results` fills it."""

    def __init__(self, workspace: Workspace | None = None, parent=None):
        super().__init__(parent)
        self.workspace = workspace
        self.results: list[Result] = []
        self.source_of: Callable[[Result], str] = lambda _r: ""
        self.environment_of: EnvironmentOf = workspace.environment_of if workspace is not None else lambda _s: {}
        self.reference = QComboBox()
        self.reference.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.reference.setMinimumContentsLength(16)  # a long session name is cut, the window is not widened
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        # the machines: one row per source, its GPU, measured bandwidth and FP32 peak beside the reference's
        self.machines = QTableWidget()
        self.machines.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # as tall as its three rows in any type size, never a scroll bar of its own
        self.machines.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.machines.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.machines.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.table = QTableWidget()
        self.table.setSortingEnabled(True)
        top = QHBoxLayout()
        top.addWidget(QLabel(tr("reference")))
        top.addWidget(self.reference)
        top.addStretch()
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.note)
        layout.addWidget(self.machines)
        layout.addWidget(self.table, 1)
        self.reference.currentIndexChanged.connect(lambda _i: self._fill())
        self.follower = (
            None if workspace is None else WorkspaceFollower(self, workspace, self.refresh, now_when_hidden=True)
        )

    def refresh(self) -> None:
        """The workspace's shown results, again."""
        if self.workspace is not None:
            self.set_results(self.workspace.shown(), self.workspace.source_of)

    def set_results(
        self,
        results: list[Result],
        source_of: Callable[[Result], str],
        environment_of: EnvironmentOf | None = None,
    ) -> None:
        self.results = results
        self.source_of = source_of
        if environment_of is not None:
            self.environment_of = environment_of
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
            self.machines.setRowCount(0)
            self.machines.setVisible(False)
            self.note.setText(tr("Open two or more sessions (File ▸ Open) to compare machines."))
            return
        others, rows = compare_sources(self.results, reference, self.source_of)
        found = {s: machine_of(self.environment_of(s)) for s in [reference, *others]}
        self._fill_machines(reference, others, found)
        headers = [tr("kernel"), tr("size"), tr("reference ms")]
        for o in others:
            name = source_label(o) or tr("live")
            # on two lines: a header as wide as its machine's name cut the table at 1280×720
            headers += [f"{name}\n" + tr("ms"), tr("× vs reference") + f"\n({name})", tr("follows") + f"\n({name})"]
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            cells = [(row["series"], ""), (row["size"], ""), (sig(row["reference_ms"]), "")]
            for o in others:
                ms, x = row["others"].get(o, (None, None))
                cells += [
                    (sig(ms), ""),
                    ("—" if x is None else ratio_text(x), ""),
                    self._follows(x, found[reference], found[o], row["backend"]),
                ]
            for j, (text, tip) in enumerate(cells):
                item = QTableWidgetItem(text)
                if tip:
                    item.setToolTip(tooltip(tip))
                self.table.setItem(i, j, item)
        self.table.resizeColumnsToContents()
        self.table.setSortingEnabled(True)
        self.note.setText(
            tr(
                "{n} kernel/size pairs measured both in the reference and elsewhere. "
                "“× vs reference” is reference time ÷ that machine's time (above 1: faster than the reference); "
                "“follows” says whether it is nearer the machines' bandwidth ratio (a memory-bound kernel) or "
                "FP32 peak ratio (a compute-bound one). "
                "Published figures are the seeds' own numbers, not measurements."
            ).format(n=len(rows))
            if rows
            else tr("No kernel and size appears both in the reference and in another session.")
        )

    def _follows(
        self, speed: float | None, ref: machines.Machine, other: machines.Machine, backend: str
    ) -> tuple[str, str]:
        """The "follows" cell: which machine ratio the kernel's speed ratio is nearer, and its tooltip giving all
        three ratios; nothing for a CPU kernel, which the GPUs' ratios do not describe."""
        if backend != "cuda":
            return "—", tr("a CPU kernel: the GPUs' bandwidth and FP32 peak do not apply")
        bandwidth = machines.ratio(other.bandwidth_gbs, ref.bandwidth_gbs)
        peak = machines.ratio(other.fp32_peak_gflops, ref.fp32_peak_gflops)
        key = machines.follows(speed, bandwidth, peak)
        if key is None:
            return "—", tr("the machines' bandwidth or FP32 peak is not recorded")
        tip = tr("this kernel {speed}, bandwidth {bandwidth}, FP32 peak {peak} (other ÷ reference)").format(
            speed=times_text(speed or 0), bandwidth=times_text(bandwidth or 0), peak=times_text(peak or 0)
        )
        return render(key, language()), tip

    def _fill_machines(self, reference: str, others: list[str], found: dict[str, machines.Machine]) -> None:
        """A column per machine (the reference first): its GPU, measured memory bandwidth and FP32 peak, the
        others' with their ratio to the reference's ("3,000 GB/s (0.70×)"). Three short rows: it fits 720p in
        projector type beside the kernels' table."""
        sources = [reference, *others]
        self.machines.clear()
        self.machines.setColumnCount(len(sources))
        self.machines.setRowCount(3)
        self.machines.setVerticalHeaderLabels([tr("GPU"), tr("bandwidth (measured)"), tr("FP32 peak")])
        ref = found[reference]
        headers = []
        for j, source in enumerate(sources):
            m = found[source]
            # a session's name on two lines at its comma ("NVIDIA H200" over "2026-12-02 (recorded)"): a column
            # as wide as the whole name pushed the second machine off a 720p window in projector type
            name = (source_label(source) or tr("live (this machine)")).replace(", ", ",\n", 1)
            headers.append(name + ("\n" + tr("(reference)") if j == 0 else ""))
            bandwidth = "—" if m.bandwidth_gbs is None else f"{rate(m.bandwidth_gbs)} GB/s"
            peak = "—" if m.fp32_peak_gflops is None else f"{rate(m.fp32_peak_gflops)} GFLOP/s"
            if j > 0:
                bw_ratio = machines.ratio(m.bandwidth_gbs, ref.bandwidth_gbs)
                peak_ratio = machines.ratio(m.fp32_peak_gflops, ref.fp32_peak_gflops)
                bandwidth += "" if bw_ratio is None else f" ({times_text(bw_ratio)})"
                peak += "" if peak_ratio is None else f" ({times_text(peak_ratio)})"
            for i, (text, tip) in enumerate(
                [(m.gpu or "—", ""), (bandwidth, m.bandwidth_how), (peak, m.fp32_peak_how)]
            ):
                item = QTableWidgetItem(text)
                if tip:
                    item.setToolTip(tooltip(tip))
                self.machines.setItem(i, j, item)
        self.machines.setHorizontalHeaderLabels(headers)
        self.machines.resizeColumnsToContents()
        self.machines.resizeRowsToContents()
        self.machines.setVisible(True)
