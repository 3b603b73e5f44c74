"""What the user has open: this run's live results, loaded sessions, the environment the worker probed.

Qt-free, so the app's views and the tests share one model. Results are never modified here: which session a
result came from is kept beside it (`source_of`), not written into it, so nothing of the display leaks into
session files. Nothing here calls a device: the environment is whatever the worker thread probed and handed
over, and a live session is built from it.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gemmviz.core.paths import asset_files
from gemmviz.core.results import Result, Session, SessionError

LIVE = ""  # the source label of this run's results


COMPANION_SUFFIX = ".json.gz"  # large companions of a recording (e.g. its 4096³ block traces), opened on demand


def recorded_sessions() -> list[Path]:
    """Shipped session files: recorded on our GPU, their gzip companions, and the seeds' published tables."""
    files = [*asset_files("sessions", ".json"), *asset_files("sessions", COMPANION_SUFFIX)]
    return sorted((Path(str(f)) for f in files), key=lambda p: p.name)


def default_replay_session() -> Path | None:
    """The newest shipped session that was measured (never a published one, nor a .json.gz companion: those
    hold the large extras of a recording and open only when asked for)."""
    best = None
    for path in recorded_sessions():
        if path.name.endswith(COMPANION_SUFFIX):
            continue
        try:
            session = Session.load(path)
        except SessionError:
            continue
        if session.kind == "measured" and (best is None or session.created > best[0]):
            best = (session.created, path)
    return best[1] if best else None


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


@dataclass
class Workspace:
    live: list[Result] = field(default_factory=list)
    environment: dict = field(default_factory=dict)  # as probed by the worker; {} until it reports
    hidden: set[str] = field(default_factory=set)  # series (Result.series) not drawn
    _sessions: dict[str, LoadedSession] = field(default_factory=dict)
    _source: dict[int, str] = field(default_factory=dict)  # id(result) -> session id; the workspace keeps them alive
    _next_id: int = 1

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
            loaded = LoadedSession(f"s{self._next_id}", str(path), session, self._unique_label(session, path, replay),
                                   replay)  # fmt: skip
            self._next_id += 1
        self._sessions[loaded.id] = loaded
        for r in session.results:
            self._source[id(r)] = loaded.id
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
        sessions, source, next_id = snapshot
        self._sessions, self._source, self._next_id = dict(sessions), dict(source), next_id

    def close(self, session_id: str) -> None:
        self._forget(session_id)
        del self._sessions[session_id]

    def close_all(self) -> None:
        for session_id in list(self._sessions):
            self.close(session_id)

    def _forget(self, session_id: str) -> None:
        for r in self._sessions[session_id].results:
            self._source.pop(id(r), None)

    @property
    def replay(self) -> LoadedSession | None:
        """The session opened as a replay (no GPU here), if one is open."""
        return next((s for s in self._sessions.values() if s.replay), None)

    # ---- live results ----------------------------------------------------------------------------
    def add_live(self, result: Result) -> None:
        self.live.append(result)

    def clear_live(self) -> None:
        self.live.clear()

    def live_session(self, settings: Mapping, created: str | None = None) -> Session:
        """This run's results as a session, with the environment the worker probed: no device call."""
        return Session(
            results=list(self.live),
            environment=dict(self.environment),
            settings=dict(settings),
            created=created or _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            kind="measured",
        )

    # ---- what is shown -------------------------------------------------------------------------
    def all_results(self) -> list[Result]:
        out = list(self.live)
        for s in self._sessions.values():
            out += s.results
        return out

    def shown(self) -> list[Result]:
        """Live results, then each session's, without the hidden series."""
        return [r for r in self.all_results() if r.series not in self.hidden]

    def set_hidden(self, series: Iterable[str]) -> None:
        self.hidden = set(series)

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
