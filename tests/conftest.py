import gc
import importlib.util
import os
import re
import sys

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# One BLAS thread per test process (and the processes tests start): three xdist workers share CI's two cores,
# and each OpenBLAS pool's threads spin while they wait for work, so the workers' pools took the cores from
# each other (a 128x32x128 product took 15 ms instead of 0.1 ms). Set before numpy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

THREAD_GRACE_MS = 10_000  # a closed window's worker ends within about 2 s; more under a loaded machine


try:
    HAS_QT = importlib.util.find_spec("PySide6") is not None
except ImportError:
    HAS_QT = False
_NEEDS_QT = re.compile(r"^(from|import) (PySide6|pytestqt|pyqtgraph|gemmviz\.ui)\b", re.M)


if HAS_QT:
    from pytestqt.qtbot import QtBot

    _wait_until = QtBot.waitUntil

    def _wait_until_longer(self, callback, *, timeout: int = 30_000):
        """qtbot.waitUntil with 30 s, not pytest-qt's 5 s, where a test names no time: it waits on a condition
        and returns as soon as it holds, so only a machine under load (two CI runs sharing two cores) ever uses
        the time; a test that bounds how long something may take names its own timeout."""
        return _wait_until(self, callback, timeout=timeout)

    QtBot.waitUntil = _wait_until_longer


def pytest_ignore_collect(collection_path, config):
    """Without Qt (the GPU machine), a test module that imports Qt at its top is not collected, rather than
    failing the whole run at collection (modules that call pytest.importorskip first are skipped as usual)."""
    if HAS_QT or collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    head = collection_path.read_text(encoding="utf-8", errors="replace")
    importorskip = head.find("importorskip(")
    match = _NEEDS_QT.search(head)
    return True if match and (importorskip < 0 or match.start() < importorskip) else None


def pytest_collection_modifyitems(config, items):
    from gemmviz.backends.cuda_probe import cuda_status

    ok, reason = cuda_status()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"needs a CUDA GPU: {reason}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    """Never write to the user's cache or settings from a test."""
    monkeypatch.setenv("GEMMVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("GEMMVIZ_CONFIG_DIR", str(tmp_path / "config" / "gemmviz"))


@pytest.fixture(autouse=True)
def _no_leaked_qt(request):
    """Fail a test that leaves a QThread running, a top-level widget shown (napari's conftest does the same) or
    the application's font size or style sheet changed (see _app_look), and put the process-wide
    garbage-collector state back as the app keeps it (see _restore_gc).

    Autouse, so it is set up before a test's own fixtures and checks after they (and pytest-qt, which closes
    the widgets given to qtbot.addWidget) have cleaned up. Tests that never load Qt pay nothing."""
    if "PySide6.QtCore" not in sys.modules and "qtbot" not in request.fixturenames:
        yield
        return
    from PySide6.QtCore import QThread
    from PySide6.QtWidgets import QApplication

    look = _app_look(QApplication.instance())
    started: list = []
    original_start = QThread.start

    def start(self, *args, **kwargs):
        started.append(self)
        return original_start(self, *args, **kwargs)

    QThread.start = start
    try:
        yield
    finally:
        QThread.start = original_start
    running = []
    for thread in started:
        try:
            if thread.isRunning() and not thread.wait(THREAD_GRACE_MS):  # a condition: wait for it to end
                running.append(type(thread).__name__ + (f" {thread.objectName()!r}" if thread.objectName() else ""))
        except RuntimeError:  # its C++ object is already gone: it cannot be running
            pass
    app = QApplication.instance()
    shown = []
    if app is not None:
        app.processEvents()
        # Windows, not widgets: QApplication.topLevelWidgets() wraps every top-level widget in Python and crashed
        # (a stale wrapper of a deleted widget, 1 run in 3); QWindow exists only for a widget that was shown.
        left = [w for w in app.topLevelWindows() if w.isVisible() and w.transientParent() is None]
        shown = [f"{w.title() or w.objectName() or type(w).__name__!r}" for w in left]
        for w in left:
            w.close()  # so the next test starts clean whatever this one left
    if not running:
        _restore_gc()
    leaked_look = _put_back_look(app, look)
    problems = [f"a QThread still running ({', '.join(running)})"] if running else []
    problems += [f"a top-level widget still shown ({', '.join(shown)})"] if shown else []
    problems += [f"the application's {leaked_look} changed (put back now)"] if leaked_look else []
    if problems:
        what = " and ".join(problems)
        pytest.fail(f"{request.node.nodeid} leaked {what}; close what the test opened, put back what it changed")


def _app_look(app) -> tuple | None:
    """What every widget made later inherits from the process: the application font's size and the application
    style sheet. Projector type sets the font (MainWindow.set_projector); a test that leaves it at 20 pt makes
    every later window in its worker lay out in projector type before projector mode is on (the Tiling tab 1,161
    px wide instead of 766). None before the first QApplication exists (see _put_back_look)."""
    if app is None:
        return None
    font = app.font()
    return font.pointSizeF(), font.pixelSize(), app.styleSheet()


def _system_look() -> tuple:
    """The look a new QApplication has: the platform's general font (asked for once an application exists: Qt's
    font database answers -1 before) and no style sheet."""
    from PySide6.QtGui import QFontDatabase

    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont)
    return font.pointSizeF(), font.pixelSize(), ""


