"""Parsing of what users type, shared by the CLI and the app (sizes, lists, pixels)."""

from __future__ import annotations

import math
import re

from gemmviz.core.problem import Problem, ProblemError, parse_problem

# a whole number as people type it at a keyboard: ASCII digits only (int() also takes '١٠٢٤', '1_000' and ' 8 ')
WHOLE = re.compile(r"[+-]?[0-9]{1,30}")
DECIMAL = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,3})?")


def whole(text: str, what: str) -> int:
    """'16' -> 16; ProblemError for anything but ASCII digits with an optional sign."""
    if not WHOLE.fullmatch(text.strip()):
        raise ProblemError(f"{what} must be a whole number in the digits 0-9, got {text!r}")
    return int(text)


def decimal(text: str, what: str) -> float:
    """'2.5' -> 2.5; ProblemError for anything but a finite number in ASCII digits (no 'nan', no 'inf')."""
    if not DECIMAL.fullmatch(text.strip()) or not math.isfinite(float(text)):
        raise ProblemError(f"{what} must be a number in the digits 0-9, like 2.5, got {text!r}")
    return float(text)


def int_list(text: str, what: str) -> list[int]:
    """'8,16,32' -> [8, 16, 32] (each once, in the order given); a clear ProblemError otherwise."""
    parts = [x for x in text.split(",") if x.strip()]
    if not all(WHOLE.fullmatch(x.strip()) for x in parts):
        raise ProblemError(f"{what} must be a comma-separated list of whole numbers (digits 0-9), got {text!r}")
    values = list(dict.fromkeys(int(x) for x in parts))
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


# The pixel budget of what gemmviz draws: one image (a slide, a frame, a chart) of at most 4096 x 4096 pixels
# (a 4K projector's 3840 x 2160 fits; each side may still reach 8192 if the other is short), and a set of images
# drawn in one export (a lesson's slides) of at most 250 million pixels in all. A 8192 x 8192 GIF held 2.6 GB
# and 14 such slides 4.7 GB for a minute; within the budget an export stays under a gigabyte.
MAX_IMAGE_PIXELS = 4096 * 4096
MAX_EXPORT_PIXELS = 250_000_000
PIXEL_BUDGET = "at most 4096x4096 pixels in all (16.8 megapixels; 3840x2160 fits)"


def pixel_budget_help(lo: int = 16, hi: int = 8192) -> str:
    """The budget as a command's --size help says it, with that command's own range of sides."""
    return f"{PIXEL_BUDGET}, each side {lo} to {hi}"


PIXEL_BUDGET_HELP = pixel_budget_help()


def check_pixels(width: int, height: int, images: int = 1, what: str = "image") -> None:
    """Refuse (ProblemError) an image over MAX_IMAGE_PIXELS, or `images` of them over MAX_EXPORT_PIXELS."""
    if width * height > MAX_IMAGE_PIXELS:
        raise ProblemError(
            f"size {width}x{height} is {width * height:,} pixels, over the {MAX_IMAGE_PIXELS:,}-pixel "
            f"budget of one {what} (4096x4096; 3840x2160 is 4K)"
        )
    if images * width * height > MAX_EXPORT_PIXELS:
        raise ProblemError(
            f"{images} {what}s at {width}x{height} are {images * width * height / 1e6:,.0f} megapixels, over the "
            f"{MAX_EXPORT_PIXELS / 1e6:,.0f}-megapixel budget of one export; choose a smaller size"
        )


MAX_ANIMATION_PIXELS = 20_000_000_000  # frames × pixels: a few minutes of rendering (84 megapixels/s measured here)


def check_animation_pixels(width: int, height: int, frames: int) -> None:
    """Refuse (ProblemError) an animation whose frames together pass MAX_ANIMATION_PIXELS: 79984³ at 4096x4096 was
    20,000 frames of 16.8 megapixels, over an hour of rendering and 9 GB of PNG frames, accepted."""
    total = frames * width * height
    if total > MAX_ANIMATION_PIXELS:
        raise ProblemError(
            f"{frames:,} frames at {width}x{height} are {total / 1e9:,.0f} gigapixels, over the "
            f"{MAX_ANIMATION_PIXELS / 1e9:,.0f}-gigapixel budget of one animation (a few minutes of rendering); "
            "choose a smaller frame size or a smaller matrix"
        )


def parse_pixels(text: str, lo: int = 16, hi: int = 8192) -> tuple[int, int]:
    """'1920x1080' -> (1920, 1080), each side within lo…hi, within the pixel budget of one image."""
    sides = text.lower().replace("×", "x").split("x")
    if len(sides) != 2 or not all(WHOLE.fullmatch(x.strip()) for x in sides):
        raise ProblemError(f"size must be WIDTHxHEIGHT in pixels (digits 0-9), got {text!r}")
    w, h = (int(x) for x in sides)
    if not (lo <= w <= hi and lo <= h <= hi):
        raise ProblemError(f"size {w}x{h} is out of range: each side must be {lo}…{hi} pixels")
    check_pixels(w, h)
    return w, h
