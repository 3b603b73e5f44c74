"""The counters beside a frame of the tiling animation are decided in core (core/schedule/counters.py), without
Qt, as messages in any language: what they count, their compact form beside another kernel, and their figures
written by each language's rules."""

from gemmviz.core.messages import render
from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import block_schedule, reuse_factor
from gemmviz.core.schedule.counters import counter_lines, reuse_figure


def _texts(lines, lang="en"):
    return [render(m, lang) for m, _bold in lines]


def test_the_counters_count_the_blocks_work_so_far():
    s = block_schedule("gpu-tiled", Problem(64, 64, 64), 16, (0, 0))
    last = len(s.steps) - 1
    total = s.steps[last].total
    texts = _texts(counter_lines(s, last, (0, 0), title="tiled", shape="TILE 16"))
    assert texts[0] == "tiled" and texts[1] == "64³  ·  TILE 16"
    assert f"global loads   {total.global_loads:,}" in texts
    assert f"multiply-adds  {total.fmas:,}" in texts
    assert f"global bytes   {total.global_bytes:,}" in texts
    reuse = reuse_factor(s, s.steps[last])
    assert reuse == 16 and "reuse: each loaded value used 16×" in texts
    naive = 2 * 16 * 16 * 64  # two loads per multiply-add of each of the block's 256 threads, over all of K
    assert f"naive kernel: {naive:,} global loads (16× more)" in texts
    assert texts[-2] == "thread (0, 0) → C[0][0]" and texts[-1] == "  = Σ over k < 64"


def test_compact_counters_tell_the_kernels_apart_in_fewer_words():
    s = block_schedule("gpu-tiled", Problem(64, 64, 64), 16, (0, 0))
    last = len(s.steps) - 1
    full = _texts(counter_lines(s, last, (0, 0), title="GPU shared-memory tiled"))
    compact = _texts(counter_lines(s, last, (0, 0), compact=True, title="GPU shared-memory tiled"))
    assert compact[0] == "gpu-tiled" and full[0] == "GPU shared-memory tiled"  # half a view: the name
    assert len(compact) < len(full) and not any(t.startswith(("global bytes", "thread (")) for t in compact)
    assert "reuse: 16× per loaded value" in compact and "naive kernel: 16× more loads" in compact


def test_the_first_step_has_no_reuse_yet_and_a_thread_outside_c_says_so():
    s = block_schedule("gpu-tiled", Problem(100, 70, 90), 32, (3, 2))  # the edge block
    texts = _texts(counter_lines(s, 0, (31, 31)))
    assert "reuse: nothing computed yet" in texts
    assert texts[-2:] == ["thread (31, 31) is outside C:", "  it only helps load (pads with 0)"]


def test_the_counters_speak_chinese_with_the_same_figures():
    s = block_schedule("gpu-tiled", Problem(64, 64, 64), 16, (0, 0))
    last = len(s.steps) - 1
    lines = counter_lines(s, last, (0, 0), compact=True, bank="bank 冲突：无")
    zh = _texts(lines, "zh")
    assert "这个线程块到目前为止：" in zh and "复用：每个读入的值用 16 次" in zh
    assert f"全局内存读取   {s.steps[last].total.global_loads:,}" in zh
    assert "bank 冲突：无" in zh  # a line its kind words (the renderer's) passes through as it is
    bold = [text for text, (_m, heavy) in zip(zh, lines) if heavy]
    assert bold == ["gpu-tiled", "这个线程块到目前为止：", "复用：每个读入的值用 16 次"]  # name, heading, reuse


def test_a_reuse_figure_is_whole_inside_a_block_and_a_tenth_at_its_edge():
    assert reuse_figure(16.0) == 16.0 and reuse_figure(15.98) == 16.0
    assert reuse_figure(7.14) == 7.1 and reuse_figure(82.44) == 82.4
