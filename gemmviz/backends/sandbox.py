"""The limits a hand-in's work runs under: the compiler (nvcc, NVRTC), the emulator and its printf
run in child processes with an address-space limit (RLIMIT_AS) and a wall-time limit, each in a process group
of its own that is sent SIGTERM and then SIGKILL when a limit is passed or the check is cancelled. The check's
verdict names the limit that stopped it (`stopped_text`).

The memory limit is set by a few lines of Python that exec the real command (`limited_argv`), not by a
preexec_fn, which is not safe in a process with threads (the app's worker, a grade worker). Children that open
a GPU get no address-space limit: the CUDA driver reserves far more address space than it uses."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass

MEMORY_LIMIT_BYTES = 1 << 30  # what one check's work may use: its arrays, the compiler's
# the interpreter with numpy and the emulator's modules (150 MB of address space measured, one BLAS thread), or
# nvcc's own before it reads the file (200 MB measured): added to the work's limit, not counted in it
BASE_BYTES = 320 << 20
GRACE_S = 2.0  # after SIGTERM, before SIGKILL
EXIT_MEMORY = 86  # a Python child that ran out of memory (MemoryError) ends with this status

# one thread for the libraries a child loads (each BLAS thread reserves address space of its own)
QUIET_THREADS = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
    "MALLOC_ARENA_MAX": "2",
}

# what a compiler or a Python child says when its memory ran out
_OUT_OF_MEMORY = re.compile(
    r"out of memory|bad_alloc|MemoryError|Cannot allocate memory|memory exhausted|std::length_error", re.I
)

_EXEC = (
    "import os,resource,sys\n"
    "n=int(sys.argv[1])\n"
    "for r in (resource.RLIMIT_AS,resource.RLIMIT_CORE):\n"
    " soft,hard=resource.getrlimit(r)\n"
    " v=0 if r==resource.RLIMIT_CORE else n\n"
    " v=v if hard==resource.RLIM_INFINITY else min(v,hard)\n"
    " resource.setrlimit(r,(v,hard))\n"
    "os.execvp(sys.argv[2],sys.argv[2:])\n"
)


@dataclass(frozen=True)
class Limits:
    """A child's limits: address space for its work (None: none, as for a GPU child) and wall time."""

    wall_s: float
    memory_bytes: int | None = None

    @property
    def address_space(self) -> int | None:
        return None if self.memory_bytes is None else self.memory_bytes + BASE_BYTES


def can_limit_memory() -> bool:
    try:
        import resource  # noqa: F401  (POSIX only)
    except ImportError:
        return False
    return True


def limited_argv(argv: list[str], limits: Limits) -> list[str]:
    """argv, run under the limits' address space where the OS has one (POSIX); as it is otherwise."""
    space = limits.address_space
    if space is None or not can_limit_memory():
        return list(argv)
    return [sys.executable, "-I", "-S", "-c", _EXEC, str(space), *argv]


def limited_env(env: dict | None) -> dict:
    return {**(env if env is not None else os.environ), **QUIET_THREADS}


def ran_out_of_memory(returncode: int | None, output: str) -> bool:
    """Whether a child under a memory limit ended because that limit was reached."""
    if returncode == EXIT_MEMORY:
        return True
    return bool(returncode) and bool(_OUT_OF_MEMORY.search(output[-20000:]))


def size_text(nbytes: int) -> str:
    if nbytes % (1 << 30) == 0:
        return f"{nbytes >> 30} GiB"
    return f"{nbytes / (1 << 20):.0f} MiB"


def stopped_text(why: str, limits: Limits) -> str:
    """The verdict's words for a child a limit stopped: 'memory' or 'time'."""
    if why == "memory" and limits.memory_bytes is not None:
        return f"stopped: more than {size_text(limits.memory_bytes)} of memory"
    return f"stopped after {limits.wall_s:g} s"
