"""Exercises as data: a task, a starter .cu, the registry kernel it is measured against, goals and hints.

An exercise is a TOML file in assets/exercises/ (or anywhere, given by path) with its starter beside it. Every
field is checked here, with the file named in the message, before anything is compiled or written."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gemmviz.core import paths
from gemmviz.core.exercise.access_figures import check_goals
from gemmviz.core.fileio import FileFormatError, FileMemo, InputFileError, parse_toml, read_regular
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.schema import Schema, Wording

FORMAT = "gemmviz-exercise"
VERSION = 1
MAX_FILE_BYTES = 64 * 1024
MAX_TEXT = 8000
MAX_HINTS = 12
MAX_SOURCE_BYTES = 256 * 1024  # a student's .cu: larger is not a kernel for these exercises
NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")
LANGS = ("en", "zh")


class ExerciseError(FileFormatError):
    """An exercise file, or a student's source, that cannot be used as written: the message says why."""


@dataclass(frozen=True)
class Exercise:
    name: str
    title: str
    kernel: str  # the extern "C" __global__ function the student writes
    starter: str  # the starter file's name, beside the exercise file
    reference: str  # registry variant it is timed against
    reference_params: dict
    threads: tuple[int, int]  # blockDim (x, y)
    block_tile: tuple[int, int]  # columns, rows of C per block: the grid is ceil(N/cols) x ceil(M/rows)
    defines: dict
    speed_goal: float  # at least this fraction of the reference's GFLOP/s
    task: str
    hints: tuple[str, ...]
    folder: Path
    texts: dict = field(default_factory=dict)  # {"zh": {"title", "task", "hints", "access_fix"}}
    order: int = 99  # the place in the teaching order (gemmviz exercise --list, the tab's menu)
    access_goals: dict = field(default_factory=dict)  # {figure: at most}, core/exercise/access_goals.FIGURES
    access_fix: str = ""  # what to change when an access goal fails

    def text(self, lang: str = "en") -> tuple[str, str, tuple[str, ...]]:
        """(title, task, hints) in `lang` where the exercise has it, else English."""
        other = self.texts.get(lang)
        if other:
            return other["title"], other["task"], other["hints"]
        return self.title, self.task, self.hints

    def fix(self, lang: str = "en") -> str:
        """What to change when an access goal fails, in `lang` where the exercise has it, else English."""
        return (self.texts.get(lang) or {}).get("access_fix") or self.access_fix

    @property
    def languages(self) -> tuple[str, ...]:
        return ("en", *sorted(self.texts))

    def starter_text(self) -> str:
        """The starter's text: a regular file of at most MAX_SOURCE_BYTES in the exercise's folder (a link that
        leads out of it, to /etc/passwd say, is refused, as a lesson's session is)."""
        path = self.folder / self.starter
        where = f"exercise {self.name}: its starter {path}"
        try:
            inside = path.resolve().is_relative_to(self.folder.resolve())
        except (OSError, RuntimeError):  # a loop of links
            inside = False
        if not inside:
            raise ExerciseError(f"{where} leads out of the exercise's folder (a link?); put the file itself there")
        try:
            data = read_regular(path, MAX_SOURCE_BYTES)
        except (OSError, InputFileError) as exc:
            raise ExerciseError(f"{where} cannot be read: {str(exc).removeprefix('cannot read: ')}") from None
        if b"\0" in data:
            raise ExerciseError(f"{where} is a binary file, not CUDA source")
        return data.decode("utf-8", errors="replace")

    def nvcc_defines(self) -> list[str]:
        return [f"-D{k}={v}" for k, v in sorted(self.defines.items())]


def _schema(where: str) -> Schema:
    """The checks of the exercise file `where` (core/schema.py), in its words: `FILE: 'threads' must be ...`."""
    return Schema(
        lambda _key, message: ExerciseError(f"{where}: {message}"),
        Wording(
            at="'{where}' {what}",
            text="must be a non-empty text",
            text_long="is longer than {limit} characters",
            mapping="must be a table of at most {limit} entries",
            mapping_long="must be a table of at most {limit} entries",
        ),
    )


