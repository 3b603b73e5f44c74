"""The on-disk kernel cache: cubins keyed by a sha256 of everything that decides them (source, nvcc options,
architecture, GPU, nvcc / driver / PyCUDA versions), each file holding its own content hash, checked on load.

Files are created exclusively (mkstemp, then a rename) in a folder only the user can write; a symlink is never
followed, and a folder another user could write to is refused (kernels are then compiled every time).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import stat
import subprocess
import tempfile
from pathlib import Path

from gemmviz.backends.profile import instrument_source
from gemmviz.core import paths
from gemmviz.core.kernels.variants import Variant

log = logging.getLogger("gemmviz")


def kernel_cache_dir() -> Path:
    return paths.cache_dir() / "kernels"


CACHE_MAGIC = b"gemmviz-cubin-1\n"  # then the cubin's sha256 in hex, a newline, and the cubin
_cache_warned: set[str] = set()
_toolchain: dict | None = None


class CacheRefused(OSError):
    """The kernel cache folder is not safe to use; the message says why. Kernels are compiled every time."""

    exit_status: int  # set to 2 (the CLI's usage error) where GEMMVIZ_CACHE_DIR holds a bad value


def toolchain_id() -> dict:
    """What else decides a cubin besides source and options: nvcc's version, the driver's, PyCUDA's."""
    global _toolchain
    if _toolchain is None:
        import pycuda
        import pycuda.driver as cuda

        try:
            nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            nvcc = "unknown"
        _toolchain = {
            "nvcc": nvcc.splitlines()[-1] if nvcc else "unknown",
            "driver": cuda.get_driver_version(),
            "pycuda": pycuda.VERSION_TEXT,
        }
    return _toolchain


def cache_key(source: str, options: list[str], arch: str, toolchain: dict) -> str:
    text = json.dumps({"source": source, "options": options, "arch": arch, "toolchain": toolchain}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _unusable(folder: Path, exc: OSError) -> CacheRefused:
    """The cache folder cannot be made: the message names the cache and GEMMVIZ_CACHE_DIR where that set it
    (then a bad value, exit 2 in the CLI), never a bare '[Errno 20] .../kernels'."""
    blocker = next((p for p in [folder, *folder.parents] if p.exists() and not p.is_dir()), None)
    why = f"{blocker} is a file, not a folder" if blocker is not None else exc.strerror or str(exc)
    value = os.environ.get("GEMMVIZ_CACHE_DIR")
    if value:
        refused = CacheRefused(
            f"GEMMVIZ_CACHE_DIR={value!r}: the cache folder {folder} cannot be made ({why}); "
            "set GEMMVIZ_CACHE_DIR to a folder you can write, or unset it"
        )
        refused.exit_status = 2
        return refused
    return CacheRefused(
        f"the cache folder {folder} cannot be made ({why}); set GEMMVIZ_CACHE_DIR to a folder you can write"
    )


def secure_cache_dir(folder: Path) -> Path:
    """The kernel cache folder, made 0700 if missing. Raises CacheRefused if it is a symlink, not a folder,
    owned by someone else, or writable by group or others (another user could plant a cubin there)."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
    except OSError as exc:
        raise _unusable(folder, exc) from None
    st = os.lstat(folder)
    if stat.S_ISLNK(st.st_mode):
        raise CacheRefused(f"kernel cache {folder} is a symbolic link; remove it (kernels are compiled every time)")
    if not stat.S_ISDIR(st.st_mode):
        raise CacheRefused(f"kernel cache {folder} is not a folder; remove it (kernels are compiled every time)")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise CacheRefused(f"kernel cache {folder} belongs to another user; remove it or set GEMMVIZ_CACHE_DIR")
    if st.st_mode & 0o022:
        raise CacheRefused(
            f"kernel cache {folder} is writable by other users (mode {stat.S_IMODE(st.st_mode):o}); "
            f"run `chmod 700 {folder}` (kernels are compiled every time until then)"
        )
    return folder


def read_cached(path: Path) -> bytes | None:
    """The cubin in `path` if it is a regular file of ours whose stored sha256 matches its content; else None.
    Never follows a symlink (O_NOFOLLOW)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError:  # missing, or a symlink (ELOOP)
        return None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            return None
        data = f.read()
    if not data.startswith(CACHE_MAGIC):
        return None
    digest, _, cubin = data[len(CACHE_MAGIC) :].partition(b"\n")
    if hashlib.sha256(cubin).hexdigest().encode() != digest:
        return None
    return cubin


def write_cached(path: Path, cubin: bytes) -> None:
    """A new file created exclusively (mkstemp: O_CREAT|O_EXCL, 0600) in the cache folder, then renamed over
    `path` (a rename replaces a symlink there, never writes through it)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".cubin")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(CACHE_MAGIC + hashlib.sha256(cubin).hexdigest().encode() + b"\n" + cubin)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _cache_folder() -> Path | None:
    try:
        return secure_cache_dir(kernel_cache_dir())
    except OSError as exc:
        message = str(exc) if isinstance(exc, CacheRefused) else f"kernel cache unusable: {exc}"
        if message not in _cache_warned:
            _cache_warned.add(message)
            log.warning("%s", message)
        return None


def nvcc(source: str, options: list[str], arch: str, name: str | None) -> bytes:
    """nvcc through PyCUDA (no cache of its own); a compile error is a RuntimeError holding nvcc's log."""
    from pycuda.compiler import compile as nvcc_compile
    from pycuda.driver import CompileError

    try:
        return nvcc_compile(source, options=options, arch=arch, no_extern_c=True, cache_dir=False)
    except CompileError as exc:
        log_text = (getattr(exc, "stderr", "") or str(exc)).strip()
        raise RuntimeError(f"nvcc failed to compile {name}:\n{log_text}") from None


def compile_cubin(
    variant: Variant, params: dict, config: dict | None, arch: str, gpu: str, loaded=(), traced: bool = False
) -> tuple[str, bytes | None, bool]:
    """Compile (or read from the disk cache) the variant's cubin: (key, cubin, came-from-cache).
    `traced`: the block-trace build (kernels/trace.cuh), cached under its own key.

    Thread-safe and context-free, so a tuning run can compile many configurations in parallel."""
    source = variant.source_text()
    if traced:
        if variant.kernel_name is None:
            raise ValueError(f"{variant.name} names no kernel to trace")
        source = instrument_source(source, variant.kernel_name)
    options = ["-O3", *variant.macro_options(params, config)]
    key = cache_key(source, options, arch, {**toolchain_id(), "gpu": gpu})
    if key in loaded:
        return key, None, True
    tag = "-".join(f"{k}{v}" for k, v in sorted({**params, **(config or {})}.items())) or "default"
    folder = _cache_folder()
    path = folder / f"{variant.name}-{tag}{'-trace' if traced else ''}-{key[:32]}.cubin" if folder else None
    if path is not None:
        cubin = read_cached(path)
        if cubin is not None:
            return key, cubin, True
    cubin = nvcc(source, options, arch, variant.source)
    if path is not None:
        try:
            write_cached(path, cubin)
        except OSError:
            pass  # an unwritable cache only costs a compile next time
    return key, cubin, False
