"""Bad input as a new user would give it: session files, the CLI, settings files, lesson files and the app.
Each case asserts the one-line message (what and where) and that nothing already there was lost."""

import copy
import json
import logging
import os

import pytest

from gemmviz.cli.main import main
from gemmviz.core import settings
from gemmviz.core.lesson.lessons import LessonError, parse_lesson
from gemmviz.core.session.results import MAX_SESSION_BYTES, Result, Session, SessionError
from gemmviz.core.session.workspace import Workspace, default_replay_session

GOOD_RESULT = {
    "variant": "gpu-tiled", "params": {"tile": 16}, "m": 64, "n": 64, "k": 64, "backend": "cuda",
    "precision": "fp32", "valid": True, "status": "ok", "samples_ms": [1.0, 1.5], "warmup": 1, "repeats": 2,
}  # fmt: skip
GOOD = {"schema": "gemmviz.session", "schema_version": 2, "kind": "measured", "label": "", "created": "",
        "environment": {}, "settings": {}, "results": [GOOD_RESULT, {**GOOD_RESULT, "m": 128}]}  # fmt: skip


def _with(path: str, value):
    """GOOD with the field at `path` ("results.1.samples_ms") set to `value` (or removed for DELETE)."""
    d = copy.deepcopy(GOOD)
    *parents, last = path.split(".")
    node = d
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node[p]
    key = int(last) if isinstance(node, list) else last
    if value is DELETE:
        del node[key]
    else:
        node[key] = value
    return d


DELETE = object()
NAN = object()  # written as a bare NaN token, which json.loads accepts unless told not to

