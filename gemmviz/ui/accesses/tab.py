"""The "Accesses" panel: what the kernel really touched, from recorded addresses. Two sub-views: the
coalescing and bank views (ui/accesses/views.py, widget.py) and the replay of a traced block beside its schedule
(ui/accesses/replay.py). Self-contained: it opens the H200 records shipped with gemmviz, or the records recorded
beside a session file (`gemmviz profile --accesses --out NAME.json` writes NAME.accesses.json.gz).

The window adds it with one line: `self.tabs.addTab(AccessTab(self.theme, workspace=ws), self.tr("Accesses"))`,
and calls `apply_theme` where it does for its other tabs. The tab follows the workspace itself (ui/follow.py):
a session opened shows the records beside it, one closed falls back to those of the last session still open, or
to the shipped ones; a hidden tab reads them when it is next shown.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from PySide6.QtWidgets import QTabWidget, QWidget

from gemmviz.core.hardware import accesses as acc
from gemmviz.core.session.checks import SessionError
from gemmviz.core.session.workspace import LoadedSession, Workspace
from gemmviz.ui.accesses.replay import AccessReplay
from gemmviz.ui.accesses.widget import AccessViews
from gemmviz.ui.follow import WorkspaceFollower
from gemmviz.ui.theme import LIGHT, Theme

log = logging.getLogger("gemmviz")


def records_beside(
    session_path: str | os.PathLike | None, shipped: acc.AccessFile | None = None
) -> tuple[acc.AccessFile | None, str]:
    """(records, where from): the file beside the session if there is one and it loads, else the shipped H200
    records (`shipped` when the caller holds them already: reading and checking them takes a second or more);
    a companion that does not load is said in the second item, never raised."""
    shipped_file = (lambda: shipped) if shipped is not None else acc.shipped_file
    if session_path is not None:
        companion = Path(acc.companion_path(session_path))
        if companion.is_file():
            try:
                return acc.load_file(companion), str(companion)
            except (SessionError, MemoryError) as exc:
                why = exc if isinstance(exc, SessionError) else "not enough memory to hold it"
                log.warning("access records %s not loaded: %s", companion, why)
                return shipped_file(), f"{companion.name} not loaded ({why}); showing the shipped H200 records"
    return shipped_file(), "the H200 records shipped with gemmviz"


class AccessTab(QTabWidget):
    """Its records are read (a second or more: the shipped file is decompressed and checked, the replay's
    schedule built) when the tab is first shown or its views are first asked for, never before the window's
    first paint: most windows are closed without a look at it."""

    def __init__(self, theme: Theme = LIGHT, parent=None, *, workspace: Workspace | None = None):
        super().__init__(parent)
        self._theme = theme
        self.session_id: str | None = None  # the open session whose records beside it are wanted, if any
        self.session_path: str | None = None  # ... and its file (None: the shipped records)
        self.shown_path: str | None = None  # the session file whose records are shown (None: the shipped ones)
        self.reread = False  # read the wanted session's records again, even if they are the ones shown
        self._path: str | os.PathLike | None = None  # the session whose records to show, once read
        self._views: AccessViews | None = None
        self._replay: AccessReplay | None = None
        self._shipped: acc.AccessFile | None = None
        self._source = ""
        # the pages' places, filled when first shown (the window's tab bar and size hints see two pages now)
        self.addTab(QWidget(), self.tr("Coalescing and banks"))
        self.addTab(QWidget(), self.tr("Block replay"))
        self.workspace = workspace
        self.follower: WorkspaceFollower | None = None
        if workspace is not None:
            self.follower = WorkspaceFollower(self, workspace, self._show_wanted, follow_shown=False)
            self.follower.connect(workspace.events.session_added, self._on_session_added)
            self.follower.connect(workspace.events.session_removed, self._on_session_removed)
            if workspace.sessions:  # made after sessions were opened (again, in another language): the last one's
                last = workspace.sessions[-1]
                self.session_id, self.session_path = last.id, last.path

    @property
    def built(self) -> bool:
        return self._views is not None

    def _build(self) -> None:
        if self.built:
            return
        records, self._source = records_beside(None)
        self._shipped = records  # the shipped records, read once: a session without records beside it shows them
        self._views = AccessViews(self, records, self._theme)
        self._replay = AccessReplay(self, records)
        self._replay.canvas.theme = self._theme
        index = self.currentIndex()
        blocked = self.blockSignals(True)
        for i, (page, title) in enumerate(
            [(self._views, self.tr("Coalescing and banks")), (self._replay, self.tr("Block replay"))]
        ):
            placeholder = self.widget(i)
            self.removeTab(i)
            self.insertTab(i, page, title)
            if placeholder is not None:
                placeholder.deleteLater()
        self.setCurrentIndex(max(index, 0))
        self.blockSignals(blocked)
        if self._path is not None:
            self.show_session_file(self._path)

    def _pages(self) -> tuple[AccessViews, AccessReplay]:
        self._build()
        assert self._views is not None and self._replay is not None  # built
        return self._views, self._replay

    @property
    def views(self) -> AccessViews:
        return self._pages()[0]

    @property
    def replay(self) -> AccessReplay:
        return self._pages()[1]

    @property
    def shipped(self) -> acc.AccessFile | None:
        self._build()
        return self._shipped

    @property
    def source(self) -> str:
        self._build()
        return self._source

    def showEvent(self, event) -> None:
        self._build()
        super().showEvent(event)

    def _on_session_added(self, loaded: LoadedSession) -> None:
        self.session_id, self.session_path = loaded.id, loaded.path
        self.reread = True  # reopened in place, its records beside it may have changed too
        if self.follower is not None:
            self.follower.changed()

    def _on_session_removed(self, session_id: str) -> None:
        if session_id != self.session_id or self.workspace is None or self.follower is None:
            return
        last = self.workspace.sessions[-1] if self.workspace.sessions else None
        self.session_id, self.session_path = (last.id, last.path) if last is not None else (None, None)
        self.follower.changed()

    def _show_wanted(self) -> None:
        if self.reread or self.shown_path != self.session_path:
            self.show_session_file(self.session_path)

    def apply_theme(self, theme: Theme) -> None:
        self._theme = theme
        if not self.built:
            return  # taken when built
        views, replay = self._pages()
        views.set_theme(theme)
        replay.canvas.theme = theme
        replay.canvas.update()

    def show_session_file(self, path: str | os.PathLike | None) -> str | None:
        """Show the records beside `path` (or the shipped ones); where they came from, in words (None while the
        tab has not been built: they are read when it is first shown)."""
        self._path = path
        self.shown_path, self.reread = (None if path is None else str(path)), False
        if not self.built:
            return None
        records, self._source = records_beside(path, self._shipped)
        views, replay = self._pages()
        views.set_records(records)
        replay.set_records(records)
        return self._source
