"""The Roofline tab: one GPU's ceilings with its results under them, the button that measures this GPU's
ceilings, and the explanation of the result (or pair of results) the user picked. Texts come from core.

The explanation is shown a page at a time (its paragraphs, merged up to PAGE_CHARS), beside the chart; ◀ ▶ turn
the pages, and a page taller than the pane (projector type at 1280×720) scrolls."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gemmviz.core.hardware.roofline import load_ceilings
from gemmviz.core.session.results import Result
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.charts.roofline import RooflineChart
from gemmviz.ui.follow import WorkspaceFollower
from gemmviz.ui.i18n import explain_pair, explain_result, language
from gemmviz.ui.text import QT_TRANSLATE_NOOP, tr
from gemmviz.ui.theme import Theme

PAGE_CHARS = 480  # about ten lines at projector size in the side panel
PLACEHOLDER = QT_TRANSLATE_NOOP(
    "",
    "Click a point (Tab or N: the next one under it) to see the seeds' arithmetic for it beside what was "
    "measured. In the Charts tab, select two results to see whether they differ by more than their noise.",
)


def pages_of(text: str, limit: int = PAGE_CHARS) -> list[str]:
    """The text's paragraphs, consecutive ones merged while the page stays within `limit` characters."""
    pages: list[str] = []
    for para in (p.strip() for p in text.split("\n\n")):
        if not para:
            continue
        if pages and len(pages[-1]) + 2 + len(para) <= limit:
            pages[-1] += "\n\n" + para
        else:
            pages.append(para)
    return pages or [""]


class RooflineTab(QSplitter):
    def __init__(self, workspace: Workspace, theme: Theme, parent: QWidget | None = None, lang: str | None = None):
        super().__init__(parent)
        self.lang = lang or language()  # what its explanations are written in
        self.workspace = workspace
        self.chart = RooflineChart(theme)
        self.ceilings_button = QPushButton(tr("Measure ceilings"))  # short: the side pane is narrow at 720p
        self.ceilings_button.setToolTip(
            tr("Copy bandwidth, cuBLAS FP32 and TF32 rates, measured once on this GPU and cached (a few seconds)")
        )
        self.ceilings_button.setEnabled(False)
        self.explanation = QLabel()
        self.explanation.setTextFormat(Qt.TextFormat.PlainText)
        self.explanation.setWordWrap(True)
        self.explanation.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.explanation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.explanation.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        # a page longer than the pane (pages 2-3 at 1280×720 in projector type were clipped) scrolls
        self.explanation_scroll = QScrollArea()
        self.explanation_scroll.setWidgetResizable(True)
        self.explanation_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.explanation_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.explanation_scroll.setWidget(self.explanation)
        self.pages: list[str] = []
        self.page = 0
        self.previous_button = QPushButton("◀")
        self.next_button = QPushButton("▶")
        self.page_label = QLabel()
        self.previous_button.clicked.connect(lambda: self.show_page(self.page - 1))
        self.next_button.clicked.connect(lambda: self.show_page(self.page + 1))
        self.addWidget(self.chart)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.ceilings_button)
        side_layout.addWidget(self.explanation_scroll, 1)
        nav = QHBoxLayout()
        for w in (self.previous_button, self.page_label, self.next_button):
            nav.addWidget(w)
        nav.addStretch()
        side_layout.addLayout(nav)
        self.addWidget(side)
        self.setStretchFactor(0, 3)
        self.setStretchFactor(1, 2)
        self.set_text(tr(PLACEHOLDER))
        self.chart.pointClicked.connect(self.explain)
        self.chart.seriesToggled.connect(self.toggle_series)
        # the shown results, drawn when on screen (an export asks `drawn_results`, not the chart); the table's
        # picks (Workspace.select), explained at once
        self.follower = WorkspaceFollower(self, workspace, self.refresh)
        self.follower.connect(workspace.events.selection_changed, self.explain_selection)

    def set_text(self, text: str) -> None:
        self.pages = pages_of(text)
        self.show_page(0)

    def show_page(self, page: int) -> None:
        self.page = max(0, min(page, len(self.pages) - 1))
        self.explanation.setText(self.pages[self.page])
        self.explanation_scroll.verticalScrollBar().setValue(0)
        many = len(self.pages) > 1
        for w in (self.previous_button, self.next_button, self.page_label):
            w.setVisible(many)
        self.page_label.setText(f"{self.page + 1} / {len(self.pages)}")
        self.previous_button.setEnabled(self.page > 0)
        self.next_button.setEnabled(self.page + 1 < len(self.pages))

    def text(self) -> str:
        """The whole explanation shown (every page)."""
        return "\n\n".join(self.pages)

    def toggle_series(self, series: str) -> None:
        self.workspace.hidden ^= {series}  # announced: every view redraws

    def _roof(self) -> tuple[str | None, list[Result]]:
        """The GPU whose roof the workspace picks, and the shown results measured on it."""
        ws = self.workspace
        shown = ws.shown()
        gpu = ws.roofline_gpu(shown)
        return gpu, [r for r in shown if not gpu or ws.gpu_of(r) == gpu]

    def drawn_results(self) -> list[Result]:
        """What the chart draws (or would, hidden): the shown results measured on the GPU of the roof."""
        return self._roof()[1]

    def refresh(self) -> None:
        """Draw the roof of the GPU the workspace picks, with the shown results measured on it."""
        ws = self.workspace
        gpu, drawn = self._roof()
        self.chart.ceilings = load_ceilings(gpu) if gpu else None
        self.chart.hidden_series = [s for s in ws.series() if s in ws.hidden]
        self.chart.set_results(drawn, source_of=ws.source_of)

    def explain(self, result: Result) -> None:
        gpu = self.workspace.gpu_of(result)
        ceilings = load_ceilings(gpu) if gpu else None
        self.set_text(explain_result(result, self.lang, ceilings, self.workspace.source_of(result)))

    def explain_selection(self, picked: list[Result]) -> None:
        """One result: its explanation; two: whether they differ by more than their noise."""
        if len(picked) == 1:
            self.explain(picked[0])
        elif len(picked) == 2:
            self.set_text(explain_pair(picked[0], picked[1], self.lang))
