"""Views follow the workspace (issue 35, item 4): each view subscribes to `Workspace.events` itself, redraws when
it is on screen (a hidden one when it is next shown), and a closed window leaves no callback on the workspace's
signals; nothing sets attributes on the window from outside it."""

from __future__ import annotations

import ast
import functools
import gc
import weakref
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QSettings

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.lesson.lessons import shipped_lessons
from gemmviz.core.session.workspace import Workspace, default_replay_session
from gemmviz.ui.charts.tab import TABLE
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


def views_of(window: MainWindow) -> list:
    """The window's views: its tabs, the run panel and the lesson on screen, if any. The Hardware tab is built on
    first use (MainWindow.hardware_tab): asked for here, so that the tabs hold it rather than its stand-in."""
    assert window.hardware_tab is not None
    views = [window.tabs.widget(i) for i in range(window.tabs.count())] + [window.run_panel]
    return views + ([window.lesson_view] if window.lesson_view is not None else [])


def test_every_view_subscribes_to_the_workspace_itself(window):
    ws = window.workspace
    assert window.built_tab("hardware") is None  # built when first opened or asked for, not before the first paint
    views = (window.charts_tab, window.roofline_tab, window.hardware_tab, window.compare)  # builds the Hardware tab
    following = owners(ws, "shown_changed")
    for view in views:
        assert view in following, type(view).__name__
        assert view.follower.following
    assert window.roofline_tab in owners(ws, "selection_changed")  # the table's and the chart's picks
    assert window.run_panel in owners(ws, "environment_changed")  # what this machine can run
    for name in ("session_added", "session_removed"):  # the records recorded beside the session opened
        assert window.access_tab in owners(ws, name)
    assert window.start_lesson(next(iter(shipped_lessons().values())))
    for name in ("results_added", "live_cleared"):  # the lesson's live figures: this run's results
        assert window.lesson_view in owners(ws, name)
    # any view that reads the workspace subscribes to it itself
    subscribed = {id(v) for name in SIGNALS for v in owners(ws, name)}
    readers = [v for v in views_of(window) if getattr(v, "workspace", None) is ws]
    assert len(readers) >= 7 and window.lesson_view in readers and window.access_tab in readers
    assert [type(v).__name__ for v in readers if id(v) not in subscribed] == []
    # the window relays nothing: no callback of the workspace is the window's
    assert all(window not in owners(ws, name) for name in SIGNALS)
    window.leave_lesson()  # the lesson left stops following
    assert not any(type(v).__name__ == "LessonView" for name in SIGNALS for v in owners(ws, name))


def test_the_accesses_tab_follows_the_sessions_opened_and_closed(window, qtbot, tmp_path):
    """A session opened shows the records beside it (NAME.accesses.json.gz), read when the tab is next shown;
    closing it falls back to the shipped ones. Nobody tells the tab: it follows the workspace."""
    import shutil

    from gemmviz.core.hardware import accesses as acc

    ws, tab = window.workspace, window.access_tab
    shipped = tab.shipped
    mine = acc.AccessFile("NVIDIA H200", "2026-12-01", "test", [acc.keep_first(shipped.find("gpu-naive"), 40)])
    acc.save_file(mine, tmp_path / "s.accesses.json.gz")
    shutil.copy(default_replay_session(), tmp_path / "s.json")
    window.tabs.setCurrentWidget(window.charts_tab)
    assert window.files.open_session(tmp_path / "s.json")
    assert tab.follower.dirty and tab.views.records is shipped  # hidden: read when it is next shown
    window.tabs.setCurrentWidget(tab)
    assert not tab.follower.dirty and tab.source == str(tmp_path / "s.accesses.json.gz")
    assert [p.trace.variant for p in tab.views.canvas.panels] == ["gpu-naive"]
    ws.close_all()  # on screen: at once
    assert tab.views.records is shipped and "shipped" in tab.source


