"""What the causes of a wrong C read of the check record: the sizes where C was right and wrong, the exercise's
tile, and a message about a source line (the line and its text). Pure Python."""

from __future__ import annotations

from gemmviz.core.exercise import where
from gemmviz.core.messages import Message, msg


def sizes(record: dict) -> tuple[list, list]:
    """(the sizes where C was right, the sizes where it was wrong), as the check ran them."""
    shapes = record.get("shapes") or []
    right = [s["shape"] for s in shapes if s.get("status") == "ok"]
    wrong = [s["shape"] for s in shapes if s.get("status") == "wrong"]
    return right, wrong


def tile_k(record: dict) -> int:
    """The exercise's tile width along K (TILE or BK), from the experiments or the shipped exercise."""
    exp = (record.get("emulator") or {}).get("experiments") or {}
    if exp.get("one_k_shape"):
        return int(exp["one_k_shape"][2])
    try:
        from gemmviz.core.exercise.exercises import find_exercise

        defines = find_exercise(record.get("exercise") or "").defines
    except (ValueError, OSError):
        return 16
    return int(defines.get("TILE") or defines.get("BK") or 16)


def block_tile(record: dict) -> tuple[int, int]:
    """(columns, rows) of C per block of the record's exercise; (16, 16) where it is not a shipped one."""
    try:
        from gemmviz.core.exercise.exercises import find_exercise

        return find_exercise(record.get("exercise") or "").block_tile
    except (ValueError, OSError):
        return 16, 16


def record_source(record: dict) -> str:
    return record.get("source") or ""


def line_msg(key: str, record: dict, line: int | None, **params) -> Message:
    return msg(key, line=line or "?", text=where.source_line(record, line), **params)