def _text(data: dict[str, Any], key: str, where: str, limit: int = MAX_TEXT) -> str:
    schema, value = _schema(where), data.get(key)
    schema.need(isinstance(value, str) and bool(value.strip()), key, "must be a non-empty text")
    return schema.text(limit, "keep")(value, key).strip()


def _hints(data: dict[str, Any], where: str) -> tuple[str, ...]:
    schema, hints = _schema(where), data.get("hints", [])
    said = f"must be a list of at most {MAX_HINTS} non-empty texts"
    hints = schema.worded(sequence=said, sequence_long=said).sequence(hints, "hints", MAX_HINTS)
    schema.need(all(isinstance(h, str) and h.strip() for h in hints), "hints", said)
    if any(len(h) > 1000 for h in hints):
        raise schema.error("hints", "a hint is longer than 1000 characters")
    return tuple(h.strip() for h in hints)


def _pair(data: dict[str, Any], key: str, where: str, low: int, high: int) -> tuple[int, int]:
    said = f"must be two whole numbers from {low} to {high}"
    schema = _schema(where).worded(sequence=said, sequence_exact=said, sequence_long=said, whole=said, whole_range=said)
    first, second = (schema.whole(low, high)(v, key) for v in schema.sequence(data.get(key), key, 2, exact=2))
    return first, second


def _int_table(data: dict[str, Any], key: str, where: str) -> dict[str, int]:
    said = "must be a C name with a whole number from 0 to 4096"
    schema = _schema(where).worded(whole=said, whole_range=said)
    table = schema.mapping(data.get(key, {}), key, 16)
    for name, number in table.items():
        schema.need(bool(IDENT.match(name)), f"{key}.{name}", said)
        schema.whole(0, 4096)(number, f"{key}.{name}")
    return dict(table)


def _reference(data: dict[str, Any], where: str) -> tuple[str, dict[str, int]]:
    name = data.get("reference")
    variant = VARIANTS.get(name) if isinstance(name, str) else None
    if variant is None or variant.backend != "cuda" or variant.runner != "kernel":
        kernels = ", ".join(v.name for v in VARIANTS.values() if v.runner == "kernel")
        raise ExerciseError(f"{where}: 'reference' must be a registry kernel ({kernels}), got {name!r}")
    assert isinstance(name, str)
    params = _int_table(data, "reference_params", where)
    for key, value in params.items():
        if value not in variant.param_choices.get(key, ()):
            raise ExerciseError(f"{where}: {name} has no {key} = {value}")
    return name, params


KEYS = frozenset(
    ("format", "version", "name", "title", "kernel", "starter", "reference", "reference_params", "threads")
    + ("block_tile", "defines", "speed_goal", "task", "hints", "order", "access_goals", "access_fix", *LANGS[1:])
)
LANG_KEYS = frozenset({"title", "task", "hints", "access_fix"})


def _unknown(data: dict, known: frozenset, where: str) -> None:
    """Refuse a key the exercise format does not have (a misspelled 'hintz' would be ignored otherwise)."""
    unknown = sorted(set(data) - known)
    if unknown:
        raise ExerciseError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(sorted(known))})")


def _translations(data: dict, where: str) -> dict:
    """The exercise's words in the other languages: {lang: {title, task, hints, access_fix}}."""
    texts = {}
    for lang in LANGS[1:]:
        if lang in data:
            part, here = data[lang], f"{where} [{lang}]"
            if not isinstance(part, dict):
                raise ExerciseError(f"{here}: must be a table")
            _unknown(part, LANG_KEYS, here)
            texts[lang] = {
                "title": _text(part, "title", here, 200),
                "task": _text(part, "task", here),
                "hints": _hints(part, here),
                "access_fix": _text(part, "access_fix", here, 400) if "access_fix" in part else "",
            }
    return texts


