"""The memory-access tracer: build the compute-sanitizer injection library from kernels/access_tracer_*,
run a child process under it, and read back what one launch of one kernel touched in a few blocks.

The tracer is kernels/access_tracer_host.cu (host side, a library preloaded into the child) and
kernels/access_tracer_patches.cu (the device patches, a tools-patch fatbin). Both are built with nvcc against the compute-sanitizer headers that ship with the CUDA toolkit, and cached in
<cache>/tracer/<hash>/ like the cubins (the hash covers the sources, nvcc's version, the sanitizer folder and the
architecture). Build by hand with `python -m gemmviz.backends.accesses build` (it prints the two paths);
`gemmviz profile --accesses` builds on first use.

No Qt, no PyCUDA: the child process owns the GPU; this module only starts it and reads its files.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gemmviz.backends.profile import find_cuda_tool
from gemmviz.core import paths
from gemmviz.core.hardware.accesses import RECORD_DTYPE, AccessError
from gemmviz.core.text import printable

TRACER_SOURCES = ("access_tracer.h", "access_tracer_host.cu", "access_tracer_patches.cu")
SANITIZER_MISSING = (
    "the compute-sanitizer API (compute-sanitizer/include/sanitizer.h and libsanitizer-public.so) was not found: "
    "install the CUDA toolkit's compute-sanitizer, or set CUDA_HOME to the toolkit that has it"
)
DEFAULT_CAP = 262_144  # warp requests: 73 MB of records on the GPU, far above the 2 blocks of a 1024^3 GEMM
STDERR_LINES = 6  # of a failed child's stderr, in the message


@dataclass(frozen=True)
class TracerBuild:
    library: Path  # the injection library (.so)
    patches: Path  # the device patches (.fatbin)
    sanitizer: Path  # the compute-sanitizer folder it was built against


@dataclass
class RawTrace:
    """What the tracer wrote for one launch, before core.hardware.accesses derives anything from it."""

    header: dict
    records: np.ndarray  # RECORD_DTYPE
    sass: dict[int, tuple[str, int | None]] = field(default_factory=dict)  # offset -> (instruction, source line)
    cubin: bytes = b""  # the traced module's code as the driver loaded it


def find_sanitizer() -> Path | None:
    """The compute-sanitizer folder holding include/sanitizer.h and libsanitizer-public.so, or None."""
    roots = [os.environ.get("CUDA_HOME"), "/usr/local/cuda"]
    exe = shutil.which("compute-sanitizer")
    if exe:
        roots.append(str(Path(exe).resolve().parent.parent))
        roots.append(str(Path(exe).resolve().parent))
    for root in filter(None, roots):
        for folder in (Path(root) / "compute-sanitizer", Path(root)):
            if (folder / "include" / "sanitizer.h").is_file() and any(folder.glob("libsanitizer-public.so*")):
                return folder
    return None


def _nvcc_version(nvcc: Path) -> str:
    try:
        out = subprocess.run([str(nvcc), "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.strip().splitlines()[-1] if out.strip() else "unknown"


def _run(cmd: list[str], what: str, timeout_s: float = 300) -> None:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise AccessError(f"building the access tracer: {what} did not finish within {timeout_s:.0f} s") from None
    if proc.returncode != 0:
        log = (proc.stderr or proc.stdout or "").strip().splitlines()[-STDERR_LINES:]
        raise AccessError(f"building the access tracer: {what} failed: " + " | ".join(log))


def build_tracer(arch: str = "sm_90", cache: Path | None = None) -> TracerBuild:
    """The tracer for GPUs of `arch`, from the cache or built now with nvcc. Raises AccessError with one line."""
    sanitizer = find_sanitizer()
    if sanitizer is None:
        raise AccessError(SANITIZER_MISSING)
    nvcc = find_cuda_tool("nvcc")
    if nvcc is None:
        raise AccessError("nvcc not found: the access tracer is built with the CUDA toolkit's nvcc")
    sources = {name: paths.kernel_source(name) for name in TRACER_SOURCES}
    key = hashlib.sha256(
        json.dumps(
            {"sources": sources, "nvcc": _nvcc_version(nvcc), "sanitizer": str(sanitizer), "arch": arch}, sort_keys=True
        ).encode()
    ).hexdigest()[:24]
    if cache is None:
        from gemmviz.backends.kernel_cache import secure_cache_dir

        cache = secure_cache_dir(paths.cache_dir() / "tracer")
    folder = cache / key
    build = TracerBuild(folder / "libgemmviz_access_tracer.so", folder / "access_tracer_patches.fatbin", sanitizer)
    if build.library.is_file() and build.patches.is_file():
        return build
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    with tempfile.TemporaryDirectory(prefix="gemmviz-tracer-", dir=folder) as tmp:
        for name, text in sources.items():
            (Path(tmp) / name).write_text(text, encoding="utf-8")
        include = ["-I", str(sanitizer / "include"), "-I", tmp]
        lib, fatbin = Path(tmp) / build.library.name, Path(tmp) / build.patches.name
        # -x c++: host code only (no fat binary to register, so the library needs no CUDA runtime)
        _run(
            [
                str(nvcc),
                "-x",
                "c++",
                "-shared",
                "-Xcompiler",
                "-fPIC",
                "-cudart",
                "none",
                "-std=c++17",
                *include,
                "-o",
                str(lib),
                str(Path(tmp) / "access_tracer_host.cu"),
                "-L",
                str(sanitizer),
                "-lsanitizer-public",
                "-Xlinker",
                f"-rpath={sanitizer}",
            ],
            "the injection library",
        )
        _run(
            [
                str(nvcc),
                "--fatbin",
                "--compile-as-tools-patch",
                f"-arch={arch}",
                *include,
                "-o",
                str(fatbin),
                str(Path(tmp) / "access_tracer_patches.cu"),
            ],
            "the device patches",
        )
        os.replace(fatbin, build.patches)
        os.replace(lib, build.library)
    return build


def tracer_env(
    build: TracerBuild, out_prefix: Path, kernel: str, blocks: str = "auto", cap: int = DEFAULT_CAP, launch: int = 0
) -> dict[str, str]:
    """The child's environment: the injection library and what it should record."""
    if not re.fullmatch(r"auto|\d+,\d+(,\d+)?(;\d+,\d+(,\d+)?)*", blocks):
        raise AccessError(f"blocks {blocks!r}: give 'auto' or 'x,y[,z];x,y[,z]'")
    preload = " ".join(filter(None, [str(build.library), os.environ.get("LD_PRELOAD", "")]))
    return {
        "LD_PRELOAD": preload,  # loaded before CUDA starts, as NVIDIA's samples load theirs; it drops itself after
        "GEMMVIZ_ACCESS_PATCHES": str(build.patches),
        "GEMMVIZ_ACCESS_OUT": str(out_prefix),
        "GEMMVIZ_ACCESS_KERNEL": kernel,
        "GEMMVIZ_ACCESS_BLOCKS": blocks,
        "GEMMVIZ_ACCESS_CAP": str(int(cap)),
        "GEMMVIZ_ACCESS_LAUNCH": str(int(launch)),
        "CUDA_MODULE_LOADING": "EAGER",  # every function patched when its module loads
    }


