"""The one output writer (core/fileio.py) and every command's outputs: a regular file or nothing, links
followed to a regular file or refused, writability tested by creating a file before any work, one writer per
file, and a write that fails mid-run keeps the previous file, goes on to a fallback named on stderr and still
prints every result. Fake backends, no GPU needed."""

import errno
import os
import re
import socket
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import gemmviz.backends
from gemmviz.backends.cpu import CpuBackend
from gemmviz.cli import main
from gemmviz.core import fileio
from gemmviz.core.fileio import OutputError, check_target, write_atomic
from gemmviz.core.session.results import Session
from tests.fakes import InstantGpu

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def gpu(monkeypatch):
    holder = {}

    def install(**kw):
        holder["gpu"] = InstantGpu(**kw)
        return holder["gpu"]

    monkeypatch.setattr(gemmviz.backends, "default_backends", lambda: {"cpu": CpuBackend(), "cuda": holder["gpu"]})
    return install


BENCH = ["bench", "--variants", "gpu-tiled", "--sizes", "16,24,32", "--repeats", "2", "--warmup", "0", "--quiet"]


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("gemmviz: error:")]
    assert len(lines) == 1, err
    assert "a bug in gemmviz" not in err and "Traceback" not in err
    return lines[0]


# ---- the writer ------------------------------------------------------------------------------------------
@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


def test_a_device_node_is_refused_and_left_alone():
    for call in (lambda: check_target("/dev/null"), lambda: write_atomic("/dev/null", "x")):
        with pytest.raises(OutputError, match=r"/dev/null: it is a device, not a regular file"):
            call()
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_fifo_is_refused_without_blocking(fifo):
    with pytest.raises(OutputError, match="it is a FIFO"):
        check_target(fifo)
    with pytest.raises(OutputError, match="it is a FIFO"):
        write_atomic(fifo, "x")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_socket_is_refused(tmp_path):
    path = tmp_path / "s.sock"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
        with pytest.raises(OutputError, match="it is a socket"):
            write_atomic(path, "x")
    finally:
        sock.close()


def test_a_link_to_a_regular_file_is_written_through_and_kept(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    check_target(link)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]


def test_a_relative_link_in_another_folder_writes_its_target(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "data" / "s.json").write_text("old")
    link = tmp_path / "out" / "s.json"
    link.symlink_to("../data/s.json")
    write_atomic(link, "new")
    assert (tmp_path / "data" / "s.json").read_text() == "new" and link.is_symlink()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: d.joinpath("l").symlink_to("/dev/null"), "it is a device"),
        (lambda d: d.joinpath("l").symlink_to(d), "it is a folder"),
        (lambda d: d.joinpath("l").symlink_to(d / "nowhere"), "a symbolic link to .*nowhere, which does not exist"),
        (lambda d: d.joinpath("l").symlink_to(d / "l"), "a loop of symbolic links"),
        (lambda d: (os.mkfifo(d / "f"), d.joinpath("l").symlink_to(d / "f")), "it is a FIFO"),
    ],
    ids=["to-device", "to-folder", "dangling", "loop", "to-fifo"],
)
def test_links_to_anything_but_a_regular_file_are_refused_never_replaced(tmp_path, make, message):
    make(tmp_path)
    link = tmp_path / "l"
    target = os.readlink(link)
    for call in (check_target, lambda p: write_atomic(p, "x")):
        with pytest.raises(OutputError, match=message):
            call(link)
    assert link.is_symlink() and os.readlink(link) == target


def test_an_empty_name_is_refused():
    for call in (lambda: check_target(""), lambda: write_atomic("", "x")):
        with pytest.raises(OutputError, match="an empty file name"):
            call()


def test_writability_is_tested_by_creating_a_file(tmp_path, monkeypatch):
    real_mkstemp = fileio.tempfile.mkstemp

    def refuse(*a, **kw):  # what /proc does, even for root (whom os.access lets through)
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(fileio.tempfile, "mkstemp", refuse)
    with pytest.raises(OutputError, match=r"cannot write .*x\.json: Permission denied"):
        check_target(tmp_path / "x.json")
    monkeypatch.setattr(fileio.tempfile, "mkstemp", real_mkstemp)
    check_target(tmp_path / "x.json")
    assert list(tmp_path.iterdir()) == []  # the test file is gone again


def test_proc_is_refused_by_creating_a_file():
    with pytest.raises(OutputError, match=r"cannot write /proc/x\.json"):
        check_target("/proc/x.json")


