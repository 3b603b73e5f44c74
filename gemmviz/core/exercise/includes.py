"""What a hand-in may #include: the CUDA headers and the C and C++ standard headers by name, and files
inside its own folder. Anything else (an absolute path, a `../` that leaves the folder, a link that points out
of it, a device such as /dev/zero, a name made by a macro) is refused by name before any compiler reads the
file, on both compile paths (nvcc and NVRTC), and the files it includes from its folder are held to the same
rule. The compilers are then given that folder as their one include path.

The directives are found as the preprocessor finds them: lines joined at a backslash-newline, comments blanked
(`strip_comments`), `#` or its digraph `%:`, and every spelling that reads a file (`include`, `include_next`,
`import`, `embed`). A directive inside `#if 0` is held to the rule too: the check does not evaluate macros."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from gemmviz.core.exercise.exercises import MAX_SOURCE_BYTES, ExerciseError, strip_comments
from gemmviz.core.fileio import InputFileError, read_regular

MAX_FILES = 64  # headers of its own a hand-in may include, all levels together

# the C and C++ standard headers a kernel file may name (printf, integer types, math, limits, type traits)
STANDARD_HEADERS = frozenset(
    """assert.h float.h limits.h math.h stdint.h stddef.h stdio.h stdlib.h string.h stdbool.h
    cassert cfloat climits cmath cstdint cstddef cstdio cstdlib cstring
    algorithm array atomic cuda_pipeline.h initializer_list limits numeric tuple type_traits utility""".split()
)
# the CUDA toolkit's headers: by these names, and anything under these folders of its include directory
CUDA_HEADER = re.compile(
    r"^(?:cuda[A-Za-z0-9_]*\.h|cuda_[A-Za-z0-9_]+\.hpp|cooperative_groups(?:\.h)?|mma\.h|sm_\d+_[A-Za-z0-9_]+\.h"
    r"|device_[a-z_]+\.h|vector_types\.h|vector_functions\.h|math_constants\.h|math_functions\.h"
    r"|(?:cuda|cooperative_groups|crt|cub|thrust|nv)/[A-Za-z0-9_./]+)$"
)
_DIRECTIVE = re.compile(r"^[ \t]*(?:#|%:)[ \t]*(include_next|include|import|embed)\b[ \t]*(.*)$", re.M)


def _directives(source: str) -> list[tuple[int, str, str]]:
    """(line, directive, what follows it) for every file-reading directive, lines as the compiler counts them."""
    lines_before = []
    joined = []
    line = 1
    # translation phase 2: a backslash-newline joins two lines (split's odd pieces are the backslash-newlines)
    for i, piece in enumerate(re.split(r"(\\\r?\n)", source)):
        if i % 2:
            line += 1
            continue
        joined.append(piece)
        lines_before.append(line)
        line += piece.count("\n")
    text = "".join(joined)
    # where each joined line began in the file: the offsets of the pieces map back to their first line
    starts, offset = [], 0
    for piece, first in zip(joined, lines_before, strict=True):
        starts.append((offset, first, piece))
        offset += len(piece)
    text = strip_comments(text)
    out = []
    for match in _DIRECTIVE.finditer(text):
        out.append((_line_at(starts, match.start()), match.group(1), match.group(2).strip()))
    return out


def _line_at(starts: list[tuple[int, int, str]], pos: int) -> int:
    for offset, first, piece in reversed(starts):
        if offset <= pos:
            return first + piece.count("\n", 0, pos - offset)
    return 1


def system_header(name: str) -> bool:
    """A CUDA or standard header by its name; never one with '..' (<cuda/../../etc/passwd> leaves the toolkit)."""
    if ".." in PurePosixPath(name.replace("\\", "/")).parts:
        return False
    return name in STANDARD_HEADERS or bool(CUDA_HEADER.match(name))


def check_includes(source: str, folder: Path, shown: str) -> None:
    """Refuse (ExerciseError) a hand-in whose #include reads anything but a CUDA or standard header or a file
    inside `folder`; the files it includes from the folder are checked the same way. `shown`: its name in the
    message."""
    root = Path(folder).resolve()
    seen: set[Path] = set()
    todo = [(source, root, shown, "")]
    while todo:
        text, here, name, via = todo.pop()
        for line, directive, rest in _directives(text):
            where = f"{name}:{line}{via}"
            quoted, target = _target(rest, directive, where)
            path = _inside(target, quoted, here, root, where)
            if path is None or path in seen:
                continue
            seen.add(path)
            if len(seen) > MAX_FILES:
                raise ExerciseError(f"{where}: more than {MAX_FILES} included files: is this a kernel?")
            todo.append((_read(path, where), path.parent, path.name, f" (included at {where.split(' (')[0]})"))


def _target(rest: str, directive: str, where: str) -> tuple[bool, str]:
    match = re.match(r'^"([^"\n]*)"|^<([^>\n]*)>', rest)
    if match is None:
        raise ExerciseError(
            f"{where}: #{directive} {rest[:80]}: write the file's name in quotes or <>; a name made by a macro "
            "is not accepted in a hand-in"
        )
    if directive == "embed":
        raise ExerciseError(f"{where}: #embed {rest[:80]}: a hand-in may not embed files")
    return match.group(1) is not None, match.group(1) if match.group(1) is not None else match.group(2)


def _inside(target: str, quoted: bool, here: Path, root: Path, where: str) -> Path | None:
    """The included file inside the folder (to be checked in turn), None for a system header; ExerciseError for
    anything else."""
    short = target if len(target) <= 80 else target[:79] + "…"  # a 200,000-character name is not a message
    spelled = f'"{short}"' if quoted else f"<{short}>"
    outside = (
        f"{where}: #include {spelled}: a hand-in may include only the CUDA and standard headers and files inside "
        "its own folder"
    )
    pure = PurePosixPath(target.replace("\\", "/"))
    if not target or pure.is_absolute() or re.match(r"^[A-Za-z]:", target):
        raise ExerciseError(outside)
    places = [here / target, root / target] if quoted else [root / target]
    for place in places:
        if _there(place):
            real = place.resolve()
            if not real.is_relative_to(root):
                raise ExerciseError(f"{outside} (it leads to {real})")
            return real
    if system_header(target):
        return None
    raise ExerciseError(f"{outside} (no such file in {root.name}/, and not a CUDA header)")


def _there(place: Path) -> bool:
    """Whether a file or link is at `place`; a name no file system takes (over 255 bytes) is not there: its
    OSError failed a hand-in's grading as a bug in gemmviz, run after run."""
    try:
        return place.exists() or place.is_symlink()
    except OSError:
        return False


def _read(path: Path, where: str) -> str:
    try:
        data = read_regular(path, MAX_SOURCE_BYTES)
    except (OSError, InputFileError) as exc:
        raise ExerciseError(f"{where}: cannot read the included file {path.name}: {exc}") from None
    return data.decode("utf-8", "replace")
