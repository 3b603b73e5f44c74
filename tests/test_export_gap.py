"""`gemmviz export SESSION --chart gap` (issue 34, item 4): the waterfall of two kernels of the gap file beside the
session (SESSION-gap.json), chosen by --pair A,B or, by default, the best FP32 rung against cuBLAS; PNG and SVG at
the asked size, the projector type honoured; a gap file of several sizes; and the refusals, in one line each.
The gap figures are SYNTHETIC (tests/data/make_gap_fixtures.py), not measurements."""

from __future__ import annotations

import json
import shutil

import pytest

from gemmviz.cli import main
from gemmviz.core.paths import asset_path
from tests.data.make_gap_fixtures import several_sizes


@pytest.fixture
def session(tmp_path):
    """A session with its gap file beside it, as `gemmviz profile --gap` writes them."""
    path = tmp_path / "h200.json"
    shutil.copy(asset_path("sessions", "h200-2026-12-02.json"), path)
    (tmp_path / "h200-gap.json").write_text(json.dumps(several_sizes()))
    return str(path)


def _size(path) -> tuple[int, int]:
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    return image.width(), image.height()


def test_the_default_pair_as_png_and_svg(qapp, session, tmp_path, capsys):
    png, svg = tmp_path / "gap.png", tmp_path / "gap.svg"
    assert main(["export", session, "--chart", "gap", "-o", str(png)]) == 0
    assert main(["export", session, "--chart", "gap", "--size", "1280x720", "-o", str(svg)]) == 0
    assert _size(png) == (1920, 1080)
    text = svg.read_text()
    assert "<svg" in text and "gpu-cpasync and cublas at 4096³" in text  # the default pair, and its size
    assert "wrote" in capsys.readouterr().out


def test_the_pair_chosen_and_the_projector_type(qapp, session, tmp_path):
    from gemmviz.ui.charts import kinds
    from gemmviz.ui.export.exporters import export_chart
    from gemmviz.ui.theme import theme_for

    pair = ["--pair", "gpu-cpasync@2048x2048x2048,cublas@2048³"]
    projector = ["--projector", "--size", "1280x720"]
    assert main(["export", session, "--chart", "gap", *pair, *projector, "-o", str(tmp_path / "p.svg")]) == 0
    svg = (tmp_path / "p.svg").read_text()
    assert "gpu-cpasync and cublas at 2048³" in svg
    # the projector's type is larger than the plain one's (the same drawing, the theme's font)
    view = kinds.chart_kinds.ChartView(pair="gpu-cpasync@1000³,cublas@1000³", gap_file=session[:-5] + "-gap.json")
    sizes = []
    for projector in (False, True):
        chart = kinds.get("gap").render([], theme_for(projector, False), None, view)
        sizes.append(chart.theme.font_pt)
        assert chart.gap is not None and chart.gap.a.size == (1000, 1000, 1000) and chart.with_sentences
        chart.deleteLater()
    assert sizes[1] > sizes[0]
    out = export_chart("gap", [], tmp_path / "odd.png", 1280, 720, theme_for(True, False), None, view)
    assert _size(out) == (1280, 720)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pair", "nope,cublas"], "nope is not among the recorded kernels: cublas@1000³"),
        (["--pair", "cublas@4096³"], "give two kernels, A,B"),
        (["--pair", "gpu-cpasync@2048³,cublas@4096³"], "a gap is between two kernels at one size"),
    ],
)
def test_a_bad_pair_is_refused_in_one_line(qapp, session, tmp_path, capsys, args, message):
    out = tmp_path / "x.png"
    assert main(["export", session, "--chart", "gap", *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and not out.exists()


def test_pair_belongs_to_the_gap_chart_and_a_session_needs_its_gap_file(tmp_path, capsys, session):
    assert main(["export", session, "--chart", "time", "--pair", "a,b", "-o", str(tmp_path / "t.png")]) == 2
    assert "--pair is for --chart gap" in capsys.readouterr().err
    alone = tmp_path / "alone.json"
    shutil.copy(session, alone)
    assert main(["export", str(alone), "--chart", "gap", "-o", str(tmp_path / "g.png")]) == 2
    err = capsys.readouterr().err
    assert "no gap metrics beside" in err and "alone-gap.json" in err and "gemmviz profile --gap" in err


@pytest.mark.parametrize("projector", [False, True])
def test_the_waterfall_fills_its_share_and_the_sentences_follow_its_axis(qapp, session, projector):
    """An export's rows take the waterfall's whole share, and its sentences start under the axis: no band of
    empty page between the two (a 1280×720 export left 60% of the page blank under small rows)."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter

    from gemmviz.ui.charts import kinds
    from gemmviz.ui.hardware.gap import SENTENCES_SHARE
    from gemmviz.ui.theme import theme_for

    view = kinds.chart_kinds.ChartView(pair="gpu-wgmma-tf32,cublas-tf32", gap_file=session[:-5] + "-gap.json")
    chart = kinds.get("gap").render([], theme_for(projector, False), None, view)
    image = QImage(1280, 720, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    texts: list = []
    chart.draw(painter, QRectF(0, 0, 1280, 720), texts)
    painter.end()
    chart.deleteLater()
    labels = [text for text, _ in texts]
    total = texts[labels.index("the gap")][1]  # the last row's label
    at = labels.index("gpu-wgmma-tf32 − cublas-tf32, µs (+ = gpu-wgmma-tf32 slower)")  # which way the bars point
    axis = texts[at][1]
    sentence = texts[at + 1][1]  # the first bar's sentence
    share = 720 * (1 - SENTENCES_SHARE)
    assert total.bottom() > share * 0.75, (total, share)  # the rows reach down the waterfall's share
    assert 0 <= sentence.top() - axis.bottom() < 2 * sentence.height(), (axis, sentence)  # the axis, then the text


def test_another_gap_file_by_path_or_shipped_name(qapp, session, tmp_path, capsys):
    """--gap names the gap file (a path, or a shipped one by name: seed001's waterfall at 8192³ is in the shipped
    h200-2026-12-02d-gap, not beside the session); a missing one, or --gap with another chart, is refused."""
    out = tmp_path / "g.png"
    pair = ["--pair", "gpu-cpasync,cublas@8192x8192x8192"]
    assert main(["export", session, "--chart", "gap", "--gap", "h200-2026-12-02d-gap", *pair, "-o", str(out)]) == 0
    assert out.is_file() and _size(out) == (1920, 1080)
    alone = tmp_path / "alone.json"
    shutil.copy(session, alone)  # no gap file beside it: --gap is what it draws
    other = tmp_path / "g2.png"
    gap = str(tmp_path / "h200-gap.json")
    assert main(["export", str(alone), "--chart", "gap", "--gap", gap, "-o", str(other)]) == 0 and other.is_file()
    capsys.readouterr()
    assert main(["export", session, "--chart", "gap", "--gap", "nowhere-gap", "-o", str(out)]) == 2
    assert "--gap nowhere-gap: no such file (give a gap file" in capsys.readouterr().err
    assert main(["export", session, "--chart", "time", "--gap", gap, "-o", str(tmp_path / "t.png")]) == 2
    assert "--gap is for --chart gap" in capsys.readouterr().err
