"""The presenter's window, for the laptop screen while the main window projects the slide: the current slide,
the next one, the speaker's notes, the elapsed time (resettable) and "step i of n".

It is a second view of the lesson's one model (ui/lesson/deck.py): it subscribes to the deck's signals, and
its keys act on the deck, so a key in either window moves both. Its slides are drawn by the slide export's
code (ui/lesson/render.py) at the size of their pane, in the projection's look, the animation at the deck's
frame. F1 or ? shows every key in place of the notes; a blanked screen (B, W) and a step number being typed
show in its top line, never on the projector. Closing it ends the lesson, as Esc does.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetricsF, QImage, QPainter
from PySide6.QtWidgets import (
    QApplication,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.lesson.deck import LessonDeck, LessonKeys, key_help
from gemmviz.ui.lesson.render import render_slide_image
from gemmviz.ui.text import tr

ASPECT = 16 / 9


def clock_text(seconds: int) -> str:
    """12:34, or 1:02:03 past an hour."""
    h, rest = divmod(max(0, seconds), 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def key_hint() -> str:
    """The presenter's one line under its panes: where the rest of the keys are."""
    return tr("F1 or ?: all keys · number + Enter: go to a step · B / W: black / white screen · Esc: end")


def key_table() -> str:
    """Every lesson key and what it does, a line each (the help that F1 or ? shows)."""
    return "\n".join(f"{keys}\t{what}" for keys, what in key_help())  # a tab stop past the widest keys


class SlidePane(QWidget):
    """One slide, drawn at the pane's size with a 16:9 aspect, centred. The slide is rendered outside the paint
    event (a chart's view is laid out offscreen, which paints), once the keys already queued are handled, and
    only when what it shows changes (step, frame, look, size)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumSize(160, 90)
        self.what = None  # (lesson, index, source, projector, dark, frame), or None: nothing (after the last)
        self.empty_text = ""
        self.image: QImage | None = None
        self._key = None
        self.pending = QTimer(self)
        self.pending.setSingleShot(True)
        self.pending.setInterval(0)
        self.pending.timeout.connect(self.draw_slide)

    def show_slide(self, what, empty_text: str = "") -> None:
        self.what, self.empty_text = what, empty_text
        self.pending.start()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.pending.start()

    def slide_rect(self) -> QRectF:
        w, h = self.width(), self.height()
        sw, sh = (w, w / ASPECT) if w / max(h, 1) <= ASPECT else (h * ASPECT, h)
        return QRectF((w - sw) / 2, 0, sw, sh)  # at the top: the pane's spare height stays blank below

    def draw_slide(self) -> None:
        """The slide as an image at the pane's size (now: the tests call it)."""
        self.pending.stop()
        if self.what is None:
            self.image, self._key = None, None
            self.update()
            return
        r = self.slide_rect()
        ratio = self.devicePixelRatioF()
        w, h = max(160, int(r.width() * ratio)), max(90, int(r.height() * ratio))
        key = (*self.what[:2], id(self.what[2]), *self.what[3:], w, h)
        if key != self._key:
            lesson, index, source, projector, dark, frame = self.what
            image = render_slide_image(w, h, lesson, index, source, projector, dark, frame)
            image.setDevicePixelRatio(ratio)
            self.image, self._key = image, key
        self.update()

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        if self.what is not None and self.image is not None:
            painter.drawImage(self.slide_rect(), self.image)
        elif self.what is None and self.empty_text:
            painter.setPen(self.palette().windowText().color())
            painter.setFont(pixel_font(max(16.0, self.height() / 12)))
            painter.drawText(self.rect(), int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap), self.empty_text)
        painter.end()


