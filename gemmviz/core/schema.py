"""Typed checks of the values read from a file: the one mechanism behind every loader's field checks (session
files, check records, settings, exercises).

A check is a function `(value, where) -> value to keep` (`Check[T]`); `where` is the field's path, which every
refusal names (`results[3].samples_ms[0]`). A `Schema` makes the checks of one file format: its error class
(a core/fileio.FileFormatError) and its `Wording`, the sentences its refusals say, which each format keeps as
its users (and its tests) know them. Leaves (whole numbers, numbers, texts, true/false, one of a few values)
and structure (lists, objects with known fields, optional values) compose: a format's schema is a value,
checked at once by calling it.

Hand-written rather than pydantic or jsonschema: the CLI on the GPU machine and the Qt-free core run with
numpy only, and core stays dependency-light. Pure Python.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeAlias, TypeVar

from gemmviz.core.text import printable

T = TypeVar("T")
Check: TypeAlias = Callable[[object, str], T]  # (value, where) -> the value to keep; refuses with the format's error

# terminal controls (ESC, BEL, backspace, ...) and bidirectional overrides, which could hide or reorder what a
# text says; tab and newline are text. NAME_CONTROL refuses those two as well: a name is one line.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
TEXT_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
NAME_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def bound_text(n: float) -> str:
    """A bound as a reader takes it in: 2^63 - 1 rather than 9,223,372,036,854,775,807; 65,536 as it is."""
    for power in range(32, 65):
        if n == 2**power - 1:
            return f"2^{power} - 1"
        if n == 2**power:
            return f"2^{power}"
    return f"{n:,}"


class NonFinite:
    """What json.loads makes of NaN, Infinity and -Infinity given `parse_constant=NonFinite`, so that a check can
    name their field (a number check refuses it as not finite)."""

    def __init__(self, text: str):
        self.text = text


def shown(value: object) -> str:
    """A wrong value, short, for a one-line message: 40 characters at most."""
    if isinstance(value, NonFinite):
        return value.text
    text = repr(value) if isinstance(value, str) else json.dumps(value, default=repr)
    return text if len(text) <= 40 else text[:39] + "…"


@dataclass(frozen=True)
class Wording:
    """The sentences of one format's refusals, as str.format templates. `at` puts the field's path to the
    sentence; the others may use {where}, {got} (the value as `shown` gives it), {value}, {raw} (str() of it,
    cut to 40), {lo}, {hi}, {lo_text}/{hi_text} (bound_text), {limit}, {n}, {count} (of a list: "3" or "at most
    16"), {key}, {known}, {values}, {char}."""

    at: str = "{where}: {what}"
    whole: str = "not a whole number ({got})"
    whole_range: str = "{value} is out of range ({lo}..{hi})"
    whole_below: str = "{value} is below {lo}"
    number: str = "not a number ({got})"
    finite: str = "not a finite number ({got})"
    number_below: str = "{value} must be at least {lo}"
    number_above: str = "{value} must be above {lo}"
    number_over: str = "{value} is above {hi}"
    boolean: str = "not true or false ({got})"
    text: str = "not a string ({got})"
    text_long: str = "{n} characters, over the {limit} limit"
    control: str = "holds a control character (U+{char:04X}) that a text never has"
    one_of: str = "{got} is not one of {values}"
    sequence: str = "not a list ({got})"
    sequence_long: str = "{n} entries, over the {limit} limit"
    sequence_exact: str = "not a list of {limit} entries"
    mapping: str = "not an object ({got})"
    mapping_long: str = "{n} entries, over the {limit} limit"
    unknown: str = "unknown field {key!r}{known}"
    missing: str = "lacks {key}"
    shown: Callable[[object], str] = shown


class Schema:
    """The checks of one file format: `error(where, message)` makes its exception (the message is whole: the
    wording's `at` has put the path to it)."""

    def __init__(self, error: Callable[[str, str], Exception], wording: Wording | None = None):
        self.error = error
        self.words = wording or Wording()

    # ---- refusing
    def fail(self, where: str, what: str) -> Exception:
        """The format's error for the field at `where`, saying `what` (a sentence of its own)."""
        return self.error(where, self.words.at.format(where=where, what=what))

    def refuse(self, where: str, sentence: str, value: object = None, **more: Any) -> Exception:
        """The format's error with one of its wording's sentences (`sentence`: the template) filled in."""
        # each made only where the sentence says it: a refused value may be a list of a million entries
        got = self.words.shown(value) if "{got" in sentence else ""
        raw = str(value)[:40] if "{raw" in sentence else ""
        what = sentence.format(where=where, got=got, value=value, raw=raw, **more)
        return self.fail(where, what)

    def need(self, cond: bool, where: str, what: str) -> None:
        """Refuse at `where` unless `cond` holds."""
        if not cond:
            raise self.fail(where, what)

    # ---- leaves
    def whole(self, lo: int | None = 0, hi: int | None = None) -> Check[int]:
        """A whole number (never true or false) from `lo` to `hi` (None: unbounded)."""
        words = self.words
        bounds = {
            "lo": lo,
            "hi": hi,
            "lo_text": "" if lo is None else bound_text(lo),
            "hi_text": "" if hi is None else bound_text(hi),
        }

        def check(v: object, where: str) -> int:
            if isinstance(v, bool) or not isinstance(v, int):
                raise self.refuse(where, words.whole, v, **bounds)
            if hi is not None and lo is not None and not lo <= v <= hi:
                raise self.refuse(where, words.whole_range, v, **bounds)
            if lo is not None and v < lo:
                raise self.refuse(where, words.whole_below, v, **bounds)
            if hi is not None and v > hi:
                raise self.refuse(where, words.whole_range, v, **bounds)
            return v

        return check

    def number(self, lo: float | None = 0.0, hi: float | None = None, above: bool = False) -> Check[float]:
        """A finite number (a whole one is kept as it is) of at least `lo` (above it, with `above`) and at most `hi`."""
        words = self.words

        def check(v: object, where: str) -> float:
            if isinstance(v, NonFinite) or (isinstance(v, float) and not math.isfinite(v)):
                raise self.refuse(where, words.finite, v, lo=lo, hi=hi)
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise self.refuse(where, words.number, v, lo=lo, hi=hi)
            if lo is not None and (v <= lo if above else v < lo):
                raise self.refuse(where, words.number_above if above else words.number_below, v, lo=lo, hi=hi)
            if hi is not None and v > hi:
                raise self.refuse(where, words.number_over, v, lo=lo, hi=hi)
            return v

        return check

    def boolean(self, v: object, where: str) -> bool:
        """True or false (never 0 or 1)."""
        if not isinstance(v, bool):
            raise self.refuse(where, self.words.boolean, v)
        return v

    def text(
        self,
        limit: int,
        control: Literal["refuse", "strip", "show", "keep"] = "refuse",
        cut: bool = False,
        pattern: re.Pattern[str] = CONTROL,
    ) -> Check[str]:
        """A text of at most `limit` characters. Control characters (`pattern`) are refused, stripped, shown as
        escapes (a text copied from elsewhere: a log, a path) or kept (a text the window shows, never a terminal);
        a longer text is refused, or cut with `cut`."""
        words = self.words

        def check(v: object, where: str) -> str:
            if not isinstance(v, str):
                raise self.refuse(where, words.text, v, limit=limit)
            if control == "strip":
                v = pattern.sub("", v)
            if len(v) > limit:
                if not cut:
                    raise self.refuse(where, words.text_long, v, limit=limit, n=len(v))
                v = v[: limit - 1] + "…"
            if control == "show":
                return printable(v, lines=True)
            bad = pattern.search(v) if control == "refuse" else None
            if bad is not None:
                raise self.refuse(where, words.control, v, char=ord(bad.group()), limit=limit)
            return v

        return check

    def one_of(self, *values: T) -> Check[T]:
        """One of `values` (compared with ==)."""
        words = self.words

        def check(v: object, where: str) -> T:
            for value in values:
                if v == value:
                    return value
            raise self.refuse(where, words.one_of, v, values=", ".join(map(str, values)))

        return check

    # ---- structure
    def optional(self, check: Check[T]) -> Check[T | None]:
        """None, or what `check` takes."""

        def maybe(v: object, where: str) -> T | None:
            return None if v is None else check(v, where)

        return maybe

    def sequence(self, v: object, where: str, limit: int, exact: int | None = None) -> list[Any]:
        """`v` as a list of at most `limit` entries (exactly `exact`, where given); its entries unchecked."""
        words, count = self.words, f"at most {limit}" if exact is None else str(exact)
        if not isinstance(v, list):
            raise self.refuse(where, words.sequence, v, limit=limit, count=count)
        if exact is not None and len(v) != exact:
            raise self.refuse(where, words.sequence_exact, v, limit=exact, n=len(v), count=count)
        if len(v) > limit:
            raise self.refuse(where, words.sequence_long, v, limit=limit, n=len(v), count=count)
        return v

    def list_of(self, item: Check[T], limit: int, exact: int | None = None) -> Check[list[T]]:
        """A list of at most `limit` entries (exactly `exact`, where given), each checked by `item` at where[i]."""

        def check(v: object, where: str) -> list[T]:
            return [item(x, f"{where}[{i}]") for i, x in enumerate(self.sequence(v, where, limit, exact))]

        return check

    def mapping(self, v: object, where: str, limit: int | None = None) -> dict[Any, Any]:
        """`v` as an object of at most `limit` entries (None: any number); its keys and values unchecked."""
        if not isinstance(v, dict):
            raise self.refuse(where, self.words.mapping, v, limit=limit)
        if limit is not None and len(v) > limit:
            raise self.refuse(where, self.words.mapping_long, v, limit=limit, n=len(v))
        return v

    def fields(self, checks: Mapping[str, Check[Any]], required: Sequence[str] = ()) -> Check[dict[str, Any]]:
        """An object of the known fields `checks` (any other is refused), each checked at where.key; those in
        `required` must be there."""
        words = self.words

        def check(v: object, where: str) -> dict[str, Any]:
            obj = self.mapping(v, where)
            for key in obj:
                if key not in checks:
                    known = f" (known here: {', '.join(checks)})" if len(checks) <= 8 else ""
                    raise self.refuse(f"{where}.{str(key)[:40]}", words.unknown, key=str(key)[:40], known=known)
            out = {k: checks[k](x, f"{where}.{k}") for k, x in obj.items()}
            for key in required:
                if key not in obj:
                    raise self.refuse(f"{where}.{key}", words.missing, key=key)
            return out

        return check

    def worded(self, **sentences: Any) -> Schema:
        """The same format with some of its sentences said otherwise (a part of the file with words of its own)."""
        return Schema(self.error, replace(self.words, **sentences))
