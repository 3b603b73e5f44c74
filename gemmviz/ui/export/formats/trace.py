"""Traces for trace viewers: the Chrome Trace Event document (core/hardware/chrome_trace.py) written as compact
JSON. A trace format's writer: write(document, target). No Qt."""

from __future__ import annotations

import json
from pathlib import Path

from gemmviz.core import export_formats, fileio


@export_formats.register
class ChromeTrace(export_formats.ChromeTrace):
    @classmethod
    def write(cls, document: dict, target: str | Path) -> None:
        fileio.write_atomic(target, json.dumps(document, separators=(",", ":"), allow_nan=False))
