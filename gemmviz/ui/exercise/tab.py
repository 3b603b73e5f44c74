"""The Exercise tab: pick an exercise, write its starter or open your kernel, edit it in your own editor; the
tab checks it again each time a save changes its content (the check record and an editor's temporary files
in the same folder never start one) and shows the verdicts, the likeliest cause, the map of wrong regions of C,
compile errors and sanitizer findings at their source lines, the timing beside the reference, and the hints.

A check runs `backends/exercise.check_exercise` in a worker thread: every GPU step there is a child process
with a time limit, so the window never waits on the GPU and a kernel that hangs or crashes never takes it
down. Cancel stops the step in flight within half a second. A saved check (FILE.check.json, from this tab or
`gemmviz exercise check` on a GPU machine) opens here without a GPU."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gemmviz.core.exercise.check import cause_lines, finish
from gemmviz.core.exercise.exercises import (
    Exercise,
    ExerciseError,
    shipped_exercises,
)
from gemmviz.core.exercise.record import CheckFileError, access_trace, load_check, record_target
from gemmviz.core.exercise.report import finding_lines
from gemmviz.core.fileio import OutputError, check_target, write_atomic
from gemmviz.core.numbers import rate
from gemmviz.ui.accesses.canvas import AccessCanvas
from gemmviz.ui.exercise import report
from gemmviz.ui.exercise.access import access_panels
from gemmviz.ui.exercise.checking import CheckWorker, content_hash, exercise_of
from gemmviz.ui.exercise.gap import ExerciseGap
from gemmviz.ui.exercise.report import reflow
from gemmviz.ui.exercise.widgets import (
    ClickableLabel,
    ErrorMap,
    FoldingLabel,
    NoWheelComboBox,
    SourceView,
    TimingBars,
    warn,
)
from gemmviz.ui.text import Words, tr
from gemmviz.ui.worker import WorkerThread


class ExerciseTab(QWidget):
    status_message = Signal(str)

    def __init__(self, lang: str = "en", parent=None):
        super().__init__(parent)
        self.lang = lang
        self.exercises: list[Exercise] = []
        self.path: Path | None = None
        self.record: dict | None = None
        self.hints_shown = 0
        self.check_thread: WorkerThread | None = None
        self.worker: CheckWorker | None = None
        self.recheck_wanted = False
        self.checked_hash: str | None = None  # the content last checked, or found when the file was opened
        self.checks_started = 0
        self.saves_unchanged = 0  # folder or file events that changed nothing in the .cu (no check)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._file_changed)
        self.watcher.directoryChanged.connect(self._file_changed)  # editors that save by renaming a new file
        self.debounce = QTimer(self, singleShot=True, interval=400)
        self.debounce.timeout.connect(self._saved)
        self.words = Words()  # set again in the new language by set_language
        self._build()
        self._load_exercises()

    # --- layout ---------------------------------------------------------------------------------------------
    def _build(self) -> None:
        words = self.words
        self.picker = NoWheelComboBox()
        self.new_button, self.open_button, self.open_check_button = QPushButton(), QPushButton(), QPushButton()
        self.check_button, self.cancel_button = QPushButton(), QPushButton()
        self.auto = QCheckBox()
        for setter, text in (
            (self.new_button.setText, lambda: tr("New from starter…")),
            (self.open_button.setText, lambda: tr("Open kernel…")),
            (self.open_check_button.setText, lambda: tr("Open check…")),
            (self.check_button.setText, lambda: tr("Check now")),
            (self.cancel_button.setText, lambda: tr("Cancel")),
            (self.auto.setText, lambda: tr("Check on save")),
        ):
            words.bind(setter, text)
        self.cancel_button.setEnabled(False)
        self.auto.setChecked(True)
        self.file_label = QLabel()
        words.bind(self.file_label.setText, self._file_words)
        self.file_label.setTextFormat(Qt.TextFormat.PlainText)
        self.file_label.setWordWrap(True)
        self.hint_button = QPushButton()
        self.hint_button.clicked.connect(self._next_hint)
        self.task = QPlainTextEdit(readOnly=True)
        self.hints = QPlainTextEdit(readOnly=True)  # grows into its own box: the button above never moves
        self.hints.setVisible(False)
        self.finding_sources: list[int | None] = []  # the source line each finding names (None: none)
        left = self._left_column()
        right = self._right_column()
        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self.picker.currentIndexChanged.connect(self._exercise_changed)
        self.new_button.clicked.connect(self._new_from_starter)
        self.open_button.clicked.connect(self._open_kernel)
        self.open_check_button.clicked.connect(self._open_check_dialog)
        self.check_button.clicked.connect(self.start_check)
        self.cancel_button.clicked.connect(self.cancel_check)
        self.findings.cursorPositionChanged.connect(self._finding_clicked)  # a click in a finding shows its line
        for label in (self.verdict_label, self.cause):
            label.clicked.connect(self._show_cause_line)

    def _left_column(self) -> QWidget:
        left = QWidget()
        lv = QVBoxLayout(left)
        top = QHBoxLayout()
        top.addWidget(self.picker, 1)
        lv.addLayout(top)
        buttons = QHBoxLayout()
        for b in (self.new_button, self.open_button):
            buttons.addWidget(b)
        lv.addLayout(buttons)
        run = QHBoxLayout()
        for w in (self.check_button, self.cancel_button, self.open_check_button):
            run.addWidget(w)
        lv.addLayout(run)
        lv.addWidget(self.file_label)
        hint = QHBoxLayout()  # one row for both: at 1280×720 the task's box has few lines to lose
        hint.addWidget(self.auto)
        hint.addWidget(self.hint_button, 1)  # above the texts that grow, so a click never moves it
        lv.addLayout(hint)
        lv.addWidget(self.task, 2)
        lv.addWidget(self.hints, 1)
        return left

    def _right_column(self) -> QWidget:
        self.verdict_label = ClickableLabel(rich=True)  # a click on the verdicts or the cause shows the cause's line
        self.cause = ClickableLabel()
        bold = QFont(self.cause.font())
        bold.setBold(True)
        self.cause.setFont(bold)
        self.progress = FoldingLabel()
        self.no_check = QLabel()  # what the column will show, until it shows a check
        self.no_check.setWordWrap(True)
        self.words.bind(
            self.no_check.setText,
            lambda: tr(
                "No check yet: open your kernel (or write the starter) and press Check now. "
                "The verdicts, the cause and your code, its cited lines highlighted, appear here."
            ),
        )
        self.record_label = FoldingLabel()  # whose check is shown: the file and when
        self.source_title = QLabel()
        self.words.bind(self.source_title.setText, lambda: tr("Your code (the lines the check cites are highlighted)"))
        self.source_title.setWordWrap(True)
        self.source_view = SourceView()
        self.printf_title = QLabel()
        self.printf_title.setTextFormat(Qt.TextFormat.PlainText)
        self.printf_title.setWordWrap(True)
        self.printf_view = QPlainTextEdit(readOnly=True)  # the kernel's printf output, bounded (PRINTF_SHOWN lines)
        self.printf_view.setMinimumHeight(self.fontMetrics().height() * 5)
        self.error_map = ErrorMap()
        self.findings = QPlainTextEdit(readOnly=True)  # wraps long sanitizer lines; one finding a paragraph
        self.findings.setMinimumHeight(self.fontMetrics().height() * 6)
        self.finding_lines: list[str] = []
        self.bars = TimingBars()
        self.gap = ExerciseGap(self.lang)  # where the time to the reference goes (Nsight Compute's counters)
        content = QWidget()
        rv = QVBoxLayout(content)
        rv.addWidget(self.progress)
        rv.addWidget(self.no_check)
        rv.addWidget(self.record_label)
        rv.addWidget(self.verdict_label)
        rv.addWidget(self.cause)
        rv.addWidget(self.source_title)
        rv.addWidget(self.source_view, 2)
        rv.addWidget(self.bars)  # the whole width: the bars never share it with the map
        rv.addWidget(self.gap)
        rv.addWidget(self.error_map, 1)
        rv.addWidget(self.findings, 1)
        rv.addWidget(self.printf_title)
        rv.addWidget(self.printf_view, 1)
        self.access_kind = NoWheelComboBox()
        self.access_kind.addItem("", "coalescing")
        self.access_kind.addItem("", "banks")
        self.words.bind(
            lambda text: self.access_kind.setItemText(0, text),
            lambda: tr("What your kernel touched: coalescing (global loads)"),
        )
        self.words.bind(
            lambda text: self.access_kind.setItemText(1, text),
            lambda: tr("What your kernel touched: bank conflicts (shared memory)"),
        )
        self.access_kind.currentIndexChanged.connect(lambda _i: self._fill_accesses(self.record or {}))
        for combo in (self.picker, self.access_kind):  # long items: elided in the box, never widening the window
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(16)
        self.access_canvas = AccessCanvas()
        self.access_canvas.setMinimumHeight(320)
        for w in (self.access_kind, self.access_canvas):
            rv.addWidget(w)
        rv.addStretch(0)  # under the note alone, the column's room stays below it
        for view in self._record_views():
            view.setVisible(False)  # empty boxes until a check is shown
        right = self.column = QScrollArea()  # at 1280×720 in projector mode nothing is clipped: the column scrolls
        right.setWidgetResizable(True)
        right.setFrameShape(QFrame.Shape.NoFrame)
        right.setWidget(content)
        return right

    def _record_views(self) -> tuple[QWidget, ...]:
        """The boxes that show a check, hidden while there is none."""
        return (
            self.source_title,
            self.source_view,
            self.bars,
            self.error_map,
            self.findings,
            self.printf_title,
            self.printf_view,
            self.access_kind,
            self.access_canvas,
        )

    def _load_exercises(self) -> None:
        try:
            self.exercises = shipped_exercises()
        except ExerciseError as exc:
            self.exercises = []
            self.task.setPlainText(str(exc))
        for e in self.exercises:
            self.picker.addItem(e.text(self.lang)[0], e.name)
        self._exercise_changed()

    @property
    def exercise(self) -> Exercise | None:
        i = self.picker.currentIndex()
        return self.exercises[i] if 0 <= i < len(self.exercises) else None

    def _exercise_changed(self, *_args) -> None:
        self.hints_shown = 0
        if self.exercise is not None:
            self._access_view_for(self.exercise.access_goals)
        self._show_task()

    def _show_task(self) -> None:
        e = self.exercise
        if e is None:
            return
        title, task, _hints = e.text(self.lang)
        self.task.setPlainText(
            f"{title}\n\n{reflow(task)}\n\n"
            + tr("Goal: at least {1}× as fast as {0}, measured beside it.").format(e.reference, rate(e.speed_goal))
        )
        self._show_hints()

    def _access_view_for(self, goals: dict) -> None:
        """Open the access view the exercise's goal is about: bank conflicts for a goal on shared memory."""
        kind = "banks" if any(g.startswith("shared") for g in goals) else "coalescing" if goals else None
        at = self.access_kind.findData(kind) if kind else -1
        if at >= 0:
            self.access_kind.setCurrentIndex(at)

    def _file_words(self) -> str:
        if self.path is None:
            return tr("No kernel file open: write the starter, or open your .cu.")
        return tr("Your kernel: {0}").format(self.path)

    def set_language(self, lang: str) -> None:
        """Every word of the tab in `lang` (its catalogue installed), in place: the exercise, the kernel file
        and its watch, the hints shown, the check shown (said again in `lang`) and a check under way all stay."""
        if lang == self.lang:
            return
        self.lang = lang
        self.words.retranslate()
        for i, e in enumerate(self.exercises):
            self.picker.setItemText(i, e.text(lang)[0])
        self._show_task()  # the task and the hints shown so far, in the new language
        self.gap.set_language(lang)
        if self.record is not None:
            progress = self.progress.text()
            self.show_record(self.record)
            if self.worker is not None:  # a check under way: its progress line stays until it reports again
                self.progress.setText(progress)
            elif progress:
                self.progress.setText(tr("Checked {0}").format(Path(self.record["file"]).name))

    def _show_hints(self) -> None:
        e = self.exercise
        hints = e.text(self.lang)[2] if e else ()
        self.hints.setPlainText("\n".join(f"{i}. {h}" for i, h in enumerate(hints[: self.hints_shown], 1)))
        self.hints.setVisible(self.hints_shown > 0)
        self.hint_button.setText(
            tr("Show a hint ({0} of {1})").format(min(self.hints_shown + 1, len(hints)), len(hints))
        )
        self.hint_button.setEnabled(self.hints_shown < len(hints))

    def _next_hint(self) -> None:
        self.hints_shown += 1
        self._show_hints()

    # --- files ----------------------------------------------------------------------------------------------
    def _new_from_starter(self) -> None:
        e = self.exercise
        if e is None:
            return
        folder = QFileDialog.getExistingDirectory(self, tr("Folder for your kernel"))
        if folder:
            self.write_starter(Path(folder))

    def write_starter(self, folder: Path) -> Path | None:
        """The exercise's starter in `folder` (never over a file already there: that is the student's work)."""
        e = self.exercise
        if e is None:  # no exercise listed (the shipped ones unreadable): no starter to write
            return None
        target = folder / e.starter
        if target.exists():
            self.set_file(target)
            self.status_message.emit(tr("{0} is already there: opened it (your work is kept).").format(target))
            return target
        try:
            write_atomic(check_target(target, (".cu",)), e.starter_text())
        except (OutputError, OSError, ExerciseError) as exc:
            warn(self, tr("Cannot write the starter"), str(exc))
            return None
        self.set_file(target)
        return target

    def _open_kernel(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, tr("Open your kernel"), "", tr("CUDA source (*.cu)"))
        if path:
            self.set_file(Path(path))

    def set_file(self, path: Path) -> None:
        for old in self.watcher.files() + self.watcher.directories():
            self.watcher.removePath(old)
        self.path = path
        self.checked_hash = content_hash(path)  # opening is no change: the next save that changes it checks
        self.file_label.setText(self._file_words())
        self.watcher.addPath(str(path))
        self.watcher.addPath(str(path.parent))
        self._pick_for(path)

    def _pick_for(self, path: Path) -> None:
        """Pick the exercise whose kernel the file defines, as the CLI does; by the starter's file name only when
        it defines none of them yet."""
        found = exercise_of(path, self.exercises)
        if found is None:
            found = next((e for e in self.exercises if e.starter == path.name), None)
        index = self.picker.findData(found.name) if found is not None else -1
        if index >= 0 and index != self.picker.currentIndex():
            self.picker.setCurrentIndex(index)

    def _file_changed(self, _path: str) -> None:
        if self.path is not None and str(self.path) not in self.watcher.files() and self.path.exists():
            self.watcher.addPath(str(self.path))  # replaced by the editor's save: watch the new file
        if self.auto.isChecked() and self.path is not None:
            self.debounce.start()

    def _saved(self) -> None:
        """A file event in the kernel's folder, settled: a check if the .cu's content is not the one last
        checked. The check record written beside it, an editor's swap and backup files, a touch: no check."""
        if self.path is None or not self.path.exists():
            return
        if self.worker is not None:
            self.recheck_wanted = True  # once the running check ends
            return
        if content_hash(self.path) == self.checked_hash:
            self.saves_unchanged += 1
            return
        self.start_check()

    def _open_check_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, tr("Open a check"), "", tr("Exercise checks (*.check.json *.json)"))
        if path:
            self.open_check(Path(path))

    def open_check(self, path: Path) -> bool:
        """Show the check record in `path`; a malformed one (a field missing, of the wrong type, unknown, or at odds
        with another, or an exercise the picker does not list) is refused in one line that names the field, and
        the check shown before stays as it was."""
        known = [self.picker.itemData(i) for i in range(self.picker.count())]
        try:
            record = load_check(path, known)
        except CheckFileError as exc:
            warn(self, tr("Cannot open the check"), str(exc))
            return False
        index = self.picker.findData(record["exercise"])
        if index >= 0:
            self.picker.setCurrentIndex(index)
        self.show_record(record)
        self.status_message.emit(tr("Opened the check {0}").format(path))
        return True

    # --- checking -------------------------------------------------------------------------------------------
    def start_check(self) -> None:
        if self.worker is not None:
            return
        if self.path is None or self.exercise is None:
            self.progress.setText(tr("Open your kernel first (or write the starter)."))
            return
        self._pick_for(self.path)  # the kernel it defines now, whatever record was opened meanwhile
        e = self.exercise
        self.checked_hash = content_hash(self.path)
        self.checks_started += 1
        self.worker = CheckWorker(self.path, e)
        self.checked_path = self.path  # the record goes beside this file, whatever is opened meanwhile
        self.check_thread = WorkerThread(self.worker, "gemmviz-exercise-check", self.worker.cancel, self.worker.run)
        self.worker.progress.connect(self._progress)
        self.worker.finished.connect(self._finished)
        self.worker.failed.connect(self._failed)
        self.check_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setText(tr("Checking {0}…").format(self.path.name))
        self.check_thread.start()

    def cancel_check(self) -> None:
        if self.check_thread is not None:
            self.check_thread.cancel()

    def _progress(self, i: int, n: int, what: str) -> None:
        self.progress.setText(f"[{i}/{n}] {what}")

    def _done(self) -> None:
        thread, self.check_thread, self.worker = self.check_thread, None, None
        if thread is not None:
            thread.join()
        self.check_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        if self.recheck_wanted:
            self.recheck_wanted = False
            self.debounce.start()

    def _finished(self, record: dict) -> None:
        self._done()
        self.show_record(record)
        self.progress.setText(tr("Checked {0}").format(Path(record["file"]).name))
        checked = Path(record["file"])
        if checked.exists():
            try:
                write_atomic(record_target(checked), json.dumps(record, indent=1))
            except (OutputError, OSError) as exc:
                self.status_message.emit(tr("The check could not be saved: {0}").format(exc))

    def _failed(self, message: str) -> None:
        self._done()
        self.progress.setText(message)

    def _fill_accesses(self, record: dict) -> None:
        try:
            trace = access_trace(record) if record else None
        except CheckFileError:
            trace = None
        shown = trace is not None
        for w in (self.access_kind, self.access_canvas):
            w.setVisible(shown)
        if not shown:
            return
        kind = self.access_kind.currentData()
        # room for the panels' titles below the warp's lanes at the type the window has now (projector: larger)
        self.access_canvas.setMinimumHeight(max(320, 17 * self.fontMetrics().height()))
        self.access_canvas.kind = kind
        self.access_canvas.panels = access_panels(kind, trace, record.get("reference", ""))
        self.access_canvas.update()

    def cancel_now(self) -> None:
        """Set a running check's cancel flag (a signal's stop sets every worker's before waiting for any)."""
        if self.check_thread is not None:
            self.check_thread.cancel()

    def shutdown(self, wait_ms: int | None = None) -> None:
        """Closing the window: cancel a running check and wait for its thread (the child is killed at once), at
        most `wait_ms` (None: until it ends; a thread still busy then is left behind: ui/worker.py)."""
        self.debounce.stop()
        if self.check_thread is not None:
            # every step is a child process the cancel kills within 50 ms: the wait is for the thread to see it
            self.check_thread.shutdown(wait_ms)

    # --- showing a record -----------------------------------------------------------------------------------
    def show_record(self, record: dict) -> None:
        again = record is self.record  # the same check said again (a language switch): the view stays as chosen
        record = finish(record)
        self.record = record
        shipped = report.shipped_of(record, self.exercises)
        if shipped is not None and not again:
            self._access_view_for(shipped.access_goals)
        self.progress.clear()  # a message of an earlier check (an error, "cancelled") is not this record's
        self.no_check.setVisible(False)
        self.error_map.setVisible(True)
        self.record_label.setText(
            tr("Check of {0}, {1}").format(record.get("file") or tr("an unnamed file"), record.get("created", ""))
        )
        access = report.access_of(record, shipped, self.lang)
        self.verdict_label.setText(report.verdicts_html(record, access, self.lang))
        self.cause.setText(report.cause_text(record, access, self.lang))
        shown = report.error_map_of(record, self.lang)
        self.error_map.set_map(shown.error_map, shown.caption, judged=shown.judged)
        self._fill_findings(record)
        self._fill_source(record)
        self._fill_printf(record)
        self._fill_bars(record)
        self.gap.show_record(record)
        self._fill_accesses(record)

    def _fill_source(self, record: dict) -> None:
        source = record.get("source") or ""
        for w in (self.source_title, self.source_view):
            w.setVisible(bool(source))
        self.source_view.set_source(source, cause_lines(record), finding_lines(record))

    def _fill_printf(self, record: dict) -> None:
        """The kernel's printf output under the size that printed it ("at 33×17×65 (5 line(s)):")."""
        calls, title, text = report.printf_text(record, self.lang)
        for w in (self.printf_title, self.printf_view):
            w.setVisible(bool(calls))
        self.printf_title.setText(title)
        self.printf_view.setPlainText(text)

    def _fill_findings(self, record: dict) -> None:
        found = report.findings(record, self.lang)
        self.finding_lines = [text for text, _line in found]
        self.finding_sources = [line for _text, line in found]
        self.findings.blockSignals(True)  # filling it is no click
        self.findings.setPlainText("\n".join(self.finding_lines))
        self.findings.blockSignals(False)
        self.findings.setVisible(bool(self.finding_lines))

    def _finding_clicked(self) -> None:
        """The finding the click is in: its source line scrolled into view in the code box."""
        block = self.findings.textCursor().blockNumber()
        first = 0
        for text, line in zip(self.finding_lines, self.finding_sources):
            first += text.count("\n") + 1  # a finding with its source under it is several blocks
            if block < first:
                if line is not None:
                    self._show_source_line(line)
                return

    def _show_cause_line(self) -> None:
        lines = cause_lines(self.record or {}) or finding_lines(self.record or {})
        if lines:
            self._show_source_line(lines[0])

    def _show_source_line(self, line: int) -> None:
        if self.source_view.isVisible() and self.source_view.show_line(line):
            self.column.ensureWidgetVisible(self.source_view, 0, 0)

    def _fill_bars(self, record: dict) -> None:
        rows = report.timing_rows(record)
        self.bars.set_rows(rows)
        self.bars.setVisible(bool(rows))
