"""The export formats' registry, without Qt: what the CLI and the dialogs list, and the rules of registering.
The tests hold the registry to what it was before, not to the shipped list, so that a format added as
CONTRIBUTING.md says breaks none of them."""

import subprocess
import sys

import pytest

from gemmviz.core import export_formats
from gemmviz.core import export_formats as ef
from gemmviz.core.export_formats import ANIMATION, CHART, ExportFormat, register, unregister


def test_the_shipped_formats_come_first_and_are_listed():
    assert ef.suffixes(CHART)[:2] == (".png", ".svg") and ef.suffixes(ANIMATION)[:2] == (".gif", ".mp4")
    assert ef.file_filter(CHART).startswith("PNG image (*.png);;SVG drawing (*.svg)")
    assert ef.file_filter(ANIMATION).startswith("Animated GIF (*.gif);;MP4 video (*.mp4);;PNG frames (folder) (*)")
    assert ef.describe(CHART).startswith("out.png (PNG image) or out.svg (SVG drawing)")
    assert "out.mp4 (MP4 video, needs ffmpeg)" in ef.describe(ANIMATION)


def test_a_path_picks_its_format():
    # the classes themselves, or the ui's writers that replaced them where another test loaded ui/export
    assert issubclass(ef.for_path(CHART, "a/Chart.PNG"), ef.Png) and issubclass(ef.for_path(CHART, "x.svg"), ef.Svg)
    assert issubclass(ef.for_path(ANIMATION, "t.gif"), ef.Gif)
    assert issubclass(ef.for_path(ANIMATION, "frames/"), ef.PngFrames)
    written_as = " or ".join(ef.suffixes(CHART))
    with pytest.raises(ValueError, match=f"x.zzq: a chart is written as {written_as}$"):
        ef.for_path(CHART, "x.zzq")
    with pytest.raises(KeyError, match=f"known: {', '.join(f.name for f in ef.formats(CHART))}"):
        ef.get(CHART, "zz-no-such-format")


def test_a_new_format_is_one_class_and_is_listed_everywhere():
    before = ef.suffixes(CHART)

    @register
    class ZzFormat(ExportFormat):
        name = "zz-test-format"
        target = CHART
        suffix = ".zzt"
        title = "ZZ test document"

    try:
        assert ef.suffixes(CHART) == (*before, ".zzt") and ef.for_path(CHART, "c.ZZT") is ZzFormat
        assert ef.file_filter(CHART).endswith(";;ZZ test document (*.zzt)")
        assert ef.describe(CHART).endswith(" or out.zzt (ZZ test document)")
    finally:
        unregister(ZzFormat)
    assert ef.suffixes(CHART) == before


def test_the_ui_gives_a_format_its_writer_by_subclassing_it():
    written = []
    suffixes = ef.suffixes(CHART)
    before = ef.get(CHART, "png")  # core's description, or the ui's writer where ui/export is loaded

    @register
    class PngWriter(before):
        def write(self, data):
            written.append(data)

    try:
        assert ef.get(CHART, "png") is PngWriter and ef.suffixes(CHART) == suffixes  # replaced in place
        ef.for_path(CHART, "c.png")().write(b"image")
        assert written == [b"image"]
    finally:
        unregister(PngWriter)  # the description it extended comes back, in its place
    assert ef.get(CHART, "png") is before and ef.suffixes(CHART) == suffixes


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"name": "png", "target": CHART, "suffix": ".zzt", "title": "t"}, "registered already"),
        ({"name": "png2", "target": CHART, "suffix": ".png", "title": "t"}, "png already writes charts as .png"),
        ({"name": "zz-bad", "target": "slides", "suffix": ".zzt", "title": "t"}, "target must be one of"),
        ({"name": "zz-bad", "target": CHART, "suffix": "ZZT", "title": "t"}, "lower case and start with a dot"),
        ({"name": "zz-bad", "target": CHART, "suffix": ".zzt"}, "needs title"),
    ],
)
def test_clashes_and_incomplete_formats_are_refused(attrs, message):
    before = ef.suffixes(CHART)
    cls = type("Bad", (ExportFormat,), attrs)
    with pytest.raises((TypeError, ValueError), match=message):
        register(cls)
    assert ef.suffixes(CHART) == before


def test_the_cli_lists_the_formats_without_qt():
    code = (
        "import sys\n"
        "from gemmviz.cli.main import build_parser\n"
        "build_parser().parse_args(['export', 's', '-o', 'x.png'])\n"
        "assert not any(m.startswith(('PySide6', 'pyqtgraph')) for m in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_a_format_is_found_by_any_of_its_suffixes_and_lists_them_all():
    jpeg = export_formats.get(export_formats.CHART, "jpeg")
    assert export_formats.all_suffixes(jpeg) == (".jpg", ".jpeg")
    assert export_formats.for_path(export_formats.CHART, "chart.JPEG") is jpeg
    assert ".jpeg" in export_formats.suffixes(export_formats.CHART)
    assert jpeg.file_filter() == "JPEG image (*.jpg *.jpeg)"


def test_a_suffix_or_alias_another_format_has_is_refused():
    class Jfif(export_formats.ExportFormat):
        name = "jfif"
        target = export_formats.CHART
        suffix = ".jfif"
        aliases = (".jpeg",)
        title = "JFIF image"

    with pytest.raises(ValueError, match=r"jpeg already writes charts as \.jpeg"):
        export_formats.register(Jfif)
    Jfif.aliases = (".JFIF",)
    with pytest.raises(ValueError, match="lower case"):
        export_formats.register(Jfif)
    assert "jfif" not in [f.name for f in export_formats.formats(export_formats.CHART)]
