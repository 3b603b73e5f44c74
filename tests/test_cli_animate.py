"""`gemmviz animate` writes through the registered animation formats (issue 22 review, item 2): -o by its path's
suffix, as File ▸ Export animation does, with -o's help from the registry; --frames, --gif and --mp4 stay as
aliases naming their format. A throwaway format registered in a test is listed and written, then unregistered."""

import pytest

pytest.importorskip("PySide6")

from gemmviz.cli import main
from gemmviz.core import export_formats
from gemmviz.core.catalogue import QT_TRANSLATE_NOOP

WRITTEN = []


class TestAnim(export_formats.ExportFormat):
    name = "zz-test-anim"
    target = export_formats.ANIMATION
    suffix = ".zza"
    title = QT_TRANSLATE_NOOP("", "Test animation")

    @staticmethod
    def write(schedule, path, thread, width, height, steps_per_second, theme, progress=None) -> int:
        WRITTEN.append((schedule.variant, thread, width, height, steps_per_second, theme.name))
        with open(path, "w") as f:
            f.write("\n".join(step.kind for step in schedule.steps))
        return len(schedule.steps)


@pytest.fixture
def test_format():
    before = list(export_formats.formats(export_formats.ANIMATION))
    export_formats.register(TestAnim)
    WRITTEN.clear()
    try:
        yield
    finally:
        export_formats.unregister(TestAnim)
        assert export_formats.formats(export_formats.ANIMATION) == before  # the registry as it was


def test_o_lists_and_writes_a_registered_format(test_format, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["animate", "--help"])
    assert "out.zza (Test animation)" in " ".join(capsys.readouterr().out.split())
    out = tmp_path / "a.ZZA"  # the suffix is matched as the app's dialog does, in any case
    argv = ["animate", "--mnk", "32", "--tile", "16", "--thread", "1,2", "--speed", "3", "-o", str(out)]
    assert main([*argv, "--size", "320x180", "--dark"]) == 0
    assert out.read_text().split("\n")[0] == "load" and len(WRITTEN) == 1
    variant, thread, width, height, speed, theme = WRITTEN[0]
    assert (variant, thread, width, height, speed) == ("gpu-tiled", (1, 2), 320, 180, 3.0) and "dark" in theme
    assert f"wrote {out}: {len(out.read_text().split())} frames (320x180)" in capsys.readouterr().out


def test_o_goes_through_the_same_dispatch_as_the_apps_dialog(test_format, tmp_path):
    from gemmviz.ui.export import formats

    for name in ("a.gif", "a.mp4", "a.zza", "folder"):
        assert (
            formats.writer(export_formats.ANIMATION, tmp_path / name).name
            == {"a.gif": "gif", "a.mp4": "mp4", "a.zza": "zz-test-anim", "folder": "frames"}[name]
        )


def test_unregistered_the_format_is_not_listed(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["animate", "--help"])
    assert ".zza" not in capsys.readouterr().out
    out = tmp_path / "a.zza"  # no format has the suffix: refused, naming the known ones (no folder named like a file)
    assert main(["animate", "--mnk", "32", "-o", str(out), "--size", "320x180"]) == 2
    err = capsys.readouterr().err
    assert ".zza is not a format" in err and ".gif" in err and ".zza," not in err and not out.exists()


def test_o_and_the_aliases_write_gif_and_frames(tmp_path, capsys):
    gif, folder, alias = tmp_path / "t.gif", tmp_path / "frames", tmp_path / "alias.gif"
    argv = ["animate", "--mnk", "32", "--size", "320x180", "-o", str(gif), "-o", str(folder), "--gif", str(alias)]
    assert main(argv) == 0
    assert gif.read_bytes()[:6] == b"GIF89a" and alias.read_bytes() == gif.read_bytes()
    frames = sorted(folder.glob("frame_*.png"))
    out = capsys.readouterr().out
    assert f"wrote {len(frames)} frames (320x180) to {folder}" in out and f"wrote {gif}: " in out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        ([], "give -o PATH, --frames DIR, --gif FILE or --mp4 FILE; -o writes out.gif (Animated GIF)"),
        (["-o", ""], "-o: an empty file name"),
        (["-o", "a.gif", "--gif", "a.gif"], "-o and --gif name the same file"),
        (["--gif", "a.mp4"], "must end in .gif"),
    ],
)
def test_bad_outputs_are_refused_before_any_frame(argv, words, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["animate", "--mnk", "32", *argv]) != 0
    assert words in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("variant", ["gpu-wgmma-tf32", "gpu-blocktile2d"])
def test_a_tile_given_to_a_variant_of_configured_tiles_is_refused_not_ignored(variant, tmp_path, capsys):
    """`--tile 8` for the wgmma animation drew its 256-row tiles and said nothing: a class asked for one thing and
    was shown another. Such a variant takes no --tile; the tiled ones keep their default of 16."""
    out = tmp_path / "a.png"
    assert main(["animate", "--variant", variant, "--mnk", "256", "--tile", "8", "-o", str(out)]) == 2
    assert f"--tile 8: {variant} animates the tiles of its own configuration" in capsys.readouterr().err
    assert not out.exists()
    assert main(["animate", "--variant", variant, "--mnk", "256", "--size", "160x90", "-o", str(out)]) == 0
    assert out.exists()


def test_the_tile_edge_defaults_to_16(tmp_path, test_format):
    assert main(["animate", "--mnk", "32", "--size", "160x90", "-o", str(tmp_path / "x.zza")]) == 0
    steps = (tmp_path / "x.zza").read_text().split("\n")
    assert steps.count("load") == 2  # 32 / 16: two K-slices of a 16-wide tile
