"""One check per distinct hand-in: `gemmviz exercise grade` checks a file whose text a file before it
in the same grading process had, for the same exercise and options, only once, and gives it a copy of that
check's record. Identical bytes get identical grades (a copied hand-in, the starter handed in unchanged), and a
class of copies costs what its distinct files cost.

The records are kept in the worker process's memory, for the length of the grading run, never on disk: a rerun
with another gemmviz, nvcc or GPU checks afresh. A check that was cancelled or broke is not kept."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
from pathlib import Path

from gemmviz.backends.exercise import CheckOptions, ProgressFn, check_exercise
from gemmviz.core.exercise.exercises import Exercise, read_source

MAX_KEPT = 512  # distinct records kept per process (a few KiB each)
_RECORDS: dict[tuple, dict] = {}


def _key(source: str, exercise: Exercise, options: CheckOptions) -> tuple:
    digest = hashlib.sha256(source.encode("utf-8", "surrogateescape")).hexdigest()
    # every option but the run's cancel flag and the folder for the check's files, which are no part of the result
    settings = repr(
        [(f.name, getattr(options, f.name)) for f in dataclasses.fields(options) if f.name not in ("cancel", "scratch")]
    )
    return digest, exercise.name, str(exercise.folder), exercise.kernel, settings


def check_once(
    path: str | Path, exercise: Exercise, options: CheckOptions | None = None, progress: ProgressFn | None = None
) -> dict:
    """check_exercise's record for `path`, checked only if no file with the same text was checked before in this
    process with the same exercise and options. Raises what check_exercise raises."""
    options = options or CheckOptions()
    key = _key(read_source(Path(path)), exercise, options)  # ExerciseError for a file that cannot be read
    if key in _RECORDS:
        record = copy.deepcopy(_RECORDS[key])
        record["file"] = str(Path(path).resolve())
        return record
    record = check_exercise(path, exercise, options, progress)
    checked = _key(record.get("source", ""), exercise, options)  # the text the check read, if it changed since
    if len(_RECORDS) < MAX_KEPT:
        _RECORDS[checked] = copy.deepcopy(record)
    return record