class PresenterWindow(QWidget):
    """The presenter's view of `deck`, whose slides come from `lesson_view` (its sources and look)."""

    closed = Signal()

    def __init__(self, deck: LessonDeck, lesson_view, parent=None):
        super().__init__(parent, Qt.WindowType.Window)
        self.deck, self.lesson_view = deck, lesson_view
        self.setWindowTitle(tr("Presenter: {title}").format(title=deck.lesson.title))
        self.setMinimumSize(640, 360)
        self.current, self.next = SlidePane(), SlidePane()
        self.step_label, self.clock_label, self.frame_label = QLabel(), QLabel(), QLabel()
        self.reset_button = QPushButton(tr("Reset clock"))
        self.reset_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay the lesson's
        self.reset_button.clicked.connect(deck.reset_clock)
        self.notes = QPlainTextEdit()
        self.notes.setReadOnly(True)
        self.notes.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.help_label = QLabel(key_hint())
        self.help_label.setWordWrap(True)
        self.help = QPlainTextEdit(key_table())  # F1 or ?: every key, in place of the notes
        self.help.setReadOnly(True)
        self.help.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.help.setVisible(False)
        self.state_label = QLabel()  # the screen blanked, a step number being typed
        self.now_label, self.next_label = QLabel(tr("Now")), QLabel(tr("Next"))
        self._lay_out()
        self.ticker = QTimer(self)  # the clock's display, once a second
        self.ticker.setInterval(1000)
        self.ticker.timeout.connect(self._show_clock)
        self.ticker.start()
        self.keys = LessonKeys(self, deck.key)
        deck.moved.connect(self._moved)
        deck.frameChanged.connect(self._frame_changed)
        deck.clockReset.connect(self._show_clock)
        deck.blankChanged.connect(self._show_state)
        deck.typedChanged.connect(self._show_state)
        deck.helpRequested.connect(self.toggle_help)
        self._frame_shown = None
        self._moved(deck.index)
        self._show_clock()

    def retranslate(self) -> None:
        """Its words in the language installed now (the window's), and its slides again (in the lesson's)."""
        self.setWindowTitle(tr("Presenter: {title}").format(title=self.deck.lesson.title))
        self.reset_button.setText(tr("Reset clock"))
        self.help_label.setText(key_hint())
        self.help.setPlainText(key_table())
        self.now_label.setText(tr("Now"))
        self.next_label.setText(tr("Next"))
        self._fonts()  # the keys' column for the new words
        self._show_state()
        self._moved(self.deck.index)

    def _lay_out(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.step_label)
        top.addStretch(1)
        top.addWidget(self.frame_label)
        top.addStretch(1)
        top.addWidget(self.state_label)
        top.addStretch(1)
        top.addWidget(self.clock_label)
        top.addWidget(self.reset_button)
        grid = QGridLayout()
        grid.addWidget(self.now_label, 0, 0)
        grid.addWidget(self.next_label, 0, 1)
        grid.addWidget(self.current, 1, 0, 2, 1)
        grid.addWidget(self.next, 1, 1)
        grid.addWidget(self.notes, 2, 1)
        grid.addWidget(self.help, 2, 1)
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(1, 2)
        grid.setRowStretch(1, 2)
        grid.setRowStretch(2, 3)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(grid, 1)
        layout.addWidget(self.help_label)
        self._fonts()

    def _fonts(self) -> None:
        """Read at arm's length on a laptop: sizes follow the window's height."""
        scale = max(0.67, self.height() / 1080) if self.height() > 0 else 0.67
        big, body, small = pixel_font(40 * scale, True), pixel_font(28 * scale), pixel_font(22 * scale)
        for label in (self.step_label, self.clock_label):
            label.setFont(big)
        for w in (self.frame_label, self.reset_button, self.now_label, self.next_label, self.state_label):
            w.setFont(small)
        self.notes.setFont(body)
        # every key in the notes' pane (about half the window's height) without scrolling, as large as that allows
        rows = key_help()
        keys_font = pixel_font(min(28 * scale, max(14.0, 0.46 * self.height() / (len(rows) * 1.5))))
        self.help.setFont(keys_font)
        widest = max(QFontMetricsF(keys_font).horizontalAdvance(keys) for keys, _ in rows)
        self.help.setTabStopDistance(widest + keys_font.pixelSize())  # the keys one column, what they do the next
        self.help_label.setFont(small)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fonts()

    # ---- following the deck -----------------------------------------------------------------------------
    def _what(self, index: int, frame: int | None):
        v = self.lesson_view
        return (self.deck.lesson, index, v.source(index), v.projector, v.dark, frame)

    def _moved(self, index: int) -> None:
        deck, lesson = self.deck, self.deck.lesson
        n = deck.count
        self.step_label.setText(tr("step {i} of {n}").format(i=index + 1, n=n))
        self.current.show_slide(self._what(index, None))
        self._frame_shown = None
        if index + 1 < n:
            self.next.show_slide(self._what(index + 1, None))
        else:
            self.next.show_slide(None, tr("End of the lesson"))
        notes = lesson.steps[index].notes
        self.notes.setPlainText(notes or tr("(no notes for this step)"))
        self._show_frame()

    def _frame_changed(self) -> None:
        frame = self.deck.frame
        if frame is not None and frame.step != self._frame_shown:  # a glide's phases: the step's frame is enough
            self._show_frame()

    def _show_frame(self) -> None:
        step = self.deck.lesson.steps[self.deck.index]
        frame = self.deck.frame if step.animation is not None else None
        if frame is None:
            self.frame_label.setText("")
            return
        self._frame_shown = frame.step
        self.current.show_slide(self._what(self.deck.index, frame.step))
        self.frame_label.setText(tr("animation frame {i} of {n}").format(i=frame.step + 1, n=len(frame.schedule.steps)))

    def toggle_help(self) -> None:
        """F1 or ?: the keys in place of the notes, and back."""
        shown = not self.help.isVisible()
        self.help.setVisible(shown)
        self.notes.setVisible(not shown)

    def _show_state(self) -> None:
        deck = self.deck
        words = []
        if deck.blank is not None:
            words.append(tr("screen black (B: show it)") if deck.blank == "black" else tr("screen white (W: show it)"))
        if deck.typed:
            words.append(tr("go to step {n}: Enter").format(n=deck.typed))
        self.state_label.setText(" · ".join(words))

    def _show_clock(self) -> None:
        self.clock_label.setText(clock_text(self.deck.elapsed_s()))

    def texts(self) -> dict[str, str]:
        """What the window says, for the tests and the screenshots."""
        return {
            "step": self.step_label.text(),
            "clock": self.clock_label.text(),
            "frame": self.frame_label.text(),
            "notes": self.notes.toPlainText(),
            "state": self.state_label.text(),
            "help": self.help.toPlainText() if self.help.isVisible() else "",
        }

    # ---- opening and closing ----------------------------------------------------------------------------
    def showEvent(self, event) -> None:
        super().showEvent(event)
        _app().installEventFilter(self.keys)

    def hideEvent(self, event) -> None:
        _app().removeEventFilter(self.keys)
        super().hideEvent(event)

    def closeEvent(self, event) -> None:
        self.ticker.stop()
        _app().removeEventFilter(self.keys)
        super().closeEvent(event)
        self.closed.emit()
        self.deck.leave()  # closing the presenter's window ends the lesson, as Esc does


def screens():
    """(the projected window's screen, the presenter's): a second screen if there is one (the projector),
    the primary one (the laptop) for the presenter; with one screen both are it."""
    primary = QApplication.primaryScreen()
    others = [s for s in QApplication.screens() if s is not primary]
    # A screen that holds the laptop's whole (the X screen RandR lists beside its monitors) is no projector.
    apart = [s for s in others if not s.geometry().contains(primary.geometry())]
    return (apart or others or [primary])[0], primary


def one_screen() -> bool:
    """Whether the room sees the laptop's screen: one screen, or a projector mirroring it (a second screen at
    the same place and size). Then the slide is shown alone and the presenter's window waits behind N."""
    projected, laptop = screens()
    return projected is laptop or projected.geometry() == laptop.geometry()


def _app() -> QCoreApplication:
    """The application (a window needs one)."""
    app = QApplication.instance()
    assert app is not None
    return app