def _put_back_look(app, look: tuple | None) -> str:
    """Put the application's font size and style sheet back as they were before the test (as a new application
    has them when the test made the first one); name what had changed ("" when nothing did), so that the next
    test in the worker starts as it would alone."""
    if app is None:
        return ""
    look = look if look is not None else _system_look()
    now = _app_look(app)
    if now == look:
        return ""
    point_size, pixel_size, sheet = look
    changed = [what for what, a, b in zip(("font size", "font size", "style sheet"), now, look, strict=True) if a != b]
    font = app.font()
    if pixel_size > 0:
        font.setPixelSize(pixel_size)
    else:
        font.setPointSizeF(point_size)
    app.setFont(font)
    if app.styleSheet() != sheet:
        app.setStyleSheet(sheet)
    return f"{' and '.join(dict.fromkeys(changed))} ({now[0]:g} pt, {now[1]} px)"


def _restore_gc() -> None:
    """Put the collector back as the app keeps it: once the UI-thread collector (ui/run/gc_guard.py) exists,
    automatic collection stays off and its timer on (turning collection back on between tests would let
    tqdm's monitor thread collect Qt wrappers, the deadlock the guard is for); gc.freeze() undone, always: an
    unfreeze merges two lists (0.01 ms), where gc.get_freeze_count() walks every frozen object (12 ms for the
    75,742 the app's imports leave; 36 ms a call on average in a Qt test worker, 8% of four Qt files' time)."""
    guard = sys.modules.get("gemmviz.ui.run.gc_guard")
    if guard is not None and guard._collector is not None:
        gc.disable()
        if not guard._collector.timer.isActive():
            guard._collector.timer.start()
    gc.unfreeze()


_exit_status: list[int] = []


def pytest_sessionfinish(session, exitstatus):
    _exit_status.append(int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """End the process as soon as pytest is done, with its exit status, skipping the interpreter's teardown:
    PySide's application teardown can free a leftover pyqtgraph item whose callback still holds a widget and
    segfault (QGraphicsScene::clear on a dead scene; seen in full runs, depending on garbage-collection timing),
    which would turn a passing run into exit 139. Every report and the summary are written by then."""
    if not _exit_status or "PySide6.QtWidgets" not in sys.modules:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(_exit_status[-1])


@pytest.fixture
def fake_gpu(monkeypatch):
    """The default backends are one fake GPU (tests/fakes.FakeGpuBackend, 10 ms a job): `gemmviz profile` and the
    bench without a GPU (tests/test_profile_cli.py, tests/test_profile_gap.py)."""
    import gemmviz.backends
    from tests.fakes import FakeGpuBackend

    backend = FakeGpuBackend(delay_s=0.01)
    monkeypatch.setattr(gemmviz.backends, "default_backends", lambda: {"cuda": backend})
    return backend
