"""Checks before the window opens on Linux (no Qt here): Qt's xcb plugin aborts the process with a misleading
message when the display is missing or unreachable or a system library is absent, so find those first and say
in one line what to do.

`window_problem(env)` returns that line, or None when the window can be tried.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import socket
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

CONNECT_TIMEOUT_S = 0.5
X11_SOCKET_DIR = "/tmp/.X11-unix"
X11_TCP_BASE = 6000


@dataclass(frozen=True)
class SystemLibrary:
    soname: str  # what Qt's xcb platform plugin loads
    package: str  # the Debian/Ubuntu package that ships it


# What PySide6's wheels load from the system (their ELF NEEDED entries, followed through the bundled Qt libraries),
# with the Debian 12 package of each (dpkg -S). Ubuntu 24.04 and Debian 13 name glib's package libglib2.0-0t64;
# apt picks it when asked for libglib2.0-0.
QT_LIBRARIES = (  # QtCore, QtGui, QtWidgets: every Qt rendering, offscreen exports too
    SystemLibrary("libglib-2.0.so.0", "libglib2.0-0"),
    SystemLibrary("libgthread-2.0.so.0", "libglib2.0-0"),
    SystemLibrary("libfontconfig.so.1", "libfontconfig1"),
    SystemLibrary("libfreetype.so.6", "libfreetype6"),
    SystemLibrary("libxkbcommon.so.0", "libxkbcommon0"),
    SystemLibrary("libdbus-1.so.3", "libdbus-1-3"),
    SystemLibrary("libEGL.so.1", "libegl1"),
    SystemLibrary("libGL.so.1", "libgl1"),
    SystemLibrary("libX11.so.6", "libx11-6"),
    SystemLibrary("libzstd.so.1", "libzstd1"),
    SystemLibrary("libz.so.1", "zlib1g"),
)
XCB_LIBRARIES = (  # Qt's xcb platform plugin and its GLX integration: the window on X11
    SystemLibrary("libxcb-cursor.so.0", "libxcb-cursor0"),
    SystemLibrary("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
    SystemLibrary("libxcb-icccm.so.4", "libxcb-icccm4"),
    SystemLibrary("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    SystemLibrary("libxcb-image.so.0", "libxcb-image0"),
    SystemLibrary("libxcb-render-util.so.0", "libxcb-render-util0"),
    SystemLibrary("libxcb-shape.so.0", "libxcb-shape0"),
    SystemLibrary("libxcb-randr.so.0", "libxcb-randr0"),
    SystemLibrary("libxcb-render.so.0", "libxcb-render0"),
    SystemLibrary("libxcb-shm.so.0", "libxcb-shm0"),
    SystemLibrary("libxcb-sync.so.1", "libxcb-sync1"),
    SystemLibrary("libxcb-util.so.1", "libxcb-util1"),
    SystemLibrary("libxcb-xfixes.so.0", "libxcb-xfixes0"),
    SystemLibrary("libxcb-xkb.so.1", "libxcb-xkb1"),
    SystemLibrary("libxcb-glx.so.0", "libxcb-glx0"),
    SystemLibrary("libX11-xcb.so.1", "libx11-xcb1"),
    SystemLibrary("libxcb.so.1", "libxcb1"),
)
WINDOW_LIBRARIES = XCB_LIBRARIES + QT_LIBRARIES
ALL_PACKAGES = " ".join(dict.fromkeys(lib.package for lib in WINDOW_LIBRARIES))
HEADLESS_HINT = (
    "run it on a desktop session, or without a screen use QT_QPA_PLATFORM=offscreen (no window is shown) or a "
    "virtual display: xvfb-run gemmviz; the headless commands need none: gemmviz info | bench | model | export"
)


def library_loads(soname: str) -> bool:
    """Whether the dynamic loader finds the library (what Qt's plugin will do)."""
    try:
        ctypes.CDLL(soname)
    except OSError:
        return ctypes.util.find_library(soname.removeprefix("lib").split(".so")[0]) is not None
    return True


def missing_libraries(
    loads: Callable[[str], bool] = library_loads, libraries: tuple[SystemLibrary, ...] = WINDOW_LIBRARIES
) -> list[SystemLibrary]:
    return [lib for lib in libraries if not loads(lib.soname)]


def _install_line(missing: list[SystemLibrary]) -> str:
    return "sudo apt install " + " ".join(dict.fromkeys(lib.package for lib in missing))


def qt_problem(loads: Callable[[str], bool] | None = None, platform: str | None = None) -> str | None:
    """One line naming the Debian packages of the system libraries Qt itself cannot load (every rendering needs
    them, offscreen too), or None (not Linux, or all there)."""
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux"):
        return None
    missing = missing_libraries(loads or library_loads, QT_LIBRARIES)
    if not missing:
        return None
    names = ", ".join(lib.soname for lib in missing)
    return f"Qt needs system libraries that are missing ({names}): {_install_line(missing)}"


def parse_display(display: str) -> tuple[str, int] | None:
    """':0', ':1.0', 'localhost:10.0', 'unix:0' -> (host, display number); None if it is not an X display name."""
    m = re.fullmatch(r"(?:(?P<host>[^:/]*)/)?(?P<h>[^:]*):(?P<n>\d+)(?:\.\d+)?", display.strip())
    if m is None:
        return None
    return m.group("h"), int(m.group("n"))


def display_reachable(display: str, timeout_s: float = CONNECT_TIMEOUT_S) -> bool:
    """Try to open the X server's socket: the local one for ':n' and 'unix:n', TCP port 6000+n for 'host:n'."""
    parsed = parse_display(display)
    if parsed is None:
        return False
    host, number = parsed
    try:
        if host in ("", "unix"):
            path = f"{X11_SOCKET_DIR}/X{number}"
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(timeout_s)
                try:
                    s.connect(path)
                    return True
                except OSError:
                    if host == "unix":
                        return False
                    # ':n' may also be the abstract socket (Linux) or TCP on localhost
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as abstract:
                    abstract.settimeout(timeout_s)
                    try:
                        abstract.connect("\0" + path)
                        return True
                    except OSError:
                        host = "localhost"
        with socket.create_connection((host, X11_TCP_BASE + number), timeout=timeout_s):
            return True
    except OSError:
        return False


def window_problem(
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
    reachable: Callable[[str], bool] | None = None,
    loads: Callable[[str], bool] | None = None,
) -> str | None:
    """One line saying why the window cannot open here and how to fix it, or None (not Linux, or all fine)."""
    env = os.environ if env is None else env
    reachable = reachable or display_reachable
    loads = loads or library_loads
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux"):
        return None
    qpa = env.get("QT_QPA_PLATFORM", "")
    if qpa and not qpa.startswith("xcb"):
        return qt_problem(loads, platform)  # offscreen, wayland, vnc…: Qt reports its plugin's own errors there
    display, wayland = env.get("DISPLAY", ""), env.get("WAYLAND_DISPLAY", "")
    if not qpa and wayland and not display:
        return qt_problem(loads, platform)  # Qt uses its wayland plugin
    if not display:
        if not qpa:
            return f"no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset): {HEADLESS_HINT}"
        return f"QT_QPA_PLATFORM={qpa} but DISPLAY is unset: {HEADLESS_HINT}"
    if not reachable(display):
        return f"cannot reach the X display DISPLAY={display} (no X server answers there): {HEADLESS_HINT}"
    missing = missing_libraries(loads)
    if missing:
        names = ", ".join(lib.soname for lib in missing)
        return (
            f"Qt's X11 plugin needs system libraries that are missing ({names}): "
            f"{_install_line(missing)}  (all of them: {ALL_PACKAGES})"
        )
    return None
