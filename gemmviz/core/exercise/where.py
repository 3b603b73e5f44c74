"""Which line of a student's kernel a cause names: the store into C, the accumulator's declaration, a reset of
it inside the loop over the tiles, the loads of A and B, the loops over K, the lines that set row and col.

Read from the source's text (comments blanked), the way a reader finds them; each returns a line number from 1,
or None where the source has no such line (the cause then says it cannot point at one). Pure Python."""

from __future__ import annotations

import re

from gemmviz.core.text import printable as _printable

_FOR = re.compile(r"\bfor\s*\(")


def code_lines(source: str) -> list[str]:
    """The source's lines with // and /* */ comments blanked (a comment names no line)."""
    blanked = re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), source, flags=re.S)
    return blanked.split("\n")


def _first(lines: list[str], pattern: str, start: int = 0) -> int | None:
    rx = re.compile(pattern)
    for i in range(start, len(lines)):
        if rx.search(lines[i]):
            return i + 1
    return None


def store_line(source: str) -> int | None:
    """The line that writes C (C[...] = or C[...] +=)."""
    return _first(code_lines(source), r"(?<![\w.])C\s*\[[^\]]*\]\s*(\+|-)?=(?!=)")


def stored_name(source: str) -> str | None:
    """The name of what the store writes into C (sum, acc), where it is one variable or array element."""
    at = store_line(source)
    if at is None:
        return None
    match = re.search(
        r"(?<![\w.])C\s*\[[^\]]*\]\s*\+?=\s*(?:\(\s*float\s*\)\s*)?([A-Za-z_]\w*)", code_lines(source)[at - 1]
    )
    return match[1] if match else None


