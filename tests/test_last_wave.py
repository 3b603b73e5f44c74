"""The last wave of a block trace and its idle SM-time (core/hardware/last_wave.py) on synthetic traces whose
answers are known by hand, and the model's trace (core/hardware/model_trace.py) of gpu-cpasync-any's small-size
fix: its blocks, waves and idle share from the registry's own rules."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gemmviz.core.hardware.block_trace import TraceError, trace_summary
from gemmviz.core.hardware.last_wave import busy_sm_ns, idle_tails, last_wave
from gemmviz.core.hardware.model_trace import MAX_MODEL_BLOCKS, ModelLaunch, model_trace, small_size_fix
from gemmviz.core.kernels import cpasync_model as cm
from gemmviz.core.problem import Problem


def one_wave(blocks: int, length: int = 1000) -> list[list[int]]:
    """`blocks` equal blocks started together, one per SM."""
    return [[b, b, 0, length] for b in range(blocks)]


def test_a_partial_wave_leaves_the_unused_sms_idle():
    lw = last_wave(one_wave(64), sms=132, blocks_per_sm=2)
    assert (lw.blocks, lw.last_blocks, lw.last_sms, lw.slots) == (64, 64, 64, 264)
    assert lw.waves == pytest.approx(64 / 264)
    assert lw.idle_share == pytest.approx(68 / 132)  # 52%: 68 SMs idle the whole run
    assert lw.partial


def test_a_full_wave_leaves_nothing_idle():
    """The data that would contradict the measure: every SM busy the whole run gives 0 idle."""
    lw = last_wave(one_wave(132), sms=132, blocks_per_sm=1)
    assert lw.idle_share == 0.0 and lw.last_sms == 132 and lw.waves == 1.0 and not lw.partial
    assert len(idle_tails(one_wave(132), 132)) == 0


def test_two_blocks_on_one_sm_count_once_and_a_gap_counts_idle():
    trace = [[0, 0, 0, 10], [1, 0, 5, 20], [2, 0, 30, 40], [3, 1, 0, 40]]
    assert busy_sm_ns(trace) == 20 + 10 + 40  # SM 0: [0, 20] and [30, 40]; SM 1: [0, 40]
    lw = last_wave(trace, sms=2)
    assert lw.idle_share == pytest.approx(10 / 80)


def test_the_last_wave_is_what_is_left_after_whole_waves():
    """Three waves of 4 slots with 2 blocks in the last: 10 blocks, the last 2 to start on 2 of 4 SMs."""
    trace = [[b, b % 4, (b // 4) * 100, (b // 4) * 100 + 100] for b in range(10)]
    lw = last_wave(trace, sms=4, blocks_per_sm=1)
    assert (lw.last_blocks, lw.last_sms, lw.last_start_ns) == (2, 2, 200)
    assert lw.waves == pytest.approx(2.5)
    assert lw.idle_share == pytest.approx(2 * 100 / (4 * 300))
    tails = idle_tails(trace, 4)
    assert tails.tolist() == [[2, 200, 300], [3, 200, 300]]


def test_without_the_occupancy_the_trace_gives_its_own():
    """64 blocks one per SM: the trace shows one block per SM, so 0.48 of a wave of 132 (the gap view's figure)."""
    lw = last_wave(one_wave(64), sms=132)
    assert lw.slots == 132 and lw.waves == pytest.approx(64 / 132)
    stacked = [[b, b // 2, 0, 100] for b in range(8)]  # 2 at once on each of 4 SMs of 8
    assert last_wave(stacked, sms=8).slots == 16


def test_an_sm_the_trace_never_names_is_idle_when_the_gpu_has_it():
    assert last_wave(one_wave(4), sms=8).idle_share == pytest.approx(0.5)
    assert last_wave(one_wave(4)).idle_share == 0.0  # the trace alone knows 4 SMs
    with pytest.raises(TraceError):
        last_wave([])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 500), st.integers(1, 300)), min_size=1, max_size=40))
def test_busy_time_is_the_union_of_each_sms_blocks(rows):
    """Against a brute-force count on a 1 ns grid."""
    trace = [[i, sm, start, start + length] for i, (sm, start, length) in enumerate(rows)]
    end = max(r[3] for r in trace)
    grid = np.zeros((8, end + 1), bool)
    for _b, sm, s, e in trace:
        grid[sm, s:e] = True
    assert busy_sm_ns(trace) == int(grid.sum())
    lw = last_wave(trace, sms=8)
    if end:
        assert lw.idle_share == pytest.approx(1 - grid[:, :end].sum() / (8 * end))
    assert 0.0 <= lw.idle_share <= 1.0


def test_idle_share_agrees_with_the_summarys_tail_on_a_single_partial_wave():
    trace = one_wave(64)
    assert trace_summary(trace).sms_used == last_wave(trace, 132).last_sms == 64


