"""What every command shares: exit codes, the errors commands raise, option helpers, the results table,
the progress bar. Imports only core at module level, so building the parser stays light."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TextIO

from gemmviz.core.fileio import WrongSuffix, check_target, hold
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.parsing import decimal, whole
from gemmviz.core.problem import ProblemError
from gemmviz.core.text import printable

EXIT_OK = 0  # every job ran and verified; the command did what was asked
EXIT_FAILED = 1  # some jobs were refused / failed / invalid / unavailable, or an output could not be written
EXIT_USAGE = 2  # bad arguments (including an unreadable input file)
EXIT_INTERRUPTED = 130  # Ctrl+C; what finished is saved


class UsageError(Exception):
    """The command line asks for something that cannot be done as written: exit 2."""


class CommandError(Exception):
    """The command could not complete (no GPU, an export that failed): exit 1 with this one line."""


def nonempty(text: str) -> str:
    """An argparse type: a value that says something. `--session ''` took the lesson's own session, `--pair ''`
    the default pair, `exercise start naive ''` the current folder, all silently."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty value (leave the option out for its default)")
    return text


def whole_number(text: str) -> int:
    """argparse's type for a whole number: ASCII digits only (int() takes '١٠٢٤' as 1024)."""
    try:
        return whole(text, "the value")
    except ProblemError:
        raise argparse.ArgumentTypeError(
            f"invalid int value: {printable(repr(text))} (a whole number in the digits 0-9)"
        ) from None


def number(text: str) -> float:
    """argparse's type for a decimal number in ASCII digits (float() takes '١٫٥'). 'nan' and 'inf' pass here, as
    float() reads them: each option's own check refuses them in one line that says what the option needs."""
    if text.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return float(text)
    try:
        return decimal(text, "the value")
    except ProblemError:
        raise argparse.ArgumentTypeError(
            f"invalid float value: {printable(repr(text))} (a finite number in the digits 0-9, like 2.5)"
        ) from None


def variant_list(text: str) -> list[str]:
    """'gpu-naive,gpu-tiled' as registry names, each once in the order given; an empty list, or unknown names, are
    a usage error (the latter listing the known ones)."""
    names = list(dict.fromkeys(v.strip() for v in text.split(",") if v.strip()))
    if not names:
        raise UsageError("no variants given (an empty list is not 'all': leave the option out for the default)")
    unknown = [v for v in names if v not in VARIANTS]
    if unknown:
        raise UsageError(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(VARIANTS)}")
    return names


def check_outputs(*paths: tuple[str, str | None, tuple[str, ...]]) -> list[Path | None]:
    """Check every (option, path, suffixes) before any work and hold each file for this run (a second gemmviz
    writing it is refused); refuse an empty name and two options naming the same file.

    Raises UsageError (exit 2) for an empty name, a file named twice or a name of the wrong suffix, OutputError
    (exit 1) naming the user's path for a file that cannot be written."""
    for option, path, _ in paths:
        if path is not None and not path.strip():
            raise UsageError(f"{option}: an empty file name; give the file to write")
    given = [(option, Path(path)) for option, path, _ in paths if path]
    seen: dict[Path, str] = {}
    for option, named in given:
        key = Path(os.path.realpath(named))  # never raises, not even for a loop of links
        if key in seen:
            raise UsageError(f"{seen[key]} and {option} name the same file {named}")
        seen[key] = option
    try:
        checked = [check_target(path, suffixes) if path else None for _, path, suffixes in paths]
    except WrongSuffix as exc:  # the name typed is wrong: usage, exit 2, as export's and animate's own check say
        raise UsageError(str(exc)) from None
    for target in checked:
        if target is not None:
            hold(target)
    return checked


class Output:
    """One output a command rewrites as it goes (after every job). When a write fails (a full disk, the folder
    removed), the previous file is left as it was, stderr says so once, and the writes go on to a fallback file
    in a new temporary folder, named on stderr; if that fails too, the results stay in memory and are
    printed. `failed` says whether the file asked for missed any write (the command then exits 1)."""

    def __init__(self, what: str, path: Path | None, write: Callable[[Path], None], stream: TextIO | None = None):
        self.what, self.asked, self.path = what, path, path
        self._write = write  # writes the current state to the path it is given
        self.stream = stream or sys.stderr
        self.failed = False  # a write to the file asked for failed
        self.lost = False  # the fallback failed too: only stdout has the results

    def save(self) -> None:
        if self.path is None or self.asked is None or self.lost:  # the path is None exactly when none was asked
            return
        try:
            self._write(self.path)
            return
        except (OSError, ValueError) as exc:  # ValueError: what was to be written was refused (never half a file)
            reason = str(exc)
        if not self.failed:
            self.failed = True
            try:
                self.path = Path(tempfile.mkdtemp(prefix="gemmviz-")) / self.asked.name
                self._write(self.path)
                print(
                    printable(
                        f"gemmviz: warning: {reason}; {self.asked} keeps what it held before; the {self.what} "
                        f"goes to {self.path} instead"
                    ),
                    file=self.stream,
                )
                return
            except (OSError, ValueError) as exc:
                reason = f"{reason}, and the fallback failed: {exc}"
        self.lost = True
        print(
            printable(f"gemmviz: warning: {reason}; the {self.what} is not saved (the results are printed below)"),
            file=self.stream,
        )

    def report(self) -> str | None:
        """The closing line on stderr for this output, or None when none was asked for."""
        if self.asked is None:
            return None
        if self.lost:
            return f"{self.what} NOT written: {self.asked} could not be written (see above)"
        if self.failed:
            return f"{self.what} written to {self.path} (fallback: {self.asked} could not be written)"
        return f"{self.what} written to {self.path}"


