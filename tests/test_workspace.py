"""The workspace without Qt: sessions with unique ids and labels, sources beside results, saving without a device."""

import copy
import json
import shutil

import pytest

from gemmviz.core.session.results import Result, Session, SessionError
from gemmviz.core.session.workspace import LIVE, Workspace, default_replay_session, recorded_sessions


def live(variant="cpu-blas", n=64, backend="cpu", params=None):
    return Result(variant, params or {}, n, n, n, backend, "fp32", True, samples_ms=[1.0, 2.0], repeats=2)


ENV = {
    "cpu": "Test CPU",
    "backends": {
        "cpu": {"available": True, "reason": "ok"},
        "cuda": {"available": True, "reason": "ok", "name": "Fake GPU"},
    },
}


@pytest.fixture
def h200_twice(tmp_path):
    """The shipped H200 session as two different files: same GPU, same day."""
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    shutil.copy(default_replay_session(), first)
    shutil.copy(default_replay_session(), second)
    return first, second


def test_two_sessions_of_the_same_gpu_and_day_are_both_kept(h200_twice):
    ws = Workspace()
    a, b = (ws.open(p) for p in h200_twice)
    assert a.id != b.id and len(ws.sessions) == 2
    assert a.label == "NVIDIA H200, 2026-12-02 (recorded)"
    assert b.label == "NVIDIA H200, 2026-12-02 (2) (recorded)"
    assert len(ws.shown()) == len(a.results) + len(b.results)
    assert {ws.source_of(r) for r in ws.shown()} == {a.label, b.label}
    ws.close(a.id)
    assert ws.sessions == [b] and {ws.source_of(r) for r in ws.shown()} == {b.label}
    c = ws.open(h200_twice[0])  # the first label is free again
    assert c.label == a.label and c.id not in (a.id, b.id)


def test_reopening_the_same_file_reloads_it_in_place(h200_twice):
    ws = Workspace()
    first = ws.open(h200_twice[0])
    again = ws.open(h200_twice[0])
    assert ws.sessions == [again] and again.id == first.id and again.label == first.label
    assert all(ws.session_of(r) is again for r in ws.shown())


def test_a_bad_file_leaves_the_workspace_unchanged(tmp_path):
    ws = Workspace()
    ws.open(default_replay_session())
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    before = ws.shown()
    with pytest.raises(SessionError):
        ws.open(bad)
    assert ws.shown() == before and len(ws.sessions) == 1


def test_sources_are_kept_beside_results_never_in_them(tmp_path):
    ws = Workspace(environment=ENV)
    r = live()
    ws.add_live(r)
    loaded = ws.open(default_replay_session(), replay=True)
    snapshot = copy.deepcopy(loaded.session.to_dict())
    assert ws.source_of(r) == LIVE and ws.session_of(r) is None
    assert ws.replay is loaded and ws.source_of(loaded.results[0]) == "NVIDIA H200, 2026-12-02 (recorded)"
    ws.set_hidden({"cpu-blas"})
    ws.shown(), ws.roofline_gpu(ws.shown()), ws.gpu_of(loaded.results[0])
    assert loaded.session.to_dict() == snapshot  # opening, showing, hiding: no result was changed
    assert r == live()
    path = tmp_path / "s.json"
    ws.live_session({"repeats": 2}).save(path)
    assert "source" not in json.loads(path.read_text())["results"][0]


def test_old_files_with_a_source_field_still_open(tmp_path):
    data = json.loads(default_replay_session().read_text())
    for r in data["results"]:
        r["source"] = "written by an older gemmviz"
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    assert Session.load(path).results[0].variant == data["results"][0]["variant"]


def test_the_live_session_carries_the_probed_environment(tmp_path):
    # The workspace holds no backend at all; the app-level spy test (test_app) shows the window saves through it.
    ws = Workspace(environment=ENV)  # as the worker handed it over
    ws.add_live(live("gpu-tiled", backend="cuda", params={"tile": 16}))
    session = ws.live_session({"repeats": 2, "warmup": 1}, created="2026-12-01T10:00:00+00:00")
    session.save(tmp_path / "s.json")
    loaded = Session.load(tmp_path / "s.json")
    assert loaded.environment == ENV and loaded.settings == {"repeats": 2, "warmup": 1}
    assert loaded.created == "2026-12-01T10:00:00+00:00" and loaded.results == ws.live
    ws.clear_live()
    assert session.results and not ws.live  # the saved session is a copy of the list, not a view of it


