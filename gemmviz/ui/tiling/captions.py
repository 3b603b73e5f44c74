"""The animation's step captions in the language spoken where they are drawn (the window's, or a lesson's own:
ui/text.speaking). core/schedule/block.py and its kinds caption each step
with a message (Step.caption: a key and its figures, core/messages.py) and keep its English as Step.text (the
model's, the CLI's and the tests' words); the window renders the message in its language. A step captioned in
plain text (a kind without messages) shows that text as it is."""

from __future__ import annotations

from gemmviz.core.messages import render
from gemmviz.ui.text import spoken_language


def caption_words(step, lang: str | None = None) -> str:
    """A step's caption (core/schedule/records.Step) in `lang`, else in the language spoken where it is drawn; a
    plain string as it is."""
    caption = getattr(step, "caption", None)
    if caption is None:
        return getattr(step, "text", step)
    return render(caption, lang or spoken_language())
