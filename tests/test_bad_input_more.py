"""Hostile input, round 3: settings values and files, the recovery file, cached ceilings and tunings. Each
falls back (to a default, the shipped figures, or nothing) with a log line naming what was wrong; nothing
raises, hangs or deletes the user's file."""

import json
import logging
import os
import time

import pytest

from gemmviz.core import settings
from gemmviz.core.fileio import InputFileError, read_regular
from gemmviz.core.hardware.roofline import CeilingsError, check_ceilings, load_ceilings, user_ceilings_file
from gemmviz.core.kernels.tuning import config_problem, save_tuned, tuned_config, user_tuning_file
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.settings import Setting, settings_file

H200 = "NVIDIA H200"
SHIPPED_BANDWIDTH = load_ceilings(H200).bandwidth_gbs


# ---- settings values -------------------------------------------------------------------------------------
class _Unprintable:
    def __repr__(self):
        raise RuntimeError("repr exploded")


@pytest.mark.parametrize(
    "setting, raw",
    [
        (settings.REPEATS, "--5"),
        (settings.REPEATS, "+-5"),
        (settings.REPEATS, "-"),
        (settings.REPEATS, "1_000"),
        (settings.REPEATS, "\u0663"),  # an Arabic-Indic three: str.isdigit() says yes, int() too
        (settings.REPEATS, "1e3"),
        (settings.REPEATS, "5.0"),
        (settings.REPEATS, "0x10"),
        (settings.REPEATS, ""),
        (settings.REPEATS, 5.5),
        (settings.REPEATS, b"5"),
        (settings.REPEATS, 10**30),
        (settings.REPEATS, {"a": 1}),
        (settings.REPEATS, _Unprintable()),
        (settings.WARMUP, "-1"),
        (settings.COLD_L2, b"true"),
        (settings.COLD_L2, ["true"]),
        (settings.PRESET, ["1024"]),
        (settings.SWEEP, "256,\u202e512"),
        (settings.RECENT, [None]),
        (settings.RECENT, 5),
        (settings.GEOMETRY, b""),
        (settings.GEOMETRY, 12),
        (settings.param_setting("tile", [8, 16, 32], [16]), ["--8"]),
        (settings.param_setting("tile", [8, 16, 32], [16]), "16,32"),
    ],
)
def test_every_wrong_value_reads_as_the_default_with_a_log_line(setting, raw, caplog):
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        assert setting.read(raw) == setting.default
    assert len(caplog.records) == 1 and setting.key in caplog.text


@pytest.mark.parametrize("raw, value", [(" 5 ", 5), ("+7", 7), ("007", 7), (7, 7)])
def test_whole_numbers_as_ini_files_write_them(raw, value):
    assert settings.REPEATS.read(raw) == value


def test_a_check_that_raises_something_else_still_falls_back(caplog):
    weird = Setting("x/y", 3, "int")
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        assert weird.read(_Unprintable()) == 3
    assert "x/y" in caplog.text


# ---- the settings file -----------------------------------------------------------------------------------
qt = pytest.importorskip  # the window tests below need Qt


@pytest.fixture
def open_window(qtbot, monkeypatch, tmp_path):
    """A window made as the app makes it (its settings from core.settings.settings_file()), closed after."""
    qt("pytestqt")
    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.window import MainWindow
    from tests.fakes import FakeGpuBackend

    monkeypatch.setenv("GEMMVIZ_CONFIG_DIR", str(tmp_path / "conf"))
    made = []

    def make():
        w = MainWindow({"cpu": CpuBackend(), "cuda": FakeGpuBackend()}, load_recorded_without_gpu=False)
        qtbot.addWidget(w)
        w.show()
        qtbot.waitUntil(lambda: bool(w.workspace.environment), timeout=10000)
        made.append(w)
        return w

    yield make
    for w in made:
        w.close()


def _settings_text(text: str) -> None:
    settings_file().parent.mkdir(parents=True, exist_ok=True)
    settings_file().write_text(text)


