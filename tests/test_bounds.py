"""The bounds layer (core/session/bounds.py): every number loaded from a session within what a GPU, a timer and
the registry can produce, each refusal one line naming the field; and what gemmviz itself writes passes the
same loader (the shipped session, a run of every variant on the fake GPU and the CPU)."""

import copy
import dataclasses
import json
from operator import itemgetter

import pytest

from gemmviz.backends.cpu import CpuBackend
from gemmviz.backends.cuda import CudaBackend
from gemmviz.core.fileio import bulk_objects
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.bench import BenchSettings, Engine, environment, plan_jobs
from gemmviz.core.problem import Problem
from gemmviz.core.session import bounds
from gemmviz.core.session.results import Result, Session, SessionError
from gemmviz.core.session.workspace import recorded_sessions
from tests import fake_pycuda

TRACED = {
    "variant": "gpu-tiled", "params": {"tile": 16}, "m": 64, "n": 64, "k": 64, "backend": "cuda",
    "precision": "fp32", "valid": True, "status": "ok", "samples_ms": [1.0, 1.5], "warmup": 1, "repeats": 2,
    "timing": "kernel", "clock_mhz": 1980.0, "noise": 0.01, "host_ms": [1.2], "dropped_ms": [],
    "counters": {"dram__bytes_read.sum": 1.5e6, "sm__throughput.avg.pct_of_peak_sustained_elapsed": 90.5},
    "block_trace": [[0, 3, 0, 900], [1, 5, 120, 880], [2, 3, 900, 1500], [3, 131, 100, 100]],
}  # fmt: skip
SESSION = {"schema": "gemmviz.session", "schema_version": 3, "kind": "measured", "label": "", "created": "",
           "environment": {"backends": {"cuda": {"available": True, "name": "NVIDIA H200", "sms": 132}}},
           "settings": {}, "results": [TRACED]}  # fmt: skip


def _session(path: str, value, base=SESSION) -> dict:
    """SESSION with the field at `path` ("results.0.block_trace.1.1") set to `value`."""
    d = copy.deepcopy(base)
    *parents, last = path.split(".")
    node = d
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node[p]
    node[int(last) if isinstance(node, list) else last] = value
    return d


def test_the_good_session_loads():
    s = Session.from_dict(copy.deepcopy(SESSION))
    assert s.results[0].block_trace[3] == [3, 131, 100, 100]  # a block of no time beside others: a coarse clock