def accumulator(source: str) -> str:
    """The accumulator's name: what the store writes, else the first name that is added to with +=."""
    name = stored_name(source)
    if name:
        return name
    match = re.search(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*\s*\+=", "\n".join(code_lines(source)))
    return match[1] if match else "sum"


def add_line(source: str) -> int | None:
    """The line of the multiply-add: where the accumulator is assigned (or added to) a product."""
    lines = code_lines(source)
    name = re.escape(accumulator(source))
    return _first(lines, rf"\b{name}\b\s*(?:\[[^\]]*\])*\s*\+?=(?!=)[^;]*\*") or _first(lines, rf"\b{name}\s*\+=")


def declaration_line(source: str, name: str) -> int | None:
    """The line that declares `name` (float sum = 0.0f; int acc[4][4];)."""
    return _first(code_lines(source), rf"\b(?:float|int|double|unsigned|long|short|auto)\b[^;=]*\b{re.escape(name)}\b")


def int_line(source: str) -> int | None:
    """A line that makes the sum whole numbers: the accumulator declared int, or an (int) cast, or an int
    accumulator of another name added to with +=."""
    lines = code_lines(source)
    name = accumulator(source)
    at = _first(lines, rf"\b(?:int|unsigned|long|short)\b[^;(]*\b{re.escape(name)}\b")
    if at is not None:
        return at
    at = _first(lines, r"\(\s*(?:int|unsigned|long)\s*\)|\b__float2int|\bfloorf?\s*\(|\btruncf?\s*\(")
    if at is not None:
        return at
    for i, text in enumerate(lines):
        for var in re.findall(r"\b(?:int|long)\s+([A-Za-z_]\w*)\s*(?:=\s*0\s*)?;", text):
            if re.search(rf"\b{var}\s*\+=", "\n".join(lines)):
                return i + 1
    return None


def loop_lines(source: str) -> list[int]:
    """The lines of every for loop, in order."""
    return [i + 1 for i, text in enumerate(code_lines(source)) if _FOR.search(text)]


def tile_loop_line(source: str) -> int | None:
    """The loop over the tiles of K: the first for loop that has a loop inside it or whose bound names K."""
    lines = code_lines(source)
    for at in loop_lines(source):
        if re.search(r"\bK\b", lines[at - 1]):
            return at
    loops = loop_lines(source)
    return loops[0] if loops else None


def k_loop_line(source: str) -> int | None:
    """The loop of the multiply-adds: the last for loop before the accumulation (sum += ...)."""
    lines = code_lines(source)
    name = accumulator(source)
    add = _first(lines, rf"\b{re.escape(name)}\b\s*(?:\[[^\]]*\])*\s*\+=")
    if add is None:
        return None
    before = [at for at in loop_lines(source) if at <= add]
    along = [at for at in before if re.search(r"\b(?:K|TILE|BK|TILE_K|BLOCK_K)\b", lines[at - 1])]
    found = along or before
    return found[-1] if found else None


def reset_line(source: str) -> int | None:
    """A line inside the loop over the tiles that sets the accumulator back to zero (sum = 0.0f;), or declares
    it there (float sum = 0.0f; inside the loop)."""
    lines = code_lines(source)
    loop = tile_loop_line(source)
    if loop is None:
        return None
    name = re.escape(accumulator(source))
    zero = rf"\b{name}\b\s*(?:\[[^\]]*\])*\s*=\s*(?:\{{\s*\}}|\{{?\s*0(?:\.0*)?f?\s*\}}?)\s*;"
    for i in range(loop, len(lines)):
        if re.search(zero, lines[i]):
            return i + 1
    return None


def load_line(source: str, matrix: str) -> int | None:
    """The first line that reads `matrix` (A or B) from global memory."""
    return _first(code_lines(source), rf"(?<![\w.]){matrix}\s*\[")


def assign_line(source: str, name: str) -> int | None:
    """The line that sets `name` (int row = ...;); for "row" and "col", the names the store into C uses for
    them where it is C[y * N + x] (y and x)."""
    if name in ("row", "col"):
        names = store_index_names(source)
        if names is not None:
            name = names[0] if name == "row" else names[1]
    return _first(code_lines(source), rf"\b{re.escape(name)}\s*=(?!=)")


def store_index_names(source: str) -> tuple[str, str] | None:
    """(the row's name, the column's name) in the store C[row * N + col] (or C[col + row * N]), None otherwise."""
    at = store_line(source)
    if at is None:
        return None
    text = code_lines(source)[at - 1]
    match = re.search(r"(?<![\w.])C\s*\[\s*\(?\s*(\w+)\s*\)?\s*\*\s*N\s*\+\s*(\w+)\s*\]", text)
    if match:
        return match[1], match[2]
    match = re.search(r"(?<![\w.])C\s*\[\s*(\w+)\s*\+\s*\(?\s*(\w+)\s*\)?\s*\*\s*N\s*\]", text)
    return (match[2], match[1]) if match else None


def shared_load_line(source: str) -> int | None:
    """The first line that stores into a shared tile from A or B."""
    lines = code_lines(source)
    shared = set(re.findall(r"__shared__\s+\w+\s+([A-Za-z_]\w*)", "\n".join(lines)))
    for i, text in enumerate(lines):
        for name in shared:
            if re.search(rf"\b{name}\s*\[[^=]*\]\s*=(?!=)", text) and re.search(r"(?<![\w.])[AB]\s*\[", text):
                return i + 1
    return None


def index_line(source: str, matrix: str, t_name: str | None = None) -> int | None:
    """The load of `matrix`'s tile whose index does not use the loop's tile variable (a tile index without t):
    the load's line, or the line inside the loop that sets a name its index uses."""
    lines = code_lines(source)
    loop = tile_loop_line(source)
    if loop is None:
        return None
    t = t_name or _loop_var(lines[loop - 1])
    load = re.compile(rf"(?<![\w.]){matrix}\s*\[([^\]]*)\]")
    for i in range(loop - 1, len(lines)):
        match = load.search(lines[i])
        if not match:
            continue
        names = set(re.findall(r"[A-Za-z_]\w*", match[1]))
        if t and t in names:
            return None
        for j in range(i - 1, loop - 1, -1):
            for name in names:
                if re.search(rf"\b{name}\s*=(?!=)", lines[j]) and (not t or not re.search(rf"\b{t}\b", lines[j])):
                    return j + 1
        return i + 1
    return None


def _loop_var(text: str) -> str | None:
    match = re.search(r"for\s*\(\s*(?:int|unsigned|size_t)?\s*([A-Za-z_]\w*)", text)
    return match[1] if match else None


def guard_line(source: str, line: int) -> int | None:
    """The guard of the access at `line`: that line where it holds a condition (if, ?:), else the nearest
    if above it, within the kernel's body."""
    lines = code_lines(source)
    if not 0 < line <= len(lines):
        return None
    if re.search(r"\bif\s*\(|\?", lines[line - 1]) and "<" in lines[line - 1]:
        return line
    for i in range(line - 2, -1, -1):
        if re.search(r"\bif\s*\(", lines[i]) and "<" in lines[i]:
            return i + 1 if _encloses(lines, i, line - 1) else None
        if re.search(r"__global__", lines[i]):
            break
    return None


def _encloses(lines: list[str], at: int, target: int) -> bool:
    """Whether the if at line index `at` guards line index `target`: inside its braces, or the one statement
    that follows a brace-less if."""
    text = lines[at]
    tail = text[text.index("if") :]
    if "{" not in tail:
        return target == at + 1 or (target > at and not any(lines[j].strip() for j in range(at + 1, target)))
    depth = 0
    for j in range(at, target + 1):
        piece = tail if j == at else lines[j]
        for ch in piece:
            depth += (ch == "{") - (ch == "}")
        if depth <= 0 and j < target:
            return False
    return depth > 0


def crossed_dims(text: str) -> bool:
    """Whether a guard compares row with N or col with M (the two dimensions crossed)."""
    return bool(
        re.search(r"\brow\w*\s*<=?\s*N\b|\bcol\w*\s*<=?\s*M\b|\bb_row\s*<=?\s*[MN]\b|\ba_col\s*<=?\s*[MN]\b", text)
    )


def mixed_stride_line(source: str) -> int | None:
    """A line whose index of A uses M or N, of B uses K or M, or of C uses K or M, as a row stride."""
    lines = code_lines(source)
    for i, text in enumerate(lines):
        for matrix, wrong in (("A", "MN"), ("B", "KM"), ("C", "KM")):
            for index in re.findall(rf"(?<![\w.]){matrix}\s*\[([^\]]*)\]", text):
                if re.search(rf"\*\s*[{wrong}]\b|\b[{wrong}]\s*\*", index):
                    return i + 1
    return None


def k_guard_line(source: str) -> int | None:
    """A guard that compares an index along K (a_col, b_row, k...) with M or N."""
    return _first(code_lines(source), r"\b(?:a_col|b_row|k\w*|c|r)\s*<=?\s*[MN]\b")


def shared_store_line(source: str, matrix: str) -> int | None:
    """The line that stores `matrix`'s (A or B) elements into a shared tile."""
    lines = code_lines(source)
    shared = set(re.findall(r"__shared__\s+\w+\s+([A-Za-z_]\w*)", "\n".join(lines)))
    for i, text in enumerate(lines):
        for name in shared:
            if re.search(rf"\b{name}\s*\[[^=]*\]\s*=(?!=)", text) and re.search(rf"(?<![\w.]){matrix}\s*\[", text):
                return i + 1
    return None


def guard_misses(text: str) -> str | None:
    """The dimension a store's guard leaves out: 'col < N' where it compares only row, 'row < M' where only col."""
    rows = re.search(r"\b(?:row|r)\w*\s*<", text)
    cols = re.search(r"\b(?:col|c)\w*\s*<", text)
    if rows and not cols:
        return "col < N"
    if cols and not rows:
        return "row < M"
    return None


def source_line(record: dict, line: int | None) -> str:
    """Line `line` (from 1) of the record's source, stripped and printable; '' when there is none."""
    if not line:
        return ""
    lines = source_lines(record.get("source") or "")
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def source_lines(source: str) -> list[str]:
    """The source's lines as nvcc numbers them (only \\n ends a line; a form feed or U+2028 does not), with
    control characters shown as '?' (they never reach a terminal or a widget raw)."""
    return [printable(line) for line in source.split("\n")]


def printable(text: str) -> str:
    """`text` with terminal control characters (ESC, BEL, ...), bidi controls and lone surrogates shown as visible
    escapes, its lines kept: core/text.printable, the one function for file-derived text."""
    return _printable(text, lines=True)


def tiles_loop_line(record: dict) -> int | None:
    """The line of the loop over K's tiles that rounds down (K / TILE, no + TILE - 1), if the source has one."""
    lines = (record.get("source") or "").splitlines()
    for i, text in enumerate(lines, 1):
        code = text.split("//")[0].replace(" ", "")
        if code.startswith("for(") and re.search(r"<K/\w+", code):
            return i
    return None


def conflicted_array_line(source: str) -> int | None:
    """The declaration of the shared array a warp reads down a column (name[threadIdx.x][k]: lanes a row apart,
    the same bank where the row is 32 words), else of the last shared array."""
    lines = code_lines(source)
    declared = [(i + 1, m[1]) for i, t in enumerate(lines) for m in [re.search(r"__shared__\s+\w+\s+(\w+)", t)] if m]
    for at, name in declared:
        if any(re.search(rf"\b{name}\s*\[\s*threadIdx\.x\s*\]\s*\[", t) for t in lines):
            return at
    return declared[-1][0] if declared else None
