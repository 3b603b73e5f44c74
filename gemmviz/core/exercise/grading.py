"""Grading a class, the part with no processes: which files of a folder are graded, the
CSV's columns, one row from a check record, an earlier CSV read back for a resume, and the text of every cell
made safe for a spreadsheet.

A row is keyed by the file's path under the folder, written so that no two names give the same cell: control
characters (a newline in a file name) and backslashes are escaped, and a cell a spreadsheet would take for a
formula (=, +, -, @ first) gets a leading apostrophe. The csv module quotes commas and quotes. Pure Python: the
checks themselves run in backends/grading.py."""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

from gemmviz.core.exercise.access_goals import GOAL as ACCESS_GOAL
from gemmviz.core.exercise.access_goals import access_verdict
from gemmviz.core.exercise.exercises import MAX_SOURCE_BYTES, Exercise
from gemmviz.core.fileio import InputFileError, read_regular

MAX_CSV_BYTES = 64 * 1024 * 1024
MAX_CELL = 2000  # a cause is one sentence; a longer cell is cut
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_FORMULA = ("=", "+", "-", "@", "'", "\t", "\r")
_SHA = re.compile("[0-9a-f]{64}")
NOT_CHECKED = "not checked"  # passed, for a file whose check did not finish (its worker died): the next run checks it
PASSED = ("yes", "no", "not judged", NOT_CHECKED, "")


class GradeError(ValueError):
    """A grading run that cannot go on as asked (an earlier CSV with other columns, a bad shard): one line."""


def goal_columns() -> list[str]:
    """The check's goals, in its order, then the access goal (this module's): one column each."""
    from gemmviz.core.exercise.check import GOALS

    return [*GOALS, ACCESS_GOAL]


def columns() -> list[str]:
    return ["file", "source_sha256", "exercise", *goal_columns(), "passed", "cause", "figures", "ran_on", "error"]


def _escape(match: re.Match) -> str:
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(match[0], f"\\x{ord(match[0]):02x}")


def cell(text: object) -> str:
    """`text` as a spreadsheet shows it and nothing more: control characters and backslashes escaped, a formula
    prefix neutralised, at most MAX_CELL characters."""
    s = "" if text is None else str(text)
    s = s.replace("\\", "\\\\")  # first: every escape below starts with a backslash of its own
    s = s.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")  # a name that is not UTF-8
    s = _CONTROL.sub(_escape, s)
    if s.startswith(_FORMULA):
        s = "'" + s
    return s if len(s) <= MAX_CELL else s[: MAX_CELL - 1] + "…"


def neutral(text: str) -> str:
    """A cell as it is written, whoever made it: cell()'s text is left as it is, and a cell read back from an
    earlier CSV (a teacher's edit, a planted formula) gets the same treatment without a second escaping of its
    backslashes: a raw control character (a newline) escaped, a formula prefix neutralised, the length cut."""
    s = _CONTROL.sub(_escape, text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))
    if s.startswith(_FORMULA) and not s.startswith("'"):
        s = "'" + s
    return s if len(s) <= MAX_CELL else s[: MAX_CELL - 1] + "…"


@dataclass(frozen=True)
class Student:
    """One file to grade: its path, its name under the folder (the row's key), and what was found on reading it."""

    path: Path
    name: str  # relative to the folder, as given to cell()
    sha256: str  # "" when it cannot be read as a kernel
    problem: str = ""  # why it is not checked (a link out of the folder, a FIFO, too large): the row says it


def source_hash(path: Path) -> tuple[str, str]:
    """(SHA-256 of the file's bytes, "") or ("", why it cannot be read): a FIFO, a folder, over the size limit."""
    try:
        return hashlib.sha256(read_regular(path, MAX_SOURCE_BYTES)).hexdigest(), ""
    except (OSError, InputFileError) as exc:
        return "", f"cannot read it: {exc}"


