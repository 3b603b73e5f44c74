"""What Help ▸ About says, without Qt: the version, the licence, where the shipped numbers come from, and the
two blog posts (the seeds) whose kernels and arithmetic the app implements and checks."""

from __future__ import annotations

import json
from dataclasses import dataclass

import gemmviz
from gemmviz.core.paths import asset_files
from gemmviz.core.session.results import Session, SessionError
from gemmviz.core.session.workspace import COMPANION_SUFFIX, recorded_sessions, session_gpu

LICENSE = "MIT"


@dataclass(frozen=True)
class Seed:
    key: str  # as the lessons and published sessions name it: seed000, seed001
    title: str  # the post's own title
    english: str


SEEDS = (
    Seed(
        "seed000",
        "CUDA内存优化入门：从Naive到Tiled矩阵乘法—Week2学习总结",
        "Getting started with CUDA memory optimisation: from naive to tiled matrix multiplication (week 2 notes)",
    ),
    Seed("seed001", "CUDA算子优化(4)：矩阵乘法", "CUDA operator optimisation (4): matrix multiplication"),
)


@dataclass(frozen=True)
class DataSource:
    file: str
    kind: str  # "measured" (by gemmviz, on the GPU named), "published" (a seed's table), "ceilings"
    gpu: str | None
    date: str | None  # YYYY-MM-DD, when the file says
    seed: str | None = None  # the seed a published session copies its table from


def data_sources() -> list[DataSource]:
    """The shipped sessions and ceilings, each with the GPU and date it names (unreadable files are left out)."""
    out = []
    for path in recorded_sessions():
        if path.name.endswith(COMPANION_SUFFIX):  # the large extras of a recording listed above it
            continue
        try:
            session = Session.load(path)
        except (SessionError, OSError):
            continue
        seed = next((s.key for s in SEEDS if s.key in path.name), None)
        date = (session.created or "")[:10] or None
        out.append(DataSource(path.name, session.kind, session_gpu(session), date, seed))
    for f in asset_files("ceilings"):
        try:
            data = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        device, date = data.get("device"), data.get("date")
        out.append(
            DataSource(
                f.name,
                "ceilings",
                device if isinstance(device, str) else None,
                date[:10] if isinstance(date, str) else None,
            )
        )
    return out


def version() -> str:
    return gemmviz.__version__
