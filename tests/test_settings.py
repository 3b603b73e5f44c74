"""Settings: every value read is checked against its declaration; a wrong one gives the default and a log line
naming the key. Temp QSettings files only, never the user's."""

import logging

import pytest

from gemmviz.core import settings
from gemmviz.core.settings import Setting, SettingError


@pytest.mark.parametrize(
    "setting, raw, expected",
    [
        (settings.REPEATS, "50", 50),  # INI files store numbers as text
        (settings.REPEATS, 7, 7),
        (settings.WARMUP, "0", 0),
        (settings.COLD_L2, "true", True),
        (settings.COLD_L2, "false", False),
        (settings.COLD_L2, True, True),
        (settings.PRESET, "2048", "2048"),
        (settings.RECENT, "/a.json", ["/a.json"]),  # QSettings gives a one-item list back as a string
        (settings.RECENT, ["/a.json", "/b.json"], ["/a.json", "/b.json"]),
        (settings.param_setting("tile", [8, 16, 32], [16]), ["8", "32"], [8, 32]),
        (settings.GEOMETRY, b"\x01\xd9\xd0\xcb", b"\x01\xd9\xd0\xcb"),
    ],
)
def test_good_values_read_as_themselves(setting, raw, expected, caplog):
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        assert setting.read(raw) == expected
    assert not caplog.records


@pytest.mark.parametrize(
    "setting, raw, words",
    [
        (settings.REPEATS, "abc", "not a whole number"),
        (settings.REPEATS, "0", "out of range"),
        (settings.REPEATS, "1001", "out of range"),
        (settings.REPEATS, True, "not a whole number"),
        (settings.REPEATS, "9" * 40, "not a whole number"),
        (settings.WARMUP, ["1"], "not a whole number"),
        (settings.COLD_L2, "maybe", "not true or false"),
        (settings.COLD_L2, 3, "not true or false"),
        (settings.PRESET, "huge", "not one of"),
        (settings.SWEEP, "x" * 5000, "over the 1000 limit"),
        (settings.SWEEP, 12, "not text"),
        (settings.DIMS["m"], "10\x00", "control characters"),
        (settings.RECENT, [f"/s{i}.json" for i in range(1000)], "over the 8 limit"),
        (settings.RECENT, {"a": 1}, "not a list"),
        (settings.RECENT, [1, 2], "an item is wrong"),
        (settings.variants_setting(["cpu-naive", "cublas"], ["cpu-naive"]), ["nope"], "not one of"),
        (settings.param_setting("tile", [8, 16, 32], [16]), ["7"], "not one of"),
        (settings.param_setting("tile", [8, 16, 32], [16]), ["x"], "not a whole number"),
        (settings.GEOMETRY, "abc", "not saved window data"),
        (settings.GEOMETRY, b"x" * (settings.MAX_BYTES + 1), "bytes, not"),
    ],
)
def test_wrong_values_fall_back_to_the_default_with_a_log_line(setting, raw, words, caplog):
    with pytest.raises(SettingError, match=words):
        setting.check(raw)
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        assert setting.read(raw) == setting.default
    assert len(caplog.records) == 1 and setting.key in caplog.text and words in caplog.text


def test_a_missing_key_is_its_default_without_a_log_line(caplog):
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        assert settings.REPEATS.read(None) == 20 and settings.RECENT.read(None) == []
    assert not caplog.records


def test_the_declarations_match_the_run_panel():
    pytest.importorskip("PySide6")
    from gemmviz.ui.run.panel import CUSTOM, PRESETS

    assert settings.PRESET.choices == (*PRESETS, CUSTOM) and settings.PRESET.default in PRESETS
    assert Setting("x", 1, "int").read("2") == 2


def test_qsettings_round_trip_and_garbage_file(tmp_path, caplog):
    pytest.importorskip("PySide6")
    from PySide6.QtCore import QSettings

    from gemmviz.ui import settings_store

    path = tmp_path / "s.ini"
    qs = QSettings(str(path), QSettings.Format.IniFormat)
    for setting, value in (
        (settings.REPEATS, 42),
        (settings.COLD_L2, True),
        (settings.RECENT, ["/a.json"]),
        (settings.GEOMETRY, b"\x00\x01\x02"),
        (settings.SWEEP, "64,128"),
    ):
        settings_store.write(qs, setting, value)
    qs.sync()
    qs = QSettings(str(path), QSettings.Format.IniFormat)
    assert settings_store.read(qs, settings.REPEATS) == 42 and settings_store.read(qs, settings.COLD_L2) is True
    assert settings_store.read(qs, settings.RECENT) == ["/a.json"]
    assert settings_store.read(qs, settings.GEOMETRY) == b"\x00\x01\x02"
    assert settings_store.read(qs, settings.SWEEP) == "64,128"

    path.write_bytes(b"\xff\xfe[run]\x00\x00repeats=\x81\x82\n[[[\nrecent=@Variant(\\0\\0\\0\\x7f)\n")
    qs = QSettings(str(path), QSettings.Format.IniFormat)
    with caplog.at_level(logging.WARNING, logger="gemmviz"):
        assert settings_store.read(qs, settings.REPEATS) == 20
        assert settings_store.read(qs, settings.RECENT) == []
