"""A kernel's source as the code views show it (the Tiling tab's pane, the lesson's "code" view): the `-D`
macros of the chosen parameters written in (`#define TILE 32` when TILE 32 is animated, not the file's default
16), the `gemmviz:step` anchors taken out of the comments, and for each kind of step the lines it runs, so that
the highlighted lines follow the animation (both `__syncthreads()` lines are highlighted in turn, at the two
barrier steps). No Qt.

`compact=True` is the projector's listing: the file's header comments and whole-line comments, blank lines,
`static_assert`s and trailing comments left out, the signature's parameter list shortened to `(…)`, so that
the loop, its barriers and the bounds checks fit one slide at a size read from the back of a room.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gemmviz.core.kernels.variants import STEP_ANCHOR, VARIANTS

_IFNDEF = re.compile(r"^\s*#ifndef\s+(\w+)\s*$")
_DEFINE = re.compile(r"^\s*#define\s+(\w+)\s+(\S+)\s*$")
_ENDIF = re.compile(r"^\s*#endif\b")
_ANCHOR_WORDS = re.compile(r"\s*\bgemmviz:step \w+")
_COMMENT = re.compile(r"\s*//.*$")
_BRACES = re.compile(r"^[\s{}]*$")


@dataclass(frozen=True)
class Listing:
    lines: tuple[str, ...]
    steps: dict[str, tuple[int, ...]]  # step kind -> the 0-based lines it runs (its anchor's and what follows)
    defines: dict[str, int]  # the macros written in, e.g. {"TILE": 32, "PAD": 0}

    def lines_of(self, kind: str) -> tuple[int, ...]:
        return self.steps.get(kind, ())


def macro_values(variant: str, tile: int | None) -> dict[str, int]:
    """The -D macros the kernel is compiled with at this tile (or block): its fixed ones and the parameter's."""
    v = VARIANTS[variant]
    values = {**v.defines, **v.config}
    for key, macro in v.macros.items():
        value = tile if key == v.schedule_param or (v.schedule_param is None and key == "tile") else None
        value = value if value is not None else v.param_defaults.get(key)
        if value is not None:
            values[macro] = value
    return {k: int(v) for k, v in values.items()}


def _without_anchor(line: str) -> str:
    line = _ANCHOR_WORDS.sub("", line).rstrip()
    return line[:-2].rstrip() if line.endswith("//") else line


def _collapse_comment_gap(line: str) -> str:
    """`code            // comment` (aligned in the file) as `code  // comment`."""
    return re.sub(r"(\S)\s{3,}//", r"\1  //", line)


def _statement(line: str) -> bool:
    return _COMMENT.sub("", line).rstrip().endswith(";")


def kernel_listing(variant: str, tile: int | None, compact: bool = False) -> Listing:
    """The variant's kernel as a code view shows it (ValueError if it has no readable source)."""
    v = VARIANTS[variant]
    source = v.source_text().splitlines()
    values = macro_values(variant, tile)
    out: list[str] = []
    anchors: dict[str, int] = {}
    i = 0
    in_header = True
    while i < len(source):
        line = source[i]
        ifndef = _IFNDEF.match(line)
        define = _DEFINE.match(source[i + 1]) if ifndef and i + 2 < len(source) else None
        if define and _ENDIF.match(source[i + 2]):
            name, default = define.groups()
            out.append(f"#define {name} {values.get(name, default)}")
            i += 3
            in_header = False
            continue
        anchor = STEP_ANCHOR.search(line)
        stripped = line.strip()
        is_comment = stripped.startswith("//")
        if compact and (
            not stripped or is_comment or stripped.startswith("static_assert") or (in_header and is_comment)
        ):
            i += 1
            continue
        if not is_comment and stripped:
            in_header = False
        if anchor:
            anchors[anchor.group(1)] = len(out)
        shown = _without_anchor(line)
        if compact:  # no comments, and indents of 2: the slide's columns go to the code
            shown = _COMMENT.sub("", shown).rstrip()
            body = shown.lstrip(" ")
            shown = " " * ((len(shown) - len(body)) // 2) + body
        else:
            shown = _collapse_comment_gap(shown)
        out.append(shown)
        i += 1
    if compact:
        out = _short_signature(out, anchors)
    steps = {}
    anchor_lines = set(anchors.values())
    for kind, at in anchors.items():
        run = [at]
        j = at + 1
        while j < len(out) and j not in anchor_lines and _statement(out[j]) and not _BRACES.match(out[j]):
            run.append(j)
            j += 1
        steps[kind] = tuple(run)
    return Listing(tuple(out), steps, values)


def _short_signature(lines: list[str], anchors: dict[str, int]) -> list[str]:
    """`extern "C" __global__ void f(const float* A, …, int K) {` over several lines as `… f(…) {`."""
    for i, line in enumerate(lines):
        if "__global__" in line and "(" in line:
            j = i
            while j < len(lines) and "{" not in lines[j]:
                j += 1
            if j >= len(lines):
                return lines
            params = line.rindex("(") if line.rstrip().endswith(",") else line.index("(")
            head = line[:params]
            cut = j - i
            for kind in anchors:
                if anchors[kind] > j:
                    anchors[kind] -= cut
            return [*lines[:i], f"{head}(…) {{", *lines[j + 1 :]]
    return lines
