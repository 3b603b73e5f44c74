"""Issue 21: the recovery file is read with a session's bounds, and a hostile one is refused with a message
(named field, set aside, never deleted) while the app keeps working; live results never pass the result
limit: a run that would take them past it is refused before it starts, nothing dropped."""

import json

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from benchmarks.large_session import make_session
from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.measure.bench import Job
from gemmviz.core.problem import Problem
from gemmviz.core.session import bounds
from gemmviz.ui.window import MainWindow
from gemmviz.ui.window import run as window_run
from tests.fakes import FakeGpuBackend


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("GEMMVIZ_CONFIG_DIR", str(tmp_path / "conf"))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    w = MainWindow(
        {"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)},
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
        load_recorded_without_gpu=False,
    )
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: bool(w.workspace.environment), timeout=10000)
    yield w
    w.recovery.remove()
    w.close()


def _hostile(change) -> bytes:
    d = make_session(3)
    change(d)
    return json.dumps(d).encode()


def _set(index, field, value):
    return lambda d: d["results"][index].__setitem__(field, value)


HOSTILE = {
    "samples-1e308": (_set(0, "samples_ms", [1e308]), "results[0].samples_ms[0]"),
    "sm-id-1e9": (_set(1, "block_trace", [[0, 10**9, 0, 100]]), "results[1].block_trace[0][1]"),
    "trace-end-1e30": (_set(1, "block_trace", [[0, 0, 0, 10**30]]), "results[1].block_trace[0][3]"),
    "tile-7": (_set(2, "params", {"tile": 7}), "results[2].params"),
    "counter-negative": (_set(0, "counters", {"dram__bytes_read.sum": -1.0}), "results[0].counters"),
    "cpu-variant-on-cuda": (lambda d: d["results"][0].update(variant="cpu-naive", params={}), "results[0]"),
    "sms-1e9": (lambda d: d["environment"].update(backends={"cuda": {"sms": 10**9}}), "environment.backends.cuda"),
    "over-the-limit": (
        lambda d: d["results"].extend([d["results"][0]] * bounds.MAX_RESULTS),
        f"{bounds.MAX_RESULTS:,}",
    ),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_recovery_file_out_of_bounds_is_refused_with_its_field_named_and_set_aside(window, name):
    from gemmviz.ui.recovery import recovery_path

    change, words = HOSTILE[name]
    data = _hostile(change)
    path = recovery_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    assert window.recovery.offer() == 0
    assert window.workspace.live == []
    aside = [p for p in path.parent.iterdir() if p.name.startswith("recovery-unreadable-")]
    assert len(aside) == 1 and aside[0].read_bytes() == data and not path.exists()  # kept, not deleted
    error = window.recovery.last_error
    assert "could not be read" in error and words in error and len(error.splitlines()) == 1, error
    assert window.last_error_text.startswith("Recovery file refused: ") and words in window.last_error_text
    assert window.last_error is not None and window.last_error.isVisible()  # opened, not exec'd: offer() returned


def test_a_good_recovery_file_is_restored_and_the_window_still_runs_after_a_refused_one(window, qtbot):
    from gemmviz.ui.recovery import recovery_path

    path = recovery_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_hostile(HOSTILE["sm-id-1e9"][0]))
    assert window.recovery.offer() == 0
    path.write_bytes(_hostile(lambda d: None))
    assert window.recovery.offer() == 3 and len(window.workspace.live) == 3
    window.start([Job("cpu-naive", (), Problem(32, 32, 32))])
    qtbot.waitUntil(lambda: len(window.workspace.live) == 4 and not window.running, timeout=20000)
    assert window.workspace.live[-1].valid


def _jobs(n: int) -> list[Job]:
    return [Job("cpu-naive", (), Problem(16, 16, 16 + i)) for i in range(n)]


def test_a_run_that_would_pass_the_result_limit_is_refused_before_it_starts(window, qtbot, monkeypatch):
    monkeypatch.setattr(window_run, "MAX_RESULTS", 5)
    window.start(_jobs(3))
    qtbot.waitUntil(lambda: len(window.workspace.live) == 3 and not window.running, timeout=20000)
    window.start(_jobs(3))  # 3 more would make 6
    assert not window.running and len(window.workspace.live) == 3
    text = window.run_panel.message.text()
    assert "3 jobs" in text and "only 2 more" in text and "at most 5 results" in text
    assert window.last_error_text.startswith("Too many results: ")
    window.start(_jobs(2))  # exactly to the limit: runs, every result kept
    qtbot.waitUntil(lambda: len(window.workspace.live) == 5 and not window.running, timeout=20000)
    window.start(_jobs(1))
    assert not window.running and "only 0 more" in window.run_panel.message.text()


def test_the_real_limit_is_the_loaders():
    assert window_run.MAX_RESULTS == bounds.MAX_RESULTS == 20_000
