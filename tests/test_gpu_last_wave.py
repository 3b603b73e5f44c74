"""The block traces of the small-size fix on the GPU (issue 48, technique 3): each of benchmarks/traces_small.py's
builds of gpu-cpasync-any at 1024³ runs right through the engine with its block trace on, launches the blocks
the model counts, and the fix leaves less SM-time idle than one block per 128×128 tile. Run on the GPU machine:
`python3 -m pytest -m gpu tests/test_gpu_last_wave.py` (or the recorder's `tests=tests/test_gpu_last_wave.py`)."""

import importlib.util
import threading
from pathlib import Path

import numpy as np
import pytest

from gemmviz.backends.cuda import CudaRun
from gemmviz.core.hardware.last_wave import last_wave
from gemmviz.core.measure.bench import BenchSettings, Inputs, JobGuard, plan_jobs
from gemmviz.core.problem import Problem

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[1]
P = Problem(1024, 1024, 1024)


def test_each_build_is_traced_right_and_the_fix_fills_the_sms():
    spec = importlib.util.spec_from_file_location("traces_small", ROOT / "benchmarks/traces_small.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    settings = BenchSettings(warmup=1, repeats=3, seed=5, max_time_s=0.05, max_samples=10, trace=True)
    inputs = Inputs.random(P, np.random.default_rng(5))
    idle = {}
    with CudaRun() as run:
        sms = run.device.get_attribute(run.cuda.device_attribute.MULTIPROCESSOR_COUNT)
        (job,) = plan_jobs([script.VARIANT], [P])
        for case in script.cases(P):
            run.config_override[script.VARIANT] = dict(case.config)
            r = run.run(job, script.variant_for(case, P), inputs, settings, JobGuard(threading.Event(), 120))
            assert r.status == "ok", f"{case.name}: {r.error}"
            assert r.block_trace, f"{case.name}: {r.note}"
            assert len(r.block_trace) == case.launch.grid
            lw = last_wave(r.block_trace, sms, case.launch.blocks_per_sm)
            idle[case.name] = lw.idle_share
            if case.name == "tiles":  # 64 blocks: at most 64 SMs busy, the others idle the whole run
                assert lw.last_sms <= 64 and lw.idle_share >= 1 - 64 / sms - 0.02
    assert idle["split"] < idle["tiles"] and idle["stream-k"] < idle["tiles"]
