"""Exercises as data (task, starter, goals, hints), what `gemmviz exercise check` found and the
check record it writes, access goals, and grading a class.
"""
