"""core/schema.py, the one mechanism behind the loaders' field checks: every format's wording fills every refusal
(a template naming a value the check does not give would be a KeyError, a crash, instead of a message), and the
checks compose into a format's schema."""

import pytest

from gemmviz.core.exercise.exercises import ExerciseError, _schema
from gemmviz.core.exercise.record_schema import RECORD, CheckFileError
from gemmviz.core.fileio import FileFormatError
from gemmviz.core.schema import NonFinite, Schema
from gemmviz.core.session.checks import SESSION, SessionError
from gemmviz.core.settings import SETTINGS, SettingError

FORMATS = {
    "session": (SESSION, SessionError),
    "check record": (RECORD, CheckFileError),
    "settings": (SETTINGS, SettingError),
    "exercise": (_schema("my {odd} exercise.toml"), ExerciseError),  # braces in a path are not a template's
}

# a check and values it refuses, one for each sentence of a Wording
REFUSED = [
    (lambda s: s.whole(1, 10), ["7", True, 0, 11, 2**70]),
    (lambda s: s.whole(1, None), [0, -5]),
    (lambda s: s.whole(None, 10), [11]),
    (lambda s: s.number(0.0, 4.0), ["1", None, float("nan"), NonFinite("Infinity"), -1, 4.5]),
    (lambda s: s.number(0.0, 4.0, above=True), [0, 0.0]),
    (lambda s: s.boolean, [1, "true", None]),
    (lambda s: s.text(5), [5, None, "abcdef", "a\x1bb"]),
    (lambda s: s.one_of("a", "b"), ["c", 1, None]),
    (lambda s: s.list_of(s.whole(0, 9), 3), ["x", [1, 2, 3, 4], [1, "2"]]),
    (lambda s: s.list_of(s.whole(0, 9), 3, exact=2), [[1]]),
    (lambda s: s.fields({"a": s.whole(0, 9)}, ("a",)), [[], {"b": 1}, {}, {"a": -1}]),
]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_refusal_of_every_format_is_its_error_in_one_line(fmt):
    schema, error = FORMATS[fmt]
    assert issubclass(error, FileFormatError)
    for make, values in REFUSED:
        check = make(schema)
        for value in values:
            with pytest.raises(error) as caught:
                check(value, "results[3].m")
            text = str(caught.value)
            assert text and "\n" not in text and "{" not in text.replace("{odd}", ""), (fmt, value, text)


def test_the_checks_compose_and_keep_only_what_they_checked():
    s = Schema(lambda where, message: SessionError(message, where))
    shape = s.fields(
        {"size": s.list_of(s.whole(1, 65536), 3, exact=3), "note": s.optional(s.text(40, "strip", cut=True))},
        ("size",),
    )
    assert shape({"size": [1, 2, 3], "note": "ok\x1b[31m"}, "shape") == {"size": [1, 2, 3], "note": "ok[31m"}
    with pytest.raises(SessionError) as caught:
        shape({"size": [1, 0, 3]}, "shapes[2]")
    assert caught.value.field == "shapes[2].size[1]"
    assert str(caught.value) == "shapes[2].size[1]: 0 is out of range (1..65536)"