SESSION_CASES = [
    ("results.1.m", "abc", r'results\[1\]\.m: not a whole number \("abc"\)'),
    ("results.1.m", -5, r"results\[1\]\.m: -5 is out of range"),
    ("results.1.n", 0, r"results\[1\]\.n: 0 is out of range"),
    ("results.1.k", 1.5, r"results\[1\]\.k: not a whole number \(1.5\)"),
    ("results.1.m", True, r"results\[1\]\.m: not a whole number \(true\)"),
    ("results.1.m", None, r"results\[1\]\.m: not a whole number \(null\)"),
    ("results.1.k", 2**30, r"results\[1\]\.k: 1073741824 is out of range"),
    ("results.1.samples_ms", "fast", r"results\[1\]\.samples_ms: not a list \(\"fast\"\)"),
    ("results.1.samples_ms", [1.0, "fast"], r'results\[1\]\.samples_ms\[1\]: not a number \("fast"\)'),
    ("results.1.samples_ms", [-1.0], r"results\[1\]\.samples_ms\[0\]: -1 ms is not a time above 1 ns"),
    ("results.1.samples_ms", [0], r"results\[1\]\.samples_ms\[0\]: 0 ms is not a time above 1 ns"),
    ("results.1.samples_ms", [True], r"results\[1\]\.samples_ms\[0\]: not a number \(true\)"),
    ("results.1.samples_ms", [1.0] * 100_001, r"results\[1\]\.samples_ms: 100001 entries, over"),
    ("results.0.params", [], r"results\[0\]\.params: not an object \(a list\)"),
    ("results.0.params", {"tile": "16"}, r'results\[0\]\.params\.tile: not a whole number \("16"\)'),
    ("results.0.params", {"tile": True}, r"results\[0\]\.params\.tile: not a whole number \(true\)"),
    ("results.0.params", {"tile": 0}, r"results\[0\]\.params\.tile: 0 is below 1"),
    ("results.0.params", {"warp": 2}, r"results\[0\]\.params\.warp: not a parameter of gpu-tiled \(it has: tile\)"),
    ("results.0.config", {"BM": -1}, r"results\[0\]\.config\.BM: -1 is below 0"),
    ("results.0.variant", "<img src=/etc/passwd>", r"results\[0\]\.variant: unknown kernel variant"),
    ("results.0.variant", 5, r"results\[0\]\.variant: not a string \(5\)"),
    ("results.0.backend", "opencl", r"results\[0\]\.backend: unknown backend"),
    ("results.0.status", "great", r'results\[0\]\.status: unknown status "great"'),
    ("results.0.valid", "yes", r'results\[0\]\.valid: not true or false \("yes"\)'),
    ("results.0.status", "failed", r"results\[0\]\.valid: true does not match status 'failed'"),
    ("results.0.error", 5, r"results\[0\]\.error: not a string \(5\)"),
    ("results.0.note", ["x"], r"results\[0\]\.note: not a string \(a list\)"),
    ("results.0.rel_error", -1, r"results\[0\]\.rel_error: -1 must be at least 0"),
    ("results.0.warmup", -1, r"results\[0\]\.warmup: -1 is out of range \(0\.\.100000\)"),
    ("results.0.repeats", "20", r'results\[0\]\.repeats: not a whole number \("20"\)'),
    ("results.0.cold_l2", 1, r"results\[0\]\.cold_l2: not true or false \(1\)"),
    ("results.0.counters", "x", r'results\[0\]\.counters: not an object \("x"\)'),
    ("results.0.counters", {"dram__bytes_read.sum": "1 MB"}, r"results\[0\]\.counters\.dram__bytes_read\.sum: not"),
    ("results.0.block_trace", [[0, 1, 2]], r"results\[0\]\.block_trace\[0\]: 3 numbers, not 4"),
    ("results.0.block_trace", [[0, 1, 90, 10]], r"results\[0\]\.block_trace\[0\]: ends \(10\) before it starts"),
    ("results.0.m", DELETE, r"results\[0\]: lacks m"),
    ("results.0.variant", DELETE, r"results\[0\]: lacks variant"),
    ("results", [1, 2], r"results\[0\]: not an object \(1\)"),
    ("results", {}, r"results: not a list \(an object\)"),
    ("results", "x", r'results: not a list \("x"\)'),
    ("results", DELETE, r"results: missing"),
    ("environment", "x", r'environment: not an object \("x"\)'),
    ("environment", {"backends": "x"}, r'environment\.backends: not an object \("x"\)'),
    ("environment", {"backends": {"cuda": {"available": "yes"}}}, r"environment\.backends\.cuda\.available: not true"),
    (
        "environment",
        {"backends": {"cuda": {"sms": -3}}},
        r"environment\.backends\.cuda\.sms: -3 is out of range \(1\.\.1024\)",
    ),
    ("environment", {"backends": {"cuda": {"name": 42}}}, r"environment\.backends\.cuda\.name: not a string \(42\)"),
    ("environment", {"variants": {"cublas": [1]}}, r"environment\.variants\.cublas: not a pair"),
    ("environment", {"gpu": ["A100"]}, r"environment\.gpu: not a string \(a list\)"),
    ("settings", [], r"settings: not an object \(a list\)"),
    ("settings", {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": 1}}}}}}}}}, r"settings\..*nested deeper"),
    ("kind", "guessed", r'kind: "guessed" is not one of: measured, published'),
    ("label", 5, r"label: not a string \(5\)"),
    ("schema", "other.session", r"not a gemmviz session"),
    ("schema_version", "1", r'schema_version: version "1" is not supported'),
    ("schema_version", True, r"schema_version: version true is not supported"),
    ("schema_version", 0, r"schema_version: version 0 is not supported"),
    ("schema_version", 99, r"version 99 is not supported .*a newer gemmviz wrote it: update gemmviz"),
    ("results.1.samples_ms", [1.0, NAN], r"results\[1\]\.samples_ms\[1\]: not a finite number \(NaN\)"),
    ("results.0.samples_ms", [1e400], r"results\[0\]\.samples_ms\[0\]: not a finite number \(Infinity\)"),
    ("results.0.rel_error", NAN, r"results\[0\]\.rel_error: not a finite number \(NaN\)"),
]


@pytest.fixture
def workspace_with_work():
    """A workspace holding a live result and an opened session: what a refused file must not disturb."""
    ws = Workspace()
    ws.add_live(Result.from_dict(GOOD_RESULT))
    ws.open(default_replay_session())
    return ws


def _refused(ws: Workspace, path, pattern: str) -> str:
    before = ([s.id for s in ws.sessions], list(ws.live), len(ws.all_results()))
    with pytest.raises(SessionError, match=pattern) as info:
        ws.open(path)
    message = str(info.value)
    assert str(path) in message and "\n" not in message and len(message) < 450  # one line naming the file
    assert ([s.id for s in ws.sessions], list(ws.live), len(ws.all_results())) == before  # nothing lost
    return message


@pytest.mark.parametrize(
    "field, value, pattern", SESSION_CASES, ids=[f"{c[0]}={str(c[1])[:20]}" for c in SESSION_CASES]
)
def test_bad_session_fields_are_refused_naming_the_field(tmp_path, workspace_with_work, field, value, pattern):
    path = tmp_path / "bad.json"
    text = json.dumps(
        _with(
            field,
            "@NAN@"
            if value is NAN
            else ([x if x is not NAN else "@NAN@" for x in value] if isinstance(value, list) else value),
        )
    )
    path.write_text(text.replace('"@NAN@"', "NaN"))
    _refused(workspace_with_work, path, pattern)


@pytest.mark.parametrize(
    "content, pattern",
    [
        (b"", "empty file"),
        (bytes(range(256)) * 4, "not a text \\(JSON\\) file"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "not a text \\(JSON\\) file"),
        (b"{not json", "not valid JSON: .*line 1, column 2"),
        (b"[1, 2]", "not a gemmviz session"),
        (b'"gemmviz.session"', "not a gemmviz session"),
        (b"null", "not a gemmviz session"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deep: lists or objects more than 64 levels"),
        (b'{"schema": "gemmviz.session", "schema_version": 1' + b"9" * 5000 + b"}", "not valid JSON"),
    ],
    ids=["empty", "binary", "png", "truncated", "array", "string", "null", "deep", "long-int"],
)
def test_files_that_are_not_sessions(tmp_path, workspace_with_work, content, pattern):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    _refused(workspace_with_work, path, pattern)


def test_a_huge_file_is_refused_before_it_is_read(tmp_path, workspace_with_work, monkeypatch):
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:
        f.truncate(MAX_SESSION_BYTES + 1)  # sparse: nothing to read, only its size is checked
    monkeypatch.setattr("pathlib.Path.read_bytes", lambda _self: pytest.fail("a file over the limit was read"))
    _refused(workspace_with_work, path, "over the 64 MiB limit")


def test_a_folder_or_a_missing_file(tmp_path, workspace_with_work):
    _refused(workspace_with_work, tmp_path, "not a regular file")
    _refused(workspace_with_work, tmp_path / "gone.json", "cannot read")


def test_strings_are_cleaned_and_cut_not_refused(tmp_path):
    d = _with("label", "Lab\x1b[31mel\u202e" + "x" * 500)
    d["results"][0]["note"] = "line one\nline\x07 two" + "y" * 5000
    d["environment"] = {"gpu": "A100\x00<b>"}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(d))
    s = Session.load(path)
    assert s.label.startswith("Lab[31mel") and len(s.label) == 200 and "\u202e" not in s.label
    assert s.results[0].note.startswith("line one\nline two") and len(s.results[0].note) == 2000
    assert s.environment["gpu"] == "A100<b>"  # kept as text: the views show it as plain text


def test_a_version_1_file_migrates(tmp_path):
    d = copy.deepcopy(GOOD)
    d["schema_version"] = 1
    d["results"][0]["source"] = "NVIDIA H200, 2026-11-30"
    path = tmp_path / "old.json"
    path.write_text("\ufeff" + json.dumps(d), encoding="utf-8")  # with a byte-order mark, as some editors save
    s = Session.load(path)
    assert len(s.results) == 2 and s.to_dict()["schema_version"] == 3 and "source" not in s.to_dict()["results"][0]


# ---- the CLI ----------------------------------------------------------------------------------------------
def _cli(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    return code, err


@pytest.mark.parametrize(
    "argv, code, words",
    [
        (["bench", "--sizes", "0", "--variants", "cpu-blas"], 2, "M must be at least 1, got 0"),
        (["bench", "--sizes", "-5", "--variants", "cpu-blas"], 2, "M must be at least 1, got -5"),
        (["bench", "--sizes", "abc", "--variants", "cpu-blas"], 2, "size must be a whole number, got 'abc'"),
        (["bench", "--sizes", "64", "--variants", "gpu-tiled", "--tile", "7"], 2, "tile 7 is not supported"),
        (["bench", "--sizes", "64", "--variants", "nope"], 2, "unknown variant(s) nope"),
        (["bench", "--sizes", "9999999", "--variants", "cpu-blas", "--quiet"], 1, "cpu-blas 9999999³ refused"),
        (
            ["bench", "--sizes", "256,99999999999", "--variants", "cpu-blas"],
            2,
            "--sizes 99999999999: size 99999999999 is too large",
        ),
        (
            ["bench", "--sizes", "64", "--variants", "cpu-blas", "--out", "/nonexistent-dir/s.json"],
            1,
            "the folder /nonexistent-dir does not exist",
        ),
    ],
    ids=["size-0", "size-neg", "size-abc", "bad-tile", "bad-variant", "size-huge", "size-absurd", "unwritable-out"],
)
def test_cli_bad_arguments(argv, code, words, capsys):
    got, err = _cli(argv, capsys)
    assert got == code and words in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("results.0.m", "abc", 'results[0].m: not a whole number ("abc")'),
        ("results.0.samples_ms", "fast", 'results[0].samples_ms: not a list ("fast")'),
        ("results.0.variant", "nope", "results[0].variant: unknown kernel variant"),
    ],
)
def test_cli_export_of_a_bad_session(tmp_path, capsys, field, value, words):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_with(field, value)))
    out = tmp_path / "chart.png"
    out.write_bytes(b"an earlier chart")
    code, err = _cli(["export", str(bad), "--chart", "time", "-o", str(out)], capsys)
    assert code == 2 and words in err and str(bad) in err and len(err.splitlines()) == 1
    assert out.read_bytes() == b"an earlier chart"  # nothing overwritten