@pytest.mark.parametrize(
    "text, logged",
    [
        ("[run]\nrepeats=--5\nwarmup=-3\n", "run/repeats"),
        ("[run]\nrepeats=@Variant(\\0\\0\\0\\x7f\\0\\0\\0\\x1b)\n", None),  # Qt reads it as nothing
        ("[run]\nrepeats=1e999\ncold=@ByteArray(\\xff)\npreset=@Invalid()\n", "run/repeats"),
        ('[run]\nwarmup="-"\nsweep=256,\\x0\n[window]\ngeometry=@ByteArray(nope)\n', "run/warmup"),
    ],
    ids=["double-minus", "variant", "floats-and-bytes", "quotes"],
)
def test_the_window_opens_with_defaults_from_a_wrong_settings_file(open_window, caplog, text, logged):
    _settings_text(text)
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        w = open_window()
    assert w.isVisible()
    assert w.run_panel.repeats_spin.value() == 20 and w.run_panel.warmup_spin.value() == 3
    assert logged is None or logged in caplog.text


def test_gemmviz_config_dir_moves_the_settings_file(open_window, tmp_path):
    w = open_window()
    assert w.settings.fileName() == str(tmp_path / "conf" / "gemmviz.conf")
    w.run_panel.repeats_spin.setValue(7)
    w.close()
    assert "repeats=7" in (tmp_path / "conf" / "gemmviz.conf").read_text()
    assert not (tmp_path / "config" / "gemmviz").exists()  # the platform's folder (XDG_CONFIG_HOME) untouched
    assert open_window().run_panel.repeats_spin.value() == 7  # and read back from there


@pytest.mark.parametrize(
    "make",
    [
        lambda p: os.mkfifo(p),
        lambda p: p.symlink_to("/dev/zero"),
        lambda p: p.mkdir(),
        lambda p: p.write_bytes(b"[run]\n" + b"x" * (settings.MAX_FILE_BYTES + 1)),
    ],
    ids=["fifo", "dev-zero", "folder", "huge"],
)
def test_a_settings_file_that_must_not_be_read_is_left_alone(open_window, caplog, make):
    settings_file().parent.mkdir(parents=True, exist_ok=True)
    make(settings_file())
    kind = os.lstat(settings_file()).st_mode
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        w = open_window()  # a FIFO would block here for ever if it were opened
    assert w.isVisible() and w.run_panel.repeats_spin.value() == 20
    assert "using defaults" in caplog.text and str(settings_file()) in caplog.text
    w.close()
    assert os.lstat(settings_file()).st_mode == kind


# ---- the recovery file -----------------------------------------------------------------------------------
def _recovery(tmp_path, monkeypatch):
    monkeypatch.setenv("GEMMVIZ_CONFIG_DIR", str(tmp_path / "conf"))
    from gemmviz.ui.recovery import recovery_path

    recovery_path().parent.mkdir(parents=True, exist_ok=True)
    return recovery_path()


@pytest.mark.parametrize(
    "content",
    [
        b'{"schema_version": 999, "results": []}',
        b'{"results": [1, 2]}',
        b'{"schema_version": 3, "results": [',
        b"\xff\xfe garbage",
        b"",
    ],
    ids=["newer-schema", "wrong-results", "cut-short", "garbage", "empty"],
)
def test_an_unreadable_recovery_file_is_set_aside_and_reported_never_deleted(
    open_window, tmp_path, monkeypatch, content
):
    path = _recovery(tmp_path, monkeypatch)
    path.write_bytes(content)
    w = open_window()
    assert w.recovery.offer() == 0
    aside = [p for p in path.parent.iterdir() if p.name.startswith("recovery-unreadable-")]
    assert len(aside) == 1 and aside[0].read_bytes() == content and not path.exists()
    assert "could not be read" in w.recovery.last_error and str(aside[0]) in w.recovery.last_error
    assert str(aside[0]) in w.statusBar().currentMessage()


