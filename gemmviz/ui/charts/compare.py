"""Compare sessions: the same kernel and size measured on several machines, side by side, beside what each
machine is (its GPU, measured memory bandwidth and FP32 peak, and their ratios to the reference's), with which
of those ratios each kernel's speed ratio follows (core/session/machines.py). Session labels and series come
from files: they go into combo items, headers and cells, which show plain text."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
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
from gemmviz.core.session.workspace import ShippedRecording, Workspace, other_recording, session_gpu
from gemmviz.ui.charts.base import is_projector, source_label
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
    hidden or not, as the roofline does); without one, `set_results` fills it.

    One message on a projector: a headline computed from the GPU pairs (core/session/machines.headline), the
    machines' ratios beside it, columns named by the GPU's short name ("H100 ms") and the "follows" verdict
    inside the window at 1280×720 (the kernel column gives way first)."""

    def __init__(
        self, workspace: Workspace | None = None, parent=None, open_session: Callable[[Path], object] | None = None
    ):
        super().__init__(parent)
        self.workspace = workspace
        self.open_session = open_session  # the window's File ▸ Open (its dialogs, Open recent, the banner)
        self.results: list[Result] = []
        self.source_of: Callable[[Result], str] = lambda _r: ""
        self.environment_of: EnvironmentOf = workspace.environment_of if workspace is not None else lambda _s: {}
        self.reference = QComboBox()
        self.reference.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.reference.setMinimumContentsLength(16)  # a long session name is cut, the window is not widened
        self.headline = QLabel()
        self.headline.setTextFormat(Qt.TextFormat.PlainText)
        self.headline.setWordWrap(True)
        bold = self.headline.font()
        bold.setBold(True)
        self.headline.setFont(bold)
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        # the machines: one row per source, its GPU, measured bandwidth and FP32 peak beside the reference's
        self.machines = QTableWidget()
        self.machines.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # as tall as its three rows in any type size, never a scroll bar of its own
        self.machines.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.machines.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.machines.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.machines.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Maximum)
        self.projector = False  # projector type: the headline says the machines' ratios; their table is hidden
        self.table = QTableWidget()
        self.table.setSortingEnabled(True)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)  # row numbers took a column's room at 720p
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # with one session open: the other GPU's shipped recording, one click away (the menu path is two words)
        self.other: ShippedRecording | None = None
        self.open_other = QPushButton()
        self.open_other.setVisible(False)
        self.open_other.clicked.connect(self._open_other)
        top = QHBoxLayout()
        top.addWidget(QLabel(tr("reference")))
        top.addWidget(self.reference)
        top.addWidget(self.open_other)
        top.addStretch()
        side = QHBoxLayout()
        side.addWidget(self.machines, 0, Qt.AlignmentFlag.AlignTop)
        side.addWidget(self.note, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.headline)
        layout.addLayout(side)
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
        # as wide as the longest name, up to 28 characters (it read "NVIDIA H200, 2026-12-" at 1080p, room to spare)
        longest = max((len(self.reference.itemText(i)) for i in range(self.reference.count())), default=16)
        self.reference.setMinimumContentsLength(max(16, min(28, longest)))
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
            self.headline.setText("")
            self.note.setText(tr("Open two or more sessions (File ▸ Open) to compare machines."))
            return
        others, rows = compare_sources(self.results, reference, self.source_of)
        found = {s: machine_of(self.environment_of(s)) for s in [reference, *others]}
        labels = {s: source_label(s) or tr("live") for s in found}
        names = machines.short_names({s: m.gpu for s, m in found.items()}, labels)
        self._fill_machines(reference, others, found, names)
        self._fill_table(reference, others, rows, found, names)
        self._say(reference, others, rows, found, names)

    def _fill_table(self, reference, others, rows, found, names) -> None:
        """A row per kernel and size: the reference's time, then each other machine's time, its speed against
        the reference and which machine ratio that speed follows ("configs differ" where the two ran different
        block configurations)."""
        lang, ref = language(), names[reference]
        rows = sorted(
            rows, key=lambda row: row["backend"] != "cuda"
        )  # the GPU kernels, which the headline is about, first
        headers = [tr("kernel"), tr("size"), render(machines.COLUMN_MS, lang, {"name": ref})]
        tips = ["", "", labels_tip(reference)]
        for o in others:
            verdict = tr("follows") + (f"\n{names[o]}" if len(others) > 1 else "")
            headers += [
                render(machines.COLUMN_MS, lang, {"name": names[o]}),
                render(machines.COLUMN_VS, lang, {"other": names[o], "reference": ref}),
                verdict,
            ]
            tips += [labels_tip(o), tr("× vs reference"), ""]
        self.table.setColumnCount(len(headers))
        for j, (text, tip) in enumerate(zip(headers, tips)):
            item = QTableWidgetItem(text)
            if tip:
                item.setToolTip(tooltip(tip))
            self.table.setHorizontalHeaderItem(j, item)
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            cells = [(row["series"], ""), (row["size"], ""), (sig(row["reference_ms"]), "")]
            for o in others:
                ms, x = row["others"].get(o, (None, None))
                cells += [
                    (sig(ms), ""),
                    ("—" if x is None else ratio_text(x), ""),
                    self._follows(x, row, (reference, o), found, names),
                ]
            for j, (text, tip) in enumerate(cells):
                item = QTableWidgetItem(text)
                if tip:
                    item.setToolTip(tooltip(tip))
                self.table.setItem(i, j, item)
        self.table.resizeColumnsToContents()
        self._fit_columns()
        self.table.setSortingEnabled(True)

    def _fit_columns(self) -> None:
        """Every column inside the table's width: the kernel column (the widest, its names the least needed at
        a glance) gives way first, never below its header, so "follows" is never behind a scroll bar."""
        header = self.table.horizontalHeader()
        table = self.table
        # the vertical scroll bar's room kept whether or not it shows yet (it comes with the rows)
        room = table.width() - 2 * table.frameWidth() - table.verticalScrollBar().sizeHint().width()
        over = sum(header.sectionSize(j) for j in range(self.table.columnCount())) - room
        if over > 0 and self.table.columnCount():
            least = header.fontMetrics().horizontalAdvance(tr("kernel")) + 24
            header.resizeSection(0, max(least, header.sectionSize(0) - over))

    def apply_theme(self, theme) -> None:
        """Projector type says one thing: the headline (which quotes the machines' ratios) and the kernels'
        table with its verdicts; the machines' table, which the headline repeats, steps aside for table rows."""
        self.projector = is_projector(theme)
        self.machines.setVisible(not self.projector and self.machines.rowCount() > 0)
        self.fit()

    def fit(self) -> None:
        """Both tables to their contents in the type they are drawn in now (projector mode changes it), the
        kernels' table inside its width."""
        self._fit_machines()
        if self.table.columnCount():
            self.table.resizeColumnsToContents()
            self.table.resizeRowsToContents()
            self._fit_columns()

    def _fit_machines(self) -> None:
        """The machines' table as tall as its header and rows: AdjustToContents left an empty row's height."""
        m = self.machines
        m.resizeColumnsToContents()
        m.resizeRowsToContents()
        rows = sum(m.rowHeight(i) for i in range(m.rowCount()))
        m.setFixedHeight(m.horizontalHeader().sizeHint().height() + rows + 2 * m.frameWidth())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.ApplicationFontChange):
            self.fit()

    def _offer_other(self, alone: bool) -> None:
        """Beside a single open session, a button opening the shipped recording of another GPU (if one ships and
        nothing opens files for this panel, none)."""
        self.other = None
        if alone and self.workspace is not None and self.open_session is not None:
            loaded = self.workspace.sessions
            self.other = other_recording([session_gpu(x.session) for x in loaded], [x.path for x in loaded])
        if self.other is not None:
            self.open_other.setText(
                tr("Open the {gpu} recording beside it").format(
                    gpu=machines.short_name(self.other.gpu) or self.other.gpu
                )
            )
        self.open_other.setVisible(self.other is not None)

    def _open_other(self) -> None:
        if self.other is not None and self.open_session is not None:
            self.open_session(self.other.path)

    def _say(self, reference, others, rows, found, names) -> None:
        """The headline (one sentence answering "why is it faster there?") and the note beside the machines:
        what the headline leaves out, computed from the same pairs."""
        lang = language()
        self._offer_other(not others)
        if not rows:
            self.headline.setText("")
            if not others:  # one session: what to do, not only what is missing
                self.note.setText(
                    tr(
                        "Only one session is open. Open another to compare two machines: File ▸ Open recorded or "
                        "published session (an H100 and an H200 recording ship with gemmviz)."
                    )
                )
            else:
                self.note.setText(tr("No kernel and size appears both in the reference and in another session."))
            return
        lines, notes = [], []
        for o in others:
            only = machines.only_in(self.results, self.source_of, reference, o)
            summary = machines.summarize(machines.pairs(rows, o), found[reference], found[o], only)
            lines.append(machines.headline(summary, names[reference], names[o], lang))
            notes.append(machines.details(summary, names[reference], names[o], lang))
        self.headline.setText("\n".join(lines))
        self.note.setText("\n".join(n for n in notes if n))

    def _follows(
        self,
        speed: float | None,
        row: dict,
        pair: tuple[str, str],
        found: dict[str, machines.Machine],
        names: dict[str, str],
    ) -> tuple[str, str]:
        """The "follows" cell: which machine ratio the kernel's speed ratio is nearer, and its tooltip giving all
        three ratios; nothing for a CPU kernel, which the GPUs' ratios do not describe; "configs differ" where the
        two ran different block configurations (the tooltip gives both)."""
        lang, (reference, source) = language(), pair
        ref, other = found[reference], found[source]
        if row["backend"] != "cuda":
            return "—", tr("a CPU kernel: the GPUs' bandwidth and FP32 peak do not apply")
        theirs = row["configs"].get(source, {})
        if speed is not None and theirs != row["config"]:
            both = f"{names[reference]}: {machines.config_text(row['config'])}; "
            both += f"{names[source]}: {machines.config_text(theirs)}"
            return render(machines.CONFIGS_DIFFER, lang), render(machines.CONFIGS_TIP, lang, {"configs": both})
        bandwidth = machines.ratio(other.bandwidth_gbs, ref.bandwidth_gbs)
        peak = machines.ratio(other.fp32_peak_gflops, ref.fp32_peak_gflops)
        key = machines.follows(speed, bandwidth, peak)
        if key is None:
            return "—", tr("the machines' bandwidth or FP32 peak is not recorded")
        tip = tr("this kernel {speed}, bandwidth {bandwidth}, FP32 peak {peak} (other ÷ reference)").format(
            speed=times_text(speed or 0), bandwidth=times_text(bandwidth or 0), peak=times_text(peak or 0)
        )
        return render(key, lang), tip

    def _fill_machines(
        self, reference: str, others: list[str], found: dict[str, machines.Machine], names: dict[str, str]
    ) -> None:
        """A column per machine (the reference first), named by its GPU's short name (the session's label in
        the header's tooltip, with the GPU's full name): its measured memory bandwidth and FP32 peak, the others'
        with their ratio to the reference's ("3,030 GB/s (0.71×)"). Two short rows beside the note: it fits 720p
        in projector type above the kernels' table."""
        sources = [reference, *others]
        self.machines.clear()
        self.machines.setColumnCount(len(sources))
        self.machines.setRowCount(2)
        self.machines.setVerticalHeaderLabels([tr("bandwidth (measured)"), tr("FP32 peak")])
        ref = found[reference]
        for j, source in enumerate(sources):
            m = found[source]
            header = QTableWidgetItem(names[source] + (" " + tr("(reference)") if j == 0 else ""))
            header.setToolTip(tooltip(f"{m.gpu or '—'}: {labels_tip(source)}"))
            self.machines.setHorizontalHeaderItem(j, header)
            bandwidth = "—" if m.bandwidth_gbs is None else f"{rate(m.bandwidth_gbs)} GB/s"
            peak = "—" if m.fp32_peak_gflops is None else f"{rate(m.fp32_peak_gflops)} GFLOP/s"
            if j > 0:
                bw_ratio = machines.ratio(m.bandwidth_gbs, ref.bandwidth_gbs)
                peak_ratio = machines.ratio(m.fp32_peak_gflops, ref.fp32_peak_gflops)
                bandwidth += "" if bw_ratio is None else f" ({times_text(bw_ratio)})"
                peak += "" if peak_ratio is None else f" ({times_text(peak_ratio)})"
            for i, (text, tip) in enumerate([(bandwidth, m.bandwidth_how), (peak, m.fp32_peak_how)]):
                item = QTableWidgetItem(text)
                if tip:
                    item.setToolTip(tooltip(tip))
                self.machines.setItem(i, j, item)
        self.machines.setVisible(not self.projector)
        self._fit_machines()


def labels_tip(source: str) -> str:
    """The session a short column name stands for, in full."""
    return source_label(source) or tr("live (this machine)")
