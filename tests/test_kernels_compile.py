"""Every kernel compiles with nvcc for Hopper, as the app compiles it: each param choice with the default
configuration, a sample of each tuning space (first, middle, last), the tuned configurations shipped in
assets/tuned (what an H200 runs by default), and the block-trace build (every kernel gemmviz launches has one,
holding the gemmviz_trace symbol the host points at its buffer; test_counters checked this with a second
compile of the same build).

The cubins go through backends/kernel_cache.compile_cubin, so source, instrumentation and -D options are
exactly the app's; only its PyCUDA call is replaced by nvcc on the command line (`-cubin -arch=sm_90`, sm_90a
for the Hopper kernel, as CudaRun asks for on an H100/H200). Compiles run in parallel, once per module, for
the cases pytest selected. Skipped where nvcc is not on PATH.
"""

import functools
import json
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from gemmviz.backends import kernel_cache
from gemmviz.backends.profile import instrument_source
from gemmviz.core import paths
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.problem import Problem

NVCC = shutil.which("nvcc")
ARCH = "sm_90"  # CudaRun.arch on an H100 / H200; the Hopper rung asks for sm_90a
TUNE_SAMPLE = 3
TRACEABLE = ("kernel", "wgmma-tma")  # the runners that launch a registry kernel (block trace: test_counters)


def _param_combos(v):
    """Each choice of each param once (zipped, so a variant with two params is not squared)."""
    if not v.macros:
        return [v.resolve_params()]
    columns = [v.param_choices[k] for k in v.macros]
    return [{**v.resolve_params(), **dict(zip(v.macros, values))} for values in zip(*columns)]


