"""The File menu's work: open, save and close sessions, export CSV, the recent-files list. Errors go to the
window's non-blocking dialog; nothing here touches a device (a saved session carries the probed environment)."""

from __future__ import annotations

import os
from dataclasses import asdict

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu

from gemmviz.core.fileio import write_atomic
from gemmviz.core.results import SessionError, results_csv

MAX_RECENT = 8


class SessionFiles:
    def __init__(self, window, recent_menu: QMenu):
        self.window = window
        self.workspace = window.workspace
        self.settings = window.settings
        self.recent_menu = recent_menu
        self.refresh_recent_menu()

    def open_session_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window, "Open session", "", "gemmviz sessions (*.json);;All files (*)"
        )
        if path:
            self.open_session(path)

    def open_session(self, path: str | os.PathLike, replay: bool = False) -> bool:
        try:
            loaded = self.workspace.open(path, replay=replay)
        except SessionError as exc:
            self.window.show_error("Cannot open session", str(exc))
            return False
        if loaded.replay:
            banner = self.window.replay_banner
            banner.setText(f"Recorded on {loaded.label.removesuffix(' (recorded)')} — replay")
            banner.setVisible(True)
        self.add_recent(str(path))
        self.window.refresh()
        return True

    def close_loaded(self) -> None:
        self.workspace.close_all()
        self.window.replay_banner.setVisible(False)
        self.window.refresh()

    def clear_live(self) -> None:
        self.workspace.clear_live()
        self.window.refresh()

    def save_session_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, "Save session", "session.json", "gemmviz sessions (*.json)")
        if path:
            self.save_session(path)

    def save_session(self, path: str) -> bool:
        """Save this run's results with the environment the worker probed: no device call here."""
        if not self.workspace.live:
            self.window.show_error("Nothing to save", "There are no live results yet: run something first.")
            return False
        settings = self.window.last_run_settings or asdict(self.window.run_panel.bench_settings())
        try:
            self.workspace.live_session(settings).save(path)
        except OSError as exc:
            self.window.show_error("Cannot save session", str(exc))
            return False
        self.add_recent(path)
        self.window.statusBar().showMessage(f"Session saved to {path}", 5000)
        return True

    def export_csv_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, "Export CSV", "results.csv", "CSV (*.csv)")
        if path:
            self.export_csv(path)

    def export_csv(self, path: str) -> bool:
        shown = self.workspace.shown()
        if not shown:
            self.window.show_error("Nothing to export", "There are no results to export yet.")
            return False
        try:
            write_atomic(path, results_csv(shown))
        except OSError as exc:
            self.window.show_error("Cannot export CSV", str(exc))
            return False
        return True

    def add_recent(self, path: str) -> None:
        recent = [p for p in self.settings.value("recent", [], type=list) if p != path]
        self.settings.setValue("recent", [path, *recent][:MAX_RECENT])
        self.refresh_recent_menu()

    def refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.value("recent", [], type=list)
        for p in recent:
            action = QAction(p, self.recent_menu)
            action.triggered.connect(lambda _=False, p=p: self.open_session(p))
            self.recent_menu.addAction(action)
        self.recent_menu.setEnabled(bool(recent))
