"""`gemmviz --install-desktop`: the launcher entry and icon for the current user, so gemmviz is in the desktop's
application menu (freedesktop.org: $XDG_DATA_HOME/applications and the hicolor icon theme)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from pathlib import Path

from gemmviz.core.fileio import write_atomic
from gemmviz.core.paths import shipped

DESKTOP_FILE = "gemmviz.desktop"
ICON_FILE = "gemmviz.svg"


def data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def _quoted(arg: str) -> str:
    """One Exec= argument: double-quoted where it holds a reserved character, with ", `, $ and \\ escaped."""
    if not re.search(r"[\s\"'\\$`<>~|&;*?#()]", arg):
        return arg
    return '"' + re.sub(r'(["`$\\])', r"\\\1", arg) + '"'


def launch_command() -> str:
    """How the menu starts this installation: its own `gemmviz` script (a pipx or venv install need not be on
    the desktop session's PATH), else the one on PATH, else this Python with -m gemmviz."""
    script = Path(sys.executable).with_name("gemmviz")
    on_path = shutil.which("gemmviz")
    argv = [str(script)] if script.is_file() else [on_path] if on_path else [sys.executable, "-m", "gemmviz"]
    return " ".join(_quoted(a) for a in argv).replace("\\", "\\\\")  # the value's own escape of \\


def desktop_entry() -> str:
    """The shipped entry with Exec= pointing at this installation."""
    text = shipped("assets").joinpath("desktop").joinpath(DESKTOP_FILE).read_text()
    return "".join(
        f"Exec={launch_command()}\n" if line.startswith("Exec=") else line for line in text.splitlines(keepends=True)
    )


def install(home: Path | None = None) -> list[Path]:
    """Write the entry and the icon under `home` (default $XDG_DATA_HOME or ~/.local/share); return the paths."""
    home = home or data_home()
    entry = home / "applications" / DESKTOP_FILE
    icon = home / "icons" / "hicolor" / "scalable" / "apps" / ICON_FILE
    for path in (entry, icon):
        path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(entry, desktop_entry())
    write_atomic(icon, shipped("assets").joinpath("icons").joinpath(ICON_FILE).read_bytes())
    return [entry, icon]


def cmd_install(_args) -> int:
    for path in install():
        print(f"wrote {shlex.quote(str(path))}")
    print("gemmviz is in the application menu now (log out and in if the menu does not show it yet)")
    return 0
