"""Hostile input, round 5: what an outside sweep found after round 4 — a relative cache folder that failed every
correct hand-in, check records gemmviz wrote but could not read back, a FIFO that froze the window, session
files silently replaced by CSV. Each test fails on the code before its fix."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from gemmviz.cli.main import main
from gemmviz.core import fileio, paths
from gemmviz.core.exercise import record_schema
from gemmviz.core.exercise.tool_logs import diagnostic_log, parse_nvcc
from gemmviz.core.session.results import Session


# ---- a relative GEMMVIZ_CACHE_DIR ------------------------------------------------------------------------
def test_a_relative_cache_or_config_folder_is_pinned_where_gemmviz_started(tmp_path, monkeypatch):
    """nvcc runs in a folder of its own: "relcache/kernels/…" given to it from there could not be opened, and every
    correct hand-in was graded a compile failure (and kept so by the next grading run)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GEMMVIZ_CACHE_DIR", "relcache")
    monkeypatch.setenv("GEMMVIZ_CONFIG_DIR", "relconfig")
    paths.pin_folder_variables()
    assert os.environ["GEMMVIZ_CACHE_DIR"] == str(tmp_path / "relcache")  # what a child process inherits
    assert os.environ["GEMMVIZ_CONFIG_DIR"] == str(tmp_path / "relconfig")
    monkeypatch.chdir("/")
    assert paths.cache_dir() == tmp_path / "relcache" and paths.config_dir() == tmp_path / "relconfig"


