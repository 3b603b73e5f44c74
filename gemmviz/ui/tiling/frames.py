"""The animation as a sequence of timed frames for GIF and MP4: each step's settled frame, and before every load a
few in-between frames in which the tiles glide from global to shared memory (the same FrameState phase the
app's 250 ms glide uses). A GIF is streamed frame by frame (memory is one frame's worth for any K) with one fixed
palette (no per-frame adaptive quantisation), each frame only the box of pixels that changed, which keeps a whole
K loop small and quick.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np
from PySide6.QtGui import QColor, QImage, QPainter

from gemmviz.core import interrupt
from gemmviz.core.schedule.block import Schedule
from gemmviz.core.schedule.kinds import schedule_kind
from gemmviz.ui.theme import LIGHT, Theme
from gemmviz.ui.tiling.render import Background, FrameState, render_frame

MOVE_FRAMES = 3  # in-between frames of a load (plus its settled frame)
MOVE_MS = 250  # how long the glide takes, as in the app


@dataclass(frozen=True)
class TimedFrame:
    image: QImage
    duration_ms: int


def frame_states(
    schedule: Schedule, thread: tuple[int, int], steps_per_second: float = 2.0, move_frames: int = MOVE_FRAMES
) -> Iterator[tuple[FrameState, int]]:
    """(state, how long it shows in ms): each step settled; a load first glides in over `move_frames` frames."""
    hold_ms = max(20, int(1000 / steps_per_second))
    move_ms = max(20, MOVE_MS // max(1, move_frames)) if move_frames else 0
    glides = schedule_kind(schedule.kind).glides
    for i, step in enumerate(schedule.steps):
        if step.kind in glides and move_frames:
            for j in range(move_frames):
                yield FrameState(schedule, i, j / move_frames, thread), move_ms
        yield FrameState(schedule, i, 1.0, thread), max(20, hold_ms - move_ms * move_frames * (step.kind in glides))


def timed_frames(
    schedule: Schedule,
    thread: tuple[int, int],
    width: int,
    height: int,
    theme: Theme = LIGHT,
    steps_per_second: float = 2.0,
    move_frames: int = MOVE_FRAMES,
) -> Iterator[TimedFrame]:
    """The rendered frames (opaque RGB32 images); `theme` is already scaled to the output size."""
    background = Background()  # the matrices, grid and names drawn once for the whole animation
    for state, ms in frame_states(schedule, thread, steps_per_second, move_frames):
        yield TimedFrame(frame_image(state, width, height, theme, background), ms)


def frame_image(
    state: FrameState, width: int, height: int, theme: Theme, background: Background | None = None
) -> QImage:
    """One frame as an opaque RGB32 image; `theme` is already scaled to the output size."""
    with interrupt.deferred():  # Ctrl+C waits for the frame: Qt's calls (and a painter) end before it is raised
        image = QImage(width, height, QImage.Format.Format_RGB32)
        image.fill(QColor(theme.background))
        painter = QPainter(image)
        try:
            render_frame(painter, width, height, state, theme, background or Background())
        finally:
            painter.end()
    return image


def _pixels(image: QImage) -> np.ndarray:
    """The image's 0xffRRGGBB words as a (height, width) array (a copy: the image may go)."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    words = np.frombuffer(bytes(image.constBits()), dtype=np.uint32)
    return words.reshape(image.height(), image.bytesPerLine() // 4)[:, : image.width()].copy()


class _Palette:
    """One palette for the whole GIF: 255 colours from the first frame (the theme's colours and their blends),
    index 255 transparent. A colour seen later maps to its nearest entry, remembered."""

    def __init__(self, first: np.ndarray):
        from PIL import Image

        rgb = np.dstack([(first >> 16) & 255, (first >> 8) & 255, first & 255]).astype(np.uint8)
        quantised = Image.fromarray(rgb, "RGB").quantize(colors=TRANSPARENT, method=Image.Quantize.MEDIANCUT)
        self.flat = ((quantised.getpalette() or []) + [0] * 768)[: 3 * TRANSPARENT]
        self.rgb = np.array(self.flat, dtype=np.int32).reshape(-1, 3)
        self.known = np.zeros(0, dtype=np.uint32)  # colours seen so far, sorted, and their palette entries
        self.known_index = np.zeros(0, dtype=np.uint8)

    def indices(self, words: np.ndarray) -> np.ndarray:
        """Palette entries of the pixels (a binary search in the colours seen; only new ones are matched)."""
        pos = np.searchsorted(self.known, words)
        if len(self.known) == 0 or not (self.known[np.minimum(pos, len(self.known) - 1)] == words).all():
            hit = np.isin(words, self.known)
            new = np.unique(words[~hit])
            c = new.astype(np.int64)
            rgb = np.stack([(c >> 16) & 255, (c >> 8) & 255, c & 255], axis=1)
            nearest = ((rgb[:, None, :] - self.rgb[None, :, :]) ** 2).sum(axis=2).argmin(axis=1).astype(np.uint8)
            colours = np.concatenate([self.known, new])
            order = np.argsort(colours, kind="stable")
            self.known = colours[order]
            self.known_index = np.concatenate([self.known_index, nearest])[order]
            pos = np.searchsorted(self.known, words)
        return self.known_index[pos]


TRANSPARENT = 255  # the palette index of "unchanged since the last frame"


def _frame_lzw(index: np.ndarray, flat_palette: list[int]) -> bytes:
    """The image descriptor and LZW data of one palette frame, as Pillow encodes a one-frame GIF (its own
    header, colour table and trailer cut off): the encoder is Pillow's, the container ours."""
    from PIL import Image

    image = Image.fromarray(index, "P")
    image.putpalette(flat_palette)
    buf = io.BytesIO()
    image.save(buf, format="GIF", optimize=False)
    data = buf.getvalue()
    flags = data[10]
    pos = 13 + (3 * (2 << (flags & 7)) if flags & 0x80 else 0)
    while data[pos] == 0x21:  # extensions Pillow may write before the image: skip their sub-blocks
        pos += 2
        while data[pos]:
            pos += data[pos] + 1
        pos += 1
    if data[pos] != 0x2C or data[-1] != 0x3B:
        raise ValueError("unexpected GIF layout from Pillow")
    return data[pos:-1]


class GifWriter:
    """An animated GIF written frame by frame to a binary file: memory stays one frame's worth whatever the
    length (a K of 80,000 is 50,000 frames). One palette for all frames (index 255 transparent); each frame
    after the first is cut to the box of pixels that changed, the rest transparent; a frame with no change
    lengthens the one before. Call add() for each frame, then close()."""

    def __init__(self, fp: BinaryIO):
        self.fp = fp
        self.palette: _Palette | None = None
        self.flat: list[int] = []
        self.previous: np.ndarray | None = None
        self.pending: tuple[bytes, int] | None = None  # the last frame's image data, held for its duration
        self.frames = 0

    def _start(self, words: np.ndarray) -> _Palette:
        self.palette = palette = _Palette(words)
        self.flat = palette.flat + [0, 0, 0]
        h, w = words.shape
        self.fp.write(b"GIF89a" + struct.pack("<HHBBB", w, h, 0xF7, 0, 0) + bytes(self.flat))
        self.fp.write(b"!\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00")  # loop for ever
        return palette

    def _flush(self) -> None:
        if self.pending is None:
            return
        image, ms = self.pending
        delay = max(2, min(65535, round(ms / 10)))  # GIF counts hundredths of a second
        self.fp.write(b"!\xf9\x04" + struct.pack("<BHBB", 0x05, delay, TRANSPARENT, 0))  # disposal 1, transparent
        self.fp.write(image)
        self.pending = None

    def add(self, frame: TimedFrame) -> None:
        words = _pixels(frame.image)
        if self.palette is None:
            index = self._start(words).indices(words.reshape(-1)).reshape(words.shape)
            top, left = 0, 0
        else:
            changed = words != self.previous
            if not changed.any():
                if self.pending is not None:
                    self.pending = (self.pending[0], self.pending[1] + frame.duration_ms)
                self.previous = words
                return
            rows, cols = np.flatnonzero(changed.any(axis=1)), np.flatnonzero(changed.any(axis=0))
            top, left = int(rows[0]), int(cols[0])
            box = (slice(top, int(rows[-1]) + 1), slice(left, int(cols[-1]) + 1))
            index = np.full(changed[box].shape, TRANSPARENT, dtype=np.uint8)
            index[changed[box]] = self.palette.indices(words[box][changed[box]])
        self.previous = words
        image = bytearray(_frame_lzw(index, self.flat))
        image[1:5] = struct.pack("<HH", left, top)
        self._flush()
        self.pending = (bytes(image), frame.duration_ms)
        self.frames += 1

    def close(self) -> int:
        """End the file; returns the number of frames written."""
        if self.palette is None:
            raise ValueError("no frames to write")
        self._flush()
        self.fp.write(b";")
        return self.frames


def write_gif(frames: Iterator[TimedFrame], fp: BinaryIO) -> int:
    """Stream the frames into `fp` as an animated GIF (looping); returns the number of frames stored."""
    writer = GifWriter(fp)
    for frame in frames:
        writer.add(frame)
    return writer.close()


def frame_count(schedule: Schedule, move_frames: int = MOVE_FRAMES) -> int:
    """How many frames timed_frames yields for `schedule`: a progress bar's total."""
    glides = schedule_kind(schedule.kind).glides
    loads = sum(1 for step in schedule.steps if step.kind in glides)
    return len(schedule.steps) + loads * move_frames
