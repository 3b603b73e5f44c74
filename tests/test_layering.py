"""Layering rules from docs/guide/design.md, checked over every module: no Qt (or PyCUDA) outside gemmviz.ui, no import
circles at module or function level, core never imports backends/ui/cli, ui never imports the CLI, and core's
feature packages import only the base and the packages below them (CORE_PACKAGES)."""

import ast
import functools
import pathlib
import subprocess
import sys

import gemmviz

ROOT = pathlib.Path(gemmviz.__file__).parent

BLOCK = """
import importlib, pkgutil, sys
BLOCKED = ('PySide6', 'shiboken6', 'pyqtgraph', 'PyQt5', 'PyQt6', 'pycuda')
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in BLOCKED:
            raise ImportError('blocked: ' + name)
sys.meta_path.insert(0, Block())
import gemmviz
names = [m.name for m in pkgutil.walk_packages(gemmviz.__path__, 'gemmviz.') if not m.name.startswith('gemmviz.ui')]
for name in names:
    importlib.import_module(name)
from gemmviz.cli.main import build_parser
parser = build_parser()
for action in parser._subparsers._group_actions:
    for sub in action.choices.values():
        sub.format_help()
from gemmviz.backends import default_backends
print(len(names), default_backends()['cuda'].availability()[0] in (True, False))
"""


