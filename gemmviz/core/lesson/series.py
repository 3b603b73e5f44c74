"""The series a lesson step names ('gpu-tiled[tile=16]'), the fastest result of one at a size, and the hardware
counters a slide may quote by a short name: what the placeholders (core/lesson/placeholders.py, figures.py) and
core/lesson/claims.py (a slide's "because", checked against the recording) both read."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.session.results import Result


@dataclass(frozen=True)
class SeriesRef:
    """One series a step is about: a variant and the params that pick its line (e.g. tile 16)."""

    variant: str
    params: tuple[tuple[str, int], ...] = ()

    def matches(self, r: Result) -> bool:
        return r.variant == self.variant and all(r.params.get(k) == v for k, v in self.params)

    @property
    def text(self) -> str:
        if not self.params:
            return self.variant
        return f"{self.variant}[{','.join(f'{k}={v}' for k, v in self.params)}]"


_SERIES = re.compile(r"^\s*([a-z0-9][a-z0-9-]*)\s*(?:\[([^\]]*)\])?\s*$")


def parse_series(text: str) -> SeriesRef:
    """'gpu-tiled[tile=16]' -> SeriesRef; ProblemError for unknown variants or params."""
    m = _SERIES.match(text) if isinstance(text, str) else None
    if not m:
        raise ProblemError(f"series must look like gpu-tiled[tile=16], got {text!r}")
    name, inner = m.group(1), m.group(2)
    if name not in VARIANTS:
        raise ProblemError(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}")
    variant = VARIANTS[name]
    params: list[tuple[str, int]] = []
    for part in filter(None, (p.strip() for p in (inner or "").split(","))):
        key, _, value = part.partition("=")
        key = key.strip()
        if key not in variant.param_choices:
            have = ", ".join(variant.param_choices) or "none"
            raise ProblemError(f"{name} has no param {key!r} (its params: {have})")
        try:
            number = int(value)
        except ValueError:
            raise ProblemError(f"{name}[{part}]: the value must be a whole number") from None
        if number not in variant.param_choices[key]:
            raise ProblemError(
                f"{name}: {key}={number} is not one of {', '.join(map(str, variant.param_choices[key]))}"
            )
        params.append((key, number))
    return SeriesRef(name, tuple(params))


def best(results: list[Result], ref: SeriesRef, n: int | Problem) -> Result | None:
    """The fastest valid result of `ref` at N³ (or at a Problem of any shape, seed 001's 2048×3072×4096)."""
    problem = n if isinstance(n, Problem) else Problem(n, n, n)
    found = [
        (r.median_ms, i, r)
        for i, r in enumerate(results)
        if ref.matches(r) and r.valid and r.median_ms and r.problem == problem
    ]
    return min(found)[2] if found else None


# the hardware counters a slide quotes ({{NAME series at N}}) or a claim names, by short name: Nsight Compute's
COUNTER_PLACEHOLDERS = {
    "dram": "dram__bytes_read.sum",
    "l2": "lts__t_bytes.sum",
    "l1": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",  # 32-byte sectors global loads asked L1 for
    "requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",  # global load requests (one per warp load)
    "shared_loads": "smsp__inst_executed_op_shared_ld.sum",  # shared-memory load instructions (an LDS.128 is one)
    "store_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",  # extra wavefronts of stores
}
COUNT_PLACEHOLDERS = ("requests", "shared_loads", "store_conflicts")  # counts, not bytes


def counter_value(results: list[Result], ref: SeriesRef, problem: Problem, name: str) -> float | None:
    """The recorded counter `name` (a COUNTER_PLACEHOLDERS key) of `ref` at `problem`; None if not recorded."""
    metric = COUNTER_PLACEHOLDERS[name]
    for r in results:
        value = r.counters.get(metric) if r.counters and ref.matches(r) and r.valid and r.problem == problem else None
        if value is not None:
            return float(value)
    return None
