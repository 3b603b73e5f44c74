"""Hostile input, round 4 (issue 33): bounded decompression, terminal-safe text, no writes through links,
all-or-nothing exports, a pixel budget and one-line refusals. Every generator here is seeded (deterministic)
and quick; the signal cases are in test_hostile_signals.py."""

from __future__ import annotations

import base64
import copy
import errno
import gzip
import json
import os
import random
import subprocess
import sys
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest

from gemmviz.cli.main import main
from gemmviz.core import fileio
from gemmviz.core.hardware import access_json
from gemmviz.core.hardware import accesses as acc
from gemmviz.core.session import bounds
from gemmviz.core.session.checks import SessionError
from gemmviz.core.text import printable

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = ROOT / "assets" / "exercises"


# ---- 1. one bounded reader for packed data ---------------------------------------------------------------
def _trace(n: int = 40, blocks=((0, 0, 0),), grid=(4, 4, 1)) -> dict:
    """A small valid access trace as its file holds it."""
    rng = np.random.default_rng(33)
    cols = {
        "slot": np.zeros(n),
        "warp": rng.integers(0, 4, n),
        "seq": np.arange(n),
        "pc": rng.integers(0, 2, n),
        "space": rng.integers(0, 2, n),
        "flags": np.where(rng.random(n) < 0.3, acc.WRITE, acc.READ),
        "size": np.full(n, 4),
        "active": np.full(n, 0xFFFFFFFF),
        "matrix": np.full(n, -1),
        "addr": (np.arange(32)[None, :] * 4 + rng.integers(0, 64, (n, 1)) * 128).reshape(-1),
    }
    return {
        "variant": "gpu-tiled",
        "mnk": [64, 64, 64],
        "params": {"TILE": 16},
        "kernel": "gemm_tiled",
        "grid": list(grid),
        "block": [16, 16, 1],
        "blocks": [list(b) for b in blocks],
        "cap": 1000,
        "attempted": n,
        "stored": n,
        "kept": n,
        "pcs": [[0, "LDG.E", 10], [16, "LDS", 12]],
        "columns": {c: access_json._pack(cols[c], dt) for c, dt in access_json._COLUMNS.items()},
        "summary": [],
        "ncu": {},
    }


def _file(*traces) -> dict:
    return {"format": acc.FORMAT, "version": 1, "gpu": "x", "date": "d", "command": "c", "traces": list(traces)}


def test_a_valid_small_trace_loads():
    assert acc.parse_file(_file(_trace())).traces[0].kept == 40


def test_a_request_count_over_the_limit_is_refused_before_any_column_is_unpacked():
    t = _trace()
    t.update(cap=2**24, stored=2**24, attempted=2**24, kept=2**24)
    t["columns"] = {c: "not even base64" for c in access_json._COLUMNS}  # never looked at
    with pytest.raises(SessionError, match=r"traces\[0\]\.kept: 16,777,216 requests kept in detail, over the"):
        acc.parse_file(_file(t))


def test_the_file_limit_counts_every_trace_before_unpacking_the_next():
    half = bounds.MAX_ACCESS_FILE_REQUESTS // 2 + 1
    t = _trace()
    t.update(cap=half, stored=half, attempted=half, kept=half)
    small = _trace()
    first = acc.from_json(small, "t")
    assert first.kept == 40
    with pytest.raises(SessionError, match=r"traces\[0\]\.kept"):
        acc.from_json(t, "traces[0]", room=half - 1)


def test_a_packed_column_that_inflates_past_its_count_is_cut_at_the_count():
    t = _trace()
    bomb = zlib.compressobj(9)
    packed = b"".join(bomb.compress(bytes(1 << 20)) for _ in range(24)) + bomb.flush()  # 24 MiB of zeros
    t["columns"]["seq"] = base64.b64encode(packed).decode()
    tracemalloc.start()
    try:
        with pytest.raises(SessionError, match=r"columns\.seq: holds more than the 160 bytes"):
            acc.parse_file(_file(t))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20  # never the 24 MiB


