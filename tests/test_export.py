"""Exports for slides: PNG at any size (lines scale), SVG, GIF; projector mode; bad input."""

import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QImage

from gemmviz.cli import main
from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.schedule.block import block_schedule
from gemmviz.core.session.results import Result, Session
from gemmviz.core.session.workspace import default_replay_session
from gemmviz.ui.export.exporters import ExportError, export_chart, export_gif
from gemmviz.ui.theme import LIGHT, OKABE_ITO


def flat_series():
    """One series, the same time at two sizes: a horizontal line whose thickness can be measured."""
    return [Result("cpu-naive", {}, n, n, n, "cpu", "fp32", True, samples_ms=[10.0, 10.0]) for n in (256, 4096)]


def line_thickness(path) -> int:
    """Rows of clearly blue pixels (the first Okabe–Ito colour, #0072B2) in one column of the image."""
    image = QImage(str(path))
    x = image.width() // 3  # between the two points, away from the markers
    return sum(1 for y in range(image.height()) if _bluish(QColor(image.pixel(x, y))))


def _bluish(c: QColor) -> bool:
    return c.blue() - c.red() > 80


def not_blank(path) -> bool:
    image = QImage(str(path))
    colours = {image.pixel(x, y) for x in range(0, image.width(), 9) for y in range(0, image.height(), 9)}
    return len(colours) > 5


@pytest.mark.parametrize("kind", ["time", "gflops", "speedup", "roofline", "dashboard"])
def test_png_has_exactly_the_asked_size_and_is_not_blank(qapp, tmp_path, kind):
    session = Session.load(default_replay_session())
    out = export_chart(kind, session.results, tmp_path / f"{kind}.png", 1280, 720)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 720) and not_blank(out)


@pytest.mark.parametrize("alpha", [255, 128], ids=["opaque", "translucent"])
def test_png_encode_keeps_every_pixel(qapp, alpha):
    """gemmviz's own PNG writer (faster than Qt's): a valid PNG, read back by Qt and by Pillow pixel for pixel,
    8-bit RGB where every pixel is opaque and RGBA otherwise; an odd width pads Qt's rows, not the file's."""
    import io

    import numpy as np
    from PySide6.QtGui import QPainter

    from gemmviz.ui.export.exporters import png_encode

    image = QImage(37, 23, QImage.Format.Format_ARGB32)
    image.fill(QColor(10, 20, 30, alpha))
    painter = QPainter(image)
    painter.setPen(QColor("#D55E00"))
    painter.drawLine(0, 0, 36, 22)  # antialiased colours in every row, changing from row to row
    painter.end()
    data = png_encode(image)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    want = image.convertToFormat(QImage.Format.Format_RGBA8888)
    assert QImage.fromData(data).convertToFormat(QImage.Format.Format_RGBA8888) == want
    pil = pytest.importorskip("PIL.Image").open(io.BytesIO(data))
    assert pil.mode == ("RGB" if alpha == 255 else "RGBA")
    rows = np.frombuffer(want.constBits(), np.uint8).reshape(23, want.bytesPerLine())[:, : 37 * 4]
    assert (np.asarray(pil.convert("RGBA")) == rows.reshape(23, 37, 4)).all()


def test_4k_lines_are_twice_as_thick_as_1080p(qapp, tmp_path):
    hd = export_chart("time", flat_series(), tmp_path / "hd.png", 1920, 1080)
    uhd = export_chart("time", flat_series(), tmp_path / "uhd.png", 3840, 2160)
    assert LIGHT.palette[0] == OKABE_ITO[0] == "#0072B2"
    t_hd, t_uhd = line_thickness(hd), line_thickness(uhd)
    assert t_hd >= 1 and 1.6 <= t_uhd / t_hd <= 2.5, (t_hd, t_uhd)


def test_svg_parses(qapp, tmp_path):
    out = export_chart("roofline", Session.load(default_replay_session()).results, tmp_path / "r.svg", 1600, 900)
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg") and len(list(root.iter())) > 50


