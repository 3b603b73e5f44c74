"""A desktop app's and a CLI's conventions: --version, -v logging, defaults in help, the licence, the icon, the
.desktop entry and its install, Help ▸ About."""

import configparser
import logging
import re
import tomllib
from argparse import SUPPRESS
from pathlib import Path

import pytest

import gemmviz
from gemmviz.cli import desktop
from gemmviz.cli.main import build_parser, main
from gemmviz.core.paths import shipped
from gemmviz.core.session import about

ROOT = Path(__file__).resolve().parents[1]


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out == f"gemmviz {gemmviz.__version__}\n"


def test_pyproject_reads_the_one_version_and_the_current_licence_form():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert "version" in project["dynamic"]
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in license_text


MODEL = ["model", "--mnk", "32x32x32"]


@pytest.mark.parametrize(
    "argv, level",
    [
        (MODEL, logging.WARNING),
        (["-v", *MODEL], logging.INFO),
        (["-vv", *MODEL], logging.DEBUG),
        (["model", "-v", "--mnk", "32x32x32"], logging.INFO),
    ],
)
def test_verbose_sets_the_log_level(capsys, argv, level):
    assert main(argv) == 0
    assert logging.getLogger("gemmviz").level == level
    assert ("gemmviz: debug: gemmviz " in capsys.readouterr().err) is (level == logging.DEBUG)
    main(MODEL)  # back to warnings only, for the tests after this one


def test_a_warning_is_one_line_in_the_cli_style(capsys):
    main(MODEL)
    capsys.readouterr()
    logging.getLogger("gemmviz").warning("kernel cache %s is not a folder", "/x")
    assert capsys.readouterr().err == "gemmviz: warning: kernel cache /x is not a folder\n"


def _options(parser):
    yield parser
    for action in parser._subparsers._group_actions:
        yield from action.choices.values()


def test_every_option_with_a_default_says_it_once():
    for parser in _options(build_parser()):
        formatter = parser._get_formatter()
        for action in parser._actions:
            if not action.help or not action.option_strings or action.default in (None, False, "", SUPPRESS):
                continue
            text = formatter._expand_help(action)
            assert text.count("default") == 1, f"{parser.prog} {action.option_strings[0]}: {text}"
        assert "default: None" not in parser.format_help()


def test_the_icon_is_an_svg_the_desktop_entry_names():
    icon = shipped("assets").joinpath("icons", "gemmviz.svg").read_text()
    assert icon.lstrip().startswith("<?xml") and "<svg" in icon and 'viewBox="0 0 64 64"' in icon
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read_string(shipped("assets").joinpath("desktop", "gemmviz.desktop").read_text())
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application" and section["Icon"] == "gemmviz" and section["Exec"] == "gemmviz"
    assert section["Terminal"] == "false" and section["Categories"].endswith(";")