def test_a_closed_window_leaves_no_callback_on_the_workspace(qtbot, tmp_path):
    w = build(tmp_path)
    w.show()
    ws = w.workspace
    qtbot.waitUntil(lambda: bool(ws.environment), timeout=10000)
    views = [weakref.ref(v) for v in (w.charts_tab, w.roofline_tab, w.hardware_tab, w.compare)]  # Hardware built
    assert connections(ws)["shown_changed"] >= 4
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
    roofline = window.roofline_tab  # hidden too: marked, while an export asks it what it would draw
    assert roofline.follower.dirty and not roofline.chart.results and roofline.drawn_results()
    window.tabs.setCurrentWidget(roofline)
    assert not roofline.follower.dirty and roofline.chart.results == roofline.drawn_results()
    window.tabs.setCurrentWidget(hardware)
    assert not hardware.follower.dirty and hardware.follower.refreshes > before
    assert hardware.candidates == [r for r in ws.shown() if r.valid and (r.counters or r.block_trace)]


def test_the_charts_tab_draws_only_the_panels_its_show_choice_puts_on_screen(window, qtbot):
    """A panel the "show" choice hides, and the table's column widths, wait until shown; the table's rows, the
    speedup panel's choices an export reads, and a chart asked for by name follow at once."""
    tab, ws = window.charts_tab, window.workspace
    window.tabs.setCurrentWidget(tab)
    tab.show_combo.setCurrentIndex(tab.show_combo.findData("gflops"))
    gflops = tab.panels["gflops"].chart
    loaded = ws.open(default_replay_session())
    drawn = ws.shown()
    assert gflops.results == drawn and tab.table.model_.rowCount() == len(drawn)
    assert tab.stale == {"time", "speedup"} and tab.table.columns_stale
    assert tab.panels["time"].chart.results == []  # not drawn while hidden
    view = tab.chart_view()  # the speedup panel's choices, brought up to date for the export
    assert "speedup" not in tab.stale and view.size_key is not None
    assert view.size_key == tab.panels["speedup"].size_combo.currentData()
    tab.show_combo.setCurrentIndex(tab.show_combo.findData("time"))
    assert "time" not in tab.stale and tab.panels["time"].chart.results == drawn
    assert tab.time_chart is tab.panels["time"].chart and tab.stale == set()
    ws.hidden ^= {loaded.results[0].series}  # a change while it is on screen: drawn at once
    assert loaded.results[0].series in tab.panels["time"].chart.hidden_series
    tab.show_combo.setCurrentIndex(tab.show_combo.findData(TABLE))
    assert tab.table.isVisible() and not tab.table.columns_stale


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


@functools.cache
def _parsed(path: Path) -> ast.AST:
    """A module of the tree, parsed once for this file's tests that read the whole tree (only read, never changed)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def test_no_code_sets_attributes_on_the_window_from_outside():
    """Only ui/window/ assigns the window's attributes; nothing calls setattr on it, and the window reads
    none of its own attributes back with getattr (each is created in MainWindow.__init__)."""
    found = []
    for path in sorted((ROOT / "gemmviz").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        tree = _parsed(path)
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for t in targets:
                for leaf in t.elts if isinstance(t, ast.Tuple) else [t]:
                    if (
                        isinstance(leaf, ast.Attribute)
                        and _is_window(leaf.value)
                        and not rel.startswith("gemmviz/ui/window/")
                    ):
                        found.append(f"{rel}:{node.lineno}: sets {ast.unparse(leaf)}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
                name, first = node.func.id, node.args[0]
                if name == "setattr" and (_is_window(first) or rel.startswith("gemmviz/ui/window/")):
                    found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
                if name in {"getattr", "hasattr"} and (
                    _is_window(first)
                    or (rel.startswith("gemmviz/ui/window/") and isinstance(first, ast.Name) and first.id == "self")
                ):
                    found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    assert found == []


def _own_attributes(cls_node: ast.ClassDef) -> set[str]:
    """The attributes a class sets on `self` in its own methods."""
    names = set()
    for node in ast.walk(cls_node):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for t in targets:
            for leaf in t.elts if isinstance(t, ast.Tuple) else [t]:
                if isinstance(leaf, ast.Attribute) and isinstance(leaf.value, ast.Name) and leaf.value.id == "self":
                    names.add(leaf.attr)
    return names


def _last_name(node: ast.expr) -> str | None:
    """`view` of `view`, `access_tab` of `self.window.access_tab`."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def _views_made(tree: ast.AST, classes: set[str]) -> dict[int, set[str]]:
    """id(node) -> the local names that hold a view there: `view = LessonView(...)` or `view: LessonView` in the
    function that holds the node."""
    made: dict[int, set[str]] = {}
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
        names = {a.arg for a in fn.args.args + fn.args.kwonlyargs if _last_name(a.annotation) in classes}
        nodes = list(ast.walk(fn))
        for n in nodes:
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and _last_name(n.value.func) in classes:
                names |= {t.id for t in n.targets if isinstance(t, ast.Name)}
        if not names:  # a function that holds no view: nothing to record (a node not in `made` holds none)
            continue
        for n in nodes:
            made.setdefault(id(n), set()).update(names)
    return made