def test_the_cli_pins_the_folders_before_any_command(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GEMMVIZ_CACHE_DIR", "c")
    assert main(["model", "--mnk", "64"]) == 0
    assert os.environ["GEMMVIZ_CACHE_DIR"] == str(tmp_path / "c")


# ---- check records gemmviz writes, it reads back ------------------------------------------------------------
NVCC_LOG = (
    'warn.cu(1): warning #1234-D: #warning directive: "\x1b[2J"\n'
    "warn.cu(2): warning: a\u202eb\x7f [-Wcpp]\n"
    '    #warning "\x1b[2J"\n'  # the source line nvcc echoes: dropped from the log
)


def test_a_students_own_warning_text_is_shown_as_escapes_in_the_record():
    """A #warning, #error or #pragma message puts the student's bytes in nvcc's output: ESC, a bidi override, DEL.
    The record held them raw, and `exercise show` and the window then refused the record gemmviz had written."""
    diagnostics = parse_nvcc(NVCC_LOG, "warn.cu")
    log = diagnostic_log(NVCC_LOG)
    assert [d["line"] for d in diagnostics] == [1, 2]
    assert "\\x1b[2J" in diagnostics[0]["message"] and "\\u202e" in diagnostics[1]["message"]
    assert "\\x7f" in diagnostics[1]["message"]
    text = record_schema._text()
    for message in (d["message"] for d in diagnostics):
        assert text(message, "compile.diagnostics[0].message") == message  # the reader takes what was written
    assert "\x1b" not in log and "\u202e" not in log and len(log.splitlines()) == 2


def test_an_nvcc_log_without_a_located_line_is_shown_as_escapes_too():
    (only,) = parse_nvcc("nvcc fatal   : \x1b]0;owned\x07 cannot open file", "k.cu")
    assert only["severity"] == "error" and "\x1b" not in only["message"] and "\\x07" in only["message"]


# ---- a FIFO named like a session --------------------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("name", ["x.json", "y.check.json"])
def test_sniffing_a_fifo_named_like_a_session_never_waits_for_a_writer(qapp, tmp_path, name):
    """File ▸ Open, --open, Open recent and a drop sniffed the file's first bytes with open(): on a FIFO that waits
    for a writer, on the UI thread, for ever. The sniff reads regular files only; the reader then refuses it."""
    from gemmviz.ui.files import _head, reader_for

    fifo = tmp_path / name
    os.mkfifo(fifo)
    done = threading.Event()
    got: list[object] = []

    def sniff() -> None:
        got.append((_head(fifo), reader_for(fifo)))
        done.set()

    threading.Thread(target=sniff, daemon=True).start()
    if not done.wait(10):
        with open(fifo, "wb"):  # let the stuck open() return, so that the thread ends with the test
            pass
        pytest.fail(f"sniffing {name} blocked on the FIFO")
    head, kind = got[0]  # type: ignore[misc]
    assert head == b"" and kind is not None


# ---- outputs whose name says what they hold --------------------------------------------------------------------
@pytest.fixture
def cpu_session(tmp_path) -> Path:
    out = tmp_path / "s.json"
    assert main(["bench", "--variants", "cpu-blas", "--sizes", "32", "--quiet", "--out", str(out)]) == 0
    return out


def test_bench_csv_never_overwrites_a_session(cpu_session, capsys):
    """`--csv s.json` wrote CSV over a good session, exit 0; the session was lost."""
    before = cpu_session.read_bytes()
    assert main(["bench", "--variants", "cpu-blas", "--sizes", "32", "--quiet", "--csv", str(cpu_session)]) == 2
    assert "must end in .csv" in capsys.readouterr().err  # a usage error (exit 2), as export's and animate's
    assert cpu_session.read_bytes() == before and Session.load(cpu_session).results


@pytest.mark.parametrize("name", ["s.csv", "s.txt", "s.json.gz"])
def test_bench_out_is_a_json_file(tmp_path, capsys, name):
    """`--out s.csv` or `s.txt` wrote session JSON under that name; `s.json.gz` wrote it uncompressed."""
    out = tmp_path / name
    assert main(["bench", "--variants", "cpu-blas", "--sizes", "32", "--quiet", "--out", str(out)]) == 2
    assert "must end in .json" in capsys.readouterr().err and not out.exists()


def test_a_link_named_like_the_output_that_leads_to_another_kind_of_file_is_refused(cpu_session, tmp_path, capsys):
    """The suffix check read the link's name: `--csv r.csv` with r.csv -> keep.json replaced the session with CSV,
    and `export s.json -o link.png` (link.png -> s.json) replaced the input with a picture."""
    before = cpu_session.read_bytes()
    (tmp_path / "r.csv").symlink_to(cpu_session)
    (tmp_path / "link.png").symlink_to(cpu_session)
    assert main(["bench", "--variants", "cpu-blas", "--sizes", "32", "--quiet", "--csv", str(tmp_path / "r.csv")]) == 1
    assert "a link to" in capsys.readouterr().err
    assert main(["export", str(cpu_session), "-o", str(tmp_path / "link.png")]) != 0
    assert "a link to" in capsys.readouterr().err
    assert cpu_session.read_bytes() == before


def test_a_bad_suffix_is_named_after_what_the_path_is(tmp_path, capsys):
    """The name's suffix is the last thing checked: a folder is refused as a folder, whatever it is called."""
    assert main(["bench", "--variants", "cpu-blas", "--sizes", "32", "--quiet", "--csv", str(tmp_path)]) == 1
    assert "it is a folder" in capsys.readouterr().err


# ---- the helper commands docs/accesses-notes.md names ---------------------------------------------------------
@pytest.mark.parametrize(
    "argv, code, words",
    [
        (["coalescing", "{tmp}/c.png", "--size", "abc"], 2, "size must be WIDTHxHEIGHT"),
        (["coalescing", "{tmp}/c.png", "--size", "0x0"], 2, "out of range"),
        (["coalescing", "{tmp}/c.png", "--records", "{tmp}/cut.json"], 2, "not valid JSON"),
        (["banks", "{tmp}/c.bmp", "--size", "640x360"], 1, "must end in .png"),
    ],
    ids=["size-words", "size-zero", "records-cut", "suffix"],
)
def test_the_access_view_command_refuses_in_one_line(qapp, tmp_path, capsys, argv, code, words):
    """`python -m gemmviz.ui.accesses` printed Python tracebacks (ValueError, ProblemError, SessionError,
    ExportError) for a bad size, a cut records file or a wrong suffix."""
    from gemmviz.ui.accesses.__main__ import main as access_main

    (tmp_path / "cut.json").write_text('{"schema": ')
    assert access_main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == code
    err = capsys.readouterr().err
    assert err.startswith("gemmviz: error: ") and words in err and len(err.strip().splitlines()) == 1


def test_the_tracer_build_command_refuses_an_architecture_it_would_hand_nvcc(capsys):
    from gemmviz.backends.accesses import main as build_main

    assert build_main(["build", "--arch", "sm_90;rm -rf"]) == 2
    assert "give an architecture such as sm_90" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        build_main(["build", "--arch"])  # argparse: "expected one argument", exit 2, no IndexError
    assert stop.value.code == 2


# ---- a path too long, a reader that goes away --------------------------------------------------------------------
def test_a_path_too_long_for_any_file_system_is_a_bad_argument(tmp_path, capsys):
    """`[Errno 36] File name too long: '/tmp/…'` (Python's repr of the path), exit 1."""
    long = tmp_path / ("a" * 300 + ".json")
    assert main(["export", str(long), "-o", str(tmp_path / "q.png")]) == 2
    err = capsys.readouterr().err
    assert "the file name is too long" in err and "Errno" not in err and "'" not in err


def test_a_reader_that_goes_away_is_no_error_however_much_was_printed(monkeypatch):
    """`gemmviz info | head -1` exited 1, `gemmviz model … | head -1` 0: which depended on how much was printed."""
    import importlib

    cli_main = importlib.import_module("gemmviz.cli.main")

    def pipe_gone(_args) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli_main.os, "dup2", lambda *_a: None)  # leave the test's stdout as it is
    assert cli_main._run(pipe_gone, None) == 0


