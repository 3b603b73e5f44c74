"""The gap between two kernels (issue 34, item 4) and the pipeline trace (item 5), without Qt: the loaders'
refusals, the waterfall's parts summing to the measured gap, the wave arithmetic and the sentences in English
and Chinese. tests/data/gap-synthetic.json and pipeline-synthetic.json are SYNTHETIC (made by
tests/data/make_gap_fixtures.py): they follow the schemas, their figures are not measurements."""

import copy
import json
import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gemmviz.core import messages
from gemmviz.core.hardware import gap, pipeline_trace
from gemmviz.core.session.recorded import RecordError
from tests.data.make_gap_fixtures import gap_file, pipeline_file

HAN = "\u4e00-\u9fff"


@pytest.fixture(scope="module")
def synthetic():
    return gap.read_gap(gap_file(), "gap-synthetic.json")


def _same(a, b) -> bool:
    """Equal JSON, floats within a relative 1e-9: the generator's arithmetic (numpy's) may round the last bit
    differently from one release to the next (numpy 2.5 did), which is not a change of the fixture."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=1e-9)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def test_the_fixtures_say_they_are_synthetic_and_match_their_generator():
    from pathlib import Path

    here = Path(__file__).parent / "data"
    for name, make in (("gap-synthetic.json", gap_file), ("pipeline-synthetic.json", pipeline_file)):
        doc = json.loads((here / name).read_text(encoding="utf-8"))
        assert "synthetic" in doc["command"] and "not a measurement" in doc["command"]
        assert _same(doc, json.loads(json.dumps(make()))), f"run python tests/data/make_gap_fixtures.py ({name})"
    assert gap.load_gap_file(here / "gap-synthetic.json").header.date == "2026-12-02"
    assert pipeline_trace.load_pipeline_file(here / "pipeline-synthetic.json").header.gpu == "NVIDIA H200"


def test_the_fixture_comparison_forgives_the_last_bit_only():
    assert _same({"a": [0.1 + 0.2, 1, "x"]}, {"a": [0.3, 1, "x"]})
    assert not _same({"a": [0.31]}, {"a": [0.3]}) and not _same({"a": 1}, {"a": "1"}) and not _same([1], [1, 2])


def _refused(doc, match, reader=gap.read_gap):
    with pytest.raises(RecordError, match=match) as info:
        reader(doc, "x.json")
    text = str(info.value)
    assert text.startswith("x.json: ") and "\n" not in text
    return text


def test_gap_loader_refusals():
    good = gap_file()

    def broken(change):
        doc = copy.deepcopy(good)
        change(doc)
        return doc

    _refused([], "top level")
    _refused(broken(lambda d: d.update(schema="gemmviz-session")), "schema: must be 'gemmviz-gap-metrics'")
    _refused(broken(lambda d: d.update(schema_version=2)), "schema_version")
    _refused(broken(lambda d: d.update(created="yesterday")), "created: must be an ISO 8601")
    _refused(broken(lambda d: d.update(gpu="")), "gpu: must be a text")
    _refused(broken(lambda d: d.update(kernels=[])), "kernels: must be a list of 1 to 512")
    _refused(broken(lambda d: d["kernels"].append(d["kernels"][0])), "kernels: cublas is listed twice at 4096³")
    _refused(broken(lambda d: d["kernels"][1].update(variant="Rm -rf")), r"kernels\[1\]\.variant")
    _refused(broken(lambda d: d["kernels"][0].update(m=0)), r"kernels\[0\]\.m: must be a whole number from 1")
    _refused(broken(lambda d: d["kernels"][0].update(n=True)), r"kernels\[0\]\.n")
    _refused(broken(lambda d: d["kernels"][0].update(median_ms="fast")), r"median_ms: must be a number")
    _refused(broken(lambda d: d["kernels"][0].update(params={"tile": -1})), r"params\.tile")
    _refused(broken(lambda d: d["kernels"][0].update(metrics=[])), r"metrics: must be an object")
    _refused(broken(lambda d: d["kernels"][0]["metrics"].update({"no metric": 1})), "not an ncu metric name")
    pct = "lts__t_sector_hit_rate.pct"
    _refused(
        broken(lambda d: d["kernels"][0]["metrics"].update({pct: 130})), pct + r": 130 is out of range \(0 to 105\)"
    )
    _refused(broken(lambda d: d["kernels"][0]["metrics"].update({gap.BLOCK: 2048})), "launch__block_size")
    _refused(broken(lambda d: d["kernels"][0]["metrics"].update({gap.DURATION: -5})), "out of range")
    _refused(broken(lambda d: d["kernels"][0]["metrics"].update({gap.IPC: "4"})), "must be a number")


def test_gap_file_refused_as_a_file(tmp_path):
    (tmp_path / "nan.json").write_text('{"schema": NaN}', encoding="utf-8")
    with pytest.raises(RecordError, match="nan.json: not JSON"):
        gap.load_gap_file(tmp_path / "nan.json")
    with pytest.raises(RecordError, match="folder.json: it is a folder"):
        (tmp_path / "folder.json").mkdir()
        gap.load_gap_file(tmp_path / "folder.json")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (gap.MAX_BYTES + 1))
    with pytest.raises(RecordError, match="over the"):
        gap.load_gap_file(big)


def test_a_missing_metric_is_said_not_invented(synthetic):
    g = gap.decompose(synthetic.kernel("gpu-tiled[tile=16]"), synthetic.kernel("cublas"), "NVIDIA H200")
    assert "smsp__average_warps_issue_stalled_*" in g.notes[-1].text()
    assert not any(p.name.startswith("stall") for p in g.parts)
    assert [p.name for p in g.parts][-2:] == ["issue", "other"]
    bare = copy.deepcopy(gap_file())
    for k in bare["kernels"]:
        k["metrics"] = {gap.DURATION: k["metrics"][gap.DURATION]}
    f = gap.read_gap(bare, "bare.json")
    g = gap.decompose(f.kernel("gpu-cpasync"), f.kernel("cublas"), "NVIDIA H200")
    assert [p.name for p in g.parts] == ["other"] and g.parts[0].ns == pytest.approx(g.gap_ns)
    assert gap.CYCLES in g.missing and "not recorded" in g.notes[-1].text()
    g = gap.decompose(f.kernel("gpu-cpasync"), f.kernel("cublas"), "Some GPU")
    assert "the SM count of Some GPU" in g.missing


@pytest.mark.parametrize(
    "pair",
    [
        ("gpu-cpasync", "cublas"),
        ("gpu-tiled[tile=16]", "cublas"),
        ("gpu-wgmma-tf32", "cublas-tf32"),
        ("cublas", "gpu-cpasync"),
    ],
)
def test_the_waterfall_sums_to_the_measured_gap(synthetic, pair):
    a, b = (synthetic.kernel(x) for x in pair)
    g = gap.decompose(a, b, synthetic.header.gpu)
    assert g.gap_ns == a.metrics[gap.DURATION] - b.metrics[gap.DURATION]
    assert sum(p.ns for p in g.parts) == pytest.approx(g.gap_ns, rel=1e-12, abs=1e-9)
    assert g.parts[-1].name == "other"
    assert sum(g.share(p) for p in g.parts) == pytest.approx(1.0)
    assert len(g.parts) <= 10  # a projector's waterfall


def test_the_parts_follow_their_identities(synthetic):
    a, b = synthetic.kernel("gpu-cpasync"), synthetic.kernel("cublas")
    g = gap.decompose(a, b, "NVIDIA H200")
    parts = gap.as_mapping(g)
    fa, fb = a.metrics[gap.CYCLES] / a.metrics[gap.DURATION], b.metrics[gap.CYCLES] / b.metrics[gap.DURATION]
    assert parts["clock"] == pytest.approx(b.metrics[gap.CYCLES] * (1 / fa - 1 / fb))
    idle = [k.metrics[gap.CYCLES] - k.metrics[gap.INSTRUCTIONS] / 132 / k.metrics[gap.IPC] for k in (a, b)]
    assert parts["idle"] == pytest.approx((idle[0] - idle[1]) / fa)
    # the fixture's cuBLAS closes I × Q exactly and gpu-cpasync to 1%: "other" is what is left, no more
    assert 0 < parts["other"] / g.gap_ns < 0.5
    stalls = {k: v for k, v in parts.items() if k.startswith("stall")}
    assert "stall:long_scoreboard" in stalls and stalls["stall:long_scoreboard"] > 0  # it grew: it widens the gap
    assert stalls["stall:math_pipe_throttle"] < 0  # it shrank: it narrows it
    reversed_ = gap.decompose(b, a, "NVIDIA H200")  # symmetric: swapping the two negates every part, in cycles
    assert gap.as_mapping(reversed_)["instructions"] * fb == pytest.approx(-parts["instructions"] * fa)


@given(st.floats(0.1, 10), st.floats(0.1, 10), st.floats(0.1, 10), st.floats(0.1, 10))
def test_the_symmetric_split_sums_exactly(xa, xb, ya, yb):
    dx, dy = gap.shapley2(xa, xb, ya, yb)
    assert dx + dy == pytest.approx(xa * ya - xb * yb, rel=1e-12, abs=1e-12)
    assert gap.shapley2(xb, xa, yb, ya) == pytest.approx((-dx, -dy))  # swapped: negated, no order preferred


def test_tail_quantisation_arithmetic():
    w = gap.waves_of(1024, 1, 132)  # 4096² in 128×128 tiles, one block per SM
    assert (w.last_blocks, w.last_sms) == (1024 - 7 * 132, 100)
    assert w.waves == pytest.approx(7.7576, abs=1e-4) and w.efficiency == pytest.approx(7.7576 / 8, abs=1e-4)
    w = gap.waves_of(1024, 2, 132)  # two per SM: 264 slots, 3 full waves and 232 blocks on every SM
    assert (w.last_blocks, w.last_sms) == (232, 132)
    w = gap.waves_of(132, 1, 132)  # a persistent grid: one full wave
    assert (w.waves, w.last_blocks, w.last_sms, w.efficiency) == (1.0, 132, 132, 1.0)
    w = gap.waves_of(20, 1, 132)
    assert (w.last_sms, w.efficiency) == (20, 20 / 132)  # one partial wave: 112 SMs idle the whole run
    with pytest.raises(ValueError):
        gap.waves_of(0, 1, 132)


def test_blocks_per_sm_from_the_limits_or_the_waves(synthetic):
    shape = gap.gpu_shape("NVIDIA H200")
    assert gap.blocks_per_sm(synthetic.kernel("cublas"), shape) == 1
    assert gap.blocks_per_sm(synthetic.kernel("gpu-tiled[tile=16]"), shape) == 8  # 256 threads: 8 warps, 64 max
    k = synthetic.kernel("cublas")
    only_waves = gap.Kernel(k.variant, {}, k.m, k.n, k.k, None, {gap.GRID: 1024, gap.WAVES: 1024 / 264})
    assert gap.blocks_per_sm(only_waves, shape) == 2
    w = gap.kernel_waves(synthetic.kernel("gpu-cpasync"), shape)
    assert (w.grid, w.blocks_per_sm, w.last_sms) == (1024, 1, 100)


def test_default_pair_is_the_best_fp32_rung_against_cublas(synthetic):
    assert gap.default_pair(synthetic) == ("gpu-cpasync", "cublas")
    tensor_only = gap.GapFile(synthetic.header, tuple(k for k in synthetic.kernels if "tf32" in k.variant))
    assert gap.default_pair(tensor_only) == ("gpu-wgmma-tf32", "cublas-tf32")


def test_sentences_in_english_and_chinese(synthetic):
    g = gap.decompose(synthetic.kernel("gpu-cpasync"), synthetic.kernel("cublas"), "NVIDIA H200")
    en, zh = gap.sentences(g, "en"), gap.sentences(g, "zh")
    assert len(en) == len(zh)
    idle = next(p for p in g.parts if p.name == "idle")
    share = f"{100 * idle.ns / g.gap_ns:.0f}%"
    assert (
        idle.sentence.text("en")
        == f"{share} of the gap: SMs sat idle 5% of the run against 2%; the last of 7.76 waves fills 100 of 132 SMs"
    )
    assert idle.sentence.text("zh").startswith(f"差距的 {share}：") and "132 个 SM 中的 100 个" in idle.sentence.text(
        "zh"
    )
    assert en[0] == "gpu-cpasync takes 2.83 ms, cublas 2.70 ms: gpu-cpasync is 0.130 ms slower"
    assert zh[0] == "gpu-cpasync 耗时 2.83 毫秒，cublas 耗时 2.70 毫秒：gpu-cpasync 慢 0.130 毫秒"
    import re

    for line in zh:  # every Chinese line has Chinese words; no English word but names and units
        assert re.search(f"[{HAN}]", line), line
        names = {"cublas", "cpasync", "scoreboard", "long", "throttle", "math", "pipe", "selected", "warp", "DRAM"}
        assert not set(re.findall(r"[A-Za-z]{4,}", line)) - names, line


def test_messages_one_logic_every_language():
    for key, templates in messages.TEMPLATES.items():
        if key.startswith(("gap.", "pipe.")):
            assert set(templates) == {"en", "zh"}, key
    with pytest.raises(ValueError, match="same parameters"):
        messages.define("zz.test", en="{a}", zh="{b}")
    assert messages.render("gap.note.pct", "zh", {"what": "gap.what.l2hit", "va": 80.0, "vb": 91.25}) == (
        "L2 命中率：80%，对方为 91.2%"
    )
    assert messages.render("gap.note.pct", "fr", {"what": "gap.what.l2hit", "va": 80.0, "vb": 91.0}).startswith(
        "L2 hit"
    )


def test_pipeline_loader_refusals():
    good = pipeline_file()

    def broken(change):
        doc = copy.deepcopy(good)
        change(doc)
        return doc

    read = pipeline_trace.read_pipeline
    _refused(broken(lambda d: d.update(schema="gemmviz-gap-metrics")), "schema", read)
    _refused(broken(lambda d: d.update(clock="rdtsc")), "clock: must be one of clock64, globaltimer_ns", read)
    _refused(broken(lambda d: d.update(sm=5000)), "sm: must be a whole number", read)
    _refused(broken(lambda d: d.update(events=[])), "events: must be a list of 1 to", read)
    _refused(broken(lambda d: d["events"][3].update(role="boss")), r"events\[3\]\.role", read)
    _refused(broken(lambda d: d["events"][3].update(kind="memcpy")), r"events\[3\]\.kind", read)
    _refused(broken(lambda d: d["events"][3].update(stage=99)), r"events\[3\]\.stage", read)
    _refused(broken(lambda d: d["events"][3].update(end=-1)), r"events\[3\]\.end", read)
    _refused(broken(lambda d: d["events"][-1].update(end=d["events"][-1]["start"] - 1)), "before its start", read)
    _refused(broken(lambda d: d["events"][3].update(extra=1)), r"events\[3\]: must be an object with exactly", read)
    _refused(broken(lambda d: d["events"][0].update(end=1e15)), "over an hour", read)
    same = broken(lambda d: d.update(events=[dict(d["events"][0], start=5, end=5)]))
    _refused(same, "the clock did not advance", read)


def test_pipeline_summary_finds_the_bubble_and_the_waits():
    t = pipeline_trace.read_pipeline(pipeline_file(), "p.json")
    assert t.lanes() == [(0, "producer"), (1, "consumer"), (2, "consumer")]
    assert min(e.start for e in t.events) == 0  # times from the first stamp
    s = pipeline_trace.summarise(t)
    assert (s.stages, s.consumers, s.k_iters) == (4, 2, 16)
    gaps = pipeline_trace.bubbles(t)
    assert s.bubbles == len(gaps) >= 1  # the slow copy of k-step 9 leaves the tensor cores idle
    assert s.longest_bubble == max(e - b for b, e in gaps) > 0
    assert 0 < s.tensor_busy < 1 and 0 < s.consumer_wait < 1
    assert s.tma_in_flight == 4  # all four stages' copies in flight at once
    assert pipeline_trace.union([(0, 2), (1, 3), (5, 6)]) == [(0, 3), (5, 6)]
    en, zh = pipeline_trace.sentences(t, "en"), pipeline_trace.sentences(t, "zh")
    assert en[0] == "gpu-wgmma-tf32 at 4096×4096×4096 on SM 0: 4 stages, 2 consumer warpgroups, 16 k-steps"
    assert "个周期" in zh[1] and len(en) == len(zh)


def test_more_warps_with_the_same_issue_rate_moves_only_the_occupancy_part(synthetic):
    """Twice the warps, each stalled twice as long per instruction on every reason: each reason's share of the
    scheduler's cycles is unchanged, and the warps' own part is the selected state's (one warp per issue), 1/W,
    falling from 1/2 to 1/4 of a cycle per instruction."""
    a, b = synthetic.kernel("gpu-cpasync"), synthetic.kernel("cublas")
    base = gap.as_mapping(gap.decompose(a, b, "NVIDIA H200"))
    metrics = dict(a.metrics)
    metrics[gap.WARPS] *= 2
    for r in gap.STALL_REASONS:
        metrics[gap.stall_metric(r)] *= 1 if r == "selected" else 2
    doubled = gap.decompose(gap.Kernel(a.variant, {}, a.m, a.n, a.k, a.median_ms, metrics), b, "NVIDIA H200")
    parts = gap.as_mapping(doubled)
    for name, ns in base.items():
        if name.startswith("stall") or name in ("clock", "idle"):  # instructions: weighed by Q, which fell
            assert parts[name] == pytest.approx(ns), name
    i_mean = (a.metrics[gap.INSTRUCTIONS] + b.metrics[gap.INSTRUCTIONS]) / 2 / (132 * 4)
    fa = a.metrics[gap.CYCLES] / a.metrics[gap.DURATION]
    assert parts["occupancy"] == pytest.approx((1 / 4 - 1 / 2) * i_mean / fa)
    assert sum(parts.values()) == pytest.approx(doubled.gap_ns)


def test_merging_stall_bars_keeps_every_part(synthetic):
    g = gap.decompose(synthetic.kernel("gpu-cpasync"), synthetic.kernel("cublas"), "NVIDIA H200")
    for keep in (3, 2, 1, 0):
        merged = gap.merge_stalls(g, keep)
        assert sum(1 for p in merged.parts if p.name.startswith("stall:")) == keep
        assert sum(p.ns for p in merged.parts) == pytest.approx(g.gap_ns)
        assert [p.name for p in merged.parts][-2:] == ["stalls_rest", "other"]
        rest = next(p for p in merged.parts if p.name == "stalls_rest")
        stall_ns = sum(p.ns for p in g.parts if p.name.startswith("stall"))
        kept_ns = sum(p.ns for p in merged.parts if p.name.startswith("stall:"))
        assert rest.ns == pytest.approx(stall_ns - kept_ns)
        # the bar says it holds named reasons: the sentences beside still explain each of them
        count = rest.sentence.params["count"]
        if merged is not g:  # named bars went into it (not only the reasons too small to have a bar of their own)
            assert rest.label.text("en") == f"other stalls ({count} reasons)" and count > 0
            assert rest.label.text("zh") == f"其他停顿（{count} 种）"
    assert gap.merge_stalls(g, 5) is g


def test_microseconds_in_one_unit_per_language():
    from gemmviz.core.numbers import microseconds

    assert [microseconds(x) for x in (87.24, 187.0, 1870.4, -90.61)] == ["87.2 µs", "187 µs", "1,870 µs", "-90.6 µs"]
    assert microseconds(13.7, "zh") == "13.7 微秒"


def test_one_wave_is_said_as_one_wave_never_the_last_of_one():
    """A persistent kernel launches one wave (132 blocks on 132 SMs): the H100's recorded TF32 pair at 8192³
    read "the last of 1 waves fills 132 of 132 SMs"."""
    from pathlib import Path

    f = gap.load_gap_file(
        Path(__file__).parents[1] / "benchmarks/results/h100-2026-12-07-session4/b/gap-session-gap.json"
    )
    g = gap.decompose(f.kernel("gpu-wgmma-tf32"), f.kernel("cublas-tf32"), f.header.gpu)
    idle = next(p for p in g.parts if p.name == "idle")
    assert idle.sentence.text("en").endswith("; one wave of blocks fills 132 of 132 SMs")
    assert "只有一波线程块" in idle.sentence.text("zh") and "last of" not in idle.sentence.text("en")


def test_a_pipe_both_kernels_leave_idle_has_no_line():
    """The TF32 pair's waterfall read "FMA pipe busy: 3.7% against 1.89%", which says nothing of two tensor-core
    kernels; the FP32 pair keeps its FMA line (70.6% against 79.8%), and neither shows the tensor pipe at 0%."""
    from pathlib import Path

    f = gap.load_gap_file(
        Path(__file__).parents[1] / "benchmarks/results/h100-2026-12-07-session4/b/gap-session-gap.json"
    )
    tf32 = " ".join(gap.sentences(gap.decompose(f.kernel("gpu-wgmma-tf32"), f.kernel("cublas-tf32"), f.header.gpu)))
    fp32 = " ".join(gap.sentences(gap.decompose(f.kernel("gpu-cpasync-any"), f.kernel("cublas"), f.header.gpu)))
    assert "FMA pipe busy" not in tf32 and "L2 hit rate: 70.2% against 75.9%" in tf32
    assert "FMA pipe busy: 70.6% against 79.8%" in fp32 and "tensor pipe" not in fp32


def test_occupancy_and_not_selected_are_said_as_one_trade_where_they_cancel():
    """The H100's FP32 pair at 8192³: warps resident -4.57 ms and "not selected" +3.89 ms on a 3.12 ms gap read as
    two effects; a context line gives their sum. Where they do not pull against each other (TF32), no line."""
    from pathlib import Path

    f = gap.load_gap_file(
        Path(__file__).parents[1] / "benchmarks/results/h100-2026-12-07-session4/b/gap-session-gap.json"
    )
    g = gap.decompose(f.kernel("gpu-cpasync-any"), f.kernel("cublas"), f.header.gpu)
    ns = gap.as_mapping(g)
    net = ns["occupancy"] + ns["stall:not_selected"]
    assert ns["occupancy"] < 0 < ns["stall:not_selected"] and abs(net) < ns["stall:not_selected"]
    first = g.notes[0].text("en")
    assert first.startswith("warps resident and “not selected” are one trade") and f"{net / 1e3:.0f} µs" in first
    tf32 = gap.decompose(f.kernel("gpu-wgmma-tf32"), f.kernel("cublas-tf32"), f.header.gpu)
    assert not any("one trade" in n.text("en") for n in tf32.notes)


def test_no_trade_line_where_the_gap_is_zero():
    """Two kernels of equal duration: any opposite occupancy and "not selected" bars read "0% of the gap"."""
    from gemmviz.core.hardware.gap_parts import Line, Part, _trade

    parts = [Part("occupancy", -2000.0, Line("x"), Line("x")), Part("stall:not_selected", 1500.0, Line("x"), Line("x"))]
    assert _trade(parts, 0.0) is None and _trade(parts, 400.0) is not None


def test_the_stall_bars_say_how_far_the_rounded_counters_let_them_be_trusted():
    """ncu gave the stall counts to two decimals: each stall bar (a difference of two such counts, over the warps
    per scheduler, times the instructions) is good to ±0.005 on each. The note says how many µs that is, worked out
    here from the file's own figures; equal bars within it (dispatch and not selected, +724 µs each at 8192³) are
    rounding, not a coincidence of causes."""
    from pathlib import Path

    from gemmviz.core.hardware.gap_file import stall_metric
    from gemmviz.core.hardware.gap_parts import _two_decimals

    f = gap.load_gap_file(Path(__file__).parents[1] / "assets/sessions/h200-2026-12-02d-gap.json")
    a, b = gap.pair_of(f, "gpu-cpasync,cublas@8192")
    g = gap.decompose(a, b, f.header.gpu)
    (note,) = [n for n in g.notes if n.key == "gap.note.stall_step"]
    stalls = [p for p in g.parts if p.name.startswith("stall:")]
    dispatch, waiting = (
        next(p.ns for p in stalls if p.name == n) for n in ("stall:dispatch_stall", "stall:not_selected")
    )
    step_ns = note.params["us"] * 1e3
    assert abs(dispatch - waiting) < step_ns  # the two equal bars: one step of the rounding apart at most
    assert 50e3 < step_ns < 150e3 and note.text("en").startswith("each stall bar is good to ±")
    assert note.params["share"] == pytest.approx(step_ns / abs(g.gap_ns))
    assert all(_two_decimals(k.metrics[stall_metric("barrier")]) for k in (a, b))
    unrounded = [
        replace(k, metrics={**k.metrics, **{m: v + 1e-4 for m, v in k.metrics.items() if "stalled" in m}})
        for k in (a, b)
    ]
    assert not any(n.key == "gap.note.stall_step" for n in gap.decompose(*unrounded, f.header.gpu).notes)


def test_a_stall_bar_names_its_reason_once():
    """The waterfall read "stall: dispatch stall"."""
    from gemmviz.core.messages import msg, render

    label = render(msg("gap.label.stall", reason=msg("gap.short.dispatch_stall")), "en")
    assert label == "stall: dispatch"
    assert render(msg("gap.label.stall", reason=msg("gap.short.long_scoreboard")), "en") == "stall: long scoreboard"
