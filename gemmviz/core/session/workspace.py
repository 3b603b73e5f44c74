"""What the user has open: this run's live results, loaded sessions, the environment the worker probed.

Qt-free, so the app's views and the tests share one model. Results are never modified here: which session a
result came from is kept beside it (`source_of`), not written into it, so nothing of the display leaks into
session files. Nothing here calls a device: the environment is whatever the worker thread probed and handed
over, and a live session is built from it.

Every change is an event (`Workspace.events`, psygnal: Qt-free, napari's choice), so views subscribe
instead of being refreshed by hand; the app, the CLI and the tests need no Qt for it.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from psygnal import Signal, SignalGroup

from gemmviz.core.fileio import FileMemo
from gemmviz.core.messages import Message, define, msg
from gemmviz.core.paths import asset_files
from gemmviz.core.session.results import Result, Session, SessionError

LIVE = ""  # the source label of this run's results


COMPANION_SUFFIX = ".json.gz"  # large companions of a recording (e.g. its 4096³ block traces), opened on demand


def recorded_sessions() -> list[Path]:
    """Shipped session files: recorded on our GPU, their gzip companions, and the seeds' published tables (not the
    gap metrics and pipeline traces beside them: core/session/recorded.py's RECORD_SUFFIXES)."""
    from gemmviz.core.session.recorded import RECORD_SUFFIXES

    files = [*asset_files("sessions", ".json"), *asset_files("sessions", COMPANION_SUFFIX)]
    return sorted((Path(str(f)) for f in files if not f.name.endswith(RECORD_SUFFIXES)), key=lambda p: p.name)


@dataclass(frozen=True)
class ShippedRecording:
    """A shipped session file as the window offers it: measured on which GPU, when, with counters or not."""

    path: Path
    gpu: str | None
    created: str
    counters: bool


_SHIPPED = FileMemo()  # the shipped files' readings, while they stay the same


def shipped_recordings() -> list[ShippedRecording]:
    """The shipped sessions measured on a GPU (not the seeds' published tables, nor the .json.gz companions), each
    read and checked once while the files stay the same: every window opened in one process (a language switch,
    the tests) reads them once, not once a window."""
    paths = [p for p in recorded_sessions() if not p.name.endswith(COMPANION_SUFFIX)]
    return _SHIPPED.get(paths, lambda: _read_recordings(paths))


def _read_recordings(paths: list[Path]) -> list[ShippedRecording]:
    found = []
    for path in paths:
        try:
            session = Session.load(path)
        except SessionError:
            continue
        if session.kind == "measured":
            counters = any(r.counters for r in session.results)
            found.append(ShippedRecording(path, session_gpu(session), session.created or "", counters))
    return found


def default_replay_session() -> Path | None:
    """The newest shipped session that was measured with the full recording, hardware counters included (the
    hardware tabs and lessons replay them), else the newest measured one; never a published one, nor a .json.gz
    companion: those hold the large extras of a recording and open only when asked for. A second GPU's shorter
    recording (timings only) is shipped beside it and opened from the menu or the compare view."""
    recordings = shipped_recordings()
    return max(recordings, key=lambda r: (r.counters, r.created)).path if recordings else None


def other_recording(gpus: Iterable[str | None], opened: Iterable[str | os.PathLike]) -> ShippedRecording | None:
    """The newest shipped recording of a GPU none of `gpus` is, among files not `opened`: what the compare view
    offers beside a single session (an H100 beside the H200 replayed)."""
    have = set(gpus)
    shut = {os.path.abspath(p) for p in opened}
    others = [r for r in shipped_recordings() if r.gpu not in have and os.path.abspath(r.path) not in shut]
    return max(others, key=lambda r: r.created) if others else None


def session_gpu(session: Session) -> str | None:
    """The GPU a session was measured on (or the one a published session names), if any."""
    gpu = session.environment.get("backends", {}).get("cuda", {})
    return gpu.get("name") if gpu.get("available") else session.environment.get("gpu")


def session_label(session: Session, path: str | os.PathLike) -> str:
    """What a session is called on screen: its own label, else "GPU (or CPU), date"."""
    if session.label:
        return session.label
    gpu = session.environment.get("backends", {}).get("cuda", {})
    device = gpu.get("name") if gpu.get("available") else session.environment.get("cpu", "CPU")
    date = (session.created or "")[:10]
    return f"{device}, {date}" if date else f"{device} ({Path(path).name})"


