"""What a check record's fields must say of one another: no results of a step that never runs after what the
record says happened (timing after a failed compile, a time for a wrong kernel, a size called right with wrong
elements). Its fields are typed first (core/exercise/record_schema.py). Pure Python."""

from __future__ import annotations

from typing import Any

from gemmviz.core.exercise.check import SANITIZER_TOOLS
from gemmviz.core.exercise.record_schema import need


def consistent(record: dict[str, Any]) -> None:
    """Refuse what no check writes: results of steps that never run after what the record says happened."""
    compiled = record["compile"]
    shapes = record["shapes"]
    ran = [t for t in SANITIZER_TOOLS if ((record.get("sanitizer") or {}).get(t) or {}).get("ran")]
    timed = ((record.get("timing") or {}).get("yours") or {}).get("median_ms") is not None
    counted = bool((record.get("counters") or {}).get("yours"))
    traced = (
        (record.get("accesses") or {}).get("trace") is not None if isinstance(record.get("accesses"), dict) else False
    )
    later = [
        name
        for name, there in (
            ("'check.shapes'", bool(shapes)),
            ("'check.sanitizer'", bool(ran)),
            ("'check.timing'", timed),
            ("'check.counters'", counted),
            ("'check.accesses'", traced),
        )
        if there
    ]
    if not compiled.get("ok", False):
        need(
            not later,
            f"{later[0] if later else ''} holds results, but 'check.compile.ok' is not true: nothing runs after a failed compile",
        )
    if record.get("no_gpu") and not record.get("emulator"):
        need(
            not later, f"{later[0] if later else ''} holds results, but 'check.no_gpu' says there was no GPU to run on"
        )
    if record.get("no_gpu"):
        need(
            not (ran or timed or counted),
            "'check.sanitizer', 'check.timing' or 'check.counters' holds results, "
            "but 'check.no_gpu' says there was no GPU to run on",
        )
    from gemmviz.core.kernels.variants import THRESHOLDS

    loosest = max(THRESHOLDS.values())
    for i, s in enumerate(shapes):  # a size called right has the figures of a right result
        if s["status"] != "ok":
            continue
        where = f"'check.shapes[{i}]' is ok, but"
        rel, margin = s.get("rel_error"), s.get("error_margin")
        need(rel is None or rel <= loosest, f"{where} its rel_error {rel} is over the loosest threshold {loosest:g}")
        need(margin is None or margin <= 1, f"{where} its error_margin {margin} is over 1 (outside the bound)")
        need(not s.get("wrong_elements"), f"{where} it has {s.get('wrong_elements')} wrong elements")
        need(not s.get("unwritten"), f"{where} it has {s.get('unwritten')} unwritten elements")
    correct = bool(shapes) and all(s["status"] == "ok" for s in shapes)
    if not correct:
        for name, there in (("'check.timing.yours'", timed), ("'check.counters.yours'", counted)):
            need(
                not there,
                f"{name} holds figures, but 'check.shapes' {'is empty' if not shapes else 'has a wrong size'}: "
                "a kernel that is not right at every size is never timed or profiled",
            )
    need(
        not (traced and not shapes), "'check.accesses' holds a trace, but 'check.shapes' is empty: the kernel never ran"
    )