CASES = [
    # SM ids and the SM count
    (
        "results.0.block_trace.1.1",
        10**9,
        r"results\[0\]\.block_trace\[1\]\[1\]: SM id 1000000000 is not below the session's 132 SMs",
    ),
    ("results.0.block_trace.1.1", 132, r"block_trace\[1\]\[1\]: SM id 132 is not below the session's 132 SMs"),
    ("results.0.block_trace.1.1", -1, r"block_trace\[1\]\[1\]: -1 is below 0"),
    (
        "environment.backends.cuda.sms",
        10**9,
        r"environment\.backends\.cuda\.sms: 1000000000 is out of range \(1\.\.1024\)",
    ),
    ("environment.backends.cuda.sms", 0, r"environment\.backends\.cuda\.sms: 0 is out of range"),
    ("environment.backends.cuda.sms", 4, r"block_trace\[1\]\[1\]: SM id 5 is not below the session's 4 SMs"),
    ("environment", {}, r"block_trace\[3\]\[1\]: SM id 131 is not below 1024|^$"),
    # trace times
    ("results.0.block_trace", [[0, 0, 0, 0]], r"results\[0\]\.block_trace: every block ends as it starts"),
    ("results.0.block_trace", [[0, 0, 5, 5], [1, 1, 5, 5]], r"block_trace: every block ends as it starts"),
    (
        "results.0.block_trace",
        [[0, 0, 0, 10**30]],
        r"block_trace\[0\]\[3\]: not a whole number|block_trace\[0\]\[3\]: ends at",
    ),
    (
        "results.0.block_trace",
        [[0, 0, 0, 4 * 10**12]],
        r"block_trace\[0\]\[3\]: ends at 4000000000000 ns, over an hour",
    ),
    ("results.0.block_trace", [[0, 0, 900, 100]], r"block_trace\[0\]: ends \(100\) before it starts \(900\)"),
    ("results.0.block_trace", [[0, 0, -5, 100]], r"block_trace\[0\]\[2\]: -5 is below 0"),
    ("results.0.block_trace", [[0, 0, 0, 1.5]], r"block_trace\[0\]\[3\]: not a whole number \(1.5\)"),
    ("results.0.block_trace", [[0, 0, 0, True]], r"block_trace\[0\]\[3\]: not a whole number \(true\)"),
    ("results.0.block_trace", [], r"block_trace: empty"),
    ("results.0.block_trace", [[0, 0, 0, 9], [0, 1, 0, 9]], r"block_trace\[1\]\[0\]: block 0 again \(row 0 has it\)"),
    ("results.0.block_trace", [[7, 0, 0, 9]], r"block_trace\[0\]\[0\]: block 7 is not below the trace's 1 blocks"),
    # samples
    (
        "results.0.samples_ms",
        [1e308],
        r"results\[0\]\.samples_ms\[0\]: 1e\+308 ms is not a time above 1 ns and at most a day",
    ),
    ("results.0.samples_ms", [5e-324], r"samples_ms\[0\]: 4\.94066e-324 ms is not a time above 1 ns"),
    ("results.0.samples_ms", [1e-6], r"samples_ms\[0\]: 1e-06 ms is not a time above 1 ns"),
    ("results.0.samples_ms", [8.64e7 * 2], r"samples_ms\[0\]: 1\.728e\+08 ms is not a time"),
    ("results.0.samples_ms", [], r"results\[0\]\.samples_ms: empty, but the status is ok"),
    ("results.0.dropped_ms", [0.0], r"results\[0\]\.dropped_ms\[0\]: 0 ms is not a time"),
    ("results.0.host_ms", [1.0, -3.0], r"results\[0\]\.host_ms\[1\]: -3 ms is not a time"),
    # counters
    (
        "results.0.counters",
        {"dram__bytes_read.sum": 1e308},
        r"counters\.dram__bytes_read\.sum: 1e\+308 is above 1e\+18",
    ),
    ("results.0.counters", {"dram__bytes_read.sum": -1.0}, r"counters\.dram__bytes_read\.sum: -1.0 must be at least 0"),
    (
        "results.0.counters",
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed": 1e4},
        r"pct_of_peak_sustained_elapsed: 10000.0 is above 120",
    ),
    # params, config, backend, precision
    ("results.0.params", {"tile": 7}, r"results\[0\]\.params\.tile: 7 is not one of gpu-tiled's choices \(8, 16, 32\)"),
    (
        "results.0.params",
        {"tile": 10**30},
        r"params\.tile: 1000000000000000000000000000000 is not one of gpu-tiled's choices",
    ),
    ("results.0.config", {"BM": 0}, r"results\[0\]\.config\.BM: not a configuration key of gpu-tiled \(it has none\)"),
    ("results.0.backend", "cpu", r"results\[0\]\.backend: 'cpu', but gpu-tiled runs on 'cuda'"),
    ("results.0.precision", "fp64", r"results\[0\]\.precision: 'fp64' is not one of: fp32, tf32"),
    ("results.0.precision", "tf32", r"results\[0\]\.precision: 'tf32', but gpu-tiled computes in fp32"),
    # clocks, temperatures, noise, batches, verification fields
    ("results.0.clock_mhz", 1e9, r"results\[0\]\.clock_mhz: 1000000000.0 is above 10000"),
    ("results.0.clock_mhz", 0, r"results\[0\]\.clock_mhz: 0 must be above 0"),
    ("results.0.sm_clock_mhz_after", -1, r"sm_clock_mhz_after: -1 must be above 0"),
    ("results.0.temperature_c_before", 5000, r"temperature_c_before: 5000 is above 200"),
    ("results.0.noise", 1e9, r"results\[0\]\.noise: 1000000000.0 is above 1000"),
    ("results.0.launches_per_sample", 0, r"launches_per_sample: 0 is out of range \(1\.\.1000\)"),
    ("results.0.launches_per_sample", 10**6, r"launches_per_sample: 1000000 is out of range"),
    ("results.0.repeats", 10**9, r"results\[0\]\.repeats: 1000000000 is out of range \(0\.\.100000\)"),
    ("results.0.warmup", 10**9, r"results\[0\]\.warmup: 1000000000 is out of range"),
    ("results.0.first_wrong", [64, 0, 1.0, 2.0], r"first_wrong: element \[64, 0\] is outside C \(64×64\)"),
    (
        "results.0.first_wrong",
        [10**30, 0, 1.0, 2.0],
        r"first_wrong\[0\]: 1000000000000000000000000000000 is out of range",
    ),
    ("results.0.wrong_elements", 5000, r"wrong_elements: 5000 is more than C's 4,096 elements"),
    ("results.0.unwritten", 10**12, r"unwritten: 1000000000000 is more than C's 4,096 elements"),
    ("results.0.error_map", {"cell": [2, 2], "wrong": [[5]]}, r"error_map\.wrong\[0\]\[0\]: 5 wrong in a cell of 2×2"),
    ("results.0.error_map", {"cell": [10**30, 1], "wrong": [[1]]}, r"error_map\.cell\[0\]: .* is out of range"),
    # the environment's numbers
    (
        "environment.backends.cuda.max_sm_clock_mhz",
        1e12,
        r"environment\.backends\.cuda\.max_sm_clock_mhz: .* is above 10000",
    ),
    ("environment.backends.cuda.fp32_peak_gflops", 1e300, r"fp32_peak_gflops: 1e\+300 is above 100000000"),
    ("environment.backends.cuda.memory_total_bytes", 2**70, r"memory_total_bytes: .* is out of range"),
    ("environment.backends.cuda.temperature_c", -500, r"temperature_c: -500 must be at least -100"),
    ("environment.bandwidth_gbs", 1e30, r"environment\.bandwidth_gbs: 1e\+30 is above 1000000"),
]


