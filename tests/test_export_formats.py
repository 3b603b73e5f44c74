"""The export formats' registry, without Qt: what the CLI and the dialogs list, and the rules of registering."""

import subprocess
import sys

import pytest

from gemmviz.core import export_formats as ef
from gemmviz.core.export_formats import ANIMATION, CHART, ExportFormat, register, unregister


def test_the_shipped_formats_and_what_is_listed():
    assert ef.suffixes(CHART) == (".png", ".svg") and ef.suffixes(ANIMATION) == (".gif", ".mp4")
    assert ef.file_filter(CHART) == "PNG image (*.png);;SVG drawing (*.svg)"
    assert ef.file_filter(ANIMATION) == "Animated GIF (*.gif);;MP4 video (*.mp4);;PNG frames (folder) (*)"
    assert ef.describe(CHART) == "out.png (PNG image) or out.svg (SVG drawing)"
    assert "out.mp4 (MP4 video, needs ffmpeg)" in ef.describe(ANIMATION)


def test_a_path_picks_its_format():
    # the classes themselves, or the ui's writers that replaced them where another test loaded ui/export
    assert issubclass(ef.for_path(CHART, "a/Chart.PNG"), ef.Png) and issubclass(ef.for_path(CHART, "x.svg"), ef.Svg)
    assert issubclass(ef.for_path(ANIMATION, "t.gif"), ef.Gif)
    assert issubclass(ef.for_path(ANIMATION, "frames/"), ef.PngFrames)
    with pytest.raises(ValueError, match=r"x\.pdf: a chart is written as \.png or \.svg"):
        ef.for_path(CHART, "x.pdf")
    with pytest.raises(KeyError, match="known: png, svg"):
        ef.get(CHART, "pdf")


def test_a_new_format_is_one_class_and_is_listed_everywhere():
    @register
    class Pdf(ExportFormat):
        name = "pdf"
        target = CHART
        suffix = ".pdf"
        title = "PDF document"

    try:
        assert ef.suffixes(CHART) == (".png", ".svg", ".pdf") and ef.for_path(CHART, "c.pdf") is Pdf
        assert ef.file_filter(CHART).endswith(";;PDF document (*.pdf)")
    finally:
        unregister(Pdf)
    assert ef.suffixes(CHART) == (".png", ".svg")


def test_the_ui_gives_a_format_its_writer_by_subclassing_it():
    written = []
    before = ef.get(CHART, "png")  # core's description, or the ui's writer where ui/export is loaded

    @register
    class PngWriter(before):
        def write(self, data):
            written.append(data)

    try:
        assert ef.get(CHART, "png") is PngWriter and ef.suffixes(CHART) == (".png", ".svg")  # replaced in place
        ef.for_path(CHART, "c.png")().write(b"image")
        assert written == [b"image"]
    finally:
        unregister(PngWriter)  # the description it extended comes back, in its place
    assert ef.get(CHART, "png") is before and ef.suffixes(CHART) == (".png", ".svg")


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"name": "png", "target": CHART, "suffix": ".pdf", "title": "t"}, "registered already"),
        ({"name": "png2", "target": CHART, "suffix": ".png", "title": "t"}, "png already writes charts as .png"),
        ({"name": "x", "target": "slides", "suffix": ".x", "title": "t"}, "target must be one of"),
        ({"name": "x", "target": CHART, "suffix": "PDF", "title": "t"}, "lower case and start with a dot"),
        ({"name": "x", "target": CHART, "suffix": ".x"}, "needs title"),
    ],
)
def test_clashes_and_incomplete_formats_are_refused(attrs, message):
    cls = type("Bad", (ExportFormat,), attrs)
    with pytest.raises((TypeError, ValueError), match=message):
        register(cls)
    assert ef.suffixes(CHART) == (".png", ".svg")


def test_the_cli_lists_the_formats_without_qt():
    code = (
        "import sys\n"
        "from gemmviz.cli.main import build_parser\n"
        "build_parser().parse_args(['export', 's', '-o', 'x.png'])\n"
        "assert not any(m.startswith(('PySide6', 'pyqtgraph')) for m in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
