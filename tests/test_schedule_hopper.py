"""The Hopper kernel's schedule: three counts of the same traffic (closed form, schedule, a brute-force walk of
the kernel's own index arithmetic) agree, and the ring of stages behaves as the mbarriers allow."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gemmviz.core.kernels.hopper_model import WGMMA, wgmma_space
from gemmviz.core.kernels.model import ceil_div
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.schedule.block import STEP_KINDS, block_schedule, grid_totals
from gemmviz.core.schedule.kind_hopper import HOPPER_KINDS, SLOT_STATES, hopper_schedule

NAME = "gpu-wgmma-tf32"
V = VARIANTS[NAME]
CONFIGS = [
    dict(WGMMA),
    {**WGMMA, "BM": 128, "STAGES": 6, "CLUSTER": 2, "DEPTH": 0, "GROUP_M": 4},
    {**WGMMA, "BM": 192, "STAGES": 3, "CLUSTER": 2, "GROUP_M": 16},
]


def schedule_totals(problem: Problem, config) -> tuple[int, ...]:
    first = hopper_schedule(NAME, problem, (0, 0), config)
    gy, gx = first.grid
    total = None
    for by in range(gy):
        for bx in range(gx):
            t = hopper_schedule(NAME, problem, (by, bx), config).totals
            total = t if total is None else total + t
    return total


def model_tuple(t) -> tuple[int, ...]:
    return (t.global_loads, t.shared_loads, t.shared_stores, t.fmas_executed, t.global_stores)


def counters_tuple(c) -> tuple[int, ...]:
    return (c.global_loads, c.shared_loads, c.shared_stores, c.fmas, c.global_stores)


@settings(max_examples=40, deadline=None)
@given(m=st.integers(1, 600), n=st.integers(1, 600), k=st.integers(1, 200), which=st.integers(0, len(CONFIGS) - 1))
def test_schedule_sums_to_the_traffic_model(m, n, k, which):
    p, c = Problem(m, n, k), CONFIGS[which]
    assert counters_tuple(schedule_totals(p, c)) == model_tuple(V.traffic_model(p, config=c))


def test_grid_totals_use_the_registry_config():
    p = Problem(300, 260, 100)
    assert counters_tuple(grid_totals(NAME, p)) == model_tuple(V.traffic_model(p))


def perm_col(w, g, h):
    """The kernel's perm_col: the column of C (within a consumer's 64) that wgmma row 16w + g + 8h holds."""
    return 32 * (w >> 1) + 4 * (2 * (w & 1) + h + 4 * (g >> 2)) + (g & 3)


def swizzled_b_stage(bn: int) -> dict[int, tuple[int, int]]:
    """Byte offset in a stage's B tile -> (k, n): TMA writes BN/32 boxes of 32x32 with the 128-byte swizzle."""
    where = {}
    for j in range(bn // 32):
        for k in range(32):
            for n in range(32):
                where[j * 4096 + k * 128 + (((n >> 2) ^ (k & 7)) << 4) + (n & 3) * 4] = (k, 32 * j + n)
    return where


def walk(c, q: Problem) -> tuple[int, ...]:
    """Every block of the 1-D grid as the kernel numbers it (grouped order, clusters), every TMA box, every
    consumer thread's fragment loads and every epilogue store, with its own arithmetic."""
    bm, bn, cl, consumers = c["BM"], 64 * c["CONSUMERS"], c["CLUSTER"], c["CONSUMERS"]
    tiles_m, tiles_n = ceil_div(q.m, bm), ceil_div(q.n, cl * bn)
    kt = ceil_div(q.k, 32)
    a_hits, b_hits, c_hits = np.zeros((q.m, q.k), int), np.zeros((q.k, q.n), int), np.zeros((q.m, q.n), int)
    smem_b = swizzled_b_stage(bn)
    tid = np.arange(128)
    w, lane = tid >> 5, tid & 31
    g, t = lane >> 2, lane & 3
    offs = []
    for i in range(4):
        r, qcol = t + 4 * (i >> 1), perm_col(w, g, i & 1)
        offs.append((qcol >> 5) * 4096 + r * 128 + ((((qcol & 31) >> 2) ^ r) << 4 | ((qcol & 31) & 3) << 2))
    shared_loads = shared_stores = fmas = 0
    seen = set()
    for block in range(tiles_m * tiles_n * cl):
        rank, cluster_id = block % cl, block // cl
        per_group = c["GROUP_M"] * tiles_n
        first_m = cluster_id // per_group * c["GROUP_M"]
        rows = min(tiles_m - first_m, c["GROUP_M"])
        in_group = cluster_id % per_group
        tm, tn = first_m + in_group % rows, (in_group // rows) * cl + rank
        assert (tm, tn) not in seen
        seen.add((tm, tn))
        for kb in range(kt):
            y0 = tm * bm + rank * (bm // cl)  # this block's share of the A box (all of it without a cluster)
            a_hits[y0 : y0 + bm // cl, kb * 32 : kb * 32 + 32] += 1
            for j in range(bn // 32):
                b_hits[kb * 32 : kb * 32 + 32, tn * bn + 32 * j : tn * bn + 32 * j + 32] += 1
            shared_stores += 32 * (bm + bn)  # the whole A tile lands in every block of the cluster
            read = np.zeros((32, bn), int)
            for cons in range(consumers):
                for kk in range(4):
                    for i in range(4):
                        for off in (cons * 2 * 4096 + offs[i] + kk * 1024).tolist():
                            read[smem_b[off]] += 1
                shared_loads += bm * 32  # the A tile, read by this warpgroup's wgmma through the descriptor
                fmas += 4 * 64 * bm * 8  # four m64nBMk8
            assert (read == 1).all(), "the consumers' fragment loads read the B tile exactly once"
            shared_loads += read.sum()
        for cons in range(consumers):
            for j in range(bm // 8):
                for i in range(4):
                    m = tm * bm + 2 * t + 8 * j + (i & 1)
                    n = tn * bn + 64 * cons + perm_col(w, g, i >> 1)
                    ok = (m < q.m) & (n < q.n)
                    np.add.at(c_hits, (m[ok], n[ok]), 1)
    assert (a_hits == tiles_n).all() and (b_hits == tiles_m).all()  # A once per cluster column, B per block row
    assert (c_hits == 1).all(), "every element of C stored exactly once"
    return (int(a_hits.sum() + b_hits.sum()), shared_loads, shared_stores, fmas, int(c_hits.sum()))


@pytest.mark.parametrize("config", CONFIGS, ids=["default", "bm128-x2-d0", "bm192-x2"])
@pytest.mark.parametrize("problem", [Problem(300, 260, 100), Problem(37, 53, 71), Problem(513, 388, 36)])
def test_walk_of_the_kernel_matches_model_and_schedule(config, problem):
    q = V.run_problem(problem, config)
    walked = walk(config, q)
    assert walked == model_tuple(V.traffic_model(problem, config=config))
    assert walked == counters_tuple(schedule_totals(problem, config))


def test_the_ring_fills_runs_and_drains():
    s = block_schedule(NAME, Problem(512, 512, 512))  # 16 k-steps, 4 stages
    kinds = [x.kind for x in s.steps]
    assert kinds[:8] == ["wait_empty", "tma"] * 4 and not any(x.blocked for x in s.steps[:8])  # filling
    assert s.steps[8].kind == "wait_empty" and s.steps[8].blocked  # ring full: the producer sleeps
    assert kinds[-1] == "store" and len(s.steps) == 5 * 16 + 2
    in_use = [sum(slot.state != "empty" for slot in x.ring) for x in s.steps]
    assert max(in_use) == s.stages and in_use[-1] == 0
    drain = kinds.index("drain")
    assert "tma" not in kinds[drain:] and in_use[drain:] == sorted(in_use[drain:], reverse=True)  # draining
    last = s.steps[-1]
    assert last.full_phase == last.empty_phase == (4, 4, 4, 4)  # each stage used 16 / 4 times
    assert s.totals.barrier_waits == 16 + 4 + 2 * 16  # producer per k-step, its drain, each consumer warpgroup


def test_a_stage_is_refilled_only_after_its_release():
    s = block_schedule(NAME, Problem(256, 256, 640))
    released = set()
    for x in s.steps:
        assert all(slot.state in SLOT_STATES for slot in x.ring)
        if x.kind == "release":
            released.add(x.k_tile)
        if x.kind == "tma" and x.k_tile >= s.stages:
            assert x.k_tile - s.stages in released
        if x.kind == "wgmma":
            assert x.ring[x.stage].state == "consuming" and x.ring[x.stage].k_step == x.k_tile


def test_tma_is_one_whole_tile_copy_by_one_thread():
    s = block_schedule(NAME, Problem(300, 200, 50), block=(1, 1))  # the corner block: ragged on every side
    tma = [x for x in s.steps if x.kind == "tma"]
    assert all(x.actor == "producer" for x in tma) and len(tma) == 2
    assert tma[0].delta.shared_stores == 32 * (256 + 128)  # the whole boxes land, zero-filled outside
    assert tma[0].delta.global_loads == (300 - 256) * 32 + 32 * (200 - 128)
    assert "zero-filled" in tma[0].text and "expect_tx" in tma[0].text


def test_the_block_past_n_in_a_cluster_loads_its_share_of_a():
    c = {**WGMMA, "CLUSTER": 2}
    s = hopper_schedule(NAME, Problem(256, 100, 32), (0, 1), c)  # N fits in the first block of the pair
    tma = next(x for x in s.steps if x.kind == "tma")
    assert tma.delta.global_loads == 128 * 32 and tma.b.count == 0 and s.steps[-1].delta.global_stores == 0


def test_every_step_kind_has_its_line_in_the_kernel():
    lines = V.step_lines()
    assert set(lines) == set(HOPPER_KINDS) == set(STEP_KINDS["hopper"])
    source = V.source_text().splitlines()
    code = {
        "wait_empty": "mbar_wait(empty + 8 * s",
        "tma": "tma_load_2d(a_dst, &tmA",
        "wait_full": "mbar_wait(full + 8 * s",
        "wgmma": "WGMMA_RS(acc",
        "release": "mbar_arrive(empty + 8 * s)",
        "drain": "for (int j = it; j < it + STAGES",
        "store": "C[(size_t)m * N + n] = acc",
    }
    for kind, text in code.items():
        assert text in source[lines[kind] - 1], kind


def test_refusals():
    with pytest.raises(ProblemError, match="animation steps"):
        block_schedule(NAME, Problem(64, 64, 10**6))
    with pytest.raises(ProblemError, match="outside the grid"):
        block_schedule(NAME, Problem(256, 128, 64), block=(1, 0))


def test_every_config_of_the_tune_space_has_a_schedule():
    p = Problem(200, 300, 70)
    for c in wgmma_space()[::7]:
        assert counters_tuple(schedule_totals(p, c)) == model_tuple(V.traffic_model(p, config=c))


@pytest.mark.parametrize("consumers", [1, 2])
def test_the_consumer_captions_count_and_size_what_the_config_runs(consumers):
    c = {**WGMMA, "BM": 128, "CONSUMERS": consumers, "STAGES": 8}
    s = hopper_schedule(NAME, Problem(256, 256, 96), (0, 0), c)
    wait = next(x.text for x in s.steps if x.kind == "wait_full")
    if consumers == 1:
        assert wait.startswith("the consumer warpgroup,") and "warpgroups" not in wait
    else:
        assert wait.startswith("2 consumer warpgroups,")
    mma = next(x.text for x in s.steps if x.kind == "wgmma")
    assert f"its {s.bk}×64 slice" in mma and f"whole {s.bm}×{s.bk} A tile" in mma
    assert s.bn == 64 * consumers  # each consumer warpgroup owns 64 columns of the B tile
