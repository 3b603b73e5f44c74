"""`gemmviz profile --accesses`: after the timings and counters, each kernel job runs once more in a
child `python -m gemmviz bench` under the access tracer (backends/accesses.py), and once under Nsight Compute
for the access counters of the same launch; what it touched goes to NAME.accesses.json.gz beside the session.

A job the tracer cannot follow (a library kernel, a crashed child, a tracer that did not attach) gets a note and
the command exits 1; the timings and counters already in the session are kept either way.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from gemmviz.core.kernels.variants import VARIANTS

if TYPE_CHECKING:  # the tracer's backend is imported when a trace runs
    from gemmviz.backends.accesses import TracerBuild

TRACED_RUNNERS = ("kernel", "wgmma-tma")  # a .cu kernel gemmviz launches; cuBLAS's kernels are not followed


@dataclass
class AccessOutcome:
    traces: list = field(default_factory=list)  # core.hardware.accesses.AccessTrace
    failures: list[str] = field(default_factory=list)


def traced_argv(argv: Sequence[str]) -> list[str]:
    """The ncu child's argv with no warm-ups: the traced launch is the first, the checked one."""
    out = list(argv)
    if "--warmup" in out:
        out[out.index("--warmup") + 1] = "0"
    return out


def _arch(session) -> str:
    cc = (((session.environment or {}).get("backends") or {}).get("cuda") or {}).get("compute_capability") or "9.0"
    major, _, minor = str(cc).partition(".")
    return f"sm_{major}{minor or '0'}"


@dataclass(frozen=True)
class _TraceRun:
    """What every job's traced run shares: the built tracer, the blocks to follow and the cap on stored requests
    (--access-blocks, --access-cap), the GPU's target, and Nsight Compute's runner (None: no access counters)."""

    build: TracerBuild
    blocks: str  # "auto" or "x,y[,z];..."
    cap: int
    arch: str
    ncu: Callable | None


def _job_trace(job, result, argv: Sequence[str], run: _TraceRun):
    from gemmviz.backends import accesses as backend
    from gemmviz.core.hardware.accesses import AccessError, from_raw

    variant = VARIANTS[job.variant]
    kernel = variant.kernel_name
    if kernel is None:  # the traced runners' variants all name their kernel
        raise AccessError(f"{job.variant} names no kernel to trace")
    config = dict(getattr(result, "config", None) or {}) or None
    options = ["-O3", *variant.macro_options(job.params_dict, config)]
    # the Hopper kernel has its own target (backends/cuda)
    line_arch = "sm_90a" if variant.runner == "wgmma-tma" else run.arch
    raw = backend.run_traced(
        argv, kernel, run.build, run.blocks, run.cap, lines=(variant.source_text(), options, line_arch)
    )
    p = job.problem
    rp = variant.run_problem(p, config)
    trace = from_raw(
        raw.header, raw.records, raw.sass, job.variant, (p.m, p.n, p.k), job.params_dict, (rp.m, rp.n, rp.k)
    )
    if run.ncu is not None:
        _add_ncu_counters(trace, argv, kernel, run.ncu)
    return trace


def _add_ncu_counters(trace, argv: Sequence[str], kernel_name: str, ncu: Callable) -> None:
    """Nsight Compute's access counters of the same launch on the trace, or a note on why there are none."""
    from gemmviz.backends.profile import ProfileError
    from gemmviz.core.hardware.accesses import NCU_ACCESS_METRICS

    try:
        rows = ncu(argv, f"^{re.escape(kernel_name)}$", list(NCU_ACCESS_METRICS), launch_count=1)
        trace.ncu = {k: v for k, v in rows[0]["counters"].items() if v is not None and k in NCU_ACCESS_METRICS}
    except ProfileError as exc:
        trace.note = "; ".join(filter(None, [trace.note, f"no ncu access counters: {exc}"]))


def record_accesses(
    args, jobs: Sequence, results: Sequence, session, ncu: Callable | None, child_argv: Callable, tracer=None
) -> AccessOutcome:
    """Trace every kernel job that ran (`child_argv(jobs, seed)`: the ncu step's child command); failures are lines
    of the outcome, never exceptions."""
    from gemmviz.backends import accesses as backend
    from gemmviz.core.hardware.accesses import AccessError

    out = AccessOutcome()
    todo = [(j, r) for j, r in zip(jobs, results) if r.status in ("ok", "invalid")]
    for job, _ in todo:
        if VARIANTS[job.variant].runner not in TRACED_RUNNERS:
            out.failures.append(f"{job.label}: a library kernel (cuBLAS): its accesses are not traced")
    todo = [(j, r) for j, r in todo if VARIANTS[j.variant].runner in TRACED_RUNNERS]
    if not todo:
        return out
    arch = _arch(session)
    try:
        build = tracer or backend.build_tracer(arch)
    except AccessError as exc:
        out.failures.append(f"no access records: {exc}")
        return out
    run = _TraceRun(build, args.access_blocks, args.access_cap, arch, ncu)
    for n, (job, result) in enumerate(todo, 1):
        print(f"accesses {n}/{len(todo)}: {job.label}", file=sys.stderr)
        argv = traced_argv(child_argv([job], args.seed))
        try:
            trace = _job_trace(job, result, argv, run)
        except AccessError as exc:
            out.failures.append(f"{job.label}: {exc}")
            continue
        if trace.truncated:
            out.failures.append(
                f"{job.label}: record cap reached ({trace.stored:,} of {trace.attempted:,} requests "
                f"stored; raise --access-cap)"
            )
        out.traces.append(trace)
    return out


def access_file(traces: list, session, command: str):
    from gemmviz.core.hardware.accesses import AccessFile, fit_file

    gpu = (((session.environment or {}).get("backends") or {}).get("cuda") or {}).get("name") or "unknown GPU"
    date = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return AccessFile(gpu, date, command, fit_file(traces))  # within the loader's limit of requests in detail


def print_summary(traces: Sequence, stream=None) -> None:
    """One block of lines per trace: recorded totals beside ncu's."""
    from gemmviz.core.hardware.accesses import beside_ncu

    stream = stream or sys.stdout
    for t in traces:
        print(
            f"{t.label}: {t.kept:,} requests from blocks {t.blocks} of {t.n_blocks:,}{'; ' + t.sees if t.sees else ''}",
            file=stream,
        )
        if t.wgmma:
            from gemmviz.core.schedule.accesses import hopper_beside_model

            h = hopper_beside_model(t)
            print(
                f"  per block: {h['model_tma_copies']} TMA copies of {h['model_tma_bytes']:,} B (the model's); "
                f"stores to C recorded {h['recorded_stores']:,}, model {h['model_stores']:,}; "
                f"{h['recorded_wgmma_per_block']:,} wgmma issues recorded (per warp)",
                file=stream,
            )
        if any(s != t.summary[0] for s in t.summary):
            print("  (the traced blocks differ at this size: the grid estimate below is rough)", file=stream)
        for row in beside_ncu(t):
            if row.recorded == 0 and not row.ncu:
                continue
            ncu = "—" if row.ncu is None else f"{row.ncu:,.0f}"
            ratio = "" if row.ratio is None else f"  ×{row.ratio:.4f}"
            print(
                f"  {row.key:<22} per block {row.per_block:>12,.1f}  grid est. {row.estimate:>16,.0f}  ncu {ncu:>16}{ratio}",
                file=stream,
            )
