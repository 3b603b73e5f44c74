"""The animation tab: the controls around the view (variant, play, step, scrub, speed, block, thread) next to
the kernel's source with the line of the current step highlighted. The widgets it holds (the frame view, the
code pane, the presenter's keys) are ui/tiling/widgets.py's."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSlider,
    QSpinBox,
    QSplitter,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from gemmviz.core.kernels.variants import Variant
from gemmviz.core.problem import Problem, ProblemError, parse_problem
from gemmviz.core.schedule.block import (
    Schedule,
    animated_variants,
    block_schedule,
    grid_and_threads,
    kind_of,
    legible_problem,
)
from gemmviz.ui.text import QT_TRANSLATE_NOOP, Words, tr
from gemmviz.ui.theme import LIGHT, Theme
from gemmviz.ui.tiling.render import FrameState
from gemmviz.ui.tiling.widgets import CODE_MIN_PT, CodeView, TilingView

GLIDE_MS = 250  # a manual step forward onto a load: the tiles glide into shared memory over this long
FRAME_MS = 16  # ~60 frames per second
PROJECTOR_CODE_PT = 12  # a theme's type above this is a projector's: the code pane shows the compact listing
PROJECTOR_CODE_MIN = 0.9  # and its type stays at least this much of the theme's (24 px at 1080p): lines wrap
CODE_MIN_W = 1100  # narrower than this (1280x720 with the control panel open), the kernel's code starts hidden
AUTO, BENCHMARK = "legible", "benchmark"  # the size menu's two chosen-for-you entries
PARAM_NAMES = (QT_TRANSLATE_NOOP("", "tile"), QT_TRANSLATE_NOOP("", "block"))  # shown through tr()
SIZE_PRESETS = (
    Problem(32, 32, 32),
    Problem(64, 64, 64),
    Problem(100, 70, 90),
    Problem(128, 128, 128),
    Problem(256, 256, 256),
)  # fmt: skip  (100×70×90: ragged edges)


def _title(v: Variant) -> str:
    return tr(v.title)


def _beside_words(v: Variant) -> str:
    return tr("beside: {kernel}").format(kernel=tr(v.title))


class TilingPanel(QWidget):
    """Controls around the view: variant, play/pause, step, scrub, speed, block, thread, kernel source."""

    stepChanged = Signal(int)

    def __init__(self, theme: Theme = LIGHT, parent=None, lang: str | None = None):
        super().__init__(parent)
        self.theme = theme
        self.lang = lang  # the frame's words (the counters, the step's caption): None, the language spoken
        self.problem = Problem(64, 64, 64)  # the size animated (set by rebuild from the size choice)
        self.benchmark: Problem | None = None  # the run panel's size, or the shown result's
        self.tiles = {
            name: v.param_defaults[v.schedule_param] for name, v in animated_variants().items() if v.schedule_param
        }
        self.schedule: Schedule | None = None
        self.step_lines: dict[str, tuple[int, ...]] = {}  # step kind -> its 1-based lines in the code pane
        self.highlighted_lines: tuple[int, ...] = ()
        self.step = 0
        self.phase = 1.0
        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self._tick)
        self.glide_timer = QTimer(self)
        self.glide_timer.setInterval(FRAME_MS)
        self.glide_timer.timeout.connect(self._glide)
        self.words = Words()  # set again in the window's language by retranslate
        self._make_controls()
        self._lay_out(theme)
        self._connect()
        self._fill_tiles()
        self.rebuild()

    def _make_controls(self) -> None:
        """The kernel, play, step and speed buttons, the tab's own tile and size, block and thread."""
        words = self.words
        self.variant_combo = QComboBox()
        for i, (name, v) in enumerate(animated_variants().items()):
            self.variant_combo.addItem("", name)
            words.bind(partial(self.variant_combo.setItemText, i), partial(_title, v))
        self.variant_combo.setCurrentIndex(self.variant_combo.findData("gpu-tiled"))  # the seeds' kernel first
        self.play_button, self.back_button, self.forward_button = QPushButton(), QPushButton(), QPushButton()
        words.bind(self.play_button.setText, lambda: tr("Pause") if self.timer.isActive() else tr("Play"))
        words.bind(self.back_button.setText, lambda: tr("◀ Step"))
        words.bind(self.forward_button.setText, lambda: tr("Step ▶"))
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.speed_spin = QSpinBox()
        self.speed_spin.setRange(1, 60)
        self.speed_spin.setValue(2)
        words.bind(self.speed_spin.setSuffix, lambda: tr(" steps/s"))
        self.block_y, self.block_x, self.thread_y, self.thread_x = (QSpinBox() for _ in range(4))
        # the tab's own tile and size: the animated size is chosen to be read, apart from the benchmark's
        self.tile_label = QLabel(tr("tile"))  # (retranslate: _fill_tiles)
        self.tile_combo = QComboBox()
        words.bind(self.tile_combo.setToolTip, lambda: tr("The kernel's tile (or block) edge in this animation"))
        self.size_combo = QComboBox()
        words.bind(
            self.size_combo.setToolTip,
            lambda: tr(
                "The matrix size animated: 'legible' picks one of a few blocks and K-steps for the chosen kernel "
                "and tile; 'benchmark' is the run panel's size (or the result shown)"
            ),
        )
        # any size typed in it (1000, 1000x800x600) and Enter: a student's "what about 1000×1000?" in three actions,
        # the tile kept (it took eight, through the run panel, and reset TILE 32 to 16)
        self.size_combo.setEditable(True)
        self.size_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        edit = self.size_combo.lineEdit()
        assert edit is not None  # editable: it has its line edit
        self.size_edit: QLineEdit = edit
        words.bind(self.size_edit.setPlaceholderText, lambda: tr("M×N×K, Enter"))
        self.size_combo.addItem("", AUTO)
        self.size_combo.addItem("", BENCHMARK)
        words.bind(lambda text: self.size_combo.setItemText(0, text), lambda: tr("legible"))
        words.bind(lambda text: self.size_combo.setItemText(1, text), self._benchmark_words)
        for size in SIZE_PRESETS:
            self.size_combo.addItem(size.label, size.key)
        # a second kernel's block beside the first, in lockstep (ui/tiling/side.py): naive vs tiled
        self.beside_combo = QComboBox()
        words.bind(
            self.beside_combo.setToolTip,
            lambda: tr("Another kernel's block beside this one, in lockstep, with its counters"),
        )
        self.beside_combo.addItem("", None)
        words.bind(lambda text: self.beside_combo.setItemText(0, text), lambda: tr("nothing beside"))
        for i, (name, v) in enumerate(animated_variants().items(), 1):
            self.beside_combo.addItem("", name)
            words.bind(partial(self.beside_combo.setItemText, i), partial(_beside_words, v))
        self.beside_schedule: Schedule | None = None
        for combo in (self.variant_combo, self.beside_combo):  # long kernel titles: shown cut, not pushing the tab
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(10)
        self.message = QLabel()
        self.message.setStyleSheet("color: #B00020;")
        self.message.setWordWrap(True)
        self.message.setVisible(False)  # a row only while there is something to say: the view needs the height

    def _lay_out(self, theme: Theme) -> None:
        """Two rows of controls over the view and the kernel's source side by side."""
        # two rows, so that the controls fit beside the view at 1280x720 in projector mode too
        row, row2 = QHBoxLayout(), QHBoxLayout()
        words = self.words
        self.code_button = QPushButton()
        words.bind(self.code_button.setText, lambda: tr("Code"))
        self.code_button.setCheckable(True)
        words.bind(
            self.code_button.setToolTip,
            lambda: tr("Show the kernel's source beside the animation, its current line highlighted"),
        )
        self._code_auto = True  # until the user toggles it, the code shows only where there is room for it
        # the kernels' names take the first row's spare room (at 1280×720 "GPU tiled, padded shared memory" was
        # cut to "GPU tiled, padc"); the speed sits in the second row, which has the slider to give
        first: tuple[tuple[QWidget, int], ...] = (
            (self._label(lambda: tr("kernel")), 0),
            (self.variant_combo, 1),
            (self.play_button, 0),
            (self.back_button, 0),
            (self.forward_button, 0),
            (self.code_button, 0),
            (self.beside_combo, 0),
        )
        for widget, stretch in first:
            row.addWidget(widget, stretch)
        for w in (
            self.tile_label,
            self.tile_combo,
            self._label(lambda: tr("size")),
            self.size_combo,
            self._label(lambda: tr("block y,x")),
            self.block_y,
            self.block_x,
            self._label(lambda: tr("thread y,x")),
            self.thread_y,
            self.thread_x,
        ):
            row2.addWidget(w)
        row2.addWidget(self.speed_spin)
        row2.addWidget(self.slider, 1)
        self.view = TilingView(theme)
        self.beside_view = TilingView(theme)
        self.beside_view.setVisible(False)
        self.source = CodeView()
        split = QSplitter()
        split.addWidget(self.view)
        split.addWidget(self.beside_view)
        split.addWidget(self.source)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 3)
        split.setStretchFactor(2, 2)
        split.setSizes([900, 900, 520])
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addLayout(row2)
        layout.addWidget(self.message)
        layout.addWidget(split, 1)

    def _label(self, text) -> QLabel:
        label = QLabel()
        self.words.bind(label.setText, text)
        return label

    def set_language(self, lang: str) -> None:
        """The window's language after a switch (ui/tabs.py): the tab's words and its frame's, in place."""
        self.lang = lang
        self.retranslate()
        self._show()  # the frames given to the views carry the language

    def retranslate(self) -> None:
        """Every word of the tab in the language installed now, on the same kernel, size, step and frame."""
        self.words.retranslate()
        v = animated_variants()[self.variant]
        self.tile_label.setText(tr(v.schedule_param or "tile"))
        for view in (self.view, self.beside_view):
            view.update()  # the frame's words are drawn when it paints

    def _benchmark_words(self) -> str:
        if self.benchmark is None:
            return tr("benchmark")
        return tr("benchmark {size}").format(size=self.benchmark.label)

    def _connect(self) -> None:
        self.code_button.clicked.connect(self._code_clicked)
        self.play_button.clicked.connect(self.toggle_play)
        self.back_button.clicked.connect(lambda: self.go(self.step - 1))
        self.forward_button.clicked.connect(self.step_forward)
        self.slider.valueChanged.connect(self.go)
        self.variant_combo.currentIndexChanged.connect(lambda _i: self._variant_chosen())
        self.tile_combo.currentIndexChanged.connect(lambda _i: self._tile_chosen())
        self.size_combo.currentIndexChanged.connect(lambda _i: self.rebuild())
        self.size_edit.returnPressed.connect(self._size_typed)
        self.beside_combo.currentIndexChanged.connect(lambda _i: self.rebuild(keep_step=True))
        for spin in (self.block_y, self.block_x):
            spin.valueChanged.connect(lambda _v: self.rebuild(keep_step=True))
        for spin in (self.thread_y, self.thread_x):
            spin.valueChanged.connect(lambda _v: self._show())

    def _code_clicked(self, checked: bool) -> None:
        self._code_auto = False
        self.source.setVisible(checked)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_code_type()
        self._auto_code()

    def _fit_code_type(self) -> None:
        """Projector type: the compact listing (no comments), its type near the theme's as the slides scale it
        (24 px at 1080 rows, 16 px at 720): long lines wrap instead of the type shrinking."""
        rows = self.window().height()
        scale = min(1.0, max(rows, 1) / 1080)
        self.source.set_max_pt(self.theme.font_pt, max(CODE_MIN_PT, PROJECTOR_CODE_MIN * self.theme.font_pt * scale))

    def _auto_code(self) -> None:
        """Show the code where the animation keeps room for its texts at the theme's size (projector type
        needs twice the width)."""
        if self._code_auto:
            show = self.width() >= CODE_MIN_W * max(1.0, self.theme.font_pt / 10)
            self.source.setVisible(show)
            self.code_button.setChecked(show)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        for view in (self.view, self.beside_view):
            view.theme = theme
            view.update()
        self._fit_code_type()
        self._load_source()
        if self.schedule is not None:
            self._highlight_source(self.schedule.steps[self.step].kind)
        self._auto_code()

    @property
    def variant(self) -> str:
        return self.variant_combo.currentData()

    def set_problem(
        self, problem: Problem, tile: int | None = None, block: int | None = None, variant: str | None = None
    ) -> None:
        """Animate exactly `problem` (the size menu shows it), with this tile / block and variant."""
        self._set_params(tile, block, variant)
        self._choose_size(problem.key, problem.label)
        self.rebuild()

    def _set_params(self, tile: int | None, block: int | None, variant: str | None) -> None:
        for name, v in animated_variants().items():
            if v.schedule_param == "tile" and tile is not None:
                self.tiles[name] = tile
            if v.schedule_param == "block" and block is not None:
                self.tiles[name] = block
        if variant is not None and variant in animated_variants():
            self.variant_combo.blockSignals(True)
            self.variant_combo.setCurrentIndex(self.variant_combo.findData(variant))
            self.variant_combo.blockSignals(False)
        self._fill_tiles()

    def _choose_size(self, key: str, label: str) -> None:
        i = self.size_combo.findData(key)
        if i < 0:
            self.size_combo.addItem(label, key)
            i = self.size_combo.count() - 1
        self.size_combo.blockSignals(True)
        self.size_combo.setCurrentIndex(i)
        self.size_combo.blockSignals(False)

    def _size_typed(self) -> None:
        """A size typed into the size menu: animated at once, with the kernel and tile shown; a menu entry's own
        words (legible, a preset) pick that entry, and anything else is said in the tab, the size kept."""
        text = self.size_combo.currentText().strip()
        i = self.size_combo.findText(text)
        if i >= 0:
            self.size_combo.setCurrentIndex(i)
            return
        try:
            problem = parse_problem(text.replace("×", "x").replace("*", "x").replace(" ", ""))
        except ProblemError as exc:
            self._say(str(exc))  # the animation shown stays
            return
        self._choose_size(problem.key, problem.label)
        self.rebuild()

    def _set_benchmark(self, problem: Problem) -> None:
        self.benchmark = problem
        self.size_combo.setItemText(self.size_combo.findData(BENCHMARK), self._benchmark_words())

    def follow(self, run_panel) -> None:
        """Follow the run panel: the first chosen value of each parameter, and its size where the size menu
        says 'benchmark' (the legible size otherwise: a 1024³ grid is too fine to read)."""
        try:
            problem = run_panel.current_problem()
        except ProblemError:
            return
        first = {key: values[0] if values else None for key, values in run_panel.param_grid().items()}
        self._set_benchmark(problem)
        self._set_params(first.get("tile"), first.get("block"), None)
        self.rebuild()

    def show_result(self, result) -> None:
        """A result's variant and tile (the tiled kernel's animation if its variant has none); its size
        where the size menu says 'benchmark'."""
        variant = result.variant if result.variant in animated_variants() else "gpu-tiled"
        self._set_benchmark(result.problem)
        self._set_params(result.params.get("tile"), result.params.get("block"), variant)
        self.rebuild()

    def _fill_tiles(self) -> None:
        """The tile (or block) menu of the chosen kernel, showing its current value; none for kernels whose
        tile is fixed by their configuration."""
        v = animated_variants()[self.variant]
        choices = v.param_choices.get(v.schedule_param, ()) if v.schedule_param else ()
        self.tile_combo.blockSignals(True)
        self.tile_combo.clear()
        for value in choices:
            self.tile_combo.addItem(str(value), value)
        tile = self.tiles.get(self.variant)
        if tile is not None and tile not in choices:
            self.tile_combo.addItem(str(tile), tile)  # refused by rebuild with a message, shown as asked
        self.tile_combo.setCurrentIndex(max(0, self.tile_combo.findData(tile)))
        self.tile_combo.blockSignals(False)
        self.tile_label.setText(tr(v.schedule_param or "tile"))
        for w in (self.tile_label, self.tile_combo):
            w.setEnabled(bool(choices))

    def _variant_chosen(self) -> None:
        self._fill_tiles()
        self.rebuild()

    def _tile_chosen(self) -> None:
        value = self.tile_combo.currentData()
        if value is not None:
            self.tiles[self.variant] = value
            self.rebuild()

    def chosen_problem(self, tile: int | None) -> Problem:
        """The size the size menu says: legible for this kernel and tile, the benchmark's, or a fixed one."""
        key = self.size_combo.currentData()
        if key == AUTO or (key == BENCHMARK and self.benchmark is None):
            return legible_problem(self.variant, tile)
        if key == BENCHMARK and self.benchmark is not None:
            return self.benchmark
        return parse_problem(key)

    def rebuild(self, keep_step: bool = False) -> None:
        tile = self.tiles.get(self.variant)
        try:
            self.problem = self.chosen_problem(tile)
            (gy, gx), (ty, tx) = grid_and_threads(self.variant, self.problem, tile)
        except ProblemError as exc:
            self._fail(str(exc))
            return
        for spin, top in (
            (self.block_y, gy - 1),
            (self.block_x, gx - 1),
            (self.thread_y, ty - 1),
            (self.thread_x, tx - 1),
        ):
            spin.blockSignals(True)
            spin.setRange(0, top)
            spin.setEnabled(top > 0)
            spin.blockSignals(False)
        try:
            self.schedule = block_schedule(
                self.variant, self.problem, tile, (self.block_y.value(), self.block_x.value())
            )
            self._say("")
        except ProblemError as exc:
            self._fail(str(exc))
            return
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(self.schedule.steps) - 1)
        self.slider.blockSignals(False)
        self._load_source()
        self._build_beside(tile)
        self.go(min(self.step, len(self.schedule.steps) - 1) if keep_step else 0)

    def _build_beside(self, tile: int | None) -> None:
        """The kernel chosen to stand beside, at the same size and block (clamped to its grid)."""
        name = self.beside_combo.currentData()
        self.beside_schedule = None
        if name is not None:
            v = animated_variants()[name]
            other = self.tiles.get(name) if v.schedule_param else None
            if v.schedule_param and tile in v.param_choices.get(v.schedule_param, ()):
                other = tile  # the same edge where it has it: the two blocks cover the same part of C
            try:
                (gy, gx), _threads = grid_and_threads(name, self.problem, other)
                block = (min(self.block_y.value(), gy - 1), min(self.block_x.value(), gx - 1))
                self.beside_schedule = block_schedule(name, self.problem, other, block)
            except ProblemError as exc:
                self._say(str(exc))
        self.beside_view.setVisible(self.beside_schedule is not None)
        if self.beside_schedule is None:
            self.beside_view.set_state(None)

    def _say(self, message: str) -> None:
        self.message.setText(message)
        self.message.setVisible(bool(message))

    def _fail(self, message: str) -> None:
        """No schedule for these choices: say why, and leave no frame of the previous kernel on screen."""
        self.schedule = None
        self._say(message)
        self.view.set_state(None)

    def _load_source(self) -> None:
        """The kernel as compiled for the animation: its `#define TILE` at the tile chosen (core/kernels/code.py)."""
        from gemmviz.core.kernels.code import kernel_listing

        try:
            compact = self.theme.font_pt > PROJECTOR_CODE_PT
            listing = kernel_listing(self.variant, self.tiles.get(self.variant), compact=compact)
        except (OSError, ValueError) as exc:
            self.source.setPlainText(f"(kernel source not readable: {exc})")
            self.step_lines = {}
            return
        self.source.setPlainText("\n".join(listing.lines))
        self.step_lines = {kind: tuple(i + 1 for i in lines) for kind, lines in listing.steps.items()}

    def frame_state(self) -> FrameState | None:
        if self.schedule is None:
            return None
        thread = (self.thread_y.value(), self.thread_x.value())
        return FrameState(self.schedule, self.step, self.phase, thread, lang=self.lang)

    def _shown(self, state: FrameState | None) -> FrameState | None:
        """The frame as the view shows it: with a second kernel beside, each in half the width, the compact
        counters the lesson's side view uses (no bytes, no single thread's sum: at 1280×720 in projector type the
        full ones were set in 11 px, the compact ones 13; frame_state() stays whole for the exports)."""
        if state is None or self.beside_schedule is None:
            return state
        return replace(state, compact=True)

    def go(self, step: int, phase: float = 1.0) -> None:
        if self.schedule is None:
            return
        if phase >= 1.0:
            self.glide_timer.stop()
        self.step = max(0, min(step, len(self.schedule.steps) - 1))
        self.phase = phase
        self.slider.blockSignals(True)
        self.slider.setValue(self.step)
        self.slider.blockSignals(False)
        self._show()
        self.stepChanged.emit(self.step)

    def _show(self) -> None:
        state = self.frame_state()
        if state is None:
            return
        self.view.set_state(self._shown(state))
        if self.beside_schedule is not None and self.schedule is not None:  # in lockstep: the same progress along K
            from gemmviz.core.schedule.lockstep import follower_step

            j = follower_step(self.schedule, self.beside_schedule, self.step)
            self.beside_view.set_state(FrameState(self.beside_schedule, j, compact=True, lang=self.lang))
        if self.schedule is not None:
            self._highlight_source(self.schedule.steps[self.step].kind)

    def _highlight_source(self, kind: str) -> None:
        """Highlight the lines of the step: the one the kernel marks with `// gemmviz:step <kind>` and the
        statements that follow it (a load's two tiles); a barrier's `__syncthreads()` in its own colour."""
        lines = self.step_lines.get(kind, ())
        selections = []
        colour = QColor(self.theme.palette[3 if kind in ("sync", "sync2") else 1]).lighter(150)
        for line in lines:
            block = self.source.document().findBlockByNumber(line - 1)
            if not block.isValid():
                continue
            cursor = QTextCursor(block)
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
            sel = QTextEdit.ExtraSelection()
            fmt = QTextCharFormat()
            fmt.setBackground(colour)
            fmt.setProperty(QTextCharFormat.Property.FullWidthSelection, True)
            sel.format = fmt
            sel.cursor = cursor
            selections.append(sel)
        if selections:
            first = QTextCursor(self.source.document().findBlockByNumber(lines[0] - 1))
            self.source.setTextCursor(first)
            self.source.ensureCursorVisible()
        self.source.setExtraSelections(selections)
        self.highlighted_line = lines[0] if selections else None
        self.highlighted_lines = tuple(lines) if selections else ()

    def step_forward(self) -> None:
        """One step on; a load glides in over GLIDE_MS instead of jumping."""
        if self.schedule is None or self.step >= len(self.schedule.steps) - 1:
            return
        glides = self.schedule.steps[self.step + 1].kind in kind_of(self.variant).glides and not self.timer.isActive()
        self.go(self.step + 1, phase=0.0 if glides else 1.0)
        if glides:
            self.glide_timer.start()

    def _glide(self) -> None:
        self.phase = min(1.0, self.phase + FRAME_MS / GLIDE_MS)
        if self.phase >= 1.0:
            self.glide_timer.stop()
        self._show()

    def key(self, key: Qt.Key) -> bool:
        """A presenter key: → / PgDn step on, ← / PgUp back, Space play or pause, Home / End first / last."""
        if self.schedule is None:
            return False
        last = len(self.schedule.steps) - 1
        actions = {
            Qt.Key.Key_Right: self.step_forward,
            Qt.Key.Key_PageDown: self.step_forward,
            Qt.Key.Key_Left: lambda: self.go(self.step - 1),
            Qt.Key.Key_PageUp: lambda: self.go(self.step - 1),
            Qt.Key.Key_Space: self.toggle_play,
            Qt.Key.Key_Home: lambda: self.go(0),
            Qt.Key.Key_End: lambda: self.go(last),
        }
        action = actions.get(key)
        if action is None:
            return False
        action()
        return True

    def stop(self) -> None:
        self.timer.stop()
        self.glide_timer.stop()

    def toggle_play(self) -> None:
        if self.timer.isActive():
            self.timer.stop()
            self.play_button.setText(tr("Play"))
        else:
            if self.schedule and self.step >= len(self.schedule.steps) - 1:
                self.go(0)
            self.timer.start()
            self.play_button.setText(tr("Pause"))

    def _tick(self) -> None:
        if self.schedule is None:
            return
        self.phase += self.timer.interval() / 1000 * self.speed_spin.value()
        if self.phase >= 1.0:
            if self.step >= len(self.schedule.steps) - 1:
                self.toggle_play()
                return
            self.go(self.step + 1, phase=0.0)
        else:
            self.view.set_state(self._shown(self.frame_state()))