@pytest.mark.parametrize("field, value, pattern", CASES, ids=[f"{c[0]}={str(c[1])[:24]}" for c in CASES])
def test_absurd_numbers_are_refused_naming_the_field(tmp_path, field, value, pattern):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_session(field, value)))
    if pattern.endswith("|^$"):  # no SM count in the session: 131 is a sensible SM id
        assert Session.load(path).results[0].block_trace[3][1] == 131
        return
    with pytest.raises(SessionError, match=pattern) as info:
        Session.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and "\n" not in message and len(message) < 300


def test_the_session_sm_count_bounds_each_result_and_without_one_no_gpu_has_more_than_1024():
    d = _session("environment", {})
    d["results"][0]["block_trace"] = [[0, 1024, 0, 9]]
    with pytest.raises(
        SessionError, match=r"block_trace\[0\]\[1\]: SM id 1024 is not below 1024 \(no GPU has more SMs\)"
    ):
        Session.from_dict(d)


@pytest.mark.parametrize("variant", [v for v in VARIANTS.values() if v.tune_space])
def test_a_config_outside_the_tuning_space_is_refused_and_one_inside_loads(variant):
    inside = variant.tune_space()[-1]
    d = _session(
        "results.0",
        {
            **TRACED,
            "variant": variant.name,
            "params": {},
            "config": inside,
            "precision": variant.precision,
            "block_trace": None,
        },
    )
    assert Session.from_dict(d).results[0].config == inside
    key = next(iter(inside))
    d["results"][0]["config"] = {**inside, key: 3}
    with pytest.raises(SessionError, match=rf"results\[0\]\.config\.{key}: 3 is not one of its tuning space's values"):
        Session.from_dict(d)
    d["results"][0]["config"] = {**inside, "NOPE": 1}
    with pytest.raises(SessionError, match=rf"config\.NOPE: not a configuration key of {variant.name} \(its keys: "):
        Session.from_dict(d)


def test_a_config_of_a_variant_without_a_tuning_space_is_its_registry_default():
    v = VARIANTS["gpu-blocktile2d"]
    d = _session(
        "results.0", {**TRACED, "variant": v.name, "params": {}, "config": dict(v.config), "block_trace": None}
    )
    assert Session.from_dict(d).results[0].config == v.config
    d["results"][0]["config"] = {**v.config, "BM": 64}
    with pytest.raises(SessionError, match=r"config\.BM: 64 is not one of its only values \(128\)"):
        Session.from_dict(d)


def test_a_session_over_the_result_limit_is_refused_before_its_results_are_read(tmp_path):
    d = copy.deepcopy(SESSION)
    d["results"] = [{"not": "a result"}] * (bounds.MAX_RESULTS + 1)  # never looked at: the count is refused first
    with pytest.raises(SessionError, match=r"^results: 20,001 results, over the 20,000 a session may hold"):
        Session.from_dict(d)


def test_a_million_row_trace_is_checked_in_bulk_and_a_bad_row_deep_in_it_is_named():
    with bulk_objects():  # a million lists: the collector paused while they are made, as the loader does
        rows = [[i, i % 132, i, i + 1000] for i in range(1_000_000)]
    d = _session("results.0.block_trace", rows)
    assert len(Session.from_dict(d).results[0].block_trace) == 1_000_000
    rows[765_432][1] = 5000
    with pytest.raises(SessionError, match=r"block_trace\[765432\]\[1\]: SM id 5000 is not below the session's 132"):
        Session.from_dict(d)


