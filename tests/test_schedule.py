import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gemmviz.core.kernels.model import naive_traffic, tiled_traffic
from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.schedule.block import STEP_KINDS, block_schedule, grid_totals, reuse_factor


@settings(max_examples=80, deadline=None)
@given(m=st.integers(1, 80), n=st.integers(1, 80), k=st.integers(1, 80), tile=st.sampled_from([8, 16, 32]))
def test_tiled_schedule_sums_to_the_formula(m, n, k, tile):
    p = Problem(m, n, k)
    t = grid_totals("gpu-tiled", p, tile)
    f = tiled_traffic(p, tile)
    assert t.global_loads == f.global_loads
    assert t.global_stores == f.global_stores
    assert t.shared_loads == f.shared_loads
    assert t.shared_stores == f.shared_stores
    assert t.fmas == f.fmas_executed


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 70), n=st.integers(1, 70), k=st.integers(1, 70), block=st.sampled_from([8, 16, 32]))
def test_naive_schedule_sums_to_the_formula(m, n, k, block):
    p = Problem(m, n, k)
    t = grid_totals("gpu-naive", p, block)
    f = naive_traffic(p)
    assert (t.global_loads, t.global_stores, t.fmas) == (f.global_loads, f.global_stores, f.fmas_executed)


def test_tiled_block_steps_follow_the_kernel():
    s = block_schedule("gpu-tiled", Problem(64, 64, 64), 16, (1, 2))
    assert [st.kind for st in s.steps[:5]] == ["load", "sync", "compute", "sync2", "load"]
    assert s.steps[-1].kind == "store" and len(s.steps) == 4 * 4 + 1
    first = s.steps[0]
    assert (first.a.r0, first.a.r1, first.a.c0, first.a.c1) == (16, 32, 0, 16)
    assert (first.b.r0, first.b.r1, first.b.c0, first.b.c1) == (0, 16, 32, 48)
    assert first.delta.global_loads == 512
    assert reuse_factor(s, s.steps[-1]) == 16  # each global value used TILE times


def test_edge_block_counts_padding_as_no_load():
    s = block_schedule("gpu-tiled", Problem(17, 17, 17), 16, (1, 1))
    loads = [st.delta.global_loads for st in s.steps if st.kind == "load"]
    assert loads == [16 + 16, 1 + 1]  # one valid row/column in the edge block
    assert "zero-padded" in s.steps[0].text


def test_tile_larger_than_matrix_works():
    s = block_schedule("gpu-tiled", Problem(3, 5, 7), 32)
    assert s.grid == (1, 1) and s.totals.global_loads == 3 * 7 + 7 * 5


@pytest.mark.parametrize(
    "args, message",
    [
        (("gpu-tiled", Problem(8, 8, 8), 0), "not supported"),
        (("gpu-tiled", Problem(8, 8, 8), 12), "not supported"),
        (("cublas", Problem(8, 8, 8), 16), "no animation"),
    ],
)
def test_bad_animation_input(args, message):
    with pytest.raises(ProblemError, match=message):
        block_schedule(*args)


def test_absurd_sizes_are_refused_with_a_reason():
    with pytest.raises(ProblemError, match="animation steps"):
        block_schedule("gpu-tiled", Problem(16, 16, 10**9), 16)
    s = block_schedule("gpu-tiled", Problem(10**6, 10**6, 64), 16, (62_499, 62_499))  # a huge grid is fine
    assert s.grid == (62_500, 62_500) and len(s.steps) == 17


def test_block_outside_grid():
    with pytest.raises(ProblemError, match="outside the grid"):
        block_schedule("gpu-tiled", Problem(16, 16, 16), 16, (1, 0))


@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 300), n=st.integers(1, 300), k=st.integers(1, 40))
def test_blocktile2d_schedule_sums_to_its_model(m, n, k):
    from gemmviz.core.kernels.variants import VARIANTS

    v = VARIANTS["gpu-blocktile2d"]
    p = Problem(m, n, k)
    t = grid_totals("gpu-blocktile2d", p)
    f = v.traffic_model(p)
    assert (t.global_loads, t.global_stores, t.shared_loads, t.shared_stores, t.fmas) == (
        f.global_loads,
        f.global_stores,
        f.shared_loads,
        f.shared_stores,
        f.fmas_executed,
    )


def test_blocktile2d_has_a_register_tile_per_thread():
    s = block_schedule("gpu-blocktile2d", Problem(256, 256, 16), None, (1, 0))
    assert s.thread_dims == (16, 16) and (s.tm, s.tn) == (8, 8)
    compute = next(st for st in s.steps if st.kind == "compute")
    assert compute.delta.fmas == 256 * 8 * 64 and compute.delta.shared_loads == 256 * 8 * 16
    assert "register" in compute.text
    padded = block_schedule("gpu-blocktile2d", Problem(100, 100, 10))
    assert padded.run_problem == Problem(128, 128, 16) and "zero-padded" in padded.steps[0].text


