"""The gap waterfall made readable (issue 34, item 4): two kernels a few percent apart whose stall reasons move
against each other draw one netted "stall mix" bar, not bars of several times the gap that cancel; parts too
small to read against the run fold into "small parts"; every bar is still a measured part and the bars still
sum to the gap exactly. And a gap file of several sizes (1024³, 2048³, odd ones): kernels are named with their
size, the default pair is the best FP32 rung against cuBLAS at the largest size with both, and a gap is only
between two kernels of one size. The figures are SYNTHETIC (tests/data/make_gap_fixtures.py), not measurements."""

from __future__ import annotations

import pytest

from gemmviz.core.hardware import gap
from tests.data.make_gap_fixtures import gap_file, several_sizes


@pytest.fixture(scope="module")
def synthetic():
    return gap.read_gap(gap_file(), "gap-synthetic.json")


def close_pair(b: gap.Kernel) -> gap.Kernel:
    """`b` run 2% longer at the same clock, with the same instructions: its warps stall on a fixed-latency wait
    (+0.128 warps per instruction) where `b` stalls at barriers (-0.08), 2% more in all."""
    m = dict(b.metrics)
    for name in (gap.DURATION, gap.CYCLES):
        m[name] = b.metrics[name] * 1.02
    m[gap.IPC] = b.metrics[gap.IPC] / 1.02
    total = sum(b.metrics[gap.stall_metric(r)] for r in gap.STALL_REASONS if r != "selected")
    m[gap.stall_metric("barrier")] -= 0.08
    m[gap.stall_metric("wait")] += 0.08 + 0.02 * (total + 1.0)  # + 2% of every warp state, "selected" included
    return gap.Kernel("gpu-close", {}, b.m, b.n, b.k, None, m)


def _bars(g: gap.Gap) -> dict[str, float]:
    return gap.as_mapping(g)


def test_a_close_pair_draws_no_large_cancelling_stall_bars(synthetic):
    b = synthetic.kernel("gpu-cpasync")
    raw = gap.decompose(close_pair(b), b, "NVIDIA H200")
    assert raw.gap_ns == pytest.approx(0.02 * b.metrics[gap.DURATION])
    # the problem: stall bars of +266% and -166% of the gap
    assert _bars(raw)["stall:wait"] > 2.5 * raw.gap_ns and _bars(raw)["stall:barrier"] < -1.5 * raw.gap_ns
    shown = gap.readable(raw)
    bars = _bars(shown)
    assert not any(name.startswith("stall:") for name in bars)
    assert sum(bars.values()) == pytest.approx(raw.gap_ns, rel=1e-9)  # the sum is exact
    stall_parts = [v for k, v in _bars(raw).items() if k.startswith("stall:") or k == "stalls_rest"]
    assert bars["stall_mix"] == pytest.approx(sum(stall_parts), rel=1e-9)  # their net, nothing dropped
    assert abs(bars["stall_mix"]) < 1.5 * raw.gap_ns  # no bar many times the gap
    mix = next(p for p in shown.parts if p.name == "stall_mix")
    en, zh = mix.sentence.text("en"), mix.sentence.text("zh")
    assert "stall: wait" in en and "stall: barrier" in en and "cancel" in en  # what moved, each way, is said
    assert "停顿" in zh and "抵消" in zh
    assert mix.label.text("en") == "stall mix (net)"


def test_small_parts_fold_and_say_what_they_add_and_take_away(synthetic):
    b = synthetic.kernel("gpu-cpasync")
    raw = gap.decompose(close_pair(b), b, "NVIDIA H200")
    limit = gap.SMALL_SHARE * raw.tb_ns
    small = [p for p in raw.parts if p.name not in ("other",) and not p.name.startswith("stall") and abs(p.ns) < limit]
    shown = gap.fold_small(raw)
    if len(small) >= 2:
        folded = next(p for p in shown.parts if p.name == "small")
        assert folded.ns == pytest.approx(sum(p.ns for p in small))
        assert "1%" in folded.sentence.text("en")
    assert sum(_bars(shown).values()) == pytest.approx(raw.gap_ns, rel=1e-9)
    assert shown.parts[-1].name == "other"  # "not attributed" stays its own bar, last


