"""Stream-K (gpu-cpasync-any built with SCHED=1, issue 48) on the GPU: right at odd shapes, where tiles are cut
across blocks (the partial tiles and their arrival counters), and twice in a row (a counter left set by one
launch would break the next). Run on the GPU machine: `python3 -m pytest -m gpu tests/test_gpu_streamk.py`."""

import threading

import pytest

from gemmviz.backends.cuda import CudaRun
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.bench import BenchSettings, Inputs, JobGuard, plan_jobs
from gemmviz.core.problem import Problem
from tests.gpu_runs import checked_runs

pytestmark = pytest.mark.gpu

V = VARIANTS["gpu-cpasync-any"]
TILES = {
    "128x128": {},
    "64x128": {"BM": 64},
    "128x256": {"BN": 256, "WM": 64, "TN": 16},
}
SHAPES = [Problem(33, 17, 65), Problem(1001, 999, 1003), Problem(257, 383, 200), Problem(1024, 1024, 1024)]


@pytest.mark.parametrize("tile", list(TILES))
def test_stream_k_is_right_at_odd_shapes_and_twice(tile):
    config = {**V.config, **TILES[tile], "SCHED": 1}
    settings = BenchSettings(warmup=1, repeats=3, seed=5, max_time_s=0.05, max_samples=10)
    # run() checks C before and after the timed launches, each time on freshly poisoned memory
    for r in checked_runs(V, config, SHAPES, settings, seed=5, what=tile):
        assert r.config["SCHED"] == 1


def test_the_engine_runs_the_fitted_configuration_at_small_and_short_k_sizes():
    """Without an override the engine runs gpu-cpasync-any's per-size fit (cpasync_model.any_fit), right, and
    says so in the note: 64x64 tiles at 1000^3."""
    import numpy as np

    settings = BenchSettings(warmup=1, repeats=3, seed=5, max_time_s=0.05, max_samples=10)
    p = Problem(1000, 1000, 1000)
    with CudaRun() as run:
        (job,) = plan_jobs([V.name], [p])
        r = run.run(job, V, Inputs.random(p, np.random.default_rng(6)), settings, JobGuard(threading.Event(), 120))
    assert r.status == "ok", r.error
    assert (r.config["BM"], r.config["BN"]) == (64, 64) and "64×64 tiles" in (r.note or "")