def parse_exercise(text: str, where: str, folder: Path) -> Exercise:
    """An Exercise from a TOML text; ExerciseError naming `where` and the field otherwise."""
    try:
        data = parse_toml(text)
    except InputFileError as exc:  # nested too deep, a number of thousands of digits
        raise ExerciseError(f"{where}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ExerciseError(f"{where}: not valid TOML: {exc}") from None
    except RecursionError:  # arrays or tables nested thousands deep
        raise ExerciseError(f"{where}: not valid TOML: nested too deeply for an exercise") from None
    if "format" not in data and "step" in data:  # "unknown key 'session'" said nothing of what the file is
        raise ExerciseError(f"{where}: a lesson, not an exercise: open it with `gemmviz lesson` or --lesson")
    _unknown(data, KEYS, where)
    if data.get("format") != FORMAT:
        raise ExerciseError(f"{where}: not a gemmviz exercise (format must be '{FORMAT}')")
    if type(data.get("version")) is not int or data.get("version") != VERSION:  # true == 1 in Python
        raise ExerciseError(f"{where}: exercise version {data.get('version')!r}; this gemmviz reads version {VERSION}")
    schema = _schema(where)
    name, kernel, starter = data.get("name"), data.get("kernel"), data.get("starter")
    schema.need(
        isinstance(name, str) and bool(NAME.match(name)),
        "name",
        "must be lower-case letters, digits, '-' or '_' (at most 40)",
    )
    schema.need(isinstance(kernel, str) and bool(IDENT.match(kernel)), "kernel", "must be a C function name")
    schema.need(
        isinstance(starter, str) and Path(starter).name == starter and starter.endswith(".cu"),
        "starter",
        "must be a .cu file name beside the exercise (no folders)",
    )
    assert isinstance(name, str) and isinstance(kernel, str) and isinstance(starter, str)
    threads = _pair(data, "threads", where, 1, 1024)
    if threads[0] * threads[1] > 1024:
        raise ExerciseError(f"{where}: 'threads' asks for {threads[0] * threads[1]} threads; a block has at most 1024")
    said = "must be a number above 0 and at most 4"
    speed = _schema(where).worded(number=said, finite=said, number_above=said, number_over=said)
    goal = speed.number(0, 4, above=True)(data.get("speed_goal"), "speed_goal")
    reference, reference_params = _reference(data, where)
    texts = _translations(data, where)
    said = "must be a whole number from 1 to 99 (the place in the teaching order)"
    order = _schema(where).worded(whole=said, whole_range=said).whole(1, 99)(data.get("order", 99), "order")
    try:
        access_goals = check_goals(data.get("access_goals"), where)
    except ValueError as exc:
        raise ExerciseError(str(exc)) from None
    exercise = Exercise(
        name=name,
        title=_text(data, "title", where, 200),
        kernel=kernel,
        starter=starter,
        reference=reference,
        reference_params=reference_params,
        threads=threads,
        block_tile=_pair(data, "block_tile", where, 1, 1024),
        defines=_int_table(data, "defines", where),
        speed_goal=float(goal),
        task=_text(data, "task", where),
        hints=_hints(data, where),
        folder=folder,
        texts=texts,
        order=order,
        access_goals=access_goals,
        access_fix=_text(data, "access_fix", where, 400) if "access_fix" in data else "",
    )
    if texts and any(len(t["hints"]) != len(exercise.hints) for t in texts.values()):
        raise ExerciseError(f"{where}: each language must have as many hints as the English ({len(exercise.hints)})")
    return exercise


def load_exercise_file(path: str | Path) -> Exercise:
    path = Path(path)
    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except (OSError, InputFileError) as exc:
        raise ExerciseError(f"{path}: cannot read the exercise: {exc}") from None
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark (Notepad writes one) is not text, as for lessons
    except UnicodeDecodeError:
        raise ExerciseError(f"{path}: not UTF-8 text; is it an exercise?") from None
    return parse_exercise(text, str(path), path.parent)


def exercise_files() -> list[Path]:
    """The shipped exercise files (assets/exercises/*.toml): every list of exercises is derived from them."""
    folder = Path(str(paths.shipped("assets") / "exercises"))
    return sorted(folder.glob("*.toml"))


def shipped_exercises() -> list[Exercise]:
    """The shipped exercises in teaching order (each file's `order`: each after the kernel it changes). Two with
    one `order`, or one name, are refused (ExerciseError naming both files): the order would be the files'."""
    found: list[Exercise] = []
    by_order: dict[int, Path] = {}
    by_name: dict[str, Path] = {}
    for path in exercise_files():
        e = load_exercise_file(path)
        if e.order in by_order:
            raise ExerciseError(
                f"{path}: order = {e.order} is also {by_order[e.order].name}'s: each exercise has its own place in the "
                "teaching order (a whole number from 1 to 99; leave gaps to insert one later)"
            )
        if e.name in by_name:
            raise ExerciseError(f"{path}: name = {e.name!r} is also {by_name[e.name].name}'s: each exercise its own")
        by_order[e.order], by_name[e.name] = path, path
        found.append(e)
    return sorted(found, key=lambda e: (e.order, e.name))


def find_exercise(name_or_path: str) -> Exercise:
    """A shipped exercise by name, or an exercise .toml by path."""
    if name_or_path.endswith(".toml") or "/" in name_or_path:
        return load_exercise_file(name_or_path)
    for exercise in shipped_exercises():
        if exercise.name == name_or_path:
            return exercise
    known = ", ".join(e.name for e in shipped_exercises())
    raise ExerciseError(f"no exercise named {name_or_path!r}; shipped: {known}")


def guess_exercise(source: str) -> Exercise | None:
    """The shipped exercise whose kernel the source defines (for `check FILE` without --exercise, and the app's
    Exercise tab): its kernel's name, not the file's, and never a name in a comment."""
    source = strip_comments(source)
    for exercise in shipped_exercises():
        if re.search(rf"\b{re.escape(exercise.kernel)}\s*\(", source):
            return exercise
    return None


def recorded_reference(exercise: Exercise) -> dict | None:
    """The reference kernel's and cuBLAS's results in the newest shipped measured session (for a machine with
    no GPU): {"session", "gpu", "created", "rows": [{"series", "size", "median_ms", "gflops"}]}."""
    names = sorted(f.name for f in paths.asset_files("sessions") if not f.name.startswith("published"))
    for name in reversed(names):
        timed = _timed_results(paths.asset_path("sessions", name))
        if timed is None:
            continue
        gpu, created, results = timed
        rows = [
            {"series": series, "size": list(size), "median_ms": median_ms, "gflops": gflops}
            for variant, params, series, size, median_ms, gflops in results
            if variant == "cublas"
            or (variant == exercise.reference and all(params.get(k) == v for k, v in exercise.reference_params.items()))
        ]
        if rows:
            return {"session": name, "gpu": gpu, "created": created, "rows": rows}
    return None


_TIMED = FileMemo(size=8)  # each shipped session's timed results, while its file stays the same


def _timed_results(path: Path) -> tuple | None:
    """(gpu, created, [(variant, params, series, size, median_ms, gflops)] of its valid timed results) of a
    session file, None where it cannot be read. Kept per process while the file is unchanged: every check
    without a GPU asks (a 1 MB session read and checked again for each check of a grade batch before)."""
    try:
        return _TIMED.get([path], lambda: _read_timed(path))
    except (OSError, ValueError):
        return None  # not kept: a file being replaced may read next time


def _read_timed(path: Path) -> tuple:
    from gemmviz.core.session.results import Session

    session = Session.load(path)
    gpu = (session.environment.get("backends", {}).get("cuda", {}) or {}).get("name") or "the recording GPU"
    results = [
        (r.variant, dict(r.params), r.series, (r.m, r.n, r.k), r.median_ms, r.gflops)
        for r in session.results
        if r.valid and r.median_ms
    ]
    return gpu, session.created, results


# --- the student's source, before nvcc --------------------------------------------------------------------

# the parentheses' contents are bounded: unbounded, each unclosed '(' was scanned to the end of the file (a file of
# 'extern "C" { __global__ void gemm_naive(' took 13 s to refuse)
_SIGNATURE = (
    r'extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\s*\([^)]{{0,200}}\)\s*)?{name}\s*\(([^)]{{0,2000}})\)'
)
_IN_BLOCK = r"__global__\s+void\s+(?:__launch_bounds__\s*\([^)]{{0,200}}\)\s*)?{name}\s*\(([^)]{{0,2000}})\)"


def read_source(path: str | Path) -> str:
    """The student's .cu as text: a regular file of at most MAX_SOURCE_BYTES, UTF-8."""
    path = Path(path)
    try:
        data = read_regular(path, MAX_SOURCE_BYTES)
    except (OSError, InputFileError) as exc:
        if "limit" in str(exc) or "limit" in str(exc):
            raise ExerciseError(f"{path} is larger than {MAX_SOURCE_BYTES // 1024} KiB: is it a kernel?") from None
        raise ExerciseError(f"cannot read {path}: {exc}") from None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or data.count(b"\0") * 4 > len(data) > 0:
        raise ExerciseError(f"{path} looks like UTF-16 text: save it as UTF-8 (nvcc reads UTF-8)")
    if b"\0" in data:
        raise ExerciseError(f"{path} is a binary file, not CUDA source")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ExerciseError(f"{path} is not UTF-8 text: is it CUDA source? (save it as UTF-8)") from None


_COMMENT_OR_LITERAL = re.compile(r"//|/\*|\"|'")
_LITERAL_END = {'"': re.compile(r'(?:[^"\\\n]|\\.)*"?'), "'": re.compile(r"(?:[^'\\\n]|\\.)*'?")}


def strip_comments(source: str) -> str:
    """The source with its // and /* */ comments blanked (newlines kept, so every line and column stays where it
    was): a signature in a comment is no kernel. String and character literals are kept as they are, and a
    comment marker inside one is no comment. One pass, linear in the file's length (a file of unclosed `/*`s
    in strings took 70 s with a regular expression)."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        m = _COMMENT_OR_LITERAL.search(source, i)
        if m is None:
            break
        j, token = m.start(), m.group()
        if token in ('"', "'"):
            end = _LITERAL_END[token].match(source, j + 1).end()  # type: ignore[union-attr]  # always a match: the pattern may match nothing
            out.append(source[i:end])
        else:
            if token == "//":
                end = source.find("\n", j)
            else:
                end = source.find("*/", j + 2)
                end = -1 if end < 0 else end + 2
            end = n if end < 0 else end
            out.append(source[i:j])
            out.append(re.sub(r"[^\n]", " ", source[j:end]))
        i = end
    out.append(source[i:])
    return "".join(out)


def check_signature(source: str, exercise: Exercise) -> None:
    """Refuse a source that cannot be the exercise's kernel, with a sentence on what to change."""
    source = strip_comments(source)
    if "__global__" not in source:
        raise ExerciseError("no __global__ function in the file: this is not a CUDA kernel")
    match = re.search(_SIGNATURE.format(name=re.escape(exercise.kernel)), source)
    if match is None and re.search(r'extern\s+"C"\s*\{', source):  # extern "C" { ... __global__ void name(...) }
        match = re.search(_IN_BLOCK.format(name=re.escape(exercise.kernel)), source)
    if match is None:
        if re.search(rf"\b{re.escape(exercise.kernel)}\s*\(", source):
            raise ExerciseError(
                f'{exercise.kernel} must be declared extern "C" __global__ void, as in the starter '
                '(without extern "C" its name is mangled and the checker cannot find it)'
            )
        raise ExerciseError(
            f"no kernel named {exercise.kernel}: keep the starter's name and parameters "
            f"(gemmviz exercise start {exercise.name} writes it)"
        )
    params = [p.strip() for p in match.group(1).split(",") if p.strip()]
    kinds = [
        "pointer"
        if ("*" in p or "[" in p) and re.search(r"\bfloat\b", p)
        else "int"
        if re.search(r"\bint\b", p) and "*" not in p
        else "other"
        for p in params
    ]
    if kinds != ["pointer"] * 3 + ["int"] * 3 or "const" in re.split(r"[*\[]", params[2])[0]:
        raise ExerciseError(
            f"{exercise.kernel} must take (const float* A, const float* B, float* C, int M, int N, "
            f"int K); this one takes ({', '.join(params)})"
        )
