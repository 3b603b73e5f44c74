import pytest

from gemmviz.core.hardware.roofline import Ceilings, explain, intensity, roofline_points
from gemmviz.core.kernels.model import naive_traffic, tiled_traffic
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.rigor import compare, flags
from gemmviz.core.paths import asset_path
from gemmviz.core.problem import Problem
from gemmviz.core.session.results import Result

H200 = Ceilings("NVIDIA H200", 4233.0, 66908.0, 51105.0, 421638.0)


def res(variant, samples, n=4096, params=None, clock=(1980, 1980), config=None):
    v = VARIANTS[variant]
    return Result(
        variant,
        params or {},
        n,
        n,
        n,
        v.backend,
        v.precision,
        True,
        samples_ms=list(samples),
        sm_clock_mhz_before=clock[0],
        sm_clock_mhz_after=clock[1],
        config=config or {},
    )


def test_noise_flag_fires_on_scattered_samples_only():
    steady = res("gpu-tiled", [10.0, 10.1, 9.9, 10.0, 10.05, 9.95, 10.0, 10.02])
    noisy = res("gpu-tiled", [10, 14, 9, 16, 10, 13, 8, 15])
    assert flags(steady) == []
    assert any(f.startswith("noisy") for f in flags(noisy))


def test_throttle_flag_fires_when_the_clock_drops():
    assert flags(res("gpu-tiled", [1.0] * 8, clock=(1980, 1965))) == []
    assert any(f.startswith("throttled") for f in flags(res("gpu-tiled", [1.0] * 8, clock=(1980, 1400))))


def test_compare_tells_noise_from_difference():
    a = res("gpu-tiled", [10.0, 10.2, 9.9, 10.1, 10.0, 9.8])
    b = res("gpu-naive", [14.0, 14.1, 13.9, 14.3, 14.0, 13.8])
    c = res("gpu-naive", [10.1, 9.7, 10.4, 10.0, 9.9, 10.3])
    ratio, beyond, text = compare(b, a)
    assert ratio == pytest.approx(1.4, rel=0.02) and beyond and "beyond the noise" in text
    _, beyond, text = compare(a, c)
    assert not beyond and "within the noise" in text


@pytest.mark.parametrize("n", [512, 1000, 4096])
def test_intensity_of_each_variant_matches_its_formula(n):
    p = Problem(n, n, n)
    assert intensity(res("gpu-naive", [1], n)) == pytest.approx(naive_traffic(p).intensity)
    for tile in (8, 16, 32):
        assert intensity(res("gpu-tiled", [1], n, {"tile": tile})) == pytest.approx(tiled_traffic(p, tile).intensity)
    ideal = n**3 / (2 * 3 * n * n)  # the seeds' N/6
    assert intensity(res("cublas", [1], n)) == pytest.approx(ideal)
    # block tiling: A read N/BN times, B read M/BM times (128x128 tiles -> 32 FLOP/byte without stores)
    cfg = {"BM": 128, "BN": 128, "BK": 8, "TM": 8, "TN": 8}
    if n % 128 == 0:
        loads = 2 * n**3 / 128
        assert intensity(res("gpu-blocktile2d", [1], n, config=cfg)) == pytest.approx(2 * n**3 / (4 * (loads + n * n)))


def test_naive_intensity_is_the_seeds_quarter_and_tiled_grows_with_the_tile():
    assert intensity(res("gpu-naive", [1])) == pytest.approx(0.25, rel=1e-3)
    xs = [intensity(res("gpu-tiled", [1], params={"tile": t})) for t in (8, 16, 32)]
    assert xs == sorted(xs) and xs[-1] == pytest.approx(8, rel=0.01)


def test_roofline_points_and_explanation():
    results = [
        res("gpu-naive", [22.0]),
        res("gpu-tiled", [15.5], params={"tile": 32}),
        res("cublas", [2.7]),
        res("cpu-blas", [140.0]),
    ]
    points = roofline_points(results, H200)
    assert [p.result.variant for p in points] == ["gpu-naive", "gpu-tiled", "cublas"]  # CPU has another roof
    naive = points[0]
    assert naive.roof == pytest.approx(4233 * naive.intensity)
    assert naive.pct_of_cublas == pytest.approx(100 * 2.7 / 22.0)
    text = explain(results[0], H200)
    assert "2,147,483,648" not in text  # 4096³ numbers, not the seed's 1024 example
    assert "137,438,953,472" in text  # 2·4096³ FLOPs
    assert "caches" in text  # naive beats its own bandwidth roof on a GPU with big caches
    assert "Above the ridge point" in explain(results[2], H200)
    assert H200.ridge == pytest.approx(66908 / 4233)


def test_ceilings_come_from_the_user_cache_then_the_shipped_files():
    import json

    from gemmviz.core.hardware.roofline import load_ceilings, user_ceilings_file

    shipped = load_ceilings("NVIDIA H200")  # assets/ceilings, found through the package resources
    assert shipped is not None and shipped.bandwidth_gbs > 1000
    assert load_ceilings("No Such GPU") is None
    user_ceilings_file().parent.mkdir(parents=True, exist_ok=True)  # the test's cache folder (conftest)
    user_ceilings_file().write_text(
        json.dumps({"device": "NVIDIA H200", "bandwidth_gbs": 1.0, "fp32_peak_gflops": 2.0})
    )
    assert load_ceilings("NVIDIA H200").bandwidth_gbs == 1.0


def test_a_tf32_point_above_the_cublas_tf32_line_is_not_called_cache_served():
    """Issue 31: the 392 TFLOP/s line is cuBLAS TF32 as measured at 8192³, not a peak; the session's own cuBLAS
    TF32 point at 4096³ (402) lies above it, and the chart said "above the roof: caches serve traffic…" of it."""
    from gemmviz.core.hardware.roofline import load_ceilings, roofline_points
    from gemmviz.core.session.results import Session

    session = Session.load(asset_path("sessions", "h200-2026-12-01.json"))
    points = {
        p.result.series: p
        for p in roofline_points(
            [r for r in session.results if r.m == r.n == r.k == 4096], load_ceilings("NVIDIA H200")
        )
    }
    tf32 = points["cublas-tf32"]
    assert tf32.pct_of_roof > 100 and not tf32.cache_served  # over a measured line, left of no bandwidth slope
    assert points["gpu-naive (block 16)"].cache_served  # over the bandwidth roof: caches, as the note says
    assert not points["cublas"].cache_served
