"""`gemmviz profile` without a GPU: a fake CUDA backend for the bench step and a fake ncu runner that
answers with the recorded H200 CSV (tests/data/ncu-tiled-naive-1024.csv)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gemmviz.cli import profile
from gemmviz.cli.common import CommandError
from gemmviz.cli.main import build_parser, main
from gemmviz.core.session.results import Session
from tests.fake_ncu import FakeNcu, run


def test_counters_are_attached_to_the_matching_results(fake_gpu, tmp_path):
    out = tmp_path / "p.json"
    ncu = FakeNcu()
    code = run(
        [
            "profile",
            "--variants",
            "gpu-naive,gpu-tiled",
            "--sizes",
            "1024",
            "--tile",
            "16",
            "--block",
            "16",
            "--repeats",
            "2",
            "--out",
            str(out),
            "--quiet",
        ],
        ncu,
    )
    assert code == 0
    results = Session.load(out).results
    assert [r.variant for r in results] == ["gpu-naive", "gpu-tiled"]
    naive, tiled = (r.counters for r in results)
    assert naive["smsp__inst_executed_op_shared_ld.sum"] == 0
    assert tiled["smsp__inst_executed_op_shared_ld.sum"] == pytest.approx(41.9e6, rel=0.01)
    assert tiled["dram__bytes_read.sum"] == pytest.approx(8.39e6, rel=0.01)
    assert all(len(r.samples_ms) == 2 for r in results)  # timings from the bench step, not from ncu
    # one child per kernel variant, the same jobs at --repeats 1 --warmup 0, two launches each
    # per kernel variant: a pass for the duration alone, then one for the other counters
    (naive_duration, naive_call, _tiled_duration, tiled_call) = ncu.calls
    assert ncu.metrics[0] == ["gpu__time_duration.sum"] and "gpu__time_duration.sum" not in ncu.metrics[1]
    assert naive_duration[0] == naive_call[0]
    assert naive_call[1] == "^gemm_naive$" and naive_call[2] == 6 and "--timing" in naive_call[0]
    assert ncu.cache_control == "none"  # warm timing: ncu must not flush the caches either
    assert tiled_call[0][-4:] == ["--mnk", "1024x1024x1024", "--tile", "16"]
    assert tiled_call[0][2:10] == ["gemmviz", "bench", "--variants", "gpu-tiled", "--repeats", "1", "--warmup", "3"]


def test_jobs_of_one_variant_match_their_launches_in_order():
    from gemmviz.core.measure.bench import plan_jobs
    from gemmviz.core.problem import Problem
    from gemmviz.core.session.results import Result

    jobs = plan_jobs(["gpu-tiled"], [Problem(64, 64, 64), Problem(96, 96, 96)], {"tile": [8, 16]})

    def result(job, status):
        return Result(
            variant=job.variant,
            params=job.params_dict,
            m=job.problem.m,
            n=job.problem.n,
            k=job.problem.k,
            backend="cuda",
            precision="fp32",
            valid=status == "ok",
            status=status,
        )

    results = [result(jobs[0], "ok"), result(jobs[1], "refused"), result(jobs[2], "invalid"), result(jobs[3], "ok")]
    (step,) = profile.plan_steps(jobs, results, seed=0, python="python3")
    assert step.launch_count == 6 + 0 + 1 + 6
    assert step.argv[step.argv.index("--tile") + 1] == "8,16"
    assert [a for i, a in enumerate(step.argv) if step.argv[i - 1] == "--mnk"] == ["64x64x64", "96x96x96"]
    rows = [{"kernel": "gemm_tiled", "counters": {"x": float(i)}} for i in range(13)]
    profile.attach(step, rows)
    # an ok job's counters are those of its timed launch (after the 3 warm-ups); an invalid job launched once
    assert [r.counters and r.counters["x"] for r in results] == [4.0, None, 6.0, 11.0]
    assert "was refused" in results[1].note
    # a launch count that does not add up attaches nothing and says so
    for r in results:
        r.counters, r.note = None, None
    assert profile.attach(step, rows[:4]) == 4 and "expected 13" in results[0].note


def test_a_library_job_takes_its_timed_call():
    from gemmviz.core.measure.bench import plan_jobs
    from gemmviz.core.problem import Problem
    from gemmviz.core.session.results import Result

    (job,) = plan_jobs(["cublas"], [Problem(64, 64, 64)])
    r = Result(variant="cublas", params={}, m=64, n=64, k=64, backend="cuda", precision="fp32", valid=True)
    (step,) = profile.plan_steps([job], [r], seed=0)
    assert step.kernel_regex == "." and not step.per_kernel
    times = [60.0, 61.0, 62.0, 63.0, 50.0, 55.0]  # check, 3 warm-ups, the timed call, the check after
    rows = [
        {"kernel": k, "counters": {"gpu__time_duration.sum": t if k == "sgemm_main" else 5.0}}
        for t in times
        for k in ("splitk", "sgemm_main")
    ]
    profile.attach(step, rows)
    assert r.counters == {"gpu__time_duration.sum": 50.0, profile.CALL_DURATION: 55.0} and "longest of 2" in r.note


def test_missing_ncu_and_no_gpu_are_one_line_errors_with_exit_1(fake_gpu, tmp_path, monkeypatch, capsys):
    import gemmviz.backends.profile as backend_profile

    monkeypatch.setattr(backend_profile, "find_ncu", lambda: None)
    argv = ["profile", "--variants", "gpu-tiled", "--sizes", "64", "--out", str(tmp_path / "p.json")]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"gemmviz: error: {backend_profile.NCU_MISSING}"
    fake_gpu.available = False
    assert main(argv) == 1
    assert "profiling needs a CUDA GPU: no CUDA device" in capsys.readouterr().err


def test_counters_not_permitted_keeps_the_timings(fake_gpu, tmp_path, capsys):
    from gemmviz.backends.profile import NCU_NO_PERMISSION, ProfileError

    def refused(*a, **kw):
        raise ProfileError(NCU_NO_PERMISSION)

    out = tmp_path / "p.json"
    argv = ["profile", "--variants", "gpu-tiled", "--sizes", "64", "--out", str(out), "--quiet"]
    monkey_args = build_parser().parse_args(argv)
    with pytest.raises(CommandError) as info:
        profile.cmd_profile(monkey_args, runner=refused)
    assert "ERR_NVGPUCTRPERM" in str(info.value) and str(out) in str(info.value)
    assert Session.load(out).results[0].valid and Session.load(out).results[0].counters is None


def test_cpu_variants_are_refused_as_usage(fake_gpu, tmp_path, capsys):
    assert main(["profile", "--variants", "cpu-blas", "--sizes", "8", "--out", str(tmp_path / "p.json")]) == 2
    assert "Nsight Compute profiles GPU kernels only" in capsys.readouterr().err


def test_the_recording_merge_combines_timings_counters_traces_and_the_cpu_loop():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "record_h200", Path(__file__).parents[1] / "benchmarks/record_h200.py"
    )
    record = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(record)
    from gemmviz.core.session.results import Result

    def r(variant, m, status="ok", **kw):
        backend = "cpu" if variant.startswith("cpu") else "cuda"
        params = {"tile": 16} if variant == "gpu-tiled" else {}
        return Result(
            variant=variant,
            params=params,
            m=m,
            n=m,
            k=m,
            backend=backend,
            precision="fp32",
            valid=status == "ok",
            status=status,
            **kw,
        )

    bench = Session(
        results=[
            r("gpu-tiled", 1024, samples_ms=[1.0, 1.2]),
            r("cpu-naive", 1024, "refused", error="would take"),
            r("cublas", 1024, samples_ms=[0.1]),
        ],
        settings={"command": "bench"},
        environment={"cpu": "x"},
    )
    cpu = Session(
        results=[r("cpu-naive", 1024, samples_ms=[900.0]), r("cpu-naive", 2048, samples_ms=[8000.0])],
        environment={"cpu": "Xeon", "cpu_count": 16},
        settings={"command": "cpu"},
    )
    traces = Session(
        results=[
            r("gpu-tiled", 1024, samples_ms=[9.0], block_trace=[[0, 1, 0, 32]]),
            r("gpu-tiled", 1000, samples_ms=[1.0], block_trace=[[0, 2, 0, 64]]),
        ]
    )
    prof = Session(
        results=[
            r("gpu-tiled", 1024, samples_ms=[5.0], counters={"dram__bytes_read.sum": 8.4e6}),
            r("cublas", 1024, samples_ms=[5.0]),
        ]
    )
    merged = record.merge(bench, cpu, traces, prof, {"l2_gbs": 8385.0})
    by = {(x.variant, x.m): x for x in merged.results}
    assert len(merged.results) == 5
    tiled = by[("gpu-tiled", 1024)]
    assert tiled.samples_ms == [1.0, 1.2]  # timings from the bench, never from the profile or trace runs
    assert tiled.counters == {"dram__bytes_read.sum": 8.4e6} and tiled.block_trace == [[0, 1, 0, 32]]
    assert by[("cublas", 1024)].counters is None
    assert by[("cpu-naive", 1024)].samples_ms == [900.0] and by[("cpu-naive", 2048)].valid
    assert by[("gpu-tiled", 1000)].block_trace == [[0, 2, 0, 64]]
    assert merged.environment["cpu"] == "Xeon" and merged.environment["ceilings"]["l2_gbs"] == 8385.0
    Session.from_dict(json.loads(json.dumps(merged.to_dict())))  # a valid session file
    assert record.best(merged.results, "fp32", 1024).variant == "gpu-tiled"


def test_the_duration_comes_from_its_own_pass():
    duration = [{"kernel": "k", "counters": {"gpu__time_duration.sum": 72.8}}]
    full = [{"kernel": "k", "counters": {"gpu__time_duration.sum": 86.0, "dram__bytes_read.sum": 5.0}}]
    (row,) = profile.merge_passes(duration, full)
    assert row["counters"] == {"gpu__time_duration.sum": 72.8, "dram__bytes_read.sum": 5.0}
    assert profile.merge_passes(duration, full + full) == full + full  # passes that disagree: the counters' own


def test_duration_only_runs_one_pass(fake_gpu, tmp_path):
    ncu = FakeNcu()
    code = run(
        [
            "profile",
            "--variants",
            "gpu-naive",
            "--sizes",
            "256",
            "--block",
            "16",
            "--repeats",
            "2",
            "--out",
            str(tmp_path / "p.json"),
            "--quiet",
            "--duration-only",
        ],
        ncu,
    )
    assert code == 0 and ncu.metrics == [["gpu__time_duration.sum"]]


def test_rungs_measured_again_replace_only_their_own_results_on_the_same_gpu_driver_and_protocol():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "record_h200", Path(__file__).parents[1] / "benchmarks/record_h200.py"
    )
    record = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(record)
    from gemmviz.core.session.results import Result

    def r(variant, m, ms):
        return Result(
            variant=variant, params={}, m=m, n=m, k=m, backend="cuda", precision="fp32", valid=True, samples_ms=[ms]
        )

    cuda = {
        "available": True,
        "name": "NVIDIA H100 80GB HBM3",
        "driver_cuda_version": "13.0",
        "cublas_version": "13.1.0",
        "sms": 132,
    }
    env = {"backends": {"cuda": cuda}}
    protocol = {"warmup": 3, "repeats": 20, "timing": "kernel", "seed": 0}
    shipped = Session(
        results=[r("gpu-naive", 1024, 9.0), r("gpu-cpasync-any", 1024, 0.08), r("cublas", 1024, 0.06)],
        environment=env,
        settings={**protocol, "command": "bench all"},
        created="2026-12-07T07:50:49+00:00",
    )
    rungs = Session(
        results=[r("gpu-cpasync-any", 1024, 0.065), r("cublas", 1024, 0.058), r("gpu-cpasync-any", 4096, 3.0)],
        environment=env,
        settings={**protocol, "command": "bench rungs"},
        created="2026-12-07T16:00:00+00:00",
    )
    merged = record.replace_rungs(shipped, rungs)
    by = {(x.variant, x.m): x.samples_ms for x in merged.results}
    assert by == {
        ("gpu-naive", 1024): [9.0],  # kept as recorded
        ("gpu-cpasync-any", 1024): [0.065],
        ("cublas", 1024): [0.058],  # the baseline measured beside the rung replaces the old one
        ("gpu-cpasync-any", 4096): [3.0],  # a job the session lacked is added
    }
    (note,) = merged.settings["rerecorded"]
    assert note["created"] == rungs.created and note["replaced"] == 2 and note["command"] == "bench rungs"
    assert merged.created == shipped.created
    Session.from_dict(json.loads(json.dumps(merged.to_dict())))  # a valid session file
    other_gpu = {"backends": {"cuda": {**cuda, "name": "NVIDIA H200"}}}
    other_driver = {"backends": {"cuda": {**cuda, "cublas_version": "13.2.0"}}}
    for bad in (
        Session(results=rungs.results, environment=other_gpu, settings=rungs.settings),
        Session(results=rungs.results, environment=other_driver, settings=rungs.settings),
        Session(results=rungs.results, environment=env, settings={**rungs.settings, "repeats": 5}),
    ):
        with pytest.raises(SystemExit, match="not merged"):
            record.replace_rungs(shipped, bad)
