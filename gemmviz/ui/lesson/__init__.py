"""Lesson mode and the slides: one renderer for the window, PNG and PDF."""
