"""The main window: controls, device panel, live charts and table, session files, settings."""

from __future__ import annotations

import gc
import glob
import os
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gemmviz.core.bench import BenchSettings, Job, plan_jobs
from gemmviz.core.problem import Problem, ProblemError, check_host_memory, parse_problem
from gemmviz.core.results import Result, Session, SessionError, results_csv, write_atomic
from gemmviz.core.variants import VARIANTS
from gemmviz.ui.charts import BASELINES, GflopsChart, RooflineChart, SpeedupChart, TimeChart
from gemmviz.ui.compare import ComparePanel
from gemmviz.ui.table import ResultsTable
from gemmviz.ui.theme import LIGHT, Theme
from gemmviz.ui.tiling import TilingPanel
from gemmviz.ui.worker import WorkerThread

PRESETS = ["256", "512", "1024", "2048", "4096", "8192"]
CHART_VIEWS = ["all four", "time", "GFLOP/s", "speedup", "table"]
CUSTOM = "Custom M×N×K"
ASSET_SESSIONS = Path(__file__).resolve().parent.parent.parent / "assets" / "sessions"
MAX_RECENT = 8


def recorded_sessions() -> list[Path]:
    """Shipped session files: recorded on our GPU, and the seeds' published tables."""
    return sorted(Path(p) for p in glob.glob(str(ASSET_SESSIONS / "*.json")))


def default_replay_session() -> Path | None:
    """The newest shipped session that was measured (never a published one)."""
    best = None
    for path in recorded_sessions():
        try:
            session = Session.load(path)
        except SessionError:
            continue
        if session.kind == "measured" and (best is None or session.created > best[0]):
            best = (session.created, path)
    return best[1] if best else None


def session_label(session: Session, path: str | os.PathLike) -> str:
    if session.label:
        return session.label
    gpu = session.environment.get("backends", {}).get("cuda", {})
    device = gpu.get("name") if gpu.get("available") else session.environment.get("cpu", "CPU")
    date = (session.created or "")[:10]
    return f"{device}, {date}" if date else f"{device} ({Path(path).name})"


