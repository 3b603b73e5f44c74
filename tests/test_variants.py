import re

import pytest

from gemmviz.core.kernels.variants import (
    BASELINES,
    VARIANTS,
    baseline,
    default_variants,
    get_variant,
    tunable_variants,
)
from gemmviz.core.problem import Problem
from tests.checks.variants import variant_is_complete


def test_registry_has_the_seed_variants():
    assert {"cpu-naive", "cpu-blas", "gpu-naive", "gpu-tiled", "cublas", "cublas-tf32"} <= set(VARIANTS)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_variant_is_complete(name):
    variant_is_complete(VARIANTS[name])


def test_defaults_are_the_seed_story_and_come_from_the_registry():
    assert default_variants() == ["cpu-blas", "gpu-naive", "gpu-tiled", "cublas"]
    assert all(VARIANTS[v].default for v in default_variants())


def test_baselines_name_real_variants_and_params():
    assert [b.key for b in BASELINES][:3] == ["cpu-naive", "gpu-naive", "cublas"]
    for b in BASELINES:
        v = get_variant(b.variant)
        assert b.label and set(b.params) <= set(v.param_choices)
        assert v.refusal(Problem(64, 64, 64), v.resolve_params(b.params)) is None
    naive = baseline("gpu-naive")
    assert dict(naive.params) == {"block": 16} == get_variant("gpu-naive").param_defaults  # the seed's 16x16
    with pytest.raises(KeyError, match="cpu-naive"):
        baseline("gpu-magic")


def test_tunable_variants_include_the_tensor_core_kernels():
    names = tunable_variants()
    assert {"gpu-vectorize", "gpu-warptile", "gpu-wmma-tf32", "gpu-mma-tf32"} <= set(names)
    assert "gpu-tiled" not in names and all(VARIANTS[n].tune_space for n in names)


def test_shared_arrays_are_named_as_in_the_kernel():
    for v in VARIANTS.values():
        for name in v.shared_names:
            assert re.search(rf"\b{name}\b\s*(\[|=)", v.source_text()), (v.name, name)
    assert get_variant("gpu-blocktile2d").shared_names == ("As", "Bs")
    assert get_variant("gpu-tiled").shared_names == ("tile_A", "tile_B")


def test_unsupported_tile_is_refused_with_reason():
    v = get_variant("gpu-tiled")
    reason = v.refusal(Problem(64, 64, 64), v.resolve_params({"tile": 12}))
    assert "tile 12 is not supported" in reason and "8, 16, 32" in reason


def test_tile_larger_than_matrix_is_fine():
    v = get_variant("gpu-tiled")
    assert v.refusal(Problem(3, 5, 7), {"tile": 32}) is None


def test_32bit_index_limit_is_refused():
    v = get_variant("gpu-naive")
    assert "32-bit" in v.refusal(Problem(50_000, 50_000, 8), v.resolve_params())


def test_32bit_limit_checks_the_padded_problem_of_kernels_that_pad():
    v = get_variant("gpu-blocktile2d")  # pads M, N to multiples of 128
    p = Problem(46_340, 46_340, 8)  # 46340^2 < 2^31, but the padded 46464^2 is not
    assert p.max_matrix_elements <= 2**31 - 1
    reason = v.refusal(p, v.resolve_params())
    assert "32-bit" in reason and "zero-padded to 46464×46464×8" in reason
    assert get_variant("gpu-tiled").refusal(p, {"tile": 16}) is None  # no padding: it fits


def test_unknown_variant_names_the_known_ones():
    with pytest.raises(KeyError, match="gpu-tiled"):
        get_variant("gpu-magic")


def test_macros_become_nvcc_defines():
    v = get_variant("gpu-tiled")
    assert v.macro_options({"tile": 32}) == ["-DTILE=32"]


def test_tune_spaces_are_a_few_hundred_valid_configs():
    from gemmviz.core.kernels.variants import vectorize_space, warptile_space

    w = warptile_space()
    assert 50 <= len(w) <= 1000 and VARIANTS["gpu-warptile"].config in w
    v = vectorize_space()
    assert 20 <= len(v) <= 1000 and VARIANTS["gpu-vectorize"].config in v


def test_padded_kernels_say_what_they_run():
    v = VARIANTS["gpu-warptile"]
    assert v.run_problem(Problem(1000, 1000, 1000)) == Problem(1024, 1024, 1008)
    assert v.run_problem(Problem(4096, 4096, 4096)) == Problem(4096, 4096, 4096)


