"""The benchmark protocol: plan, verify against float64, time (when to stop sampling), and how far to
trust a measurement.
"""
