"""How each export format is written: modules registering, under a format's name, a subclass of its description
in core/export_formats.py with a `write` method (which replaces the description in its place).

Importing this package imports every module in it, so a new format is one module here: its class (name, target,
suffix, title, what it needs, `write`) decorated with `core.export_formats.register`. The modules load Qt only
inside `write`, so `gemmviz export --help` lists the formats without it."""

from __future__ import annotations

import importlib
import pkgutil

from gemmviz.core import export_formats

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")


def writer(target: str, path) -> type[export_formats.ExportFormat]:
    """The registered format, with its writer, that `path` asks for (export_formats.for_path)."""
    return export_formats.for_path(target, path)
