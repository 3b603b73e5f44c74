"""Element-wise verification (core/measure/verify.py): the wrong results one relative norm lets through are refused."""

import math

import numpy as np
import pytest

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.measure.bench import BenchSettings, Engine, Inputs, plan_jobs, verify
from gemmviz.core.measure.verify import MAP_CELLS, tolerance
from gemmviz.core.problem import Problem
from gemmviz.core.session.results import Result, Session

# 4096² as the issue measured it; K = 512 keeps the float64 reference quick on CI's two cores (the norm signal
# of a zeroed tile, 256 of 16.7 M elements, does not depend on K).
M = N = 4096
K = 512


@pytest.fixture(scope="module")
def case():
    inputs = Inputs.random(Problem(M, N, K), np.random.default_rng(7))
    good = (inputs.a @ inputs.b).astype(np.float32)
    return inputs, good


def test_a_correct_result_passes_both_precisions_with_margin(case):
    inputs, good = case
    for precision in ("fp32", "tf32"):
        check = verify(good, inputs, precision)
        assert check.valid and check.wrong == 0 and check.error_map is None
        assert check.margin < 0.05  # the worst element uses under 5% of its bound


def test_the_norm_alone_would_pass_a_zeroed_tile_but_the_elements_do_not(case):
    inputs, good = case
    c = good.copy()
    c[1024:1040, 2048:2064] = 0.0
    check = verify(c, inputs, "tf32")
    assert check.rel_error < 5e-3  # under the TF32 norm threshold: the old check passed this
    assert not check.valid and check.wrong >= 240  # the few zeroed elements whose true value is tiny pass
    assert check.first_wrong[:2] == (1024, 2048)
    cells = np.array(check.error_map["wrong"])
    assert cells.shape == (MAP_CELLS, MAP_CELLS) and np.count_nonzero(cells) == 1
    ch, cw = check.error_map["cell"]
    assert cells[1024 // ch, 2048 // cw] == check.wrong
    assert "1 of 256 regions" in check.reason and "row 1024, column 2048" in check.reason


@pytest.mark.parametrize(
    "damage, what",
    [
        (lambda c: c.__setitem__(M - 1, np.roll(c[M - 1], 1)), "edge row shifted by one column"),
        (lambda c: c.__setitem__((77, 99), np.nan), "one NaN"),
        (lambda c: c.__setitem__((slice(None), N - 1), np.nan), "last column never written"),
        (lambda c: c.__setitem__((5, 5), c[5, 5] * (1 + 1e-3)), "one element off by 1e-3 relative"),
        (lambda c: c.__setitem__((9, 9), np.inf), "one infinity"),
    ],
)
def test_each_damage_is_refused_in_both_precisions(case, damage, what):
    inputs, good = case
    c = good.copy()
    damage(c)
    for precision in ("fp32",) + (("tf32",) if "1e-3" not in what else ()):
        check = verify(c, inputs, precision)
        assert not check.valid, (what, precision, check.rel_error)
        assert check.wrong >= 1 and check.first_wrong is not None and check.reason


def test_unwritten_elements_are_named_as_such(case):
    inputs, good = case
    c = good.copy()
    c[:, N - 1] = np.nan
    check = verify(c, inputs, "fp32")
    assert check.unwritten == M and check.wrong == M
    assert "never written" in check.reason and check.first_wrong[0:2] == (0, N - 1) and check.first_wrong[2] != 0
    assert math.isnan(check.first_wrong[2])


def test_tf32_rounded_inputs_pass_the_tf32_bound_on_hard_inputs():
    """Large magnitudes, mixed signs, K = 8192: a TF32 product (inputs cut to 10 mantissa bits, FP32 sums)
    passes with margin; the same product is refused at FP32."""
    rng = np.random.default_rng(3)
    m, n, k = 64, 48, 8192
    a = (rng.standard_normal((m, k)) * 10.0 ** rng.integers(-3, 4, (m, k))).astype(np.float32)
    b = (rng.standard_normal((k, n)) * 1e3).astype(np.float32)
    inputs = Inputs(Problem(m, n, k), a, b)

    def tf32(x):  # truncate to TF32: keep 10 of the 23 mantissa bits
        return (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)

    c = (tf32(a) @ tf32(b)).astype(np.float32)
    check = verify(c, inputs, "tf32")
    assert check.valid and check.margin < 0.5
    assert not verify(c, inputs, "fp32").valid


def test_the_bound_grows_with_k_and_precision():
    assert tolerance("fp32", 1024) < tolerance("fp32", 8192) < tolerance("tf32", 1024)
    assert tolerance("fp32", 1024) == pytest.approx(1024 * 2.0**-24, rel=1e-3)


def test_a_cpu_kernel_right_first_and_wrong_after_is_invalid(monkeypatch):
    """The protocol verifies again after the timed runs, on a fresh poison."""
    calls = {"n": 0}
    real = np.matmul

    def flaky(a, b, out=None):
        calls["n"] += 1
        real(a, b, out=out)
        if calls["n"] > 1:
            out[-1, -1] += 1.0
        return out

    monkeypatch.setattr(np, "matmul", flaky)  # the CPU backend's BLAS product (it imports numpy where it runs)
    engine = Engine({"cpu": CpuBackend()}, BenchSettings(warmup=1, repeats=3, seed=1))
    (r,) = engine.run(plan_jobs(["cpu-blas"], [Problem(40, 24, 56)]))
    assert r.status == "invalid" and not r.valid and "right on the first run, wrong after" in r.error
    assert r.wrong_elements == 1 and r.first_wrong[:2] == [39, 23] and r.error_map is not None


def test_verification_fields_survive_a_session_file(tmp_path, case):
    inputs, good = case
    c = good.copy()
    c[0:16, 0:16] = 0.0
    check = verify(c, inputs, "fp32")
    r = Result(
        "gpu-tiled",
        {"tile": 16},
        M,
        N,
        K,
        "cuda",
        "fp32",
        False,
        status="invalid",
        error=check.reason,
        timing="kernel",
        **check.result_fields(),
    )
    path = tmp_path / "s.json"
    Session(results=[r]).save(path)
    back = Session.load(path).results[0]
    assert back.error_map == check.error_map and back.wrong_elements == check.wrong
    assert back.first_wrong == list(check.first_wrong) and back.timing == "kernel"
