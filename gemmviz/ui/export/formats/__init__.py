"""How each export format is written: modules registering, under a format's name, a subclass of its description
in core/export_formats.py with a `write` method (which replaces the description in its place).

Importing this package imports every module in it, so a new format is one module here: its class (name, target,
suffix, title, what it needs, `write`) decorated with `core.export_formats.register`. The modules load Qt only
inside `write`, so `gemmviz export --help` lists the formats without it."""

from __future__ import annotations

import importlib
import os
import pkgutil
from pathlib import Path

from gemmviz.core import export_formats

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")


def writer(target: str, path) -> type[export_formats.ExportFormat]:
    """The registered format, with its writer, that `path` asks for (export_formats.for_path). Where the target
    has a folder format (the animation's frames), a folder is a name without a suffix, one ending in / or an
    existing folder: any other suffix (x.jpg, .png alone) is refused with ValueError naming the known ones,
    rather than making a folder named like a file."""
    fmt = export_formats.for_path(target, path)
    text = os.fspath(path)
    if fmt.suffix or text.endswith(("/", os.sep)) or Path(text).is_dir():
        return fmt
    name = Path(text).name
    suffix = Path(name).suffix or (name if name.startswith(".") and name not in (".", "..") else "")
    if suffix:
        known = ", ".join(export_formats.suffixes(target))
        if suffix.lower() in export_formats.suffixes(target):
            raise ValueError(
                f"{text}: a name that is only a suffix (known: {known}); give a file name such as out{suffix.lower()}"
            )
        raise ValueError(
            f"{text}: {suffix} is not a format gemmviz writes (known: {known}); for a folder of frames give a "
            "name without a suffix, or end it with /"
        )
    return fmt