def test_a_failed_write_keeps_the_previous_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "s.json"
    target.write_text("previous")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError, match=r"cannot write .*s\.json: No space left on device"):
        write_atomic(target, "new")
    assert target.read_text() == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_a_replaced_file_keeps_its_permissions(tmp_path):
    target = tmp_path / "private.json"
    target.write_text("x")
    target.chmod(0o600)
    write_atomic(target, "y")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 and target.read_text() == "y"


def test_a_lock_file_that_is_a_link_is_refused(tmp_path):
    (tmp_path / ".s.json.lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OutputError, match="lock file .* is a symbolic link"):
        write_atomic(tmp_path / "s.json", "x")
    assert not (tmp_path / "elsewhere").exists()


def test_no_lock_file_is_left_after_a_write_or_a_release(tmp_path):
    write_atomic(tmp_path / "a.json", "x")
    fileio.hold(tmp_path / "b.json")
    assert (tmp_path / ".b.json.lock").exists()
    write_atomic(tmp_path / "b.json", "y")  # this process holds it: allowed
    fileio.release(tmp_path / "b.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]


HOLDER = textwrap.dedent("""
    import sys
    from gemmviz.core import fileio
    fileio.hold(sys.argv[1])
    print("held", flush=True)
    sys.stdin.read()
""")


@pytest.fixture
def held_elsewhere():
    """Another process holding a file's lock (as a running `gemmviz bench --out` does) until the test ends."""
    procs = []

    def hold(path):
        proc = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        procs.append(proc)
        assert proc.stdout.readline().strip() == "held"  # waits for the condition, not for a time
        return proc

    yield hold
    for proc in procs:
        proc.stdin.close()
        proc.wait(timeout=30)


def test_a_second_writer_is_refused_while_the_first_holds_the_file(tmp_path, held_elsewhere):
    target = tmp_path / "s.json"
    proc = held_elsewhere(target)
    for call in (check_target, lambda p: write_atomic(p, "x"), fileio.hold):
        with pytest.raises(OutputError, match="another gemmviz is writing it"):
            call(target)
    assert not target.exists()
    proc.stdin.close()
    proc.wait(timeout=30)
    write_atomic(target, "mine")  # the first writer finished: free again
    assert target.read_text() == "mine"


# ---- the commands ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv",
    [
        [*BENCH, "--out", ""],
        [*BENCH, "--csv", ""],
        [*BENCH, "--out", "   "],
        ["profile", "--variants", "gpu-tiled", "--sizes", "16", "--out", ""],
        ["tune", "--variants", "gpu-vectorize", "--csv", ""],
        ["ceilings", "--save-to", ""],
        ["export", "h200-2026-12-01", "-o", ""],
        ["animate", "--mnk", "32", "--gif", ""],
        ["animate", "--mnk", "32", "--mp4", ""],
        ["animate", "--mnk", "32", "--frames", ""],
        ["tune", "--variants", "gpu-vectorize", "--save-to", ""],
        ["lesson", "seed-000", "--export", ""],
    ],
    ids=[
        "bench-out",
        "bench-csv",
        "bench-blank",
        "profile",
        "tune",
        "ceilings",
        "export",
        "gif",
        "mp4",
        "frames",
        "tune-save-to",
        "lesson",
    ],
)
def test_an_empty_output_name_is_a_usage_error(gpu, argv, capsys):
    gpu()
    assert main(argv) == 2
    assert re.search(r"an empty (file|folder) name", _one_error_line(capsys.readouterr().err))


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: Path("/dev/null"), "it is a device"),
        (lambda d: (os.mkfifo(d / "p.json"), d / "p.json")[1], "it is a FIFO"),
        (lambda d: (d.joinpath("l.json").symlink_to("/dev/zero"), d / "l.json")[1], "it is a device"),
        (lambda d: (d.joinpath("l.json").symlink_to(d / "l.json"), d / "l.json")[1], "a loop of symbolic links"),
        (lambda d: Path("/proc/x.json"), "cannot write /proc/x.json"),
    ],
    ids=["dev-null", "fifo", "link-to-device", "link-loop", "proc"],
)
@pytest.mark.parametrize("option", ["--out", "--csv"])
def test_bench_refuses_a_bad_output_before_the_first_job(gpu, tmp_path, capsys, make, message, option):
    backend = gpu()
    path = make(tmp_path)
    assert main([*BENCH, option, str(path)]) == 1
    assert message in _one_error_line(capsys.readouterr().err)
    assert backend.ran == []
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_bench_writes_through_a_link_to_a_regular_file(gpu, tmp_path):
    gpu()
    real = tmp_path / "real.json"
    real.write_text("{}")
    (tmp_path / "link.json").symlink_to(real)
    assert main([*BENCH, "--out", str(tmp_path / "link.json")]) == 0
    assert (tmp_path / "link.json").is_symlink() and len(Session.load(real).results) == 3


