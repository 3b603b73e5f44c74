"""A saved check whose right sizes lack the optional rel_error and error_margin still loads (the refusal texts
for those figures were formatted eagerly, a TypeError on None that surfaced as "a bug in gemmviz?")."""

import json
from pathlib import Path

from gemmviz.core.exercise.record import validate_check

RECORD = Path(__file__).parent / "data" / "exercises" / "records" / "naive_good.check.json"


def test_an_ok_size_without_its_optional_figures_validates():
    data = json.loads(RECORD.read_text())
    check = data["check"] if "check" in data else data
    ok = [s for s in check["shapes"] if s["status"] == "ok"]
    assert ok
    for s in ok:
        s.pop("rel_error", None)
        s.pop("error_margin", None)
    validate_check(data)
