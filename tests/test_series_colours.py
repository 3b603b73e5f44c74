"""The teacher's review of every tab and both lessons: a kernel keeps one colour in every chart, lesson, table,
roofline and export, in both languages; a projector's legend lists only what is drawn; the roofline's
above-the-roof note points at its point; the SM trace's waves can be counted; the hierarchical roofline keeps
a figure with its unit."""

import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")

from gemmviz.core.charts.style import colour_of, series_name, series_styles, style_of
from gemmviz.core.hardware.roofline import Ceilings
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.lesson.lessons import lesson_session, parse_series, shipped_lessons, step_table
from gemmviz.core.paths import asset_files
from gemmviz.core.session.results import Session
from gemmviz.ui.export.exporters import layout_offscreen, make_chart
from gemmviz.ui.hardware.tab import LevelRooflineChart
from gemmviz.ui.hardware.trace import WAVE_PALETTE, SmTraceChart
from gemmviz.ui.theme import LIGHT, PROJECTOR_DARK, PROJECTOR_LIGHT

RECORDED = Path(__file__).parent.parent / "assets" / "sessions" / "h200-2026-12-01.json"
SAMPLE = Path(__file__).parent / "data" / "h200-counters-sample.json"
CEILINGS = Ceilings("NVIDIA H200", 4232.8, 66908.16, 51104.9, 421638.4)


def _step_names(step) -> list[str]:
    refs = [parse_series(t) for t in step.get("series", [])]
    return [series_name(r.variant, {**VARIANTS[r.variant].param_defaults, **dict(r.params)}) for r in refs]


def test_a_kernel_has_one_colour_in_every_lesson_step_en_and_zh():
    seen: dict[str, set[int]] = {}
    for path in asset_files("lessons", ".toml"):
        for step in tomllib.loads(path.read_text()).get("step", []):
            names = _step_names(step)
            for name, style in series_styles(names).items():
                seen.setdefault(name.split(" (")[0], set()).add(style.colour)
    assert {"cpu-naive", "gpu-naive", "gpu-tiled", "cublas", "gpu-cpasync", "cublas-tf32"} <= set(seen)
    assert all(len(colours) == 1 for colours in seen.values()), seen
    # the seed's tiled kernel with 16 and with 32 tiles: one hue, told apart by marker
    assert style_of("gpu-tiled (tile 32)").colour == style_of("gpu-tiled (tile 16)").colour
    assert colour_of("cpu-naive") != colour_of("cublas-tf32")  # seed001 step 4 drew both dark blue


def test_table_rows_keep_their_kernels_colour_in_both_languages():
    by_lang = {}
    for lang in ("en", "zh"):
        for lesson in shipped_lessons(lang).values():
            results = list(lesson_session(lesson).results)
            for i, step in enumerate(s for s in lesson.steps if s.view == "table"):
                rows = [name for name, _ in step_table(step, results, lang).rows]
                styles = series_styles(rows)
                by_lang.setdefault((lesson.name, i), []).append([(styles[n].colour, styles[n].marker) for n in rows])
    assert by_lang and all(len(v) == 2 and v[0] == v[1] for v in by_lang.values()), by_lang


def test_light_themes_have_no_pale_yellow():
    for theme in (LIGHT, PROJECTOR_LIGHT):
        for colour in theme.palette:
            r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
            assert not (r > 200 and g > 200 and b < 120), colour  # pale yellow on white
    assert PROJECTOR_DARK.palette[3] == "#F0E442"  # on a dark ground it stays


def _chart_series_colours(chart) -> dict[str, str]:
    out = {}
    for (_source, name), items in chart._items.items():
        brush = items[-1].opts["brush"]
        out[name] = brush.color().name().upper()
    return out


def test_the_same_kernel_is_drawn_in_the_same_colour_whatever_is_beside_it(qapp):
    results = Session.load(RECORDED).results
    seed = [r for r in results if r.series in ("cpu-naive", "gpu-naive (block 16)", "gpu-tiled (tile 16)", "cublas")]
    ladder = [r for r in results if r.series in ("gpu-tiled (tile 16)", "gpu-cpasync", "cublas-tf32", "gpu-vectorize")]
    a = make_chart("gflops", seed, PROJECTOR_LIGHT)
    b = make_chart("gflops", ladder, PROJECTOR_LIGHT)
    for chart in (a, b):
        layout_offscreen(chart, 1280, 720)
    ca, cb = _chart_series_colours(a), _chart_series_colours(b)
    assert ca["gpu-tiled (tile 16)"] == cb["gpu-tiled (tile 16)"] == PROJECTOR_LIGHT.color(2).upper()
    assert len(set(cb.values())) == len(cb)


