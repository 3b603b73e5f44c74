"""QSettings through the declared settings of gemmviz.core.settings: every value read is checked there and
falls back to its default (with a log line naming the key) when a settings file holds something else."""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from gemmviz.core.settings import SETTINGS_NAME, Setting, settings_file, settings_file_problem, settings_folder_problem
from gemmviz.core.text import printable

log = logging.getLogger("gemmviz")


def open_settings() -> QSettings:
    """The app's settings: an INI file at core.settings.settings_file() ($GEMMVIZ_CONFIG_DIR moves it). A file
    that must not be read (a FIFO would block the start, /dev/zero would fill memory) is left alone and the
    app starts with defaults in a scratch file, which is logged."""
    path = settings_file()
    problem = settings_file_problem(path)
    if problem is None and path.is_symlink():  # a name gemmviz picks: never written through a link
        problem = "is a symbolic link (gemmviz writes its settings file itself, never through a link)"
    if problem is None:
        qs = QSettings(str(path), QSettings.Format.IniFormat)
        if qs.status() == QSettings.Status.NoError:
            unsaved = settings_folder_problem(path)
            if unsaved is not None:  # read what is there; say that nothing will be kept (GEMMVIZ_CONFIG_DIR=/proc/x)
                log.warning("settings: %s; they will not be saved", printable(unsaved))
            return qs
        # not parsed (FormatError): the file is kept as it is for the user to look at, never written over
        problem = f"could not be read ({qs.status().name})"
    log.warning("settings: %s %s; using defaults (and not saving them there)", printable(path), problem)
    scratch = Path(tempfile.mkdtemp(prefix="gemmviz-settings-")) / SETTINGS_NAME
    return QSettings(str(scratch), QSettings.Format.IniFormat)


def read(qs: QSettings, setting: Setting) -> object:
    try:
        raw = qs.value(setting.key)
    except Exception as exc:  # a stored variant PySide cannot convert: the file is the user's, not ours to trust
        log.warning("settings: %s: cannot be read (%s); using the default", setting.key, exc)
        return setting.default
    if isinstance(raw, QByteArray):
        raw = raw.data()
    return setting.read(raw)


def restore_bytes(qs: QSettings, setting: Setting, apply: Callable[[QByteArray], bool]) -> bool:
    """Hand a stored geometry or splitter state to `apply` (restoreGeometry, restoreState); False when there is
    none or Qt refuses it (logged), so the caller uses its default."""
    data = read(qs, setting)
    if not isinstance(data, (bytes, bytearray)):  # none stored (read() checked what is)
        return False
    if not apply(QByteArray(bytes(data))):
        log.warning("settings: %s: not valid saved window data; using the default", setting.key)
        return False
    return True


def write(qs: QSettings, setting: Setting, value: object) -> None:
    qs.setValue(setting.key, QByteArray(value) if isinstance(value, bytes) else value)


def report_unreadable(qs: QSettings) -> None:
    """Say once when the file could not be parsed at all (every key then reads as its default)."""
    if qs.status() != QSettings.Status.NoError:
        log.warning("settings: %s could not be read (%s); using defaults", qs.fileName(), qs.status().name)
