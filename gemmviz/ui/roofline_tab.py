"""The Roofline tab: one GPU's ceilings with its results under them, the button that measures this GPU's
ceilings, and the explanation of the result (or pair of results) the user picked. Texts come from core."""

from __future__ import annotations

from PySide6.QtWidgets import QPlainTextEdit, QPushButton, QSplitter, QVBoxLayout, QWidget

from gemmviz.core.explain import explain_pair, explain_result
from gemmviz.core.results import Result
from gemmviz.core.roofline import load_ceilings
from gemmviz.core.workspace import Workspace
from gemmviz.ui.charts import RooflineChart
from gemmviz.ui.theme import Theme


class RooflineTab(QSplitter):
    def __init__(self, workspace: Workspace, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.workspace = workspace
        self.chart = RooflineChart(theme)
        self.ceilings_button = QPushButton("Measure this GPU's ceilings")
        self.ceilings_button.setToolTip(
            "Copy bandwidth, cuBLAS FP32 and TF32 rates, measured once on this GPU and cached (a few seconds)"
        )
        self.ceilings_button.setEnabled(False)
        self.explanation = QPlainTextEdit()
        self.explanation.setReadOnly(True)
        self.explanation.setPlaceholderText(
            "Select a result in the table (or click a point) to see the seeds' arithmetic for it next to what was "
            "measured. Select two results to see whether they differ by more than their noise."
        )
        self.addWidget(self.chart)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.ceilings_button)
        side_layout.addWidget(self.explanation, 1)
        self.addWidget(side)
        self.setStretchFactor(0, 3)
        self.setStretchFactor(1, 2)
        self.chart.pointClicked.connect(self.explain)

    def refresh(self) -> None:
        """Draw the roof of the GPU the workspace picks, with the shown results measured on it."""
        ws = self.workspace
        shown = ws.shown()
        gpu = ws.roofline_gpu(shown)
        self.chart.ceilings = load_ceilings(gpu) if gpu else None
        self.chart.set_results([r for r in shown if not gpu or ws.gpu_of(r) == gpu], source_of=ws.source_of)

    def explain(self, result: Result) -> None:
        gpu = self.workspace.gpu_of(result)
        ceilings = load_ceilings(gpu) if gpu else None
        self.explanation.setPlainText(explain_result(result, ceilings, self.workspace.source_of(result)))

    def explain_selection(self, picked: list[Result]) -> None:
        """One result: its explanation; two: whether they differ by more than their noise."""
        if len(picked) == 1:
            self.explain(picked[0])
        elif len(picked) == 2:
            self.explanation.setPlainText(explain_pair(*picked))
