"""Arguments as a keyboard types them (issue 46, item 8): ASCII digits only, each variant once, an empty list
refused rather than read as 'all', a negative pair read as a value, and an unwritable standard output ended
with one line and status 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gemmviz.cli.common import UsageError, variant_list
from gemmviz.cli.main import main
from gemmviz.core.parsing import decimal, int_list, parse_pixels, parse_sizes, whole
from gemmviz.core.problem import ProblemError, parse_problem

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("text", ["١٠٢٤", "１０２４", "1_024", "१०२४"])
def test_sizes_in_other_digits_are_refused(text):
    with pytest.raises(ProblemError, match="whole number"):
        parse_problem(text)
    with pytest.raises(ProblemError):
        parse_sizes(text)
    with pytest.raises(ProblemError):
        int_list(f"8,{text}", "--tile")
    with pytest.raises(ProblemError):
        parse_pixels(f"{text}x720")
    with pytest.raises(ProblemError):
        whole(text, "n")


def test_ascii_numbers_still_read():
    assert parse_problem("1024").m == 1024 and whole(" -3 ", "n") == -3 and int_list("8,16,8", "--tile") == [8, 16]
    assert parse_pixels("1280x720") == (1280, 720) and decimal("2.5", "x") == 2.5 and decimal(".5e1", "x") == 5.0
    for bad in ("nan", "inf", "١٫٥", "1e999"):
        with pytest.raises(ProblemError):
            decimal(bad, "x")


def test_the_bench_command_refuses_arabic_indic_sizes_with_exit_2(capsys):
    assert main(["bench", "--variants", "cpu-naive", "--sizes", "١٠٢٤"]) == 2
    assert "--sizes ١٠٢٤" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["exercise", "check", "k.cu", "--seed", "٣"],
        ["animate", "--variant", "gpu-tiled", "--mnk", "64x64x64", "--tile", "١٦", "--gif", "a.gif"],
        ["bench", "--variants", "cpu-naive", "--sizes", "64", "--repeats", "1_0"],
    ],
)
def test_numeric_options_take_ascii_digits_only(capsys, argv):
    """Digits from another script are refused as the option is read ('nan' and 'inf', which float() reads, are
    refused by each option's own one-line check: test_bad_input_more)."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2 and "digits 0-9" in capsys.readouterr().err


def test_a_variant_named_a_thousand_times_is_one_job():
    assert variant_list(",".join(["cpu-naive"] * 1000)) == ["cpu-naive"]
    assert variant_list("gpu-tiled,cpu-naive,gpu-tiled") == ["gpu-tiled", "cpu-naive"]


@pytest.mark.parametrize("text", ["", " ", ",", " , "])
def test_an_empty_variant_list_is_refused_not_read_as_all(text):
    with pytest.raises(UsageError, match="no variants given"):
        variant_list(text)


def test_export_with_an_empty_variants_list_is_exit_2(tmp_path, capsys):
    assert (
        main(["export", "h200-2026-12-02", "--chart", "gflops", "--variants", "", "-o", str(tmp_path / "e.png")]) == 2
    )
    assert "no variants given" in capsys.readouterr().err and not (tmp_path / "e.png").exists()


def test_a_negative_pair_is_read_as_a_value_not_an_option(tmp_path, capsys):
    argv = ["animate", "--variant", "gpu-tiled", "--mnk", "64x64x64", "--tile", "16", "--thread", "-1,-1"]
    assert main([*argv, "--gif", str(tmp_path / "a.gif")]) == 2
    err = capsys.readouterr().err
    assert "--thread -1,-1 is outside the block" in err and "expected one argument" not in err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this OS")
@pytest.mark.parametrize("argv", [["lesson", "--list"], ["--version"]])
def test_an_unwritable_stdout_ends_with_one_line_and_status_1(argv):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # buffered, as in a user's shell
    env["PYTHONPATH"] = str(ROOT)
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "gemmviz", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=60,
        )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert lines[0] == "gemmviz: error: cannot write to standard output: No space left on device"