def _child_failure(proc: subprocess.CompletedProcess | None, header: dict | None, timeout_s: float) -> str:
    if proc is None:
        return f"the traced child did not finish within {timeout_s:.0f} s"
    tail = " | ".join((proc.stderr or "").strip().splitlines()[-STDERR_LINES:])
    if proc.returncode < 0:
        return f"the traced child crashed (signal {-proc.returncode}){': ' + tail if tail else ''}"
    if header is None:
        return (
            "the tracer did not attach: the child wrote no record file (was the library preloaded, and no other "
            f"sanitizer tool attached?); exit status {proc.returncode}{': ' + tail if tail else ''}"
        )
    errors = "; ".join(header.get("errors") or []) or "no reason given"
    return f"the tracer recorded nothing: {errors}"


def run_traced(
    argv: Sequence[str],
    kernel: str,
    build: TracerBuild,
    blocks: str = "auto",
    cap: int = DEFAULT_CAP,
    launch: int = 0,
    timeout_s: float = 600,
    lines: tuple[str, Sequence[str], str] | None = None,
) -> RawTrace:
    """Run `argv` (a child `python -m gemmviz bench ...`) under the tracer; the raw trace of its launch `launch` of
    `kernel`. `lines`: (source, nvcc options, arch) of the kernel, rebuilt with -lineinfo to map PCs to source
    lines. Raises AccessError with one line: the child crashed, timed out, the tracer did not attach, or it
    recorded nothing (the kernel never launched, the patches did not load)."""
    with tempfile.TemporaryDirectory(prefix="gemmviz-access-") as tmp:
        prefix = Path(tmp) / "trace"
        env = {**os.environ, **tracer_env(build, prefix, kernel, blocks, cap, launch)}
        try:
            proc = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout_s, env=env)
        except subprocess.TimeoutExpired:
            proc = None
        header = _header(prefix)
        if proc is None or header is None or not header.get("recorded") or proc.returncode < 0:
            raise AccessError(_child_failure(proc, header, timeout_s))
        with_lines = lineinfo_cubin(*lines, Path(tmp)) if lines and prefix.with_suffix(".cubin").is_file() else None
        raw = read_trace(prefix, kernel, with_lines)
        _keep(Path(tmp), kernel)
        return raw


