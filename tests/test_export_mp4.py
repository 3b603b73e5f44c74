"""MP4 export: the GIF's timed frames through ffmpeg (where it is installed), and clear errors where it is
missing or fails, leaving no file behind."""

import json
import shutil
import subprocess

import pytest

pytest.importorskip("PySide6")

from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import block_schedule
from gemmviz.ui.export import exporters as export
from gemmviz.ui.export.exporters import ExportError, export_mp4


@pytest.mark.skipif(shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None, reason="needs ffmpeg")
def test_mp4_has_the_gifs_frames_and_their_durations(qapp, tmp_path):
    from gemmviz.ui.theme import LIGHT
    from gemmviz.ui.tiling.frames import timed_frames

    schedule = block_schedule("gpu-tiled", Problem(40, 40, 40), 16)
    n = export_mp4(schedule, tmp_path / "a.mp4", (1, 2), 321, 181)  # odd sizes: yuv420p needs even ones
    durations = [f.duration_ms for f in timed_frames(schedule, (1, 2), 320, 180, LIGHT, 2.0)]
    assert n == len(durations)
    probe = subprocess.run(
        [
            "ffprobe",
            "-v",
            "error",
            "-show_entries",
            "stream=width,height,codec_name:format=duration",
            "-of",
            "json",
            str(tmp_path / "a.mp4"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    info = json.loads(probe.stdout)
    stream = info["streams"][0]
    assert (stream["width"], stream["height"]) == (320, 180)
    assert float(info["format"]["duration"]) == pytest.approx(sum(durations) / 1000, abs=0.1)


def test_mp4_without_ffmpeg_says_so(qapp, tmp_path, monkeypatch):
    monkeypatch.setattr(export, "ffmpeg_path", lambda: None)
    with pytest.raises(ExportError, match="needs ffmpeg.*GIF and PNG frames work"):
        export_mp4(block_schedule("gpu-tiled", Problem(32, 32, 32), 16), tmp_path / "a.mp4", (0, 0), 160, 90)
    assert list(tmp_path.iterdir()) == []


def test_a_failing_ffmpeg_is_reported_and_leaves_nothing(qapp, tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "ffmpeg"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Unknown encoder libx264' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(export, "ffmpeg_path", lambda: str(fake))
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(ExportError, match="ffmpeg failed: Unknown encoder"):
        export_mp4(block_schedule("gpu-tiled", Problem(32, 32, 32), 16), out / "a.mp4", (0, 0), 160, 90)
    assert list(out.iterdir()) == []