# ---- words that say what is wrong ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv, words",
    [
        (["--lesson", ""], "--lesson: an empty name"),
        (["export", "h200-2026-12-01", "--chart", "trace", "--pipeline", "", "-o", "{tmp}/t.json"], "an empty file"),
        (["export", "h200-2026-12-01", "--chart", "gap", "--gap", "{tmp}", "-o", "{tmp}/g.png"], "a folder, not a"),
        (["export", "{tmp}/empty.json", "-o", "{tmp}/e.png"], "the session holds no results"),
        (
            ["exercise", "check", "{tmp}/k.cu", "--exercise", "naive", "--out", "{tmp}/k.cu"],
            "give a file name ending in .json (a check",
        ),
        # \d took any script's digits: the refusal came later, as "needs a GPU"
        (
            [
                "profile",
                "--accesses",
                "--access-blocks",
                "١,٢",
                "--variants",
                "gpu-tiled",
                "--sizes",
                "64",
                "--out",
                "{tmp}/p.json",
            ],
            "give 'auto'",
        ),
    ],
    ids=["empty-lesson", "empty-pipeline", "gap-folder", "empty-session", "out-not-json", "arabic-indic-digits"],
)
def test_a_refusal_names_what_is_wrong(tmp_path, capsys, argv, words):
    """An empty --lesson opened the window as if none were given, an empty --pipeline took the default; a folder
    given as --gap was 'no such gap file'; a session with no results had 'no results left after --variants'
    (none given); `--out k.cu` was refused as 'not a folder'."""
    session = json.loads((paths.asset_path("sessions", "h200-2026-12-01.json")).read_text(encoding="utf-8"))
    (tmp_path / "empty.json").write_text(json.dumps({**session, "results": []}), encoding="utf-8")
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n", encoding="utf-8")
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert words in err and "not a folder" not in err, err


# ---- a config folder that cannot be written ---------------------------------------------------------------------
def test_settings_that_cannot_be_saved_say_so(qapp, monkeypatch, caplog):
    """GEMMVIZ_CONFIG_DIR=/proc/cfg: every change of the session was silently not kept."""
    from gemmviz.ui.settings_store import open_settings

    monkeypatch.setenv("GEMMVIZ_CONFIG_DIR", "/proc/gemmviz-cfg")
    with caplog.at_level("WARNING", logger="gemmviz"):
        qs = open_settings()
    assert qs is not None
    assert any("cannot be made" in r.getMessage() and "will not be saved" in r.getMessage() for r in caplog.records)