def test_cli_bad_arguments_leave_an_earlier_out_file(tmp_path, capsys):
    out = tmp_path / "s.json"
    Session(results=[Result.from_dict(GOOD_RESULT)]).save(out)
    code, _err = _cli(["bench", "--sizes", "abc", "--variants", "cpu-blas", "--out", str(out)], capsys)
    assert code == 2 and len(Session.load(out).results) == 1


# ---- settings and lesson files ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "setting, raw",
    [
        (settings.REPEATS, "abc"),
        (settings.GEOMETRY, "not-a-geometry"),
        (settings.RECENT, ["x"] * 10_000),
        (settings.COLD_L2, "perhaps"),
        (settings.PRESET, "<b>1024</b>"),
    ],
    ids=["repeats-abc", "geometry", "huge-list", "bool", "preset"],
)
def test_bad_settings_values_read_as_defaults(setting, raw, caplog):
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        assert setting.read(raw) == setting.default
    assert setting.key in caplog.text


STEP = '[[step]]\ntitle = "T"\ntext = "One sentence."\n'


@pytest.mark.parametrize(
    "text, words",
    [
        ('title = "L\n' + STEP, "f.toml: not valid TOML: .*line 1"),
        ("title = 5\n" + STEP, "f.toml:1: the lesson needs a title"),
        ('title = "L"\n', "f.toml: a lesson needs at least one"),
        ('title = "L"\n' + STEP + 'view = "movie"\n', "f.toml:5: view must be one of"),
        ('title = "L"\n' + STEP + 'colour = "red"\n', "f.toml:5: unknown key 'colour'"),
        ('title = "L"\n' + STEP + 'series = ["nope"]\n', "f.toml:5: unknown variant 'nope'"),
        ("\x00\x01garbage", "f.toml: not valid TOML"),
    ],
    ids=["toml", "title", "no-steps", "view", "key", "variant", "garbage"],
)
def test_bad_lesson_files_name_the_line(text, words):
    with pytest.raises(LessonError, match=words) as info:
        parse_lesson(text, "x", "f.toml")
    assert "\n" not in str(info.value)


