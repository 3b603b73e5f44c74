"""The sampling rules (core/measure/timing.py) and how a result says how it was timed."""

import json

import pytest

from gemmviz.core.measure.bench import BenchSettings, sample_policy
from gemmviz.core.measure.timing import SamplePolicy, Sampler, noise
from gemmviz.core.problem import ProblemError
from gemmviz.core.session.results import TIMING_HOST_CLOCK, TIMING_HOST_EVENTS, Session


def test_stops_once_the_noise_is_under_the_target():
    s = Sampler(SamplePolicy(min_samples=5, max_samples=1000, max_noise=0.005, max_time_s=100))
    for _ in range(4):
        s.add(1.0, 1980.0)
        assert not s.done(0.0)  # fewer than min_samples
    s.add(1.0, 1980.0)
    assert s.done(0.0)


def test_noisy_samples_go_on_until_the_time_or_sample_cap():
    s = Sampler(SamplePolicy(min_samples=3, max_samples=10, max_noise=0.005, max_time_s=5))
    for i in range(3):
        s.add(1.0 + 0.1 * (i % 2), 1980.0)
    assert not s.done(1.0) and s.done(5.0)
    for i in range(7):
        s.add(1.0 + 0.1 * (i % 2), 1980.0)
    assert s.done(0.0)  # max_samples


def test_samples_at_a_fallen_clock_are_dropped_and_counted():
    s = Sampler(SamplePolicy(min_samples=3, max_samples=100, max_noise=0.5, max_time_s=100))
    for ms, mhz in [(1.0, 1980), (1.01, 1975), (1.4, 1500), (1.0, 1980), (1.02, 1965), (1.5, 1400)]:
        s.add(ms, mhz)
    kept, dropped, rejected = s.split()
    assert kept == [1.0, 1.01, 1.0, 1.02] and dropped == [1.4, 1.5] and rejected == 0
    summary = s.summary()
    assert summary["samples_ms"] == kept and summary["dropped_ms"] == dropped
    assert summary["noise"] == pytest.approx(noise(kept))


def test_samples_marked_not_kernel_only_never_count():
    s = Sampler(SamplePolicy(min_samples=2, max_samples=5, max_noise=0.5, max_time_s=100))
    s.add(9.0, 1980, rejected=True)
    s.add(1.0, 1980)
    assert not s.done(0.0)
    s.add(1.0, 1980)
    assert s.done(0.0) and s.split() == ([1.0, 1.0], [], 1)


def test_without_clock_readings_every_sample_is_kept():
    s = Sampler(SamplePolicy(min_samples=2))
    s.add(1.0)
    s.add(2.0)
    assert s.split() == ([1.0, 2.0], [], 0) and s.summary()["clock_mhz"] is None


def test_a_sampler_that_never_gets_a_good_sample_still_stops():
    s = Sampler(SamplePolicy(min_samples=2, max_samples=3))
    for _ in range(12):
        s.add(5.0, rejected=True)
    assert s.done(0.0)


def test_settings_bound_the_sampling():
    assert sample_policy(BenchSettings(repeats=50, max_samples=10)).max_samples == 50
    for bad in ({"timing": "wall"}, {"max_noise": -1}, {"max_time_s": 0}, {"max_samples": 0}):
        with pytest.raises(ProblemError):
            BenchSettings(**bad)


def test_a_version_2_session_loads_as_host_inclusive_timing():
    d = {
        "schema": "gemmviz.session",
        "schema_version": 2,
        "results": [
            {
                "variant": "cublas",
                "params": {},
                "m": 8,
                "n": 8,
                "k": 8,
                "backend": "cuda",
                "precision": "fp32",
                "valid": True,
                "samples_ms": [0.1],
            },
            {
                "variant": "cpu-blas",
                "params": {},
                "m": 8,
                "n": 8,
                "k": 8,
                "backend": "cpu",
                "precision": "fp32",
                "valid": True,
                "samples_ms": [0.1],
            },
        ],
    }
    s = Session.from_dict(json.loads(json.dumps(d)))
    assert [r.timing for r in s.results] == [TIMING_HOST_EVENTS, TIMING_HOST_CLOCK]
    assert "host-inclusive" in s.results[0].timing_label


def test_host_timing_samples_until_the_noise_target_or_the_cap():
    """The CPU's BLAS gets the GPU's rules (issue 35): at least min_samples, then on until the noise target,
    which an impossible target never reaches, so the sample cap ends it."""
    import threading

    from gemmviz.core.measure.bench import sample_host

    calls = []
    quiet = sample_host(lambda: calls.append(1), 2, SamplePolicy(5, 50, 1e9, 1e9), threading.Event())
    assert len(quiet.samples) == 5 and len(calls) == 2 + 5  # warm-ups, then the target met at once
    capped = sample_host(lambda: None, 0, SamplePolicy(3, 12, -1.0, 1e9), threading.Event())
    assert len(capped.samples) == 12


def test_host_outliers_and_leftover_noise_are_named():
    from gemmviz.core.measure.timing import host_notes, outliers

    steady = Sampler(SamplePolicy(5, 20, 0.05, 1.0))
    for ms in (1.0, 1.01, 0.99, 1.0, 1.02):
        steady.add(ms)
    assert host_notes(steady) == [] and outliers(steady.samples) == []
    busy = Sampler(SamplePolicy(5, 20, 0.05, 1.0))
    for ms in (0.03, 0.04, 0.03, 16.0, 0.03, 0.04):  # one run preempted: 16 ms among 0.03 ms ones
        busy.add(ms)
    notes = host_notes(busy)
    assert outliers(busy.samples) == [16.0]
    assert "1 of 6 samples are outliers" in notes[0] and "16 ms" in notes[0]
    assert notes[1].startswith("noisy: ") and "over the 5% target" in notes[1]
