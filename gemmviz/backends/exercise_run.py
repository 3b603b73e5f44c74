"""What a check is given and shares while it runs: its sizes and time limits, its options (CheckOptions), the
student's file as it is checked (HandIn), and the check under way (CheckRun: its folder and progress)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gemmviz.backends.kernel_cache import kernel_cache_dir, secure_cache_dir
from gemmviz.core.exercise.exercises import Exercise

SHAPES = ((1, 1, 1), (33, 17, 65), (100, 77, 129), (128, 128, 128), (1020, 1020, 1020))
SANITIZE_SHAPE = (33, 17, 65)
TIME_SHAPE = (2048, 2048, 2048)
PROFILE_SHAPE = (1024, 1024, 1024)
KERNEL_TIMEOUT_S = 10.0  # one launch
STEP_LIMITS_S = {"probe": 60, "verify": 180, "sanitize": 240, "time": 240, "profile": 300, "nvcc": 120,
                 "accesses": 180, "nvrtc": 120, "emulate": 300}  # fmt: skip

ProgressFn = Callable[[int, int, str], None]


@dataclass
class CheckOptions:
    sanitize: bool = True
    time: bool = True
    profile: bool = True
    accesses: bool = True
    seed: int | None = None
    emulate: bool = True  # without a GPU, run the kernel on the CPU emulator; with one, add its findings
    shapes: tuple = SHAPES
    timeout_s: float = KERNEL_TIMEOUT_S
    cancel: threading.Event = field(default_factory=threading.Event)
    scratch: Path | None = None  # where the check's folder goes (default: work_dir()); a grading run's own folder


def work_dir() -> Path:
    folder = secure_cache_dir(kernel_cache_dir() / "exercises")
    return folder


@dataclass(frozen=True)
class HandIn:
    """A student's file as it is checked: the path the user gave (for messages), its folder (the one place its
    #includes may come from) and the safely named copy of the bytes that were read and checked, which the
    compilers are given (a name with commas, quotes or spaces broke nvcc's ptxas step)."""

    given: str
    folder: Path
    copy: Path

    @property
    def name(self) -> str:
        return Path(self.given).name

    def shown(self, text: str) -> str:
        """Text that names the copy, naming the user's file instead."""
        text = text.replace(str(self.copy), self.given)
        return text if self.copy.name == self.name else text.replace(self.copy.name, self.name)

    def shown_diagnostics(self, diagnostics: list[dict]) -> list[dict]:
        """Diagnostics read under the copy's name (parse_nvcc), their messages naming the user's file."""
        return [{**d, "message": self.shown(d["message"])} for d in diagnostics]

    @property
    def include_dir(self) -> Path:
        """The hand-in's folder as the compilers are given it: a link of a plain name in the check's folder (nvcc
        hands its options to a shell of its own, where a folder named `$(...)` or with a quote would be read)."""
        return self.copy.parent.parent / "include"

    @classmethod
    def make(cls, given: str, source: str, work: Path) -> HandIn:
        """The copy (a name of letters, digits, _ and -) and the link to the folder, in the check's folder."""
        stem = re.sub(r"[^A-Za-z0-9_-]", "_", Path(given).stem)[:60].lstrip("-") or "kernel"
        copy = work / "src" / f"{stem}.cu"
        copy.parent.mkdir(exist_ok=True)
        copy.write_bytes(source.encode("utf-8"))
        handin = cls(given, Path(given).absolute().parent, copy)
        try:
            handin.include_dir.symlink_to(handin.folder.resolve(), target_is_directory=True)
        except OSError:  # no links here (Windows without the right): its own headers are not found, nothing else
            pass
        return handin


@dataclass
class CheckRun:
    """One check under way: the file, its exercise and options, the folder for its files, and how far it got."""

    source_path: Path  # the safely named copy that is compiled (handin.copy)
    exercise: Exercise
    options: CheckOptions
    folder: Path
    progress: ProgressFn
    done: int = 0
    given: str = ""  # the path as the user gave it
    handin: HandIn | None = None

    @property
    def steps(self) -> int:
        o = self.options
        return 2 + o.sanitize + o.time + o.profile + o.accesses + o.emulate

    def step(self, what: str) -> None:
        """Say that the next step, `what`, has begun."""
        self.progress(self.done, self.steps, what)
        self.done += 1