def test_every_module_outside_ui_imports_without_qt_or_pycuda():
    proc = subprocess.run([sys.executable, "-c", BLOCK], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    count, available = proc.stdout.split()
    assert int(count) >= 20 and available == "True"


def _modules() -> dict[str, pathlib.Path]:
    mods = {}
    for f in ROOT.rglob("*.py"):
        name = ".".join(("gemmviz", *f.relative_to(ROOT).with_suffix("").parts))
        mods[name.removesuffix(".__init__")] = f
    return mods


@functools.cache  # three tests read it; none changes it
def _graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):  # function-level imports too
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = mod.split(".")
                    keep = len(parts) - node.level + (1 if is_pkg else 0)
                    base = ".".join(parts[:keep] + ([base] if base else []))
                names = [base] + [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for n in names:
                # importing a package's submodule runs the package's __init__ too
                while n and n not in mods:
                    n = n.rpartition(".")[0]
                if n and n != mod and not mod.startswith(n + "."):
                    graph[mod].add(n)
    return graph


def test_no_import_circles():
    graph = _graph()
    circles, state, stack = [], {}, []

    def visit(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                circles.append(" -> ".join(stack[stack.index(v) :] + [v]))
            elif v not in state:
                visit(v)
        stack.pop()
        state[u] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert circles == []


def test_no_circles_between_packages():
    """A package's modules may import another package's only where that package imports nothing back, however
    indirectly: ui/charts -> ui/roofline -> ui/charts was a circle that no two modules closed on their own."""
    graph, mods = _graph(), _modules()

    def package(m: str) -> str:
        return m if mods[m].name == "__init__.py" else m.rpartition(".")[0]

    edges: dict[str, dict[str, str]] = {}
    for u, vs in graph.items():
        for v in vs:
            pu, pv = package(u), package(v)
            if pu != pv and not pu.startswith(pv + ".") and not pv.startswith(pu + "."):
                edges.setdefault(pu, {}).setdefault(pv, f"{u} -> {v}")

    def reaches(a: str, b: str) -> bool:
        seen, todo = set(), [a]
        while todo:
            x = todo.pop()
            if x == b:
                return True
            if x not in seen:
                seen.add(x)
                todo += edges.get(x, {})
        return False

    circles = [
        f"{why} (and {b} leads back to {a})" for a, out in edges.items() for b, why in out.items() if reaches(b, a)
    ]
    assert circles == []


def test_layers_point_down():
    bad = []
    for mod, deps in _graph().items():
        for dep in deps:
            if mod.startswith("gemmviz.core") and dep.startswith(("gemmviz.backends", "gemmviz.ui", "gemmviz.cli")):
                bad.append(f"{mod} -> {dep}")
            if mod.startswith("gemmviz.backends") and dep.startswith(("gemmviz.ui", "gemmviz.cli")):
                bad.append(f"{mod} -> {dep}")
            if mod.startswith("gemmviz.ui") and dep.startswith("gemmviz.cli"):
                bad.append(f"{mod} -> {dep}")
    assert bad == []


# core/'s map (issue 35, item 6): a flat base every package shares, and feature packages (as ui/ is), each of which
# may import the base and the packages named here, and nothing above it: a map without circles, drawn downwards.
CORE_BASE = {
    "catalogue",
    "cuda_needs",
    "export_formats",
    "fileio",
    "glossary",
    "interrupt",
    "messages",
    "numbers",
    "parsing",
    "paths",
    "problem",
    "registry",
    "schema",
    "settings",
    "startup",
    "stored_variants",
    "text",
}
CORE_PACKAGES = {
    "kernels": set(),  # the variants and their models
    "session": {"kernels"},  # results, the session file, the workspace
    "measure": {"kernels", "session"},  # the benchmark protocol
    "hardware": {"kernels", "session"},  # accesses, counters, roofline, microbenchmark, pipeline, gap
    "charts": {"kernels", "session", "measure", "hardware"},  # chart kinds, style, explanations
    "schedule": {"kernels", "hardware"},  # the animation's schedules (and the recorded accesses beside them)
    "exercise": {"kernels", "session", "hardware"},  # exercises, checks, check records, grading
    "lesson": {"kernels", "session", "measure", "hardware", "charts", "schedule"},  # lessons and their views
}


def _core_part(mod: str, mods: dict[str, pathlib.Path]) -> str | None:
    """The part of core a module is in: "base", a package's name, or None outside core (and for core itself)."""
    parts = mod.split(".")
    if parts[:2] != ["gemmviz", "core"] or len(parts) == 2:
        return None
    return parts[2] if len(parts) > 3 or mods[mod].name == "__init__.py" else "base"


def test_core_is_a_base_and_feature_packages_each_saying_what_it_holds():
    """A module new to core goes into its family's package; one for the base is added to CORE_BASE on purpose.
    A package's __init__ is its docstring only: importing one module of a package loads no other."""
    core = ROOT / "core"
    assert {p.stem for p in core.glob("*.py")} - {"__init__"} == CORE_BASE
    assert {p.parent.name for p in core.glob("*/__init__.py")} == set(CORE_PACKAGES)
    for pkg in CORE_PACKAGES:
        tree = ast.parse((core / pkg / "__init__.py").read_text())
        assert ast.get_docstring(tree) and len(tree.body) == 1, pkg
        assert not [d for d in (core / pkg).iterdir() if d.is_dir() and d.name != "__pycache__"], pkg


def test_core_packages_import_only_the_base_and_the_packages_below_them():
    mods = _modules()
    bad = []
    for mod, deps in _graph().items():
        part = _core_part(mod, mods)
        if part is None:
            continue
        allowed = {"base", part} | CORE_PACKAGES.get(part, set())
        bad += [f"{mod} -> {dep}" for dep in deps if _core_part(dep, mods) not in allowed | {None}]
    assert bad == []


def test_size_is_limited_per_function_by_ruff_not_per_file_by_lines():
    """Branches, arguments and statements per function are checked by `ruff check` (CI runs it); the limits
    are in pyproject.toml. Line caps per file invited squeezing lines instead of splitting functions."""
    import tomllib

    lint = tomllib.loads((ROOT.parent / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert {"C901", "PLR0913", "PLR0915"} <= set(lint["select"])
    assert lint["mccabe"]["max-complexity"] <= 15 and lint["pylint"]["max-args"] <= 9
    assert lint["pylint"]["max-statements"] <= 60
    assert not any(key.startswith("gemmviz") for key in lint.get("per-file-ignores", {}))


def test_shipped_data_found_without_walking_up_from_the_package():
    offenders = [
        str(f.relative_to(ROOT))
        for f in ROOT.rglob("*.py")
        if f.name != "paths.py" and ("parent.parent.parent" in f.read_text() or "parents[2]" in f.read_text())
    ]
    assert offenders == []


def test_ui_is_organised_by_feature_and_every_package_ships():
    """ui/ holds the window's shell at its top (the main window itself a package of its parts, window/) and one
    package per feature (charts/, tiling/, lesson/, ...);
    a feature's modules don't go back to the top with a name prefix, and the wheel lists every package."""
    import tomllib

    ui = ROOT / "ui"
    shell = {
        "__init__",
        "about",
        "app",
        "files",
        "follow",  # how a view subscribes to the workspace, for every feature
        "fonts",
        "i18n",
        "keep",  # a tab's choices taken and put back (a language switch), for every feature
        "native_window",
        "recovery",
        "settings_store",
        "status",
        "tabs",  # the registry of the window's tabs, one entry per feature's tab
        "text",
        "theme",
        "worker",  # the one worker-thread helper of runs, checks and exports
    }
    assert {p.stem for p in ui.glob("*.py")} == shell
    packages = {p.parent for p in ROOT.rglob("__init__.py")}
    shipped = set(tomllib.loads((ROOT.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    assert {".".join(("gemmviz",) + p.relative_to(ROOT).parts).rstrip(".") for p in packages} <= shipped
    assert all(
        (ui / pkg / "__init__.py").read_text().startswith('"""')
        for pkg in {p.parent.name for p in ui.glob("*/__init__.py")}
    )


def test_fmt_skip_only_on_real_tables():
    """The formatter's skip marker keeps the columns of a table (an ALL_CAPS constant bound to a literal) lined up; elsewhere
    the formatter lays code out (issue 22: 152, then 521 markers kept hand-squeezed lines out of its reach)."""
    import ast

    offenders = []
    for f in [*ROOT.rglob("*.py"), *(ROOT.parent / "tests").rglob("*.py"), *(ROOT.parent / "benchmarks").rglob("*.py")]:
        src = f.read_text()
        if "fmt: skip" not in src:
            continue
        tables = set()
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
                if (
                    names
                    and all(n.isupper() for n in names)
                    and isinstance(node.value, (ast.Tuple, ast.List, ast.Dict, ast.Set))
                ):
                    tables.update(range(node.lineno, node.end_lineno + 1))
        marker = "# fmt" + ": skip"  # spelled apart: this test's own source is not a marker
        offenders += [
            f"{f.name}:{i}" for i, line in enumerate(src.split("\n"), 1) if marker in line and i not in tables
        ]
    assert offenders == []
