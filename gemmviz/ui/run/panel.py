"""The run panel: matrix size, kernel variants and their parameters, timing; validation; remembered settings.

Everything listed here comes from the registry: the variants, which are selected at first, and one row of
choices per parameter any variant has (its `param_choices`), so a new variant needs no change here.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import contextmanager
from functools import partial

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gemmviz.core import settings
from gemmviz.core.kernels.variants import VARIANTS, Variant, default_variants
from gemmviz.core.measure.bench import BenchSettings, Job, plan_jobs
from gemmviz.core.problem import Problem, ProblemError, check_host_memory, parse_problem, problem_of
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui import settings_store as store
from gemmviz.ui.follow import WorkspaceFollower
from gemmviz.ui.text import QT_TRANSLATE_NOOP, Words, tr

PRESETS = list(settings.SIZE_PRESETS)
CUSTOM = settings.CUSTOM_SIZE
CPU_LIMIT_S = 30.0
# the registry's variant titles (core/kernels/variants.py), for the catalogue: the list shows them through tr()
VARIANT_TITLES = (
    QT_TRANSLATE_NOOP("", "CPU triple loop"),
    QT_TRANSLATE_NOOP("", "CPU BLAS (numpy)"),
    QT_TRANSLATE_NOOP("", "GPU naive"),
    QT_TRANSLATE_NOOP("", "GPU naive, uncoalesced"),
    QT_TRANSLATE_NOOP("", "GPU shared-memory tiled"),
    QT_TRANSLATE_NOOP("", "GPU tiled, padded shared memory"),
    QT_TRANSLATE_NOOP("", "GPU 1D block tiling"),
    QT_TRANSLATE_NOOP("", "GPU 2D block tiling"),
    QT_TRANSLATE_NOOP("", "GPU 2D tiling, float4 loads"),
    QT_TRANSLATE_NOOP("", "GPU 2D tiling, double-buffered"),
    QT_TRANSLATE_NOOP("", "GPU warp tiling"),
    QT_TRANSLATE_NOOP("", "GPU warp tiling, cp.async pipeline"),
    QT_TRANSLATE_NOOP("", "GPU warp tiling, cp.async, any size"),
    QT_TRANSLATE_NOOP("", "GPU tensor cores (WMMA TF32)"),
    QT_TRANSLATE_NOOP("", "GPU tensor cores (mma.sync TF32)"),
    QT_TRANSLATE_NOOP("", "GPU Hopper (TMA + wgmma TF32)"),
    QT_TRANSLATE_NOOP("", "cuBLAS SGEMM (FP32)"),
    QT_TRANSLATE_NOOP("", "cuBLAS SGEMM (TF32 tensor cores)"),
)
# the registry's variant explanations (core/kernels/variants.py): tooltips and the roofline tab's explanations
VARIANT_EXPLANATIONS = (
    QT_TRANSLATE_NOOP("", "The seeds' V0: three nested loops on one CPU core, compiled to machine code by numba."),
    QT_TRANSLATE_NOOP("", "numpy's matmul: an optimised multi-threaded BLAS SGEMM on the CPU."),
    QT_TRANSLATE_NOOP("", "The seeds' V1: one thread per element of C, every operand read from global memory."),
    QT_TRANSLATE_NOOP("", "The naive kernel with threadIdx.x walking down a column of C: no warp access is coalesced."),
    QT_TRANSLATE_NOOP("", "The seeds' V2: TILE×TILE tiles of A and B staged in shared memory, each reused TILE times."),
    QT_TRANSLATE_NOOP("", "The seeds' V2 with one extra column per shared array, the textbook fix for bank conflicts."),
    QT_TRANSLATE_NOOP("", "Each thread computes 8 results down a column: one B value from shared memory feeds 8 FMAs."),
    QT_TRANSLATE_NOOP("", "Each thread computes an 8x8 register tile of C from 8 values of A and 8 of B."),
    QT_TRANSLATE_NOOP("", "2D block tiling with 16-byte loads and stores, A transposed in shared memory."),
    QT_TRANSLATE_NOOP("", "As float4 tiling, with two shared buffers: the next tiles load while these are used."),
    QT_TRANSLATE_NOOP(
        "", "Block, warp and thread tiles: each warp owns a tile of C, each thread a small tile per sub-tile."
    ),
    QT_TRANSLATE_NOOP(
        "",
        "Warp tiling with 128×128 block tiles and 8×8 per thread (two thirds of the L2 traffic of 64×128 tiles), fed by cp.async: the next K-slices copy straight into shared memory while this one multiplies, A lands transposed without bank conflicts, and small grids split K across blocks to fill the GPU.",
    ),
    QT_TRANSLATE_NOOP(
        "",
        "The cp.async warp-tiling kernel for any size, with no padded copies: copies that fall outside A or B are issued with a source size of 0 bytes (the shared tiles get zeros, no memory is read) and edge tiles store with bounds checks, while interior tiles run gpu-cpasync's code. K is split across blocks whenever that fills the last wave better: at 2048×3072×4096, 192 tiles of 128×256 on 132 SMs would leave the second of two waves half empty; split in two, 384 blocks fill three waves.",
    ),
    QT_TRANSLATE_NOOP(
        "", "TF32 tensor-core multiply-adds through WMMA, block tile in shared memory, cp.async pipeline."
    ),
    QT_TRANSLATE_NOOP("", "TF32 mma.sync with ldmatrix fragment loads: fewer shared-memory instructions than WMMA."),
    QT_TRANSLATE_NOOP(
        "",
        "Hopper's own machinery. One thread of a producer warpgroup copies whole tiles of A and B from global into shared memory with single TMA instructions (cp.async.bulk.tensor), into a ring of stages; each stage has a 'full' mbarrier (it counts the bytes the copy delivers) and an 'empty' one (the consumers arrive when they are done with it, and the producer waits on it before refilling the stage). Two consumer warpgroups issue warpgroup MMAs (wgmma, 64 rows by BM columns by 8 deep, asynchronous) straight from shared memory. TF32 wgmma wants both operands K-major, and B (row-major K×N) is not, so the kernel computes the transposed product Cᵀ = Bᵀ·Aᵀ: the B tile comes through registers, where no layout is required, and the A tile is read by the tensor cores from shared memory as it stands. Its tile shape follows the size: 256×128 tiles from 2048³ up, past one wave in persistent 2-block clusters along a Hilbert curve; 192×128 tiles, or 128×64 with one consumer warpgroup, where those fill the 132 SMs better; each result's note says which ran.",
    ),
    QT_TRANSLATE_NOOP("", "NVIDIA's library SGEMM in plain FP32 (no tensor cores): the bar for hand-written kernels."),
    QT_TRANSLATE_NOOP(
        "", "The same cuBLAS call with TF32 tensor-core math: faster, with a 10-bit mantissa on the inputs."
    ),
)


def param_rows() -> dict[str, tuple[list[int], int]]:
    """{param: (every value any variant allows, the default of the first variant that has it)}, registry order."""
    rows: dict[str, tuple[list[int], int]] = {}
    for v in VARIANTS.values():
        for key, choices in v.param_choices.items():
            values, default = rows.get(key, ([], v.param_defaults[key]))
            rows[key] = (sorted({*values, *choices}), default)
    return rows


def _variant_words(v: Variant) -> str:
    return f"{v.name} — {tr(v.title)}"


def _listed(value: object) -> list:
    """A setting read as a list (store.read checked it against its declaration)."""
    return list(value) if isinstance(value, list | tuple) else []


def _whole(value: object) -> int:
    """A setting read as a whole number (store.read checked it against its declaration)."""
    return value if isinstance(value, int) else 0


class CheckLabel(QLabel):
    """A check box's words, wrapped: a click on them ticks the box."""

    def __init__(self, box: QCheckBox):
        super().__init__()
        self.box = box
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setBuddy(box)

    def mousePressEvent(self, event) -> None:
        if self.box.isEnabled() and event.button() == Qt.MouseButton.LeftButton:
            self.box.toggle()
        super().mousePressEvent(event)


