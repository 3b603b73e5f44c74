"""The GEMM problem C[M,N] = A[M,K] @ B[K,N], FP32, row-major, and its validation."""

from __future__ import annotations

import re
from dataclasses import dataclass

FLOAT32_BYTES = 4
FLOAT64_BYTES = 8
# The seeds' kernels index with 32-bit ints (row * K + k), so no matrix may have 2**31 elements or more.
MAX_INT32_ELEMENTS = 2**31 - 1
MAX_DIM = 2**24  # the largest M, N or K a size may name (session files hold the same limit)


class ProblemError(ValueError):
    """A size or combination the user asked for that cannot be run; the message says why."""


@dataclass(frozen=True, order=True)
class Problem:
    m: int
    n: int
    k: int

    def __post_init__(self) -> None:
        for name, value in (("M", self.m), ("N", self.n), ("K", self.k)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ProblemError(f"{name} must be a whole number, got {value!r}")
            if value <= 0:
                raise ProblemError(f"{name} must be at least 1, got {value}")

    @property
    def flops(self) -> int:
        """Floating-point operations: one multiply and one add per (i, j, k)."""
        return 2 * self.m * self.n * self.k

    @property
    def label(self) -> str:
        if self.m == self.n == self.k:
            return f"{self.m}³"
        return f"{self.m}×{self.n}×{self.k}"

    @property
    def key(self) -> str:
        return f"{self.m}x{self.n}x{self.k}"

    @property
    def matrix_bytes(self) -> int:
        """A, B and C in FP32: what the GPU must hold."""
        return FLOAT32_BYTES * (self.m * self.k + self.k * self.n + self.m * self.n)

    @property
    def host_bytes(self) -> int:
        """Host memory for one verified run: A, B, C (FP32), the downloaded C, and the float64
        reference with float64 copies of A and B."""
        m, n, k = self.m, self.n, self.k
        return FLOAT32_BYTES * (m * k + k * n + 2 * m * n) + FLOAT64_BYTES * (m * k + k * n + m * n)

    @property
    def max_matrix_elements(self) -> int:
        return max(self.m * self.k, self.k * self.n, self.m * self.n)


def _parse_dim(text: str, name: str) -> int:
    text = text.strip()
    if not re.fullmatch(r"[+-]?[0-9]+", text):  # ASCII digits: \d (and int()) take '١٠٢٤' too
        raise ProblemError(f"{name} must be a whole number, got {text!r}")
    if len(text.lstrip("+-")) > 9 or int(text) > MAX_DIM:
        raise ProblemError(f"{name} {text} is too large: at most {MAX_DIM:,} (memory is checked before any run)")
    return int(text)


def problem_of(m: str, n: str, k: str) -> Problem:
    """A problem from three typed fields, each refused by its own name (M must be a whole number, got '0x10')."""
    return Problem(*(_parse_dim(str(text), name) for text, name in zip((m, n, k), "MNK", strict=True)))


def parse_problem(text: str) -> Problem:
    """Parse '1024' (square) or '2048x4096x3072' (M x N x K; 'x', 'X', '×' or '*' separate)."""
    parts = re.split(r"[xX×*]", str(text).strip())
    if len(parts) == 1:
        size = _parse_dim(parts[0], "size")
        return Problem(size, size, size)
    if len(parts) != 3:
        raise ProblemError(f"size must be N or MxNxK, got {text!r}")
    m, n, k = (_parse_dim(p, name) for p, name in zip(parts, "MNK"))
    return Problem(m, n, k)


def host_available_bytes() -> int | None:
    """Memory the OS can give a new allocation without swapping (psutil), or None where that is unknown."""
    try:
        import psutil
    except ImportError:
        return None
    try:
        return int(psutil.virtual_memory().available)
    except OSError:
        return None


def _gib(n: int) -> str:
    return f"{n / 2**30:.2f} GiB"


def check_host_memory(problem: Problem, available: int | None = None) -> None:
    available = host_available_bytes() if available is None else available
    if available is not None and problem.host_bytes > available:
        raise ProblemError(
            f"{problem.label} needs {_gib(problem.host_bytes)} of host memory "
            f"(A, B, C and a float64 reference), but only {_gib(available)} is available"
        )


def check_gpu_memory(problem: Problem, free_bytes: int, extra_bytes: int = 0) -> None:
    need = problem.matrix_bytes + extra_bytes
    if need > free_bytes:
        raise ProblemError(
            f"{problem.label} needs {_gib(need)} of GPU memory (A, B, C in FP32), "
            f"but only {_gib(free_bytes)} is free on the GPU"
        )