def students(folder: Path, skip: tuple[Path, ...] = ()) -> list[Student]:
    """Every .cu under `folder`, sorted by name. Folders that are links are not entered; a file that is a link is
    followed only when it leads to a file inside `folder` (else its row says so and nothing is read); a link
    loop, an unreadable file and an unreadable subfolder (its name ends in /) each get a row saying why.
    GradeError when `folder` itself cannot be listed."""
    root = Path(os.path.realpath(folder))
    skipped = {Path(os.path.realpath(p)) for p in skip}
    found: list[Student] = []

    def unreadable(exc: OSError) -> None:
        where = Path(exc.filename or root)
        if where == root:
            raise GradeError(f"{folder}: cannot list the folder: {exc.strerror or exc}")
        rel = str(where.relative_to(root)) if where.is_relative_to(root) else str(where)
        found.append(Student(where, rel + "/", "", f"cannot read this folder: {exc.strerror or exc}"))

    for here, dirs, files in os.walk(root, onerror=unreadable, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".cu"):
                student = _student(Path(here) / name, root, skipped)
                if student is not None:
                    found.append(student)
    return sorted(found, key=lambda s: s.name)


def _student(path: Path, root: Path, skipped: set[Path]) -> Student | None:
    rel = str(path.relative_to(root))
    if path.is_symlink():
        target = Path(os.path.realpath(path))  # never raises, not even for a loop of links
        if not target.is_relative_to(root):
            return Student(path, rel, "", "a link to a file outside the folder: not followed")
        if target in skipped:
            return None
        if not os.path.exists(target):
            return Student(path, rel, "", "a link that leads nowhere (a loop of links, or a removed file)")
        path = target  # read where it leads, so that a link changed later is not followed out of the folder
    sha, problem = source_hash(path)
    return Student(path, rel, sha, problem)


def parse_shard(text: str) -> tuple[int, int]:
    """'I/N' (I from 0 to N - 1, as a Slurm array's --array=0-(N-1) numbers its tasks) as (I, N)."""
    match = re.fullmatch(r"\s*(\d{1,6})\s*/\s*(\d{1,6})\s*", text)
    if not match or not 0 <= int(match[1]) < int(match[2]):
        raise GradeError(f"--shard {text!r}: give I/N with I from 0 to N - 1, e.g. 0/8")
    return int(match[1]), int(match[2])


def in_shard(name: str, shard: tuple[int, int] | None) -> bool:
    """Whether the file `name` is this shard's: by a hash of its name, so a file added later moves no other."""
    if shard is None:
        return True
    index, count = shard
    return int(hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:12], 16) % count == index


def read_rows(path: Path) -> dict[str, dict[str, str]]:
    """The rows of an earlier run's CSV by file (its cell), for a resume; {} when there is none. GradeError when
    it is not such a CSV (other columns, unreadable) or holds a row this gemmviz did not write (a cell more or
    less, such as a teacher's note; no file; a malformed hash; a file twice), naming the file and the line:
    a resume rewrites the whole CSV, and a row it cannot read back would be lost."""
    if not path.exists():
        return {}
    try:
        text = read_regular(path, MAX_CSV_BYTES).decode("utf-8-sig")
    except UnicodeDecodeError as exc:  # "'utf-8' codec can't decode byte 0xff …" named no file kind
        raise GradeError(
            f"{path}: not a grades CSV this gemmviz wrote (not UTF-8 text at byte {exc.start}): give another "
            "--csv, or move it away"
        ) from None
    except (OSError, InputFileError) as exc:
        raise GradeError(f"{path}: cannot read the earlier grades to resume: {exc}") from None
    if not text.strip():
        return {}
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
        if header != columns():
            raise GradeError(
                f"{path} has other columns than this gemmviz writes ({', '.join(header)}): "
                "give another --csv, or move it away"
            )
        rows: dict[str, dict[str, str]] = {}
        line = reader.line_num + 1
        for cells in reader:
            if cells:  # a blank line holds no row
                row = _row(path, line, cells)
                if row["file"] in rows:
                    raise GradeError(f"{path}, line {line}: a second row for {row['file']}; {_KEEP}")
                rows[row["file"]] = row
            line = reader.line_num + 1
    except csv.Error as exc:
        raise GradeError(f"{path}, line {reader.line_num}: not a CSV this gemmviz wrote: {exc}; {_KEEP}") from None
    return rows


_KEEP = "a resume would lose it: fix the row, or give another --csv (the file is left as it is)"