def test_two_unreadable_recovery_files_in_one_second_keep_both(open_window, tmp_path, monkeypatch):
    path = _recovery(tmp_path, monkeypatch)
    monkeypatch.setattr(time, "strftime", lambda *a: "20260101-000000")
    w = open_window()
    for text in ("first", "second"):
        path.write_text(text)
        w.recovery.offer()
    kept = sorted(p.read_text() for p in path.parent.iterdir() if "unreadable" in p.name)
    assert kept == ["first", "second"]


@pytest.mark.parametrize("make", [lambda p: os.mkfifo(p), lambda p: p.symlink_to("/dev/zero")], ids=["fifo", "link"])
def test_a_recovery_file_that_is_not_a_file_is_set_aside_without_blocking(open_window, tmp_path, monkeypatch, make):
    path = _recovery(tmp_path, monkeypatch)
    make(path)
    w = open_window()
    assert w.recovery.offer() == 0
    assert not os.path.lexists(path) and "set aside" in w.recovery.last_error
    assert os.path.exists("/dev/zero")


def test_removing_the_recovery_file_leaves_what_is_not_a_regular_file(open_window, tmp_path, monkeypatch):
    path = _recovery(tmp_path, monkeypatch)
    os.mkfifo(path)
    w = open_window()
    w.recovery.remove()
    assert os.path.lexists(path)


# ---- cached ceilings -------------------------------------------------------------------------------------
GOOD_CEILINGS = {"device": H200, "bandwidth_gbs": 9999.0, "fp32_peak_gflops": 60000.0}


def _cache_ceilings(text: str | bytes) -> None:
    user_ceilings_file().parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        text = text.encode()
    user_ceilings_file().write_bytes(text)


def test_good_cached_ceilings_come_before_the_shipped_ones():
    _cache_ceilings(json.dumps(GOOD_CEILINGS))
    assert load_ceilings(H200).bandwidth_gbs == 9999.0


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("bandwidth_gbs", "4800", "bandwidth_gbs: not a finite number"),
        ("bandwidth_gbs", "NaN", "bandwidth_gbs: not a finite number"),
        ("bandwidth_gbs", "Infinity", "bandwidth_gbs: not a finite number"),
        ("bandwidth_gbs", -5, "bandwidth_gbs: -5 is outside"),
        ("bandwidth_gbs", 0, "bandwidth_gbs: 0 is outside"),
        ("bandwidth_gbs", 1e30, "bandwidth_gbs: 1e\\+30 is outside"),
        ("bandwidth_gbs", True, "bandwidth_gbs: not a finite number"),
        ("fp32_peak_gflops", [1], "fp32_peak_gflops: not a finite number"),
        ("tf32_gemm_gflops", {"a": 1}, "tf32_gemm_gflops: not a finite number"),
        ("l2_gbs", 1e300, "l2_gbs: 1e\\+300 is outside"),
        ("shared_gbs", -1e-9, "shared_gbs: .* is outside"),
        ("bandwidth_how", 5, "bandwidth_how: not text"),
    ],
)
def test_cached_ceilings_with_a_wrong_figure_are_skipped_naming_it(caplog, field, value, words):
    raw = value if isinstance(value, str) and value in ("NaN", "Infinity") else json.dumps(value)
    others = {k: v for k, v in GOOD_CEILINGS.items() if k != field}  # the field once: a key twice is its own refusal
    _cache_ceilings(json.dumps(others)[:-1] + f', "{field}": {raw}}}')
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        ceilings = load_ceilings(H200)
    assert ceilings.bandwidth_gbs == SHIPPED_BANDWIDTH  # the shipped figures instead
    assert len(caplog.records) == 1
    assert __import__("re").search(words, caplog.text) and "ceilings.json" in caplog.text