def test_hopper_entry_matches_the_launcher_and_the_kernel():
    from gemmviz.backends.wgmma import WgmmaConfig
    from gemmviz.core.kernels.hopper_model import wgmma_smem_bytes

    v = get_variant("gpu-wgmma-tf32")
    launcher = WgmmaConfig().macros()
    assert dict(v.config) == {key: launcher[key] for key in v.config}  # the defaults are written twice
    assert wgmma_smem_bytes(v.config) == WgmmaConfig().smem_bytes
    assert (v.runner, v.precision, v.schedule_kind, v.requires_cc) == ("wgmma-tma", "tf32", "hopper", (9, 0))
    for macro in v.config:
        assert f"#define {macro} " in v.source_text()
    grid, block = v.geometry(Problem(1000, 300, 64), {}, v.config)
    assert grid[0] == WgmmaConfig().grid(1000, 300, 64) and block[0] == WgmmaConfig().threads


def test_hopper_runs_persistent_clusters_in_hilbert_order_past_one_wave():
    from gemmviz.backends.wgmma import WgmmaConfig, config_from_macros, hilbert_order
    from gemmviz.core.kernels.hopper_model import PERSIST_SMS, WGMMA, wgmma_fit, wgmma_geometry

    big = wgmma_fit(Problem(8192, 8192, 8192), WGMMA)  # 32 × 32 pairs of 256 × 128 tiles
    assert (big["BM"], big["CLUSTER"], big["PERSIST"], big["ORDER"]) == (256, 2, 1, 1)
    grid, _block = wgmma_geometry(Problem(8192, 8192, 8192), {}, big)
    assert grid[0] == PERSIST_SMS == config_from_macros(big).grid(8192, 8192, 8192)
    odd = wgmma_fit(Problem(2000, 3000, 1000), WGMMA)  # 192-row tiles (256 fill 1.45 waves, 192 two), persistent
    assert (odd["BM"], odd["STAGES"], odd["CLUSTER"], odd["PERSIST"], odd["ORDER"]) == (192, 5, 2, 1, 1)
    mid = wgmma_fit(Problem(1536, 1536, 1536), WGMMA)  # 192 rows would fill 0.73 of a wave: 128 rows, grouped
    assert (mid["BM"], mid["CONSUMERS"], mid["PERSIST"], mid["ORDER"]) == (128, 2, 1, 0)
    for one_wave in (Problem(2048, 2048, 2048), Problem(1000, 1000, 1000)):
        assert "PERSIST" not in wgmma_fit(one_wave, WGMMA)  # 128 tiles or fewer: the grid is already one wave
    for small in (Problem(1000, 1000, 1000), Problem(1024, 1024, 1024)):  # 64 tiles of 128×128, 128 of 128×64
        narrow = wgmma_fit(small, WGMMA)
        assert (narrow["BM"], narrow["CONSUMERS"], narrow["STAGES"], narrow["CLUSTER"]) == (128, 1, 8, 1)
    tiny = wgmma_fit(Problem(512, 512, 512), WGMMA)  # 32 tiles of 128×64 fill a quarter of a wave: 128×128
    assert (tiny["BM"], tiny["CONSUMERS"]) == (128, 2)
    assert "PERSIST" not in wgmma_fit(Problem(8192, 8192, 8192), {**WGMMA, "SPLITS": 2})  # split-K is not persistent
    small = {**big, "BM": 128}
    assert wgmma_geometry(Problem(300, 500, 64), {}, small)[0][0] == 3 * 2 * 2  # fewer tiles than SMs: one each
    for rows, cols in ((32, 32), (5, 7), (16, 24), (1, 3)):
        cells = [(v >> 16, v & 0xFFFF) for v in hilbert_order(rows, cols)]
        assert sorted(cells) == [(r, c) for r in range(rows) for c in range(cols)]  # every tile once
    square = [(v >> 16, v & 0xFFFF) for v in hilbert_order(32, 32)]
    assert all(abs(a - c) + abs(b - d) == 1 for (a, b), (c, d) in zip(square, square[1:], strict=False))
    with pytest.raises(ValueError):
        WgmmaConfig(persist=1, splits=2)


def test_hopper_tune_space_fits_shared_memory():
    from gemmviz.backends.wgmma import WgmmaConfig

    space = get_variant("gpu-wgmma-tf32").tune_space()
    assert get_variant("gpu-wgmma-tf32").config in space
    most = {bm: max(c["STAGES"] for c in space if c["BM"] == bm) for bm in (128, 192, 256)}
    assert most == {128: 6, 192: 5, 256: 4}
    for c in space:  # every configuration is one the launcher accepts, with the same shared-memory size
        cfg = WgmmaConfig(
            bm=c["BM"],
            consumers=c["CONSUMERS"],
            stages=c["STAGES"],
            group_m=c["GROUP_M"],
            b_regs=bool(c["B_REGS"]),
            depth=c["DEPTH"],
            cluster=c["CLUSTER"],
        )
        assert cfg.macros()["STAGES"] == c["STAGES"]
    assert {c["CLUSTER"] for c in space} == {1, 2} and {c["GROUP_M"] for c in space} == {4, 8, 16}


