"""The app's remembered settings, declared with their types and defaults, and the check every value read goes
through. Qt-free: the window reads QSettings through gemmviz.ui.settings_store, which hands raw values here.

A settings file is the user's and may be anything (edited by hand, from another version, cut short, garbage):
a value of the wrong type, out of range or too long falls back to its default with a log line naming the key,
so no settings file, however broken, stops the app.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gemmviz.core import paths
from gemmviz.core.fileio import FileFormatError, InputFileError, read_regular
from gemmviz.core.schema import NAME_CONTROL, Schema, Wording
from gemmviz.core.stored_variants import variant_problem

log = logging.getLogger("gemmviz")

SIZE_PRESETS = ("256", "512", "1024", "2048", "4096", "8192")
CUSTOM_SIZE = "Custom M×N×K"
MAX_RECENT = 8
MAX_BYTES = 64 * 1024  # a window geometry or splitter state is a few dozen bytes
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off", "")
_WHOLE = re.compile(r"[+-]?[0-9]{1,18}")
SETTINGS_NAME = "gemmviz.conf"
MAX_FILE_BYTES = 1 << 20  # a settings file is a few KiB; a bigger one is not ours


def settings_file() -> Path:
    """The settings file: gemmviz.conf in the config folder ($GEMMVIZ_CONFIG_DIR, else the platform's), beside
    the recovery file."""
    return paths.config_dir() / SETTINGS_NAME


def settings_file_problem(path: Path) -> str | None:
    """Why the settings file at `path` must not be read (not a regular file, too big), or None. A missing
    file is fine: the settings are the defaults."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    if st.st_size > MAX_FILE_BYTES:
        return f"is {st.st_size:,} bytes, over the {MAX_FILE_BYTES:,} limit"
    try:  # opened without blocking: a FIFO put in its place since the stat is refused, not waited on
        text = read_regular(path, MAX_FILE_BYTES).decode("latin-1")  # a stored value's escapes are ASCII
    except (OSError, InputFileError) as exc:
        return f"cannot be read: {exc}"
    bad = variant_problem(text)  # Qt would end the process decoding it (std::bad_alloc), at every start
    return None if bad is None else f"holds a value Qt cannot decode safely ({bad})"


def settings_folder_problem(path: Path) -> str | None:
    """Why the settings at `path` could not be saved (its folder cannot be made or written), or None. The folder
    is made here if it is missing, as QSettings would make it on its first save, silently failing."""
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"the folder {folder} cannot be made ({exc.strerror or exc})"
    if not os.access(folder, os.W_OK):
        return f"the folder {folder} is not writable"
    return None


class SettingError(FileFormatError):
    """A stored value that does not fit its declaration; the message says why."""


@dataclass(frozen=True)
class Setting:
    """One remembered value: its key, default and type. `kind` is "int", "bool", "str", "int_list",
    "str_list" or "bytes"; `lo`/`hi` bound ints (and list items); `choices` lists the allowed values (str and
    list items); `max_len` bounds the characters of a str, the items of a list, the bytes of "bytes"."""

    key: str
    default: object
    kind: str
    lo: int | None = None
    hi: int | None = None
    choices: tuple | None = None
    max_len: int = 200

    def check(self, raw: object) -> object:
        """The value `raw` (as a settings store returns it) stands for; SettingError if it does not fit."""
        return _CHECKS[self.kind](self, raw)

    def read(self, raw: object) -> object:
        """The checked value, or the default (with a log line naming the key) when `raw` does not fit.
        None means the key is not stored: the default, silently."""
        if raw is None:
            return self.default
        try:
            return self.check(raw)
        except SettingError as exc:
            log.warning("settings: %s: %s; using the default %r", self.key, exc, self.default)
        except Exception as exc:  # a check that did not foresee this value must still not stop the app
            log.warning(
                "settings: %s: cannot be read (%s: %s); using the default %r",
                self.key,
                type(exc).__name__,
                _short(str(exc)),
                self.default,
            )
        return self.default


def _short(raw: object) -> str:
    text = repr(raw)
    return text if len(text) <= 60 else text[:57] + "..."


# A stored value's checks: core/schema.py's, in the words of the settings' log line (which names the key)
SETTINGS = Schema(
    lambda _where, message: SettingError(message),
    Wording(
        at="{what}",
        whole="not a whole number ({got})",
        whole_range="{value} is out of range {lo}..{hi}",
        whole_below="{value} is out of range {lo}..{hi}",
        boolean="not true or false ({got})",
        text="not text ({got})",
        text_long="{n} characters, over the {limit} limit",
        control="contains control characters",
        one_of="{got} is not one of {values}",
        sequence="not a list ({got})",
        sequence_long="{n} items, over the {limit} limit",
        shown=_short,
    ),
)


def _int(s: Setting, raw: object) -> int:
    # INI files store numbers as text: "20" is 20, "abc" is not a number.
    if isinstance(raw, str):
        text = raw.strip()
        # ASCII digits only: "--5", "1_0", "٣" and "1e3" are not settings' numbers
        raw = int(text) if _WHOLE.fullmatch(text) else raw
    value = SETTINGS.whole(s.lo, s.hi)(raw, s.key)
    return value if s.choices is None else SETTINGS.one_of(*s.choices)(value, s.key)


def _bool(s: Setting, raw: object) -> bool:
    if isinstance(raw, str) and raw.strip().lower() in _TRUE + _FALSE:
        return raw.strip().lower() in _TRUE
    return SETTINGS.boolean(raw, s.key)


def _str(s: Setting, raw: object) -> str:
    text = SETTINGS.text(s.max_len, pattern=NAME_CONTROL)(raw, s.key)
    return text if s.choices is None else SETTINGS.one_of(*s.choices)(text, s.key)


def _items(s: Setting, raw: object) -> list[object]:
    # QSettings gives a one-item list back as a bare string, and an empty list as None or "".
    if isinstance(raw, str):
        raw = [raw] if raw else []
    return SETTINGS.sequence(list(raw) if isinstance(raw, tuple) else raw, s.key, s.max_len)


def _int_list(s: Setting, raw: object) -> list[int]:
    item = Setting(s.key, None, "int", s.lo, s.hi, s.choices)
    try:
        return [_int(item, x) for x in _items(s, raw)]
    except SettingError as exc:
        raise SettingError(f"an item is wrong: {exc}") from None


def _str_list(s: Setting, raw: object) -> list[str]:
    item = Setting(s.key, None, "str", choices=s.choices, max_len=4096)
    try:
        return [_str(item, x) for x in _items(s, raw)]
    except SettingError as exc:
        raise SettingError(f"an item is wrong: {exc}") from None


def _bytes(s: Setting, raw: object) -> bytes:
    SETTINGS.need(isinstance(raw, bytes | bytearray), s.key, f"not saved window data ({_short(raw)})")
    assert isinstance(raw, bytes | bytearray)
    SETTINGS.need(0 < len(raw) <= s.max_len, s.key, f"{len(raw)} bytes, not 1..{s.max_len}")
    return bytes(raw)


_CHECKS: dict[str, Callable[[Setting, object], object]] = {
    "int": _int, "bool": _bool, "str": _str, "int_list": _int_list, "str_list": _str_list, "bytes": _bytes,
}  # fmt: skip


# ---- the declared settings -----------------------------------------------------------------------------------
GEOMETRY = Setting("window/geometry", None, "bytes", max_len=MAX_BYTES)
SPLITTER = Setting("window/splitter", None, "bytes", max_len=MAX_BYTES)
PRESET = Setting("run/preset", "1024", "str", choices=(*SIZE_PRESETS, CUSTOM_SIZE))
DIMS = {key: Setting(f"run/{key}", "1024", "str", max_len=32) for key in ("m", "n", "k")}
SWEEP = Setting("run/sweep", "256,512,1024,2048", "str", max_len=1000)
REPEATS = Setting("run/repeats", 20, "int", lo=1, hi=1000)
WARMUP = Setting("run/warmup", 3, "int", lo=0, hi=100)
COLD_L2 = Setting("run/cold", False, "bool")
RECENT = Setting("recent", [], "str_list", max_len=MAX_RECENT)


def variants_setting(names: Sequence[str], default: Sequence[str]) -> Setting:
    """The selected variants: names of the registry only."""
    return Setting("run/variants", list(default), "str_list", choices=tuple(names), max_len=len(names))


def param_setting(key: str, choices: Sequence[int], default: Sequence[int]) -> Setting:
    """The checked values of one kernel parameter row: values the row offers only."""
    return Setting(f"run/params/{key}", list(default), "int_list", choices=tuple(choices), max_len=len(choices))


CONTROLS = Setting("window/controls", True, "bool")
LANGUAGE = Setting("window/language", "", "str", choices=("", "en", "zh"))  # "": follow the system's locale
