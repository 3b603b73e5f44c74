"""The one registry of kernel variants (`VARIANTS`, a core/registry.Registry). The CLI, the engine, the UI and the
animation read it.

Adding a variant is a .cu file under kernels/ plus one `Variant(...)` among VARIANTS' entries.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from gemmviz.core import paths
from gemmviz.core.kernels import cpasync_model as cpasync
from gemmviz.core.kernels import hopper_model as hopper
from gemmviz.core.kernels.model import (
    Traffic,
    blocked_traffic,
    ceil_div,
    ideal_traffic,
    naive_traffic,
    padded,
    tiled_traffic,
)
from gemmviz.core.problem import MAX_INT32_ELEMENTS, Problem
from gemmviz.core.registry import Registry

Params = Mapping[str, int]
Dim3 = tuple[int, int, int]
# (problem, params, config) -> (grid, block): the launch of one problem
Geometry = Callable[[Problem, Params, Mapping[str, int]], tuple[Dim3, Dim3]]
# The comment that marks the source line of one kind of animation step, e.g. `// gemmviz:step load`.
STEP_ANCHOR = re.compile(r"//.*\bgemmviz:step (\w+)")


LIBRARY_RUNNERS = ("cublas", "numpy-blas")


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
    # (grid, block) of a launch at a problem, from the params and the block configuration (`config`)
    geometry: (
        Callable[[Problem, Params, Mapping[str, int]], tuple[tuple[int, int, int], tuple[int, int, int]]] | None
    ) = None
    uses_int32_index: bool = False
    defines: Mapping[str, int] = field(default_factory=dict)  # fixed -D macros (e.g. PAD=1)
    # Block-tiling kernels: their compile-time configuration (-D macros BM, BN, BK, ...). `gemmviz tune`
    # searches `tune_space` on the current GPU; the best is cached per GPU and used instead of `config`.
    config: Mapping[str, int] = field(default_factory=dict)
    tune_space: Callable[[], list[dict[str, int]]] | None = None
    # Kernels without edge handling (config has BM, BN, BK): the engine zero-pads M, N, K to multiples.
    pads: bool = False
    dynamic_smem: Callable[[Mapping[str, int]], int] | None = None  # bytes, from the config
    rung: str = ""  # for the ladder: what this step changes, in a few words
    # The animation: which schedule this kernel runs ("naive", "tiled", "blocktile2d"), which param sets
    # its tile or block edge, and which line of its source each kind of step corresponds to.
    schedule_kind: str | None = None
    schedule_param: str | None = None
    # The kernel's own names of its shared-memory arrays for A and B (empty: no shared memory).
    shared_names: tuple[str, ...] = ()
    # In the default selection of the app and of `gemmviz bench`.
    default: bool = False
    # How a backend runs it: "kernel" (a .cu file), "cublas", "cpu-loop" (numba), "numpy-blas".
    runner: str = "kernel"
    cublas_math_mode: int | None = None  # cublasMath_t for runner "cublas"
    # Kernels with edge handling that still need aligned rows: fixed (M, N, K) multiples the engine zero-pads to.
    pad_to: tuple[int, int, int] | None = None
    # The one compute capability the kernel is built for (arch-specific code such as sm_90a runs nowhere else).
    requires_cc: tuple[int, int] | None = None
    # The configuration to run at one size, from the tuned or default one, and why it differs (None: as given):
    # gpu-cpasync-any's smaller tiles and Stream-K where the given tiles fill the GPU badly (cpasync_model.any_fit).
    fit: Callable[[Problem, Mapping[str, int]], tuple[dict[str, int], str | None]] | None = None
    fit_values: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # values `fit` may give, per key
    # Blocks of a configuration one SM holds at once (registers and shared memory), where the model knows it: a
    # wave is SMs x this many blocks (a trace alone shows only the slots its blocks filled)
    occupancy: Callable[[Mapping[str, int]], int] | None = None
    # Its title and explanation in other languages, {"zh": {title: "…", explanation: "…"}}: what the window shows
    # where its catalogue (assets/i18n) has no translation of them yet, so a new variant needs no catalogue edit.
    translations: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @property
    def library(self) -> bool:
        """A library call (cuBLAS, NumPy's BLAS): the library picks its kernel on each machine, unrecorded."""
        return self.runner in LIBRARY_RUNNERS

    def unavailable(self, cc: tuple[int, int]) -> str | None:
        """Why this variant cannot run on a GPU of compute capability `cc`, or None if it can."""
        if self.requires_cc is None or tuple(cc) == self.requires_cc:
            return None
        needs = "Hopper (sm_90)" if self.requires_cc == (9, 0) else "sm_{}{}".format(*self.requires_cc)
        return f"unavailable: needs {needs}; this GPU is sm_{cc[0]}{cc[1]}"

    def source_text(self) -> str:
        if not self.source:
            raise ValueError(f"{self.name} has no kernel source")
        return paths.kernel_source(self.source)

    def step_lines(self) -> dict[str, int]:
        """{step kind: 1-based line} from the kernel's `// gemmviz:step <kind>` anchors; one anchor per kind."""
        if not self.source:
            return {}
        lines: dict[str, int] = {}
        for number, line in enumerate(self.source_text().splitlines(), start=1):
            match = STEP_ANCHOR.search(line)
            if match:
                kind = match.group(1)
                if kind in lines:
                    raise ValueError(f"{self.source}: two anchors for step {kind!r} (lines {lines[kind]}, {number})")
                lines[kind] = number
        return lines

    def resolve_params(self, given: Params | None = None) -> dict[str, int]:
        """The variant's params: defaults overridden by `given` (keys it does not have are ignored)."""
        params = dict(self.param_defaults)
        for key, value in (given or {}).items():
            if key in self.param_choices:
                params[key] = value
        return params

    def refusal(self, problem: Problem, params: Params, config: Mapping[str, int] | None = None) -> str | None:
        """Why this variant cannot run this problem with these params (and block configuration, the registry
        default if not given), or None if it can."""
        for key, choices in self.param_choices.items():
            value = params.get(key)
            if value not in choices:
                allowed = ", ".join(map(str, choices))
                return f"{self.name}: {key} {value} is not supported (choose {allowed})"
        run = self.run_problem(problem, config)  # kernels that pad index the padded matrices
        if self.uses_int32_index and run.max_matrix_elements > MAX_INT32_ELEMENTS:
            padded_note = f" (zero-padded to {run.m}×{run.n}×{run.k})" if run != problem else ""
            return (
                f"{self.name}: {problem.label}{padded_note} has a matrix of 2^31 elements or more, "
                "beyond the kernel's 32-bit indexing"
            )
        return None

    def macro_options(self, params: Params, config: Mapping[str, int] | None = None) -> list[str]:
        config = self.config if config is None else config
        fixed = [f"-D{k}={v}" for k, v in {**self.defines, **config}.items()]
        return fixed + [f"-D{macro}={params[key]}" for key, macro in self.macros.items()]

    def traffic_model(
        self, problem: Problem, params: Params | None = None, config: Mapping[str, int] | None = None
    ) -> Traffic:
        """The traffic model for these params and block configuration (the registry default if not given)."""
        return self.traffic(problem, {**(self.config if config is None else config), **self.resolve_params(params)})

    def pad_multiple(self, config: Mapping[str, int] | None = None) -> tuple[int, int, int] | None:
        c = self.config if config is None else config
        return (c["BM"], c["BN"], c["BK"]) if self.pads else self.pad_to

    def run_problem(self, problem: Problem, config: Mapping[str, int] | None = None) -> Problem:
        """The size the kernel really runs: the problem, zero-padded if the kernel needs multiples."""
        multiple = self.pad_multiple(config)
        return padded(problem, multiple) if multiple else problem

    def describe_params(self, params: Params) -> str:
        return ", ".join(f"{k}={v}" for k, v in params.items())


def _naive_geometry(p: Problem, params: Params, _config: Mapping[str, int] | None = None) -> tuple[Dim3, Dim3]:
    b = params["block"]
    return (ceil_div(p.n, b), ceil_div(p.m, b), 1), (b, b, 1)


def _tiled_geometry(p: Problem, params: Params, _config: Mapping[str, int] | None = None) -> tuple[Dim3, Dim3]:
    t = params["tile"]
    return (ceil_div(p.n, t), ceil_div(p.m, t), 1), (t, t, 1)


def _blocked_geometry(threads: Callable[[Mapping[str, int]], int]) -> Geometry:
    """One block per BM x BN tile of C, `threads(config)` threads in x."""

    def geometry(p: Problem, _params: Params, config: Mapping[str, int]) -> tuple[Dim3, Dim3]:
        return (ceil_div(p.n, config["BN"]), ceil_div(p.m, config["BM"]), 1), (threads(config), 1, 1)

    return geometry


def _uncoalesced_geometry(p: Problem, params: Params, _config: Mapping[str, int] | None = None) -> tuple[Dim3, Dim3]:
    b = params["block"]
    return (ceil_div(p.m, b), ceil_div(p.n, b), 1), (b, b, 1)


# Block-tiling kernels' compile-time configurations (the defaults; `gemmviz tune` searches others).
BLOCKTILE1D = {"BM": 64, "BN": 64, "BK": 8, "TM": 8}
BLOCKTILE2D = {"BM": 128, "BN": 128, "BK": 8, "TM": 8, "TN": 8}
WARPTILE = {"BM": 128, "BN": 128, "BK": 16, "WM": 64, "WN": 64, "WNITER": 4, "TM": 8, "TN": 4}

WMMA = {"BM": 128, "BN": 128, "BK": 32, "WARPS_M": 2, "WARPS_N": 2, "STAGES": 2, "SKEW_A": 4, "ROUND_TF32": 1}

MMA = {"BM": 128, "BN": 128, "BK": 32, "WARPS_M": 2, "WARPS_N": 2, "STAGES": 3, "ROUND_TF32": 0}


def mma_smem_bytes(c: Mapping[str, int]) -> int:
    return 4 * c["STAGES"] * (c["BM"] * (c["BK"] + 4) + c["BK"] * (c["BN"] + 8))


def mma_space() -> list[dict[str, int]]:
    out = []
    grid = itertools.product((64, 128, 256), (64, 128, 256), (16, 32), (1, 2, 4), (1, 2, 4), (2, 3, 4), (0, 1))
    for bm, bn, bk, wm, wn, stages, rnd in grid:
        c = {"BM": bm, "BN": bn, "BK": bk, "WARPS_M": wm, "WARPS_N": wn, "STAGES": stages, "ROUND_TF32": rnd}
        if bm % (16 * wm) or bn % (8 * wn):
            continue
        tiles = (bm // wm // 16) * (bn // wn // 8)
        if not 8 <= tiles <= 32 or warp_grid_threads(c) not in (128, 256) or mma_smem_bytes(c) > 200 * 1024:
            continue
        out.append(c)
    return out


def _mma_reads(c: Mapping[str, int]) -> float:
    """Per thread per k: MI A fragments (16x8) and NI B fragments (8x8) per warp per 8 k."""
    mi, ni = c["BM"] // c["WARPS_M"] // 16, c["BN"] // c["WARPS_N"] // 8
    return (mi * 128 + ni * 64) / 32 / 8


def _warptile_reads(c: Mapping[str, int]) -> float:
    """Shared-memory reads per thread per k: WMITER*TM values of A and WNITER*TN of B."""
    wmiter = c["WM"] * c["WN"] // (32 * c["TM"] * c["TN"] * c["WNITER"])
    return wmiter * c["TM"] + c["WNITER"] * c["TN"]


def _wmma_reads(c: Mapping[str, int]) -> float:
    """Per thread per k: each warp loads FM A fragments (16x8) and FN B fragments (8x16) per 8 k."""
    fm, fn = c["BM"] // c["WARPS_M"] // 16, c["BN"] // c["WARPS_N"] // 16
    return (fm + fn) * 128 / 32 / 8


def warp_grid_threads(c: Mapping[str, int]) -> int:
    return c["WARPS_M"] * c["WARPS_N"] * 32


def wmma_smem_bytes(c: Mapping[str, int]) -> int:
    return 4 * c["STAGES"] * (c["BM"] * (c["BK"] + c["SKEW_A"]) + c["BK"] * (c["BN"] + 8))


def wmma_space() -> list[dict[str, int]]:
    out = []
    grid = itertools.product(
        (64, 128, 256), (64, 128, 256), (16, 32, 64), (1, 2, 4), (1, 2, 4), (2, 3, 4), (4,), (1, 0)
    )
    for bm, bn, bk, wm, wn, stages, skew, rnd in grid:
        c = {
            "BM": bm,
            "BN": bn,
            "BK": bk,
            "WARPS_M": wm,
            "WARPS_N": wn,
            "STAGES": stages,
            "SKEW_A": skew,
            "ROUND_TF32": rnd,
        }
        if bm % (16 * wm) or bn % (16 * wn):
            continue
        frags = (bm // wm // 16) * (bn // wn // 16)
        if not 4 <= frags <= 16 or warp_grid_threads(c) not in (128, 256) or wmma_smem_bytes(c) > 200 * 1024:
            continue
        out.append(c)
    return out


def warptile_threads(c: Mapping[str, int]) -> int:
    return (c["BM"] // c["WM"]) * (c["BN"] // c["WN"]) * 32


def blocktile_threads(c: Mapping[str, int]) -> int:
    return c["BM"] * c["BN"] // (c["TM"] * c.get("TN", 1))


def vectorize_space() -> list[dict[str, int]]:
    """Configurations the float4 block-tiling kernels compile and run correctly with."""
    out = []
    for bm, bn, bk, tm, tn in itertools.product((64, 128, 256), (64, 128, 256), (8, 16, 32), (4, 8), (4, 8)):
        threads = bm * bn // (tm * tn)
        if not 64 <= threads <= 1024 or (threads * 4) % bk or bk % 4:
            continue
        stride_a = threads * 4 // bk
        if stride_a == 0 or bm % stride_a or threads % (bn // 4):
            continue
        stride_b = threads // (bn // 4)
        if stride_b == 0 or bk % stride_b or 4 * 2 * bk * (bm + bn) > 48 * 1024:
            continue
        out.append({"BM": bm, "BN": bn, "BK": bk, "TM": tm, "TN": tn})
    return out


def warptile_space() -> list[dict[str, int]]:
    """Configurations the warp-tiling kernel compiles and runs correctly with (its index arithmetic)."""
    out = []
    grid = itertools.product(
        (64, 128, 256), (64, 128, 256), (8, 16), (32, 64, 128), (32, 64, 128), (1, 2, 4), (4, 8), (4, 8)
    )
    for bm, bn, bk, wm, wn, wniter, tm, tn in grid:
        if bm % wm or bn % wn:
            continue
        threads = (bm // wm) * (bn // wn) * 32
        if threads not in (128, 256):
            continue
        per = 32 * tm * tn * wniter
        if (wm * wn) % per:
            continue
        wmiter = wm * wn // per
        if wmiter < 1 or wm % wmiter or wn % wniter:
            continue
        wsubm, wsubn = wm // wmiter, wn // wniter
        if wsubn % tn or wsubm % tm or (wsubn // tn) * (wsubm // tm) != 32:
            continue
        if (threads * 4) % bk or bk % 4 or bm % (threads * 4 // bk) or threads % (bn // 4):
            continue
        stride_b = threads // (bn // 4)
        if stride_b == 0 or bk % stride_b or 4 * bk * (bm + bn) > 48 * 1024:
            continue
        if not 64 <= wmiter * tm * wniter * tn <= 128:  # enough work per thread; more than 128 accumulators spill
            continue
        out.append({"BM": bm, "BN": bn, "BK": bk, "WM": wm, "WN": wn, "WNITER": wniter, "TM": tm, "TN": tn})
    return out


def _ideal(p: Problem, _params: Params) -> Traffic:
    return ideal_traffic(p)


def _naive(p: Problem, _params: Params) -> Traffic:
    return naive_traffic(p)


def _tiled(p: Problem, params: Params) -> Traffic:
    return tiled_traffic(p, params["tile"])


_TILED = Variant(
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
    schedule_kind="tiled",
    schedule_param="tile",
    shared_names=("tile_A", "tile_B"),
    default=True,
)


def _blocked(
    *,
    threads: Callable[[Mapping[str, int]], int],
    reads_per_k: Callable[[Mapping[str, int]], float],
    model: str,
    **fields: Any,
) -> Variant:
    """A block-tiling kernel: BM x BN tiles of C from its config, `threads(config)` threads per block,
    zero-padded to multiples of BM, BN, BK by the engine, `reads_per_k(config)` shared-memory reads per thread
    per k, `model` the name of its traffic model. `fields` are the Variant's own (name, title, explanation,
    source, kernel_name, config, rung, ...); precision is FP32 unless they say otherwise."""
    return Variant(
        **{"precision": "fp32", **fields},
        backend="cuda",
        traffic=lambda p, c: blocked_traffic(p, c["BM"], c["BN"], c["BK"], threads(c), reads_per_k(c), model),
        geometry=_blocked_geometry(threads),
        uses_int32_index=True,
        pads=True,
        shared_names=("As", "Bs"),
    )


VARIANTS: Registry[str, Variant] = Registry(
    "kernel variant",
    entries=(
        Variant(
            name="cpu-naive",
            title="CPU triple loop",
            explanation="The seeds' V0: three nested loops on one CPU core, compiled to machine code by numba.",
            backend="cpu",
            precision="fp32",
            traffic=_naive,
            runner="cpu-loop",
        ),
        Variant(
            name="cpu-blas",
            title="CPU BLAS (numpy)",
            explanation="numpy's matmul: an optimised multi-threaded BLAS SGEMM on the CPU.",
            backend="cpu",
            precision="fp32",
            traffic=_ideal,
            runner="numpy-blas",
            default=True,
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
            schedule_kind="naive",
            schedule_param="block",
            default=True,
        ),
        Variant(
            name="gpu-uncoalesced",
            title="GPU naive, uncoalesced",
            explanation="The naive kernel with threadIdx.x walking down a column of C: no warp access is coalesced.",
            backend="cuda",
            precision="fp32",
            traffic=_naive,
            source="uncoalesced.cu",
            kernel_name="gemm_uncoalesced",
            param_choices={"block": (16, 32)},
            param_defaults={"block": 32},
            geometry=_uncoalesced_geometry,
            uses_int32_index=True,
            rung="threads mapped against the memory layout",
        ),
        _TILED,
        replace(
            _TILED,
            name="gpu-tiled-pad",
            title="GPU tiled, padded shared memory",
            explanation="The seeds' V2 with one extra column per shared array, the textbook fix for bank conflicts.",
            param_defaults={"tile": 32},
            defines={"PAD": 1},
            rung="shared-memory padding against bank conflicts",
            schedule_kind="padded",
            default=False,
        ),
        _blocked(
            name="gpu-blocktile1d",
            title="GPU 1D block tiling",
            explanation="Each thread computes 8 results down a column: one B value from shared memory feeds 8 FMAs.",
            source="blocktile1d.cu",
            kernel_name="gemm_blocktile1d",
            config=BLOCKTILE1D,
            threads=blocktile_threads,
            reads_per_k=lambda c: 1 + c["TM"],
            model="1D block tiled",
            rung="several outputs per thread",
        ),
        _blocked(
            name="gpu-blocktile2d",
            title="GPU 2D block tiling",
            explanation="Each thread computes an 8x8 register tile of C from 8 values of A and 8 of B.",
            source="blocktile2d.cu",
            kernel_name="gemm_blocktile2d",
            config=BLOCKTILE2D,
            threads=blocktile_threads,
            reads_per_k=lambda c: c["TM"] + c["TN"],
            model="2D block tiled",
            rung="a register tile per thread",
            schedule_kind="blocktile2d",
        ),
        _blocked(
            name="gpu-vectorize",
            title="GPU 2D tiling, float4 loads",
            explanation="2D block tiling with 16-byte loads and stores, A transposed in shared memory.",
            source="vectorize.cu",
            kernel_name="gemm_vectorize",
            config=BLOCKTILE2D,
            threads=blocktile_threads,
            reads_per_k=lambda c: (c["TM"] + c["TN"]) / 4,
            model="2D block tiled, float4",
            rung="vectorized (float4) memory access",
            defines={"DOUBLE_BUFFER": 0},
            tune_space=vectorize_space,
        ),
        _blocked(
            name="gpu-doublebuffer",
            title="GPU 2D tiling, double-buffered",
            explanation="As float4 tiling, with two shared buffers: the next tiles load while these are used.",
            source="vectorize.cu",
            kernel_name="gemm_vectorize",
            config=BLOCKTILE2D,
            threads=blocktile_threads,
            reads_per_k=lambda c: (c["TM"] + c["TN"]) / 4,
            model="2D block tiled, float4",
            rung="prefetch the next tile while computing",
            defines={"DOUBLE_BUFFER": 1},
            tune_space=vectorize_space,
        ),
        _blocked(
            name="gpu-warptile",
            title="GPU warp tiling",
            explanation="Block, warp and thread tiles: each warp owns a tile of C, each thread a small tile per sub-tile.",
            source="warptile.cu",
            kernel_name="gemm_warptile",
            config=WARPTILE,
            threads=warptile_threads,
            reads_per_k=_warptile_reads,
            model="warp tiled",
            rung="a warp-level tile between block and thread",
            tune_space=warptile_space,
        ),
        replace(
            _blocked(name="gpu-cpasync", title="GPU warp tiling, cp.async pipeline", **cpasync.ENTRY), **cpasync.OWN
        ),
        replace(
            _blocked(name="gpu-cpasync-any", title="GPU warp tiling, cp.async, any size", **cpasync.ANY_ENTRY),
            **cpasync.ANY_OWN,
        ),
        _blocked(
            name="gpu-wmma-tf32",
            title="GPU tensor cores (WMMA TF32)",
            explanation="TF32 tensor-core multiply-adds through WMMA, block tile in shared memory, cp.async pipeline.",
            source="wmma_tf32.cu",
            kernel_name="gemm_wmma_tf32",
            config=WMMA,
            threads=warp_grid_threads,
            reads_per_k=_wmma_reads,
            model="tensor-core tiled",
            rung="tensor cores (TF32)",
            precision="tf32",
            tune_space=wmma_space,
            dynamic_smem=wmma_smem_bytes,
        ),
        _blocked(
            name="gpu-mma-tf32",
            title="GPU tensor cores (mma.sync TF32)",
            explanation="TF32 mma.sync with ldmatrix fragment loads: fewer shared-memory instructions than WMMA.",
            source="mma_tf32.cu",
            kernel_name="gemm_mma_tf32",
            config=MMA,
            threads=warp_grid_threads,
            reads_per_k=_mma_reads,
            model="tensor-core tiled",
            rung="tensor cores, raw mma.sync + ldmatrix",
            precision="tf32",
            tune_space=mma_space,
            dynamic_smem=mma_smem_bytes,
        ),
        Variant(
            name="gpu-wgmma-tf32",
            title="GPU Hopper (TMA + wgmma TF32)",
            explanation=hopper.WGMMA_EXPLANATION,
            backend="cuda",
            precision="tf32",
            traffic=hopper.wgmma_traffic,
            source="wgmma_tf32.cu",
            kernel_name="wgmma_tf32",
            config=hopper.WGMMA,
            tune_space=hopper.wgmma_space,
            fit_values=hopper.WGMMA_FIT_VALUES,  # persistent clusters, Hilbert order, 128-row tiles per size
            dynamic_smem=hopper.wgmma_smem_bytes,
            geometry=hopper.wgmma_geometry,
            requires_cc=(9, 0),
            rung="Hopper: TMA + mbarrier ring + wgmma",
            schedule_kind="hopper",
            shared_names=("smem_raw",),  # one dynamic buffer: the ring of stages, each an A tile then a B tile
            runner="wgmma-tma",
        ),
        Variant(
            name="cublas",
            title="cuBLAS SGEMM (FP32)",
            explanation="NVIDIA's library SGEMM in plain FP32 (no tensor cores): the bar for hand-written kernels.",
            backend="cuda",
            precision="fp32",
            traffic=_ideal,
            runner="cublas",
            cublas_math_mode=0,  # CUBLAS_DEFAULT_MATH
            default=True,
        ),
        Variant(
            name="cublas-tf32",
            title="cuBLAS SGEMM (TF32 tensor cores)",
            explanation="The same cuBLAS call with TF32 tensor-core math: faster, with a 10-bit mantissa on the inputs.",
            backend="cuda",
            precision="tf32",
            traffic=_ideal,
            runner="cublas",
            cublas_math_mode=3,  # CUBLAS_TF32_TENSOR_OP_MATH
        ),
    ),
)

# Relative Frobenius error against the float64 reference above which a result is invalid.
# FP32 accumulation over K=8192 lands near 1e-6; TF32 rounds inputs to 10 mantissa bits (~3e-4).
THRESHOLDS = {"fp32": 1e-4, "tf32": 5e-3}


@dataclass(frozen=True)
class Baseline:
    """A result others are compared with (speedup charts, `gemmviz chart --baseline`): a variant and its params."""

    key: str
    label: str
    variant: str
    params: Mapping[str, int]


# Variants the shipped H200 session (assets/sessions/h200-2026-12-01.json) has no results of yet, each with why:
# a variant added without a GPU goes here, named, until a recording run adds it (benchmarks/record_h200.sh);
# tests/test_sessions.py holds the session to every other variant, and this list to what it lacks.
NOT_RECORDED: dict[str, str] = {}


def registry_translation(text: str, lang: str) -> str | None:
    """A variant's own translation of `text` (its title or explanation) into `lang`, if one carries it."""
    for v in VARIANTS.values():
        found = v.translations.get(lang, {}).get(text)
        if found:
            return found
    return None


BASELINES: tuple[Baseline, ...] = (
    Baseline("cpu-naive", "CPU loop", "cpu-naive", {}),
    Baseline("gpu-naive", "GPU naive, block 16×16 (the seed's)", "gpu-naive", {"block": 16}),
    Baseline("cublas", "cuBLAS FP32", "cublas", {}),
    Baseline("cublas-tf32", "cuBLAS TF32", "cublas-tf32", {}),
)


def baseline(key: str) -> Baseline:
    for b in BASELINES:
        if b.key == key:
            return b
    raise KeyError(f"unknown baseline {key!r} (known: {', '.join(b.key for b in BASELINES)})")


def default_variants() -> list[str]:
    """The variants selected when the app opens and when `gemmviz bench` is given none."""
    return [v.name for v in VARIANTS.values() if v.default]


def tunable_variants() -> list[str]:
    """The variants `gemmviz tune` can search (those with a tuning space), in registry order."""
    return [v.name for v in VARIANTS.values() if v.tune_space is not None]


def get_variant(name: str) -> Variant:
    """The variant called `name`; KeyError naming the known ones otherwise (`VARIANTS.find`)."""
    return VARIANTS.find(name)


def occupancy(variant: str, config: Mapping[str, int] | None) -> int | None:
    """Blocks of `variant` in `config` one SM holds at once, where its model says (None: not known, or a config
    that lacks the keys the model needs, as an older session's may)."""
    v = VARIANTS.get(variant)
    if v is None or v.occupancy is None or not config:
        return None
    try:
        return v.occupancy(config)
    except (KeyError, TypeError, ValueError):
        return None
