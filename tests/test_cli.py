import io
import json
import os
import subprocess
import sys

import pytest

from gemmviz.cli import main
from gemmviz.cli.common import Progress
from gemmviz.core.session.results import Session


def test_bench_cpu_end_to_end(tmp_path, capsys):
    out, csv = tmp_path / "s.json", tmp_path / "r.csv"
    rc = main(
        [
            "bench",
            "--variants",
            "cpu-naive,cpu-blas",
            "--sizes",
            "32,48",
            "--mnk",
            "17x33x65",
            "--repeats",
            "3",
            "--warmup",
            "1",
            "--out",
            str(out),
            "--csv",
            str(csv),
        ]
    )
    assert rc == 0
    captured = capsys.readouterr()
    assert "cpu-naive" in captured.out and "median ms" in captured.out and "17×33×65" in captured.out
    assert "\r" not in captured.err  # stderr is not a terminal here: no progress bar drawn into it
    assert f"session written to {out}" in captured.err
    session = Session.load(out)
    assert len(session.results) == 6 and all(r.valid for r in session.results)
    assert session.settings["repeats"] == 3 and session.environment["python"]
    assert len(csv.read_text().splitlines()) == 7


@pytest.mark.parametrize(
    "argv, message",
    [
        (["bench", "--sizes", "0", "--variants", "cpu-blas"], "at least 1"),
        (["bench", "--sizes", "-3", "--variants", "cpu-blas"], "at least 1"),
        (["bench", "--sizes", "big", "--variants", "cpu-blas"], "whole number"),
        (["bench", "--variants", "cpu-blas"], "at least one size"),
        (["bench", "--sizes", "8", "--variants", "warp-magic"], "unknown variant(s) warp-magic; known: cpu-naive"),
        (["bench", "--sizes", "8", "--variants", ","], "no variants given"),
        (["bench", "--sizes", "8", "--variants", "cpu-blas", "--tile", "a,b"], "comma-separated"),
        (["bench", "--sizes", "8", "--variants", "cpu-blas", "--tile", "16"], "--tile: none of cpu-blas has a tile"),
        (["bench", "--sizes", "8", "--variants", "cpu-blas", "--repeats", "0"], "repeats must be at least 1"),
        (["bench", "--sizes", "8", "--variants", "cpu-blas", "--warmup", "-1"], "warm-up must be 0 or more"),
        (["model", "--mnk", "64", "--variant", "cublas", "--tile", "16"], "cublas has no tile"),
        (["tune", "--variants", "gpu-tiled"], "gpu-tiled has no tuning space (tunable: gpu-vectorize"),
        (["tune", "--size", "100"], "multiple of 128"),
    ],
)
def test_bad_arguments_return_2_with_a_message(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and err.startswith("gemmviz: error: ")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["bench", "--sizes", "8", "--repeats", "x"], "invalid int value: 'x'"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["export", "s.json", "--chart", "pie", "-o", "a.png"], "invalid choice: 'pie'"),
        (["animate", "--mnk", "64", "--variant", "cublas", "--frames", "f"], "invalid choice: 'cublas'"),
    ],
)
def test_argparse_errors_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: gemmviz") and "gemmviz: error: " in err and message in err


def test_unsupported_tile_is_refused_before_any_job_on_any_machine(tmp_path, capsys):
    out = tmp_path / "s.json"
    rc = main(["bench", "--sizes", "8", "--variants", "gpu-tiled", "--tile", "12", "--quiet", "--out", str(out)])
    assert rc == 2
    assert "gemmviz: error: gpu-tiled: tile 12 is not supported (choose 8, 16, 32)" in capsys.readouterr().err
    assert not out.exists()


def test_info_says_why_there_is_no_gpu_in_one_line():
    proc = subprocess.run([sys.executable, "-m", "gemmviz", "info"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    gpu_lines = [line for line in proc.stdout.splitlines() if line.startswith(("GPU:", "No CUDA GPU:"))]
    assert len(gpu_lines) == 1
    if gpu_lines[0].startswith("No CUDA GPU:"):
        assert any(w in gpu_lines[0] for w in ("PyCUDA", "driver", "device"))
    assert "cpu-naive    available" in proc.stdout


def test_info_json_is_parseable(capsys):
    assert main(["info", "--json"]) == 0
    env = json.loads(capsys.readouterr().out)
    assert env["backends"]["cpu"]["available"] is True


def test_console_entry_point_is_declared():
    text = open(os.path.join(os.path.dirname(__file__), "..", "pyproject.toml")).read()
    assert 'gemmviz = "gemmviz.cli:main"' in text


def test_help_documents_the_exit_codes(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    for line in (
        "0    every job ran and verified",
        "1    some jobs were refused",
        "2    bad arguments",
        "130  interrupted",
    ):
        assert line in out


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_draws_on_a_terminal_and_stays_quiet_in_a_pipe():
    for stream, drawn in ((_Terminal(), True), (io.StringIO(), False)):
        progress = Progress(stream)
        for done in range(4):
            progress(done, 3, f"job {done}")
        assert ("3/3" in stream.getvalue()) is drawn
        assert ("\r" in stream.getvalue()) is drawn
    forced_off = _Terminal()
    Progress(forced_off, enabled=False)(0, 3, "job")
    assert forced_off.getvalue() == ""


BLOCKED_QT = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph', 'PyQt5', 'PyQt6', 'pycuda', 'numba'):
            raise ImportError('blocked: ' + name)
sys.meta_path.insert(0, Block())
from gemmviz.cli.main import build_parser
parser = build_parser()
commands = sorted(parser._subparsers._group_actions[0].choices)
for argv in [["--help"]] + [[c, "--help"] for c in commands]:
    try:
        parser.parse_args(argv)
    except SystemExit as exc:
        assert exc.code == 0, (argv, exc.code)
    else:
        raise AssertionError(f"{argv} did not exit")
heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'pycuda', 'numba', 'tqdm'))
assert not heavy, heavy
print("COMMANDS", " ".join(commands))
"""


def test_parser_and_every_help_build_with_qt_pycuda_and_numba_blocked():
    proc = subprocess.run([sys.executable, "-c", BLOCKED_QT], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    commands = proc.stdout.strip().splitlines()[-1].split()[1:]
    assert commands == [
        "animate",
        "bench",
        "ceilings",
        "exercise",
        "export",
        "info",
        "lesson",
        "model",
        "profile",
        "tune",
    ]
