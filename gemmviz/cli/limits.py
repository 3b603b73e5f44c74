"""The limits the commands' numbers share, checked before any work: what gemmviz writes it can read back
(a session holds at most MAX_ITEMS samples per result, so --repeats stops there), and a number that cannot
mean anything (a seed of -1, a time limit of inf) is a one-line usage error naming the option.

Also the --tile / --block grid: each chosen variant runs the values it supports; the others are named as
skipped, and only a value no chosen variant supports is refused."""

from __future__ import annotations

import argparse
import math

from gemmviz.cli.common import UsageError
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.parsing import int_list

MAX_SEED = 2**32 - 1  # what every numpy generator accepts
MAX_JOB_LIMIT_S = 86_400.0  # one day
GRID_OPTIONS = ("tile", "block")  # they set the variant parameter of the same name


def _whole(args: argparse.Namespace, name: str, lo: int, hi: int, why: str = "", upper_only: bool = False) -> None:
    """Refuse a value outside lo..hi (`upper_only`: above hi only, core's BenchSettings words the lower bound)."""
    value = getattr(args, name, None)
    if value is None or (lo <= value or upper_only) and value <= hi:
        return
    shown = str(value) if len(str(value)) <= 24 else f"{str(value)[:20]}…"
    raise UsageError(f"--{name.replace('_', '-')} must be a whole number {lo}..{hi:,}{why}, got {shown}")


def check_run_limits(args: argparse.Namespace) -> None:
    """--repeats, --warmup, --seed and --job-limit of bench and profile (those the command has)."""
    from gemmviz.core.session.bounds import MAX_REPEATS, MAX_WARMUP  # (numpy: not for building the parser)

    _whole(
        args,
        "repeats",
        1,
        MAX_REPEATS,
        f" (a session holds at most {MAX_REPEATS:,} samples per result)",
        upper_only=True,
    )
    _whole(args, "warmup", 0, MAX_WARMUP, upper_only=True)
    _whole(args, "seed", 0, MAX_SEED)
    limit = getattr(args, "job_limit", None)
    if limit is not None and not (math.isfinite(limit) and 0 < limit <= MAX_JOB_LIMIT_S):
        raise UsageError(
            f"--job-limit must be a number of seconds above 0 and at most {MAX_JOB_LIMIT_S:,.0f} (a day), got {limit}"
        )


def param_grid(args: argparse.Namespace, variants: list[str]) -> dict[str, list[int]]:
    """--tile / --block as a grid, refused up front (whatever the machine) when no chosen variant has the
    parameter, or a value is one that no chosen variant with the parameter supports."""
    grid = {}
    for key in GRID_OPTIONS:
        text = getattr(args, key, "")
        if not text:
            continue
        values = int_list(text, f"--{key}")
        having = [VARIANTS[v] for v in variants if key in VARIANTS[v].param_choices]
        if not having:
            owners = [v.name for v in VARIANTS.values() if key in v.param_choices]
            raise UsageError(
                f"--{key}: none of {', '.join(variants)} has a {key}; variants with one: {', '.join(owners)}"
            )
        nowhere = [x for x in values if not any(x in v.param_choices[key] for v in having)]
        if nowhere and len(having) == 1:
            allowed = ", ".join(map(str, having[0].param_choices[key]))
            raise UsageError(
                f"{having[0].name}: {key} {', '.join(map(str, nowhere))} is not supported (choose {allowed})"
            )
        if nowhere:
            allowed = "; ".join(f"{v.name}: {', '.join(map(str, v.param_choices[key]))}" for v in having)
            raise UsageError(f"--{key} {', '.join(map(str, nowhere))}: no chosen variant supports it ({allowed})")
        grid[key] = values
    return grid


def supported_jobs(jobs: list, grid: dict[str, list[int]]) -> tuple[list, list[str]]:
    """The jobs whose grid values their variant supports, in order, and one note per variant and value
    left out ('gpu-uncoalesced has no block 8 (its choices: 16, 32)'); more jobs than a session holds are refused."""
    from gemmviz.core.session.bounds import MAX_RESULTS

    kept, skipped = [], {}
    for job in jobs:
        choices = VARIANTS[job.variant].param_choices
        bad = [(k, v) for k, v in job.params if k in grid and v not in choices.get(k, (v,))]
        if bad:
            for k, v in bad:
                skipped[(job.variant, k, v)] = (
                    f"{job.variant} has no {k} {v} (its choices: {', '.join(map(str, choices[k]))})"
                )
        else:
            kept.append(job)
    if len(kept) > MAX_RESULTS:
        raise UsageError(
            f"{len(kept):,} jobs: a session holds at most {MAX_RESULTS:,} results; choose fewer sizes, "
            f"variants or --tile/--block values"
        )
    return kept, list(skipped.values())
