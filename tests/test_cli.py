import json
import os
import subprocess
import sys

import pytest

from gemmviz.cli import main
from gemmviz.core.results import Session


def test_bench_cpu_end_to_end(tmp_path, capsys):
    out, csv = tmp_path / "s.json", tmp_path / "r.csv"
    rc = main(
        ["bench", "--variants", "cpu-naive,cpu-blas", "--sizes", "32,48", "--mnk", "17x33x65",
         "--repeats", "3", "--warmup", "1", "--out", str(out), "--csv", str(csv)]
    )  # fmt: skip
    assert rc == 0
    captured = capsys.readouterr()
    assert "cpu-naive" in captured.out and "median ms" in captured.out and "17×33×65" in captured.out
    assert "6/6" in captured.err  # progress bar reached the end
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
        (["bench", "--sizes", "8", "--variants", "warp-magic"], "unknown variant"),
        (["bench", "--sizes", "8", "--variants", "cpu-blas", "--tile", "a,b"], "comma-separated"),
        (["bench", "--sizes", "8", "--variants", "cpu-blas", "--repeats", "0"], "repeats"),
        (["bench", "--sizes", "8", "--repeats", "x"], "invalid int"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit) if "x" in argv or "frobnicate" in argv else _nothing():
        rc = main(argv)
        assert rc == 2
    assert message in capsys.readouterr().err


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_unsupported_tile_is_reported_not_crashed(capsys):
    rc = main(["bench", "--sizes", "8", "--variants", "gpu-tiled", "--tile", "12", "--quiet"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "UNAVAILABLE" in out or "tile 12 is not supported" in out


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
