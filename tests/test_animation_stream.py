"""The animation is streamed: the GIF writer holds one frame whatever K, each stored frame decodes to exactly
the rendered frame (in the GIF's palette), and an export that fails or is interrupted leaves no file."""

import io

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("PIL")

from PIL import Image

from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import block_schedule
from gemmviz.ui.export.exporters import export_gif
from gemmviz.ui.theme import LIGHT
from gemmviz.ui.tiling.frames import GifWriter, TimedFrame, _pixels, frame_count, timed_frames


def _decoded(data: bytes) -> list[np.ndarray]:
    frames = []
    with Image.open(io.BytesIO(data)) as im:
        for i in range(im.n_frames):
            im.seek(i)
            frames.append(np.asarray(im.convert("RGB")).copy())
    return frames


def test_every_streamed_frame_decodes_to_the_rendered_frame(qapp):
    schedule = block_schedule("gpu-tiled", Problem(40, 40, 40), 16)
    rendered = list(timed_frames(schedule, (1, 2), 240, 135, LIGHT))
    out = io.BytesIO()
    writer = GifWriter(out)
    for frame in rendered:
        writer.add(frame)
    n = writer.close()
    decoded = _decoded(out.getvalue())
    assert n == len(decoded) == len(rendered) == frame_count(schedule)
    rgb = writer.palette.rgb
    for frame, got in zip(rendered, decoded):
        words = _pixels(frame.image)
        want = rgb[writer.palette.indices(words.reshape(-1))].reshape(*words.shape, 3)
        assert np.array_equal(got, want.astype(np.uint8))


def test_unchanged_frames_lengthen_the_one_before():
    out = io.BytesIO()
    writer = GifWriter(out)
    from PySide6.QtGui import QColor, QImage

    def frame(colour: str, ms: int):
        image = QImage(8, 4, QImage.Format.Format_RGB32)
        image.fill(QColor(colour))
        return TimedFrame(image, ms)

    for f in (frame("red", 100), frame("red", 200), frame("blue", 300)):
        writer.add(f)
    assert writer.close() == 2
    with Image.open(io.BytesIO(out.getvalue())) as im:
        durations = []
        for i in range(im.n_frames):
            im.seek(i)
            durations.append(im.info["duration"])
    assert durations == [300, 300]


def test_memory_does_not_grow_with_k(qapp, tmp_path):
    """Peak Python allocations of a 4x longer K stay within a few frames' worth (tracemalloc: the old writer
    held every frame, 50,000 of them for K = 79,984). K = 64 and 256 (29 and 113 frames, frame_count): the old
    writer would hold 84 frames more, 10 times the allowance of 8, so a writer that keeps its frames still
    fails by far; 512 (225 frames) took twice as long (6.5 s on a loaded machine) and showed nothing more:
    the size is not the point, the growth is."""
    import tracemalloc

    peaks = []
    for k in (64, 256):
        schedule = block_schedule("gpu-tiled", Problem(16, 16, k), 16)
        tracemalloc.start()
        export_gif(schedule, tmp_path / f"k{k}.gif", (0, 0), 320, 180)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    frame_bytes = 320 * 180 * 4
    assert peaks[1] < peaks[0] + 8 * frame_bytes, peaks


def test_a_failed_or_interrupted_gif_export_leaves_the_previous_file(qapp, tmp_path):
    target = tmp_path / "a.gif"
    target.write_bytes(b"previous")
    schedule = block_schedule("gpu-tiled", Problem(64, 64, 64), 16)

    def stop(done, total, what):
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        export_gif(schedule, target, (0, 0), 160, 90, progress=stop)
    assert target.read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gif"]  # no temporary or lock file left


def test_progress_counts_every_frame(qapp, tmp_path):
    schedule = block_schedule("gpu-tiled", Problem(32, 32, 32), 16)
    seen = []
    n = export_gif(schedule, tmp_path / "a.gif", (0, 0), 160, 90, progress=lambda d, t, w: seen.append((d, t)))
    assert seen[-1] == (frame_count(schedule), frame_count(schedule)) and n == frame_count(schedule)
