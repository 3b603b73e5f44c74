"""Guided lessons: parsing TOML lessons, their file rules, and the registry of lesson views (one
`view_NAME.py` module each, found by prefix).
"""
