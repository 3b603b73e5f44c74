"""Nsight Compute from gemmviz: find ncu, build its command line, run it and read its counters,
and instrument a kernel's source for the block trace (kernels/trace.cuh). No Qt, no PyCUDA.

Counters come from replayed launches under ncu; the event-timed figures of a result never do.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from gemmviz.core.hardware.counters import METRIC_NAMES, NcuCsvError, parse_ncu_csv

NCU_MISSING = "Nsight Compute (ncu) not found: install the CUDA toolkit or put ncu on PATH"
NCU_NO_PERMISSION = (
    "GPU performance counters are not permitted for this user (ERR_NVGPUCTRPERM): run as root/administrator, "
    "or let every user profile by loading the NVIDIA driver with NVreg_RestrictProfilingToAdminUsers=0 "
    "(see https://developer.nvidia.com/ERR_NVGPUCTRPERM)"
)


class ProfileError(RuntimeError):
    """Profiling failed; str() is one line that says why and what to do. `missing_metric`: the metric ncu said
    it does not know on this GPU, if that was why."""

    def __init__(self, message: str, missing_metric: str | None = None):
        super().__init__(message)
        self.missing_metric = missing_metric


def missing_metric(output: str) -> str | None:
    """The metric ncu's output says it does not know on this GPU, or None."""
    found = re.search(r"Failed to find metric[s]?\s*:?\s*(\S+)", output)
    return found.group(1).strip(",.") if found else None


def droppable_gap_metric(name: str | None, metrics: Sequence[str]) -> str | None:
    """`name` (a metric ncu did not know on this GPU) where it is a gap metric among `metrics`: the profile and
    the exercise check drop it and run ncu again, the other counters still counting; None otherwise."""
    from gemmviz.core.hardware.gap import GAP_METRICS

    return name if name in GAP_METRICS and name in metrics else None


def find_cuda_tool(name: str) -> Path | None:
    """A CUDA toolkit program (ncu, nvcc, nvdisasm, compute-sanitizer) on PATH, else in $CUDA_HOME/bin, else in
    /usr/local/cuda/bin."""
    found = shutil.which(name)
    if found:
        return Path(found)
    candidates = [Path(os.environ["CUDA_HOME"]) / "bin"] if os.environ.get("CUDA_HOME") else []
    candidates.append(Path("/usr/local/cuda/bin"))
    for folder in candidates:
        exe = folder / name
        if exe.is_file() and os.access(exe, os.X_OK):
            return exe
    return None


def find_ncu() -> Path | None:
    return find_cuda_tool("ncu")


def profile_command(
    argv: Sequence[str],
    kernel_regex: str,
    metrics: Sequence[str] = METRIC_NAMES,
    launch_count: int = 1,
    launch_skip: int = 0,
    ncu: str | Path = "ncu",
    log_file: str | Path | None = None,
    cache_control: str = "none",
) -> list[str]:
    """The ncu command line that profiles `launch_count` launches of kernels matching `kernel_regex`.

    --clock-control none: ncu would otherwise lock the GPU to its base clock while profiling; gemmviz
    leaves the card's clocks alone, so durations are at the clocks the timed runs saw.
    --cache-control none (warm timing) or all (flush caches before each replay, for the cold-L2 option): the
    caches as the timed samples saw them, so ncu's gpu__time_duration is comparable with the median.
    """
    if cache_control not in ("none", "all"):
        raise ValueError("cache_control must be 'none' or 'all'")
    if launch_count < 1 or launch_skip < 0:
        raise ValueError("launch_count must be >= 1 and launch_skip >= 0")
    cmd = [
        str(ncu),
        "--csv",
        "--page",
        "raw",
        "--print-units",
        "base",
        "--clock-control",
        "none",
        "--cache-control",
        cache_control,
        "--target-processes",
        "all",
        "--metrics",
        ",".join(metrics),
        "--kernel-name",
        f"regex:{kernel_regex}",
        "--launch-skip",
        str(launch_skip),
        "--launch-count",
        str(launch_count),
    ]
    if log_file is not None:
        cmd += ["--log-file", str(log_file)]
    return [*cmd, *argv]


def explain_failure(returncode: int, output: str) -> str:
    """One line that says why an ncu run gave no counters."""
    if "ERR_NVGPUCTRPERM" in output:
        return NCU_NO_PERMISSION
    missing = missing_metric(output)
    if missing:
        return f"ncu does not know the metric {missing} on this GPU (check `ncu --query-metrics`)"
    if "No kernels were profiled" in output:
        return "no kernel matched: ncu profiled nothing (check the kernel-name regex and the launch count)"
    errors = [line.removeprefix("==ERROR==").strip() for line in output.splitlines() if line.startswith("==ERROR==")]
    if errors:
        return f"ncu failed: {errors[0]}"
    return f"ncu exited with status {returncode} and printed no counters"