def test_install_desktop_writes_the_entry_and_icon_for_this_installation(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    assert main(["--install-desktop"]) == 0
    entry = tmp_path / "share" / "applications" / "gemmviz.desktop"
    icon = tmp_path / "share" / "icons" / "hicolor" / "scalable" / "apps" / "gemmviz.svg"
    assert icon.read_bytes() == shipped("assets").joinpath("icons", "gemmviz.svg").read_bytes()
    (exec_line,) = [line for line in entry.read_text().splitlines() if line.startswith("Exec=")]
    assert exec_line == f"Exec={desktop.launch_command()}" and "gemmviz" in exec_line
    assert str(entry) in capsys.readouterr().out


def test_exec_arguments_are_quoted_as_the_desktop_entry_spec_says():
    assert desktop._quoted("/usr/bin/gemmviz") == "/usr/bin/gemmviz"
    assert desktop._quoted("/home/a b/gemmviz") == '"/home/a b/gemmviz"'
    assert desktop._quoted('/x/$y"z') == '"/x/\\$y\\"z"'


def test_about_names_the_seeds_and_every_shipped_source():
    assert [s.key for s in about.SEEDS] == ["seed000", "seed001"]
    seeds = Path("/work/shared/seeds")
    if seeds.is_dir():  # the titles are the posts' own first lines
        firsts = sorted(p.read_text(encoding="utf-8").splitlines()[0].strip() for p in seeds.glob("*.txt"))
        assert firsts == sorted(s.title for s in about.SEEDS)
    sources = about.data_sources()
    assert {s.kind for s in sources} == {"measured", "published", "ceilings"}
    published = [s for s in sources if s.kind == "published"]
    assert published and all(s.seed in ("seed000", "seed001") and s.gpu for s in published)
    assert all(s.gpu and s.date for s in sources if s.kind != "published")
    assert not any(s.file.endswith(".json.gz") for s in sources)  # a recording's companion is not a source


def test_help_about_and_the_window_icon(qtbot, tmp_path):
    pytest.importorskip("PySide6")
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QMessageBox

    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.window import MainWindow
    from tests.fakes import FakeGpuBackend

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        backends={"cpu": CpuBackend(), "cuda": FakeGpuBackend()}, settings=settings, load_recorded_without_gpu=False
    )
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: bool(w.workspace.environment), timeout=10000)
    assert not w.windowIcon().isNull()
    menus = {m.title(): m for m in (a.menu() for a in w.menuBar().actions()) if m is not None}
    assert list(menus)[-1] == "&Help"
    # About is the Help menu's action with Qt's About role (macOS moves it to the application menu); a Help item
    # added beside it (CONTRIBUTING: a window string) leaves this test as it was
    (about_action,) = [act for act in menus["&Help"].actions() if act.menuRole() == QAction.MenuRole.AboutRole]
    about_action.trigger()
    qtbot.waitUntil(lambda: any(isinstance(c, QMessageBox) and c.isVisible() for c in w.findChildren(QMessageBox)))
    (box,) = [c for c in w.findChildren(QMessageBox) if c.isVisible()]
    assert box.textFormat() == Qt.TextFormat.PlainText  # file and GPU names are data, never HTML
    text = box.text()
    assert f"gemmviz {gemmviz.__version__}" in text and "Licence: MIT" in text
    assert (
        all(s.title in text for s in about.SEEDS) and "h200-2026-12-01.json: measured by gemmviz on NVIDIA H200" in text
    )
    assert re.search(r"published-seed000-\w+\.json: the table seed000 published", text)
    box.close()
    w.close()


def test_tests_share_helpers_through_modules_never_through_each_other():
    """A test module imports no other test module (its tests would run, or break, with it): what tests share is in
    a helper module (tests/checks/, tests/fakes.py, tests/fake_ncu.py, tests/legibility.py, ...)."""
    importing = re.compile(r"^\s*(from tests(\.test_\w+)? import|import tests\.test_)(.*)$", re.MULTILINE)
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for m in importing.finditer(path.read_text(encoding="utf-8")):
            if (
                m.group(2)
                or re.search(r"\btest_\w+", m.group(3))
                or m.group(0).lstrip().startswith("import tests.test_")
            ):
                found.append(f"{path.relative_to(ROOT)}: {m.group(0).strip()}")
    assert found == []


def test_code_carries_no_issue_numbers_and_no_dated_measurements():
    """History belongs to git and docs/: a comment or docstring in the package or a kernel says what the code does
    and why, not which issue asked for it ("(issue 25)"), and a comment does not carry the day a figure was
    measured (the figure's file and docs/benchmarks.md do). File names that hold a date are fine."""
    import re

    root = Path(__file__).resolve().parents[1]
    issue = re.compile(r"\b[Ii]ssues? \d+\b")
    dated = re.compile(r"[(,:;] ?20\d\d-[01]\d-[0-3]\d\b|\b20\d\d-[01]\d-[0-3]\d\)")
    found = []
    for path in [*(root / "gemmviz").rglob("*.py"), *(root / "kernels").glob("*.c*")]:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if issue.search(line) and "kernel issues" not in line:
                found.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
            comment = line.partition("//" if path.suffix != ".py" else "#")[2]
            # a date in a comment that is not an example of output ("recorded on NVIDIA H200, 2026-12-02")
            if dated.search(comment) and '"' not in comment and not re.search(r"[\w-]20\d\d-[01]\d", comment):
                found.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    assert found == []


def test_mypy_checks_every_module_and_each_ignore_says_why():
    """mypy covers the whole package (ui and cli too) with no module left unchecked, and a per-line ignore names
    its error code and the reason the checker cannot see."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["files"] == ["gemmviz"]
    unchecked = [o for o in config.get("overrides", []) if o.get("ignore_errors")]
    assert not unchecked, f"modules left unchecked: {unchecked}"
    bare = []
    for path in sorted((ROOT / "gemmviz").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "type: ignore" in line and not re.search(r"# type: ignore\[[a-z-]+(, *[a-z-]+)*\] +# \S", line):
                bare.append(f"{path.relative_to(ROOT)}:{number}")
    assert not bare, f"a `# type: ignore[code]  # reason` each: {bare}"
