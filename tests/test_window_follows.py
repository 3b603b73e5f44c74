"""Views follow the workspace (issue 35, item 4): each view subscribes to `Workspace.events` itself, redraws when
it is on screen (a hidden one when it is next shown), and a closed window leaves no callback on the workspace's
signals; nothing sets attributes on the window from outside it."""

from __future__ import annotations

import ast
import gc
import weakref
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QSettings

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.lesson.lessons import shipped_lessons
from gemmviz.core.session.workspace import Workspace, default_replay_session
from gemmviz.ui.follow import WorkspaceFollower
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend

ROOT = Path(__file__).resolve().parents[1]
SIGNALS = [
    "results_added",
    "live_cleared",
    "session_added",
    "session_removed",
    "hidden_changed",
    "selection_changed",
    "environment_changed",
    "shown_changed",
]


def build(tmp_path) -> MainWindow:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    backends = {"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)}
    return MainWindow(backends=backends, settings=settings, load_recorded_without_gpu=False)


@pytest.fixture
def window(qtbot, tmp_path):
    w = build(tmp_path)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitUntil(lambda: bool(w.workspace.environment), timeout=10000)
    yield w
    w.recovery.ask = False  # live results of a test: nothing to ask about
    w.close()


def owners(ws: Workspace, name: str) -> list:
    """Who each callback connected to `ws.events.<name>` belongs to: a follower counts as its view."""
    out = []
    for slot in getattr(ws.events, name)._slots:
        method = slot.dereference()
        owner = getattr(method, "__self__", method)
        out.append(owner.view if isinstance(owner, WorkspaceFollower) else owner)
    return out


def connections(ws: Workspace) -> dict[str, int]:
    return {name: len(getattr(ws.events, name)) for name in SIGNALS}


def test_every_view_subscribes_to_the_workspace_itself(window):
    ws = window.workspace
    following = owners(ws, "shown_changed")
    for view in (window.charts_tab, window.roofline_tab, window.hardware_tab, window.compare):
        assert view in following, type(view).__name__
        assert view.follower.following
    assert window.roofline_tab in owners(ws, "selection_changed")  # the table's and the chart's picks
    assert window.run_panel in owners(ws, "environment_changed")  # what this machine can run
    # the window relays nothing: no callback of the workspace is the window's
    assert all(window not in owners(ws, name) for name in SIGNALS)


def test_a_closed_window_leaves_no_callback_on_the_workspace(qtbot, tmp_path):
    w = build(tmp_path)
    w.show()
    ws = w.workspace
    qtbot.waitUntil(lambda: bool(ws.environment), timeout=10000)
    assert connections(ws)["shown_changed"] >= 4
    views = [weakref.ref(v) for v in (w.charts_tab, w.roofline_tab, w.hardware_tab, w.compare)]
    w.close()
    assert connections(ws) == dict.fromkeys(SIGNALS, 0)
    ws.open(default_replay_session())  # a model outliving its window calls nothing of it
    w.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    del w
    gc.collect()
    assert [ref() for ref in views] == [None] * len(views)  # nothing (the workspace least of all) holds a view


def test_a_hidden_view_redraws_when_it_is_shown_and_not_before(window, qtbot):
    ws, hardware = window.workspace, window.hardware_tab
    window.tabs.setCurrentWidget(window.charts_tab)
    before = hardware.follower.refreshes
    ws.open(default_replay_session())
    assert hardware.follower.dirty and hardware.follower.refreshes == before  # hidden: only marked
    assert window.roofline_tab.chart.results  # the roofline follows at once, hidden or not (an export reads it)
    window.tabs.setCurrentWidget(hardware)
    assert not hardware.follower.dirty and hardware.follower.refreshes > before
    assert hardware.candidates == [r for r in ws.shown() if r.valid and (r.counters or r.block_trace)]


def test_a_run_streaming_in_redraws_the_view_on_screen_and_marks_the_others(window, qtbot):
    ws, roofline, hardware = window.workspace, window.roofline_tab, window.hardware_tab
    ws.open(default_replay_session())
    window.tabs.setCurrentWidget(roofline)
    shown_before, seen = roofline.follower.refreshes, hardware.follower.refreshes
    result = ws.sessions[0].results[0]
    ws.add_live(result)  # as a run's result arrives (appended)
    qtbot.waitUntil(lambda: roofline.follower.refreshes > shown_before and not roofline.follower.dirty)
    assert hardware.follower.dirty and hardware.follower.refreshes == seen
    window.tabs.setCurrentWidget(hardware)
    assert not hardware.follower.dirty


def test_lesson_mode_and_the_animation_export_are_objects_the_window_holds(window, qtbot):
    attributes = set(vars(window))
    lesson = next(iter(shipped_lessons().values()))
    assert window.start_lesson(lesson)
    assert window.lesson_mode.active and window.lesson_view is window.lesson_mode.view
    window.leave_lesson()
    assert not window.lesson_mode.active and window.lesson_view is None
    assert window.animation_export is None and not window.animation_exports.running
    assert set(vars(window)) == attributes  # nothing was added to the window on the way


WINDOW_NAMES = {"window", "win", "main_window", "old", "new"}


def _is_window(node: ast.expr) -> bool:
    """`window`, `old`, `new` (i18n's two windows), or `self.window` / `self.main_window`."""
    if isinstance(node, ast.Name):
        return node.id in WINDOW_NAMES
    return (
        isinstance(node, ast.Attribute)
        and node.attr in {"window", "main_window"}
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def test_no_code_sets_attributes_on_the_window_from_outside():
    """Only ui/window.py assigns the window's attributes; nothing calls setattr on it, and the window reads
    none of its own attributes back with getattr (each is created in MainWindow.__init__)."""
    found = []
    for path in sorted((ROOT / "gemmviz").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for t in targets:
                for leaf in t.elts if isinstance(t, ast.Tuple) else [t]:
                    if isinstance(leaf, ast.Attribute) and _is_window(leaf.value) and rel != "gemmviz/ui/window.py":
                        found.append(f"{rel}:{node.lineno}: sets {ast.unparse(leaf)}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
                name, first = node.func.id, node.args[0]
                if name == "setattr" and (_is_window(first) or rel == "gemmviz/ui/window.py"):
                    found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
                if name in {"getattr", "hasattr"} and (
                    _is_window(first)
                    or (rel == "gemmviz/ui/window.py" and isinstance(first, ast.Name) and first.id == "self")
                ):
                    found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    assert found == []


def test_closing_the_window_mid_check_kills_the_child_and_joins_the_worker(window, qtbot, tmp_path, monkeypatch):
    """A check's worker goes through the same helper as runs and exports: the window's close cancels it (the
    child process is killed) and joins its thread."""
    import shutil
    import sys

    import gemmviz.backends.exercise as ex

    def slow_probe(folder, cancel):
        ex.run_child([sys.executable, "-c", "import time; time.sleep(60)"], 60, cancel)
        return None, "never"

    monkeypatch.setattr(ex, "gpu_arch", slow_probe)
    path = tmp_path / "tiled.cu"
    shutil.copy(ROOT / "tests" / "data" / "exercises" / "tiled_good.cu", path)
    tab = window.exercise_tab
    tab.set_file(path)
    tab.start_check()
    qtbot.waitUntil(lambda: "looking for a GPU" in tab.progress.text(), timeout=10_000)
    runner = tab.thread
    assert runner is not None and runner.running
    window.close()
    assert runner.cancel_flag.is_set() and not runner.running and not runner.detached
