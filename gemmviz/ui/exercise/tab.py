"""The Exercise tab: pick an exercise, write its starter or open your kernel, edit it in your own editor; the
tab checks it again each time a save changes its content (the check record and an editor's temporary files
in the same folder never start one) and shows the verdicts, the likeliest cause, the map of wrong regions of C,
compile errors and sanitizer findings at their source lines, the timing beside the reference, and the hints.

A check runs `backends/exercise.check_exercise` in a worker thread: every GPU step there is a child process
with a time limit, so the window never waits on the GPU and a kernel that hangs or crashes never takes it
down. Cancel stops the step in flight within half a second. A saved check (FILE.check.json, from this tab or
`gemmviz exercise check` on a GPU machine) opens here without a GPU."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gemmviz.core.exercise.access_goals import access_verdict
from gemmviz.core.exercise.check import cause_lines, finish, source_lines
from gemmviz.core.exercise.exercises import (
    MAX_SOURCE_BYTES,
    Exercise,
    ExerciseError,
    guess_exercise,
    shipped_exercises,
)
from gemmviz.core.exercise.grading import ran_on
from gemmviz.core.exercise.record import CheckFileError, access_trace, load_check, record_target
from gemmviz.core.exercise.report import counter_lines, emulator_findings, finding_lines, printf_groups, printf_output
from gemmviz.core.fileio import InputFileError, OutputError, check_target, read_regular, write_atomic
from gemmviz.core.messages import msg, render
from gemmviz.core.numbers import duration, rate
from gemmviz.core.problem import Problem
from gemmviz.ui.accesses.canvas import AccessCanvas
from gemmviz.ui.accesses.panels import Panel
from gemmviz.ui.exercise.gap import ExerciseGap
from gemmviz.ui.exercise.widgets import ClickableLabel, ErrorMap, NoWheelComboBox, SourceView, TimingBars
from gemmviz.ui.text import QT_TRANSLATE_NOOP, Words, plain, tr
from gemmviz.ui.worker import WorkerThread

STOPPED = ("timeout", "launch-error")  # a size whose C was never read back: no map, and no sign C is right

COLORS = {"pass": "#009E73", "fail": "#D55E00", "skipped": "#777777"}
# the goals' names, translated where they are drawn (QT_TRANSLATE_NOOP: pyside6-lupdate files them)
GOAL_NAMES = {"compiles": QT_TRANSLATE_NOOP("", "compiles"), "correct": QT_TRANSLATE_NOOP("", "correct"),
              "memory-safe": QT_TRANSLATE_NOOP("", "memory-safe"),
              "race-free": QT_TRANSLATE_NOOP("", "race-free"), "speed": QT_TRANSLATE_NOOP("", "speed"),
              "accesses": QT_TRANSLATE_NOOP("", "accesses")}  # fmt: skip


class CheckWorker(QObject):
    """Runs one check in its own thread; results come back by signal."""

    progress = Signal(int, int, str)
    finished = Signal(object)  # the record
    failed = Signal(str)

    def __init__(self, path: Path, exercise: Exercise):
        super().__init__()
        self.path, self.exercise = path, exercise
        self.cancel = threading.Event()

    def run(self) -> None:
        from gemmviz.backends.exercise import Cancelled, CheckOptions, check_exercise

        try:
            record = check_exercise(
                self.path,
                self.exercise,
                CheckOptions(cancel=self.cancel),
                lambda i, n, what: self.progress.emit(i, n, what),
            )
        except Cancelled:
            self.failed.emit(tr("Check cancelled."))
        except ExerciseError as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # a bug must not end the thread silently: the tab says it and keeps working
            self.failed.emit(tr("The check failed: {0}").format(f"{type(exc).__name__}: {exc}"))
        else:
            self.finished.emit(record)


def content_hash(path: Path) -> str | None:
    """The file's content as a SHA-256; None where it is gone. A file the check would refuse (too large, a FIFO,
    unreadable) hashes by its size and time, so a change to it still gets one check that says why."""
    try:
        return hashlib.sha256(read_regular(path, MAX_SOURCE_BYTES)).hexdigest()
    except (OSError, InputFileError):
        try:
            st = path.stat()
        except OSError:
            return None
        return f"unread:{st.st_mode}:{st.st_size}:{st.st_mtime_ns}"


def exercise_of(path: Path, exercises: list[Exercise]) -> Exercise | None:
    """The exercise whose kernel the file defines, as the CLI picks it (its kernel's name, not the file's); None
    when it defines none of them or cannot be read."""
    try:
        source = read_regular(path, MAX_SOURCE_BYTES).decode("utf-8", errors="replace")
    except (OSError, InputFileError):
        return None
    shipped = guess_exercise(source)
    if shipped is None:
        return None
    return next((e for e in exercises if e.name == shipped.name), None)


class ExerciseTab(QWidget):
    status_message = Signal(str)

    def __init__(self, lang: str = "en", parent=None):
        super().__init__(parent)
        self.lang = lang
        self.exercises: list[Exercise] = []
        self.path: Path | None = None
        self.record: dict | None = None
        self.hints_shown = 0
        self.thread: WorkerThread | None = None
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
        lv.addWidget(self.auto)
        lv.addWidget(self.file_label)
        lv.addWidget(self.hint_button)  # above the texts that grow, so a click never moves it
        lv.addWidget(self.task, 2)
        lv.addWidget(self.hints, 1)
        return left

    def _right_column(self) -> QWidget:
        self.verdict_label = ClickableLabel()  # a click on the verdicts or the cause shows the cause's line
        self.verdict_label.setTextFormat(Qt.TextFormat.RichText)  # built here from escaped parts only
        self.verdict_label.setWordWrap(True)
        self.cause = ClickableLabel()
        self.cause.setTextFormat(Qt.TextFormat.PlainText)
        self.cause.setWordWrap(True)
        bold = QFont(self.cause.font())
        bold.setBold(True)
        self.cause.setFont(bold)
        self.progress = QLabel()
        self.progress.setTextFormat(Qt.TextFormat.PlainText)
        self.progress.setWordWrap(True)
        self.record_label = QLabel()  # whose check is shown: the file and when
        self.record_label.setTextFormat(Qt.TextFormat.PlainText)
        self.record_label.setWordWrap(True)
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
            w.setVisible(False)
        right = self.column = QScrollArea()  # at 1280×720 in projector mode nothing is clipped: the column scrolls
        right.setWidgetResizable(True)
        right.setFrameShape(QFrame.Shape.NoFrame)
        right.setWidget(content)
        return right

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
            + tr("Measured against {0}; goal: {1}× its speed.").format(e.reference, rate(e.speed_goal))
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
        self.thread = WorkerThread(self.worker, "gemmviz-exercise-check", self.worker.cancel, self.worker.run)
        self.worker.progress.connect(self._progress)
        self.worker.finished.connect(self._finished)
        self.worker.failed.connect(self._failed)
        self.check_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setText(tr("Checking {0}…").format(self.path.name))
        self.thread.start()

    def cancel_check(self) -> None:
        if self.thread is not None:
            self.thread.cancel()

    def _progress(self, i: int, n: int, what: str) -> None:
        self.progress.setText(f"[{i}/{n}] {what}")

    def _done(self) -> None:
        thread, self.thread, self.worker = self.thread, None, None
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
        if self.thread is not None:
            self.thread.cancel()

    def shutdown(self, wait_ms: int | None = None) -> None:
        """Closing the window: cancel a running check and wait for its thread (the child is killed at once), at
        most `wait_ms` (None: until it ends; a thread still busy then is left behind: ui/worker.py)."""
        self.debounce.stop()
        if self.thread is not None:
            # every step is a child process the cancel kills within 50 ms: the wait is for the thread to see it
            self.thread.shutdown(wait_ms)

    # --- showing a record -----------------------------------------------------------------------------------
    def show_record(self, record: dict) -> None:
        again = record is self.record  # the same check said again (a language switch): the view stays as chosen
        record = finish(record)
        self.record = record
        shipped = next((e for e in self.exercises if e.name == record.get("exercise")), None)
        if shipped is not None and not again:
            self._access_view_for(shipped.access_goals)
        self.progress.clear()  # a message of an earlier check (an error, "cancelled") is not this record's
        self.record_label.setText(
            tr("Check of {0}, {1}").format(record.get("file") or tr("an unnamed file"), record.get("created", ""))
        )
        parts = []
        access = self._access_verdict(record)
        judged = {v["goal"] for v in record["verdicts"]}  # finish() adds the shipped exercise's access goal
        for v in record["verdicts"] + ([access] if access and access["goal"] not in judged else []):
            mark = {"pass": "✓", "fail": "✗", "skipped": "–"}[v["status"]]
            name = tr(GOAL_NAMES[v["goal"]]) if v["goal"] in GOAL_NAMES else v["goal"]
            detail = render(v["message"], self.lang) if v.get("message") else v["detail"]
            parts.append(
                f"<span style='color:{COLORS[v['status']]}'><b>{mark} {plain(name)}</b></span> {plain(detail)}"
            )
        self.verdict_label.setText("<br>".join(parts))
        cause = record.get("cause") or (access or {}).get("cause")
        if record.get("cause_message"):
            cause = render(record["cause_message"], self.lang)
        if cause:
            self.cause.setText(tr("Likeliest cause: {0}").format(cause))
        elif record.get("no_gpu") and ran_on(record).startswith("CPU emulator"):
            self.cause.setText(render(msg("report.emulated_pass", ran_on=ran_on(record)), self.lang))
        elif record.get("no_gpu"):
            self.cause.setText(
                tr(
                    "No GPU here: {0}. Run gemmviz exercise check on a GPU machine, then open the check "
                    "file it writes here."
                ).format(record["no_gpu"])
            )
        else:
            self.cause.setText(tr("Every goal passed."))
        mapped = [s for s in record.get("shapes") or [] if s.get("error_map")]
        wrong = max(mapped, key=lambda s: s["shape"][0] * s["shape"][1]) if mapped else None  # the clearest picture
        if wrong:
            dims = "×".join(map(str, wrong["shape"]))
            self.error_map.set_map(
                wrong["error_map"], tr("Wrong regions of C at {0} (darker: more wrong)").format(dims)
            )
        elif unfinished := next((s for s in record.get("shapes") or [] if s.get("status") in STOPPED), None):
            # a size that did not finish (or crashed) has no map, and is no sign that C is right
            said = msg("report.not_finished_map", shape=unfinished["shape"])
            self.error_map.set_map(None, render(said, self.lang), judged=False)
        else:
            self.error_map.set_map(None, tr("C: no wrong region") if record.get("shapes") else tr("C: not run"))
        self._fill_findings(record)
        self._fill_source(record)
        self._fill_printf(record)
        self._fill_bars(record)
        self.gap.show_record(record)
        self._fill_accesses(record)

    def _access_verdict(self, record: dict) -> dict | None:
        """The record's exercise's access goal, judged from its access trace (core/exercise/access_goals.py)."""
        e = next((e for e in self.exercises if e.name == record.get("exercise")), None)
        return access_verdict(record, e.access_goals, e.fix(self.lang), self.lang) if e is not None else None

    def _fill_source(self, record: dict) -> None:
        source = record.get("source") or ""
        for w in (self.source_title, self.source_view):
            w.setVisible(bool(source))
        self.source_view.set_source(source, cause_lines(record), finding_lines(record))

    def _fill_printf(self, record: dict) -> None:
        """The kernel's printf output under the size that printed it ("at 33×17×65 (5 line(s)):")."""
        calls, _lines = printf_output(record)
        groups = printf_groups(record)
        for w in (self.printf_title, self.printf_view):
            w.setVisible(bool(calls))
        kept = sum(len(lines) for _shape, _n, lines in groups)
        self.printf_title.setText(render(msg("report.printf", calls=calls, kept=kept), self.lang))
        text = []
        for shape, n, lines in groups:
            if shape is not None:  # (a record from before the sizes were kept: its lines alone)
                text.append(render(msg("report.printf_at", shape=shape, calls=n), self.lang))
            text += lines
        self.printf_view.setPlainText("\n".join(text))

    def _fill_findings(self, record: dict) -> None:
        self.finding_lines = []
        self.finding_sources = []
        self._collect_findings(record)
        self.findings.blockSignals(True)  # filling it is no click
        self.findings.setPlainText("\n".join(self.finding_lines))
        self.findings.blockSignals(False)

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

    def _nvcc_lines(self, record: dict) -> list[tuple[str, int | None]]:
        """nvcc's errors, then its warnings (often the clue: k >= 0 on an unsigned k is always true), each with
        its source line."""
        out = []
        diagnostics = (record.get("compile") or {}).get("diagnostics", [])
        for d in diagnostics:
            if d["severity"] == "error":
                out.append((tr("nvcc, line {0}: {1}").format(d.get("line") or "?", d["message"]), d.get("line")))
        for d in diagnostics:
            if d["severity"] == "warning":
                said = msg("report.nvcc_warning", line=d.get("line") or "?", message=d["message"])
                out.append((render(said, self.lang), d.get("line")))
        return out

    def _collect_findings(self, record: dict) -> None:
        lines = source_lines(record.get("source") or "")

        def add(text: str, line=None) -> None:
            """A finding, with its source line under it (and noted, for a click) where it names one."""
            cited = line if type(line) is int and 0 < line <= len(lines) else None
            self.finding_lines.append(text + (f"\n    {lines[cited - 1].strip()}" if cited else ""))
            self.finding_sources.append(cited)

        for text, line in self._nvcc_lines(record):
            add(text, line)
        for tool, part in (record.get("sanitizer") or {}).items():
            if not isinstance(part, dict) or not part.get("ran"):
                continue
            if not part.get("findings"):
                add(tr("{0}: clean").format(tool))
            for f in part.get("findings", [])[:10]:
                said = tr("line {0}: {1} (×{2})").format(f.get("line") or "?", f["message"], f.get("count", 1))
                add(f"{tool}, " + said, f.get("line"))
        emu = record.get("emulator") or {}
        if emu.get("refused"):
            add(render(emu["refused"], self.lang))
        for text, line in emulator_findings(record, self.lang):
            add(text, line)
        for s in record.get("shapes") or []:
            if s["status"] != "ok":
                add("×".join(map(str, s["shape"])) + ": " + (s.get("reason") or s.get("error") or s["status"]))
        for line in counter_lines(record):
            add(line)
        for note in record.get("not_run") or []:
            add(tr("Not run: {0}").format(note))
        if emu and record.get("no_gpu"):  # how the verdicts were reached, after what they found
            add(render(msg("emu.by", why=record["no_gpu"]), self.lang))

    def _fill_bars(self, record: dict) -> None:
        timing = record.get("timing") or {}
        shape = timing.get("shape")
        rows = []
        if shape:
            flops = Problem(*shape).flops
            for who, name in (
                ("yours", tr("yours")),
                ("reference", record.get("reference", tr("reference"))),
                ("cublas", "cuBLAS"),
            ):
                ms = (timing.get(who) or {}).get("median_ms")
                if ms:
                    rows.append(
                        (name, flops / (ms * 1e-3) / 1e9, f"{rate(flops / (ms * 1e-3) / 1e9)} GFLOP/s · {duration(ms)}")
                    )
        recorded = record.get("recorded_reference")
        if not rows and recorded:
            for row in recorded["rows"]:
                if row["size"] == [2048, 2048, 2048] and row["gflops"]:
                    rows.append(
                        (
                            f"{row['series']} ({tr('recorded')})",
                            row["gflops"],
                            f"{rate(row['gflops'])} GFLOP/s · {recorded['gpu']}",
                        )
                    )
        self.bars.set_rows(rows)
        self.bars.setVisible(bool(rows))


