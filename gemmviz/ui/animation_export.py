"""The animation as a sequence of timed frames for GIF and MP4: each step's settled frame, and before every load a
few in-between frames in which the tiles glide from global to shared memory (the same FrameState phase the
app's 250 ms glide uses). A GIF is written with one fixed palette (no per-frame adaptive quantisation) and
Pillow stores only what changed between frames, which keeps a whole K loop small and quick.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from PySide6.QtGui import QColor, QImage, QPainter

from gemmviz.core.schedule import Schedule
from gemmviz.ui.theme import LIGHT, Theme
from gemmviz.ui.tiling_render import Background, FrameState, render_frame

MOVE_FRAMES = 3  # in-between frames of a load (plus its settled frame)
MOVE_MS = 250  # how long the glide takes, as in the app


@dataclass(frozen=True)
class TimedFrame:
    image: QImage
    duration_ms: int


def frame_states(schedule: Schedule, thread: tuple[int, int], steps_per_second: float = 2.0,
                 move_frames: int = MOVE_FRAMES) -> Iterator[tuple[FrameState, int]]:  # fmt: skip
    """(state, how long it shows in ms): each step settled; a load first glides in over `move_frames` frames."""
    hold_ms = max(20, int(1000 / steps_per_second))
    move_ms = max(20, MOVE_MS // max(1, move_frames)) if move_frames else 0
    for i, step in enumerate(schedule.steps):
        if step.kind == "load" and move_frames:
            for j in range(move_frames):
                yield FrameState(schedule, i, j / move_frames, thread), move_ms
        yield FrameState(schedule, i, 1.0, thread), max(20, hold_ms - move_ms * move_frames * (step.kind == "load"))


def timed_frames(schedule: Schedule, thread: tuple[int, int], width: int, height: int, theme: Theme = LIGHT,
                 steps_per_second: float = 2.0, move_frames: int = MOVE_FRAMES) -> Iterator[TimedFrame]:  # fmt: skip
    """The rendered frames (opaque RGB32 images); `theme` is already scaled to the output size."""
    background = Background()  # the matrices, grid and names drawn once for the whole animation
    for state, ms in frame_states(schedule, thread, steps_per_second, move_frames):
        image = QImage(width, height, QImage.Format.Format_RGB32)
        image.fill(QColor(theme.background))
        painter = QPainter(image)
        render_frame(painter, width, height, state, theme, background)
        painter.end()
        yield TimedFrame(image, ms)


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
        self.flat = (quantised.getpalette() + [0] * 768)[: 3 * TRANSPARENT]
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


def gif_bytes(frames: Iterator[TimedFrame]) -> tuple[bytes, int]:
    """An animated GIF of the frames (looping) and the number of frames. One palette for all frames, no
    dithering; each frame after the first keeps only the pixels that changed (the rest transparent), which
    LZW stores in almost nothing."""
    from PIL import Image

    images, durations = [], []
    palette, previous = None, None
    for frame in frames:
        words = _pixels(frame.image)
        if palette is None:
            palette = _Palette(words)
            index = palette.indices(words.reshape(-1)).reshape(words.shape)
        else:
            changed = words != previous
            index = np.full(words.shape, TRANSPARENT, dtype=np.uint8)
            if changed.any():
                index[changed] = palette.indices(words[changed])
        previous = words
        image = Image.fromarray(index, "P")
        image.putpalette(palette.flat + [0, 0, 0])
        images.append(image)
        durations.append(frame.duration_ms)
    if not images:
        raise ValueError("no frames to write")
    out = io.BytesIO()
    images[0].save(out, format="GIF", save_all=True, append_images=images[1:], loop=0, duration=durations,
                   optimize=False, disposal=1, transparency=TRANSPARENT)  # fmt: skip
    return out.getvalue(), len(images)
