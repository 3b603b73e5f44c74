"""Checks over a kernel variant's registry entry (core/kernels/variants.py)."""

from gemmviz.core.kernels.variants import THRESHOLDS
from gemmviz.core.problem import Problem


def variant_is_complete(v) -> None:
    """A registry entry has what the app, the CLI and the backends read of it, consistent with its kernel."""
    assert v.title and v.explanation and v.backend in ("cpu", "cuda")
    assert v.runner in RUNNERS[v.backend] and (v.runner in ("kernel", "wgmma-tma")) == bool(v.source)
    assert (v.cublas_math_mode is not None) == (v.runner == "cublas")
    assert v.precision in THRESHOLDS
    params = v.resolve_params()
    assert v.refusal(Problem(64, 64, 64), params) is None
    assert v.traffic_model(Problem(64, 64, 64), params).flops == 2 * 64**3
    if v.source:
        assert v.kernel_name in v.source_text()
        grid, block = v.geometry(Problem(100, 50, 7), params, v.config)
        if v.pads:  # one block per BM x BN tile of the padded problem
            q = v.run_problem(Problem(100, 50, 7))
            assert grid[0] * v.config["BN"] == q.n and grid[1] * v.config["BM"] == q.m
        elif "BN" in v.config:  # block tiling with edges in the kernel: one block per tile of C, split-K in y
            assert grid[0] * v.config["BN"] >= 50 and grid[1] * v.config["BM"] >= 100
        elif v.runner == "wgmma-tma":  # a 1-D grid of whole clusters, one block per BM x BN tile of C
            assert grid[0] >= -(-100 // v.config["BM"]) * -(-50 // 128) and grid[1:] == (1, 1)
        elif v.name == "gpu-uncoalesced":  # x walks rows
            assert grid[0] * block[0] >= 100 and grid[1] * block[1] >= 50
        else:
            assert grid[0] * block[0] >= 50 and grid[1] * block[1] >= 100


RUNNERS = {"cpu": ("cpu-loop", "numpy-blas"), "cuda": ("kernel", "cublas", "wgmma-tma")}