# ---- what gemmviz writes, its loader reads ----------------------------------------------------------------
@pytest.mark.parametrize("path", recorded_sessions(), ids=lambda p: p.name)
def test_every_result_of_the_shipped_sessions_round_trips(path, tmp_path):
    s = Session.load(path)
    sms = bounds.session_sms(s.environment)
    with bulk_objects():  # as Session.save reads its own JSON back: the collector paused for a million rows
        for i, r in enumerate(s.results):
            d = r.to_dict()  # once: a copy of a million-row trace is not free
            assert Result.from_dict(json.loads(json.dumps(d)), f"results[{i}]").to_dict() == d
            if r.block_trace:
                assert max(map(itemgetter(1), r.block_trace)) < sms
    # The file as a whole: its envelope (environment, settings, kind) with its results, each of which round-tripped
    # above. The 4 MB traces file (1.2 M trace rows) is saved with its first two results: saving and loading all
    # of them again checked the same rows twice more (19 s idle, 250 s on a loaded CI machine).
    whole = s if path.stat().st_size < 2_000_000 else dataclasses.replace(s, results=s.results[:2])
    whole.save(tmp_path / "again.json")
    assert Session.load(tmp_path / "again.json").to_dict() == whole.to_dict()


def test_every_variant_run_on_the_fake_gpu_and_the_cpu_passes_its_own_loader(monkeypatch, tmp_path):
    fake_pycuda.install(monkeypatch)
    backends = {"cpu": CpuBackend(), "cuda": CudaBackend()}
    jobs = plan_jobs(list(VARIANTS), [Problem(65, 33, 17), Problem(1, 1, 1)], {"tile": [8, 32], "block": [16, 32]})
    results = Engine(backends, BenchSettings(warmup=1, repeats=3, seed=1, trace=True)).run(jobs)
    assert {r.variant for r in results} == set(VARIANTS) and any(r.block_trace for r in results)
    assert all(r.status == "ok" for r in results), [(r.series, r.error) for r in results if r.status != "ok"]
    session = Session(results=results, environment=environment(backends))
    session.save(tmp_path / "run.json")  # the writer checks with the loader first
    assert Session.load(tmp_path / "run.json").to_dict() == json.loads(json.dumps(session.to_dict()))


def test_the_writer_refuses_what_its_loader_would_refuse_and_keeps_the_earlier_file(tmp_path):
    path = tmp_path / "s.json"
    good = Result.from_dict(copy.deepcopy(TRACED))
    Session(results=[good]).save(path)
    before = path.read_bytes()
    bad = Result.from_dict(copy.deepcopy(TRACED))
    bad.samples_ms = [float("inf")]
    with pytest.raises(SessionError, match=r"^results\[1\]\.samples_ms\[0\]: not a finite number \(Infinity\)"):
        Session(results=[good, bad]).save(path)
    bad.samples_ms, bad.block_trace = [1.0], [[0, 5000, 0, 10]]
    with pytest.raises(SessionError, match=r"results\[0\]\.block_trace\[0\]\[1\]: SM id 5000 is not below 1024"):
        Session(results=[bad]).save(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("streamk_fit", [False, True])
def test_every_config_a_size_fit_runs_loads_back(monkeypatch, streamk_fit):
    """A session recorded past one wave held gpu-wgmma-tf32 results run persistent (PERSIST, ORDER: wgmma_fit's
    keys, outside its tuning space) and the loader refused the whole file; the fake GPU's small sizes never went
    there. Every configuration either fit gives, from the default and every tuned start, at sizes from one
    partial wave to many, is one the loader takes."""
    from gemmviz.core.kernels import hopper_model

    monkeypatch.setattr(hopper_model, "STREAMK_FIT", streamk_fit)
    sizes = [Problem(n, n, n) for n in (1000, 1024, 2048, 4096, 8192)] + [
        Problem(2000, 3000, 1000),
        Problem(2048, 3072, 4096),
    ]
    seen = 0
    for name, fit in (("gpu-wgmma-tf32", lambda p, c: hopper_model.wgmma_fit(p, c)), ("gpu-cpasync-any", None)):
        v = VARIANTS[name]
        fit = fit or (lambda p, c, v=v: v.fit(p, c)[0])
        for start in [dict(v.config), *v.tune_space()]:
            for p in sizes:
                config = fit(p, start)
                row = {**TRACED, "variant": name, "params": {}, "config": config, "precision": v.precision}
                d = _session("results.0", {**row, "block_trace": None})
                assert Session.from_dict(d).results[0].config == config, (name, p, config)
                seen += 1
    assert seen > 100
