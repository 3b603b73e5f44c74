"""Sentences as data: a message key, one template per language, and parameters filled in per language by one
logic (issue 34). The logic that chooses a sentence never branches on the language; `render` picks the template
and formats each figure through `core/numbers.py` as the language writes it.

A template's fields name a parameter and, after a colon, how to write it:
    {share:pct}  a fraction as a percentage (0.12 -> 12%, -1.7 -> -170%)
    {x:sig3}     3 significant digits, thousands separators, never an exponent (sigN for N digits)
    {n:int}      a whole number with thousands separators
    {ms:dur}     a duration in milliseconds (µs / ms / s, in the language's units)
    {t:us}       a time in µs, in µs whatever its size (the bars of one chart)
    {count:big}  a large count ("2.53 billion", "25.3 亿")
    {why:msg}    another message, by its key, in the same language (a stall reason's meaning)
    {name}       text as given (a kernel's name)
"""

from __future__ import annotations

import string
from collections.abc import Mapping

from gemmviz.core import numbers

MESSAGES: dict[str, dict[str, str]] = {}


def define(key: str, **templates: str) -> str:
    """Add message `key` with a template per language (en is required; a missing language falls back to it)."""
    if key in MESSAGES:
        raise ValueError(f"message {key!r} is defined twice")
    if "en" not in templates:
        raise ValueError(f"message {key!r} needs an English template")
    unknown = set(templates) - set(numbers.LANGUAGES)
    if unknown:
        raise ValueError(f"message {key!r}: unknown language {sorted(unknown)[0]!r}")
    fields = {lang: _fields(t) for lang, t in templates.items()}
    if any(f != fields["en"] for f in fields.values()):
        raise ValueError(f"message {key!r}: every language must use the same parameters")
    MESSAGES[key] = dict(templates)
    return key


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


class _Formatter(string.Formatter):
    def __init__(self, lang: str):
        super().__init__()
        self.lang = lang

    def format_field(self, value: object, spec: str) -> str:
        if spec == "pct":
            return _pct(float(value))  # type: ignore[arg-type]
        if spec.startswith("sig"):
            return numbers.sig(value, int(spec[3:] or 3))  # type: ignore[arg-type]
        if spec == "int":
            return f"{round(value):,}"  # type: ignore[arg-type]
        if spec == "us":
            return numbers.microseconds(value, self.lang)  # type: ignore[arg-type]
        if spec == "dur":
            return numbers.duration(value, self.lang)  # type: ignore[arg-type]
        if spec == "msg":
            return render(str(value), self.lang)
        if spec == "big":
            return _big(float(value), self.lang)  # type: ignore[arg-type]
        return super().format_field(value, spec)


def _pct(x: float) -> str:
    """A fraction as a percentage, a negative one too: 0.12 -> 12%, -1.7 -> -170%, 0.0042 -> 0.42%."""
    p = 100 * x
    return f"{p:,.0f}%" if abs(p) >= 10 else f"{numbers.sig(p, 2)}%"


def _big(x: float, lang: str) -> str:
    """A large count: 2.53 billion, 400 million; Chinese by 亿 and 万 (numbers.count)."""
    if lang == "zh":
        return numbers.count(x, lang)
    return f"{numbers.sig(x / 1e9, 3)} billion" if x >= 1e9 else f"{numbers.sig(x / 1e6, 3)} million"


def render(key: str, lang: str = "en", params: Mapping[str, object] | None = None) -> str:
    """Message `key` in `lang` (English where the language has no template) with `params` filled in."""
    templates = MESSAGES[key]
    lang = lang if lang in numbers.LANGUAGES else "en"
    return _Formatter(lang).format(templates.get(lang, templates["en"]), **(params or {}))
