"""What gemmviz's name-keyed registries share (lesson views, schedule kinds, and their drawings in the ui):
adding an entry once, and finding the modules that register them."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import MutableMapping
from types import ModuleType
from typing import TypeVar

T = TypeVar("T")


def add_once(table: MutableMapping[str, T], name: str, entry: T, what: str) -> T:
    """`table[name] = entry`; ValueError naming `what` if `name` is registered already."""
    if name in table:
        raise ValueError(f"{what} {name!r} is registered twice")
    table[name] = entry
    return entry


def import_prefixed(package: ModuleType, prefix: str) -> tuple[str, ...]:
    """Import every module of `package` whose name starts with `prefix` (each registers itself); their names."""
    names = tuple(m.name for m in pkgutil.iter_modules(package.__path__) if m.name.startswith(prefix))
    for name in names:
        importlib.import_module(f"{package.__name__}.{name}")
    return names


def import_if_present(module: str) -> None:
    """Import `module` if it exists (a registry's entry looked for by name); an import error inside it is raised."""
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