def _tune_sample(v):
    space = v.tune_space() if v.tune_space else []
    picks = sorted({0, len(space) // 2, len(space) - 1}) if len(space) >= TUNE_SAMPLE else range(len(space))
    return [space[i] for i in picks]


def _shipped_tunings():
    """(variant, config, gpu) of every tuned configuration in assets/tuned."""
    out = []
    for source in paths.asset_files("tuned"):
        for gpu, entries in json.loads(source.read_text()).items():
            out += [(name, entry["config"], gpu) for name, entry in entries.items() if name in VARIANTS]
    return out


def _cases():
    cases = [
        pytest.param(name, VARIANTS[name].resolve_params(), config, False, id=f"{name}-tuned-{gpu.replace(' ', '-')}")
        for name, config, gpu in _shipped_tunings()
    ]
    for v in VARIANTS.values():
        if not v.source:
            continue
        for params in _param_combos(v):
            tag = ",".join(f"{k}={x}" for k, x in params.items()) or "default"
            cases.append(pytest.param(v.name, params, None, False, id=f"{v.name}-{tag}"))
        for i, config in enumerate(_tune_sample(v)):
            cases.append(pytest.param(v.name, v.resolve_params(), config, False, id=f"{v.name}-tune{i}"))
        cases.append(pytest.param(v.name, v.resolve_params(), None, True, id=f"{v.name}-traced"))
    # the Hilbert block order that benchmarks/l2_order.py measures against the grouped one (ORDER=1)
    any_ = VARIANTS["gpu-cpasync-any"]
    cases.append(
        pytest.param(any_.name, any_.resolve_params(), {**any_.config, "ORDER": 1}, False, id="cpasync-any-hilbert")
    )
    # Stream-K (SCHED=1, benchmarks/fp32_round3.py), in the registry's 128x128 tiles and in 64x128
    cases.append(
        pytest.param(any_.name, any_.resolve_params(), {**any_.config, "SCHED": 1}, False, id="cpasync-any-streamk")
    )
    cases.append(
        pytest.param(any_.name, any_.resolve_params(), {**any_.config, "SCHED": 2}, False, id="cpasync-any-streamk2")
    )
    tile64 = {**any_.config, "BM": 64, "SCHED": 1}
    cases.append(pytest.param(any_.name, any_.resolve_params(), tile64, False, id="cpasync-any-streamk-64x128"))
    # what gpu-cpasync-any's per-size fit runs: 64x64 tiles at small sizes, Stream-K in the H200's 128x256 tiles
    for size in (Problem(1000, 1000, 1000), Problem(2000, 3000, 1000)):
        fitted, _why = any_.fit(size, {**any_.config, "BN": 256, "WM": 64, "TN": 16})
        cases.append(pytest.param(any_.name, any_.resolve_params(), fitted, False, id=f"cpasync-any-fit-{size.key}"))
    # issue 48 technique 5 (benchmarks/fp32_round3.py): partial barriers (PBAR) and fragments read across the K-slice
    # boundary (FRAG_DB 2; 0: one buffer), in the H200's 128x256 tiles, the registry's 128x128 and 64x64
    t256 = {**any_.config, "BN": 256, "WM": 64, "TN": 16}
    t64 = {**any_.config, "BM": 64, "BN": 64, "WN": 32, "TN": 4}
    for tag, extra in {"pbar": {"PBAR": 1}, "fdb2": {"FRAG_DB": 2}, "pbar-fdb2": {"PBAR": 1, "FRAG_DB": 2}}.items():
        cases.append(pytest.param(any_.name, any_.resolve_params(), {**t256, **extra}, False, id=f"cpasync-any-{tag}"))
    for tag, config in {
        "fdb0": {**t256, "FRAG_DB": 0},
        "pbar-fdb2-128x128": {**any_.config, "PBAR": 1, "FRAG_DB": 2},
        "pbar-64x64": {**t64, "PBAR": 1},
        "pbar-fdb2-bk32": {**t256, "BK": 32, "PBAR": 1, "FRAG_DB": 2},
        "pbar-fdb2-streamk": {**t256, "PBAR": 1, "FRAG_DB": 2, "SCHED": 1},
        "pbar2": {**t256, "PBAR": 2},
        "pbar2-fdb2": {**t256, "PBAR": 2, "FRAG_DB": 2},
        "pbar2-64x64": {**t64, "PBAR": 2},
    }.items():
        cases.append(pytest.param(any_.name, any_.resolve_params(), config, False, id=f"cpasync-any-{tag}"))
    # gpu-wgmma-tf32's persistent grid with multicast pairs (benchmarks/tf32_round3.py), traced too
    hop = VARIANTS["gpu-wgmma-tf32"]
    persist = {**hop.config, "PERSIST": 1, "CLUSTER": 2, "ORDER": 1}
    cases.append(pytest.param(hop.name, hop.resolve_params(), persist, False, id="wgmma-persistent-x2"))
    cases.append(pytest.param(hop.name, hop.resolve_params(), persist, True, id="wgmma-persistent-x2-traced"))
    # stream-K of the last partial wave (STREAMK=1, benchmarks/tf32_round3.py round 4): 256-row pairs in Hilbert
    # order, 128x128 tiles, 128x64 tiles of one consumer warpgroup in pairs; traced too
    streamk = {**persist, "STREAMK": 1}
    cases.append(pytest.param(hop.name, hop.resolve_params(), streamk, False, id="wgmma-streamk-x2"))
    cases.append(pytest.param(hop.name, hop.resolve_params(), streamk, True, id="wgmma-streamk-x2-traced"))
    small_sk = {**hop.config, "BM": 128, "STAGES": 6, "PERSIST": 1, "STREAMK": 1}
    cases.append(pytest.param(hop.name, hop.resolve_params(), small_sk, False, id="wgmma-streamk-128"))
    one_sk = {**small_sk, "CONSUMERS": 1, "STAGES": 8, "CLUSTER": 2}
    cases.append(pytest.param(hop.name, hop.resolve_params(), one_sk, False, id="wgmma-streamk-128x64-x2"))
    prefetch = {**small_sk, "TMAP_PREFETCH": 1}  # the tensor maps prefetched at the start
    cases.append(pytest.param(hop.name, hop.resolve_params(), prefetch, False, id="wgmma-streamk-128-prefetch"))
    return cases


def _arch(v) -> str:
    return "sm_90a" if v.runner == "wgmma-tma" else ARCH


def _nvcc(source: str, options: list[str], arch: str, name: str | None, env: dict[str, str]) -> bytes:
    """kernel_cache.nvcc without PyCUDA: the same source, options and architecture on nvcc's command line.

    `env`: the environment, given whole. Without it the child is started with the process's own `environ`,
    which this module's tests change meanwhile on the main thread (each test's GEMMVIZ_CACHE_DIR,
    tests/conftest.py): a compile thread's vfork+exec read it while setenv moved it, and failed with
    "OSError: [Errno 14] Bad address: nvcc" (a clean-clone CI run, 2026-12-02)."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / (name or "kernel.cu"), Path(tmp) / "kernel.cubin"
        src.write_text(source)
        cmd = [NVCC, "-cubin", f"-arch={arch}", *options, "-o", str(out), str(src)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
        if proc.returncode:
            raise RuntimeError(f"nvcc failed to compile {name}:\n{' '.join(cmd)}\n{proc.stderr.strip()}")
        return out.read_bytes()


def _build(name, params, config, traced):
    v = VARIANTS[name]
    if traced:
        try:
            instrument_source(v.source_text(), v.kernel_name)
        except ValueError as exc:
            if v.runner in TRACEABLE:  # a kernel gemmviz launches has a block-trace build
                return ("error", f"no block-trace build: {exc}")
            return ("skip", f"no block-trace build: {exc}")
    try:
        _key, cubin, _cached = kernel_cache.compile_cubin(v, params, config, _arch(v), "compile-test", traced=traced)
    except RuntimeError as exc:
        return ("error", str(exc))
    if cubin[:4] != b"\x7fELF":
        return ("error", "nvcc did not write a cubin")
    if v.kernel_name.encode() not in cubin:
        return ("error", f"the cubin has no kernel {v.kernel_name} (the registry's kernel_name)")
    if traced and b"gemmviz_trace" not in cubin:
        return ("error", "the block-trace build has no gemmviz_trace (the symbol the host points at its buffer)")
    return ("ok", None)  # the cubins are not kept: 60 of them would sit in memory for the whole session


@pytest.fixture(scope="module")
def compiled(request):
    """{case id: future of (status, message)}, every selected case submitted at once."""
    if NVCC is None:
        pytest.skip("nvcc not found on PATH: cannot compile the kernels here")
    patch = pytest.MonkeyPatch()
    patch.setattr(kernel_cache, "nvcc", functools.partial(_nvcc, env=dict(os.environ)))  # env: see _nvcc
    patch.setattr(kernel_cache, "_toolchain", {"nvcc": "test", "driver": 0, "pycuda": "none"})
    patch.setattr(kernel_cache, "_cache_folder", lambda: None)  # never the user's kernel cache
    mine = [item for item in request.session.items if item.module is request.module and hasattr(item, "callspec")]
    pool = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2))
    futures = {
        item.callspec.id: pool.submit(
            _build, *(item.callspec.params[k] for k in ("name", "params", "config", "traced"))
        )
        for item in mine
    }
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)
    patch.undo()


@pytest.mark.parametrize("name, params, config, traced", _cases())
def test_kernel_compiles_for_hopper(compiled, request, name, params, config, traced):
    status, out = compiled[request.node.callspec.id].result()
    if status == "skip":
        pytest.skip(out)
    assert status == "ok", out