@pytest.mark.parametrize(
    "content, words",
    [
        (b"[1, 2]", "not a JSON object"),
        (b'{"bandwidth_gbs": 5}', None),  # no device: not this GPU's, silently
        (b"\xff\xfe\x00", "codec can't decode"),
        (b"{" * 100_000, "nested too deep"),
        (b'{"device": "' + b"x" * 300 + b'"}', None),  # another GPU's (a name cut or not)
        (b"{nope", "Expecting property name"),
    ],
    ids=["list", "no-device", "utf8", "deep", "long-device", "json"],
)
def test_cached_ceilings_that_are_not_ceilings_are_skipped(caplog, content, words):
    _cache_ceilings(content)
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        assert load_ceilings(H200).bandwidth_gbs == SHIPPED_BANDWIDTH
    if words:
        assert __import__("re").search(words, caplog.text)


def test_a_device_name_with_control_characters_is_cleaned():
    assert check_ceilings({"device": "GPU\u202e\x00X"})["device"] == "GPUX"


@pytest.mark.parametrize(
    "make",
    [
        lambda p: os.mkfifo(p),
        lambda p: p.symlink_to("/dev/zero"),
        lambda p: p.mkdir(),
        lambda p: p.write_bytes(b" " * (2 << 20)),
    ],
    ids=["fifo", "dev-zero", "folder", "huge"],
)
def test_a_ceilings_cache_that_is_not_a_small_file_is_skipped_without_blocking(make):
    user_ceilings_file().parent.mkdir(parents=True, exist_ok=True)
    make(user_ceilings_file())
    assert load_ceilings(H200).bandwidth_gbs == SHIPPED_BANDWIDTH


def test_saving_ceilings_refuses_what_loading_would_refuse(tmp_path):
    from gemmviz.core.fileio import write_atomic  # noqa: F401 (backends.ceilings imports pycuda lazily only)

    pytest.importorskip("gemmviz.backends.ceilings")
    from gemmviz.backends.ceilings import save_ceilings

    with pytest.raises(CeilingsError, match="bandwidth_gbs: not a finite number"):
        save_ceilings({**GOOD_CEILINGS, "bandwidth_gbs": float("nan")}, tmp_path / "c.json")
    assert not (tmp_path / "c.json").exists()


# ---- cached tunings --------------------------------------------------------------------------------------
VARIANT = "gpu-vectorize"
DEFAULT = VARIANTS[VARIANT].config
OTHER = next(c for c in VARIANTS[VARIANT].tune_space() if c != DEFAULT)


def _cache_tuning(data) -> None:
    user_tuning_file().parent.mkdir(parents=True, exist_ok=True)
    user_tuning_file().write_text(data if isinstance(data, str) else json.dumps(data))


def test_a_good_cached_tuning_is_used():
    _cache_tuning({"Some GPU": {VARIANT: {"config": OTHER, "gflops": 1.0}}})
    assert tuned_config(VARIANT, "Some GPU", DEFAULT) == (OTHER, True)


@pytest.mark.parametrize(
    "config, words",
    [
        ({**OTHER, "BM": "64"}, "not all whole numbers"),
        ({**OTHER, "BM": True}, "not all whole numbers"),
        ({**OTHER, "BM": 0}, "not one of the variant's tuning configurations"),
        ({**OTHER, "BM": 10**30}, "not one of the variant's tuning configurations"),
        ({**OTHER, "BM": 64.5}, "not all whole numbers"),
        ({**OTHER, "EXTRA": 1}, "its keys are not"),
        ({"BM": 64}, "its keys are not"),
    ],
    ids=["string", "bool", "zero", "huge", "float", "extra-key", "missing-keys"],
)
def test_a_cached_tuning_outside_the_tuning_space_is_not_compiled(caplog, config, words):
    _cache_tuning({"Some GPU": {VARIANT: {"config": config}}})
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        assert tuned_config(VARIANT, "Some GPU", DEFAULT) == (dict(DEFAULT), False)
    assert words in caplog.text and VARIANT in caplog.text


