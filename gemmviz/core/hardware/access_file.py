"""The access-record file: a GPU's traces in one file (`NAME.accesses.json.gz` beside a session, or the shipped
assets/sessions/accesses/*-accesses.json.gz), read with the bounds of core/session/bounds.py and written through
the one writer after reading it back; the traces trimmed to the file's limit. Pure Python + numpy: no Qt."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gemmviz.core.hardware.access_json import from_json, to_json
from gemmviz.core.hardware.access_trace import AccessTrace, what_it_sees
from gemmviz.core.session import bounds
from gemmviz.core.session.checks import MAX_TEXT_CHARS, SessionError, _int, _list, _object, _read_json, _str

FORMAT = "gemmviz-accesses"
SHIPPED_SUFFIX = "-accesses.json.gz"  # assets/sessions/accesses/: a folder of its own, not listed as sessions
VERSION = 1


def keep_first(trace: AccessTrace, per_slot: int, per_pc: int = 8) -> AccessTrace:
    """The trace with only the first `per_slot` requests of each block in detail, and the first `per_pc` of each
    of its instructions (so the final stores stay), totals unchanged: for the shipped file's size limit."""
    keep = np.zeros(trace.kept, bool)
    for s in range(len(trace.blocks)):
        mine = trace.slot == s
        keep[np.nonzero(mine)[0][:per_slot]] = True
        for pc in np.unique(trace.pc[mine]):
            keep[np.nonzero(mine & (trace.pc == pc))[0][:per_pc]] = True
    cols = {
        c: getattr(trace, c)[keep]
        for c in ("slot", "warp", "seq", "pc", "space", "flags", "size", "active", "matrix", "addr")
    }
    out = AccessTrace(**{**trace.__dict__, **cols})
    out.sees = what_it_sees(out)
    return out


@dataclass
class AccessFile:
    gpu: str
    date: str
    command: str
    traces: list[AccessTrace]

    def find(self, variant: str, params: Mapping[str, int] | None = None) -> AccessTrace | None:
        for t in self.traces:
            if t.variant == variant and (params is None or all(t.params.get(k) == v for k, v in params.items())):
                return t
        return None


def fit_file(traces: Sequence[AccessTrace]) -> list[AccessTrace]:
    """The traces with the first requests of each block kept in detail, so that the file holds at most
    MAX_ACCESS_FILE_REQUESTS in all (the loader's limit); their totals stay those of every stored request."""
    budget = bounds.MAX_ACCESS_FILE_REQUESTS // max(1, len(traces))
    out = []
    for t in traces:
        if t.kept > budget:
            per_pc = 8 if 8 * len(t.pcs) * len(t.blocks) <= budget // 2 else 0
            t = keep_first(t, max(0, (budget - per_pc * len(t.pcs) * len(t.blocks)) // max(1, len(t.blocks))), per_pc)
        out.append(t)
    return out


def file_json(f: AccessFile) -> dict:
    return {
        "format": FORMAT,
        "version": VERSION,
        "gpu": f.gpu,
        "date": f.date,
        "command": f.command,
        "traces": [to_json(t) for t in f.traces],
    }


def parse_file(data: object) -> AccessFile:
    obj = _object(data, "accesses")
    if obj.get("format") != FORMAT:
        raise SessionError(f"not a gemmviz access-record file (format {str(obj.get('format'))[:40]!r})", "format")
    _int(obj.get("version"), "version", lo=1, hi=VERSION)
    traces: list[AccessTrace] = []
    room = bounds.MAX_ACCESS_FILE_REQUESTS  # what the traces still to come may keep, over the whole file
    for i, t in enumerate(_list(obj.get("traces"), "traces", bounds.MAX_ACCESS_TRACES)):
        traces.append(from_json(t, f"traces[{i}]", room))
        room -= traces[-1].kept
    return AccessFile(
        _str(obj.get("gpu", ""), "gpu"),
        _str(obj.get("date", ""), "date"),
        _str(obj.get("command", ""), "command", MAX_TEXT_CHARS),
        traces,
    )


def load_file(path) -> AccessFile:
    """An access-record file (plain or gzip JSON), checked field by field; SessionError names the file and the
    bad field."""
    try:
        return parse_file(_read_json(path))
    except SessionError as exc:
        raise SessionError(f"{Path(path).name}: {exc}", exc.field) from None


def shipped_path() -> Path | None:
    """The newest access-record file shipped with gemmviz (recorded on the H200), or None if there is none."""
    from gemmviz.core import paths

    folder = paths.shipped("assets").joinpath("sessions").joinpath("accesses")  # one part per joinpath (3.11)
    if not folder.is_dir():
        return None
    files = sorted(f.name for f in folder.iterdir() if f.name.endswith(SHIPPED_SUFFIX))
    return Path(str(folder.joinpath(files[-1]))) if files else None


def shipped_file() -> AccessFile | None:
    """The access records recorded on the H200 and shipped with gemmviz, or None if there are none."""
    path = shipped_path()
    return None if path is None else load_file(path)


def save_file(f: AccessFile, path) -> None:
    """Write `f` as gzip JSON through the one writer, after reading it back with the loader (what gemmviz
    writes, it can read)."""
    import gzip
    import json

    from gemmviz.core.fileio import write_atomic

    data = file_json(f)
    parse_file(json.loads(json.dumps(data)))
    write_atomic(path, gzip.compress(json.dumps(data, separators=(",", ":")).encode("utf-8"), 9, mtime=0))


def companion_path(session_path) -> str:
    """Where the access records of a session file go: NAME.accesses.json.gz beside NAME.json."""
    text = str(session_path)
    for suffix in (".json.gz", ".json"):
        if text.endswith(suffix):
            return text[: -len(suffix)] + ".accesses.json.gz"
    return text + ".accesses.json.gz"