@dataclass(frozen=True)
class NamedPanel(Panel):
    """A panel of the access views whose title is not a registry kernel's: the student's own."""

    name: str = ""

    @property
    def title(self) -> str:
        return self.name or super().title


def access_panels(kind: str, trace, reference: str) -> list[Panel]:
    """The student's worst request of `kind` beside the reference kernel's, from the shipped H200 records."""
    from gemmviz.core.hardware import accesses as acc

    def pick(t):  # the same kind of request on both sides: loads (a kernel without shared loads: any)
        if kind == "coalescing":
            return acc.worst_global_request(t, 0, False)
        found = acc.worst_shared_request(t, 0, False)
        return found if found is not None else acc.worst_shared_request(t, 0, None)

    panels: list[Panel] = []
    index = pick(trace)
    if index is not None:
        panels.append(NamedPanel(trace, index, tr("yours")))
    shipped = acc.shipped_file()
    theirs = shipped.find(reference) if shipped is not None else None
    if theirs is not None:
        other = pick(theirs)
        if other is not None:
            panels.append(Panel(theirs, other))
    return panels


def warn(parent: QWidget, title: str, text: str) -> None:
    """A warning whose text is shown as text: a file name or message holding <img> or <b> is never rich text."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()  # not modal: the app keeps working while it is up


_WIDE = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"  # Chinese characters and punctuation: no space between lines


def reflow(text: str) -> str:
    """A TOML text's wrapped lines joined into paragraphs (a blank line ends one), for a widget that wraps: with
    a space, except where a line ends or the next begins with a Chinese character (Chinese has no spaces)."""
    return "\n\n".join(
        re.sub(rf"(?<=[{_WIDE}])\n|\n(?=[{_WIDE}])", "", p).replace("\n", " ") for p in text.split("\n\n")
    )