def test_a_writable_config_folder_says_nothing(qapp, tmp_path, monkeypatch, caplog):
    from gemmviz.ui.settings_store import open_settings

    monkeypatch.setenv("GEMMVIZ_CONFIG_DIR", str(tmp_path / "cfg"))
    with caplog.at_level("WARNING", logger="gemmviz"):
        open_settings()
    assert not [r for r in caplog.records if "settings" in r.getMessage()] and (tmp_path / "cfg").is_dir()


def test_a_compressed_gap_file_is_named_as_one(tmp_path, capsys):
    """`--gap x.json.gz` said "'utf-8' codec can't decode byte 0x8b"."""
    import gzip

    gap = tmp_path / "g.json.gz"
    gap.write_bytes(gzip.compress(paths.asset_path("sessions", "h200-2026-12-02d-gap.json").read_bytes()))
    argv = ["export", "h200-2026-12-02", "--chart", "gap", "--gap", str(gap), "-o", str(tmp_path / "g.png")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "a gzip-compressed file" in err and "codec" not in err


def test_an_interrupted_bench_that_ran_nothing_says_it_wrote_nothing(monkeypatch, tmp_path, capsys):
    """SIGTERM before the first job: "saved in existing.json", yet the file held the earlier run, untouched."""
    from gemmviz.core.measure import bench as bench_core

    out = tmp_path / "existing.json"
    assert main(["bench", "--variants", "cpu-blas", "--sizes", "32", "--quiet", "--out", str(out)]) == 0
    before = out.read_bytes()
    capsys.readouterr()

    def stopped(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(bench_core.Engine, "run", stopped)
    code = main(["bench", "--variants", "cpu-blas", "--sizes", "32,64", "--quiet", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 130 and out.read_bytes() == before
    assert f"nothing written ({out} left as it was)" in err and "saved in" not in err


def test_several_bad_files_opened_at_once_make_one_dialog(qapp, tmp_path):
    """`--open a.json --open b.json --open c.json`, all bad: three window-modal dialogs, one over the other."""
    from PySide6.QtCore import QSettings

    from gemmviz.backends import default_backends
    from gemmviz.ui.window import MainWindow

    bad = []
    for name in ("a.json", "b.json", "c.json"):
        (tmp_path / name).write_text("{not json", encoding="utf-8")
        bad.append(str(tmp_path / name))
    qs = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(default_backends(), settings=qs, load_recorded_without_gpu=False)
    try:
        shown = []
        real = w.show_error
        # the calls that make a dialog: not those held for the batch's one
        w.show_error = lambda *a: (w.error_batch is None and shown.append(a), real(*a))  # type: ignore[method-assign]
        assert w.open_paths(bad) is False
        assert len(shown) == 1 and shown[0][0] == "3 of 3 files could not be opened"
        assert all(Path(p).name in shown[0][1] for p in bad)  # each file named in the one dialog
    finally:
        w.close()
        w.deleteLater()


def test_a_command_with_its_output_closed_says_so(tmp_path):
    """`gemmviz model --mnk 64 >&-` printed nothing anywhere and exited 0."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m gemmviz model --mnk 64 >&-'],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 1 and "standard output is closed" in proc.stderr


def test_grades_onto_a_file_that_is_not_text_name_it_as_not_ours(tmp_path):
    """`exercise grade --csv` onto a binary file: "'utf-8' codec can't decode byte 0xff …"."""
    from gemmviz.core.exercise.grading import GradeError, read_rows

    bad = tmp_path / "grades.csv"
    bad.write_bytes(b"\xff\xfe\x00 not text")
    with pytest.raises(GradeError, match=r"not a grades CSV this gemmviz wrote \(not UTF-8 text at byte 0\)"):
        read_rows(bad)
    assert bad.read_bytes() == b"\xff\xfe\x00 not text"


@pytest.mark.parametrize(
    "name, words",
    [("h200-2026-12-02d-gap.json", "not a session but gap metrics"), ("h200-2026-12-02-pipeline.json", "pipeline")],
)
def test_gemmvizs_other_files_opened_as_a_session_say_what_they_are(name, words):
    """The window and `export` said "not a gemmviz session" of gemmviz's own gap and pipeline files."""
    from gemmviz.core.session.checks import SessionError

    with pytest.raises(SessionError, match=words):
        Session.load(paths.asset_path("sessions", name))


@pytest.mark.parametrize(
    "cached, words",
    [
        ({"device": "NVIDIA H200", "bandwidth_gbs": 100, "fp32_peak_gflops": 1e-6}, "outside \\[1, "),
        ({"device": "NVIDIA H200", "bandwidth_gbs": 1e-300, "fp32_peak_gflops": 60000}, "outside \\[1, "),
        ({"device": "NVIDIA H200"}, "bandwidth_gbs, fp32_peak_gflops missing"),
    ],
    ids=["peak-1e-6", "bandwidth-1e-300", "device-only"],
)
def test_cached_ceilings_no_gpu_could_have_leave_the_shipped_ones(tmp_path, monkeypatch, caplog, cached, words):
    """A cached ceilings file with a 1e-6 GFLOP/s peak drew a roofline 10¹⁰ below the measured points; one with
    only a device name hid the shipped ceilings: no roof at all. Both are skipped, with a log line."""
    import logging

    from gemmviz.core.hardware.roofline import load_ceilings, user_ceilings_file

    monkeypatch.setenv("GEMMVIZ_CACHE_DIR", str(tmp_path))
    user_ceilings_file().write_text(json.dumps(cached), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        ceilings = load_ceilings("NVIDIA H200")
    assert ceilings is not None and ceilings.bandwidth_gbs > 1000 and ceilings.fp32_peak_gflops > 10_000  # shipped
    assert __import__("re").search(words, caplog.text), caplog.text


# ---- a key given twice in one object -------------------------------------------------------------------------
def test_a_key_given_twice_is_refused_and_named():
    """Python's parser kept the last of two "median_ms" in a hand-edited session, and nothing said which one the
    chart showed; a file that names a key twice is now refused, with the key."""
    assert fileio.parse_json('{"a": [{"b": 1, "c": {"d": 2}}]}') == json.loads('{"a": [{"b": 1, "c": {"d": 2}}]}')
    with pytest.raises(fileio.InputFileError, match='the key "d" appears twice in one object'):
        fileio.parse_json('{"a": [{"b": 1, "c": {"d": 2, "e": 0, "d": 3}}]}')
    with pytest.raises(fileio.InputFileError, match=r'the key "\\u001b\[2J" appears twice'):  # shown as escapes
        fileio.parse_json('{"\\u001b[2J": 1, "\\u001b[2J": 2}')


def _with_a_key_twice(text: str, key: str) -> str:
    """`text` (a JSON object's text) with the first `"key": value` given again right after the object's brace."""
    doc = json.loads(text)
    return "{" + json.dumps(key) + ": " + json.dumps(doc[key]) + ", " + text.lstrip()[1:]


def test_a_session_gap_file_or_check_record_with_a_key_twice_says_which(tmp_path):
    from gemmviz.core.exercise.record import CheckFileError, load_check
    from gemmviz.core.hardware.gap_file import load_gap_file
    from gemmviz.core.session.checks import SessionError
    from gemmviz.core.session.recorded import RecordError

    shipped = paths.asset_path("sessions", "h100-2026-12-07.json").parent
    session = tmp_path / "twice.json"
    session.write_text(_with_a_key_twice((shipped / "h100-2026-12-07.json").read_text(), "schema"))
    with pytest.raises(SessionError, match='the key "schema" appears twice'):
        Session.load(session)
    gap = tmp_path / "gap.json"
    gap.write_text(_with_a_key_twice((shipped / "h200-2026-12-02-gap.json").read_text(), "schema"))
    with pytest.raises(RecordError, match='gap.json: the key "schema" appears twice'):
        load_gap_file(gap)
    check = tmp_path / "check.json"
    check.write_text('{"exercise": "tiled", "exercise": "naive"}')
    with pytest.raises(CheckFileError, match='the key "exercise" appears twice'):
        load_check(check)
