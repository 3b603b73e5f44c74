"""The kernel's PTX for the emulator: nvcc -ptx -lineinfo where the CUDA toolkit is installed, else NVRTC from
PyPI; neither needs a GPU or a driver."""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

NVCC_LIMIT_S = 120


@dataclass
class PtxBuild:
    ok: bool
    ptx: str
    log: str
    command: str
    error: str | None = None
    arch: str = "sm_90"


def compile_ptx(
    source_path: Path,
    defines: list[str],
    folder: Path,
    arch: str = "sm_90",
    nvcc: str | None = None,
    debug: bool = False,
    nvrtc: bool = False,
    include_dir: Path | None = None,
):
    """The kernel's PTX with line info and the compiler's messages: `nvcc -ptx -lineinfo -O3` where the CUDA
    toolkit is installed (and `nvrtc` is not asked for), else NVRTC from PyPI (pip install "gemmviz[emulate]").
    Neither needs a GPU or a driver. `debug`: -G instead (no optimisation: a value read before it is set is
    still read, where -O3 folds it to 0). `include_dir`: the one folder its #includes may come from (a hand-in's
    own). This runs the compiler in this process's limits: a hand-in's check calls it only in its emulate child
    (backends/sandbox.py)."""
    from gemmviz.backends.profile import find_cuda_tool

    source_path = Path(source_path).resolve()
    exe = None if nvrtc else nvcc or find_cuda_tool("nvcc")
    if exe is None:
        return compile_nvrtc(source_path, defines, arch, debug, include_dir)
    out = folder / f"{source_path.stem}{'.debug' if debug else ''}.ptx"
    level = ["-G"] if debug else ["-lineinfo", "-O3"]
    includes = [f"-I{include_dir}"] if include_dir else []
    argv = [str(exe), "-ptx", *level, f"-arch={arch}", *defines, *includes, "-o", str(out), str(source_path)]
    # its own process group, killed whole on a time-out or a signal: nvcc's cicc and ptxas end with it
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        cwd=folder,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=NVCC_LIMIT_S)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return PtxBuild(False, "", "", " ".join(argv), f"nvcc ran over {NVCC_LIMIT_S} s")
    except BaseException:
        _kill_group(proc)
        raise
    ok = proc.returncode == 0 and out.is_file()
    text = out.read_text(encoding="utf-8", errors="replace") if ok else ""
    return PtxBuild(ok, text, (stdout + stderr).strip(), " ".join(["nvcc", *argv[1:]]), arch=arch)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()


# Host headers a kernel file includes that NVRTC has no copy of: empty (printf is built in).
NVRTC_EMPTY_HEADERS = ("cstdio", "stdio.h", "cstdlib", "stdlib.h", "cuda_runtime.h", "cuda.h")


def compile_nvrtc(
    source_path: Path, defines: list[str], arch: str = "sm_90", debug: bool = False, include_dir: Path | None = None
) -> PtxBuild:
    """NVRTC (the nvidia-cuda-nvrtc and cuda-bindings wheels): the PTX, and messages in nvcc's form. NVRTC
    compiles in the calling process: a hand-in's check calls this only in its child (backends/emulate_child.py),
    under the sandbox's limits."""
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        why = 'neither nvcc nor NVRTC found: install the CUDA toolkit, or pip install "gemmviz[emulate]"'
        return PtxBuild(False, "", "", "", why)
    source = source_path.read_bytes()
    names = [h.encode() for h in NVRTC_EMPTY_HEADERS]
    err, prog = nvrtc.nvrtcCreateProgram(source, source_path.name.encode(), len(names), [b""] * len(names), names)
    options = [b"-G" if debug else b"-lineinfo", f"--gpu-architecture=compute_{arch.removeprefix('sm_')}".encode()]
    options += [d.encode() for d in defines]
    if include_dir is not None:
        options.append(f"--include-path={include_dir}".encode())
    try:
        (result,) = nvrtc.nvrtcCompileProgram(prog, len(options), options)
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        ptx = ""
        if result == nvrtc.nvrtcResult.NVRTC_SUCCESS:
            _, size = nvrtc.nvrtcGetPTXSize(prog)
            raw = b" " * size
            nvrtc.nvrtcGetPTX(prog, raw)
            ptx = raw.rstrip(b"\0").decode("utf-8", "replace")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    text = log.rstrip(b"\0").decode("utf-8", "replace").strip()
    command = " ".join(["nvrtc", *(o.decode() for o in options), source_path.name])
    return PtxBuild(bool(ptx), ptx, text, command, arch=f"compute_{arch.removeprefix('sm_')}")
