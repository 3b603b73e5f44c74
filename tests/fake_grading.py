"""A stand-in for `gemmviz exercise check` in grading tests: the recorded H200 check of the kernel a file names
(its first line: // as tiled_or), logging each call; shared by tests/test_exercise_grade.py and
tests/test_grade_trust.py. The spawned workers import this module for fake_check."""

from __future__ import annotations

import csv
import io
import json
import os
import time
from pathlib import Path

from gemmviz.backends.exercise import Cancelled
from gemmviz.core.exercise.exercises import check_signature, read_source
from gemmviz.core.exercise.grading import columns

DATA = Path(__file__).parent / "data" / "exercises"
RECORDED = {"tiled_good": "tiled_good", "tiled_or": "tiled_or", "tiled_conflicts": "tiled_conflicts"}


def fake_check(path, exercise, options=None, progress=None):
    """The recorded check of the kernel the file holds (its first line names it: // as tiled_or); logs the call.
    A file whose first line is // hang waits for the run's cancel flag, as a check's child step does; one whose
    first line is // die kills its worker process (as the kernel's OOM killer, or a kill -9, would)."""
    source = read_source(path)
    check_signature(source, exercise)
    with open(os.environ["GRADE_FAKE_LOG"], "a", encoding="utf-8", errors="surrogateescape") as log:
        log.write(f"{Path(path).name}\n")
    first = source.split("\n", 1)[0]
    if first.startswith("// die"):
        os.kill(os.getpid(), 9)
    if first.startswith("// hang"):
        while not options.cancel.is_set():
            time.sleep(0.01)
        raise Cancelled
    name = first.removeprefix("// as ").strip()
    record = json.loads((DATA / "records" / f"{RECORDED[name]}.check.json").read_text(encoding="utf-8"))
    record["file"] = str(path)
    return record


def main(argv: list[str]) -> int:
    """The CLI, imported when a test calls it: the spawned workers import this module for fake_check, and the
    CLI's imports (a third of a second each) are no part of a check."""
    from gemmviz.cli.main import main as cli

    return cli(argv)


def _kernel(path: Path, as_name: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"// as {as_name}\n" + (DATA / f"{as_name}.cu").read_text(encoding="utf-8"), encoding="utf-8")
    return path


def _rows(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    assert reader.fieldnames == columns()
    return list(reader)


def _calls(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8", errors="surrogateescape").split() if log.exists() else []