def test_a_gzip_session_bomb_is_refused_without_inflating_it_whole(tmp_path):
    from gemmviz.core.session.results import Session

    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    data = b"".join(z.compress(b" " * (1 << 20)) for _ in range(80)) + z.flush()  # 80 MiB of blanks
    path = tmp_path / "s.accesses.json.gz"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        for load in (acc.load_file, Session.load):
            with pytest.raises(SessionError, match="decompresses to over the 64 MiB limit"):
                load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2**20


@pytest.mark.parametrize(
    "blocks, words",
    [([], r"blocks: no traced block"), ([[9, 0, 0]], r"blocks\[0\]: block \[9, 0, 0\] is outside the grid")],
)
def test_empty_or_inconsistent_blocks_are_refused(blocks, words):
    t = _trace()
    t["blocks"] = blocks
    with pytest.raises(SessionError, match=words):
        acc.parse_file(_file(t))


def test_a_check_records_trace_has_the_same_limits():
    from gemmviz.core.exercise.record import CheckFileError, access_trace

    t = _trace()
    t.update(cap=10**6, stored=10**6, attempted=10**6, kept=10**6)
    with pytest.raises(CheckFileError, match=r"accesses\.trace\.kept: 1,000,000 requests"):
        access_trace({"accesses": {"shape": [64, 64, 64], "trace": t}})
    empty = _trace()
    empty["blocks"] = []
    with pytest.raises(CheckFileError, match="no traced block"):
        access_trace({"accesses": {"shape": [64, 64, 64], "trace": empty}})


HOSTILE_VALUES = [None, -1, 0, 2**63, 1e308, float("nan"), "", "\x1b[2J", [], {}, [[]], True, "A" * 5000]


def test_hostile_traces_are_loaded_or_refused_in_one_line():
    """Seeded mutations of a valid trace: each one loads, or is refused with a SessionError naming a field;
    nothing else escapes (no IndexError, MemoryError, ValueError from numpy)."""
    rng = random.Random(33)
    base = _trace()
    keys = [k for k in base if k != "columns"] + [f"columns.{c}" for c in access_json._COLUMNS]
    for _ in range(300):
        t = copy.deepcopy(base)
        for key in rng.sample(keys, rng.randint(1, 3)):
            value = rng.choice(HOSTILE_VALUES)
            if key.startswith("columns."):
                t["columns"][key.split(".")[1]] = rng.choice(
                    [value, base64.b64encode(zlib.compress(bytes(rng.randint(0, 5000)))).decode()]
                )
            else:
                t[key] = value
        try:
            acc.parse_file(json.loads(json.dumps(_file(t), allow_nan=True)))
        except SessionError as exc:
            assert "\n" not in str(exc) and str(exc)


def test_inflate_reads_every_gzip_member_and_refuses_a_cut_stream():
    two = gzip.compress(b"abc") + gzip.compress(b"def")
    assert fileio.inflate(two, 10, gzip=True) == b"abcdef"
    with pytest.raises(fileio.InputFileError, match="over the 5-byte limit"):
        fileio.inflate(two, 5, gzip=True)
    with pytest.raises(fileio.InputFileError, match="cut short"):
        fileio.inflate(zlib.compress(b"x" * 1000)[:-6], 10_000)


def test_file_open_says_out_of_memory_in_a_dialog(qapp, tmp_path):
    """A MemoryError while opening a session is a dialog, never a traceback, and the workspace is put back."""
    from gemmviz.ui.files import SessionFiles

    calls = []

    class Workspace:
        def snapshot(self):
            return "before"

        def open(self, path, replay=False):
            raise MemoryError

        def restore(self, snapshot):
            calls.append(("restore", snapshot))

    class Window:
        def show_error(self, title, text):
            calls.append((title, text))

    files = object.__new__(SessionFiles)
    files.window, files.workspace = Window(), Workspace()
    assert files.open_session(tmp_path / "big.json") is False
    assert calls[0] == ("restore", "before")
    assert calls[1][0] == "Cannot open session" and "not enough memory" in calls[1][1]


