"""One style table for every chart, tab and export: a series' colour (an index into the theme's Okabe–Ito
palette), marker and line dash. Qt-free, so the CLI, the lessons and the tests read the same table.

A kernel has one colour everywhere (VARIANT_STYLE): every chart, lesson, table swatch, roofline and
export, in every language, never depending on what else is drawn or the order results arrive in. Its other
param values (block 32 beside block 16) keep the colour and take the next marker. A chart styles the series
it draws together (series_styles): colours stay, and no two series share colour, marker and dash. A second
loaded session keeps a series' colour and marker and changes its dash.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass

from gemmviz.core.kernels.variants import VARIANTS

PALETTE_SIZE = 8  # Okabe–Ito
# pyqtgraph names: circle, square, triangle, diamond, pentagon, hexagon. The shipped kernels fill three or four
# slots of each colour; the last two are the room a variant added later takes (its own colour and marker).
MARKERS = ("o", "s", "t", "d", "p", "h")
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
    defaults, then the other param values."""
    first, rest = seed_series(), []
    for v in VARIANTS.values():
        first.append(series_name(v.name, dict(v.param_defaults)))
        for key, choices in v.param_choices.items():
            for value in choices:
                if value != v.param_defaults.get(key):
                    rest.append(series_name(v.name, {**v.param_defaults, key: value}))
    return list(dict.fromkeys(first + rest))


# A kernel's own colour (a palette index), the same in every chart, lesson, table, roofline and export (the
# same kernel used to change colour from chart to chart). Chosen so the kernels taught together differ: the
# seed's four, then the ladder (blocktile2d, cp.async, vectorize, mma, cuBLAS TF32); neighbouring rungs of
# the registry's ladder differ too, and no colour has more than four series (so markers tell them apart). An
# entry is optional: a variant it does not name takes the palette colour with the most free marker slots. A
# kernel's other params (block 32 beside block 16) keep its colour and take the next marker.
# Palette: 0 blue, 1 orange, 2 green, 3 vermillion, 4 pink, 5 sky blue, 6 wine, 7 black (light themes).
VARIANT_COLOUR: dict[str, int] = {
    "cpu-naive": 0,
    "gpu-naive": 1,
    "gpu-tiled": 2,
    "cublas": 3,
    "gpu-blocktile2d": 4,
    "gpu-cpasync": 5,
    "gpu-vectorize": 6,
    "cublas-tf32": 7,
    "gpu-mma-tf32": 0,
    "cpu-blas": 7,
    "gpu-uncoalesced": 4,
    "gpu-tiled-pad": 3,
    "gpu-blocktile1d": 5,
    "gpu-doublebuffer": 7,
    "gpu-warptile": 6,
    "gpu-wmma-tf32": 6,
    "gpu-wgmma-tf32": 5,
    "gpu-cpasync-any": 0,  # not gpu-cpasync's colour: the two are drawn side by side
}
SLOTS = PALETTE_SIZE * len(MARKERS)


def _variant_of(series: str) -> str:
    return series.split(" (", 1)[0]


def colour_of(series: str) -> int:
    """A series' colour: its kernel's (VARIANT_COLOUR; a variant added later, from its place in the
    registry; a name the registry does not know, from its text, the same in every run)."""
    variant = _variant_of(series)
    if variant in VARIANT_COLOUR:
        return VARIANT_COLOUR[variant]
    if variant in VARIANTS:
        return _free_colours()[variant]
    return zlib.crc32(series.encode()) % PALETTE_SIZE


def _free_colours() -> dict[str, int]:
    """Colours for the registry's variants VARIANT_COLOUR does not name (one added since), in registry order:
    each takes the palette colour with the most free marker slots (the fewest series so far, after the series
    of the named variants and of those placed before it), so each of a new variant's series has its own colour
    and marker (no dash) while one colour has room for them all."""
    key = tuple(VARIANTS)
    if _FREE_CACHE.get("key") != key:
        used = [0] * PALETTE_SIZE
        for name in _series_of_variants(VARIANT_COLOUR):
            used[VARIANT_COLOUR[_variant_of(name)]] += 1
        free: dict[str, int] = {}
        for v in VARIANTS.values():
            if v.name in VARIANT_COLOUR:
                continue
            n = 1 + sum(len(choices) - 1 for choices in v.param_choices.values())  # its series
            room = [c for c in range(PALETTE_SIZE) if used[c] + n <= len(MARKERS)]  # all of them on markers
            colour = min(room or range(PALETTE_SIZE), key=lambda c: (used[c], c))
            free[v.name] = colour
            used[colour] += n
        _FREE_CACHE.update(key=key, free=free)
    return _FREE_CACHE["free"]


_FREE_CACHE: dict = {}


def _series_of_variants(names) -> list[str]:
    return [s for s in registry_series() if _variant_of(s) in names]


