"""The rules a lesson meets beyond its file's syntax, checked by the loader (core/lesson/parse.py) so that a
teacher's own file is told what the suite would say of a shipped one, with the file and the line.

Every lesson: a slide says at most MAX_SLIDE_WORDS words (the rest belongs in the speaker's notes), shows no
markup (a backtick), and its speaker notes, where given, are at least MIN_NOTES_WORDS words (a sentence the
teacher can say, not a keyword). A shipped lesson (assets/lessons/) also has notes on every step (the presenter
view and the handout print them) and never claims its figures were measured on this machine (a shipped
lesson's figures may be replayed). No Qt; the module imports nothing of the lesson package, so the loader and
the tests both read it."""

from __future__ import annotations

import re
from collections.abc import Callable

MAX_SLIDE_WORDS = 30  # what a slide says; the rest is the speaker's, in `notes`
MIN_NOTES_WORDS = 10  # notes in words between spaces; Chinese (no spaces): MIN_NOTES_CHARS characters
MIN_NOTES_CHARS = 40
MARKUP = "`"
MEASURED_HERE = re.compile(r"measured here|本机|在这里实测|this host|on this machine", re.IGNORECASE)

NOTES_RULE = (
    f"speaker notes are what the teacher says beside the slide: at least {MIN_NOTES_WORDS} words "
    f"(or {MIN_NOTES_CHARS} characters of Chinese)"
)


def notes_long_enough(notes: str) -> bool:
    return len(notes.split()) >= MIN_NOTES_WORDS or len(notes) >= MIN_NOTES_CHARS


def step_problems(title: str, text: str, notes: str, slide_words: Callable[[str], int]) -> list[tuple[str, str]]:
    """(key, message) for each rule a step of any lesson breaks; `slide_words` counts a slide's words."""
    found = []
    words = slide_words(text)
    if words > MAX_SLIDE_WORDS:
        found.append(
            ("text", f"a slide says at most {MAX_SLIDE_WORDS} words, this one {words}: move the rest to notes")
        )
    for key, value in (("title", title), ("text", text)):
        if MARKUP in value:
            found.append((key, f"no markup on a slide: the {key} has a backtick ({MARKUP}), shown as it is"))
    if notes and not notes_long_enough(notes):
        found.append(("notes", f"{NOTES_RULE}; these have {len(notes.split())}"))
    return found


def shipped_step_problems(title: str, text: str, notes: str) -> list[tuple[str, str]]:
    """(key, message) for each rule a step of a shipped lesson breaks besides step_problems'."""
    found = []
    if not notes:
        found.append(("title", f"a shipped lesson has notes on every step ({NOTES_RULE}); this step has none"))
    for key, value in (("title", title), ("text", text), ("notes", notes)):
        claim = MEASURED_HERE.search(value)
        if claim:
            found.append(
                (key, f"a shipped lesson may be replayed: its {key} must not say {claim.group(0)!r} of its figures")
            )
    return found
