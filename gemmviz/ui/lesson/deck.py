"""The lesson's state, shared by every window that shows it: the step shown, the frame of its animation (and
whether it plays), the presenter's clock. One model, two views: the projected LessonView (ui/lesson/mode.py)
and the presenter's window (ui/lesson/presenter.py) both subscribe to its signals; a key pressed in either
window acts here (`key`), never on a view.

Keys (KEY_HELP lists them, as the presenter's help shows them): → Space PgDn next step, ← PgUp back to the
step before as it ended (its animation's last frame), Home End first / last; a step number and Enter jump to
it; inside an animation . or Shift+→ one frame on, , or Shift+← one frame back, P play / pause; B and W blank
the projected screen black or white (again, or a step key, shows it); N the presenter's window on one screen;
F1 or ? the keys; R measures the step live (on a GPU); T resets the clock; Esc leaves the lesson (after a typed
number: forgets the number).
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QElapsedTimer, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QWidget

from gemmviz.core.lesson.lessons import Lesson

NEXT = {Qt.Key.Key_Right, Qt.Key.Key_Space, Qt.Key.Key_PageDown}
BACK = {Qt.Key.Key_Left, Qt.Key.Key_PageUp}
FRAME_ON, FRAME_BACK = Qt.Key.Key_Period, Qt.Key.Key_Comma  # and Shift+→ / Shift+←
KEYS = NEXT | BACK | {Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_Escape, Qt.Key.Key_P, Qt.Key.Key_R}
KEYS |= {FRAME_ON, FRAME_BACK, Qt.Key.Key_T}
DIGITS = {getattr(Qt.Key, f"Key_{d}"): d for d in range(10)}
ENTER = {Qt.Key.Key_Return, Qt.Key.Key_Enter}
BLANK = {Qt.Key.Key_B: "black", Qt.Key.Key_W: "white"}  # a presentation tool's blank-screen keys
HELP = {Qt.Key.Key_F1, Qt.Key.Key_Question}
NOTES = Qt.Key.Key_N
LANGUAGE = Qt.Key.Key_L  # English ↔ 中文 in place: the step, its frame and both screens kept
KEYS |= set(DIGITS) | ENTER | set(BLANK) | HELP | {NOTES, LANGUAGE, Qt.Key.Key_Backspace}
SHIFTED: dict[int, Qt.Key] = {
    Qt.Key.Key_Right: FRAME_ON,
    Qt.Key.Key_Left: FRAME_BACK,
}  # Shift+arrow: a frame, not a step
MAX_TYPED = 3  # digits of a step number (a lesson has at most 100 steps)


def key_help() -> list[tuple[str, str]]:
    """(keys, what they do) for every lesson key: the presenter's help (F1 or ?) and docs/presenting.md."""
    from gemmviz.ui.text import tr

    return [
        (tr("→ Space PgDn"), tr("next step")),
        ("← PgUp", tr("previous step, as it ended")),
        ("Home / End", tr("first / last step")),
        (tr("number, Enter"), tr("go to that step")),
        (tr(". or Shift+→"), tr("animation one frame on")),
        (tr(", or Shift+←"), tr("animation one frame back")),
        ("P", tr("play / pause the animation")),
        ("B / W", tr("black / white screen (again: back)")),
        ("N", tr("notes window (one screen)")),
        ("L", tr("English / 中文, same step")),
        ("R", tr("measure the step live (GPU)")),
        ("T", tr("reset the clock")),
        (tr("F1 or ?"), tr("these keys")),
        ("Esc", tr("end the lesson")),
    ]


STEPS_PER_SECOND = 2.0
TICK_MS = 16