def test_hidden_series_are_not_shown():
    ws = Workspace()
    a, b = live("cpu-blas"), live("cpu-naive")
    ws.add_live(a)
    ws.add_live(b)
    ws.set_hidden({"cpu-naive"})
    assert ws.shown() == [a] and ws.series() == ["cpu-blas", "cpu-naive"]
    ws.set_hidden(())
    assert ws.shown() == [a, b]


def test_which_gpu_a_roofline_uses():
    ws = Workspace()
    ws.open(next(p for p in recorded_sessions() if "rtx4060" in p.name))
    assert ws.roofline_gpu(ws.shown()) == "NVIDIA RTX 4060"  # no GPU here: the first session's
    ws.environment = ENV
    assert ws.roofline_gpu(ws.shown()) == "NVIDIA RTX 4060"  # a GPU here, but it ran nothing
    gpu_result = live("gpu-tiled", backend="cuda", params={"tile": 16})
    ws.add_live(gpu_result)
    assert ws.roofline_gpu(ws.shown()) == "Fake GPU" and ws.gpu_of(gpu_result) == "Fake GPU"
    assert ws.gpu_of(ws.sessions[0].results[0]) == "NVIDIA RTX 4060"


def test_availability_comes_from_the_probed_environment():
    ws = Workspace()
    assert ws.variant_availability("gpu-tiled", "cuda") == (False, "no cuda backend")
    ws.environment = {**ENV, "variants": {"gpu-tiled": [False, "needs sm_80"]}}
    assert ws.variant_availability("gpu-tiled", "cuda") == (False, "needs sm_80")
    assert ws.variant_availability("cpu-blas", "cpu") == (True, "ok")
    assert ws.availability(["cpu", "cuda"]) == {"cpu": (True, "ok"), "cuda": (True, "ok")}


class Recorder:
    """Every workspace event, in order, as (name, args)."""

    def __init__(self, ws: Workspace):
        self.seen: list[tuple[str, tuple]] = []
        ws.events.all.connect(lambda info: self.seen.append((info.signal.name, info.args)))

    def names(self) -> list[str]:
        names, self.seen = [name for name, _ in self.seen], []
        return names


def test_live_results_are_announced():
    ws = Workspace()
    rec = Recorder(ws)
    a, b = live("cpu-blas"), live("cpu-naive")
    shown_when_told = []
    ws.events.results_added.connect(lambda _results: shown_when_told.append(ws.shown()))
    ws.add_live(a)
    ws.add_live(b, live("cpu-numpy"))
    assert rec.seen[0] == ("results_added", ([a],)) and rec.seen[2][0] == "results_added"
    assert shown_when_told[0] == [a]  # emitted after the change: a handler reads the new state
    assert rec.seen[1] == ("shown_changed", (True,))  # appended: a view may redraw staged
    assert rec.names() == ["results_added", "shown_changed"] * 2
    ws.add_live()
    assert rec.names() == []
    ws.clear_live()
    assert rec.seen[1] == ("shown_changed", (False,)) and rec.names() == ["live_cleared", "shown_changed"]
    assert not ws.live


def test_sessions_opened_reopened_and_closed_are_announced(h200_twice, tmp_path):
    ws = Workspace()
    rec = Recorder(ws)
    a = ws.open(h200_twice[0])
    assert rec.seen[0] == ("session_added", (a,)) and rec.names() == ["session_added", "shown_changed"]
    again = ws.open(h200_twice[0])  # in place: same id, new results
    assert rec.seen[0] == ("session_added", (again,)) and again.id == a.id
    rec.names()
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(SessionError):
        ws.open(bad)
    assert rec.names() == []  # a refused file changes nothing and says nothing
    b = ws.open(h200_twice[1])
    rec.names()
    ws.close(a.id)
    assert rec.seen[0] == ("session_removed", (a.id,)) and rec.names() == ["session_removed", "shown_changed"]
    ws.open(h200_twice[0])
    rec.names()
    ws.close_all()
    assert rec.names() == ["session_removed", "session_removed", "shown_changed"] and not ws.sessions
    assert b.id not in {s.id for s in ws.sessions}


