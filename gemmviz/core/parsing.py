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


# The pixel budget of what gemmviz draws: one image (a slide, a frame, a chart) of at most 4096 x 4096 pixels
# (a 4K projector's 3840 x 2160 fits; each side may still reach 8192 if the other is short), and a set of images
# drawn in one export (a lesson's slides) of at most 250 million pixels in all. A 8192 x 8192 GIF held 2.6 GB
# and 14 such slides 4.7 GB for a minute; within the budget an export stays under a gigabyte.
MAX_IMAGE_PIXELS = 4096 * 4096
MAX_EXPORT_PIXELS = 250_000_000
PIXEL_BUDGET_HELP = "at most 4096x4096 pixels in all (16.8 megapixels; 3840x2160 fits), each side 16 to 8192"


def check_pixels(width: int, height: int, images: int = 1, what: str = "image") -> None:
    """Refuse (ProblemError) an image over MAX_IMAGE_PIXELS, or `images` of them over MAX_EXPORT_PIXELS."""
    if width * height > MAX_IMAGE_PIXELS:
        raise ProblemError(
            f"size {width}x{height} is {width * height / 1e6:.1f} megapixels, over the "
            f"{MAX_IMAGE_PIXELS / 1e6:.1f}-megapixel budget of one {what} (4096x4096; 3840x2160 is 4K)"
        )
    if images * width * height > MAX_EXPORT_PIXELS:
        raise ProblemError(
            f"{images} {what}s at {width}x{height} are {images * width * height / 1e6:,.0f} megapixels, over the "
            f"{MAX_EXPORT_PIXELS / 1e6:,.0f}-megapixel budget of one export; choose a smaller size"
        )


def parse_pixels(text: str, lo: int = 16, hi: int = 8192) -> tuple[int, int]:
    """'1920x1080' -> (1920, 1080), each side within lo…hi, within the pixel budget of one image."""
    try:
        w, h = (int(x) for x in text.lower().replace("×", "x").split("x"))
    except ValueError:
        raise ProblemError(f"size must be WIDTHxHEIGHT in pixels, got {text!r}") from None
    if not (lo <= w <= hi and lo <= h <= hi):
        raise ProblemError(f"size {w}x{h} is out of range: each side must be {lo}…{hi} pixels")
    check_pixels(w, h)
    return w, h
