"""How a view follows the workspace (napari's model/view: the model emits, each view connects; nobody relays).

A view makes one `WorkspaceFollower` and connects through it to the `Workspace.events` it needs. The follower
keeps the list of its connections and drops them when the view goes (destroyed) or the window shuts down
(`unfollow_all`), so a closed window leaves no callback on the workspace's signals.

`shown_changed` is handled here once for every view that draws the shown results:
- a change that is not a run's stream (a session opened or closed, a series hidden) redraws the view now, or,
  where it is hidden and `now_when_hidden` is off, when it is next shown;
- results streaming in from a run redraw a view on screen at most every `stream_ms`, and a hidden one when it
  is next shown (the `dirty` flag), so a sweep never redraws tabs nobody sees.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

from gemmviz.core.session.workspace import Workspace

STREAM_MS = 150  # a view on screen redraws at most this often while a run streams results in


class WorkspaceFollower(QObject):
    """One view's subscriptions to the workspace. `refresh`: the view's full redraw from the workspace."""

    def __init__(
        self,
        view: QWidget,
        workspace: Workspace,
        refresh: Callable[[], None] | None = None,
        *,
        now_when_hidden: bool = False,
        always_on_show: bool = False,
        stream_ms: int = STREAM_MS,
        follow_shown: bool = True,
    ) -> None:
        super().__init__(view)
        self.view, self.workspace = view, workspace
        self._refresh = refresh
        self.now_when_hidden = now_when_hidden
        self.always_on_show = always_on_show  # redraw whenever it comes on screen, changed or not
        self.dirty = False
        self.refreshes = 0  # how many redraws this follower asked for (tests read it)
        self._connections: list[tuple[object, Callable]] = []
        self._stream = QTimer(self)
        self._stream.setSingleShot(True)
        self._stream.setInterval(stream_ms)
        self._stream.timeout.connect(self._refresh_if_visible)
        if refresh is not None and follow_shown:  # a view of other events calls changed() from its own handlers
            self.connect(workspace.events.shown_changed, self._on_shown_changed)
        view.installEventFilter(self)
        connections = self._connections  # the closure below holds neither the view nor this follower
        view.destroyed.connect(lambda *_: _disconnect(connections))

    def connect(self, signal, slot: Callable) -> None:  # type: ignore[override]  # a follower's own; QObject's static connect is not used on it
        """Connect `slot` to one of `workspace.events`' signals, to be disconnected with the others."""
        signal.connect(slot)
        self._connections.append((signal, slot))

    def unfollow(self, *_args) -> None:
        """Disconnect every subscription (the view is closing or gone); idempotent."""
        _disconnect(self._connections)
        self._stream.stop()

    @property
    def following(self) -> bool:
        return bool(self._connections)

    def visible(self) -> bool:
        """On screen, or would be once its window is shown (the current tab of a window not shown yet)."""
        window = self.view.window()
        return self.view.isVisible() or (window is not self.view and self.view.isVisibleTo(window))

    def _on_shown_changed(self, appended: bool) -> None:
        self.changed(appended)

    def changed(self, appended: bool = False) -> None:
        """Something the view shows changed: redraw now (on screen, or `now_when_hidden`), else when next shown;
        results streaming in (`appended`) redraw a view on screen at most every `stream_ms`."""
        if appended:
            self.dirty = True
            if self.visible() and not self._stream.isActive():
                self._stream.start()
        elif self.now_when_hidden or self.visible():
            self._stream.stop()
            self.refresh()
        else:
            self.dirty = True

    def _refresh_if_visible(self) -> None:
        if self.visible():
            self.refresh()

    def refresh(self) -> None:
        self.dirty = False
        self.refreshes += 1
        if self._refresh is not None:
            self._refresh()

    def refresh_if_dirty(self) -> None:
        if self.dirty:
            self.refresh()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Show: on screen; ShowToParent (just after): made the current tab, even in a window not shown yet
        if watched is self.view:
            if event.type() == QEvent.Type.Show and self.always_on_show:
                self.refresh()
            elif event.type() in (QEvent.Type.Show, QEvent.Type.ShowToParent):
                self.refresh_if_dirty()
        return False


def _disconnect(connections: list) -> None:
    for signal, slot in connections:
        try:
            signal.disconnect(slot)
        except (ValueError, RuntimeError):  # already gone
            pass
    connections.clear()


def unfollow_all(root: QObject) -> None:
    """Every view under `root` stops following the workspace (the window is closing)."""
    for follower in root.findChildren(WorkspaceFollower):
        follower.unfollow()