def test_a_wide_gap_keeps_its_bars(synthetic):
    a, b = synthetic.kernel("gpu-tiled[tile=16]"), synthetic.kernel("cublas")
    raw = gap.decompose(a, b, "NVIDIA H200")
    shown = gap.readable(raw)
    big = {p.name for p in raw.parts if abs(p.ns) >= gap.SMALL_SHARE * raw.tb_ns}
    assert big <= set(_bars(shown))  # every part of at least 1% of the run is a bar of its own
    assert sum(_bars(shown).values()) == pytest.approx(raw.gap_ns, rel=1e-9)


def test_a_file_of_several_sizes_names_each_kernel_with_its_size():
    f = gap.read_gap(several_sizes(), "several.json")
    assert f.sizes() == [(1000, 1000, 1000), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)]
    names = f.names()
    assert "gpu-cpasync@2048³" in names and "gpu-cpasync@1000³" in names and len(set(names)) == len(names)
    assert f.kernel("gpu-cpasync@2048x2048x2048") is f.kernel("gpu-cpasync@2048³")
    assert f.kernel("gpu-cpasync@1000").size == (1000, 1000, 1000)
    assert f.kernel("gpu-cpasync").size == (4096, 4096, 4096)  # a bare label: the largest size it has
    assert f.kernel("cublas").size == (8192, 8192, 8192)
    with pytest.raises(KeyError):
        f.kernel("gpu-cpasync@8192³")
    # the best FP32 rung against cuBLAS, at the largest size with both (8192³ has cuBLAS alone)
    assert gap.default_pair(f) == ("gpu-cpasync@4096³", "cublas@4096³")
    for size in ("1000³", "2048³", "4096³"):
        a, b = gap.pair_of(f, f"gpu-cpasync@{size},cublas@{size}")
        g = gap.readable(gap.decompose(a, b, f.header.gpu))
        assert sum(gap.as_mapping(g).values()) == pytest.approx(g.gap_ns, rel=1e-9)
        assert g.a.size == g.b.size == a.size


def test_a_gap_is_between_two_kernels_of_one_size():
    f = gap.read_gap(several_sizes(), "several.json")
    with pytest.raises(gap.GapError, match="at one size"):
        gap.decompose(f.kernel("gpu-cpasync@2048³"), f.kernel("cublas@4096³"), f.header.gpu)
    with pytest.raises(gap.GapError, match="not among the recorded kernels: cublas@1000³"):
        gap.pair_of(f, "nope,cublas")
    with pytest.raises(gap.GapError, match="two kernels"):
        gap.pair_of(f, "cublas")
    with pytest.raises(gap.GapError, match="twice"):
        gap.pair_of(f, "cublas@4096³,cublas@4096x4096x4096")


def test_one_size_keeps_the_bare_labels(synthetic):
    assert synthetic.names() == [k.label for k in synthetic.kernels]
    assert gap.default_pair(synthetic) == ("gpu-cpasync", "cublas")


def test_the_hardware_view_names_kernels_with_their_size(qapp):
    from gemmviz.ui.hardware.gap import GapView

    view = GapView(file=gap.read_gap(several_sizes(), "several.json"))
    try:
        items = [view.a_combo.itemText(i) for i in range(view.a_combo.count())]
        assert "gpu-cpasync@2048³" in items and "cublas@8192³" in items
        assert (view.a_combo.currentText(), view.b_combo.currentText()) == ("gpu-cpasync@4096³", "cublas@4096³")
        view.select("gpu-cpasync@1000³", "cublas@1000³")
        assert view.gap is not None and view.gap.a.size == (1000, 1000, 1000)
        view.select("gpu-cpasync", "cublas@4096³")  # a bare label (a lesson's): its largest size
        assert view.gap is not None and view.gap.a.size == (4096, 4096, 4096)
        view.select("gpu-cpasync@2048³", "cublas@4096³")
        assert view.gap is None and "one size" in view.sentences()
    finally:
        view.deleteLater()
