"""gpu-cpasync-any's technique-5 builds on the GPU (issue 48): PBAR=1 and 2 (a named barrier, or an mbarrier, per
warp row and per warp column instead of one block-wide barrier per K-slice, the copies re-partitioned by group) and
FRAG_DB=2 (fragments read across the K-slice boundary), alone and together, in the H200's 128x256 tiles and in
128x128 (the other warp grid). Each is checked element-wise against float64 on poisoned C at odd shapes (edges,
split-K by turns, a ragged last K-slice, a single K-slice), before and after its timed launches. Run on the GPU
machine: `python3 -m pytest -m gpu tests/test_gpu_pbar.py`."""

import pytest

from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.bench import BenchSettings
from gemmviz.core.problem import Problem
from tests.gpu_runs import checked_runs

pytestmark = pytest.mark.gpu

V = VARIANTS["gpu-cpasync-any"]
T256 = {"BM": 128, "BN": 256, "WM": 64, "WN": 64, "TM": 8, "TN": 16}
BUILDS = {
    "pbar-128x256": {**T256, "PBAR": 1},
    "fdb2-128x256": {**T256, "FRAG_DB": 2},
    "pbar-fdb2-128x256": {**T256, "PBAR": 1, "FRAG_DB": 2},
    "pbar-fdb2-128x128": {"BM": 128, "BN": 128, "WM": 32, "WN": 64, "TM": 8, "TN": 8, "PBAR": 1, "FRAG_DB": 2},
    "pbar2-128x256": {**T256, "PBAR": 2},
    "pbar2-fdb2-128x256": {**T256, "PBAR": 2, "FRAG_DB": 2},
}
SHAPES = [Problem(33, 17, 65), Problem(257, 383, 200), Problem(1001, 999, 1003), Problem(1100, 2101, 40)]


@pytest.mark.parametrize("build", list(BUILDS))
def test_technique_5_builds_are_right_at_odd_shapes(build):
    config = {**V.config, **BUILDS[build], "SCHED": 0}
    settings = BenchSettings(warmup=1, repeats=3, seed=7, max_time_s=0.05, max_samples=10)
    for r in checked_runs(V, config, SHAPES, settings, seed=7, what=build):
        assert all(r.config[k] == v for k, v in BUILDS[build].items())
