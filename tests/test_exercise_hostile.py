"""Hostile inputs to the exercise checker (issue: exercise hostile inputs): a malformed check record is refused
in one line naming the field and what it must be, in the CLI (exit 2, nothing printed on stdout) and in the
Exercise tab (the check shown before stays); an unknown exercise is refused listing the known ones; bounds
read as people write them (2^63 - 1, not …808); every subcommand's --help explains its arguments and the exit
status."""

import copy
import json

import pytest

from gemmviz.cli.main import main
from gemmviz.core.exercise.exercises import shipped_exercises
from gemmviz.core.exercise.record import CheckFileError, bound_text, load_check, validate_check
from tests.checks.hostile_records import DATA, GOOD, HOSTILE


@pytest.mark.parametrize(("edit", "words"), HOSTILE)
def test_a_malformed_record_is_refused_naming_the_field(edit, words):
    record = copy.deepcopy(GOOD)
    edit(record)
    with pytest.raises(CheckFileError) as info:
        validate_check(record)
    message = str(info.value)
    assert words in message and "\n" not in message and len(message) < 300


@pytest.mark.parametrize(("edit", "words"), HOSTILE[:8] + HOSTILE[15:])
def test_the_cli_refuses_it_in_one_line_with_exit_2(tmp_path, capsys, edit, words):
    record = copy.deepcopy(GOOD)
    edit(record)
    bad = tmp_path / "x.check.json"
    bad.write_text(json.dumps(record), encoding="utf-8")
    assert main(["exercise", "show", str(bad)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and str(bad) in err and words in err


def test_every_shipped_record_still_opens():
    for path in sorted((DATA / "records").glob("*.check.json")):
        assert load_check(path)["verdicts"], path


def test_the_known_exercises_can_be_given():
    """The tab passes the exercises its picker lists: a record of one of them opens, of another is refused."""
    assert load_check(DATA / "records" / "tiled_good.check.json", ["tiled"])
    with pytest.raises(CheckFileError, match="known: naive$"):
        load_check(DATA / "records" / "tiled_good.check.json", ["naive"])


def test_bounds_read_as_people_write_them():
    assert bound_text(2**63 - 1) == "2^63 - 1" and bound_text(2**32) == "2^32" and bound_text(65536) == "65,536"


@pytest.mark.parametrize("args", [["start", "nonesuch"], ["hint", "nonesuch"]])
def test_an_unknown_exercise_is_refused_listing_the_known_ones(tmp_path, capsys, args):
    assert main(["exercise", *args, *([str(tmp_path)] if args[0] == "start" else [])]) == 2
    err = capsys.readouterr().err
    assert "nonesuch" in err and ", ".join(e.name for e in shipped_exercises()) in err  # the files' list
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("action", ["start", "hint", "check", "show", "grade"])
def test_every_subcommand_help_explains_each_argument_and_the_exit_status(capsys, action):
    with pytest.raises(SystemExit) as done:
        main(["exercise", action, "-h"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    positional = lines[lines.index("positional arguments:") + 1 :]
    positional = positional[: positional.index("")]
    named = [line.split()[0] for line in positional if line.startswith("  ") and not line.startswith("    ")]
    assert named and all(len(line.split()) > 1 for line in positional if line.split()[0] in named), text
    assert "exit status:" in text and "  2 " in text and "malformed" in text


def test_the_seed_bound_is_said_exactly(tmp_path, capsys):
    import shutil

    shutil.copy(DATA / "tiled_good.cu", tmp_path / "tiled.cu")
    assert main(["exercise", "check", str(tmp_path / "tiled.cu"), "--seed", str(2**63)]) == 2
    err = capsys.readouterr().err
    assert "2^63 - 1" in err and "808" not in err.split("got")[0]


def test_a_record_with_a_byte_order_mark_opens(tmp_path):
    """Notepad writes one: the record opens as it would without it."""
    path = tmp_path / "bom.check.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(GOOD).encode("utf-8"))
    assert load_check(path)["verdicts"] == load_check(DATA / "records" / "tiled_good.check.json")["verdicts"]


@pytest.mark.parametrize(
    ("data", "words", "not_words"),
    [
        (b'{"seed": ' + b"9" * 5000 + b"}", "a number with thousands of digits", "sys."),
        (b"\xff\xfe{}", "not UTF-8 text", "codec"),
    ],
)
def test_unreadable_records_are_said_without_python(tmp_path, data, words, not_words):
    path = tmp_path / "x.check.json"
    path.write_bytes(data)
    with pytest.raises(CheckFileError) as info:
        load_check(path)
    assert words in str(info.value) and not_words not in str(info.value)


def test_a_missing_record_says_cannot_read_once(tmp_path, capsys):
    assert main(["exercise", "show", str(tmp_path / "none.check.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("cannot read") == 1 and "No such file" in err


@pytest.mark.parametrize("out", ["folder", "x.txt"])
def test_check_out_that_is_not_a_json_file_is_usage(tmp_path, capsys, out):
    import shutil

    shutil.copy(DATA / "tiled_good.cu", tmp_path / "tiled.cu")
    (tmp_path / "folder").mkdir()
    assert main(["exercise", "check", str(tmp_path / "tiled.cu"), "--out", str(tmp_path / out)]) == 2
    assert "ending in .json" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "tiled.cu"]
