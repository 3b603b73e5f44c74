"""Checks over the messages core says (core/messages: `define(key, en=…, zh=…)` in the module that decides): every
template registered when called, so a message a test defines is held to them as the shipped ones are."""

from __future__ import annotations

import importlib
import pkgutil
import string

from gemmviz.core.messages import TEMPLATES, msg, render
from gemmviz.core.numbers import LANGUAGES


def load_every_message() -> None:
    """Import every module of gemmviz.core and gemmviz.backends (no Qt, no PyCUDA at import time: the layering
    test holds them to it), so every define(...) has run: no list of families or modules to extend."""
    import gemmviz.backends
    import gemmviz.core

    for package in (gemmviz.core, gemmviz.backends):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)


def sample(spec: str):
    """A value a field with this format spec takes: a message, a list, a number, or text."""
    if spec == "msg":
        return msg("explain.how.cold")
    if spec in ("list", "semi"):
        return ["a", "b"]
    if spec.endswith("d"):
        return 7
    return 1.5e9 if spec else "x"


def messages_missing_a_language(keys=None) -> dict[str, list[str]]:
    keys = list(TEMPLATES) if keys is None else keys
    return {k: sorted(set(LANGUAGES) - set(TEMPLATES[k])) for k in keys if set(LANGUAGES) - set(TEMPLATES[k])}


def every_template_renders(keys=None) -> int:
    """Every template (of `keys`, else all) in every language with sample figures: no field left, the same fields
    in each language. Returns how many were rendered."""
    keys = list(TEMPLATES) if keys is None else keys
    for key in keys:
        specs = {f: spec for _, f, spec, _ in string.Formatter().parse(TEMPLATES[key]["en"]) if f}
        params = {f: sample(spec) for f, spec in specs.items()}
        for lang in LANGUAGES:
            text = render(key, lang, params)
            assert text and "{" not in text, (key, lang, text)
    return len(keys)
