"""Checks over the style table (core/charts/style.py), read from the registry when called, so a variant added
for the length of a test is held to them as the shipped ones are."""

import tomllib

from gemmviz.core.charts.style import (
    MARKERS,
    PALETTE_SIZE,
    PRESETS,
    SLOTS,
    VARIANT_COLOUR,
    check_registry_fits,
    colour_of,
    registry_series,
    seed_series,
    series_name,
    series_styles,
    style_of,
)
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.lesson.lessons import parse_series
from gemmviz.core.paths import asset_files


def assert_distinct(names) -> None:
    styles = series_styles(names)
    assert set(styles) == set(names)
    assert all(styles[n].colour == colour_of(n) for n in names)  # the kernel's own colour, whatever is beside it
    triples = [(s.colour, s.marker, s.dash) for s in styles.values()]
    assert len(set(triples)) == len(triples), styles


def assert_distinct_colours(names) -> None:
    assert_distinct(names)
    colours = [series_styles(names)[n].colour for n in names]
    assert len(set(colours)) == len(colours), names


def lesson_charts_have_distinct_colours() -> int:
    """Every lesson chart's series: distinct colours, or (one kernel at several params) distinct markers and dashes.
    Returns the number of chart steps checked."""
    steps = 0
    for path in asset_files("lessons", ".toml"):
        for step in tomllib.loads(path.read_text(encoding="utf-8")).get("step", []):
            if step.get("view") != "chart" or not step.get("series"):
                continue
            refs = [parse_series(t) for t in step["series"]]
            names = [series_name(r.variant, {**VARIANTS[r.variant].param_defaults, **dict(r.params)}) for r in refs]
            if len({r.variant for r in refs}) == len(refs):
                assert_distinct_colours(names)
            else:  # one kernel at several tiles (the tile-size step): its own colour, told apart by marker and dash
                assert_distinct(names)
            steps += 1
    return steps


def presets_and_every_prefix_of_the_registry() -> None:
    registry = registry_series()
    for keep in PRESETS.values():
        assert_distinct(keep or registry)
    for n in range(1, len(registry) + 1):
        assert_distinct(registry[:n])


def seed_kernels_keep_their_styles() -> None:
    registry = registry_series()
    for n in range(1, len(registry) + 1):
        styles = series_styles(seed_series() + registry[:n])
        assert all(styles[s] == style_of(s) for s in seed_series())


def every_series_has_its_own_colour_and_marker() -> None:
    """A kernel keeps its colour in every chart, its params share it, and every registry series has its own colour
    and marker (no dash needed to tell two apart), whether VARIANT_COLOUR names its kernel or not (optional)."""
    registry = registry_series()
    for n in range(1, len(registry) + 1):
        for name, style in series_styles(registry[:n]).items():
            assert style.colour == style_of(name).colour
    assert check_registry_fits() and len(MARKERS) * PALETTE_SIZE == SLOTS
    homes = [(style_of(s).colour, style_of(s).marker) for s in registry]
    assert len(set(homes)) == len(homes), homes
    assert all(style_of(s).dash == "solid" for s in registry)  # a dash is for a second source only
    assert set(VARIANT_COLOUR) <= set(VARIANTS)  # a name the registry lacks is a stale entry