# ---- the model ---------------------------------------------------------------------------------------------
def test_the_small_size_pair_at_1024_from_the_registry():
    p = Problem(1024, 1024, 1024)
    before, fix, streamk = small_size_fix(p)
    assert (before.config["BM"], before.config["BN"]) == (cm.ANY_CONFIG["BM"], cm.ANY_CONFIG["BN"])
    assert fix.config == {k: v for k, v in cm.any_fit(p, cm.ANY_CONFIG)[0].items() if k != "SCHED"}
    for case in (before, fix, streamk):
        trace = model_trace(case.launch)
        assert len(trace) == case.launch.grid
        assert sorted(r[0] for r in trace) == list(range(case.launch.grid))  # every block once
        assert max(r[1] for r in trace) < 132
    tiles = (1024 // 128) ** 2
    assert before.launch.grid == tiles  # one block per tile: 64
    lw = last_wave(model_trace(before.launch), 132, before.launch.blocks_per_sm)
    assert (lw.last_blocks, lw.last_sms) == (64, 64) and lw.idle_share == pytest.approx(68 / 132)
    assert fix.launch.grid == (1024 // 64) ** 2 * cm.any_splits(p, fix.config)
    after = last_wave(model_trace(fix.launch), 132, fix.launch.blocks_per_sm)
    assert after.last_sms == 132 and after.idle_share < 0.05 and after.waves <= 1
    assert streamk.launch.grid == 132 * cm.blocks_per_sm(streamk.config)
    sk = last_wave(model_trace(streamk.launch), 132, streamk.launch.blocks_per_sm)
    assert sk.waves == 1.0 and sk.idle_share < 0.05


def test_stream_k_gives_every_block_an_even_share():
    launch = ModelLaunch(tiles=256, ktiles=64, blocks_per_sm=4, sms=132, stream_k=True)
    shares = launch.block_kslices()
    assert sum(shares) == 256 * 64 and max(shares) - min(shares) <= 1


def test_split_k_covers_every_k_slice_once_and_waves_follow_the_slots():
    launch = ModelLaunch(tiles=10, ktiles=7, blocks_per_sm=1, sms=4, split=3)
    assert sum(launch.block_kslices()) == 10 * 7 and launch.grid == 30
    trace = model_trace(launch)
    lw = last_wave(trace, 4, 1)
    assert lw.waves == pytest.approx(7.5) and lw.last_blocks == 2


def test_the_model_refuses_what_it_cannot_trace():
    with pytest.raises(ValueError):
        model_trace(ModelLaunch(tiles=0, ktiles=1, blocks_per_sm=1, sms=1))
    with pytest.raises(ValueError):
        model_trace(ModelLaunch(tiles=MAX_MODEL_BLOCKS + 1, ktiles=1, blocks_per_sm=1, sms=1))


def test_the_model_shares_an_sm_among_the_blocks_it_holds():
    """A lone block has its SM's whole rate; an SM holding 3 blocks of 4 slots ends a quarter sooner than one
    holding 4, and sits idle for that quarter: 512 equal blocks on 132 SMs of 4 slots leave 16 SMs with 3."""
    alone = ModelLaunch(tiles=2, ktiles=10, blocks_per_sm=2, sms=4, kslice_fmas=1000)
    trace = model_trace(alone, sm_fma_per_ns=100.0)
    assert [r[3] - r[2] for r in trace] == [100, 100] and {r[1] for r in trace} == {0, 1}
    packed = ModelLaunch(tiles=512, ktiles=8, blocks_per_sm=4, sms=132, kslice_fmas=1000)
    lw = last_wave(model_trace(packed, sm_fma_per_ns=100.0), 132, 4)
    assert lw.idle_share == pytest.approx(16 * 0.25 / 132, abs=1e-3)


def test_busiest_first_makes_the_used_sms_one_band_and_keeps_every_sum():
    from gemmviz.core.hardware.last_wave import busiest_first

    # 4 blocks on every other SM of 8 (one per TPC), as the H100 placed 64 blocks on 132 SMs
    trace = np.array([[0, 0, 0, 100], [1, 2, 0, 90], [2, 4, 0, 100], [3, 6, 0, 80], [4, 7, 0, 10]])
    t = busiest_first(trace)
    assert sorted(t[:, 1]) == [0, 1, 2, 3, 4]  # five SMs used: rows 0 to 4, the idle ones above
    assert [int(x) for x in t[np.argsort(t[:, 0]), 1]] == [0, 2, 1, 3, 4]  # by busy time; a tie by SM number
    assert (t[:, [0, 2, 3]] == trace[:, [0, 2, 3]]).all()  # blocks and times as they were
    assert last_wave(t, 8).idle_share == pytest.approx(last_wave(trace, 8).idle_share)
