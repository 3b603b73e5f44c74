"""No raw control byte of a name reaches the terminal (issue 46 item 5): every path and name the CLI prints goes
through core/text.printable. Each command runs with a file or folder name holding ESC, BEL and a newline (an
OSC sequence that retitles a terminal, and a line break that would forge a line), and its stdout and stderr must
hold no control byte but the newlines that end its own lines, and the name escaped where it is printed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "exercises"
HOSTILE = "a\x1b]0;owned\x07\nb"
SHOWN = "a\\x1b]0;owned\\x07\\nb"  # as printable() writes it


def _run(argv: list[str], cwd: Path) -> tuple[int, bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", "GEMMVIZ_DEBUG": ""}
    done = subprocess.run(
        [sys.executable, "-m", "gemmviz", *argv], cwd=cwd, env=env, capture_output=True, timeout=300, check=False
    )
    return done.returncode, done.stdout + done.stderr


def _clean(output: bytes) -> str:
    bad = sorted({hex(b) for b in output if (b < 0x20 and b != 0x0A) or b == 0x7F})
    assert not bad, f"raw control bytes {bad} in:\n{output.decode(errors='replace')}"
    text = output.decode("utf-8")
    assert "owned\x07" not in text and "\nb" not in text.replace(SHOWN, ""), text  # the name never breaks a line
    return text


def test_exercise_check_names_the_record_it_saved_escaped(tmp_path):
    folder = tmp_path / HOSTILE
    folder.mkdir()
    source = folder / f"{HOSTILE}.cu"
    shutil.copy(DATA / "naive_compile_error.cu", source)  # the cheapest check that saves a record
    rc, output = _run(["exercise", "check", str(source), "--exercise", "naive", "--no-accesses"], tmp_path)
    text = _clean(output)
    assert rc == 1 and (folder / f"{HOSTILE}.check.json").exists()
    assert f"saved {tmp_path}/{SHOWN}/{SHOWN}.check.json" in text, text
    rc, output = _run(["exercise", "show", str(folder / f"{HOSTILE}.check.json")], tmp_path)
    assert rc == 0 and SHOWN in _clean(output)


def test_exercise_grade_names_its_folder_and_csv_escaped(tmp_path):
    folder = tmp_path / HOSTILE
    folder.mkdir()
    (folder / f"{HOSTILE}.cu").write_text("not a kernel\n", encoding="utf-8")  # graded without a check
    csv = tmp_path / f"{HOSTILE}.csv"
    rc, output = _run(["exercise", "grade", str(folder), "--exercise", "naive", "--csv", str(csv)], tmp_path)
    text = _clean(output)
    assert rc == 0 and csv.exists()
    assert f"1 file(s) under {tmp_path}/{SHOWN}:" in text and f"grades in {tmp_path}/{SHOWN}.csv" in text, text


def test_a_lesson_export_names_its_folder_escaped(tmp_path):
    out = tmp_path / HOSTILE
    rc, output = _run(["lesson", "seed001-10min", "--export", str(out), "--size", "320x320"], tmp_path)
    text = _clean(output)
    assert rc == 0 and (out / "lesson.pdf").exists()
    assert f"into {tmp_path}/{SHOWN} (320x320)" in text, text
