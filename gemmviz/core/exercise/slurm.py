"""The Slurm job array that grades a class: `gemmviz exercise grade DIR --exercise NAME
--csv FILE --slurm-script N` prints it, with the real paths of this machine, so the recipe has one source (the
docs show its output, tests/test_slurm.py submits it to a real single-node cluster).

Task I of N runs `gemmviz exercise grade DIR --shard I/N` into its own CSV, FILE's stem + "-I.csv"; a task
submitted again (`sbatch --array=I`) resumes from that CSV. `bash SCRIPT join` then writes FILE: the header
once and every task's rows. Pure text: nothing here runs a process."""

from __future__ import annotations

import importlib.util
import re
import shlex
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from gemmviz.core.text import printable

MAX_TASKS = 1000
# what an #SBATCH line carries as it is: Slurm splits those lines on blanks and reads % as a pattern
_SBATCH_SAFE = re.compile(r"[\w./+,:=@-]+")


@dataclass(frozen=True)
class SlurmJob:
    """What the script grades and how; paths absolute (the tasks run in the submitting folder, maybe elsewhere)."""

    python: str  # the interpreter that runs gemmviz (sys.executable of the command that wrote the script)
    folder: Path  # the hand-ins
    exercise: str  # a shipped exercise's name, or an exercise .toml's absolute path
    csv: Path  # the joined CSV; task I writes task_csv(csv, I)
    tasks: int
    jobs: int = 1  # checks at a time in a task (its --cpus-per-task)
    options: tuple[str, ...] = ()  # the other grade options, as given (--seed 1, --no-time, --lang zh)
    pythonpath: str = ""  # where gemmviz is imported from, when that is not the interpreter's site-packages
    command: str = ""  # the command that wrote it, said in its header


def task_csv(csv: Path, task: int | str) -> Path:
    return csv.with_name(f"{csv.stem}-{task}{csv.suffix}")


def import_root() -> str:
    """The folder gemmviz is imported from, unless that is the interpreter's site-packages (a wheel install): the
    tasks then import this copy of gemmviz, even where it is a checkout used through PYTHONPATH."""
    spec = importlib.util.find_spec("gemmviz")
    if spec is None or not spec.submodule_search_locations:
        return ""
    root = Path(next(iter(spec.submodule_search_locations))).resolve().parent
    installed = {Path(sysconfig.get_path(k)).resolve() for k in ("purelib", "platlib")}
    return "" if root in installed else str(root)  # an editable install's checkout too: the same copy either way


def sbatch_safe(path: Path) -> bool:
    """Whether an #SBATCH line can name this path as it is (no blank, quote or %)."""
    return _SBATCH_SAFE.fullmatch(str(path)) is not None


def script(job: SlurmJob) -> str:
    """The whole job script (bash), submitted with `sbatch SCRIPT`; `bash SCRIPT join` joins the task CSVs."""
    if not 1 <= job.tasks <= MAX_TASKS:
        raise ValueError(f"tasks must be from 1 to {MAX_TASKS}")
    q = shlex.quote

    def said(text: object) -> str:  # a comment's text: one line whatever a name holds (a newline ends a comment)
        return printable(q(str(text)))

    part = f'{q(str(job.csv.parent))}/{q(job.csv.stem + "-")}"$i"{q(job.csv.suffix)}'  # task $i's CSV, in bash
    name = re.sub(r"[^\w.-]", "_", Path(job.exercise).stem)
    lines = [
        "#!/bin/bash",
        f"# Grades every .cu under {said(job.folder)} as the exercise {said(job.exercise)}, in {job.tasks} Slurm",
        f"# array tasks, one CSV each ({said(task_csv(job.csv, 'I'))}). Written by",
        f"#   {printable(job.command or 'gemmviz exercise grade ... --slurm-script N')}",
        "#",
        "#   sbatch THIS_FILE              submits the tasks (each grades its shard: --shard I/N)",
        "#   sbatch --array=I THIS_FILE    submits task I again, after a time limit, scancel or a lost node: it",
        "#                                 resumes from its CSV, grading only what that CSV does not hold yet",
        "#   bash THIS_FILE join           once every task has COMPLETED (exit status 0: sacct -j JOB, or the last",
        f"#                                 line of its log): one CSV for the class, {said(job.csv)}",
        "#",
        "# The tasks see the submitting shell's environment (sbatch's default --export=ALL): PATH must find nvcc.",
        f"#SBATCH --job-name=grade-{name}",
        f"#SBATCH --array=0-{job.tasks - 1}",
        f"#SBATCH --cpus-per-task={job.jobs}",
    ]
    if sbatch_safe(job.csv):
        lines += [f"#SBATCH --output={task_csv(job.csv, '%a').with_suffix('.log')}", "#SBATCH --open-mode=append"]
    else:
        lines.append("# (the CSV's folder has a blank, quote or % in its name, so the logs go to slurm-%A_%a.out here)")
    lines += [
        "##SBATCH --gres=gpu:1         # to grade on a GPU, delete one # (the checks then run one at a time)",
        "##SBATCH --time=02:00:00      # a task stopped by its time limit resumes when submitted again",
        "set -euo pipefail",
    ]
    if job.pythonpath:
        lines.append(f'export PYTHONPATH={q(job.pythonpath)}"${{PYTHONPATH:+:$PYTHONPATH}}"')
    lines += [
        'if [ "${1-}" = join ]; then',
        "  parts=()",
        f"  for ((i = 0; i < {job.tasks}; i++)); do parts+=({part}); done",
        '  for part in "${parts[@]}"; do',
        '    [ -f "$part" ] || { echo "$part: missing (was its task run?)" >&2; exit 1; }',
        "  done",
        f"  joined={q(str(job.csv))}",
        '  { head -n 1 "${parts[0]}"; tail -q -n +2 "${parts[@]}"; } > "$joined.joining"',
        '  mv -f "$joined.joining" "$joined"',
        '  echo "joined ${#parts[@]} CSVs into $joined"',
        "  exit 0",
        "fi",
        'i="${SLURM_ARRAY_TASK_ID:?submit this with sbatch (or: bash THIS_FILE join)}"',
        f"exec {q(job.python)} -m gemmviz exercise grade {q(str(job.folder))} --exercise {q(job.exercise)} \\",
        f'    --csv {part} --shard "$i/{job.tasks}" --jobs {job.jobs}' + "".join(f" {q(o)}" for o in job.options),
    ]
    return "\n".join(lines) + "\n"