def _header(prefix: Path) -> dict | None:
    try:
        return json.loads(prefix.with_suffix(".json").read_text(encoding="utf-8"))
    except (ValueError, OSError):
        return None


def read_trace(prefix: Path, kernel: str, lines_cubin: Path | None = None) -> RawTrace:
    """What the tracer wrote at `prefix` (the GEMMVIZ_ACCESS_OUT of tracer_env) after any child ran under it.

    This is how another check traces a kernel of its own (a student's, in the exercise check): run its child
    with `tracer_env(build, prefix, kernel)` added to the child's environment, then `read_trace(prefix, kernel,
    cubin)`, the cubin built with -lineinfo (the same code, so it maps PCs to the student's source lines), then
    core.hardware.accesses.from_raw. Raises AccessError when the tracer recorded nothing (no file: it did not attach)."""
    header = _header(prefix)
    if header is None:
        raise AccessError("the tracer did not attach: the child wrote no record file")
    if not header.get("recorded"):
        raise AccessError(f"the tracer recorded nothing: {'; '.join(header.get('errors') or []) or 'no reason given'}")
    if int(header.get("record_bytes", 0)) != RECORD_DTYPE.itemsize:
        raise AccessError(
            f"tracer records are {header.get('record_bytes')} bytes, gemmviz reads "
            f"{RECORD_DTYPE.itemsize}: rebuild the tracer"
        )
    data = prefix.with_suffix(".bin").read_bytes() if prefix.with_suffix(".bin").is_file() else b""
    records = np.frombuffer(data[: len(data) - len(data) % RECORD_DTYPE.itemsize], dtype=RECORD_DTYPE).copy()
    cubin = prefix.with_suffix(".cubin")
    sass: dict[int, tuple[str, int | None]] = {}
    if cubin.is_file():
        sass = disassemble(cubin, header.get("kernel_seen") or kernel, lines_cubin)
    return RawTrace(header, records, sass, cubin.read_bytes() if cubin.is_file() else b"")


def _keep(folder: Path, kernel: str) -> None:
    """With GEMMVIZ_ACCESS_KEEP set, a copy of the tracer's files and their disassembly (for tests and bugs)."""
    keep = os.environ.get("GEMMVIZ_ACCESS_KEEP")
    if not keep:
        return
    n = 0
    while (Path(keep) / f"{kernel}-{n}").exists():
        n += 1
    target = Path(keep) / f"{kernel}-{n}"
    shutil.copytree(folder, target)
    nvdisasm = find_cuda_tool("nvdisasm")
    for cubin in target.glob("*.cubin") if nvdisasm else ():
        flags = ["-c", "-g"] if "lineinfo" in cubin.name else ["-c"]
        text = subprocess.run([str(nvdisasm), *flags, str(cubin)], capture_output=True, text=True, timeout=120).stdout
        cubin.with_suffix(".sass").write_text(text, encoding="utf-8")


