"""How each chart kind is drawn: one module per kind (or a few kinds alike), each registering under its name a
subclass of core/charts/kinds.py's description with `render` (and, for a panel of the Charts tab, a `tab_label` and
`make_panel`).

Importing this package imports every module in it, so a new kind is one module here: its class (name, label,
description, what it needs, its drawing) decorated with `core.charts.kinds.register`. The modules load Qt only inside
their methods, so `gemmviz export --help` lists the kinds without it."""

from __future__ import annotations

import importlib
import pkgutil

from gemmviz.core.charts import kinds as chart_kinds

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")


def kinds() -> list[type[chart_kinds.ChartKind]]:
    """Every registered kind, drawings included, in the registry's order (what the dialog and CLI list)."""
    return chart_kinds.kinds()


def get(name: str) -> type[chart_kinds.ChartKind]:
    """The registered kind called `name`, with its drawing (KeyError names the kinds there are)."""
    return chart_kinds.get(name)


def panels() -> list[type[chart_kinds.ChartKind]]:
    """The kinds the Charts tab shows, in the registry's order."""
    return [kind for kind in chart_kinds.kinds() if kind.tab_label is not None]


def drawn(name: str, results) -> list:
    """The results the kind `name` draws of those shown: its `select`, written once for export and tab."""
    return chart_kinds.drawn(name, results)