def test_gif_has_a_frame_per_step_and_glides_into_each_load(qapp, tmp_path):
    from PIL import Image

    from gemmviz.ui.tiling.frames import MOVE_FRAMES

    schedule = block_schedule("gpu-tiled", Problem(40, 40, 40), 16)
    n = export_gif(schedule, tmp_path / "a.gif", (1, 2), 320, 180)
    loads = sum(step.kind == "load" for step in schedule.steps)
    with Image.open(tmp_path / "a.gif") as im:
        assert im.n_frames == n == len(schedule.steps) + MOVE_FRAMES * loads and im.size == (320, 180)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"kind": "pie"}, ExportError, "unknown chart"),
        ({"width": 0}, ProblemError, "out of range"),
        ({"width": 100000}, ProblemError, "out of range"),
        ({"path": "missing/x.png"}, ExportError, "does not exist"),
        ({"path": "x.zzz"}, ExportError, "must end in"),
        ({"results": []}, ExportError, "nothing to chart"),
    ],
)
def test_bad_exports_say_why_and_leave_nothing(qapp, tmp_path, kwargs, error, message):
    args = {"kind": "time", "results": flat_series(), "path": "x.png", "width": 640, "height": 360, **kwargs}
    args["path"] = tmp_path / args["path"]
    with pytest.raises(error, match=message):
        export_chart(args["kind"], args["results"], args["path"], args["width"], args["height"])
    assert list(tmp_path.iterdir()) == []


def test_cli_export_and_its_errors(tmp_path, capsys):
    session = str(default_replay_session())
    assert main(["export", session, "--chart", "roofline", "--size", "800x600", "-o", str(tmp_path / "r.png")]) == 0
    assert QImage(str(tmp_path / "r.png")).width() == 800
    assert main(["export", session, "--size", "0x10", "-o", str(tmp_path / "a.png")]) == 2
    assert main(["export", session, "-o", str(tmp_path / "nope" / "a.png")]) == 1
    empty = tmp_path / "empty.json"
    Session().save(empty)
    assert main(["export", str(empty), "-o", str(tmp_path / "e.png")]) != 0  # an empty chart is refused
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main(["export", str(bad), "-o", str(tmp_path / "b.png")]) == 2
    err = capsys.readouterr().err
    assert "out of range" in err and "does not exist" in err and "not valid JSON" in err
    assert "nothing to chart" in err or "no results" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "empty.json", "r.png"]


def test_cli_animate_gif(tmp_path, capsys):
    assert main(["animate", "--mnk", "32", "--tile", "16", "--gif", str(tmp_path / "a.gif"), "--size", "320x180"]) == 0
    assert "15 frames" in capsys.readouterr().out  # 9 steps, 2 loads each gliding in over 3 extra frames


def test_projector_mode_changes_fonts_lines_and_palette(qtbot, tmp_path):
    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.window import MainWindow
    from tests.fakes import FakeGpuBackend

    w = MainWindow(
        {"cpu": CpuBackend(), "cuda": FakeGpuBackend()},
        QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
        load_recorded_without_gpu=False,
    )
    qtbot.addWidget(w)
    charts = w.charts_tab
    assert charts.time_chart.theme is LIGHT and charts.show_combo.currentText() == "all four"
    w.projector_action.setChecked(True)  # Ctrl+P: applied once the queued key presses are handled
    qtbot.waitUntil(lambda: w.applied_view == (True, False))
    assert charts.show_combo.currentData() == "all four"  # the teacher's choice is kept (issue 20)
    shown = charts.panels[charts.overview_now()[0]].chart  # the overview's first chart (two of them at < 1080 rows)
    assert shown.theme.font_pt >= 12 and shown.theme.line_px >= 3  # the overview: scaled
    charts.show_combo.setCurrentIndex(charts.show_combo.findData("time"))
    assert charts.gflops_chart.isHidden() and not charts.table.isVisibleTo(w)
    assert (
        charts.time_chart.theme.font_pt >= 20
        and charts.time_chart.theme.line_px >= 3
        and w.tiling.view.theme.font_pt >= 20
    )
    light_palette = charts.time_chart.theme.palette
    w.dark_action.setChecked(True)
    qtbot.waitUntil(lambda: w.applied_view == (True, True))
    assert (
        QColor(charts.time_chart.theme.background).lightness() < 50 and charts.time_chart.theme.palette != light_palette
    )
    assert charts.time_chart.theme.palette[0] in OKABE_ITO  # colour-blind-safe in every theme
    w.play_action.trigger()
    assert w.tiling.timer.isActive()
    w.play_action.trigger()
    assert not w.tiling.timer.isActive()
    step = w.tiling.step
    w.step_forward_action.trigger()
    assert w.tiling.step == step + 1
    assert w.fullscreen_action.shortcut().toString() == "F11" and w.export_action.shortcut().toString() == "Ctrl+E"
    w.dark_action.setChecked(False)
    w.projector_action.setChecked(False)  # projector mode enlarges the application's font: give it back
    qtbot.waitUntil(lambda: w.applied_view == (False, False))
    w.close()