# ---- the app ----------------------------------------------------------------------------------------------
@pytest.fixture
def app_window(qtbot, tmp_path, monkeypatch):
    pytest.importorskip("pytestqt")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QMessageBox

    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.window import MainWindow
    from tests.fakes import FakeGpuBackend

    shown: list[str] = []  # dialogs never block a test: their text is recorded instead
    monkeypatch.setattr(QMessageBox, "open", lambda self, *a: shown.append(self.text()))
    monkeypatch.setattr(QMessageBox, "exec", lambda self, *a: shown.append(self.text()) or 0)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    windows = []

    def make(settings_bytes: bytes | None = None):
        path = tmp_path / "settings.ini"
        if settings_bytes is not None:
            path.write_bytes(settings_bytes)
        qs = QSettings(str(path), QSettings.Format.IniFormat)
        w = MainWindow(
            backends={"cpu": CpuBackend(), "cuda": FakeGpuBackend()}, settings=qs, load_recorded_without_gpu=False
        )
        qtbot.addWidget(w)
        w.show()
        qtbot.waitUntil(lambda: bool(w.workspace.environment), timeout=10000)
        w.shown_dialogs = shown
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.close()


def test_app_refuses_a_bad_session_and_keeps_what_was_open(app_window, tmp_path):
    w = app_window()
    good = default_replay_session()
    assert w.files.open_session(good)
    rows = w.charts_tab.table.model_.rowCount()
    recent = w.files._recent()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_with("results.1.samples_ms", "fast")))
    assert not w.files.open_session(bad)
    assert w.shown_dialogs[-1] == f'{bad}: results[1].samples_ms: not a list ("fast")'
    assert w.files._recent() == recent and str(bad) not in recent
    assert [s.path for s in w.workspace.sessions] == [str(good)] and w.charts_tab.table.model_.rowCount() == rows
    # later redraws still happen: closing the session empties the table
    w.files.close_loaded()
    assert w.charts_tab.table.model_.rowCount() == 0