class RunPanel(QWidget):
    changed = Signal()  # an input changed: validate again
    problemChosen = Signal()  # size or parameters settled (not every keystroke): the animation follows

    def __init__(self, workspace: Workspace | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.words = Words()  # set again in the window's language by retranslate
        form = QVBoxLayout(self)
        form.addWidget(self._size_box())
        form.addWidget(self._variant_box())
        form.addWidget(self._timing_box())
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setStyleSheet("color: #B00020;")
        form.addWidget(self.message)
        form.addStretch()
        # Run, Sweep, Cancel: a bar the window keeps under the scrolled panel, so that they stay on screen
        # however tall the panel is (1280×720 in projector type: Run was below the window's edge)
        self.button_bar = QWidget()
        self.button_bar.setLayout(self._buttons())
        self.workspace = workspace
        self.follower = None
        if workspace is not None:  # the variants this machine can run, as the worker probed them
            self.follower = WorkspaceFollower(self, workspace)
            self.follower.connect(workspace.events.environment_changed, self._on_environment)

        for edit in (self.m_edit, self.n_edit, self.k_edit, self.sweep_edit):
            edit.textChanged.connect(self._emit_changed)
        for edit in (self.m_edit, self.n_edit, self.k_edit):
            edit.editingFinished.connect(self.problemChosen)
        self.size_preset.currentIndexChanged.connect(self._on_preset)
        self._sync_size_edits()  # the preset chosen before the signal was connected: its fields greyed out too
        self.variant_list.itemChanged.connect(self._emit_changed)

    def _size_box(self) -> QGroupBox:
        """The size: a preset or M, N and K, and the sizes of a sweep."""
        words = self.words
        size_box = QGroupBox()
        words.bind(size_box.setTitle, lambda: self.tr("Matrix size"))
        size_form = QFormLayout(size_box)
        self.size_preset = QComboBox()
        for preset in PRESETS:
            self.size_preset.addItem(preset, preset)
        self.size_preset.addItem("", CUSTOM)  # the setting keeps the English key
        custom = self.size_preset.count() - 1
        words.bind(lambda text: self.size_preset.setItemText(custom, text), lambda: self.tr("Custom M×N×K"))
        self.size_preset.setCurrentText("1024")
        size_form.addRow(self._label(lambda: self.tr("size")), self.size_preset)
        self.m_edit, self.n_edit, self.k_edit = QLineEdit("1024"), QLineEdit("1024"), QLineEdit("1024")
        mnk = QHBoxLayout()
        for label, edit in (("M", self.m_edit), ("N", self.n_edit), ("K", self.k_edit)):
            words.bind(edit.setToolTip, partial(self._whole_number_words, label))
            mnk.addWidget(QLabel(label))
            mnk.addWidget(edit)
        size_form.addRow(mnk)
        self.sweep_edit = QLineEdit("256,512,1024,2048")
        words.bind(self.sweep_edit.setToolTip, lambda: self.tr("Sizes for Sweep: comma-separated N or MxNxK"))
        size_form.addRow(self._label(lambda: self.tr("sweep sizes")), self.sweep_edit)
        return size_box

    def _variant_box(self) -> QGroupBox:
        """The registry's variants, the default ones checked, then one row of choices per parameter."""
        var_box = QGroupBox()
        self.words.bind(var_box.setTitle, lambda: self.tr("Kernel variants"))
        var_layout = QVBoxLayout(var_box)
        self.variant_list = QListWidget()
        defaults = set(default_variants())
        for v in VARIANTS.values():
            item = QListWidgetItem()
            self.words.bind(item.setText, partial(_variant_words, v))  # VARIANT_TITLES marks them
            item.setData(Qt.ItemDataRole.UserRole, v.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if v.name in defaults else Qt.CheckState.Unchecked)
            item.setToolTip(tr(v.explanation))
            self.variant_list.addItem(item)
        self.variant_list.setMinimumHeight(150)
        # a title wider than the list is cut with … (its name and title in its tooltip), never scrolled sideways
        self.variant_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.variant_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        var_layout.addWidget(self.variant_list)
        # One row per parameter: each checked value runs, for every selected variant that has the parameter.
        self.param_boxes: dict[str, dict[int, QCheckBox]] = {}
        for key, (values, default) in param_rows().items():
            var_layout.addLayout(self._param_row(key, values, default))
        return var_box

    def _param_row(self, key: str, values: list[int], default: int) -> QHBoxLayout:
        """A parameter's label (naming the variants that have it) and one check box per value."""
        row = QHBoxLayout()
        users = ", ".join(v.name for v in VARIANTS.values() if key in v.param_choices)
        label = self._label(lambda: tr(key))  # tile, block: ui/tiling.PARAM_NAMES marks them
        self.words.bind(label.setToolTip, lambda: self.tr("{key} of {users}").format(key=tr(key), users=users))
        row.addWidget(label)
        self.param_boxes[key] = {}
        for value in values:
            box = QCheckBox(str(value))
            box.setChecked(value == default)
            box.toggled.connect(self._emit_changed)
            box.toggled.connect(self.problemChosen)
            self.param_boxes[key][value] = box
            row.addWidget(box)
        row.addStretch()
        return row

    def _timing_box(self) -> QGroupBox:
        """Repeats, warm-up, cold L2 and the slow CPU loop's permission."""
        words = self.words
        timing_box = QGroupBox()
        words.bind(timing_box.setTitle, lambda: self.tr("Timing"))
        timing = QFormLayout(timing_box)
        self.repeats_spin = QSpinBox()
        self.repeats_spin.setRange(1, 1000)
        self.repeats_spin.setValue(20)
        self.warmup_spin = QSpinBox()
        self.warmup_spin.setRange(0, 100)
        self.warmup_spin.setValue(3)
        self.cold_box, self.slow_cpu_box = QCheckBox(), QCheckBox()
        timing.addRow(self._label(lambda: self.tr("repeats")), self.repeats_spin)
        timing.addRow(self._label(lambda: self.tr("warm-up")), self.warmup_spin)
        timing.addRow(self._wrapped(self.cold_box, lambda: self.tr("flush L2 before each sample (cold)")))
        timing.addRow(self._wrapped(self.slow_cpu_box, lambda: self.tr("allow slow CPU loop runs")))
        return timing_box

    def _wrapped(self, box: QCheckBox, text) -> QHBoxLayout:
        """A check box whose words wrap onto a second line where the panel is narrow (in projector type at
        1280×720 "flush L2 before each sample (cold)" on one line made the panel wider than its pane: it was cut
        at the right); a click on the words ticks it as a check box's own text does."""
        label = CheckLabel(box)
        self.words.bind(label.setText, text)
        self.words.bind(box.setAccessibleName, text)
        row = QHBoxLayout()
        row.addWidget(box, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(label, 1)
        return row

    def _buttons(self) -> QHBoxLayout:
        """Run, Sweep and Cancel (disabled until a run starts)."""
        buttons = QHBoxLayout()
        words = self.words
        self.run_button, self.sweep_button, self.cancel_button = QPushButton(), QPushButton(), QPushButton()
        words.bind(self.run_button.setText, lambda: self.tr("Run"))
        words.bind(self.run_button.setToolTip, lambda: self.tr("Run the selected variants at this size (Ctrl+R)"))
        words.bind(self.sweep_button.setText, lambda: self.tr("Sweep"))
        words.bind(self.sweep_button.setToolTip, lambda: self.tr("Run sweep sizes × variants × parameters"))
        words.bind(self.cancel_button.setText, lambda: self.tr("Cancel"))
        self.cancel_button.setEnabled(False)
        for b in (self.run_button, self.sweep_button, self.cancel_button):
            buttons.addWidget(b)
        return buttons

    def _whole_number_words(self, label: str) -> str:
        return self.tr("{0}: a whole number ≥ 1").format(label)

    def _label(self, text) -> QLabel:
        """A label whose words `text()` gives, set again by retranslate."""
        label = QLabel()
        self.words.bind(label.setText, text)
        return label

    def retranslate(self) -> None:
        """Every word of the panel in the language installed now; every choice stays as it is."""
        with self._one_change():
            self.words.retranslate()
            if self.workspace is not None and self.workspace.environment:
                self.apply_availability(self.workspace)  # the variants' tooltips, with why one cannot run

    def _emit_changed(self, *_args) -> None:
        self.changed.emit()

    def _on_preset(self, _index: int) -> None:
        self._sync_size_edits()
        self.changed.emit()
        self.problemChosen.emit()

    def _sync_size_edits(self) -> None:
        """M, N and K are typed only under "Custom M×N×K"; a preset shows its size there, greyed out."""
        text = self.size_preset.currentData()  # the preset's English key ("1024", CUSTOM), not its shown text
        custom = text == CUSTOM
        for edit in (self.m_edit, self.n_edit, self.k_edit):
            edit.setEnabled(custom)
            if not custom:
                edit.blockSignals(True)
                edit.setText(text)
                edit.blockSignals(False)

    # ---- what the inputs say -----------------------------------------------------------------------
    def selected_variants(self) -> list[str]:
        """Checked variants that can run here, in registry order."""
        names = []
        for i in range(self.variant_list.count()):
            item = self.variant_list.item(i)
            if item.checkState() == Qt.CheckState.Checked and item.flags() & Qt.ItemFlag.ItemIsEnabled:
                names.append(item.data(Qt.ItemDataRole.UserRole))
        return names

    def set_selected_variants(self, names: list[str]) -> None:
        with self._one_change():
            for i in range(self.variant_list.count()):
                item = self.variant_list.item(i)
                checked = item.data(Qt.ItemDataRole.UserRole) in names
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    @contextmanager
    def _one_change(self):
        """The variant list's items changed together: one `changed` for all of them, not one an item (each
        re-plans the run and the sweep: 36 items made 0.1 s of every window's start)."""
        self.variant_list.blockSignals(True)
        try:
            yield
        finally:
            self.variant_list.blockSignals(False)
        self.changed.emit()

    def set_param_values(self, key: str, values: list[int]) -> None:
        for value, box in self.param_boxes[key].items():
            box.setChecked(value in values)

    def current_problem(self) -> Problem:
        text = self.size_preset.currentData()
        if text != CUSTOM:
            return parse_problem(text)
        return problem_of(self.m_edit.text(), self.n_edit.text(), self.k_edit.text())

    def sweep_problems(self) -> list[Problem]:
        parts = [p for p in self.sweep_edit.text().split(",") if p.strip()]
        if not parts:
            raise ProblemError(self.tr("give at least one size, e.g. 256,512,1024"))
        return [parse_problem(p) for p in parts]

    def param_grid(self) -> dict[str, list[int]]:
        return {key: [v for v, box in boxes.items() if box.isChecked()] for key, boxes in self.param_boxes.items()}

    def plan(self, problems: list[Problem]) -> list[Job]:
        """The jobs these inputs ask for; ProblemError with the first reason they cannot run."""
        variants = self.selected_variants()
        if not variants:
            raise ProblemError(self.tr("choose at least one available kernel variant"))
        grid = self.param_grid()
        for name in variants:
            for key in VARIANTS[name].param_choices:
                if not grid[key]:
                    raise ProblemError(self.tr("choose at least one {key} size for {name}").format(key=key, name=name))
        for p in problems:
            check_host_memory(p)
        choices: dict[str, Iterable[int]] = dict(grid)
        jobs = plan_jobs(variants, problems, choices)
        for job in jobs:
            reason = VARIANTS[job.variant].refusal(job.problem, job.params_dict)
            if reason:
                raise ProblemError(reason)
        return jobs

    def validate(self, busy: bool) -> tuple[str | None, str | None]:
        """Check the inputs, show the first problem inline, enable Run/Sweep only when valid and idle.
        Returns (why Run cannot start, why Sweep cannot start)."""
        run_error = sweep_error = None
        try:
            self.plan([self.current_problem()])
        except ProblemError as exc:
            run_error = str(exc)
        try:
            self.plan(self.sweep_problems())
        except ProblemError as exc:
            sweep_error = str(exc)
        self.run_button.setEnabled(not busy and run_error is None)
        self.sweep_button.setEnabled(not busy and sweep_error is None)
        self.cancel_button.setEnabled(busy)
        self.message.setText(run_error or (self.tr("Sweep: {0}").format(sweep_error) if sweep_error else ""))
        return run_error, sweep_error

    def bench_settings(self) -> BenchSettings:
        return BenchSettings(
            warmup=self.warmup_spin.value(),
            repeats=self.repeats_spin.value(),
            cold_l2=self.cold_box.isChecked(),
            allow_slow_cpu=self.slow_cpu_box.isChecked(),
            cpu_limit_s=CPU_LIMIT_S,
        )

    def _on_environment(self, _env: dict) -> None:
        if self.workspace is not None:
            self.apply_availability(self.workspace)

    def apply_availability(self, workspace: Workspace) -> None:
        """Grey out the variants the probed environment cannot run, with the reason as their tooltip."""
        with self._one_change():
            for i in range(self.variant_list.count()):
                item = self.variant_list.item(i)
                v = VARIANTS[item.data(Qt.ItemDataRole.UserRole)]
                ok, reason = workspace.variant_availability(v.name, v.backend)
                flags = item.flags()
                item.setFlags(flags | Qt.ItemFlag.ItemIsEnabled if ok else flags & ~Qt.ItemFlag.ItemIsEnabled)
                item.setToolTip(
                    tr(v.explanation) if ok else self.tr("Unavailable: {0}").format(reason) + f"\n{tr(v.explanation)}"
                )

    # ---- settings ---------------------------------------------------------------------------------
    def restore(self, s: QSettings) -> None:
        """Every value is checked against its declaration (core/settings.py); a wrong one reads as its default."""
        index = self.size_preset.findData(store.read(s, settings.PRESET))
        self.size_preset.setCurrentIndex(max(index, 0))
        if self.size_preset.currentData() == CUSTOM:
            for key, edit in (("m", self.m_edit), ("n", self.n_edit), ("k", self.k_edit)):
                edit.setText(str(store.read(s, settings.DIMS[key])))
        self.sweep_edit.setText(str(store.read(s, settings.SWEEP)))
        self.set_selected_variants([str(v) for v in _listed(store.read(s, self._variants_setting()))])
        for key, setting in self._param_settings().items():
            self.set_param_values(key, [int(v) for v in _listed(store.read(s, setting))])
        self.repeats_spin.setValue(_whole(store.read(s, settings.REPEATS)))
        self.warmup_spin.setValue(_whole(store.read(s, settings.WARMUP)))
        self.cold_box.setChecked(bool(store.read(s, settings.COLD_L2)))

    @staticmethod
    def _variants_setting() -> settings.Setting:
        return settings.variants_setting(list(VARIANTS), default_variants())

    @staticmethod
    def _param_settings() -> dict[str, settings.Setting]:
        return {key: settings.param_setting(key, values, [default]) for key, (values, default) in param_rows().items()}

    def save(self, s: QSettings) -> None:
        store.write(s, settings.PRESET, self.size_preset.currentData())
        for key, edit in (("m", self.m_edit), ("n", self.n_edit), ("k", self.k_edit)):
            store.write(s, settings.DIMS[key], edit.text())
        store.write(s, settings.SWEEP, self.sweep_edit.text())
        checked = [
            self.variant_list.item(i).data(Qt.ItemDataRole.UserRole)
            for i in range(self.variant_list.count())
            if self.variant_list.item(i).checkState() == Qt.CheckState.Checked
        ]
        store.write(s, self._variants_setting(), checked)
        params = self._param_settings()
        for key, values in self.param_grid().items():
            store.write(s, params[key], values)
        store.write(s, settings.REPEATS, self.repeats_spin.value())
        store.write(s, settings.WARMUP, self.warmup_spin.value())
        store.write(s, settings.COLD_L2, self.cold_box.isChecked())