def run_profile(
    argv: Sequence[str],
    kernel_regex: str,
    metrics: Sequence[str] = METRIC_NAMES,
    launch_count: int = 1,
    launch_skip: int = 0,
    timeout_s: float = 600,
    cache_control: str = "none",
) -> list[dict]:
    """Run `argv` under ncu and return parse_ncu_csv's rows, one per profiled launch.

    Raises ProfileError with a one-line reason: ncu missing, counters not permitted, an unknown metric,
    no kernel matched, or a time-out.
    """
    ncu = find_ncu()
    if ncu is None:
        raise ProfileError(NCU_MISSING)
    with tempfile.TemporaryDirectory(prefix="gemmviz-ncu-") as tmp:
        log = Path(tmp) / "ncu.csv"
        cmd = profile_command(
            argv, kernel_regex, metrics, launch_count, launch_skip, ncu=ncu, log_file=log, cache_control=cache_control
        )
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise ProfileError(f"ncu did not finish within {timeout_s:.0f} s") from None
        report = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    output = "\n".join([report, proc.stdout or "", proc.stderr or ""])
    if "ERR_NVGPUCTRPERM" in output or "==ERROR==" in output or proc.returncode != 0:
        raise ProfileError(explain_failure(proc.returncode, output), missing_metric(output))
    try:
        rows = parse_ncu_csv(report or proc.stdout, tuple(dict.fromkeys([*METRIC_NAMES, *metrics])))
    except NcuCsvError as exc:
        raise ProfileError(explain_failure(proc.returncode, output) if "No kernels" in output else str(exc)) from None
    if not rows:
        raise ProfileError(explain_failure(proc.returncode, output + "\nNo kernels were profiled"))
    return rows


# ------------------------------------------------------------------------------------ block-trace builds


def _skip_comment(src: str, i: int) -> int:
    if src.startswith("//", i):
        j = src.find("\n", i)
        return len(src) if j < 0 else j
    if src.startswith("/*", i):
        j = src.find("*/", i + 2)
        return len(src) if j < 0 else j + 2
    return i


def _kernel_signature_end(src: str, kernel_name: str) -> int:
    """Index just after `kernel_name(` of the __global__ declaration: the qualifiers between `__global__` and
    the name may include `extern "C"`, `void`, `__launch_bounds__(...)`, `__cluster_dims__(...)`, preprocessor
    lines and newlines, so the name's declaration is the first `NAME(` whose statement (the text since the
    last `;`, `}` or `{` outside comments) holds `__global__` and `void`."""
    for m in re.finditer(r"\b" + re.escape(kernel_name) + r"\s*\(", src):
        head = src[: m.start()]
        lead = re.sub(r"//[^\n]*|/\*.*?\*/", " ", head, flags=re.S)  # a brace in a comment ends nothing
        cut = max(lead.rfind(";"), lead.rfind("}"), lead.rfind("{"))
        statement = lead[cut + 1 :]
        if re.search(r"\b__global__\b", statement) and re.search(r"\bvoid\b", statement):
            return m.end()
    raise ValueError(f"no __global__ void {kernel_name}( in the source")


def _kernel_body(src: str, kernel_name: str) -> tuple[int, int]:
    """(index just after the body's `{`, index of its closing `}`) of __global__ kernel_name."""
    signature_end = _kernel_signature_end(src, kernel_name)
    open_brace = src.find("{", signature_end)
    if open_brace < 0:
        raise ValueError(f"{kernel_name} has no body")
    depth, i = 0, open_brace
    while i < len(src):
        j = _skip_comment(src, i)
        if j != i:
            i = j
            continue
        if src[i] == "{":
            depth += 1
        elif src[i] == "}":
            depth -= 1
            if depth == 0:
                return open_brace + 1, i
        i += 1
    raise ValueError(f"{kernel_name}'s body has unbalanced braces")


def instrument_source(source: str, kernel_name: str, trace_header: str | None = None) -> str:
    """The kernel's source with the block trace on: trace.cuh inlined, GEMMVIZ_TRACE defined, and
    GEMMVIZ_TRACE_BEGIN / GEMMVIZ_TRACE_END as the first and last statements of kernel_name's body.

    A kernel whose body already names its own stamps (a `GEMMVIZ_..._TRACE_` macro, e.g. the Hopper kernel,
    whose producer warpgroup exits early so that its END stamp must follow the consumers' stores instead) is
    left as it is: only GEMMVIZ_TRACE and the header are added. Any other kernel with a `return` in its
    body is refused: the END stamp (after a barrier) must be reached by every thread. The header is inlined
    rather than #included so no include path is needed at compile time.
    """
    if trace_header is None:
        from gemmviz.core.paths import kernel_source

        trace_header = kernel_source("trace.cuh")
    body_start, body_end = _kernel_body(source, kernel_name)
    body = source[body_start:body_end]
    prefix = [
        "#define GEMMVIZ_TRACE\n",
        trace_header.replace("#pragma once", ""),  # inlined into the main file, where it means nothing
        "\n#line 1\n",
    ]
    if re.search(r"\bGEMMVIZ_\w*TRACE_(BEGIN|END)\b", body):
        return "".join([*prefix, source])
    if re.search(r"\breturn\b", body):
        raise ValueError(f"{kernel_name} returns early: the block trace needs every thread to reach its end")
    return "".join(
        [
            *prefix,
            source[:body_start],
            "\n    GEMMVIZ_TRACE_BEGIN\n",
            body,
            "    GEMMVIZ_TRACE_END\n",
            source[body_end:],
        ]
    )