def test_app_a_failed_redraw_puts_the_workspace_back(app_window, tmp_path, monkeypatch):
    w = app_window()
    path = tmp_path / "s.json"
    path.write_text(json.dumps(GOOD))
    real = w.charts_tab.refresh
    calls = []

    def broken():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("drawing failed")
        real()

    monkeypatch.setattr(w.charts_tab, "refresh", broken)
    assert not w.files.open_session(path)
    assert "Cannot show session" in w.last_error_text and not w.workspace.sessions and len(calls) == 2
    assert w.files.open_session(path) and len(w.workspace.sessions) == 1  # and the next one works
    assert w.charts_tab.table.model_.rowCount() == 2


@pytest.mark.parametrize(
    "put_back, words",
    [(None, "no longer exists"), (os.mkfifo, "no longer a regular file")],  # a FIFO: returns at once, nothing waits
    ids=["vanished", "fifo"],
)
def test_app_drops_a_recent_file_that_is_gone_saying_how(app_window, tmp_path, put_back, words):
    w = app_window()
    path = tmp_path / "s.json"
    path.write_text(json.dumps(GOOD))
    assert w.files.open_session(str(path))
    path.unlink()
    if put_back is not None:
        put_back(path)
    assert not w.files.open_recent(str(path))
    assert str(path) not in w.files._recent() and words in w.shown_dialogs[-1]


def test_the_window_saves_and_exports_only_to_their_own_kind_of_file(app_window, tmp_path):
    """Export CSV and Save session wrote wherever they were pointed: a session became CSV, a lesson became JSON
    (the CLI refused both since round 5). Each now takes its own suffix only, a bare name gets it, and a link
    named right that leads to another kind of file is refused too."""
    w = app_window()
    session = tmp_path / "s.json"
    session.write_text(json.dumps(GOOD))
    lesson = tmp_path / "lesson.toml"
    lesson.write_text('title = "mine"\n')
    assert w.files.open_session(str(session))
    assert not w.files.export_csv(str(session)) and "must end in .csv" in w.shown_dialogs[-1]
    (tmp_path / "r.csv").symlink_to(session)
    assert not w.files.export_csv(str(tmp_path / "r.csv")) and "a link to" in w.shown_dialogs[-1]
    assert json.loads(session.read_text()) == GOOD  # untouched
    assert w.files.export_csv(str(tmp_path / "results")) and (tmp_path / "results.csv").read_text().startswith(
        "variant,"
    )
    w.workspace.add_live(Result.from_dict(GOOD_RESULT))
    for target in (lesson, tmp_path / "x.json.gz", tmp_path / "r.csv"):
        assert not w.files.save_session(str(target))
    assert lesson.read_text() == 'title = "mine"\n' and not (tmp_path / "x.json.gz").exists()
    assert w.files.save_session(str(tmp_path / "saved")) and Session.load(tmp_path / "saved.json").results


def test_app_shows_strings_from_files_as_text(app_window, tmp_path):
    w = app_window()
    d = _with("label", "<img src=/etc/passwd><b>bold</b>")
    d["results"][0]["status"], d["results"][0]["valid"] = "failed", False
    d["results"][0]["error"] = "<img src=x>\nfailed"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(d))
    assert w.files.open_session(path)
    table = w.charts_tab.table
    texts = [table.model_.item(r, 0).text() for r in range(table.model_.rowCount())]
    assert "<img src=/etc/passwd><b>bold</b>" in texts
    status = next(
        table.model_.item(r, table.model_.columnCount() - 1)
        for r in range(table.model_.rowCount())
        if "FAILED" in table.model_.item(r, table.model_.columnCount() - 1).text()
    )
    assert status.toolTip() == "<qt>&lt;img src=x&gt;<br>failed</qt>"


@pytest.mark.parametrize(
    "content",
    [
        b"[run]\nrepeats=abc\nwarmup=-4\ncold=perhaps\npreset=<b>\n[window]\ngeometry=garbage\nsplitter=@ByteArray(xx)\n",
        bytes(range(256)) * 16,
        b"[General]\nrecent=" + b", ".join(b"/x%d.json" % i for i in range(5000)) + b"\n",
        b"[run]\nvariants=nope, <script>\nparams\\tile=7, abc\n",
    ],
    ids=["wrong-types", "garbage-bytes", "huge-list", "unknown-names"],
)
def test_app_opens_with_a_broken_settings_file(app_window, content, caplog):
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        w = app_window(content)
    assert w.isVisible() and w.run_panel.repeats_spin.value() in (20,) and w.run_panel.warmup_spin.value() == 3
    assert not w.run_panel.cold_box.isChecked() and w.files._recent() == []
    assert w.run_panel.size_preset.currentText() == "1024"