def test_a_projector_legend_lists_only_what_is_drawn(qapp):
    results = Session.load(RECORDED).results
    seed = [r for r in results if r.series in ("cpu-naive", "gpu-naive (block 16)", "gpu-tiled (tile 16)", "cublas")]
    for theme, lone_source_listed in ((PROJECTOR_LIGHT, False), (LIGHT, True)):
        chart = make_chart("gflops", seed, theme)
        chart.source_of = lambda r: "NVIDIA H200, 2026-12-01 (recorded)"
        chart.hidden_series = ["cpu-blas", "gpu-vectorize"]
        chart.set_results(seed)
        layout_offscreen(chart, 1280, 720)
        names = chart.legend.names
        assert set(names) >= {r.series for r in seed}
        assert ("cpu-blas" in names) is not theme.name.startswith("projector")  # faint hidden entries: window only
        assert ("NVIDIA H200, 2026-12-01 (recorded)" in names) is lone_source_listed
    # several sessions: each one's dash tells its series apart, so each is listed
    chart = make_chart("gflops", seed, PROJECTOR_LIGHT)
    chart.source_of = lambda r: "A (recorded)" if r.m <= 1024 else "B (recorded)"
    chart.set_results(seed)
    assert {"A (recorded)", "B (recorded)"} <= set(chart.legend.names)


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_the_above_the_roof_note_has_a_leader_to_its_point(qapp, size):
    results = [r for r in Session.load(RECORDED).results if r.series in ("gpu-naive (block 16)", "gpu-tiled (tile 16)")]
    chart = make_chart("roofline", results, PROJECTOR_LIGHT, CEILINGS)
    layout_offscreen(chart, *size)
    chart._place_labels()
    assert chart.above_roof_note is not None
    xs, ys = chart._leader.getData()
    assert xs is not None and len(xs) >= 2
    ends = list(zip(xs[1::2], ys[1::2]))  # each leader's end, near a point above its roof
    above = [chart._xy[i] for i, p in enumerate(chart.points) if p.pct_of_roof and p.pct_of_roof > 100]
    assert any(min(math.dist(e, a) for a in above) < 0.2 for e in ends)


def test_the_sm_trace_names_each_wave_in_its_own_colour_and_fills_its_height(qapp):
    session = Session.load(SAMPLE)
    r = next(r for r in session.results if r.block_trace and r.series == "gpu-tiled (tile 16)")
    chart = SmTraceChart(PROJECTOR_LIGHT)
    chart.set_result(r, 132)
    layout_offscreen(chart, 1280, 560)
    chart._fit_headroom()
    waves = int(chart._drawing[2].wave.max()) + 1
    assert waves == math.ceil(chart.summary.waves) == 4
    assert [t for _, t in chart.wave_ticks] == [f"wave {k}" for k in range(1, waves + 1)]
    assert len(chart.wave_lines) == waves - 1
    assert len({PROJECTOR_LIGHT.color(i) for i in WAVE_PALETTE}) == len(WAVE_PALETTE) == 4
    lo, hi = chart.sms_plot.getViewBox().viewRange()[1]
    assert hi - chart.rows < 0.1 * chart.rows and lo <= 0  # no band above the last SM
    assert chart.sms_plot.getViewBox().viewRange()[0][0] < 0  # 0 on the time axis
    ticks = chart.resident_plot.getAxis("bottom").tickValues(*chart.sms_plot.getViewBox().viewRange()[0], 600)
    assert any(np.isclose(v, 0) for _, values in ticks for v in values)


def test_the_hierarchical_rooflines_figures_keep_their_units(qapp):
    session = Session.load(SAMPLE)
    r = next(r for r in session.results if r.counters)
    chart = LevelRooflineChart(PROJECTOR_LIGHT)
    chart.set_result(r, CEILINGS)
    names = chart.legend.names
    assert any("GB/s" in n for n in names)
    for n in names:
        for unit in ("GB/s", "TFLOP/s", "FLOP/B"):
            if unit in n:
                assert f"\u00a0{unit}" in n, n
