"""Checks shared between the suite's own tests and tests/test_additions.py's scratch additions.

Each check runs over what the registries and asset folders hold when it is called (never over a list taken at
import time), so a test can put a scratch addition in place and run the very check the shipped entries meet.
Test modules import from here, never from one another.
"""
