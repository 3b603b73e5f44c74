"""The one registry of kernel variants. The CLI, the engine, the UI and the animation read it.

Adding a variant is a .cu file under kernels/ plus one entry in VARIANTS.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gemmviz.core.model import Traffic, ceil_div, ideal_traffic, naive_traffic, tiled_traffic
from gemmviz.core.problem import MAX_INT32_ELEMENTS, Problem

KERNEL_DIR = Path(__file__).resolve().parent.parent.parent / "kernels"

Params = Mapping[str, int]


@dataclass(frozen=True)
class Variant:
    name: str
    title: str
    explanation: str
    backend: str  # "cpu" or "cuda"
    precision: str  # "fp32" or "tf32": picks the verification threshold
    traffic: Callable[[Problem, Params], Traffic]
    source: str | None = None  # file under kernels/
    kernel_name: str | None = None
    param_choices: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    param_defaults: Mapping[str, int] = field(default_factory=dict)
    # Which -D macros the compile-time params become (e.g. tile -> TILE).
    macros: Mapping[str, str] = field(default_factory=dict)
    geometry: Callable[[Problem, Params], tuple[tuple[int, int, int], tuple[int, int, int]]] | None = None
    uses_int32_index: bool = False

    def source_path(self) -> Path | None:
        return KERNEL_DIR / self.source if self.source else None

    def source_text(self) -> str:
        path = self.source_path()
        if path is None:
            raise ValueError(f"{self.name} has no kernel source")
        return path.read_text()

    def resolve_params(self, given: Params | None = None) -> dict[str, int]:
        """The variant's params: defaults overridden by `given` (keys it does not have are ignored)."""
        params = dict(self.param_defaults)
        for key, value in (given or {}).items():
            if key in self.param_choices:
                params[key] = value
        return params

    def refusal(self, problem: Problem, params: Params) -> str | None:
        """Why this variant cannot run this problem with these params, or None if it can."""
        for key, choices in self.param_choices.items():
            value = params.get(key)
            if value not in choices:
                allowed = ", ".join(map(str, choices))
                return f"{self.name}: {key} {value} is not supported (choose {allowed})"
        if self.uses_int32_index and problem.max_matrix_elements > MAX_INT32_ELEMENTS:
            return (
                f"{self.name}: {problem.label} has a matrix of more than 2^31 elements, "
                "beyond the kernel's 32-bit indexing"
            )
        return None

    def macro_options(self, params: Params) -> list[str]:
        return [f"-D{macro}={params[key]}" for key, macro in self.macros.items()]

    def describe_params(self, params: Params) -> str:
        return ", ".join(f"{k}={v}" for k, v in params.items())


def _naive_geometry(p: Problem, params: Params):
    b = params["block"]
    return (ceil_div(p.n, b), ceil_div(p.m, b), 1), (b, b, 1)


def _tiled_geometry(p: Problem, params: Params):
    t = params["tile"]
    return (ceil_div(p.n, t), ceil_div(p.m, t), 1), (t, t, 1)


def _ideal(p: Problem, _params: Params) -> Traffic:
    return ideal_traffic(p)


def _naive(p: Problem, _params: Params) -> Traffic:
    return naive_traffic(p)


def _tiled(p: Problem, params: Params) -> Traffic:
    return tiled_traffic(p, params["tile"])


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant(
            name="cpu-naive",
            title="CPU triple loop",
            explanation="The seeds' V0: three nested loops on one CPU core, compiled to machine code by numba.",
            backend="cpu",
            precision="fp32",
            traffic=_naive,
        ),
        Variant(
            name="cpu-blas",
            title="CPU BLAS (numpy)",
            explanation="numpy's matmul: an optimised multi-threaded BLAS SGEMM on the CPU.",
            backend="cpu",
            precision="fp32",
            traffic=_ideal,
        ),
        Variant(
            name="gpu-naive",
            title="GPU naive",
            explanation="The seeds' V1: one thread per element of C, every operand read from global memory.",
            backend="cuda",
            precision="fp32",
            traffic=_naive,
            source="naive.cu",
            kernel_name="gemm_naive",
            param_choices={"block": (8, 16, 32)},
            param_defaults={"block": 16},
            geometry=_naive_geometry,
            uses_int32_index=True,
        ),
        Variant(
            name="gpu-tiled",
            title="GPU shared-memory tiled",
            explanation="The seeds' V2: TILE×TILE tiles of A and B staged in shared memory, each reused TILE times.",
            backend="cuda",
            precision="fp32",
            traffic=_tiled,
            source="tiled.cu",
            kernel_name="gemm_tiled",
            param_choices={"tile": (8, 16, 32)},
            param_defaults={"tile": 16},
            macros={"tile": "TILE"},
            geometry=_tiled_geometry,
            uses_int32_index=True,
        ),
        Variant(
            name="cublas",
            title="cuBLAS SGEMM (FP32)",
            explanation="NVIDIA's library SGEMM in plain FP32 (no tensor cores): the bar for hand-written kernels.",
            backend="cuda",
            precision="fp32",
            traffic=_ideal,
        ),
        Variant(
            name="cublas-tf32",
            title="cuBLAS SGEMM (TF32 tensor cores)",
            explanation="The same cuBLAS call with TF32 tensor-core math: faster, with a 10-bit mantissa on the inputs.",
            backend="cuda",
            precision="tf32",
            traffic=_ideal,
        ),
    )
}

# Relative Frobenius error against the float64 reference above which a result is invalid.
# FP32 accumulation over K=8192 lands near 1e-6; TF32 rounds inputs to 10 mantissa bits (~3e-4).
THRESHOLDS = {"fp32": 1e-4, "tf32": 5e-3}


def get_variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        known = ", ".join(VARIANTS)
        raise KeyError(f"unknown variant {name!r} (known: {known})") from None