def _homes() -> dict[str, tuple[int, str, str]]:
    """Every registry series' own (colour, marker, dash): its colour, then the markers in turn among the
    series of that colour in registry order (the seed's kernels first), dashed beyond len(MARKERS)."""
    homes, counts = {}, [0] * PALETTE_SIZE
    for name in registry_series():
        colour = colour_of(name)
        i = counts[colour]
        homes[name] = (colour, MARKERS[i % len(MARKERS)], DASHES[(i // len(MARKERS)) % len(DASHES)])
        counts[colour] += 1
    return homes


class _Homes(dict):
    """Every registry series' own style, recomputed when the registry changes (a variant added at run time, as a
    test's scratch addition is): `_HOMES` and `_ORDER` read through it."""

    def __init__(self, order: bool = False) -> None:
        super().__init__()
        self._order = order
        self._key: tuple[str, ...] | None = None

    def _fresh(self) -> None:
        key = tuple(VARIANTS)
        if key != self._key:
            homes = _homes()
            self.clear()
            self.update({name: i for i, name in enumerate(homes)} if self._order else homes)
            self._key = key

    def __contains__(self, name) -> bool:
        self._fresh()
        return super().__contains__(name)

    def __getitem__(self, name):
        self._fresh()
        return super().__getitem__(name)

    def get(self, name, default=None):
        self._fresh()
        return super().get(name, default)

    def values(self):
        self._fresh()
        return super().values()

    def __len__(self) -> int:
        self._fresh()
        return super().__len__()

    def __iter__(self):
        self._fresh()
        return super().__iter__()


_HOMES = _Homes()
_ORDER = _Homes(order=True)


def _home(series: str) -> tuple[int, str, str]:
    """A registry series' own style; a name that starts with one ("gpu-naive (block 16), measured", a
    table's row) starts from that series' style; any other name from its text, the same in every run."""
    if series in _HOMES:
        return _HOMES[series]
    kernel = series.split(",", 1)[0].strip()
    if kernel in _HOMES:
        return _HOMES[kernel]
    return colour_of(series), MARKERS[zlib.crc32(series.encode()) % len(MARKERS)], DASHES[0]


def check_registry_fits() -> bool:
    """Whether every registry series has its own colour, marker and dash."""
    homes = list(_HOMES.values())
    return len(set(homes)) == len(homes)


def style_of(series: str) -> SeriesStyle:
    """A series' own style, where it is drawn alone or listed: its kernel's colour, its marker and dash. A
    chart that draws several series styles them together with series_styles, which keeps every colour."""
    return SeriesStyle(*_home(series))


def source_order(sources: Iterable[str]) -> list[str]:
    """Sources in dash order: live ("") first, then the sessions by label."""
    return sorted(set(sources), key=lambda s: (s != "", s))


def series_styles(names: Iterable[str]) -> dict[str, SeriesStyle]:
    """Styles of the series drawn together in one chart: each keeps its kernel's colour (the same in every
    chart), and no two share colour, marker and dash: registry series have their own, a name the registry
    does not know takes the first free marker and dash of its colour."""
    order = sorted(set(names), key=lambda n: (_ORDER.get(n, len(_ORDER)), n))
    taken: set[tuple[int, str, str]] = set()
    out: dict[str, SeriesStyle] = {}
    for name in order:
        colour, marker, dash = _home(name)
        if (colour, marker, dash) in taken:  # only a name the registry does not know can meet another's
            free = [(m, d) for d in DASHES for m in MARKERS if (colour, m, d) not in taken] or [(marker, dash)]
            marker, dash = free[0]
        out[name] = SeriesStyle(colour, marker, dash)
        taken.add((colour, marker, dash))
    return out


def colour_each(names: Iterable[str]) -> dict[str, int]:
    """A colour for each series of a chart that is about one kernel's params alone (a lesson's TILE 8, 16 and 32,
    three lines of one green told apart by their markers only): the first in registry order keeps its
    kernel's colour, the others take the palette's other colours in turn. Elsewhere a kernel has one colour."""
    order = sorted(set(names), key=lambda n: (_ORDER.get(n, len(_ORDER)), n))
    if not order:
        return {}
    own = colour_of(order[0])
    others = [c for c in range(PALETTE_SIZE) if c != own]
    return {name: own if i == 0 else others[(i - 1) % len(others)] for i, name in enumerate(order)}


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


def ladder_order(names: Iterable[str]) -> list[str]:
    """Series in the registry's ladder order (a legend's order): variant by variant as the registry lists them,
    each at its defaults first; a name the registry does not know after them, by its text."""
    rank = {name: i for i, name in enumerate(VARIANTS)}
    return sorted(
        set(names),
        key=lambda n: (rank.get(_variant_of(n), len(rank)), n not in ladder_series(), _ORDER.get(n, len(_ORDER)), n),
    )


def preset_keys() -> list[str]:
    """The presets as a command line names them: "seed-kernels", "ladder", "all"."""
    return [name.replace(" ", "-") for name in PRESETS]


def preset_named(key: str) -> str:
    """A preset's name from its command-line key ("seed-kernels" -> "seed kernels")."""
    return key.replace("-", " ")


def hidden_for(preset: str, series: Iterable[str]) -> set[str]:
    """The series to hide (of those that could be shown) for a visibility preset."""
    keep = PRESETS[preset]
    return set() if keep is None else {s for s in series if s not in keep}