def test_every_animated_variant_comes_from_the_registry():
    from gemmviz.core.schedule.block import animated_variants

    names = set(animated_variants())
    assert {"gpu-naive", "gpu-tiled", "gpu-blocktile2d"} <= names
    for name, v in animated_variants().items():
        lines = v.step_lines()
        assert set(lines) == set(STEP_KINDS[v.schedule_kind]), name  # every step kind has exactly one anchor
        kinds = {
            st.kind for st in block_schedule(name, Problem(40, 40, 40), v.param_defaults.get(v.schedule_param)).steps
        }
        assert kinds == set(lines)


@pytest.mark.parametrize(
    "variant, kind, code",
    [
        ("gpu-tiled", "load", "tile_A[threadIdx.y][threadIdx.x] ="),
        ("gpu-tiled", "compute", "sum += tile_A[threadIdx.y][k] * tile_B[k][threadIdx.x]"),
        ("gpu-tiled", "store", "C[row * N + col] = sum"),
        ("gpu-naive", "read", "sum += A[row * K + k] * B[k * N + col]"),
        ("gpu-blocktile2d", "load", "for (int off = 0; off < BM; off += strideA)"),
        ("gpu-blocktile2d", "compute", "acc[m * TN + n] += regM[m] * regN[n]"),
        ("gpu-blocktile2d", "sync2", "__syncthreads()"),
    ],
)
def test_each_step_shows_its_own_line_of_the_kernel(variant, kind, code):
    from gemmviz.core.kernels.variants import VARIANTS

    lines = VARIANTS[variant].step_lines()
    text = VARIANTS[variant].source_text().splitlines()[lines[kind] - 1]
    assert code in text and not text.lstrip().startswith("//")  # code, not the header comment
    assert "no-such-step" not in lines


def test_a_kernel_with_two_anchors_for_one_step_is_refused(monkeypatch):
    from dataclasses import replace

    from gemmviz.core import paths
    from gemmviz.core.kernels.variants import VARIANTS

    text = "x = 1;  // gemmviz:step load\ny = 2;  // gemmviz:step load\n"
    monkeypatch.setattr(paths, "kernel_source", lambda name: text)
    with pytest.raises(ValueError, match="two anchors for step 'load'"):
        replace(VARIANTS["gpu-tiled"]).step_lines()


def test_every_variants_schedule_kind_resolves_in_a_fresh_process_with_only_core_imported():
    """The registry loads its shipped kinds (core/schedule/kind_*.py) itself: no earlier import of
    core/schedule/block.py or of a kind's module is needed, and nothing outside core is loaded."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from gemmviz.core.schedule.kinds import kind_names, schedule_kind\n"
        "from gemmviz.core.kernels.variants import VARIANTS\n"
        "names = [v.schedule_kind for v in VARIANTS.values() if v.schedule_kind]\n"
        "print(' '.join(schedule_kind(n).name for n in names))\n"
        "print(' '.join(sorted(kind_names())))\n"
        "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('gemmviz.') and m.count('.') > 1}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    resolved, listed, packages = proc.stdout.splitlines()
    from gemmviz.core.kernels.variants import VARIANTS

    wanted = [v.schedule_kind for v in VARIANTS.values() if v.schedule_kind]
    assert resolved.split() == wanted and {"naive", "tiled", "blocktile2d", "hopper"} <= set(wanted)
    assert set(wanted) <= set(listed.split())
    assert packages == "['core']"


@pytest.mark.parametrize(("variant", "per_slice"), [("gpu-naive", 1), ("gpu-tiled", 4)])
def test_too_many_steps_names_the_largest_k_from_the_kinds_own_steps_per_slice(variant, per_slice):
    """The refusal's "K up to" is the largest K the animation shows: it builds, one tile more is refused."""
    import re

    from gemmviz.core.schedule.block import MAX_STEPS, kind_of

    assert len(kind_of(variant).step_kinds) - 1 == per_slice
    tile = 16
    too_long = (MAX_STEPS // per_slice + 1) * tile
    with pytest.raises(ProblemError, match="animation steps per block") as refused:
        block_schedule(variant, Problem(16, 16, too_long), tile)
    largest = int(re.search(r"K up to ([\d,]+)", str(refused.value)).group(1).replace(",", ""))
    assert largest == (MAX_STEPS - 1) // per_slice * tile
    assert len(block_schedule(variant, Problem(16, 16, largest), tile).steps) <= MAX_STEPS
    with pytest.raises(ProblemError, match="animation steps per block"):
        block_schedule(variant, Problem(16, 16, largest + tile), tile)
