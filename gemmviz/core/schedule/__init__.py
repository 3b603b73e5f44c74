"""The animated schedule of one thread block: its records, the registry of schedule kinds (one
`kind_NAME.py` module each, found by prefix), the recorded accesses beside a schedule, and two schedules
in lockstep.
"""
