"""Kinds of file the window opens: one registry (ui/files.READERS) that File ▸ Open, a file dropped on the window
and `gemmviz --open` go through; a new kind is one registration."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.exercise.record import FORMAT
from gemmviz.core.session.workspace import default_replay_session
from gemmviz.ui.files import READERS, FileKind, open_filter, reader_for
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend


@pytest.fixture
def window(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    backends = {"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)}
    w = MainWindow(backends=backends, settings=settings, load_recorded_without_gpu=False)
    qtbot.addWidget(w)
    return w


def test_a_file_is_told_by_its_suffix_and_where_kinds_share_one_by_its_first_bytes(tmp_path):
    check = tmp_path / "mine.json"
    check.write_text(json.dumps({"format": FORMAT, "version": 1}))
    session = tmp_path / "run.json"
    session.write_text(json.dumps({"schema": "gemmviz.session"}))
    assert reader_for(check).name == "check"  # a check saved as a plain .json
    assert reader_for(session).name == "session"
    assert reader_for(tmp_path / "tiled.check.json").name == "check"  # by its name, before it exists
    assert reader_for(tmp_path / "RUN.JSON.GZ").name == "session"
    assert reader_for(tmp_path / "my_lesson.toml").name == "lesson"
    assert reader_for(tmp_path / "notes.txt") is None
    text = open_filter()
    assert all(f"*{suffix}" in text for kind in READERS.values() for suffix in kind.suffixes)


def test_open_a_dropped_file_and_the_command_line_open_each_file_where_its_kind_opens(window, tmp_path, qtbot):
    recorded = default_replay_session()
    assert recorded is not None
    copy = tmp_path / "recorded.json.gz"
    copy.write_bytes(gzip.compress(recorded.read_bytes()) if recorded.suffix != ".gz" else recorded.read_bytes())
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(copy))])
    drop = QDropEvent(
        QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    drop.setAccepted(False)
    window.dropEvent(drop)
    assert drop.isAccepted() and len(window.workspace.sessions) == 1  # the session is in the workspace
    assert str(copy) in window.files._recent()

    opened: list[Path] = []

    def open_scratch(_files, path: Path) -> bool:
        opened.append(path)
        return True

    with READERS.scratch(FileKind("scratch", (".gvz",), lambda: "Scratch", open_scratch)):
        assert window.open_paths([str(tmp_path / "a.gvz")])  # the command line's --open: a new kind needs no more
    assert opened == [tmp_path / "a.gvz"]

    assert not window.open_paths([str(tmp_path / "notes.txt")])  # no kind: said, naming the kinds there are
    assert "notes.txt" in window.last_error_text and ".toml" in window.last_error_text
    refused = QMimeData()
    refused.setUrls([QUrl.fromLocalFile(str(tmp_path / "notes.txt")), QUrl.fromLocalFile(str(copy))])
    for mime, taken in ((refused, False), (drop.mimeData(), True)):
        enter = QDragEnterEvent(
            QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
        )
        enter.setAccepted(False)
        window.dragEnterEvent(enter)
        assert enter.isAccepted() is taken  # a drag with a file of no kind is refused whole