def _row(path: Path, line: int, cells: list[str]) -> dict[str, str]:
    """One row of an earlier CSV, its cells made safe to write again (neutral()); GradeError for a row that is
    not one this gemmviz writes."""
    names = columns()
    if len(cells) != len(names):
        raise GradeError(f"{path}, line {line}: {len(cells)} cells where this gemmviz writes {len(names)}; {_KEEP}")
    row = {name: neutral(value) for name, value in zip(names, cells)}
    if not row["file"]:
        raise GradeError(f"{path}, line {line}: a row with no file; {_KEEP}")
    if row["source_sha256"] and not _SHA.fullmatch(row["source_sha256"]):
        raise GradeError(f"{path}, line {line}: source_sha256 is not a SHA-256; {_KEEP}")
    if row["passed"] not in PASSED:
        raise GradeError(
            f"{path}, line {line}: passed is {row['passed']!r}, not one of {', '.join(PASSED[:4])}; {_KEEP}"
        )
    return row


def csv_text(rows: dict[str, dict[str, str]]) -> str:
    """The whole CSV: the header, then one row per file, sorted by file, every cell neutral() (resumed ones too)."""
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, columns(), quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    writer.writeheader()
    for key in sorted(rows):
        writer.writerow({c: neutral(rows[key].get(c, "")) for c in columns()})
    return out.getvalue()


def needs_check(student: Student, rows: dict[str, dict[str, str]]) -> bool:
    """False when an earlier row holds this file with the same content and a finished check (a file that could
    not be read, and one whose check did not finish, are looked at again each run)."""
    earlier = rows.get(cell(student.name))
    return not (
        student.sha256
        and earlier
        and earlier.get("source_sha256") == student.sha256
        and earlier.get("passed") != NOT_CHECKED
    )


def passed(status: dict[str, str]) -> str:
    """ "no" when a goal failed; "yes" when none failed and the kernel was found correct; else "not judged"
    (a check that could only compile it: every goal but one skipped is no pass)."""
    if any(s == "fail" for s in status.values()):
        return "no"
    return "yes" if status.get("correct") == "pass" else "not judged"


def problem_row(student: Student, problem: str, exercise: str = "") -> dict[str, str]:
    return {
        "file": cell(student.name),
        "source_sha256": student.sha256,
        "exercise": cell(exercise),
        "passed": "no",
        "error": cell(problem),
    }


def not_checked_row(student: Student, why: str, exercise: str = "") -> dict[str, str]:
    """The row of a file whose check did not finish through no fault of the file (its worker process died, a
    bug): passed says "not checked", no grade is given, and the next run checks it again."""
    row = problem_row(student, f"not checked: {why}; the next run checks it again", exercise)
    row["passed"] = NOT_CHECKED
    row["source_sha256"] = ""
    return row


def record_row(student: Student, record: dict, exercise: Exercise, lang: str = "en") -> dict[str, str]:
    """One file's row from its check record: each goal's status, passed (see passed()), the likeliest cause,
    the access figures, and where it ran."""
    row = problem_row(student, "", exercise.name)
    status = {v["goal"]: v["status"] for v in record.get("verdicts") or []}
    accesses = access_verdict(record, exercise.access_goals, exercise.fix(lang), lang)
    if accesses is not None:
        status[ACCESS_GOAL] = accesses["status"]
    for goal in goal_columns():
        row[goal] = status.get(goal, "")
    row["passed"] = passed(status)
    cause = record.get("cause") or (accesses or {}).get("cause") or ""
    row["cause"] = cell(cause)
    row["figures"] = cell(
        "; ".join(f"{k}={v:.3g}" for k, v in ((accesses or {}).get("figures") or {}).items() if v is not None)
    )
    row["ran_on"] = cell(ran_on(record))
    return row


def ran_on(record: dict) -> str:
    """What ran the kernel: the GPU's name; without one, the CPU emulator and the compiler that made its PTX
    ("CPU emulator, NVRTC compute_90"), or "no GPU: compiled only" where nothing ran it."""
    gpu = (record.get("environment") or {}).get("gpu")
    if gpu:
        return str(gpu)
    if not record.get("no_gpu"):
        return ""
    if not record.get("emulator"):
        return "no GPU: compiled only"
    compiled = record.get("compile") or {}
    tool = "NVRTC" if str(compiled.get("command", "")).startswith("nvrtc") else "nvcc"
    return f"CPU emulator, {tool} {compiled.get('arch') or ''}".strip()
