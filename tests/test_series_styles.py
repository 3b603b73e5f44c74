"""The style table over the registry: a kernel has one colour in every chart (the teacher saw gpu-tiled green
in one lesson and light blue in the next); in one chart no two series share colour, marker and dash; the
kernels taught together (each lesson chart, the ladder) have distinct colours (issue 20: the ladder slide drew
cuBLAS and warp tiling both orange, naive and vectorize both yellow)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from gemmviz.core.charts.style import registry_series, seed_series, series_styles, style_of, style_table
from tests.checks.styles import (
    assert_distinct,
    assert_distinct_colours,
    every_series_has_its_own_colour_and_marker,
    lesson_charts_have_distinct_colours,
    presets_and_every_prefix_of_the_registry,
    seed_kernels_keep_their_styles,
)

REGISTRY = registry_series()


def test_the_ladder_slide_and_every_lesson_chart_use_distinct_colours():
    assert lesson_charts_have_distinct_colours() >= 5
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
    presets_and_every_prefix_of_the_registry()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(REGISTRY), min_size=1, max_size=len(REGISTRY), unique=True))
def test_any_set_of_registry_series(names):
    assert_distinct(names)
    assert series_styles(names) == series_styles(list(reversed(names)))  # not the order results arrive in


def test_seed_kernels_keep_their_own_colours_and_markers_in_any_chart():
    seed_kernels_keep_their_styles()


def test_a_kernel_keeps_its_colour_in_every_chart_and_its_params_share_it():
    every_series_has_its_own_colour_and_marker()
    assert style_of("gpu-naive (block 32)").colour == style_of("gpu-naive (block 16)").colour
    assert style_of("gpu-naive (block 32)").marker != style_of("gpu-naive (block 16)").marker


def test_two_sources_same_series_same_colour_other_dash():
    names = REGISTRY[:10]
    table = style_table([(src, n) for src in ("", "B (recorded)") for n in names])
    for n in names:
        a, b = table[("", n)], table[("B (recorded)", n)]
        assert (a.colour, a.marker) == (b.colour, b.marker) and a.dash != b.dash
    triples = [(s.colour, s.marker, s.dash) for s in table.values()]
    assert len(set(triples)) == len(triples)
