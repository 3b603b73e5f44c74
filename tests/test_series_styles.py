"""The style table over the registry: in one chart no two series share a colour while they fit the palette;
beyond it, no two share colour and marker, and the later ones are dashed (issue 20: the ladder slide drew
cuBLAS and warp tiling both orange, naive and vectorize both yellow)."""

import tomllib

from hypothesis import given, settings
from hypothesis import strategies as st

from gemmviz.core.lessons import parse_series
from gemmviz.core.paths import asset_files
from gemmviz.core.style import (
    MARKERS,
    PALETTE_SIZE,
    PRESETS,
    SLOTS,
    registry_series,
    seed_series,
    series_name,
    series_styles,
    style_of,
    style_table,
)
from gemmviz.core.variants import VARIANTS

REGISTRY = registry_series()


def assert_distinct(names) -> None:
    styles = series_styles(names)
    assert set(styles) == set(names)
    colours = [s.colour for s in styles.values()]
    if len(names) <= PALETTE_SIZE:
        assert len(set(colours)) == len(colours), styles
    counts = [colours.count(c) for c in range(PALETTE_SIZE)]
    assert max(counts) - min(counts) <= 1  # no colour used twice before every colour is used once
    solid = [s.colour for s in styles.values() if s.dash == "solid"]
    assert len(set(solid)) == len(solid)  # the first palette's worth; the later ones dashed
    if len(names) <= SLOTS:
        combos = [(s.colour, s.marker) for s in styles.values()]
        assert len(set(combos)) == len(combos), styles


def test_the_ladder_slide_and_every_lesson_chart_use_distinct_colours():
    steps = 0
    for path in asset_files("lessons", ".toml"):
        for step in tomllib.loads(path.read_text()).get("step", []):
            if step.get("view") != "chart" or not step.get("series"):
                continue
            refs = [parse_series(t) for t in step["series"]]
            names = [series_name(r.variant, {**VARIANTS[r.variant].param_defaults, **dict(r.params)}) for r in refs]
            assert_distinct(names)
            steps += 1
    assert steps >= 5
    ladder = [
        "gpu-naive (block 16)",
        "gpu-tiled (tile 16)",
        "gpu-blocktile2d",
        "gpu-vectorize",
        "gpu-warptile",
        "gpu-mma-tf32",
        "cublas",
        "cublas-tf32",
    ]
    styles = series_styles(ladder)
    assert styles["cublas"].colour != styles["gpu-warptile"].colour
    assert styles["gpu-naive (block 16)"].colour != styles["gpu-vectorize"].colour


def test_presets_and_every_prefix_of_the_registry():
    for keep in PRESETS.values():
        assert_distinct(keep or REGISTRY)
    for n in range(1, len(REGISTRY) + 1):
        assert_distinct(REGISTRY[:n])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(REGISTRY), min_size=1, max_size=len(REGISTRY), unique=True))
def test_any_set_of_registry_series(names):
    assert_distinct(names)
    assert series_styles(names) == series_styles(list(reversed(names)))  # not the order results arrive in


def test_seed_kernels_keep_their_own_colours_and_markers_in_any_chart():
    for n in range(1, len(REGISTRY) + 1):
        styles = series_styles(seed_series() + REGISTRY[:n])
        assert all(styles[s] == style_of(s) for s in seed_series())


def test_beyond_the_palette_marker_and_dash_tell_series_apart():
    styles = series_styles(REGISTRY[: PALETTE_SIZE + 3])
    later = [s for s in styles.values() if s.dash != "solid"]
    assert len(later) == 3 and all(s.dash == "dash" for s in later)
    assert len(MARKERS) * PALETTE_SIZE == SLOTS


def test_two_sources_same_series_same_colour_other_dash():
    names = REGISTRY[:10]
    table = style_table([(src, n) for src in ("", "B (recorded)") for n in names])
    for n in names:
        a, b = table[("", n)], table[("B (recorded)", n)]
        assert (a.colour, a.marker) == (b.colour, b.marker) and a.dash != b.dash
    triples = [(s.colour, s.marker, s.dash) for s in table.values()]
    assert len(set(triples)) == len(triples)