def _assigned(node: ast.AST) -> list[ast.expr]:
    targets = node.targets if isinstance(node, ast.Assign) else []
    if isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    return [leaf for t in targets for leaf in (t.elts if isinstance(t, ast.Tuple) else [t])]


def _set_from_outside(source: str | ast.AST, classes: dict[str, set[str]], held: set[str]) -> list[str]:
    """`name.attr = ...` outside a view's class, where `name` holds a view (made in that function, or one the
    window holds: `window.access_tab`) and `attr` is one of the view class's own attributes (`source`: the code,
    or its parsed tree)."""
    tree = ast.parse(source) if isinstance(source, str) else source
    inside: dict[int, str] = {}  # id(node) -> the class whose body holds it
    for cls_node in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for n in ast.walk(cls_node):
            inside[id(n)] = cls_node.name
    made = _views_made(tree, set(classes))
    found = []
    for node in ast.walk(tree):
        for leaf in _assigned(node):
            if not isinstance(leaf, ast.Attribute):
                continue
            base = leaf.value
            local = isinstance(base, ast.Name) and base.id in made.get(id(node), set())
            if not (local or (isinstance(base, ast.Attribute) and base.attr in held)):
                continue
            owners_of = [c for c, attrs in classes.items() if leaf.attr in attrs]
            if owners_of and inside.get(id(node)) not in owners_of:
                found.append(f"{node.lineno}: sets {ast.unparse(leaf)} ({'/'.join(owners_of)})")
    return found


def test_no_code_sets_a_views_attributes_from_outside_it(window):
    """A view's state is its own: it is given what it needs when it is made (the workspace, a callable) and follows
    the workspace from there. No code outside a view's class assigns one of that class's attributes on a view
    (`view.run_jobs = ...` after `view = LessonView(...)`, `window.access_tab.source = ...`), in its own module or
    another."""
    assert window.start_lesson(next(iter(shipped_lessons().values())))
    views = views_of(window)
    window.leave_lesson()
    held = {name for name, value in vars(window).items() if any(value is v for v in views)}  # charts_tab, ...
    # the window's properties: the lesson on screen, and the tabs (ui/tabs.py's registry, by name)
    held |= {"lesson_view", "hardware_tab", "charts_tab", "roofline_tab", "compare", "access_tab", "exercise_tab"}
    held |= {"tiling"}
    classes: dict[str, set[str]] = {}
    for cls, module in {type(v).__name__: type(v).__module__ for v in views}.items():
        tree = ast.parse((ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
        classes[cls] = _own_attributes(next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls))
    assert {"run_jobs", "workspace", "live"} <= classes["LessonView"] and "shown_path" in classes["AccessTab"]
    assert {"charts_tab", "access_tab", "run_panel"} <= held
    found = []
    for path in sorted((ROOT / "gemmviz").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        found += [f"{rel}:{line}" for line in _set_from_outside(_parsed(path), classes, held)]
    assert found == []


def test_the_views_guard_sees_an_attribute_set_from_outside():
    classes = {"LessonView": {"run_jobs", "live"}, "AccessTab": {"source"}}
    source = (
        "def start(window, tab: AccessTab):\n"
        "    view = LessonView(lesson)\n"
        "    view.run_jobs = 1\n"
        "    window.access_tab.source = 'x'\n"
        "    tab.source = 'y'\n"
        "    chart = make()\n"
        "    chart.source = 'z'\n"  # not a view
        "class LessonView:\n"
        "    def go(self, other):\n"
        "        view = LessonView(x)\n"
        "        view.live = None\n"  # the class's own code may
    )
    assert [f.split(" (")[0] for f in _set_from_outside(source, classes, {"access_tab"})] == [
        "3: sets view.run_jobs",
        "4: sets window.access_tab.source",
        "5: sets tab.source",
    ]


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
    runner = tab.check_thread
    assert runner is not None and runner.running
    window.close()
    assert runner.cancel_flag.is_set() and not runner.running and not runner.detached