@pytest.mark.parametrize(
    "data",
    [
        "[1, 2]",
        '{"Some GPU": [1]}',
        '{"Some GPU": {"gpu-vectorize": 5}}',
        '{"Some GPU": {"gpu-vectorize": {"config": [1]}}}',
        "{nope",
        "NaN",
    ],
    ids=["list", "gpu-list", "entry-number", "config-list", "json", "nan"],
)
def test_a_cached_tuning_file_of_another_shape_gives_the_default(data):
    _cache_tuning(data)
    assert tuned_config(VARIANT, "Some GPU", DEFAULT) == (dict(DEFAULT), False)


def test_a_tuning_cache_that_is_a_fifo_does_not_block():
    user_tuning_file().parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(user_tuning_file())
    assert tuned_config(VARIANT, "Some GPU", DEFAULT) == (dict(DEFAULT), False)


def test_saving_a_tuning_over_a_broken_cache_replaces_the_broken_part():
    _cache_tuning('{"Some GPU": [1]}')
    save_tuned(VARIANT, "Some GPU", {"config": OTHER})
    assert tuned_config(VARIANT, "Some GPU", DEFAULT) == (OTHER, True)


def test_config_problem_accepts_the_default_and_the_space():
    assert config_problem(VARIANT, dict(DEFAULT), DEFAULT) is None
    assert all(config_problem(VARIANT, c, DEFAULT) is None for c in VARIANTS[VARIANT].tune_space())


# ---- the reader ------------------------------------------------------------------------------------------
def test_read_regular_refuses_what_is_not_a_small_regular_file(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "big").write_bytes(b"x" * 101)
    (tmp_path / "ok").write_bytes(b"x" * 100)
    for path, words in [
        (tmp_path / "fifo", "not a regular file"),
        ("/dev/zero", "not a regular file"),
        (tmp_path, "folder"),
        (tmp_path / "big", "over the 100-byte limit"),
        (tmp_path / "absent", "cannot read"),
    ]:
        with pytest.raises(InputFileError, match=words):
            read_regular(path, 100)
    assert read_regular(tmp_path / "ok", 100) == b"x" * 100


# ---- lesson files --------------------------------------------------------------------------------------
LESSON_STEP = '[[step]]\ntitle = "T"\ntext = "One sentence."\n'


def _lesson(tmp_path, head: str = "", step: str = LESSON_STEP, name: str = "l.toml"):
    path = tmp_path / name
    path.write_text(f'title = "L"\n{head}{step}')
    return path


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda p: os.mkfifo(p), "not a regular file"),
        (lambda p: p.symlink_to("/dev/zero"), "not a regular file"),
        (lambda p: p.mkdir(), "folder"),
        (lambda p: p.write_bytes(b"#" * (300 * 1024)), "larger than 256 KiB"),
        (lambda p: p.symlink_to(p), "cannot read it"),
    ],
    ids=["fifo", "dev-zero", "folder", "huge", "link-loop"],
)
def test_a_lesson_file_gets_the_session_loaders_file_rules(tmp_path, make, words):
    from gemmviz.core.lesson.lessons import LessonError, find_lesson

    path = tmp_path / "x.toml"
    make(path)
    with pytest.raises(LessonError, match=words) as info:
        find_lesson(str(path))  # a FIFO would block here, /dev/zero fill memory
    assert str(path) in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    "session, words",
    [
        ("/etc/passwd", "must be a shipped session's name"),
        ("../outside.json", "'..' leaves it"),
        ("sub/../../x.json", "'..' leaves it"),
        ("~/x.json", "must be a shipped session's name"),
        ("a\\\\b.json", "must be a shipped session's name"),
        ("x\u202e.json", "no control characters"),
        ("x" * 500, "one short line"),
    ],
)
def test_a_lesson_session_elsewhere_is_refused_naming_the_line(tmp_path, session, words):
    from gemmviz.core.lesson.lessons import LessonError, load_lesson

    path = _lesson(tmp_path, f'summary = "S"\nsession = "{session}"\n')
    with pytest.raises(LessonError, match=words) as info:
        load_lesson(path)
    assert f"{path}:3:" in str(info.value)


