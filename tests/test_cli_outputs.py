"""The CLI's outputs and exit codes: targets checked before any job, results saved as they finish,
Ctrl+C and crashes keep what finished, one-line errors, export refusals. Fake backends, no GPU needed."""

import os

import numpy as np
import pytest

import gemmviz.backends
from gemmviz.backends.cpu import CpuBackend
from gemmviz.cli import main
from gemmviz.core import export_formats
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.measure.bench import Backend, new_result
from gemmviz.core.session.results import Result, Session


class _ScriptedGpu(Backend):
    """A 'cuda' backend whose jobs finish at once, verified by numpy; `interrupt_m` raises KeyboardInterrupt
    (as Ctrl+C would) and `crash_m` raises RuntimeError at that size. `seen` records, per job, how many
    results the session file on disk held when the job started."""

    name = "cuda"

    def __init__(self, available=True, interrupt_m=None, crash_m=None, watch=None):
        self.available = available
        self.interrupt_m = interrupt_m
        self.crash_m = crash_m
        self.watch = watch
        self.seen: list[int] = []

    def availability(self):
        return (True, "ok") if self.available else (False, "no CUDA device: scripted backend switched off")

    def device_info(self):
        return {"name": "Scripted GPU"}

    def open(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def run(self, job, variant, inputs, settings, cancel):
        self.seen.append(len(Session.load(self.watch).results) if self.watch and self.watch.exists() else 0)
        if job.problem.m == self.interrupt_m:
            raise KeyboardInterrupt
        if job.problem.m == self.crash_m:
            raise RuntimeError("launch failed: unspecified launch failure")
        rel = float(np.linalg.norm(inputs.a @ inputs.b - inputs.reference) / np.linalg.norm(inputs.reference))
        return new_result(
            job,
            variant,
            "ok",
            rel_error=rel,
            samples_ms=[0.01] * settings.repeats,
            warmup=settings.warmup,
            repeats=settings.repeats,
        )


@pytest.fixture
def gpu(monkeypatch):
    """Install a scripted GPU next to the real CPU backend; returns a function that configures it."""
    holder = {}

    def install(**kw):
        holder["gpu"] = _ScriptedGpu(**kw)
        return holder["gpu"]

    monkeypatch.setattr(gemmviz.backends, "default_backends", lambda: {"cpu": CpuBackend(), "cuda": holder["gpu"]})
    return install


BENCH = ["bench", "--variants", "cpu-blas,gpu-tiled", "--sizes", "16,24,32", "--repeats", "2", "--warmup", "0"]


def test_results_are_on_disk_after_every_job_and_exit_0_when_all_verify(gpu, tmp_path, capsys):
    out = tmp_path / "s.json"
    backend = gpu(watch=out)
    assert main([*BENCH, "--out", str(out)]) == 0
    # gpu-tiled is the 2nd, 4th and 6th job: the file held every result finished before it
    assert backend.seen == [1, 3, 5]
    assert len(Session.load(out).results) == 6
    assert "did not run and verify" not in capsys.readouterr().err


def test_ctrl_c_keeps_the_finished_results_and_exits_130(gpu, tmp_path, capsys):
    out, csv = tmp_path / "s.json", tmp_path / "r.csv"
    gpu(interrupt_m=24)
    assert main([*BENCH, "--out", str(out), "--csv", str(csv)]) == 130
    err = capsys.readouterr().err
    assert f"gemmviz: interrupted after 3 of 6 jobs; saved in {out}, {csv}" in err
    assert "Traceback" not in err
    finished = Session.load(out).results
    assert [(r.variant, r.m) for r in finished] == [("cpu-blas", 16), ("gpu-tiled", 16), ("cpu-blas", 24)]
    assert len(csv.read_text().splitlines()) == 1 + 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "s.json"]  # no temporary files left


def test_a_crashing_job_and_a_refused_size_keep_the_rest_and_exit_1(gpu, tmp_path, capsys):
    out = tmp_path / "s.json"
    gpu(crash_m=16)
    argv = [
        "bench",
        "--variants",
        "cpu-blas,gpu-tiled",
        "--sizes",
        "16,24",
        "--mnk",
        "200000x200000x200000",
        "--repeats",
        "2",
        "--warmup",
        "0",
        "--out",
        str(out),
    ]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[-1].startswith("gemmviz: 3 of 6 jobs did not run and verify")
    results = Session.load(out).results
    # the size too big for memory is refused for every variant, and the run goes on past it
    assert [r.status for r in results] == ["ok", "failed", "ok", "ok", "refused", "refused"]
    assert "unspecified launch failure" in results[1].error
    assert "host memory" in results[4].error and results[5].error


