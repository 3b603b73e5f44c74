"""What `pip install "gemmviz[cuda]"` needs, checked in a second rather than found out by pip after minutes.

PyCUDA has no wheels for Linux: pip builds it from source, which takes the CUDA toolkit's headers (cuda.h),
found only through `nvcc` on PATH (its build sets CUDA_ROOT to nvcc's parent folder), a C++ compiler and the
Python headers; and running it takes the NVIDIA driver (libcuda.so.1). NVIDIA's toolkit installs into
/usr/local/cuda without putting nvcc on PATH, so the build's first word is "cuda.h: No such file" after minutes.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
import sysconfig
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

STANDARD_ROOTS = ("/usr/local/cuda",)  # NVIDIA's installers and .deb packages link the current toolkit here


@dataclass(frozen=True)
class Need:
    what: str
    ok: bool
    how: str  # where it was found, or what to do


def _driver_loads() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


def _toolkit_roots(nvcc: str | None, env: Mapping[str, str], exists: Callable[[str], bool]) -> list[str]:
    """Folders holding a whole toolkit (bin/nvcc and include/cuda.h): nvcc's own (through links), then
    CUDA_ROOT, CUDA_HOME, CUDA_PATH and /usr/local/cuda."""
    candidates: list[str | None] = [str(Path(nvcc).resolve().parent.parent)] if nvcc else []
    candidates += [env.get("CUDA_ROOT"), env.get("CUDA_HOME"), env.get("CUDA_PATH"), *STANDARD_ROOTS]
    return [
        r
        for r in dict.fromkeys(filter(None, candidates))
        if exists(os.path.join(r, "bin", "nvcc")) and exists(os.path.join(r, "include", "cuda.h"))
    ]


def toolkit_need(env: Mapping[str, str], which: Callable[[str], str | None], exists: Callable[[str], bool]) -> Need:
    """PyCUDA's build takes the folder above the first nvcc on PATH as the toolkit (no links followed)."""
    nvcc = which("nvcc")
    seen_root = str(Path(nvcc).parent.parent) if nvcc else None
    if seen_root and exists(os.path.join(seen_root, "include", "cuda.h")):
        return Need("CUDA toolkit", True, f"{nvcc}, headers in {seen_root}/include")
    roots = _toolkit_roots(nvcc, env, exists)
    if roots and nvcc:
        return Need(
            "CUDA toolkit",
            False,
            f"the nvcc on PATH is {nvcc}, so PyCUDA's build looks for cuda.h in "
            f"{seen_root}/include and fails; the toolkit is in {roots[0]}: export PATH={roots[0]}/bin:$PATH "
            "before pip install",
        )
    if roots:
        return Need(
            "CUDA toolkit",
            False,
            f"installed in {roots[0]} but nvcc is not on PATH, so PyCUDA's build "
            f"does not find cuda.h: export PATH={roots[0]}/bin:$PATH before pip install",
        )
    where = f"nvcc is {nvcc} but no cuda.h beside it" if nvcc else "no nvcc on PATH, nothing in /usr/local/cuda"
    return Need(
        "CUDA toolkit",
        False,
        f"not found ({where}): install NVIDIA's CUDA toolkit "
        "(https://developer.nvidia.com/cuda-downloads) or Debian's nvidia-cuda-toolkit",
    )


def pycuda_build_needs(
    env: Mapping[str, str] | None = None,
    which: Callable[[str], str | None] = shutil.which,
    exists: Callable[[str], bool] = os.path.exists,
    driver_loads: Callable[[], bool] = _driver_loads,
) -> list[Need]:
    """Each thing building and running PyCUDA needs, found or not, with what to do."""
    env = os.environ if env is None else env
    needs = [toolkit_need(env, which, exists)]
    compiler = which("g++") or which("c++")
    needs.append(Need("C++ compiler", bool(compiler), compiler or "no g++ on PATH: sudo apt install g++"))
    include = sysconfig.get_paths()["include"]
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    headers = exists(os.path.join(include, "Python.h"))
    needs.append(
        Need(
            "Python headers",
            headers,
            include
            if headers
            else f"no Python.h in {include}: sudo apt install python{version}-dev (python3-dev for the system Python)",
        )
    )
    driver = driver_loads()
    needs.append(
        Need(
            "NVIDIA driver",
            driver,
            "libcuda.so.1 loads"
            if driver
            else "libcuda.so.1 does not load: "
            "PyCUDA builds but runs no kernel without the NVIDIA driver (nvidia-driver)",
        )
    )
    return needs


def pycuda_missing_text(needs: list[Need] | None = None) -> str:
    """What `gemmviz info` prints when PyCUDA is not installed: each need, then the command that builds it."""
    needs = pycuda_build_needs() if needs is None else needs
    lines = ['What `pip install "gemmviz[cuda]"` (it builds PyCUDA from source, a few minutes) needs here:']
    lines += [f"  {'ok' if n.ok else 'MISSING':<8} {n.what}: {n.how}" for n in needs]
    build = [n for n in needs if n.what != "NVIDIA driver"]
    if all(n.ok for n in build):
        lines.append('  all there: pip install "gemmviz[cuda]" (or pip install ".[cuda]" in a checkout)')
    return "\n".join(lines)
