"""Text from files shown in widgets that read HTML (pyqtgraph labels, tooltips, titles) stays plain text."""

from __future__ import annotations

import html


def plain(s: str) -> str:
    """`s` escaped so that a label that reads HTML shows it as typed."""
    return html.escape(s)