def test_a_lesson_session_may_be_shipped_by_name_or_a_file_beside_it(tmp_path):
    import shutil

    from gemmviz.core.lesson.lessons import lesson_session, load_lesson
    from gemmviz.core.paths import asset_path

    for name in ("h200-2026-12-01.json", "h200-2026-12-01"):
        assert lesson_session(load_lesson(_lesson(tmp_path, f'session = "{name}"\n'))).gpu == H200
    (tmp_path / "mine").mkdir()
    shutil.copy(asset_path("sessions", "published-seed001-a100.json"), tmp_path / "mine" / "s.json")
    assert lesson_session(load_lesson(_lesson(tmp_path, 'session = "mine/s.json"\n'))).results


def test_a_lesson_session_link_that_leads_outside_is_refused(tmp_path):
    from gemmviz.core.lesson.lessons import LessonError, lesson_session, load_lesson

    (tmp_path / "lesson").mkdir()
    (tmp_path / "lesson" / "s.json").symlink_to("/etc/passwd")
    lesson = load_lesson(_lesson(tmp_path / "lesson", 'session = "s.json"\n'))
    with pytest.raises(LessonError, match="leads outside the lesson's folder"):
        lesson_session(lesson)


def test_a_missing_lesson_session_names_the_shipped_ones(tmp_path):
    from gemmviz.core.lesson.lessons import LessonError, lesson_session, load_lesson, parse_lesson

    with pytest.raises(LessonError, match="neither a shipped session .*h200-2026-12-01.json.* nor a file in"):
        lesson_session(load_lesson(_lesson(tmp_path, 'session = "absent.json"\n')))
    text_lesson = parse_lesson('title = "L"\nsession = "mine.json"\n' + LESSON_STEP, "x", "x.toml")
    with pytest.raises(LessonError, match="is not a shipped session"):
        lesson_session(text_lesson)  # no folder: shipped names only


@pytest.mark.parametrize("bad", ["\\u0000", "\\u202e", "\\u0007", "\\u2066", "\\u009b"])
def test_control_characters_are_removed_from_every_step_text_and_the_summary(tmp_path, bad):
    from gemmviz.core.lesson.lessons import load_lesson

    step = f'[[step]]\ntitle = "T"\ntext = "Tiles{bad} are reused."\n'
    lesson = load_lesson(_lesson(tmp_path, f'summary = "Sum{bad}mary"\n', step))
    assert lesson.steps[0].text == "Tiles are reused." and lesson.summary == "Summary"