# where figures come from, in words (a lesson's footer, an export's): how they were got, a session without a date
ORIGIN_HOW = {
    "measured": define("origin.how.measured", en="measured", zh="实测"),
    "replayed": define("origin.how.replayed", en="replayed", zh="回放"),
    "published": define("origin.how.published", en="published", zh="已发表"),
    "host-inclusive timing": define("origin.how.host_timing", en="host-inclusive timing", zh="含主机时间的计时"),
    "model": define("origin.how.model", en="the model's traces, not measured", zh="模型的轨迹，非实测"),
}
UNDATED = define("origin.undated", en="undated", zh="无日期")
NO_GPU = define("origin.no_gpu", en="no GPU", zh="无 GPU")


def how_message(how: str) -> Message:
    """'measured', 'replayed', 'published' or 'host-inclusive timing' as a message."""
    return msg(ORIGIN_HOW[how])


@dataclass(frozen=True)
class LoadedSession:
    """One opened session file. `id` is unique in the workspace; `label` is unique too, for display."""

    id: str
    path: str
    session: Session
    label: str
    replay: bool = False  # opened because there is no GPU here: the app shows it as a replay

    @property
    def results(self) -> list[Result]:
        return self.session.results

    @property
    def gpu(self) -> str | None:
        return session_gpu(self.session)


class WorkspaceEvents(SignalGroup):
    """What a view can subscribe to (psygnal, Qt-free: napari's ViewerModel does the same). Each event is
    emitted after the workspace has changed, so a handler reads the new state; `shown_changed` follows every
    change of what `all_results()` or `shown()` return, so a chart needs only that one. Its argument says
    whether results were appended (`add_live`: a run streams them in, so a view may redraw staged, a few times
    a second) rather than anything else (a session opened or closed, a series hidden: redraw at once)."""

    results_added = Signal(list)  # live results appended, in order
    live_cleared = Signal()
    session_added = Signal(object)  # a LoadedSession: opened, or reopened in place under the same id
    session_removed = Signal(str)  # the id of a session no longer open
    hidden_changed = Signal(frozenset)  # the hidden series, all of them
    selection_changed = Signal(list)  # the selected results, in order
    environment_changed = Signal(dict)  # as the worker probed it
    shown_changed = Signal(bool)  # appended: True for add_live, False for any other change