def test_restoring_a_snapshot_announces_what_went_and_came_back(h200_twice):
    ws = Workspace()
    first = ws.open(h200_twice[0])
    before = ws.snapshot()
    second = ws.open(h200_twice[1])
    rec = Recorder(ws)
    ws.restore(before)
    assert rec.seen == [("session_removed", (second.id,)), ("shown_changed", (False,))] and ws.sessions == [first]
    before = ws.snapshot()
    reloaded = ws.open(h200_twice[0])  # reopened in place, then put back: the old object returns
    rec.names()
    ws.restore(before)
    assert rec.seen == [("session_added", (first,)), ("shown_changed", (False,))] and ws.sessions[0] is not reloaded


def test_visibility_is_announced_only_when_it_changes():
    ws = Workspace()
    rec = Recorder(ws)
    ws.add_live(live("cpu-blas"), live("cpu-naive"))
    rec.names()
    ws.set_hidden({"cpu-naive"})
    assert rec.seen[0] == ("hidden_changed", (frozenset({"cpu-naive"}),))
    assert rec.names() == ["hidden_changed", "shown_changed"]
    ws.set_hidden(["cpu-naive"])
    assert rec.names() == []
    ws.hidden ^= {"cpu-blas"}  # what a legend click does: assignment is announced too
    assert ws.hidden == {"cpu-naive", "cpu-blas"} and rec.names() == ["hidden_changed", "shown_changed"]
    assert ws.shown() == []


def test_selection_is_announced_and_follows_what_is_open(h200_twice):
    ws = Workspace()
    rec = Recorder(ws)
    a = live()
    ws.add_live(a)
    loaded = ws.open(h200_twice[0])
    rec.names()
    picked = [a, loaded.results[0]]
    ws.select(picked)
    assert rec.seen == [("selection_changed", (picked,))] and ws.selection == picked
    rec.names()
    ws.select(list(picked))
    assert rec.names() == []  # the same results again: nothing to say
    ws.close(loaded.id)  # a closed session's results leave the selection
    assert ws.selection == [a] and rec.names() == ["selection_changed", "session_removed", "shown_changed"]
    ws.clear_live()
    assert ws.selection == [] and rec.names() == ["selection_changed", "live_cleared", "shown_changed"]


def test_the_environment_is_announced_when_the_worker_reports():
    ws = Workspace()
    got = []
    ws.events.environment_changed.connect(got.append)
    ws.environment = ENV
    assert got == [ENV] and ws.gpu_available and ws.environment is not ENV  # a copy: the caller's dict stays its own


def test_a_run_shows_its_own_series_even_where_a_preset_hid_it():
    ws = Workspace()
    ws.set_hidden({"cpu-blas", "cpu-naive"})
    r = live("cpu-blas")
    ws.add_live(r)
    assert ws.hidden == {"cpu-naive"} and ws.shown() == [r]


def test_the_replay_choice_is_read_once_and_follows_the_files(monkeypatch, tmp_path):
    """default_replay_session reads and checks every shipped session to choose; the choice is kept for the same
    files (every window of a process asks) and made again when the files change."""
    from gemmviz.core.session import workspace

    shipped = recorded_sessions()
    chosen = default_replay_session()
    assert chosen is not None and chosen.name.endswith(".json")  # a measured session, not a companion
    real, reads = workspace._read_recordings, []
    monkeypatch.setattr(workspace, "_read_recordings", lambda paths: reads.append(len(paths)) or real(paths))
    assert default_replay_session() == chosen and reads == []  # the same files: not read again
    session = Session.load(chosen)
    session.created = "2099-01-01T00:00:00+00:00"  # a newer measured session joins the shipped ones
    newer = tmp_path / "newer.json"
    session.save(newer)
    monkeypatch.setattr(workspace, "recorded_sessions", lambda: [*shipped, newer])
    sessions = [p for p in shipped if not p.name.endswith(workspace.COMPANION_SUFFIX)]  # the companions are not read
    assert default_replay_session() == newer and reads == [len(sessions) + 1]
