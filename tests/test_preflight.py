"""A fresh Linux machine: the preflight names the Debian package of every system library Qt loads, and
`gemmviz info` says what building PyCUDA needs (core/startup.py, core/cuda_needs.py)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gemmviz.cli.main import main
from gemmviz.core import cuda_needs, startup

EVERY_LINUX = {
    "ld-linux-x86-64.so.2",
    "libc.so.6",
    "libm.so.6",
    "libstdc++.so.6",
    "libgcc_s.so.1",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
}


def missing(*sonames):
    return lambda name: name not in sonames


def test_qt_import_libraries_are_named_with_their_packages():
    line = startup.qt_problem(missing("libfontconfig.so.1", "libdbus-1.so.3", "libxkbcommon.so.0"), "linux")
    assert "\n" not in line and line.endswith("sudo apt install libfontconfig1 libxkbcommon0 libdbus-1-3")
    assert startup.qt_problem(missing(), "linux") is None and startup.qt_problem(missing("libz.so.1"), "win32") is None


def test_glib_is_named_whatever_the_platform_plugin():
    for env in ({"QT_QPA_PLATFORM": "offscreen"}, {"WAYLAND_DISPLAY": "wayland-0"}, {"DISPLAY": ":0"}):
        line = startup.window_problem(env, "linux", reachable=lambda d: True, loads=missing("libglib-2.0.so.0"))
        assert "sudo apt install libglib2.0-0" in line, env


def test_the_x11_plugins_libraries_are_named_with_their_packages():
    line = startup.window_problem(
        {"DISPLAY": ":0"}, "linux", reachable=lambda d: True, loads=missing("libxcb-shape.so.0", "libxcb-util.so.1")
    )
    assert "sudo apt install libxcb-shape0 libxcb-util1  (all of them: " in line
    assert all(p in startup.ALL_PACKAGES.split() for p in ("libglib2.0-0", "libxcb-shape0", "libfontconfig1"))


def _needed(path: Path) -> list[str]:
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, timeout=30).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("readelf") is None,
    reason="reads PySide6's ELF files with readelf (Linux, binutils)",
)
def test_the_lists_hold_every_system_library_pyside6_loads():
    """Followed through the Qt libraries the wheel bundles: what QtCore/QtGui/QtWidgets and the xcb plugin (and its
    GLX integration) need from the system is all in the preflight, so a new PySide6 cannot add one unnoticed."""
    pyside = Path(pytest.importorskip("PySide6").__file__).parent
    wheels = [pyside / "Qt" / "lib", pyside, pyside.parent / "shiboken6"]  # what the pip wheels bring along
    bundled = {p.name: p for folder in wheels for p in folder.glob("*.so*")}
    plugins = pyside / "Qt" / "plugins"
    todo = [pyside / f"Qt{m}.abi3.so" for m in ("Core", "Gui", "Widgets")]
    todo += [plugins / "platforms" / "libqxcb.so", *(plugins / "xcbglintegrations").glob("*.so")]
    seen, system = set(), set()
    while todo:
        path = todo.pop()
        if path in seen or not path.exists():
            continue
        seen.add(path)
        for name in _needed(path):
            if name in bundled:
                todo.append(bundled[name])
            else:
                system.add(name)
    listed = {lib.soname for lib in startup.WINDOW_LIBRARIES}
    assert system - EVERY_LINUX - listed == set()


@pytest.mark.skipif(shutil.which("dpkg") is None, reason="checks the package names with dpkg -S (Debian)")
def test_the_package_names_are_debians():
    """One dpkg -S for every library (each run reads dpkg's whole database: one per library took 5 s); its lines,
    `package[:arch]: /path/soname`, are given back to their libraries by the path's last part."""
    libraries = startup.WINDOW_LIBRARIES
    proc = subprocess.run(
        ["dpkg", "-S", *(f"*/{lib.soname}" for lib in libraries)], capture_output=True, text=True, timeout=60
    )  # exits 1 when some library is not installed here: those have no line
    found: dict[str, set[str]] = {}
    for line in proc.stdout.splitlines():
        owner, _, path = line.rpartition(": ")
        found.setdefault(path.rsplit("/", 1)[-1], set()).add(owner.split(":", 1)[0])
    for lib in libraries:
        packages = found.get(lib.soname)
        if not packages:  # not installed here: nothing to compare
            continue
        assert lib.package in packages or f"{lib.package}t64" in packages, (lib, packages)


def test_a_qt_import_error_names_the_packages(monkeypatch, capsys):
    monkeypatch.setattr(startup, "library_loads", missing("libglib-2.0.so.0", "libgthread-2.0.so.0"))
    monkeypatch.setattr(startup.sys, "platform", "linux")
    from gemmviz.cli import model

    def fail(_args):
        raise ImportError("PyQtGraph requires one of PyQt5, PyQt6, PySide2 or PySide6; none of these could be imported")

    monkeypatch.setattr(model, "cmd_model", fail)
    assert main(["model", "--mnk", "8x8x8"]) == 1
    err = capsys.readouterr().err
    assert err.strip().endswith("sudo apt install libglib2.0-0") and "a bug in gemmviz" not in err


def fake_fs(*files):
    return lambda path: os.path.normpath(path) in {os.path.normpath(f) for f in files}


TOOLKIT = ("/usr/local/cuda/bin/nvcc", "/usr/local/cuda/include/cuda.h")


@pytest.mark.parametrize(
    "nvcc, files, env, ok, words",
    [
        ("/usr/local/cuda/bin/nvcc", TOOLKIT, {}, True, "headers in /usr/local/cuda/include"),
        # a wrapper script on PATH: PyCUDA looks for /usr/local/include/cuda.h (the build's 'cuda.h: No such file')
        ("/usr/local/bin/nvcc", TOOLKIT, {}, False, "export PATH=/usr/local/cuda/bin:$PATH"),
        (None, TOOLKIT, {}, False, "installed in /usr/local/cuda but nvcc is not on PATH"),
        (
            None,
            ("/opt/cuda-13/bin/nvcc", "/opt/cuda-13/include/cuda.h"),
            {"CUDA_HOME": "/opt/cuda-13"},
            False,
            "export PATH=/opt/cuda-13/bin:$PATH",
        ),
        (None, (), {}, False, "install NVIDIA's CUDA toolkit"),
    ],
)
def test_what_building_pycuda_needs(nvcc, files, env, ok, words):
    need = cuda_needs.toolkit_need(env, lambda name: nvcc if name == "nvcc" else None, fake_fs(*files))
    assert need.ok is ok and words in need.how


def test_the_other_needs_say_what_to_install():
    needs = cuda_needs.pycuda_build_needs(
        {}, which=lambda name: None, exists=lambda p: False, driver_loads=lambda: False
    )
    text = cuda_needs.pycuda_missing_text(needs)
    assert "sudo apt install g++" in text and "-dev" in text and "nvidia-driver" in text and "all there" not in text
    ok = cuda_needs.pycuda_build_needs(
        {}, which=lambda name: f"/usr/local/cuda/bin/{name}", exists=lambda p: True, driver_loads=lambda: True
    )
    assert all(n.ok for n in ok) and "all there" in cuda_needs.pycuda_missing_text(ok)


def test_info_says_what_pycuda_needs_where_it_is_missing(capsys):
    from gemmviz.backends.cuda_probe import cuda_status

    if not cuda_status()[1].startswith("PyCUDA is not installed"):
        pytest.skip("PyCUDA is installed here")
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert 'What `pip install "gemmviz[cuda]"`' in out and "CUDA toolkit:" in out and "C++ compiler:" in out


def test_the_readme_lists_every_package_the_preflight_knows():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    apt = " ".join(line for line in readme.replace("\\\n", " ").splitlines() if "apt-get install" in line)
    essential = {"zlib1g", "libzstd1"}  # Priority: required, on every Debian system
    assert {lib.package for lib in startup.WINDOW_LIBRARIES} - essential - set(apt.split()) == set()
