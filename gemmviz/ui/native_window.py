"""The main window's native window destroyed from outside (X11: `xdotool windowclose`, a window manager that
destroys rather than asks): Qt sends no close event, only an expose event saying the window is not exposed,
and the process ran on with no window, a sweep still going. Here that expose is checked against the X
server; a window that is gone quits the app: the run is cancelled, the live results stay in the recovery
file (offered at the next start), nothing is asked (there is no window to ask in).

A window manager's ordinary close (WM_DELETE_WINDOW) is a close event and goes through MainWindow.closeEvent
(Save / Discard / Cancel when live results are unsaved). Minimised windows and windows on another desktop
are not exposed either, but they still exist on the server: those are left alone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

log = logging.getLogger("gemmviz")


class _Cookie(ctypes.Structure):
    _fields_ = [("sequence", ctypes.c_uint)]


def x11_window_exists(window_id: int) -> bool | None:
    """Whether the X server still has this window (its attributes can be read), on a connection of our own;
    None where that cannot be asked (no libxcb, no display)."""
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    xcb.xcb_get_window_attributes.restype = _Cookie
    xcb.xcb_get_window_attributes.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    xcb.xcb_get_window_attributes_reply.restype = ctypes.c_void_p
    xcb.xcb_get_window_attributes_reply.argtypes = [ctypes.c_void_p, _Cookie, ctypes.POINTER(ctypes.c_void_p)]
    libc.free.argtypes = [ctypes.c_void_p]
    conn = xcb.xcb_connect(None, None)
    try:
        if not conn or xcb.xcb_connection_has_error(conn):
            return None
        error = ctypes.c_void_p()
        reply = xcb.xcb_get_window_attributes_reply(
            conn, xcb.xcb_get_window_attributes(conn, window_id), ctypes.byref(error)
        )
        for pointer in (reply, error.value):
            if pointer:
                libc.free(pointer)
        return bool(reply)
    finally:
        if conn:
            xcb.xcb_disconnect(conn)


class _Watch(QObject):
    def __init__(self, window, exists=x11_window_exists):
        super().__init__(window)
        self.window = window
        self.exists = exists
        self.gone = False

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Expose and not self.gone and not obj.isExposed():
            QTimer.singleShot(0, self.check)  # after the event: a minimised window says so by then
        return False

    def check(self) -> None:
        w = self.window
        handle = w.windowHandle()
        if self.gone or handle is None or handle.isExposed() or not w.isVisible() or w.isMinimized():
            return
        if self.exists(int(w.winId())) is False:
            self.gone = True
            quit_without_window(w)


def watch(window) -> _Watch | None:
    """Quit the app when `window`'s native window is destroyed from outside (X11 only: elsewhere a window
    system closes a window with a close event). Call after the window is shown."""
    if QGuiApplication.platformName() != "xcb" or window.windowHandle() is None:
        return None
    w = _Watch(window)
    window.windowHandle().installEventFilter(w)
    return w


def quit_without_window(window) -> None:
    log.warning(
        "the window was destroyed by the window system: quitting (live results are kept in the "
        "recovery file and offered at the next start)"
    )
    if window.recovery.unsaved:
        window.recovery.write()
    window.shutdown()  # cancels the run, waits at most 2 s for the worker, detaches one stuck in a native call
    app = QApplication.instance()
    if app is not None:
        app.exit(0)  # not quit(): Qt 6's quit() closes the windows first, and closeEvent asks
