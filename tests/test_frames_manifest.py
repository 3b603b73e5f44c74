"""A frames folder's manifest (.gemmviz-frames, issue 46 item 6) is honoured only for files gemmviz wrote there: each
entry is a frame's name in that folder with the SHA-256 of the bytes gemmviz wrote, which the file must still
hold. A planted manifest, or a frame the user replaced, never gets a user's file deleted; gemmviz's own stale
frames still go."""

from __future__ import annotations

import hashlib

import pytest

pytest.importorskip("PySide6")

from gemmviz.cli.main import main
from gemmviz.ui.export.exporters import FRAME_NAME, FRAMES_MANIFEST

SMALL = ["animate", "--mnk", "32", "--size", "160x90", "-o"]


def _export(folder) -> list[str]:
    assert main([*SMALL, str(folder)]) == 0
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("frame_"))


def test_a_planted_manifest_never_deletes_a_users_file(qapp, tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    mine = folder / FRAME_NAME.format(9000)
    mine.write_bytes(b"the user's own picture")
    planted = [
        f"{mine.name}",  # the old format: a name alone
        f"{mine.name} {'0' * 64}",  # a hash that is not the file's
        f"../outside.png {hashlib.sha256(b'x').hexdigest()}",  # out of the folder
    ]
    (tmp_path / "outside.png").write_bytes(b"x")
    (folder / FRAMES_MANIFEST).write_text("\n".join(planted) + "\n", encoding="utf-8")
    frames = _export(folder)
    assert mine.read_bytes() == b"the user's own picture" and (tmp_path / "outside.png").exists()
    assert mine.name in frames
    listed = (folder / FRAMES_MANIFEST).read_text(encoding="utf-8").splitlines()
    assert [line.split()[0] for line in listed] == [n for n in frames if n != mine.name]
    assert all(hashlib.sha256((folder / n).read_bytes()).hexdigest() == h for n, h in map(str.split, listed))


def test_a_shorter_export_removes_gemmvizs_stale_frames_but_not_one_the_user_replaced(qapp, tmp_path):
    folder = tmp_path / "frames"
    assert main(["animate", "--mnk", "64", "--tile", "8", "--size", "160x90", "-o", str(folder)]) == 0
    long = sorted(p.name for p in folder.iterdir() if p.name.startswith("frame_"))
    replaced = folder / long[-1]
    replaced.write_bytes(b"the user's edit of the last frame")
    short = _export(folder)
    assert replaced.name in short and replaced.read_bytes() == b"the user's edit of the last frame"
    gone = [n for n in long if n not in short]
    assert gone and len(short) < len(long)  # the other stale frames went