class MainWindow(QMainWindow):
    runRequested = Signal(object, object)
    probeRequested = Signal()
    ceilingsRequested = Signal()

    def __init__(self, backends: dict | None = None, settings: QSettings | None = None, theme: Theme = LIGHT,
                 load_recorded_without_gpu: bool = True):  # fmt: skip
        super().__init__()
        if backends is None:
            from gemmviz.backends import default_backends

            backends = default_backends()
        self.backends = backends
        self.settings = settings if settings is not None else QSettings("gemmviz", "gemmviz")
        self.theme = theme
        self.load_recorded_without_gpu = load_recorded_without_gpu
        self.live: list[Result] = []
        self.loaded: dict[str, list[Result]] = {}
        self.loaded_gpus: dict[str, str | None] = {}
        self.availability: dict[str, tuple[bool, str]] = {}
        self.environment: dict = {}
        self.running = False
        self.last_run_settings: BenchSettings | None = None
        self.last_error: QMessageBox | None = None
        self.replay_label = ""
        self.speedup_size_pinned = False
        self.refresh_pending = False
        self.refresh_dirty = False
        self.closed = False

        self.setWindowTitle("gemmviz")
        from PySide6.QtWidgets import QApplication

        self._base_font_pt = QApplication.instance().font().pointSize()
        self._build()
        self._restore()
        self.worker = WorkerThread(backends)
        w = self.engine_worker = self.worker.worker
        self.runRequested.connect(w.run_jobs)
        self.probeRequested.connect(w.probe)
        self.ceilingsRequested.connect(w.measure_ceilings)
        w.ceilingsReady.connect(self._on_ceilings)
        w.progress.connect(self._on_progress)
        w.result.connect(self._on_result)
        w.finished.connect(self._on_finished)
        w.environmentReady.connect(self._on_environment)
        self.probeRequested.emit()
        self.validate()
        # A full garbage collection walks every tracked object while holding the GIL: with Qt and
        # pyqtgraph loaded that is 50-100 ms of frozen window. Long-lived objects are moved out of its way
        # now and after each run; reference counting still frees everything that is not in a cycle.
        gc.freeze()

    # ---- layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        controls = QWidget()
        form = QVBoxLayout(controls)

        size_box = QGroupBox("Matrix size")
        size_form = QFormLayout(size_box)
        self.size_preset = QComboBox()
        self.size_preset.addItems([*PRESETS, CUSTOM])
        self.size_preset.setCurrentText("1024")
        size_form.addRow("size", self.size_preset)
        self.m_edit, self.n_edit, self.k_edit = QLineEdit("1024"), QLineEdit("1024"), QLineEdit("1024")
        mnk = QHBoxLayout()
        for label, edit in (("M", self.m_edit), ("N", self.n_edit), ("K", self.k_edit)):
            edit.setToolTip(f"{label}: a whole number ≥ 1")
            mnk.addWidget(QLabel(label))
            mnk.addWidget(edit)
        size_form.addRow(mnk)
        self.sweep_edit = QLineEdit("256,512,1024,2048")
        self.sweep_edit.setToolTip("Sizes for Sweep: comma-separated N or MxNxK")
        size_form.addRow("sweep sizes", self.sweep_edit)
        form.addWidget(size_box)

        var_box = QGroupBox("Kernel variants")
        var_layout = QVBoxLayout(var_box)
        self.variant_list = QListWidget()
        for v in VARIANTS.values():
            item = QListWidgetItem(f"{v.name} — {v.title}")
            item.setData(Qt.ItemDataRole.UserRole, v.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(
                Qt.CheckState.Checked
                if v.name in ("cpu-blas", "gpu-naive", "gpu-tiled", "cublas")
                else Qt.CheckState.Unchecked
            )
            item.setToolTip(v.explanation)
            self.variant_list.addItem(item)
        self.variant_list.setMinimumHeight(150)
        var_layout.addWidget(self.variant_list)
        tiles = QHBoxLayout()
        tiles.addWidget(QLabel("tile"))
        self.tile_boxes = {}
        for t in VARIANTS["gpu-tiled"].param_choices["tile"]:
            box = QCheckBox(str(t))
            box.setChecked(t == 16)
            self.tile_boxes[t] = box
            tiles.addWidget(box)
        tiles.addStretch()
        var_layout.addLayout(tiles)
        block = QHBoxLayout()
        block.addWidget(QLabel("naive block"))
        self.block_combo = QComboBox()
        self.block_combo.addItems([f"{b}×{b}" for b in VARIANTS["gpu-naive"].param_choices["block"]])
        self.block_combo.setCurrentText("16×16")
        block.addWidget(self.block_combo)
        block.addStretch()
        var_layout.addLayout(block)
        form.addWidget(var_box)

        timing_box = QGroupBox("Timing")
        timing = QFormLayout(timing_box)
        self.repeats_spin = QSpinBox()
        self.repeats_spin.setRange(1, 1000)
        self.repeats_spin.setValue(20)
        self.warmup_spin = QSpinBox()
        self.warmup_spin.setRange(0, 100)
        self.warmup_spin.setValue(3)
        self.cold_box = QCheckBox("flush L2 before each sample (cold)")
        self.slow_cpu_box = QCheckBox("allow slow CPU loop runs")
        timing.addRow("repeats", self.repeats_spin)
        timing.addRow("warm-up", self.warmup_spin)
        timing.addRow(self.cold_box)
        timing.addRow(self.slow_cpu_box)
        form.addWidget(timing_box)

        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #B00020;")
        form.addWidget(self.message)
        buttons = QHBoxLayout()
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Run the selected variants at this size (Ctrl+R)")
        self.sweep_button = QPushButton("Sweep")
        self.sweep_button.setToolTip("Run sweep sizes × variants × tiles")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        for b in (self.run_button, self.sweep_button, self.cancel_button):
            buttons.addWidget(b)
        form.addLayout(buttons)
        form.addStretch()

        scroll = QScrollArea()
        scroll.setWidget(controls)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(330)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        self.device_label = QLabel("Checking for a CUDA GPU…")
        self.device_label.setWordWrap(True)
        right_layout.addWidget(self.device_label)
        self.replay_banner = QLabel()
        self.replay_banner.setVisible(False)
        self.replay_banner.setStyleSheet("background: #E8F1FA; color: #003A63; padding: 4px;")
        right_layout.addWidget(self.replay_banner)
        self.tabs = QTabWidget()
        right_layout.addWidget(self.tabs, 1)

        charts = QWidget()
        charts_layout = QVBoxLayout(charts)
        show_row = QHBoxLayout()
        self.show_combo = QComboBox()
        self.show_combo.addItems(CHART_VIEWS)
        self.show_combo.setToolTip("One chart at a time reads better on a projector")
        show_row.addWidget(QLabel("show"))
        show_row.addWidget(self.show_combo)
        show_row.addStretch()
        charts_layout.addLayout(show_row)
        grid_host = QWidget()
        grid = QGridLayout(grid_host)
        grid.setContentsMargins(0, 0, 0, 0)
        charts_layout.addWidget(grid_host, 1)
        self.time_chart = TimeChart(self.theme)
        self.gflops_chart = GflopsChart(self.theme)
        self.speedup_chart = SpeedupChart(self.theme)
        speed_panel = QWidget()
        speed_layout = QVBoxLayout(speed_panel)
        speed_layout.setContentsMargins(0, 0, 0, 0)
        choose = QHBoxLayout()
        self.baseline_combo = QComboBox()
        self.baseline_combo.addItems(list(BASELINES))
        self.speedup_size_combo = QComboBox()
        self.speedup_source_combo = QComboBox()
        choose.addWidget(self.speedup_source_combo)
        choose.addWidget(QLabel("vs"))
        choose.addWidget(self.baseline_combo)
        choose.addWidget(QLabel("at"))
        choose.addWidget(self.speedup_size_combo)
        choose.addStretch()
        speed_layout.addLayout(choose)
        speed_layout.addWidget(self.speedup_chart)
        self.table = ResultsTable()
        grid.addWidget(self.time_chart, 0, 0)
        grid.addWidget(self.gflops_chart, 0, 1)
        grid.addWidget(speed_panel, 1, 0)
        grid.addWidget(self.table, 1, 1)
        self.chart_panels = {
            "time": self.time_chart,
            "GFLOP/s": self.gflops_chart,
            "speedup": speed_panel,
            "table": self.table,
        }
        self.show_combo.currentTextChanged.connect(self._show_charts)
        self.tabs.addTab(charts, "Charts")
        roof = QSplitter()
        self.roofline_chart = RooflineChart(self.theme)
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
        roof.addWidget(self.roofline_chart)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.ceilings_button)
        side_layout.addWidget(self.explanation, 1)
        roof.addWidget(side)
        roof.setStretchFactor(0, 3)
        roof.setStretchFactor(1, 2)
        self.roofline_tab = roof
        self.tabs.addTab(roof, "Roofline")
        self.tiling = TilingPanel(self.theme)
        self.tabs.addTab(self.tiling, "Tiling animation")
        self.compare = ComparePanel()
        self.tabs.addTab(self.compare, "Compare sessions")

        self.splitter = QSplitter()
        self.splitter.addWidget(scroll)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.setCentralWidget(self.splitter)

        self.progress = QProgressBar()
        self.progress.setMaximumWidth(300)
        self.progress.setVisible(False)
        self.eta_label = QLabel()
        self.statusBar().addPermanentWidget(self.eta_label)
        self.statusBar().addPermanentWidget(self.progress)

        self._build_menus()
        for w in (self.m_edit, self.n_edit, self.k_edit, self.sweep_edit):
            w.textChanged.connect(self.validate)
        self.size_preset.currentTextChanged.connect(self._on_preset)
        self.variant_list.itemChanged.connect(self.validate)
        for box in self.tile_boxes.values():
            box.toggled.connect(self.validate)
        for box in self.tile_boxes.values():
            box.toggled.connect(self._follow_controls)
        for w in (self.m_edit, self.n_edit, self.k_edit):
            w.editingFinished.connect(self._follow_controls)
        self.size_preset.currentTextChanged.connect(self._follow_controls)
        self.block_combo.currentTextChanged.connect(self._follow_controls)
        self.table.doubleClicked.connect(self._on_table_activated)
        for chart in (self.time_chart, self.gflops_chart):
            chart.pointClicked.connect(self.show_animation)
        self.roofline_chart.pointClicked.connect(self.explain)
        self.ceilings_button.clicked.connect(self.measure_ceilings)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection)
        self.run_button.clicked.connect(self.run_current)
        self.sweep_button.clicked.connect(self.run_sweep)
        self.cancel_button.clicked.connect(self.cancel)
        self.baseline_combo.currentTextChanged.connect(self._update_speedup_view)
        self.speedup_size_combo.currentIndexChanged.connect(self._update_speedup_view)
        self.speedup_source_combo.currentIndexChanged.connect(self._update_speedup_view)
        self._on_preset(self.size_preset.currentText())

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.open_action = QAction(
            "&Open session…", self, shortcut=QKeySequence.StandardKey.Open, triggered=self.open_session_dialog
        )
        self.save_action = QAction(
            "&Save session…", self, shortcut=QKeySequence.StandardKey.Save, triggered=self.save_session_dialog
        )
        self.csv_action = QAction("Export results as &CSV…", self, triggered=self.export_csv_dialog)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recorded_menu = file_menu.addMenu("Open recorded or published session")
        for path in recorded_sessions():
            self.recorded_menu.addAction(
                QAction(path.name, self, triggered=lambda _=False, p=path: self.open_session(p))
            )
        self.close_loaded_action = QAction("Close loaded sessions", self, triggered=self.close_loaded)
        self.clear_action = QAction("Clear live results", self, triggered=self.clear_live)
        quit_action = QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit, triggered=self.close)
        self.export_action = QAction(
            "&Export chart…", self, shortcut=QKeySequence("Ctrl+E"), triggered=self.export_chart_dialog
        )
        self.export_anim_action = QAction("Export &animation…", self, triggered=self.export_animation_dialog)
        for a in (self.open_action, self.save_action, self.csv_action, self.export_action, self.export_anim_action):
            file_menu.addAction(a)
        file_menu.addSeparator()
        file_menu.addAction(self.close_loaded_action)
        file_menu.addAction(self.clear_action)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        run_menu = self.menuBar().addMenu("&Run")
        self.run_action = QAction("&Run", self, shortcut=QKeySequence("Ctrl+R"), triggered=self.run_current)
        self.sweep_action = QAction("&Sweep", self, shortcut=QKeySequence("Ctrl+Shift+R"), triggered=self.run_sweep)
        self.cancel_action = QAction("&Cancel", self, shortcut=QKeySequence("Esc"), triggered=self.cancel)
        for a in (self.run_action, self.sweep_action, self.cancel_action):
            run_menu.addAction(a)
        self.view_menu = self.menuBar().addMenu("&View")
        self.projector_action = QAction(
            "&Projector mode (large fonts, thick lines)", self, checkable=True, shortcut=QKeySequence("Ctrl+P")
        )
        self.dark_action = QAction("&Dark theme", self, checkable=True)
        self.fullscreen_action = QAction("&Full screen", self, checkable=True, shortcut=QKeySequence("F11"))
        self.play_action = QAction("Play / pause animation", self, shortcut=QKeySequence("Space"))
        self.step_back_action = QAction("Step back", self, shortcut=QKeySequence("Left"))
        self.step_forward_action = QAction("Step forward", self, shortcut=QKeySequence("Right"))
        self.projector_action.toggled.connect(lambda on: self.set_projector(on))
        self.dark_action.toggled.connect(lambda on: self.set_projector(self.projector_action.isChecked(), on))
        self.fullscreen_action.toggled.connect(lambda on: self.showFullScreen() if on else self.showNormal())
        self.play_action.triggered.connect(lambda: self.tiling.toggle_play())
        self.step_back_action.triggered.connect(lambda: self.tiling.go(self.tiling.step - 1))
        self.step_forward_action.triggered.connect(lambda: self.tiling.go(self.tiling.step + 1))
        for a in (self.projector_action, self.dark_action, self.fullscreen_action):
            self.view_menu.addAction(a)
        self.view_menu.addSeparator()
        for a in (self.play_action, self.step_back_action, self.step_forward_action):
            self.view_menu.addAction(a)
        self._refresh_recent_menu()

    # ---- inputs ------------------------------------------------------------------------------
    def _on_preset(self, text: str) -> None:
        custom = text == CUSTOM
        for edit in (self.m_edit, self.n_edit, self.k_edit):
            edit.setEnabled(custom)
            if not custom:
                edit.setText(text)
        self.validate()

    def selected_variants(self) -> list[str]:
        names = []
        for i in range(self.variant_list.count()):
            item = self.variant_list.item(i)
            if item.checkState() == Qt.CheckState.Checked and item.flags() & Qt.ItemFlag.ItemIsEnabled:
                names.append(item.data(Qt.ItemDataRole.UserRole))
        return names

    def set_selected_variants(self, names: list[str]) -> None:
        for i in range(self.variant_list.count()):
            item = self.variant_list.item(i)
            item.setCheckState(
                Qt.CheckState.Checked if item.data(Qt.ItemDataRole.UserRole) in names else Qt.CheckState.Unchecked
            )

    def current_problem(self) -> Problem:
        text = self.size_preset.currentText()
        if text != CUSTOM:
            return parse_problem(text)
        return parse_problem(f"{self.m_edit.text()}x{self.n_edit.text()}x{self.k_edit.text()}")

    def sweep_problems(self) -> list[Problem]:
        parts = [p for p in self.sweep_edit.text().split(",") if p.strip()]
        if not parts:
            raise ProblemError("sweep sizes: give at least one size, e.g. 256,512,1024")
        return [parse_problem(p) for p in parts]

    def param_grid(self) -> dict[str, list[int]]:
        tiles = [t for t, box in self.tile_boxes.items() if box.isChecked()]
        return {"tile": tiles, "block": [int(self.block_combo.currentText().split("×")[0])]}

    def plan(self, problems: list[Problem]) -> list[Job]:
        variants = self.selected_variants()
        if not variants:
            raise ProblemError("choose at least one available kernel variant")
        grid = self.param_grid()
        if not grid["tile"] and any("tile" in VARIANTS[v].param_choices for v in variants):
            raise ProblemError("choose at least one tile size for the tiled kernel")
        for p in problems:
            check_host_memory(p)
        jobs = plan_jobs(variants, problems, grid)
        for job in jobs:
            reason = VARIANTS[job.variant].refusal(job.problem, job.params_dict)
            if reason:
                raise ProblemError(reason)
        return jobs

    def validate(self, *_args) -> str | None:
        """Check the inputs; show the first problem inline and enable Run/Sweep only when valid."""
        run_error = sweep_error = None
        try:
            self.plan([self.current_problem()])
        except ProblemError as exc:
            run_error = str(exc)
        try:
            self.plan(self.sweep_problems())
        except ProblemError as exc:
            sweep_error = str(exc)
        idle = not self.running
        self.run_button.setEnabled(idle and run_error is None)
        self.run_action.setEnabled(idle and run_error is None)
        self.sweep_button.setEnabled(idle and sweep_error is None)
        self.sweep_action.setEnabled(idle and sweep_error is None)
        self.message.setText(run_error or (f"Sweep: {sweep_error}" if sweep_error else ""))
        return run_error or sweep_error

    def bench_settings(self) -> BenchSettings:
        return BenchSettings(
            warmup=self.warmup_spin.value(),
            repeats=self.repeats_spin.value(),
            cold_l2=self.cold_box.isChecked(),
            allow_slow_cpu=self.slow_cpu_box.isChecked(),
            cpu_limit_s=30.0,
        )

    # ---- running -----------------------------------------------------------------------------
    @Slot()
    def run_current(self) -> None:
        try:
            self.start(self.plan([self.current_problem()]))
        except ProblemError as exc:
            self.message.setText(str(exc))

    @Slot()
    def run_sweep(self) -> None:
        try:
            self.start(self.plan(self.sweep_problems()))
        except ProblemError as exc:
            self.message.setText(f"Sweep: {exc}")

    def start(self, jobs: list[Job]) -> None:
        if self.running or not jobs:
            return
        self.running = True
        self.speedup_size_pinned = False
        self.run_failures: list[Result] = []
        self.last_run_settings = self.bench_settings()
        self.cancel_button.setEnabled(True)
        self.progress.setRange(0, len(jobs))
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.validate()
        self.statusBar().showMessage(f"Running {len(jobs)} job(s)…")
        self.runRequested.emit(jobs, self.last_run_settings)

    @Slot()
    def cancel(self) -> None:
        if self.running:
            self.engine_worker.cancel.set()
            self.statusBar().showMessage("Cancelling at the next launch boundary…")

    @Slot(int, int, str, float)
    def _on_progress(self, done: int, total: int, label: str, seconds_left: float) -> None:
        self.progress.setValue(done)
        if done < total:
            self.statusBar().showMessage(f"{done}/{total}: {label}")
        self.eta_label.setText(f"~{seconds_left:.0f} s left" if seconds_left >= 0 and done < total else "")

    @Slot(object)
    def _on_result(self, result: Result) -> None:
        self.live.append(result)
        # Failures (compile error, failed launch) and memory refusals get a dialog; other refusals
        # (a slow CPU loop, an unsupported tile) are explained in the table without interrupting.
        if result.status == "failed" or (result.status == "refused" and "memory" in (result.error or "")):
            self.run_failures.append(result)
        self.schedule_refresh()

    def schedule_refresh(self) -> None:
        """Redraw soon, at most a few times a second, one chart per event-loop turn, so a burst of
        results never freezes the window (each step is a few tens of ms)."""
        self.refresh_dirty = True
        if self.refresh_pending:
            return  # the staged refresh under way sees the flag and goes round once more
        self.refresh_pending = True
        QTimer.singleShot(150, self._staged_refresh)

    def _staged_refresh(self) -> None:
        self.refresh_dirty = False
        shown = self.shown_results()
        # Each step is a few tens of ms at most; a chart that gains many series at once creates two per
        # step and is called again until it is complete.
        steps = [
            lambda: self.time_chart.set_results(shown, max_new=2),
            lambda: self.gflops_chart.set_results(shown, max_new=2),
            lambda: self.table.set_results(shown),
            lambda: self._set_speedup_results(shown),
            lambda: self._refresh_hidden_tabs(shown),
        ]

        def run(i: int) -> None:
            if self.closed:
                return
            if steps[i]() is False:
                QTimer.singleShot(20, lambda: run(i))
                return
            if i + 1 < len(steps):
                # A real timer, not 0 ms: painting, input and other timers get a turn between charts.
                QTimer.singleShot(20, lambda: run(i + 1))
            elif self.refresh_dirty:
                QTimer.singleShot(150, self._staged_refresh)
            else:
                self.refresh_pending = False

        run(0)

    @Slot(object)
    def _on_finished(self, results: list) -> None:
        self.running = False
        self.cancel_button.setEnabled(False)
        self.progress.setVisible(False)
        self.eta_label.setText("")
        if self.closed:
            return
        gc.freeze()
        cancelled = self.engine_worker.cancel.is_set()
        ok = sum(r.valid for r in results)
        self.statusBar().showMessage(
            f"{'Cancelled' if cancelled else 'Done'}: {ok} of {len(results)} result(s) valid", 10000
        )
        self.validate()
        if self.run_failures:
            first = self.run_failures[0]
            details = "\n\n".join(f"{r.series} at {r.problem.label}:\n{r.error}" for r in self.run_failures)
            self.show_error(
                "A run failed",
                f"{len(self.run_failures)} job(s) failed; first: {first.series} at {first.problem.label}.",
                details,
            )

    def refresh(self) -> None:
        shown = self.shown_results()
        self.time_chart.set_results(shown)
        self.gflops_chart.set_results(shown)
        self.table.set_results(shown)
        self._set_speedup_results(shown)
        self._refresh_hidden_tabs(shown, force=True)

    def measure_ceilings(self) -> None:
        if self.running:
            self.statusBar().showMessage("Wait for the run to finish before measuring ceilings", 5000)
            return
        self.running = True
        self.ceilings_button.setEnabled(False)
        self.validate()
        self.statusBar().showMessage("Measuring this GPU's bandwidth and GEMM rates…")
        self.ceilingsRequested.emit()

    def _on_ceilings(self, data) -> None:
        self.running = False
        self.ceilings_button.setEnabled(bool(self.availability.get("cuda", (False,))[0]))
        self.validate()
        if isinstance(data, str):
            self.show_error("Cannot measure the ceilings", data)
            return
        self.statusBar().showMessage(
            f"Ceilings of {data['device']}: {data['bandwidth_gbs']:,.0f} GB/s, FP32 GEMM {data['fp32_gemm_gflops']:,.0f} GFLOP/s",
            10000,
        )
        self.refresh()

    def _refresh_hidden_tabs(self, shown: list[Result], force: bool = False) -> None:
        """The roofline and comparison are redrawn when on screen; otherwise when their tab is opened."""
        current = self.tabs.currentWidget()
        self._stale_tabs = {self.roofline_tab, self.compare}
        if force or current is self.roofline_tab:
            self._set_roofline_results(shown)
            self._stale_tabs.discard(self.roofline_tab)
        if force or current is self.compare:
            self.compare.set_results(shown)
            self._stale_tabs.discard(self.compare)

    def _on_tab_changed(self, _index: int) -> None:
        current = self.tabs.currentWidget()
        if current in getattr(self, "_stale_tabs", set()):
            shown = self.shown_results()
            if current is self.roofline_tab:
                self._set_roofline_results(shown)
            else:
                self.compare.set_results(shown)
            self._stale_tabs.discard(current)

    def _roofline_gpu(self, shown: list[Result]) -> str | None:
        """Whose roof to draw: this machine's GPU if it ran GPU results, else the first session's GPU."""
        gpu = self.environment.get("backends", {}).get("cuda", {})
        if gpu.get("available") and any(r.backend == "cuda" and not r.source for r in shown):
            return gpu.get("name")
        for label, results in self.loaded.items():
            if any(r.backend == "cuda" for r in results):
                return self.loaded_gpus.get(label)
        return gpu.get("name") if gpu.get("available") else None

    def _set_roofline_results(self, shown: list[Result]) -> None:
        from gemmviz.core.roofline import load_ceilings

        gpu = self._roofline_gpu(shown)
        self.roofline_chart.ceilings = load_ceilings(gpu) if gpu else None
        self.roofline_chart.set_results([r for r in shown if not gpu or self._gpu_of(r) == gpu])

    def _gpu_of(self, r: Result) -> str | None:
        if r.source:
            return self.loaded_gpus.get(r.source)
        return self.environment.get("backends", {}).get("cuda", {}).get("name")

    def _on_table_selection(self, *_args) -> None:
        rows = sorted({self.table.proxy.mapToSource(i).row() for i in self.table.selectionModel().selectedIndexes()})
        picked = [self.table.row_results[r] for r in rows if r < len(self.table.row_results)]
        if len(picked) == 1:
            self.explain(picked[0])
        elif len(picked) == 2:
            from gemmviz.core.rigor import compare

            a, b = picked
            if a.valid and b.valid and a.samples_ms and b.samples_ms:
                self.explanation.setPlainText(compare(a, b)[2])
            else:
                self.explanation.setPlainText("Both results must be valid measurements to compare them.")

    def explain(self, result: Result) -> None:
        from gemmviz.core.rigor import flags
        from gemmviz.core.roofline import explain, load_ceilings

        gpu = self._gpu_of(result)
        text = explain(result, load_ceilings(gpu) if gpu else None)
        warnings = flags(result) if result.valid else []
        rigor = (
            f"\n\nHow it was measured: {result.warmup} warm-up(s), {len(result.samples_ms)} timed samples, "
            f"{'cold' if result.cold_l2 else 'warm'} L2"
            + (
                f", SM clock {result.sm_clock_mhz_before:.0f}→{result.sm_clock_mhz_after:.0f} MHz"
                if result.sm_clock_mhz_before
                else ""
            )
            + (
                f", {result.temperature_c_before:.0f}→{result.temperature_c_after:.0f} °C"
                if result.temperature_c_before
                else ""
            )
            + "."
        )
        if result.note:
            rigor += f"\nNote: {result.note}"
        if result.source:
            rigor += f"\nFrom: {result.source}"
        self.explanation.setPlainText(
            text + (rigor if result.samples_ms else "") + "".join(f"\n⚠ {w}" for w in warnings)
        )

    def _set_speedup_results(self, shown: list[Result]) -> None:
        self.speedup_chart.results = shown
        self._fill_speedup_combos(keep=self.speedup_size_pinned)

    def _fill_speedup_combos(self, keep: bool) -> None:
        chart = self.speedup_chart
        source = self.speedup_source_combo.currentData()
        size = self.speedup_size_combo.currentData() if keep else None
        for combo in (self.speedup_source_combo, self.speedup_size_combo):
            combo.blockSignals(True)
        self.speedup_source_combo.clear()
        for s in chart.sources():
            self.speedup_source_combo.addItem(s or "live", s)
        index = self.speedup_source_combo.findData(source)
        self.speedup_source_combo.setCurrentIndex(max(index, 0))
        chart.source = self.speedup_source_combo.currentData()
        chart.baseline = BASELINES[self.baseline_combo.currentText()]
        self.speedup_size_combo.clear()
        for key in chart.sizes():
            self.speedup_size_combo.addItem(key.replace("x", "×"), key)
        index = self.speedup_size_combo.findData(size) if size is not None else -1
        if index < 0:
            index = self.speedup_size_combo.findData(chart.default_key())
        self.speedup_size_combo.setCurrentIndex(index)
        for combo in (self.speedup_source_combo, self.speedup_size_combo):
            combo.blockSignals(False)
        chart.set_view(chart.baseline, self.speedup_size_combo.currentData(), chart.source)

    def _update_speedup_view(self, *_args) -> None:
        # A size the user picks is kept; otherwise the chart follows the largest size with a baseline.
        self.speedup_size_pinned = self.sender() is self.speedup_size_combo
        self._fill_speedup_combos(keep=self.speedup_size_pinned)

    def shown_results(self) -> list[Result]:
        out = list(self.live)
        for results in self.loaded.values():
            out += results
        return out

    # ---- theme and export ------------------------------------------------------------------------
    def set_projector(self, on: bool, dark: bool | None = None) -> None:
        """Projector mode: 20 pt fonts, 4 px lines, big symbols; light (default) or dark theme."""
        from PySide6.QtWidgets import QApplication

        from gemmviz.ui.theme import theme_for

        dark = self.dark_action.isChecked() if dark is None else dark
        for action, value in ((self.projector_action, on), (self.dark_action, dark)):
            action.blockSignals(True)
            action.setChecked(value)
            action.blockSignals(False)
        self.theme = theme_for(on, dark)
        if on and self.show_combo.currentText() == "all four":
            self._view_before_projector = "all four"
            self.show_combo.setCurrentText("GFLOP/s")  # one chart at a time reads better from the back row
        elif not on and getattr(self, "_view_before_projector", None):
            self.show_combo.setCurrentText(self._view_before_projector)
            self._view_before_projector = None
        for chart in (self.time_chart, self.gflops_chart, self.speedup_chart, self.roofline_chart):
            chart.apply_theme(self.theme)
        self.tiling.set_theme(self.theme)
        app = QApplication.instance()
        font = app.font()
        font.setPointSize(self.theme.font_pt if on else self._base_font_pt)
        app.setFont(font)
        self.setStyleSheet(
            f"QWidget {{ background: {self.theme.background}; color: {self.theme.foreground}; }}" if dark else ""
        )
        self.refresh()

    def _show_charts(self, choice: str) -> None:
        for name, panel in self.chart_panels.items():
            panel.setVisible(choice == "all four" or choice == name)

    def export_chart_dialog(self) -> None:
        from gemmviz.ui.export_dialog import ExportDialog

        ExportDialog(self).open()

    def export_chart(self, kind: str, path: str, width: int, height: int) -> bool:
        from gemmviz.core.roofline import load_ceilings
        from gemmviz.ui.export import ExportError, export_chart

        shown = self.shown_results()
        if kind == "roofline":
            shown = self.roofline_chart.results
        gpu = self._roofline_gpu(self.shown_results())
        view = (self.speedup_chart.baseline, self.speedup_chart.size_key, self.speedup_chart.source)
        try:
            export_chart(kind, shown, path, width, height, self.theme, load_ceilings(gpu) if gpu else None, view)
        except (ExportError, ProblemError, OSError) as exc:
            self.show_error("Cannot export", str(exc))
            return False
        self.statusBar().showMessage(f"Exported {kind} chart to {path}", 5000)
        return True

    def export_animation_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Export animation", "tiling.gif", "Animated GIF (*.gif);;MP4 video (*.mp4);;PNG frames (folder) (*)"
        )
        if path:
            self.export_animation(path)

    def export_animation(self, path: str, width: int = 1280, height: int = 720) -> bool:
        from gemmviz.ui.export import ExportError, export_frames, export_gif, export_mp4

        schedule = self.tiling.schedule
        if schedule is None:
            self.show_error("Cannot export", "There is no animation to export: choose a valid size and tile first.")
            return False
        thread = (self.tiling.thread_y.value(), self.tiling.thread_x.value())
        speed = self.tiling.speed_spin.value()
        try:
            if path.lower().endswith(".gif"):
                n = export_gif(schedule, path, thread, width, height, speed, self.theme)
            elif path.lower().endswith(".mp4"):
                n = export_mp4(schedule, path, thread, width, height, speed, self.theme)
            else:
                n = export_frames(schedule, path, thread, width, height, self.theme)
        except (ExportError, ProblemError, OSError) as exc:
            self.show_error("Cannot export the animation", str(exc))
            return False
        self.statusBar().showMessage(f"Exported {n} frames to {path}", 5000)
        return True

    # ---- animation ---------------------------------------------------------------------------
    def _follow_controls(self, *_args) -> None:
        """The animation follows the size, tile and naive block chosen in the main controls."""
        try:
            problem = self.current_problem()
        except ProblemError:
            return
        tiles = [t for t, box in self.tile_boxes.items() if box.isChecked()]
        grid = self.param_grid()
        self.tiling.set_problem(problem, tile=tiles[0] if tiles else None, block=grid["block"][0])

    def _on_table_activated(self, index) -> None:
        row = self.table.proxy.mapToSource(index).row()
        if 0 <= row < len(self.table.row_results):
            self.show_animation(self.table.row_results[row])

    def show_animation(self, result: Result) -> None:
        """Open the tiling animation for a result's variant, size and tile (naive and tiled have one)."""
        from gemmviz.core.schedule import animated_variants

        variant = result.variant if result.variant in animated_variants() else "gpu-tiled"
        self.tiling.set_problem(result.problem, tile=result.params.get("tile"), block=result.params.get("block"),
                                variant=variant)  # fmt: skip
        self.tabs.setCurrentWidget(self.tiling)

    # ---- device ------------------------------------------------------------------------------
    @Slot(object)
    def _on_environment(self, env: dict) -> None:
        self.environment = env
        backends = env.get("backends", {})
        for name in self.backends:
            entry = backends.get(name, {})
            self.availability[name] = (bool(entry.get("available")), entry.get("reason", "unknown"))
        for i in range(self.variant_list.count()):
            item = self.variant_list.item(i)
            v = VARIANTS[item.data(Qt.ItemDataRole.UserRole)]
            ok, reason = env.get("variants", {}).get(
                v.name, self.availability.get(v.backend, (False, f"no {v.backend} backend"))
            )
            flags = item.flags()
            item.setFlags(flags | Qt.ItemFlag.ItemIsEnabled if ok else flags & ~Qt.ItemFlag.ItemIsEnabled)
            item.setToolTip(v.explanation if ok else f"Unavailable: {reason}\n{v.explanation}")
        gpu = backends.get("cuda", {})
        self.ceilings_button.setEnabled(bool(gpu.get("available")))
        if gpu.get("available"):
            peak = gpu.get("fp32_peak_gflops")
            self.device_label.setText(
                f"<b>{gpu.get('name')}</b> · {gpu.get('sms')} SMs · cc {gpu.get('compute_capability')} · "
                f"{gpu.get('memory_total_bytes', 0) / 2**30:.0f} GiB · FP32 peak "
                f"{(peak or 0) / 1e3:.1f} TFLOP/s · SM clock {gpu.get('sm_clock_mhz') or gpu.get('max_sm_clock_mhz'):.0f} MHz"
            )
            self.device_label.setStyleSheet("")
        else:
            self.device_label.setText(
                f"<b>No CUDA GPU:</b> {gpu.get('reason', 'no CUDA backend')}. "
                "CPU variants run live; GPU figures come from recorded sessions (File ▸ Open recorded or published session)."
            )
            self.device_label.setStyleSheet("background: #FFF4CE; color: #4A3B00; padding: 6px;")
            if self.load_recorded_without_gpu and not self.loaded:
                path = default_replay_session()
                if path is not None:
                    self.open_session(path, replay=True)
        self.validate()

    # ---- files -------------------------------------------------------------------------------
    def open_session_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open session", "", "gemmviz sessions (*.json);;All files (*)")
        if path:
            self.open_session(path)

    def open_session(self, path: str | os.PathLike, replay: bool = False) -> bool:
        try:
            session = Session.load(path)
        except SessionError as exc:
            self.show_error("Cannot open session", str(exc))
            return False
        label = session_label(session, path)
        if session.kind == "published":
            label = f"{label} (published)"
        elif replay or session.environment.get("backends", {}).get("cuda", {}).get("available"):
            label = f"{label} (recorded)"
        for r in session.results:
            r.source = label
        self.loaded[label] = session.results
        gpu = session.environment.get("backends", {}).get("cuda", {})
        self.loaded_gpus[label] = gpu.get("name") if gpu.get("available") else session.environment.get("gpu")
        if replay:
            self.replay_label = f"Recorded on {label.removesuffix(' (recorded)')} — replay"
            self.replay_banner.setText(self.replay_label)
            self.replay_banner.setVisible(True)
        self._add_recent(str(path))
        self.refresh()
        return True

    def close_loaded(self) -> None:
        self.loaded.clear()
        self.replay_banner.setVisible(False)
        self.refresh()

    def clear_live(self) -> None:
        self.live.clear()
        self.refresh()

    def live_session(self) -> Session:
        from gemmviz.core.bench import make_session

        session = make_session(self.live, self.backends, self.last_run_settings or self.bench_settings())
        for r in session.results:
            r.source = ""
        return session

    def save_session_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save session", "session.json", "gemmviz sessions (*.json)")
        if path:
            self.save_session(path)

    def save_session(self, path: str) -> bool:
        if not self.live:
            self.show_error("Nothing to save", "There are no live results yet: run something first.")
            return False
        try:
            self.live_session().save(path)
        except OSError as exc:
            self.show_error("Cannot save session", str(exc))
            return False
        self._add_recent(path)
        self.statusBar().showMessage(f"Session saved to {path}", 5000)
        return True

    def export_csv_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export CSV", "results.csv", "CSV (*.csv)")
        if path:
            self.export_csv(path)

    def export_csv(self, path: str) -> bool:
        shown = self.shown_results()
        if not shown:
            self.show_error("Nothing to export", "There are no results to export yet.")
            return False
        try:
            write_atomic(path, results_csv(shown))
        except OSError as exc:
            self.show_error("Cannot export CSV", str(exc))
            return False
        return True

    def _add_recent(self, path: str) -> None:
        recent = [p for p in self.settings.value("recent", [], type=list) if p != path]
        self.settings.setValue("recent", [path, *recent][:MAX_RECENT])
        self._refresh_recent_menu()

    def _refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.value("recent", [], type=list)
        for p in recent:
            self.recent_menu.addAction(QAction(p, self, triggered=lambda _=False, p=p: self.open_session(p)))
        self.recent_menu.setEnabled(bool(recent))

    def show_error(self, title: str, text: str, details: str = "") -> None:
        """A non-blocking dialog: the app keeps working while it is up."""
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self)
        if details:
            box.setDetailedText(details)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_error = box
        self.last_error_text = f"{title}: {text}\n{details}".strip()
        box.open()

    # ---- settings ----------------------------------------------------------------------------
    def _restore(self) -> None:
        s = self.settings
        geometry = s.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1500, 900)
        state = s.value("window/splitter")
        if state is not None:
            self.splitter.restoreState(state)
        self.size_preset.setCurrentText(s.value("run/preset", "1024"))
        for key, edit in (("m", self.m_edit), ("n", self.n_edit), ("k", self.k_edit)):
            if self.size_preset.currentText() == CUSTOM:
                edit.setText(s.value(f"run/{key}", edit.text()))
        self.sweep_edit.setText(s.value("run/sweep", self.sweep_edit.text()))
        variants = s.value("run/variants")
        if variants is not None:
            self.set_selected_variants(list(variants) if isinstance(variants, list) else [variants])
        tiles = s.value("run/tiles")
        if tiles is not None:
            tiles = {int(t) for t in (tiles if isinstance(tiles, list) else [tiles])}
            for t, box in self.tile_boxes.items():
                box.setChecked(t in tiles)
        self.repeats_spin.setValue(int(s.value("run/repeats", 20)))
        self.warmup_spin.setValue(int(s.value("run/warmup", 3)))
        self.cold_box.setChecked(s.value("run/cold", False, type=bool))

    def _save_settings(self) -> None:
        s = self.settings
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/splitter", self.splitter.saveState())
        s.setValue("run/preset", self.size_preset.currentText())
        s.setValue("run/m", self.m_edit.text())
        s.setValue("run/n", self.n_edit.text())
        s.setValue("run/k", self.k_edit.text())
        s.setValue("run/sweep", self.sweep_edit.text())
        checked = [
            self.variant_list.item(i).data(Qt.ItemDataRole.UserRole)
            for i in range(self.variant_list.count())
            if self.variant_list.item(i).checkState() == Qt.CheckState.Checked
        ]
        s.setValue("run/variants", checked)
        s.setValue("run/tiles", [t for t, b in self.tile_boxes.items() if b.isChecked()])
        s.setValue("run/repeats", self.repeats_spin.value())
        s.setValue("run/warmup", self.warmup_spin.value())
        s.setValue("run/cold", self.cold_box.isChecked())
        s.sync()

    def shutdown(self) -> bool:
        """Stop the worker (cancel at the next launch boundary) and wait for its thread to end."""
        if self.worker is None:
            return True
        stopped = self.worker.stop()
        self.worker = None
        return stopped

    def closeEvent(self, event) -> None:
        self.closed = True
        self._save_settings()
        if self.running:
            self.statusBar().showMessage("Stopping the running job…")
        self.shutdown()
        super().closeEvent(event)