def test_hopper_pads_nothing():
    v = get_variant("gpu-wgmma-tf32")
    # TMA's 16-byte row pitches: the launcher copies A (K % 4) or B (N % 4) into padded rows, not the engine
    assert v.run_problem(Problem(37, 53, 71)) == Problem(37, 53, 71)
    assert v.run_problem(Problem(1000, 1000, 1000)) == Problem(1000, 1000, 1000)  # ragged tiles: TMA zero-fill
    assert v.refusal(Problem(37, 53, 71), v.resolve_params()) is None


def test_only_a_hopper_gpu_runs_the_hopper_kernel():
    v = get_variant("gpu-wgmma-tf32")
    assert v.unavailable((9, 0)) is None
    assert v.unavailable((8, 6)).startswith("unavailable: needs Hopper (sm_90)")
    assert "sm_100" in v.unavailable((10, 0))  # sm_90a code runs on sm_90 only
    assert get_variant("gpu-mma-tf32").unavailable((8, 6)) is None


def test_hopper_traffic_at_4096_is_what_ncu_measured():
    """docs/wgmma-notes.md: 3.21 GB of L2 traffic at 4096^3 (x1); the model's loads + stores are 3.29 GB."""
    t = get_variant("gpu-wgmma-tf32").traffic_model(Problem(4096, 4096, 4096))
    assert t.global_loads == 16 * 4096 * 4096 + 32 * 4096 * 4096  # A once per column of 128, B once per row of 256
    assert 3.2e9 < t.global_bytes < 3.3e9


def test_every_wgmma_fit_is_a_config_the_launcher_takes_and_a_session_reads_back():
    """Whatever wgmma_fit picks at any size is a WgmmaConfig the launcher accepts (shared memory, threads), its
    values are ones a session file may hold (WGMMA_FIT_VALUES, core/session/bounds), and its note names the
    tiles it runs and why."""
    from gemmviz.backends.wgmma import config_from_macros
    from gemmviz.core.kernels.hopper_model import (
        SMEM_LIMIT,
        WGMMA,
        WGMMA_FIT_VALUES,
        wgmma_bn,
        wgmma_fit,
        wgmma_fit_note,
        wgmma_smem_bytes,
    )

    space = get_variant("gpu-wgmma-tf32").tune_space()
    for n in (17, 64, 500, 512, 1000, 1024, 1536, 2000, 2048, 3000, 4096, 6144, 8192):
        for p in (Problem(n, n, n), Problem(n, 3 * n // 2, n // 2 or 1)):
            for start in (WGMMA, {**WGMMA, "CLUSTER": 2}):
                fit = wgmma_fit(p, start)
                config_from_macros(fit).grid(p.m, p.n, p.k)  # the launcher takes it
                assert wgmma_smem_bytes(fit) <= SMEM_LIMIT
                for key, value in fit.items():
                    assert value in WGMMA_FIT_VALUES.get(key, ()) or any(c.get(key) == value for c in space), key
                note = wgmma_fit_note(p, start, fit)
                if fit["BM"] != start["BM"]:
                    assert f"{fit['BM']}×{wgmma_bn(fit)} tiles" in note and "under 80%" in note


def test_the_fit_runs_the_grid_it_counted():
    """A grid of one wave of real tiles stays one wave (a 2-block cluster's padding column must not make it
    persistent and two rounds: 1536×704 in 128×64 tiles is 132 tiles); the 192-row choice is judged on the
    persistent clustered grid it runs (4608×1408: 264 tiles counted without clusters, 288 with them, 0.73 of its
    waves: not taken)."""
    from gemmviz.core.kernels.hopper_model import PERSIST_SMS, WAVE_FILL, WGMMA, wave_fill, wgmma_fit, wgmma_tiles

    for m in range(64, 4097, 64):
        for n in range(64, 4097, 64):
            p = Problem(m, n, 512)
            fit = wgmma_fit(p, WGMMA)
            real_rows, real_cols = wgmma_tiles(p, {**fit, "CLUSTER": 1})
            if real_rows * real_cols <= PERSIST_SMS:
                assert not fit.get("PERSIST"), (m, n, fit)
            if fit["BM"] == 192:
                rows, cols = wgmma_tiles(p, fit)
                assert fit["PERSIST"] and wave_fill(rows * cols) >= WAVE_FILL, (m, n, fit)
    narrow = wgmma_fit(Problem(1536, 704, 1024), WGMMA)
    assert (narrow["CONSUMERS"], narrow["CLUSTER"], "PERSIST" in narrow) == (1, 1, False)
    assert wgmma_fit(Problem(4608, 1408, 1024), WGMMA)["BM"] == 128
