"""One style table for every chart, tab and export: a series' colour (an index into the theme's Okabe–Ito
palette), marker and line dash. Qt-free, so the CLI, the lessons and the tests read the same table.

A series' colour and marker come from the registry alone, never from the order results arrive in: first
the seed's four kernels, then every variant at its default params in registry order (so the ladder's
neighbours get distinct colours), then the other param values in registry order. With 8 colours and 4 markers the 32 slots cover
every series the registry can make; `check_registry_fits` says so. A second loaded session keeps a series'
colour and marker and changes its dash.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass

from gemmviz.core.variants import VARIANTS

PALETTE_SIZE = 8  # Okabe–Ito
MARKERS = ("o", "s", "t", "d")  # pyqtgraph names: circle, square, triangle, diamond
DASHES = ("solid", "dash", "dot", "dashdot")  # by source: live/first session, second, third, ...


@dataclass(frozen=True)
class SeriesStyle:
    colour: int  # palette index
    marker: str
    dash: str = "solid"


def series_name(variant: str, params: dict[str, int]) -> str:
    """The same text as Result.series: variant, then its params."""
    if not params:
        return variant
    return f"{variant} ({', '.join(f'{k} {v}' for k, v in params.items())})"


def seed_series() -> list[str]:
    """The seed's kernels: the CPU loop, the naive kernel with 16×16 blocks, the tiled kernel with TILE 16, cuBLAS."""
    return [series_name("cpu-naive", {}), series_name("gpu-naive", {"block": 16}),
            series_name("gpu-tiled", {"tile": 16}), series_name("cublas", {})]  # fmt: skip


def registry_series() -> list[str]:
    """Every series the registry can make, in style order: the seed's kernels, then every variant at its
    defaults, then the other param values (so the series taught first get the four most distinct colours)."""
    first, rest = seed_series(), []
    for v in VARIANTS.values():
        first.append(series_name(v.name, dict(v.param_defaults)))
        for key, choices in v.param_choices.items():
            for value in choices:
                if value != v.param_defaults.get(key):
                    rest.append(series_name(v.name, {**v.param_defaults, key: value}))
    return list(dict.fromkeys(first + rest))


_ORDER = {name: i for i, name in enumerate(registry_series())}
SLOTS = PALETTE_SIZE * len(MARKERS)


def _slot_style(slot: int) -> SeriesStyle:
    return SeriesStyle(slot % PALETTE_SIZE, MARKERS[(slot // PALETTE_SIZE) % len(MARKERS)])


def check_registry_fits() -> bool:
    """Whether every registry series has its own colour and marker (the registry has at most SLOTS series)."""
    return len(_ORDER) <= SLOTS


def style_of(series: str) -> SeriesStyle:
    """The fixed style of a registry series; a series the registry does not know (a published session's
    own name) gets a slot from its name, the same in every run."""
    slot = _ORDER.get(series)
    if slot is None:
        slot = len(_ORDER) + zlib.crc32(series.encode()) % max(1, SLOTS - len(_ORDER))
    return _slot_style(slot)


def source_order(sources: Iterable[str]) -> list[str]:
    """Sources in dash order: live ("") first, then the sessions by label."""
    return sorted(set(sources), key=lambda s: (s != "", s))


def style_table(keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], SeriesStyle]:
    """Styles of the (source, series) pairs shown together: colour and marker by series, dash by source.
    Unknown series that land on a taken colour+marker move to the next free slot, so no two pairs share
    colour, marker and dash."""
    keys = list(dict.fromkeys(keys))
    sources = source_order(s for s, _ in keys)
    by_series: dict[str, SeriesStyle] = {}
    taken = {style_of(name) for _, name in keys if name in _ORDER}
    for name in sorted({name for _, name in keys}, key=lambda n: (_ORDER.get(n, len(_ORDER)), n)):
        style = style_of(name)
        if name not in _ORDER:
            slot = len(_ORDER) + zlib.crc32(name.encode()) % max(1, SLOTS - len(_ORDER))
            for _ in range(SLOTS):
                if _slot_style(slot) not in taken:
                    break
                slot = (slot + 1) % SLOTS
            style = _slot_style(slot)
            taken.add(style)
        by_series[name] = style
    return {
        (source, name): SeriesStyle(by_series[name].colour, by_series[name].marker,
                                    DASHES[sources.index(source) % len(DASHES)])  # fmt: skip
        for source, name in keys
    }


def ladder_series() -> list[str]:
    """One series per variant, at its default params."""
    return [series_name(v.name, dict(v.param_defaults)) for v in VARIANTS.values()]


# Visibility presets: name -> the series they show (None: all).
PRESETS: dict[str, list[str] | None] = {"seed kernels": seed_series(), "ladder": ladder_series(), "all": None}


def hidden_for(preset: str, series: Iterable[str]) -> set[str]:
    """The series to hide (of those that could be shown) for a visibility preset."""
    keep = PRESETS[preset]
    return set() if keep is None else {s for s in series if s not in keep}