def lesson_key(key: int, modifiers) -> Qt.Key | None:
    """The lesson's meaning of a key press (Shift+→ is one frame on), or None for a key the lesson leaves."""
    mods = modifiers & ~Qt.KeyboardModifier.KeypadModifier
    if mods == Qt.KeyboardModifier.ShiftModifier and key in SHIFTED:
        return SHIFTED[key]
    if mods == Qt.KeyboardModifier.ShiftModifier and key == Qt.Key.Key_Question:  # ? is Shift+/ on most layouts
        return Qt.Key.Key_Question
    if mods or key not in KEYS:
        return None
    return Qt.Key(key)


class LessonDeck(QObject):
    """Which step is shown, the frame of its animation, the presenter's clock.

    `moved(index)`: the step changed. `frameChanged()`: the animation's frame (step or glide phase) changed.
    `runRequested()`: R was pressed. `left()`: Esc, or a window of the lesson closed. `blankChanged()`: B or W
    blanked the projected screen or showed it again (`blank`: None, "black" or "white"). `typedChanged()`: the
    step number being typed (`typed`). `helpRequested()`, `notesRequested()`, `languageRequested()`: F1 or ?, N, L."""

    moved = Signal(int)
    frameChanged = Signal()
    runRequested = Signal()
    left = Signal()
    clockReset = Signal()
    blankChanged = Signal()
    typedChanged = Signal()
    helpRequested = Signal()
    notesRequested = Signal()
    languageRequested = Signal()

    def __init__(self, lesson: Lesson, parent: QObject | None = None):
        super().__init__(parent)
        self.lesson = lesson
        self.index = 0
        self._frame = None  # the FrameState of the step's animation, built when first asked for
        self._schedules: dict[int, object] = {}
        self.timer = QTimer(self)  # the animation playing (P)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.clock = QElapsedTimer()
        self.clock.start()
        self.ended = False
        self.blank: str | None = None  # the projected screen blanked: "black" or "white"
        self.typed = ""  # a step number being typed, jumped to by Enter

    @property
    def count(self) -> int:
        return len(self.lesson.steps)

    # ---- steps -----------------------------------------------------------------------------------------
    def go(self, index: int, ended: bool = False) -> None:
        """Show step `index`, its animation on the frame the step names, or (`ended`) on its last frame: the
        step as it was left, where ← comes back to it. A move shows a blanked screen again."""
        self.timer.stop()
        self.index = max(0, min(index, self.count - 1))
        self._frame = None  # the new step opens on the frame it names
        if ended:
            f = self.opening_frame(self.index)
            if f is not None:
                self._frame = replace(f, step=len(f.schedule.steps) - 1, phase=1.0)
        self.set_blank(None)
        self.moved.emit(self.index)

    def set_blank(self, blank: str | None) -> None:
        if blank != self.blank:
            self.blank = blank
            self.blankChanged.emit()

    def _type(self, typed: str) -> None:
        self.typed = typed
        self.typedChanged.emit()

    def _typing(self, key: Qt.Key) -> bool:
        """Digits, Enter, Backspace and Esc while a step number is being typed; False for any other key."""
        if key in DIGITS:
            self._type((self.typed + str(DIGITS[key]))[-MAX_TYPED:])
        elif key in ENTER and self.typed:
            n = int(self.typed)
            self._type("")
            if 1 <= n <= self.count:
                self.go(n - 1)
        elif key == Qt.Key.Key_Backspace or (key == Qt.Key.Key_Escape and self.typed):
            self._type(self.typed[:-1] if key == Qt.Key.Key_Backspace else "")
        else:
            return False
        return True

    def key(self, key: Qt.Key) -> bool:
        """A lesson key (as `lesson_key` reads it) from either window; True if it was used."""
        if self._typing(key):
            return True
        if self.typed:
            self._type("")  # another key: the number typed is forgotten
        step = {Qt.Key.Key_Home: 0, Qt.Key.Key_End: self.count - 1}.get(key)
        if key in BACK and self.index > 0:
            self.go(self.index - 1, ended=True)
        elif key in NEXT or key in BACK or step is not None:
            self.go(step if step is not None else self.index + (1 if key in NEXT else -1))
        elif key in BLANK:
            self.set_blank(None if self.blank == BLANK[key] else BLANK[key])
        elif key in HELP:
            self.helpRequested.emit()
        elif key == NOTES:
            self.notesRequested.emit()
        elif key == LANGUAGE:
            self.languageRequested.emit()
        elif key == Qt.Key.Key_Escape:
            self.leave()
        elif key in (FRAME_ON, FRAME_BACK):
            self.step_frame(1 if key == FRAME_ON else -1)
        elif key == Qt.Key.Key_P:
            self.toggle_play()
        elif key == Qt.Key.Key_R:
            self.runRequested.emit()
        elif key == Qt.Key.Key_T:
            self.reset_clock()
        else:
            return False
        return True

    def leave(self) -> None:
        """The lesson ends (once, whichever window asked)."""
        if self.ended:
            return
        self.ended = True
        self.timer.stop()
        self.left.emit()

    # ---- the clock -------------------------------------------------------------------------------------
    def elapsed_s(self) -> int:
        return int(self.clock.elapsed() // 1000)

    def reset_clock(self) -> None:
        self.clock.restart()
        self.clockReset.emit()

    # ---- the animation of the step shown ---------------------------------------------------------------
    def opening_frame(self, index: int):
        """The FrameState a step's animation opens on (the `step` its animation table names); None if the
        step shows no animation."""
        step = self.lesson.steps[index]
        if step.animation is None:
            return None
        from gemmviz.ui.lesson.views import frame_state

        if index not in self._schedules:
            self._schedules[index] = frame_state(step)
        return self._schedules[index]

    @property
    def frame(self):
        """The step's animation frame now (None: the step has no animation)."""
        if self._frame is None:
            self._frame = self.opening_frame(self.index)
        return self._frame

    def frames(self) -> int:
        f = self.frame
        return 0 if f is None else len(f.schedule.steps)

    def set_frame(self, step: int, phase: float = 1.0) -> None:
        f = self.frame
        if f is None:
            return
        step = max(0, min(step, len(f.schedule.steps) - 1))
        if (step, phase) != (f.step, f.phase):
            self._frame = replace(f, step=step, phase=phase)
            self.frameChanged.emit()

    def step_frame(self, delta: int) -> None:
        """One frame on or back inside the step's animation, without leaving the step."""
        f = self.frame
        if f is None:
            return
        self.timer.stop()
        self.set_frame(f.step + delta, 1.0)

    def toggle_play(self) -> None:
        f = self.frame
        if f is None:
            return
        if self.timer.isActive():
            self.timer.stop()
            return
        if f.step >= len(f.schedule.steps) - 1:
            self.set_frame(0, 1.0)
        self.timer.start()

    def _tick(self) -> None:
        s = self.frame
        if s is None:
            self.timer.stop()
            return
        phase = s.phase + self.timer.interval() / 1000 * STEPS_PER_SECOND
        if phase >= 1.0 and s.phase >= 1.0:  # a finished step: move on to the next, starting its glide
            if s.step >= len(s.schedule.steps) - 1:
                self.timer.stop()
                return
            self.set_frame(s.step + 1, 0.0)
        else:
            self.set_frame(s.step, min(1.0, phase))


class LessonKeys(QObject):
    """Application-wide filter: the lesson's keys (ui/lesson/deck.py), for any widget inside `widget`'s window
    while it is on screen, handed to `handler(key)`: the projected window's and the presenter's."""

    def __init__(self, widget: QWidget, handler):
        super().__init__(widget)
        self.widget, self.handler = widget, handler

    def eventFilter(self, obj, event) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride) or not isinstance(obj, QWidget):
            return False
        if obj.window() is not self.widget.window() or not self.widget.isVisible():
            return False
        key = lesson_key(event.key(), event.modifiers()) if isinstance(event, QKeyEvent) else None
        if key is None:
            return False
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()  # the key comes to us as a KeyPress instead of firing a window shortcut
            return True
        self.handler(key)
        return True
