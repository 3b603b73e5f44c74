"""Pure-Python core, in feature packages (as gemmviz/ui is): kernels/ (the variants and their models),
session/ (results, the session file, the workspace), measure/ (the benchmark protocol), hardware/ (accesses,
counters, roofline, microbenchmark, pipeline trace, gap), charts/ (chart kinds, style, explanations),
schedule/ (the animation's schedules), exercise/ (exercises, checks, grading) and lesson/ (lessons and their
views). The modules at this level are the base every package shares (problem, numbers, text, fileio, paths,
messages, registry, settings, ...); they import no package. tests/test_layering.py holds which package may
import which.

Nothing in this package imports Qt or PyCUDA at import time.
"""
