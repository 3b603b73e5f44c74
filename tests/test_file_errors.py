"""One base class for every refusal of a file or of a value read from one (core/fileio.FileFormatError): a new
format's error derives from it, so the CLI (and anything that catches many formats) catches the base once."""

import importlib
import inspect
import pkgutil

import pytest

import gemmviz.core
from gemmviz.cli.common import EXIT_USAGE
from gemmviz.core.fileio import FileFormatError

# ValueErrors of core that are not about a file: each says why
NOT_FILES = {
    "gemmviz.core.problem.ProblemError": "a size the user typed (the CLI reports it as a usage error too)",
    "gemmviz.core.exercise.grading.GradeError": "a grading run that cannot go on as asked",
    "gemmviz.core.hardware.gap_parts.GapError": "two kernels that cannot be compared",
}


def _core_value_errors() -> dict[str, type]:
    found = {}
    for info in pkgutil.walk_packages(gemmviz.core.__path__, "gemmviz.core."):
        module = importlib.import_module(info.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, ValueError) and cls.__module__ == info.name and name.endswith("Error"):
                found[f"{info.name}.{name}"] = cls
    return found


def test_every_file_error_of_core_derives_from_the_one_base():
    errors = _core_value_errors()
    assert len(errors) >= 12  # the walk found them: sessions, checks, lessons, exercises, settings, ncu, ...
    astray = [name for name, cls in errors.items() if not issubclass(cls, FileFormatError) and name not in NOT_FILES]
    assert not astray, f"derive these from core.fileio.FileFormatError (or list them in NOT_FILES): {astray}"
    assert set(NOT_FILES) <= set(errors), "NOT_FILES names a class that is gone"
    assert issubclass(FileFormatError, ValueError)  # `except ValueError` still catches every one


@pytest.mark.parametrize(
    "cls",
    [
        "gemmviz.core.session.checks.SessionError",
        "gemmviz.core.exercise.record.CheckFileError",
        "gemmviz.core.lesson.files.LessonError",
        "gemmviz.core.hardware.counters.NcuCsvError",
    ],
)
def test_the_cli_reports_a_refused_file_as_bad_input_in_one_line(cls, capsys):
    main = importlib.import_module("gemmviz.cli.main")  # the module (gemmviz.cli.main is also a function's name)
    module, name = cls.rsplit(".", 1)
    error = getattr(importlib.import_module(module), name)("results[3].samples_ms[0]: not a number")
    assert main._report(error) == EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert err.endswith("results[3].samples_ms[0]: not a number") and "bug" not in err and "\n" not in err
