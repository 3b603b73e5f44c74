"""One style table for every chart, tab and export: a series' colour (an index into the theme's Okabe–Ito
palette), marker and line dash. Qt-free, so the CLI, the lessons and the tests read the same table.

A series' own colour and marker come from the registry alone, never from the order results arrive in:
first the seed's four kernels, then every variant at its default params in registry order, then the other
param values in registry order. With 8 colours and 4 markers the 32 slots cover every series the registry can
make; `check_registry_fits` says so. A chart styles the series it draws together (series_styles): no two of
them share a colour while they fit the palette (a series keeps its own colour unless an earlier one has it),
beyond that marker and dash tell them apart. A second loaded session keeps a series' colour and marker and
changes its dash.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass

from gemmviz.core.variants import VARIANTS

PALETTE_SIZE = 8  # Okabe–Ito
MARKERS = ("o", "s", "t", "d")  # pyqtgraph names: circle, square, triangle, diamond
DASHES = ("solid", "dash", "dot", "dashdot")  # by source (live/first session, second, ...) and beyond the palette


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
    return [
        series_name("cpu-naive", {}),
        series_name("gpu-naive", {"block": 16}),
        series_name("gpu-tiled", {"tile": 16}),
        series_name("cublas", {}),
    ]


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
    """A series' own style, where it is drawn alone or listed (the results table): its registry slot; a series
    the registry does not know (a published session's own name) gets a slot from its name, the same in every
    run. A chart that draws several series styles them together with series_styles."""
    return _slot_style(_home_slot(series))


def source_order(sources: Iterable[str]) -> list[str]:
    """Sources in dash order: live ("") first, then the sessions by label."""
    return sorted(set(sources), key=lambda s: (s != "", s))


def _home_slot(series: str) -> int:
    """A series' own slot: its place in the registry's order, or one from its name for a series the
    registry does not know."""
    slot = _ORDER.get(series)
    return slot if slot is not None else len(_ORDER) + zlib.crc32(series.encode()) % max(1, SLOTS - len(_ORDER))


def series_styles(names: Iterable[str]) -> dict[str, SeriesStyle]:
    """Styles of the series drawn together in one chart: no two share a colour while they fit the palette,
    and beyond it no two share colour and marker (up to SLOTS series), then colour, marker and dash.

    The series are taken in registry order (the seed's kernels first, so they always get their own colours);
    each keeps its own colour where no earlier one has it, else takes the least-used colour (the lowest
    index among those); its own marker where that colour has not got it yet, else the first free one. The
    dash counts how many palettes' worth came before (solid for the first eight)."""
    order = sorted(set(names), key=lambda n: (_home_slot(n), n))
    uses = [0] * PALETTE_SIZE
    combos: set[tuple[int, str]] = set()
    out: dict[str, SeriesStyle] = {}
    for name in order:
        home = _slot_style(_home_slot(name))
        fewest = min(uses)
        colour = home.colour if uses[home.colour] == fewest else uses.index(fewest)
        free = [m for m in MARKERS if (colour, m) not in combos]
        marker = home.marker if home.marker in free or not free else free[0]
        out[name] = SeriesStyle(colour, marker, DASHES[uses[colour] % len(DASHES)])
        uses[colour] += 1
        combos.add((colour, marker))
    return out


def style_table(keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], SeriesStyle]:
    """Styles of the (source, series) pairs shown together in one chart: colour and marker by series (see
    series_styles), dash by source (live or the first session solid, the next dashed, ...)."""
    keys = list(dict.fromkeys(keys))
    sources = source_order(s for s, _ in keys)
    by_series = series_styles(name for _, name in keys)
    out = {}
    for source, name in keys:
        style = by_series[name]
        dash = DASHES[(sources.index(source) + DASHES.index(style.dash)) % len(DASHES)]
        out[(source, name)] = SeriesStyle(style.colour, style.marker, dash)
    return out


def ladder_series() -> list[str]:
    """One series per variant, at its default params."""
    return [series_name(v.name, dict(v.param_defaults)) for v in VARIANTS.values()]


# Visibility presets: name -> the series they show (None: all).
PRESETS: dict[str, list[str] | None] = {"seed kernels": seed_series(), "ladder": ladder_series(), "all": None}


def hidden_for(preset: str, series: Iterable[str]) -> set[str]:
    """The series to hide (of those that could be shown) for a visibility preset."""
    keep = PRESETS[preset]
    return set() if keep is None else {s for s in series if s not in keep}
