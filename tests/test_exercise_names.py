"""A hand-in's file name is no command (issue 47): nvcc hands the file's name to a shell of its own
(sh -c "cicc ... NAME"), so a name with $, `, \\ or " was expanded there. Found by the Slurm test's class of odd
names: `$HOME 144.cu` did not compile ("//root 144.cu: No such file"), a name `touch X`.cu ran `touch X`, and a
newline in a name split nvcc's error line (its line number lost). The check now compiles such a file from a copy
of the text it read, in its own folder."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from gemmviz.backends.exercise import CheckOptions, check_exercise
from gemmviz.core.exercise.exercises import find_exercise

DATA = Path(__file__).parent / "data" / "exercises"
NVCC = shutil.which("nvcc") or (Path("/usr/local/cuda/bin/nvcc") if Path("/usr/local/cuda/bin/nvcc").exists() else None)


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_a_file_name_is_not_run_by_nvccs_shell(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pycuda", None)  # the compile alone: no GPU, no emulator
    monkeypatch.setenv("HOME", str(tmp_path / "nonesuch"))
    folder = tmp_path / 'a "class" $HOME'
    folder.mkdir()
    hand_in = folder / "`touch PWNED` $HOME \\ x.cu"
    shutil.copy(DATA / "tiled_good.cu", hand_in)
    off = CheckOptions(sanitize=False, time=False, profile=False, accesses=False, emulate=False)
    record = check_exercise(hand_in, find_exercise("tiled"), off)
    assert record["compile"]["ok"], record["compile"]
    assert record["file"] == str(hand_in.resolve())
    assert not list(tmp_path.rglob("PWNED")) and not list(Path.cwd().glob("PWNED"))
    broken = folder / "new\nline.cu"  # nvcc's error names the file: a newline in it split the error's line
    broken.write_text(hand_in.read_text(encoding="utf-8").replace("__syncthreads();", "__syncthreads()", 1))
    record = check_exercise(broken, find_exercise("tiled"), off)
    assert [(d["line"], d["severity"]) for d in record["compile"]["diagnostics"]][:1] == [(17, "error")]
