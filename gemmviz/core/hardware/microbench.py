"""The recorded microbenchmark (kernels/latency.cu): load latencies in cycles per level of the memory hierarchy,
the register file and shared memory per SM, the naive kernel's L1 hit rate, as one small JSON file a GPU run
writes (`assets/microbench/GPU-DATE.json`). Lessons quote it through placeholders (core/lesson/placeholders.py):
`{{latency shared}}` (or l1, l2, dram) and `{{microbench FIGURE}}`, and name its source on the slide's footer
("latencies: H200, recorded 2026-12-02"), so that no measured figure is typed into a slide.

A file is validated before use (its schema, each figure a finite number in a physically sensible range) and a
bad one is refused with a one-line MicrobenchError; a lesson without a shipped file says so where the figure
would be. No Qt.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from gemmviz.core.fileio import FileFormatError, InputFileError, parse_json, read_regular
from gemmviz.core.messages import define, render
from gemmviz.core.paths import asset_files
from gemmviz.core.session.results import CONTROL_IN_NAMES

log = logging.getLogger("gemmviz")
SCHEMA, SCHEMA_VERSION = "gemmviz-microbench", 1
MAX_FILE_BYTES = 64 * 1024

# each figure and the range a real GPU's value lies in (a value outside it is a broken recording)
FIGURES: dict[str, tuple[float, float]] = {
    "register_latency_cycles": (1, 100),
    "shared_load_latency_cycles": (1, 2_000),
    "l1_hit_latency_cycles": (1, 2_000),
    "l2_hit_latency_cycles": (1, 5_000),
    "dram_latency_cycles": (1, 10_000),
    "register_file_kib_per_sm": (16, 4_096),
    "shared_kib_per_sm_max": (16, 4_096),
    "naive_l1_hit_rate_pct": (0, 100),
}
LATENCY_LEVELS = {  # {{latency LEVEL}}
    "register": "register_latency_cycles",
    "shared": "shared_load_latency_cycles",
    "l1": "l1_hit_latency_cycles",
    "l2": "l2_hit_latency_cycles",
    "dram": "dram_latency_cycles",
}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


class MicrobenchError(FileFormatError):
    """A microbenchmark file that cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True)
class Microbench:
    gpu: str  # "NVIDIA H200"
    created: str  # ISO date and time
    command: str
    source: str  # "kernels/latency.cu"
    figures: dict[str, float]

    @property
    def date(self) -> str:
        return self.created[:10]

    @property
    def origin(self) -> str:
        """'H200, recorded 2026-12-02' (a slide's footer names it)."""
        return f"{self.gpu.removeprefix('NVIDIA ')}, recorded {self.date}"


def parse_microbench(data: object, where: str = "<microbench>") -> Microbench:
    """A Microbench from parsed JSON; MicrobenchError naming `where` and the first problem."""

    def fail(message: str) -> NoReturn:
        raise MicrobenchError(f"{where}: {message}")

    if not isinstance(data, dict):
        fail("not a microbenchmark recording (a JSON object is expected)")
    if data.get("schema") != SCHEMA:
        fail(f'not a microbenchmark recording: schema must be "{SCHEMA}", got {data.get("schema")!r}')
    if type(data.get("schema_version")) is not int or data.get("schema_version") != SCHEMA_VERSION:
        fail(f"schema_version {data.get('schema_version')!r} is not supported (this gemmviz reads {SCHEMA_VERSION})")
    words = {}
    for key in ("gpu", "created", "command", "source"):
        value = data.get(key)
        if not isinstance(value, str) or not value.strip() or len(value) > 500 or CONTROL_IN_NAMES.search(value):
            fail(f"{key} must be one line of text")
        words[key] = value.strip()
    if not _DATE.match(words["created"]):
        fail(f"created must be an ISO date (2026-12-02T…), got {words['created']!r}")
    figures_in = data.get("figures")
    if not isinstance(figures_in, dict):
        fail("figures must be an object of named numbers")
    figures = {}
    for key, (low, high) in FIGURES.items():
        value = figures_in.get(key)
        if value is None:
            fail(f"figures lack {key}")
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            fail(f"figures.{key} must be a number, got {value!r}")
        if not low <= value <= high:
            fail(f"figures.{key} = {value} is outside {low:g}…{high:g}: not a real GPU's figure")
        figures[key] = float(value)
    return Microbench(words["gpu"], words["created"], words["command"], words["source"], figures)


def load_microbench(path: str | Path) -> Microbench:
    """A recording from a file (a regular file of at most MAX_FILE_BYTES); MicrobenchError otherwise."""
    where = str(path)
    try:
        raw = read_regular(path, MAX_FILE_BYTES)
    except InputFileError as exc:
        raise MicrobenchError(f"{where}: {exc}") from None
    try:
        text = raw.decode("utf-8")
        data = parse_json(text)
    except (InputFileError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise MicrobenchError(f"{where}: not valid JSON: {exc}") from None
    return parse_microbench(data, where)


@functools.cache
def shipped_microbench() -> Microbench | None:
    """The newest shipped recording (assets/microbench/*.json, newest by name), None if none is shipped. A
    broken shipped file (a bug of the release) is logged with its one-line reason and read as none: the
    lesson goes on, its latency figures reading n/a."""
    files = asset_files("microbench", ".json")
    if not files:
        return None
    try:
        return load_microbench(str(files[-1]))
    except MicrobenchError as exc:
        log.warning("microbenchmark recording not used: %s", exc)
        return None


def figure_text(bench: Microbench | None, key: str, lang: str = "en") -> str:
    """One figure with its unit, as a slide writes it ("29 cycles", "256 KiB", "88%"), or that none is shipped."""
    if bench is None:
        return render("microbench.absent", lang)
    value = bench.figures[key]
    if key.endswith("_cycles"):
        return render("microbench.cycles", lang, {"n": value})
    if "_kib" in key:
        return f"{value:,.0f} KiB"
    return f"{value:.0f}%"


def footer_note(bench: Microbench | None, lang: str = "en") -> str:
    """What a slide quoting the recording says on its footer: where the figures come from, or that none is shipped."""
    if bench is None:
        return render("microbench.footer.none", lang)
    return render("microbench.footer", lang, {"gpu": bench.gpu.removeprefix("NVIDIA "), "date": bench.date})


define("microbench.absent", en="n/a (no recording shipped)", zh="暂无（未附带测量记录）")
define("microbench.cycles", en="{n:,.0f} cycles", zh="{n:,.0f} 个周期")
define("microbench.footer.none", en="latencies: no recording shipped", zh="延迟：未附带测量记录")
define("microbench.footer", en="latencies: {gpu}, recorded {date}", zh="延迟：{gpu}，记录于 {date}")