def test_bench_refuses_an_output_another_gemmviz_is_writing(gpu, tmp_path, capsys, held_elsewhere):
    backend = gpu()
    out = tmp_path / "s.json"
    out.write_text("the first run's results")
    held_elsewhere(out)
    assert main([*BENCH, "--out", str(out)]) == 1
    assert "another gemmviz is writing it" in _one_error_line(capsys.readouterr().err)
    assert backend.ran == [] and out.read_text() == "the first run's results"


def test_two_bench_processes_on_one_out_the_second_is_refused(tmp_path):
    """The real thing: two processes; the second exits 1 at once and the first one's results stay whole."""
    out = tmp_path / "s.json"
    first = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert first.stdout.readline().strip() == "held"
    second = subprocess.run(
        [
            sys.executable,
            "-m",
            "gemmviz",
            "bench",
            "--variants",
            "cpu-blas",
            "--sizes",
            "8",
            "--out",
            str(out),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    first.stdin.close()
    first.wait(timeout=30)
    assert second.returncode == 1, second.stderr
    assert "another gemmviz is writing it" in second.stderr and not out.exists()


def test_bench_holds_its_outputs_until_it_ends(gpu, tmp_path):
    out = tmp_path / "s.json"
    seen = []
    gpu(before=lambda job: seen.append((tmp_path / ".s.json.lock").exists()))
    assert main([*BENCH, "--out", str(out)]) == 0
    assert seen == [True, True, True]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


def test_bench_goes_on_to_a_fallback_when_the_folder_vanishes_mid_run(gpu, tmp_path, capsys):
    folder = tmp_path / "results"
    folder.mkdir()
    out, csv = folder / "s.json", folder / "r.csv"

    def remove_folder(job):
        if job.problem.m == 24 and folder.exists():
            for p in folder.iterdir():
                p.unlink()
            folder.rmdir()

    backend = gpu(before=remove_folder)
    assert main([*BENCH, "--out", str(out), "--csv", str(csv)]) == 1
    captured = capsys.readouterr()
    assert backend.ran == [16, 24, 32]  # every job ran
    assert len([line for line in captured.out.splitlines() if line.startswith("gpu-tiled")]) == 3  # and is printed
    fallbacks = [
        line.rsplit(" to ", 1)[1].split(" instead")[0] for line in captured.err.splitlines() if "goes to" in line
    ]
    assert len(fallbacks) == 2, captured.err
    session_fallback = next(Path(f.split(" goes to ")[-1]) for f in fallbacks if f.endswith("s.json"))
    assert len(Session.load(session_fallback).results) == 3  # nothing that finished is lost
    assert f"could not write {out}, {csv}" in captured.err
    assert "Traceback" not in captured.err


def test_bench_with_a_full_disk_keeps_the_previous_file_and_prints_every_result(gpu, tmp_path, capsys, monkeypatch):
    out = tmp_path / "s.json"
    out.write_text("previous")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    backend = gpu()
    monkeypatch.setattr(os, "fsync", full)
    assert main([*BENCH, "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert backend.ran == [16, 24, 32]
    assert len([line for line in captured.out.splitlines() if line.startswith("gpu-tiled")]) == 3
    assert out.read_text() == "previous"
    assert "No space left on device" in captured.err and "session NOT written" in captured.err
    assert captured.err.count("warning:") == 1  # said once, not after every job


def test_bench_whose_session_cannot_be_written_still_runs_every_job_and_prints_it(gpu, tmp_path, capsys, monkeypatch):
    """A refusal from the session writer itself (not the disk) ends no run either: every result is printed."""

    def refuse(self, path):
        raise ValueError("results[0]: refused by the writer")

    monkeypatch.setattr(Session, "save", refuse)
    backend = gpu()
    assert main([*BENCH, "--out", str(tmp_path / "s.json")]) == 1
    captured = capsys.readouterr()
    assert backend.ran == [16, 24, 32]
    assert len([line for line in captured.out.splitlines() if line.startswith("gpu-tiled")]) == 3
    assert "refused by the writer" in captured.err and "a bug in gemmviz" not in captured.err