def fmt(value: float | None, spec: str, empty: str = "—") -> str:
    return empty if value is None else format(value, spec)


def results_table(results: list) -> str:
    """The plain-text table `gemmviz bench` prints: one row per result, why it is not ok in the last column."""
    from gemmviz.core.numbers import percent, rate
    from gemmviz.core.session.results import results_rows

    header = [
        "variant",
        "params",
        "size",
        "median ms",
        "GFLOP/s",
        "noise",
        "×CPU",
        "×naive",
        "% cuBLAS",
        "rel.err",
        "status",
    ]
    rows = []
    table_rows = results_rows(results)
    for r, row in zip(results, table_rows):
        rows.append(
            [
                r.variant,
                row["params"] or "-",
                r.problem.label,
                fmt(r.median_ms, ".4g"),
                rate(r.gflops),
                percent(r.noise),
                fmt(row["speedup_vs_cpu"], ",.1f"),
                fmt(row["speedup_vs_naive"], ".2f"),
                fmt(row["pct_of_cublas"], ".1f"),
                fmt(r.rel_error, ".1e"),
                r.status if r.valid else f"{r.status.upper()}: {r.error}",
            ]
        )
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    widths[-1] = len(header[-1])  # the reason column runs on; padding it would only add trailing spaces
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(header, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip() for row in rows]
    from gemmviz.core.numbers import error_map_text

    lines += cublas_note(results, table_rows)
    for r in results:  # where C was wrong, for each result that failed verification
        if r.error_map:
            lines += ["", f"{r.series} {r.problem.label}: {error_map_text(r.error_map)}"]
    return "\n".join(lines)


def cublas_note(results: list, rows: list[dict]) -> list[str]:
    """Under a table with a % cuBLAS figure: which cuBLAS it is of (or that the results do not record it)."""
    from gemmviz.core.messages import render
    from gemmviz.core.session import provenance

    if not any(row["pct_of_cublas"] is not None for row in rows):
        return []
    versions = sorted({r.cublas_version or "" for r in results if r.variant.startswith("cublas") and r.valid})
    said = [render(provenance.of_cublas(v or None), "en") for v in versions]
    return ["", "% cuBLAS: " + "; ".join(said)]


def not_ok_summary(results: Iterable, total: int, limit: int = 8) -> str:
    """'2 of 6 jobs did not run and verify: gpu-naive (block 16) 8³ unavailable, …' for the exit-1 line."""
    bad = [r for r in results if not r.valid]
    named = [f"{r.series} {r.problem.label} {r.status}" for r in bad[:limit]]
    more = f", and {len(bad) - limit} more" if len(bad) > limit else ""
    return f"{len(bad)} of {total} jobs did not run and verify: {', '.join(named)}{more}"


class Progress:
    """A tqdm bar on stderr for the engine's on_progress(done, total, label) callback.

    Quiet when the stream is not a terminal (no carriage returns in a pipe or a log file)."""

    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None):
        self.stream = stream or sys.stderr
        # tqdm's disable=None means "disable unless the stream is a terminal"
        self.disable = None if enabled is None else not enabled
        self.bar: Any = None  # a tqdm bar once the first progress comes (tqdm is imported then)

    def __call__(self, done: int, total: int, label: str) -> None:
        from tqdm import tqdm

        if self.bar is None:
            self.bar = tqdm(
                total=total,
                file=self.stream,
                disable=self.disable,
                unit="job",
                leave=True,
                bar_format="{l_bar}{bar:30}| {n}/{total} [{elapsed}<{remaining}]{postfix}",
            )
        self.bar.set_postfix_str(label[:40], refresh=False)
        self.bar.update(done - self.bar.n)
        if done >= total:
            self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
