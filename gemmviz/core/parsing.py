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
    named = [("--sizes", t) for t in (sizes.split(",") if sizes else [])] + [("--mnk", t) for t in mnk or []]
    problems = []
    for option, text in named:
        if not text.strip():
            continue
        try:
            problems.append(parse_problem(text))
        except ProblemError as exc:
            raise ProblemError(f"{option} {text.strip()}: {exc}") from None
    if not problems:
        raise ProblemError("give at least one size (--sizes 512,1024 or --mnk 2048x4096x3072)")
    return list(dict.fromkeys(problems))  # a size named twice is measured once


def parse_pixels(text: str, lo: int = 16, hi: int = 8192) -> tuple[int, int]:
    """'1920x1080' -> (1920, 1080), each side within lo…hi."""
    try:
        w, h = (int(x) for x in text.lower().replace("×", "x").split("x"))
    except ValueError:
        raise ProblemError(f"size must be WIDTHxHEIGHT in pixels, got {text!r}") from None
    if not (lo <= w <= hi and lo <= h <= hi):
        raise ProblemError(f"size {w}x{h} is out of range: each side must be {lo}…{hi} pixels")
    return w, h