class Workspace:
    """Live results, loaded sessions, hidden series, the selection and the probed environment; `events`
    says when any of them changes. Assigning `hidden` or `environment` emits too (`ws.hidden ^= {s}`)."""

    def __init__(
        self, live: Iterable[Result] = (), environment: Mapping | None = None, hidden: Iterable[str] = ()
    ) -> None:
        self.events = WorkspaceEvents()
        self.live: list[Result] = list(live)
        self._environment: dict = dict(environment or {})  # as probed by the worker; {} until it reports
        self._hidden: frozenset[str] = frozenset(hidden)  # series (Result.series) not drawn
        self._selection: list[Result] = []
        self._sessions: dict[str, LoadedSession] = {}
        self._source: dict[int, str] = {}  # id(result) -> session id; the workspace keeps them alive
        self._next_id = 1

    # ---- sessions ------------------------------------------------------------------------------
    @property
    def sessions(self) -> list[LoadedSession]:
        """Loaded sessions in the order they were opened."""
        return list(self._sessions.values())

    def open(self, path: str | os.PathLike, replay: bool = False) -> LoadedSession:
        """Load a session file (SessionError if it cannot be read; the workspace is then unchanged).

        Opening a file that is already open reloads it in place; another file of the same GPU and day is
        kept beside it with a numbered label."""
        session = Session.load(path)
        key = os.path.abspath(path)
        again = next((s for s in self._sessions.values() if os.path.abspath(s.path) == key), None)
        if again is not None:
            self._forget(again.id)
            loaded = LoadedSession(again.id, str(path), session, again.label, replay or again.replay)
        else:
            label = self._unique_label(session, path, replay)
            loaded = LoadedSession(f"s{self._next_id}", str(path), session, label, replay)
            self._next_id += 1
        self._sessions[loaded.id] = loaded
        for r in session.results:
            self._source[id(r)] = loaded.id
        if again is not None:
            self._drop_from_selection(set(map(id, again.results)))
        self.events.session_added.emit(loaded)
        self.events.shown_changed.emit(False)
        return loaded

    def _unique_label(self, session: Session, path: str | os.PathLike, replay: bool) -> str:
        base = session_label(session, path)
        taken = {self._base_label(s) for s in self._sessions.values()}
        label, n = base, 2
        while label in taken:
            label, n = f"{base} ({n})", n + 1
        if session.kind == "published":
            return f"{label} (published)"
        if replay or session.environment.get("backends", {}).get("cuda", {}).get("available"):
            return f"{label} (recorded)"
        return label

    @staticmethod
    def _base_label(s: LoadedSession) -> str:
        return s.label.removesuffix(" (published)").removesuffix(" (recorded)")

    def snapshot(self) -> tuple:
        """What is open, to put back with `restore` when showing a newly opened session fails."""
        return dict(self._sessions), dict(self._source), self._next_id

    def restore(self, snapshot: tuple) -> None:
        """Put back what `snapshot` saw, with an event for each session that went or came back."""
        sessions, source, next_id = snapshot
        now = self._sessions
        self._sessions, self._source, self._next_id = dict(sessions), dict(source), next_id
        gone = [s for sid, s in now.items() if sessions.get(sid) is not s]
        self._drop_from_selection({id(r) for s in gone for r in s.results})
        for s in gone:
            if s.id not in sessions:
                self.events.session_removed.emit(s.id)
        for sid, s in sessions.items():
            if now.get(sid) is not s:
                self.events.session_added.emit(s)
        self.events.shown_changed.emit(False)

    def close(self, session_id: str) -> None:
        self._close(session_id)
        self.events.shown_changed.emit(False)

    def close_all(self) -> None:
        """Close every loaded session (one shown_changed for all of them)."""
        for session_id in list(self._sessions):
            self._close(session_id)
        self.events.shown_changed.emit(False)

    def _close(self, session_id: str) -> None:
        closed = self._sessions[session_id]
        self._forget(session_id)
        del self._sessions[session_id]
        self._drop_from_selection(set(map(id, closed.results)))
        self.events.session_removed.emit(session_id)

    def _forget(self, session_id: str) -> None:
        for r in self._sessions[session_id].results:
            self._source.pop(id(r), None)

    @property
    def replay(self) -> LoadedSession | None:
        """The session opened as a replay (no GPU here), if one is open."""
        return next((s for s in self._sessions.values() if s.replay), None)

    # ---- live results ----------------------------------------------------------------------------
    def add_live(self, *results: Result) -> None:
        """Append this run's results (one or more: one event for all of them). Their series are shown: the user
        ran them, even where a preset hid the replayed session's series of the same name (the first Run of
        cpu-blas under "seed kernels" showed nothing new)."""
        if not results:
            return
        self.live.extend(results)
        self.hidden = self._hidden - {r.series for r in results}
        self.events.results_added.emit(list(results))
        self.events.shown_changed.emit(True)

    def clear_live(self) -> None:
        ids = set(map(id, self.live))
        self.live.clear()
        self._drop_from_selection(ids)
        self.events.live_cleared.emit()
        self.events.shown_changed.emit(False)

    def live_session(self, settings: Mapping, created: str | None = None) -> Session:
        """This run's results as a session, with the environment the worker probed: no device call."""
        return Session(
            results=list(self.live),
            environment=dict(self.environment),
            settings=dict(settings),
            created=created or _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            kind="measured",
        )

    # ---- selection and visibility --------------------------------------------------------------------
    @property
    def selection(self) -> list[Result]:
        """The results the user picked (in the table, on the roofline), in order."""
        return list(self._selection)

    def select(self, results: Iterable[Result]) -> None:
        picked = list(results)
        if [id(r) for r in picked] != [id(r) for r in self._selection]:
            self._selection = picked
            self.events.selection_changed.emit(list(picked))

    def _drop_from_selection(self, result_ids: set[int]) -> None:
        """A result that is no longer open is no longer selected."""
        if any(id(r) in result_ids for r in self._selection):
            self.select(r for r in self._selection if id(r) not in result_ids)

    @property
    def hidden(self) -> frozenset[str]:
        """Series (Result.series) not drawn."""
        return self._hidden

    @hidden.setter
    def hidden(self, series: Iterable[str]) -> None:
        hidden = frozenset(series)
        if hidden != self._hidden:
            self._hidden = hidden
            self.events.hidden_changed.emit(hidden)
            self.events.shown_changed.emit(False)

    def set_hidden(self, series: Iterable[str]) -> None:
        self.hidden = series

    @property
    def environment(self) -> dict:
        """As the worker probed it: backends, variants, GPU; {} until it reports."""
        return self._environment

    @environment.setter
    def environment(self, env: Mapping) -> None:
        self._environment = dict(env)
        self.events.environment_changed.emit(self._environment)

    # ---- what is shown -------------------------------------------------------------------------
    def all_results(self) -> list[Result]:
        out = list(self.live)
        for s in self._sessions.values():
            out += s.results
        return out

    def shown(self) -> list[Result]:
        """Live results, then each session's, without the hidden series."""
        return [r for r in self.all_results() if r.series not in self._hidden]

    def series(self) -> list[str]:
        """Every series that could be shown, in first-seen order."""
        return list(dict.fromkeys(r.series for r in self.all_results()))

    def session_of(self, result: Result) -> LoadedSession | None:
        """The loaded session a result came from; None for a live result."""
        session_id = self._source.get(id(result))
        return self._sessions.get(session_id) if session_id else None

    def source_of(self, result: Result) -> str:
        """The display label of where a result came from: a session's label, or LIVE."""
        s = self.session_of(result)
        return s.label if s else LIVE

    # ---- environment and GPUs ----------------------------------------------------------------------
    @property
    def device_gpu(self) -> dict:
        """This machine's CUDA entry of the probed environment ({} until probed)."""
        return self.environment.get("backends", {}).get("cuda", {})

    @property
    def gpu_available(self) -> bool:
        return bool(self.device_gpu.get("available"))

    def availability(self, backend_names: Iterable[str]) -> dict[str, tuple[bool, str]]:
        entries = self.environment.get("backends", {})
        return {
            name: (bool(entries.get(name, {}).get("available")), entries.get(name, {}).get("reason", "unknown"))
            for name in backend_names
        }

    def variant_availability(self, name: str, backend: str) -> tuple[bool, str]:
        """Whether a variant can run here, and why not, as the worker probed it."""
        known = self.environment.get("variants", {}).get(name)
        if known is not None:
            return bool(known[0]), str(known[1])
        entry = self.environment.get("backends", {}).get(backend)
        if entry is None:
            return False, f"no {backend} backend"
        return bool(entry.get("available")), entry.get("reason", "unknown")

    def gpu_of(self, result: Result) -> str | None:
        """The GPU a result was measured on: its session's, or this machine's for a live result."""
        s = self.session_of(result)
        return s.gpu if s else self.device_gpu.get("name")

    def environment_of(self, source: str) -> dict:
        """The environment of a source as source_of names it: its session's, or this machine's for LIVE."""
        for s in self._sessions.values():
            if s.label == source:
                return s.session.environment
        return self.environment if source == LIVE else {}

    def gpu_entry(self, result: Result) -> dict:
        """The CUDA entry of the environment a result was measured in (SMs, FP32 lanes, compute capability):
        its session's, or this machine's for a live result; {} where none is recorded."""
        s = self.session_of(result)
        env = s.session.environment if s else self.environment
        entry = env.get("backends", {}).get("cuda", {})
        return entry if isinstance(entry, dict) else {}

    def roofline_gpu(self, shown: list[Result]) -> str | None:
        """Whose roof to draw: this machine's GPU if it ran GPU results, else the first session with GPU
        results, else this machine's GPU if it has one."""
        here = self.device_gpu.get("name") if self.gpu_available else None
        if here and any(r.backend == "cuda" and self.session_of(r) is None for r in shown):
            return here
        for s in self._sessions.values():
            if any(r.backend == "cuda" for r in s.results):
                return s.gpu
        return here
