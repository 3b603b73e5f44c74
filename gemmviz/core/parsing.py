"""Parsing of what users type, shared by the CLI and the app (sizes, lists, pixels)."""

from __future__ import annotations

from gemmviz.core.problem import Problem, ProblemError, parse_problem


def int_list(text: str, what: str) -> list[int]:
    """'8,16,32' -> [8, 16, 32]; a clear ProblemError otherwise."""
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ProblemError(f"{what} must be a comma-separated list of whole numbers, got {text!r}") from None
    if not values:
        raise ProblemError(f"{what} is empty")
    return values


def parse_sizes(sizes: str | None, mnk: list[str] | None = None) -> list[Problem]:
    """'--sizes 512,1024' and '--mnk 2048x4096x3072' as problems."""
    texts = (sizes.split(",") if sizes else []) + list(mnk or [])
    problems = [parse_problem(t) for t in texts if t.strip()]
    if not problems:
        raise ProblemError("give at least one size (--sizes 512,1024 or --mnk 2048x4096x3072)")
    return problems


def parse_pixels(text: str, lo: int = 16, hi: int = 8192) -> tuple[int, int]:
    """'1920x1080' -> (1920, 1080), each side within lo…hi."""
    try:
        w, h = (int(x) for x in text.lower().replace("×", "x").split("x"))
    except ValueError:
        raise ProblemError(f"size must be WIDTHxHEIGHT in pixels, got {text!r}") from None
    if not (lo <= w <= hi and lo <= h <= hi):
        raise ProblemError(f"size {w}x{h} is out of range: each side must be {lo}…{hi} pixels")
    return w, h
