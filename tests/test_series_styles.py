"""The style table over the registry: a kernel has one colour in every chart (the teacher saw gpu-tiled green
in one lesson and light blue in the next); in one chart no two series share colour, marker and dash; the
kernels taught together (each lesson chart, the ladder) have distinct colours (issue 20: the ladder slide drew
cuBLAS and warp tiling both orange, naive and vectorize both yellow)."""

import tomllib

from hypothesis import given, settings
from hypothesis import strategies as st

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
    style_table,
)
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.lesson.lessons import parse_series
from gemmviz.core.paths import asset_files

REGISTRY = registry_series()


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


def test_the_ladder_slide_and_every_lesson_chart_use_distinct_colours():
    steps = 0
    for path in asset_files("lessons", ".toml"):
        for step in tomllib.loads(path.read_text()).get("step", []):
            if step.get("view") != "chart" or not step.get("series"):
                continue
            refs = [parse_series(t) for t in step["series"]]
            names = [series_name(r.variant, {**VARIANTS[r.variant].param_defaults, **dict(r.params)}) for r in refs]
            if len({r.variant for r in refs}) == len(refs):
                assert_distinct_colours(names)
            else:  # one kernel at several tiles (the tile-size step): its own colour, told apart by marker and dash
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
    assert_distinct(ladder)
    styles = series_styles(ladder)
    assert styles["cublas"].colour != styles["gpu-warptile"].colour
    assert styles["gpu-naive (block 16)"].colour != styles["gpu-vectorize"].colour
    assert_distinct_colours([n if n != "gpu-warptile" else "gpu-cpasync" for n in ladder])  # seed000's last step
    assert_distinct_colours(seed_series() + ["cublas-tf32"])


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


def test_a_kernel_keeps_its_colour_in_every_chart_and_its_params_share_it():
    for n in range(1, len(REGISTRY) + 1):
        for name, style in series_styles(REGISTRY[:n]).items():
            assert style.colour == style_of(name).colour
    assert check_registry_fits() and len(MARKERS) * PALETTE_SIZE == SLOTS
    assert style_of("gpu-naive (block 32)").colour == style_of("gpu-naive (block 16)").colour
    assert style_of("gpu-naive (block 32)").marker != style_of("gpu-naive (block 16)").marker
    homes = [(style_of(s).colour, style_of(s).marker) for s in REGISTRY]
    assert len(set(homes)) == len(homes)  # every registry series its own colour and marker, no dash needed
    assert set(VARIANT_COLOUR) == set(VARIANTS)  # every shipped kernel chosen, none left to chance


def test_two_sources_same_series_same_colour_other_dash():
    names = REGISTRY[:10]
    table = style_table([(src, n) for src in ("", "B (recorded)") for n in names])
    for n in names:
        a, b = table[("", n)], table[("B (recorded)", n)]
        assert (a.colour, a.marker) == (b.colour, b.marker) and a.dash != b.dash
    triples = [(s.colour, s.marker, s.dash) for s in table.values()]
    assert len(set(triples)) == len(triples)
