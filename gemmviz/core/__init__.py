"""Pure-Python core: problem, variant registry, traffic model, results, benchmark protocol.

Nothing in this package imports Qt or PyCUDA at import time.
"""