# ------------------------------------------------------------------------------------------- SASS and lines

_INSTRUCTION = re.compile(r"/\*([0-9a-fA-F]{4,})\*/\s+(.*?)\s*;")
_LINE = re.compile(r'//## File "(.*?)", line (\d+)')
_FUNCTION = re.compile(r"^\s*\.text\.([A-Za-z_$][\w$]*):|\.section\s+\.text\.([A-Za-z_$][\w$]*)")


def parse_nvdisasm(text: str) -> dict[str, dict[int, tuple[str, int | None]]]:
    """{function: {offset: (instruction, source line or None)}} from `nvdisasm -c [-g]` output. The first line
    annotation of each run of instructions (`//## File "...", line N`) applies until the next."""
    out: dict[str, dict[int, tuple[str, int | None]]] = {}
    current, line = "", None
    for raw in text.splitlines():
        if m := _FUNCTION.search(raw):
            current, line = m.group(1) or m.group(2), None
            continue
        if m := _LINE.search(raw):
            if "inlined at" not in raw:
                line = int(m.group(2))
            continue
        if m := _INSTRUCTION.search(raw):
            instruction = re.sub(r"^@!?U?P\w+\s+", "", m.group(2)).split()
            out.setdefault(current, {})[int(m.group(1), 16)] = (instruction[0] if instruction else "?", line)
    return out


def disassemble(cubin: Path, function: str, lineinfo_cubin: Path | None = None) -> dict[int, tuple[str, int | None]]:
    """{offset: (opcode, line)} of `function` in `cubin`; lines from `lineinfo_cubin` (the same source built with
    -lineinfo) where its instructions are the same, else None. {} without nvdisasm."""
    nvdisasm = find_cuda_tool("nvdisasm")
    if nvdisasm is None:
        return {}
    try:
        text = subprocess.run([str(nvdisasm), "-c", str(cubin)], capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    functions = parse_nvdisasm(text)
    code = functions.get(function) or (next(iter(functions.values())) if len(functions) == 1 else {})
    if lineinfo_cubin is None:
        return code
    try:
        text = subprocess.run(
            [str(nvdisasm), "-c", "-g", str(lineinfo_cubin)], capture_output=True, text=True, timeout=120
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return code
    with_lines = parse_nvdisasm(text).get(function, {})
    if [op for op, _ in with_lines.values()] != [op for op, _ in code.values()]:
        return code  # a -lineinfo build that differs: no lines rather than wrong ones
    return {offset: (op, with_lines[offset][1]) for offset, (op, _) in code.items()}


def lineinfo_cubin(source: str, options: Sequence[str], arch: str, folder: Path) -> Path | None:
    """The kernel's source built again with -lineinfo (the same options otherwise), for PC -> source line."""
    nvcc = find_cuda_tool("nvcc")
    if nvcc is None:
        return None
    src, out = folder / "kernel.cu", folder / "kernel-lineinfo.cubin"
    src.write_text(source, encoding="utf-8")
    try:
        proc = subprocess.run(
            [str(nvcc), "--cubin", f"-arch={arch}", *options, "-lineinfo", "-o", str(out), str(src)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out if proc.returncode == 0 and out.is_file() else None


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m gemmviz.backends.accesses build [--arch sm_90]`: build (or find) the tracer, print its paths."""
    parser = argparse.ArgumentParser(prog="python -m gemmviz.backends.accesses")
    parser.add_argument("command", choices=("build",))
    parser.add_argument("--arch", default="sm_90", help="the GPU architecture to build for (default %(default)s)")
    arch = parser.parse_args(argv).arch
    if not re.fullmatch(r"sm_[0-9]{2,3}[a-z]?", arch):
        print(f"gemmviz: error: --arch {printable(arch)}: give an architecture such as sm_90", file=sys.stderr)
        return 2
    try:
        build = build_tracer(arch)
    except AccessError as exc:
        print(f"gemmviz: {exc}", file=sys.stderr)
        return 1
    print(f"library {build.library}\npatches {build.patches}\nsanitizer {build.sanitizer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
