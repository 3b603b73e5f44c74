"""`gemmviz --install-desktop`: the launcher entry and icon for the current user, so gemmviz is in the desktop's
application menu (freedesktop.org: $XDG_DATA_HOME/applications and the hicolor icon theme)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from pathlib import Path

from gemmviz.cli.common import UsageError
from gemmviz.core.fileio import own_name, write_atomic
from gemmviz.core.paths import shipped
from gemmviz.core.text import printable

DESKTOP_FILE = "gemmviz.desktop"
ICON_FILE = "gemmviz.svg"


def data_home() -> Path:
    """$XDG_DATA_HOME, else ~/.local/share. The Base Directory spec: an unset, empty or relative value is
    ignored (the paths it holds must be absolute)."""
    value = os.environ.get("XDG_DATA_HOME") or ""
    return Path(value) if os.path.isabs(value) else Path.home() / ".local" / "share"


def _quoted(arg: str) -> str:
    """One Exec= argument (the Desktop Entry spec): a literal % doubled, double-quoted where it holds a reserved
    character, with ", `, $ and \\ escaped inside the quotes."""
    arg = arg.replace("%", "%%")
    if not re.search(r"[\s\"'\\$`<>~|&;*?#()]", arg):
        return arg
    return '"' + re.sub(r'(["`$\\])', r"\\\1", arg) + '"'


def _value(text: str) -> str:
    """A string value of a desktop file: backslash, newline, tab and carriage return as its escapes."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def launch_command() -> str:
    """How the menu starts this installation: its own `gemmviz` script (a pipx or venv install need not be on
    the desktop session's PATH), else the one on PATH, else this Python with -m gemmviz."""
    script = Path(sys.executable).with_name("gemmviz")
    on_path = shutil.which("gemmviz")
    argv = [str(script)] if script.is_file() else [on_path] if on_path else [sys.executable, "-m", "gemmviz"]
    return _value(" ".join(_quoted(a) for a in argv))  # the value's own escapes of \\ and newlines


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
    from_env = home == data_home() and os.path.isabs(os.environ.get("XDG_DATA_HOME") or "")
    where = " (XDG_DATA_HOME)" if from_env else ""
    for path in (entry, icon):
        folder = path.parent
        bad = next((p for p in [folder, *folder.parents] if p.exists() and not p.is_dir()), None)
        if bad is not None:
            raise UsageError(f"cannot install into {folder}{where}: {bad} is a file, not a folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot install into {folder}{where}: {exc.strerror or exc}") from None
        own_name(path)  # a folder or a device at the name is refused before either file is written
    # names gemmviz picks: a link there is replaced by the file, never written through
    write_atomic(entry, desktop_entry(), follow_links=False)
    write_atomic(icon, shipped("assets").joinpath("icons").joinpath(ICON_FILE).read_bytes(), follow_links=False)
    return [entry, icon]


def cmd_install(_args) -> int:
    for path in install():
        print(printable(f"wrote {shlex.quote(str(path))}"))
    print("gemmviz is in the application menu now (log out and in if the menu does not show it yet)")
    return 0
