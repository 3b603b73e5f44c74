"""Exports of charts and animations, and the export dialog."""