def test_cli_refuses_a_lesson_fifo_in_one_line(tmp_path, capsys):
    from gemmviz.cli import main

    os.mkfifo(tmp_path / "x.toml")
    assert main(["lesson", str(tmp_path / "x.toml"), "--export", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a regular file" in err and not (tmp_path / "out").exists()
    assert main(["--lesson", str(tmp_path / "x.toml")]) == 2


# ---- command-line limits ---------------------------------------------------------------------------------
BENCH_ARGS = ["bench", "--variants", "gpu-tiled", "--sizes", "16", "--quiet"]


@pytest.mark.parametrize(
    "argv, words",
    [
        ([*BENCH_ARGS, "--repeats", "200000"], "--repeats must be a whole number 1..100,000 (a session holds"),
        ([*BENCH_ARGS, "--repeats", "99999999999999999999"], "--repeats must be a whole number 1..100,000"),
        ([*BENCH_ARGS, "--warmup", "1000000000"], "--warmup must be a whole number 0..100,000"),
        ([*BENCH_ARGS, "--seed", "-1"], "--seed must be a whole number 0..4,294,967,295, got -1"),
        ([*BENCH_ARGS, "--seed", str(2**32)], "--seed must be a whole number 0..4,294,967,295"),
        ([*BENCH_ARGS, "--job-limit", "inf"], "--job-limit must be a number of seconds above 0 and at most 86,400"),
        ([*BENCH_ARGS, "--job-limit=-inf"], "--job-limit must be a number of seconds"),
        ([*BENCH_ARGS, "--job-limit", "nan"], "--job-limit must be a number of seconds"),
        ([*BENCH_ARGS, "--job-limit", "1e300"], "--job-limit must be a number of seconds"),
        ([*BENCH_ARGS, "--tile", "64"], "gpu-tiled: tile 64 is not supported (choose 8, 16, 32)"),
        (
            ["bench", "--variants", "gpu-naive,gpu-uncoalesced", "--sizes", "16", "--block", "64"],
            "--block 64: no chosen variant supports it (gpu-naive: 8, 16, 32; gpu-uncoalesced: 16, 32)",
        ),
        (
            ["profile", "--variants", "gpu-tiled", "--sizes", "16", "--out", "x.json", "--repeats", "200000"],
            "--repeats must be a whole number 1..100,000",
        ),
        (
            ["profile", "--variants", "gpu-tiled", "--sizes", "16", "--out", "x.json", "--seed", "-5"],
            "--seed must be a whole number",
        ),
        (["tune", "--variants", "gpu-vectorize", "--size", "1280000"], "--size must be a multiple of 128 from 128 to"),
        (["tune", "--variants", "gpu-vectorize", "--repeats", "10000000"], "--repeats must be a whole number 1..1000"),
        (
            ["animate", "--mnk", "32", "--gif", "x.gif", "--speed", "inf"],
            "--speed must be from 0.01 to 1000 steps per second",
        ),
        # a GIF frame holds 655.35 s at most: 1e-300 steps/s made every frame that long, silently
        (["animate", "--mnk", "32", "--gif", "x.gif", "--speed", "1e-300"], "--speed must be from 0.01 to 1000"),
        (["animate", "--mnk", "32", "--gif", "x.gif", "--speed", "nan"], "--speed must be from 0.01"),
    ],
    ids=[
        "repeats-200k",
        "repeats-huge",
        "warmup-huge",
        "seed-neg",
        "seed-2^32",
        "job-inf",
        "job-neg-inf",
        "job-nan",
        "job-huge",
        "tile-none",
        "block-none",
        "profile-repeats",
        "profile-seed",
        "tune-size",
        "tune-repeats",
        "speed-inf",
        "speed-tiny",
        "speed-nan",
    ],
)
def test_numbers_that_cannot_mean_anything_are_one_line_usage_errors(argv, words, capsys, monkeypatch, tmp_path):
    from gemmviz.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and "a bug in gemmviz" not in err
    assert list(tmp_path.iterdir()) == []  # nothing written, nothing run


def test_a_grid_value_some_variants_lack_runs_where_supported_and_names_the_rest(capsys, monkeypatch, tmp_path):
    import gemmviz.backends
    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.cli import main
    from tests.fakes import InstantGpu

    gpu = InstantGpu()
    monkeypatch.setattr(gemmviz.backends, "default_backends", lambda: {"cpu": CpuBackend(), "cuda": gpu})
    out = tmp_path / "s.json"
    argv = [
        "bench",
        "--variants",
        "gpu-naive,gpu-uncoalesced",
        "--sizes",
        "16",
        "--block",
        "8,16,32",
        "--repeats",
        "2",
        "--warmup",
        "0",
        "--quiet",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "note: gpu-uncoalesced has no block 8 (its choices: 16, 32): skipped" in err
    from gemmviz.core.session.results import Session

    ran = [(r.variant, r.params["block"]) for r in Session.load(out).results]
    assert ran == [
        ("gpu-naive", 8),
        ("gpu-naive", 16),
        ("gpu-naive", 32),
        ("gpu-uncoalesced", 16),
        ("gpu-uncoalesced", 32),
    ]