def test_unavailable_gpu_exits_1_naming_the_jobs(gpu, tmp_path, capsys):
    gpu(available=False)
    assert main(["bench", "--variants", "cpu-blas,gpu-tiled", "--sizes", "16", "--repeats", "1"]) == 1
    captured = capsys.readouterr()
    assert "UNAVAILABLE: no CUDA device: scripted backend switched off" in captured.out
    assert "gemmviz: 1 of 2 jobs did not run and verify: gpu-tiled (tile 16) 16³ unavailable" in captured.err


@pytest.mark.parametrize(
    "option, target, message",
    [
        ("--out", "{tmp}", "cannot write {tmp}: it is a folder; give a file name"),
        ("--out", "{tmp}/missing/s.json", "cannot write {tmp}/missing/s.json: the folder {tmp}/missing does not exist"),
        ("--csv", "{tmp}/locked/r.csv", "cannot write {tmp}/locked/r.csv: the folder {tmp}/locked is not writable"),
    ],
)
def test_unwritable_outputs_are_refused_before_the_first_job(
    gpu, tmp_path, monkeypatch, capsys, option, target, message
):
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    # chmod alone does not stop root (these tests may run as root): the folder reads as not writable
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(locked) else real_access(p, mode))
    backend = gpu()
    path = target.format(tmp=tmp_path)
    assert main([*BENCH, option, path]) == 1
    err = capsys.readouterr().err
    assert err == f"gemmviz: error: {message.format(tmp=tmp_path)}\n"
    assert backend.seen == []
    assert ".tmp" not in err


def test_out_and_csv_naming_one_file_is_a_usage_error(gpu, tmp_path, capsys):
    gpu()
    same = str(tmp_path / "x")
    assert main([*BENCH, "--out", same, "--csv", same]) == 2
    assert f"--out and --csv name the same file {same}" in capsys.readouterr().err


def test_an_unexpected_error_is_one_line_unless_debugging(monkeypatch, capsys):
    def broken():
        raise RuntimeError("driver exploded\nsecond line")

    monkeypatch.setattr(gemmviz.backends, "default_backends", broken)
    assert main(["info"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gemmviz: error: RuntimeError: driver exploded (") and err.count("\n") == 1
    monkeypatch.setenv("GEMMVIZ_DEBUG", "1")
    with pytest.raises(RuntimeError, match="driver exploded"):
        main(["info"])


def _session(path, sizes_with_base, sizes_without):
    def result(variant, n, params=None):
        return Result(
            variant=variant,
            params=params or {},
            m=n,
            n=n,
            k=n,
            backend=VARIANTS[variant].backend,
            precision="fp32",
            valid=True,
            samples_ms=[1.0, 1.1],
        )

    results = [result("cpu-naive", n) for n in sizes_with_base]
    results += [result("gpu-tiled", n, {"tile": 16}) for n in sizes_with_base + sizes_without]
    Session(results=results, created="2025-01-01T00:00:00+00:00").save(path)
    return str(path)


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            ["--chart", "speedup", "--at", "100"],
            "--at 100³: the session has no valid results at that size; sizes: 64³, 128³, 256³",
        ),
        (["--chart", "time", "--at", "64x64x32"], "--at 64×64×32: the session has no valid results"),
        (
            ["--chart", "speedup", "--at", "256", "--baseline", "cpu-naive"],
            "no CPU loop result at 256×256×256; sizes with one: 64³, 128³",
        ),
        (
            ["--chart", "dashboard", "--at", "256", "--baseline", "cpu-naive"],
            "no CPU loop result at 256×256×256; sizes with one: 64³, 128³",
        ),
        (
            ["--chart", "speedup", "--baseline", "cublas"],
            "no cuBLAS FP32 result to compare with at any size; baselines with results: cpu-naive",
        ),
        (
            ["--variants", "gpu-tiled", "--chart", "speedup", "--baseline", "cpu-naive"],
            "no CPU loop result to compare with at any size",
        ),
    ],
)
def test_export_refuses_a_view_the_session_has_no_data_for(tmp_path, capsys, extra, message):
    session = _session(tmp_path / "s.json", [64, 128], [256])
    assert main(["export", session, *extra, "-o", str(tmp_path / "c.png")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "c.png").exists()


def test_export_refuses_an_output_folder_before_reading_the_session(tmp_path, capsys):
    assert (
        main(["export", str(tmp_path / "absent.json"), "-o", str(tmp_path)]) == 2
    )  # a folder, not a chart file: bad usage, refused before any work
    suffixes = " or ".join(export_formats.suffixes(export_formats.CHART))  # .png or .svg, and any format added
    assert f"gemmviz: error: {tmp_path}: the file name must end in {suffixes}" in capsys.readouterr().err
