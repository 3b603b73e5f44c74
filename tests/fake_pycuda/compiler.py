"""The fake `pycuda.compiler`: `compile` returns a fake cubin naming the source's kernels (no nvcc runs), and
`SourceModule` loads it into the current context. `gpu.compile_hook(source, options)` may raise CompileError."""

from __future__ import annotations

import re

from tests.fake_pycuda import driver

_WORD = re.compile(r"[A-Za-z_]\w*")


def global_functions(source: str) -> list[str]:
    """The names of the `__global__` functions a CUDA source defines (after `void`, launch bounds, cluster
    dimensions and preprocessor lines)."""
    text = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    names = []
    for match in re.finditer(r"\b__global__\b", text):
        pos = match.end()
        while True:
            word = _WORD.search(text, pos)
            if word is None:
                break
            pos = word.end()
            rest = text[pos:].lstrip()
            if word.group() in ("void",) or not rest.startswith("("):
                continue
            if word.group().startswith("__"):  # __launch_bounds__(...), __cluster_dims__(...): skip the parentheses
                depth, i = 0, text.index("(", pos)
                while True:
                    depth += {"(": 1, ")": -1}.get(text[i], 0)
                    i += 1
                    if depth == 0:
                        break
                pos = i
                continue
            names.append(word.group())
            break
    return names


def compile(
    source: str,
    nvcc: str = "nvcc",
    options=None,
    keep=False,
    no_extern_c=False,
    arch=None,
    code=None,
    cache_dir=None,
    include_dirs=(),
    target="cubin",
) -> bytes:
    gpu = driver._gpu()
    gpu.note("compile", arch)
    if gpu.compile_hook is not None:
        gpu.compile_hook(source, list(options or []))
    if not global_functions(source):
        raise driver.CompileError("nvcc: the source defines no __global__ function", stderr="no kernel")
    return driver.fake_cubin(source, options, arch)


class SourceModule(driver.Module):
    def __init__(
        self,
        source: str,
        nvcc: str = "nvcc",
        options=None,
        keep=False,
        no_extern_c=False,
        arch=None,
        code=None,
        cache_dir=None,
        include_dirs=(),
    ):
        module = driver.module_from_buffer(compile(source, nvcc, options, keep, no_extern_c, arch, code, cache_dir))
        super().__init__(module.meta, module._ctx)
