"""Text read from files, as a terminal (or a Markdown file a student opens in one) may show it.

A file can hold characters that are not text to a reader but commands to a terminal: ESC sequences that set
the window title or clear the screen, a carriage return that overwrites the line, bidi overrides (U+202A..E,
U+2066..9) that reorder what is shown, a newline that forges a line of its own ("PASS ..."), and lone
surrogates that no encoder can write. `printable` shows each of them as a visible escape (`\\x1b`, `\\u202e`,
`\\n`), so what reaches the terminal is what the file says, one message per line. Every print of file-derived
text goes through it (the CLI's refusals too: cli/main.py).
"""

from __future__ import annotations

import re

# C0 and C1 controls (tab aside), DEL, the bidi marks, embeddings, overrides and isolates, the line and paragraph
# separators, the byte-order mark (zero width) and lone surrogates.
_UNSAFE = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
)
_UNSAFE_KEEP_LINES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match) -> str:
    c = match.group()
    if c in _NAMED:
        return _NAMED[c]
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def printable(text: object, lines: bool = False) -> str:
    """`text` (str() of anything) with every control character, bidi control and lone surrogate shown as a
    visible escape. One line unless `lines` (then newlines are kept: a hint's paragraphs, a report)."""
    return (_UNSAFE_KEEP_LINES if lines else _UNSAFE).sub(_escape, str(text))
