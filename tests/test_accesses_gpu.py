"""The access tracer on a real GPU (issue 25): run on the GPU machine with `python3 -m pytest -m gpu
tests/test_accesses_gpu.py`. `gemmviz profile --accesses` runs each kernel once under the compute-sanitizer
tracer and once under Nsight Compute; these tests hold the records to the schedule model and to ncu."""

import pytest

from gemmviz.cli.main import main
from gemmviz.core.hardware.accesses import beside_ncu, element_counts, load_file
from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import block_schedule

pytestmark = pytest.mark.gpu


def profile(tmp_path, name, variants, size, *extra):
    out = tmp_path / f"{name}.json"
    code = main(
        [
            "profile",
            "--variants",
            variants,
            "--sizes",
            str(size),
            "--repeats",
            "2",
            "--warmup",
            "0",
            "--quiet",
            "--duration-only",
            "--accesses",
            "--out",
            str(out),
            *extra,
        ]
    )
    records = load_file(tmp_path / f"{name}.accesses.json.gz")
    return code, {(t.variant, tuple(sorted(t.params.items()))): t for t in records.traces}


@pytest.fixture(scope="module")
def ragged(tmp_path_factory):
    """250^3: the edge block of a 16-wide tile is cut (250 = 15 x 16 + 10)."""
    return profile(tmp_path_factory.mktemp("ragged"), "r", "gpu-naive,gpu-tiled", 250, "--block", "16", "--tile", "16")


@pytest.fixture(scope="module")
def square(tmp_path_factory):
    return profile(
        tmp_path_factory.mktemp("square"),
        "s",
        "gpu-naive,gpu-uncoalesced,gpu-tiled,gpu-tiled-pad",
        256,
        "--tile",
        "16,32",
    )


@pytest.mark.parametrize("variant,param", [("gpu-naive", ("block", 16)), ("gpu-tiled", ("tile", 16))])
def test_recorded_counts_equal_the_schedule_model_per_block(ragged, variant, param):
    code, traces = ragged
    assert code == 0
    trace = traces[(variant, (param,))]
    assert not trace.truncated and len(trace.blocks) == 2
    assert trace.blocks[1] != trace.blocks[0]  # an interior block and the (cut) edge block
    for slot, (bx, by, _bz) in enumerate(trace.blocks):
        model = block_schedule(variant, Problem(250, 250, 250), param[1], (by, bx)).totals
        recorded = element_counts(trace.summary[slot])
        assert recorded == {
            "global_loads": model.global_loads,
            "global_stores": model.global_stores,
            "shared_loads": model.shared_loads,
            "shared_stores": model.shared_stores,
        }


@pytest.mark.parametrize(
    "variant,params",
    [
        ("gpu-naive", (("block", 16),)),
        ("gpu-uncoalesced", (("block", 32),)),
        ("gpu-tiled", (("tile", 16),)),
        ("gpu-tiled", (("tile", 32),)),
    ],
)
def test_recorded_sectors_match_ncu_within_the_sampled_share(square, variant, params):
    """At 256^3 every block does the same work, so the traced blocks' mean times the grid is the kernel's total."""
    _code, traces = square
    rows = {r.key: r for r in beside_ncu(traces[(variant, params)])}
    for key in ("global_ld_sectors", "global_ld_requests", "global_st_sectors"):
        assert rows[key].ncu, f"ncu gave no {rows[key].metric}"
        assert rows[key].ratio == pytest.approx(1.0, rel=0.01), key


def test_uncoalesced_touches_many_more_sectors_per_request_than_naive(square):
    _code, traces = square
    naive = traces[("gpu-naive", (("block", 16),))].summary[0]
    bad = traces[("gpu-uncoalesced", (("block", 32),))].summary[0]
    per = lambda s: s["global_ld_sectors"] / s["global_ld_requests"]  # noqa: E731
    assert per(bad) > 4 * per(naive)


@pytest.mark.parametrize("tile", [16, 32])
def test_padding_shows_the_bank_conflicts_ncu_counts(square, tile):
    """Loads: wavefronts as ncu counts them, no conflicts in the addresses (ncu's own stay under 0.1%). Stores:
    ncu counts what the addresses give, plus some it attributes to other warps' traffic (under 0.3 a store)."""
    _code, traces = square
    for variant in ("gpu-tiled", "gpu-tiled-pad"):
        rows = {r.key: r for r in beside_ncu(traces[(variant, (("tile", tile),))])}
        assert rows["shared_ld_wavefronts"].ratio == pytest.approx(1.0, rel=2e-3), variant
        assert rows["shared_ld_conflicts"].recorded == 0
        assert (rows["shared_ld_conflicts"].ncu or 0) < 1e-3 * rows["shared_ld_wavefronts"].ncu
        st, stores = rows["shared_st_conflicts"], rows["shared_st_requests"].ncu
        assert st.estimate <= (st.ncu or 0) * 1.001 + 1 <= st.estimate + 0.3 * stores + 1, variant
    pad = {r.key: r for r in beside_ncu(traces[("gpu-tiled-pad", (("tile", tile),))])}
    expected = pad["shared_st_requests"].recorded if tile == 16 else 0  # TILE 16 + PAD 1: 2-way on every store
    assert pad["shared_st_conflicts"].recorded == expected
