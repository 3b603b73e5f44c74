"""The memory and race findings of a check, whoever found them: compute-sanitizer's tools on a GPU, and the CPU
emulator's (written as memcheck's kinds where they are the same), and the emulator's own finding as its sentence.
Pure Python."""

from __future__ import annotations

from gemmviz.core.messages import Message, msg

MEMORY_KINDS = ("global-oob", "shared-oob", "local-oob", "uninit-shared", "misaligned", "uninit-register")
NOTE_KINDS = ("uninit-shared-unused",)  # reported, failing no goal: unwritten shared words whose value never reached C
RACE_KINDS = ("divergent-barrier", "read-after-write", "write-after-read", "write-after-write")
_EMU_AS_SANITIZER = {"global-oob": "invalid global {access}", "shared-oob": "invalid shared {access}",
                     "local-oob": "invalid local access", "uninit-shared": "uninitialized shared read",
                     "misaligned": "misaligned address", "uninit-register": "uninitialized variable"}  # fmt: skip


def memory_findings(record: dict) -> list[dict]:
    """Out-of-bounds accesses: memcheck's, or the emulator's written as memcheck's kinds ('invalid global write')."""
    found = list(tool_findings(record, "memcheck"))
    for f in (record.get("emulator") or {}).get("findings") or []:
        if f["kind"] in MEMORY_KINDS:
            kind = _EMU_AS_SANITIZER[f["kind"]].format(access=f.get("access") or "access")
            found.append({**f, "kind": kind})
    return found


def race_findings(record: dict) -> list[dict]:
    """Hazards and barrier errors: racecheck's and synccheck's, and the emulator's."""
    found = list(tool_findings(record, "racecheck")) + list(tool_findings(record, "synccheck"))
    return found + [f for f in (record.get("emulator") or {}).get("findings") or [] if f["kind"] in RACE_KINDS]


def in_order(f: dict) -> dict:
    """A hazard's two lines as {"other_line": the earlier, "line": the later}."""
    a, b = f.get("line"), f.get("other_line") or f.get("line")
    if a and b and b > a:
        a, b = b, a
    return {"line": a, "other_line": b}


def tool_findings(record: dict, tool: str) -> list[dict]:
    return ((record.get("sanitizer") or {}).get(tool) or {}).get("findings") or []


def finding_message(f: dict) -> Message:
    """One of the emulator's findings as its sentence: the line, what it is, the fix where it has one."""
    params = {"line": f.get("line") or "?", "count": f.get("count", 1), "other_line": f.get("other_line") or "?"}
    params["matrix"] = f.get("matrix") or "?"
    params["access"] = msg(f"access.{f['access']}") if f.get("access") else msg("access.read")
    params["variable"] = msg("finding.variable", name=f["variable"]) if f.get("variable") else ""
    return msg(f"finding.{f['kind']}", **params)
