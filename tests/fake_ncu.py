"""A fake ncu runner answering with the recorded H200 CSV (tests/data/ncu-tiled-naive-1024.csv), and `gemmviz
profile` run through it: shared by the tests of `gemmviz profile` (the fake GPU is conftest's `fake_gpu`)."""

from __future__ import annotations

from pathlib import Path

from gemmviz.cli import profile
from gemmviz.cli.main import build_parser
from gemmviz.core.hardware.counters import parse_ncu_csv

FIXTURE = Path(__file__).parent / "data" / "ncu-tiled-naive-1024.csv"
ROWS = parse_ncu_csv(FIXTURE.read_text())


class FakeNcu:
    """Every launch a child bench would make: per kernel job the checked launch, the timed one and the check
    after timing."""

    def __init__(self, rows=ROWS):
        self.rows = rows
        self.calls = []

    def __call__(self, argv, kernel_regex, metrics, launch_count, cache_control="all"):
        self.calls.append((argv, kernel_regex, launch_count))
        self.metrics = getattr(self, "metrics", []) + [list(metrics)]
        self.cache_control = cache_control
        import re

        matching = [r for r in self.rows if re.search(kernel_regex, r["kernel"])]
        return [r for r in matching for _ in range(profile.launches_per_job("ok"))][:launch_count]


def run(argv, runner):
    args = build_parser().parse_args(argv)
    return profile.cmd_profile(args, runner=runner)