# ---- 3. text from files reaches a terminal only as printable text --------------------------------------
NASTY = "a\x1b]0;pwned\x07b\rc\u202ed\u2066e\udcfff\x9bg\nPASS  correct"


def test_printable_shows_every_control_as_a_visible_escape():
    shown = printable(NASTY)
    assert shown == "a\\x1b]0;pwned\\x07b\\rc\\u202ed\\u2066e\\udcfff\\x9bg\\nPASS  correct"
    assert shown.isprintable()
    assert printable("tab\tkept") == "tab\tkept"
    assert printable("two\nlines\x1b", lines=True) == "two\nlines\\x1b"
    shown.encode("ascii")  # nothing a narrow terminal cannot print


def _exercise_toml(folder: Path, **changes) -> Path:
    text = (EXERCISES / "tiled.toml").read_text(encoding="utf-8")
    for key, value in changes.items():
        text = text.replace(f"\n{key} =", f"\n{key} = {json.dumps(value)}\n_{key}_old =", 1)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tiled.toml"
    path.write_text(text.replace("\n_", "\n#_"), encoding="utf-8")  # the old value left as a comment line
    (folder / "tiled.cu").write_bytes((EXERCISES / "tiled.cu").read_bytes())
    return path


def test_hints_and_titles_from_an_exercise_print_as_one_line_of_text(tmp_path, capsys):
    toml = tmp_path / "ex" / "tiled.toml"
    text = (EXERCISES / "tiled.toml").read_text(encoding="utf-8")
    text = text.replace('title = "', 'title = "\\u001b]0;owned\\u0007 ', 1)
    text = text.replace("hints = [", 'hints = [\n  "\\u001b[2J\\u202eevil\\nPASS  correct",', 1)
    text = text.replace("[zh]", "#[zh]").split("#[zh]")[0]  # English only: the hint counts stay equal
    toml.parent.mkdir()
    toml.write_text(text, encoding="utf-8")
    (toml.parent / "tiled.cu").write_bytes((EXERCISES / "tiled.cu").read_bytes())
    assert main(["exercise", "hint", str(toml), "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "\x1b" not in out and "\u202e" not in out
    assert "\\x1b[2J\\u202eevil\\nPASS  correct" in out
    assert main(["exercise", "start", str(toml), str(tmp_path / "work")]) == 0
    md = (tmp_path / "work" / "tiled.md").read_text(encoding="utf-8")
    assert "\x1b" not in md and "\x07" not in md and md.startswith("# \\x1b]0;owned\\x07 ")


def test_a_check_record_cannot_forge_report_lines(tmp_path, capsys):
    from gemmviz.core.exercise.report import report_text

    record = {
        "exercise": "tiled",
        "file": "k.cu",
        "verdicts": [{"status": "fail", "goal": "correct", "detail": "wrong\n  PASS  correct   forged"}],
        "not_run": ["timing\n  PASS  fast      forged", "\x1b[2Jclear"],
        "created": "2026-12-01T00:00:00",
    }
    text = report_text(record)
    assert "\x1b" not in text
    assert not any(line.lstrip().startswith("PASS") for line in text.splitlines())


def test_an_unknown_key_of_a_check_record_is_refused_in_one_printable_line(tmp_path, capsys):
    path = tmp_path / "k.check.json"
    path.write_text(json.dumps({"format": "gemmviz-check", "\x1b]0;x\x07\nPASS  all": 1}))
    assert main(["exercise", "show", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err and "\x07" not in err


def test_an_ascii_terminal_and_a_lone_surrogate_never_raise_unicode_errors(tmp_path):
    name = os.fsencode(str(tmp_path)) + b"/\xff\x1b[2J.check.json"
    with open(name, "wb") as f:
        f.write(b"{}")
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-m", "gemmviz", "exercise", "show", name], capture_output=True, env=env, timeout=120
    )
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr.decode("ascii")  # nothing but ASCII reached the terminal
    assert err.count("\n") == 1 and "\x1b" not in err and "UnicodeEncodeError" not in err
    assert "\\udcff\\x1b[2J.check.json" in err


# ---- 4. names gemmviz picks are never followed through links -------------------------------------------
def test_exercise_start_force_replaces_links_never_their_targets(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("secret")
    out = tmp_path / "out"
    out.mkdir()
    for name in ("tiled.cu", "tiled.md"):
        (out / name).symlink_to(victim)
    assert main(["exercise", "start", "tiled", str(out), "--force"]) == 0
    assert victim.read_text() == "secret"
    assert not (out / "tiled.cu").is_symlink() and "gemm_tiled" in (out / "tiled.cu").read_text()


@pytest.mark.parametrize("kind", ["link-out", "fifo", "folder", "missing", "too-big", "binary"])
def test_a_starter_that_cannot_be_copied_is_refused_with_exit_2(tmp_path, capsys, kind):
    toml = _exercise_toml(tmp_path / "ex")
    starter = toml.parent / "tiled.cu"
    starter.unlink()
    if kind == "link-out":
        starter.symlink_to("/etc/passwd")
    elif kind == "fifo":
        os.mkfifo(starter)
    elif kind == "folder":
        starter.mkdir()
    elif kind == "too-big":
        starter.write_bytes(b"a" * 300_000)
    elif kind == "binary":
        starter.write_bytes(b"\0\1\2")
    assert main(["exercise", "start", str(toml), str(tmp_path / "w")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tiled.cu" in err and "bug in gemmviz" not in err
    assert not (tmp_path / "w" / "tiled.cu").exists() and not (tmp_path / "w" / "tiled.md").exists()


def test_desktop_files_replace_links_never_their_targets(tmp_path, monkeypatch):
    from gemmviz.cli import desktop

    victim = tmp_path / "victim"
    victim.write_text("secret")
    home = tmp_path / "share"
    (home / "applications").mkdir(parents=True)
    (home / "icons" / "hicolor" / "scalable" / "apps").mkdir(parents=True)
    (home / "applications" / "gemmviz.desktop").symlink_to(victim)
    (home / "icons" / "hicolor" / "scalable" / "apps" / "gemmviz.svg").symlink_to(victim)
    entry, icon = desktop.install(home)
    assert victim.read_text() == "secret"
    assert not entry.is_symlink() and not icon.is_symlink() and "Exec=" in entry.read_text()


def test_settings_are_never_written_over_an_unparsed_file_or_through_a_link(qapp, tmp_path, monkeypatch, caplog):
    from gemmviz.core.settings import SETTINGS_NAME
    from gemmviz.ui import settings_store

    monkeypatch.setenv("GEMMVIZ_CONFIG_DIR", str(tmp_path))
    path = tmp_path / SETTINGS_NAME
    garbage = b"[a\nb=\x00\xff[[[\n"
    path.write_bytes(garbage)
    qs = settings_store.open_settings()
    qs.setValue("window/controls", False)
    qs.sync()
    assert path.read_bytes() == garbage and "could not be read" in caplog.text
    path.unlink()
    victim = tmp_path / "passwd"
    victim.write_text("root:x:0:0:root:/root:/bin/bash\n")
    path.symlink_to(victim)
    qs = settings_store.open_settings()
    qs.setValue("window/controls", False)
    qs.sync()
    assert victim.read_text() == "root:x:0:0:root:/root:/bin/bash\n" and "symbolic link" in caplog.text


# ---- 5. all-or-nothing exports ------------------------------------------------------------------------
def _lesson_export(out: Path, *extra: str) -> int:
    return main(["lesson", "seed001", "--export", str(out), "--size", "640x360", *extra])


def test_a_disk_full_at_a_slide_leaves_the_old_lesson_and_no_new_slides(tmp_path, monkeypatch, capsys):
    out = tmp_path / "slides"
    out.mkdir()
    old = {"lesson.pdf": b"%PDF old", "step-01.png": b"old 1", "notes.txt": b"mine"}
    for name, data in old.items():
        (out / name).write_bytes(data)
    real = fileio.write_new
    written = []

    def full(path, data):
        if len(written) == 4:  # the fifth file: the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(path)
        real(path, data)

    monkeypatch.setattr(fileio, "write_new", full)
    assert _lesson_export(out) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == old  # nothing new, nothing staged


def test_lesson_export_replaces_links_at_its_names(tmp_path):
    victim = tmp_path / "victim"
    victim.write_bytes(b"secret")
    out = tmp_path / "slides"
    out.mkdir()
    (out / "step-01.png").symlink_to(victim)
    (out / "lesson.pdf").symlink_to(victim)
    assert _lesson_export(out) == 0
    assert victim.read_bytes() == b"secret"
    assert (out / "lesson.pdf").read_bytes().startswith(b"%PDF") and not (out / "lesson.pdf").is_symlink()


def test_frames_export_removes_only_the_frames_it_wrote(tmp_path, qapp):
    from gemmviz.core.problem import Problem
    from gemmviz.core.schedule.block import block_schedule
    from gemmviz.ui.export.exporters import export_frames

    out = tmp_path / "frames"
    out.mkdir()
    (out / "frame_0500.png").write_bytes(b"the user's own")
    long = block_schedule("gpu-tiled", Problem(64, 64, 64), 16)
    short = block_schedule("gpu-tiled", Problem(32, 32, 16), 16)
    n_long = export_frames(long, out, width=160, height=90)
    n_short = export_frames(short, out, width=160, height=90)
    assert n_short < n_long
    names = sorted(p.name for p in out.iterdir())
    assert (out / "frame_0500.png").read_bytes() == b"the user's own"  # not written by gemmviz: kept
    assert [n for n in names if n.startswith("frame_") and n != "frame_0500.png"] == [
        f"frame_{i:04d}.png" for i in range(n_short)
    ]
    assert not any(n.startswith(fileio.STAGING_PREFIX) for n in names)


def test_a_failed_frames_export_leaves_the_folder_as_it_was(tmp_path, qapp, monkeypatch):
    from gemmviz.core.problem import Problem
    from gemmviz.core.schedule.block import block_schedule
    from gemmviz.ui.export import exporters

    out = tmp_path / "frames"
    out.mkdir()
    (out / "frame_0000.png").write_bytes(b"old frame")
    calls = []
    real = fileio.write_atomic

    def full(path, data, *a, **k):
        calls.append(path)
        if len(calls) == 3:
            raise fileio.OutputError(f"cannot write {path}: No space left on device")
        real(path, data, *a, **k)

    monkeypatch.setattr(fileio, "write_atomic", full)
    with pytest.raises(fileio.OutputError):
        exporters.export_frames(block_schedule("gpu-tiled", Problem(64, 64, 64), 16), out, width=160, height=90)
    assert sorted(p.name for p in out.iterdir()) == ["frame_0000.png"]
    assert (out / "frame_0000.png").read_bytes() == b"old frame"


# ---- 6. the pixel budget ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv, words",
    [
        (["lesson", "seed000", "--export", "{tmp}/s", "--size", "8192x8192"], "67,108,864 pixels, over the 16,777,216"),
        (["lesson", "{tmp}/l.toml", "--export", "{tmp}/s", "--size", "4096x4096"], "20 slides at 4096x4096 are 336"),
        (["animate", "--mnk", "64", "-o", "{tmp}/a.gif", "--size", "8192x8192"], "over the 16,777,216-pixel"),
        (["export", "h200-2026-12-01", "-o", "{tmp}/c.png", "--size", "8192x4096"], "over the 16,777,216-pixel"),
        # a pixel over: "16.8 megapixels, over the 16.8-megapixel budget" said nothing
        (["export", "h200-2026-12-01", "-o", "{tmp}/c.png", "--size", "4097x4097"], "16,785,409 pixels, over the"),
    ],
)
def test_sizes_over_the_pixel_budget_are_refused_before_any_drawing(tmp_path, capsys, argv, words):
    steps = "".join(f'\n[[step]]\ntitle = "Step {i}"\ntext = "Words."\n' for i in range(20))
    (tmp_path / "l.toml").write_text(f'title = "Twenty"\n{steps}', encoding="utf-8")
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if "warning" not in line]
    assert len(err) == 1 and words in err[0]
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["l.toml"]


def test_the_pixel_budget_is_stated_in_help(capsys):
    for command in ("lesson", "animate", "export"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "4096x4096" in " ".join(capsys.readouterr().out.split())


# ---- 7. refusals: exit 2 and one line naming the file, field or variable ----------------------------------
@pytest.mark.parametrize(
    "text, words",
    [
        ("a = " + "[" * 30000 + "]" * 30000 + "\n", "nested too deep"),
        ("hintz = []\n", "unknown key 'hintz'"),
    ],
)
def test_bad_exercise_tomls_are_refused_naming_the_file(tmp_path, capsys, text, words):
    toml = tmp_path / "tiled.toml"
    toml.write_text((EXERCISES / "tiled.toml").read_text(encoding="utf-8").replace("\n[zh]", f"\n{text}\n[zh]", 1))
    assert main(["exercise", "hint", str(toml)]) == 2
    err = capsys.readouterr().err
    assert words in err and str(toml) in err and err.count("\n") == 1


def test_an_unknown_key_in_an_exercise_language_table_is_refused(tmp_path, capsys):
    toml = tmp_path / "tiled.toml"
    toml.write_text((EXERCISES / "tiled.toml").read_text(encoding="utf-8") + '\ntitel = "x"\n', encoding="utf-8")
    assert main(["exercise", "hint", str(toml)]) == 2
    assert "[zh]: unknown key 'titel'" in capsys.readouterr().err


def test_an_exercise_with_a_byte_order_mark_is_read(tmp_path, capsys):
    toml = tmp_path / "tiled.toml"
    toml.write_bytes(b"\xef\xbb\xbf" + (EXERCISES / "tiled.toml").read_bytes())
    (tmp_path / "tiled.cu").write_bytes((EXERCISES / "tiled.cu").read_bytes())
    assert main(["exercise", "hint", str(toml)]) == 0
    assert capsys.readouterr().out.startswith("hint 1/")


def test_a_bad_cache_dir_is_named_with_its_variable(tmp_path, monkeypatch):
    from gemmviz.backends.kernel_cache import CacheRefused, kernel_cache_dir, secure_cache_dir

    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("GEMMVIZ_CACHE_DIR", str(blocker))
    with pytest.raises(
        CacheRefused, match=r"GEMMVIZ_CACHE_DIR=.*cannot be made \(.*/file is a file, not a folder\)"
    ) as info:
        secure_cache_dir(kernel_cache_dir())
    assert info.value.exit_status == 2


def test_install_desktop_follows_the_xdg_spec(tmp_path, monkeypatch, capsys):
    from gemmviz.cli import desktop

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", "relative/share")  # the spec: a relative path is ignored
    assert desktop.data_home() == tmp_path / "home" / ".local" / "share"
    monkeypatch.setenv("XDG_DATA_HOME", "/proc")
    assert main(["--install-desktop"]) == 2
    err = capsys.readouterr().err
    assert "/proc/applications (XDG_DATA_HOME)" in err and err.count("\n") == 1
    share = tmp_path / "share"
    share.mkdir()
    (share / "applications").write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(share))
    assert main(["--install-desktop"]) == 2
    assert "applications is a file, not a folder" in capsys.readouterr().err


@pytest.mark.parametrize(
    "path, exec_line",
    [
        ("/opt/100%/bin/gemmviz", "Exec=/opt/100%%/bin/gemmviz"),
        ("/opt/a b/gemmviz", 'Exec="/opt/a b/gemmviz"'),
        ('/opt/q"$`\\/gemmviz', 'Exec="/opt/q\\\\"\\\\$\\\\`\\\\\\\\/gemmviz"'),
        ("/opt/new\nline/gemmviz", 'Exec="/opt/new\\nline/gemmviz"'),
    ],
)
def test_exec_is_escaped_as_the_desktop_entry_spec_says(monkeypatch, path, exec_line):
    from gemmviz.cli import desktop

    monkeypatch.setattr(desktop.shutil, "which", lambda _name: path)
    monkeypatch.setattr(desktop.Path, "is_file", lambda self: False)
    monkeypatch.setattr(desktop, "shipped", _shipped_entry)
    lines = desktop.desktop_entry().splitlines()
    assert exec_line in lines


def _shipped_entry(_name):
    return ROOT / "assets"


def test_too_many_animation_steps_in_a_lesson_names_file_and_line(tmp_path, capsys):
    lesson = tmp_path / "big.toml"
    lesson.write_text(
        'title = "Big"\n\n[[step]]\ntitle = "T"\nview = "animation"\ntext = "Too many."\n'
        'animation = { variant = "gpu-tiled", mnk = "64x64x131072", tile = 16 }\n',
        encoding="utf-8",
    )
    assert main(["lesson", str(lesson), "--export", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"gemmviz: error: {lesson}:7: K = 131072 gives 32,769 animation steps")


def test_a_session_of_millions_of_empty_objects_is_refused_before_parsing(tmp_path):
    """20 MB of `{},` would be half a gigabyte of Python objects: counted and refused before json.loads."""
    from gemmviz.core.session.results import Session

    path = tmp_path / "objects.json"
    path.write_text("[" + "{}," * 7_000_000 + "{}]")
    tracemalloc.start()
    try:
        with pytest.raises(SessionError, match="lists or objects, over the"):
            Session.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 120 * 2**20


def test_a_tiny_tmpfs_that_fills_during_a_lesson_export_leaves_the_old_lesson(tmp_path):
    """A real full disk: a 200 KiB tmpfs (mounted in a private mount namespace, where the machine allows it)
    fills while the slides are staged; the old lesson.pdf and step-01.png stay, nothing else is left."""
    import shutil

    if shutil.which("unshare") is None or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode:
        pytest.skip("no private mount namespace here (unshare -m needs root)")
    out = tmp_path / "tf"
    out.mkdir()
    script = (
        f"mount -t tmpfs -o size=200k tmpfs {out} || exit 99; cd {out} && printf old > lesson.pdf && "
        f"printf old1 > step-01.png && {sys.executable} -m gemmviz lesson seed001 --export . --size 640x360; "
        "echo rc=$?; ls -A; cat lesson.pdf step-01.png"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, env=env, timeout=300)
    if proc.returncode == 99:
        pytest.skip("tmpfs cannot be mounted here")
    assert proc.stdout.split() == ["rc=1", "lesson.pdf", "step-01.png", "oldold1"], proc.stdout + proc.stderr
    # one line that says why; which file met the full disk first, and how its path is written, vary with the
    # library versions (how large each slide's bytes are) and are not held here
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gemmviz: error: "), proc.stderr
    assert "No space left on device" in lines[0] and "cannot write" in lines[0], proc.stderr


def test_profile_keeps_an_access_file_within_the_loaders_limit(monkeypatch):
    """What `gemmviz profile --accesses` writes, the loader reads: the first requests of each block are kept in
    detail within the limit, the totals (from every stored request) unchanged."""
    monkeypatch.setattr(bounds, "MAX_ACCESS_FILE_REQUESTS", 100)
    traces = [acc.from_json(_trace(80), f"t{i}", room=10**6) for i in range(2)]
    fitted = acc.fit_file(traces)
    assert sum(t.kept for t in fitted) <= 100 and all(t.kept > 0 for t in fitted)
    assert [t.summary for t in fitted] == [t.summary for t in traces]
    again = acc.parse_file(json.loads(json.dumps(acc.file_json(acc.AccessFile("x", "d", "c", fitted)))))
    assert [t.kept for t in again.traces] == [t.kept for t in fitted]
