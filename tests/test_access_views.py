"""The coalescing and bank views (issue 25) from the access records shipped from the H200: they export as PNG
and SVG at 1280x720 in projector mode, with text of at least 24 px at 1080p, and explain the uncoalesced and
the padded kernels with the recorded numbers."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from gemmviz.core.hardware import accesses as acc
from gemmviz.ui.accesses import views
from gemmviz.ui.accesses.export import export_access_view
from gemmviz.ui.accesses.widget import AccessViews
from gemmviz.ui.theme import PROJECTOR_DARK, PROJECTOR_LIGHT
from tests.checks.fonts import CJK


@pytest.fixture(scope="module")
def records():
    return acc.shipped_file()


def drawn_texts(kind, records, size=(1920, 1080)):
    """Every text the view draws, with its pixel size, at the 1080p layout (caught as QPainter draws it)."""
    from PySide6.QtGui import QPainter

    from tests.legibility import spied

    image = QImage(*size, QImage.Format.Format_ARGB32)
    p = QPainter(image)
    try:
        drawn = spied(
            lambda: views.draw_view(p, QRectF(0, 0, *size), kind, views.default_panels(kind, records), PROJECTOR_LIGHT),
            kind,
        )
    finally:
        p.end()
    return [(d.text, d.px) for d in drawn]


@pytest.mark.parametrize("kind", views.KINDS)
def test_every_text_is_at_least_24_px_at_1080p(qapp, records, kind):
    texts = drawn_texts(kind, records)
    assert texts and min(px for _, px in texts) >= 24


def test_the_coalescing_view_sets_naive_beside_uncoalesced_with_their_sectors(qapp, records):
    texts = [t for t, _ in drawn_texts("coalescing", records)]
    assert "gpu-naive [block 16]" in texts and "gpu-uncoalesced [block 32]" in texts
    assert "2 sectors in 1 line" in texts and "32 sectors in 32 lines" in texts


def test_the_bank_view_shows_no_conflict_the_padding_conflict_and_the_transposed_store(qapp, records):
    texts = [t for t, _ in drawn_texts("banks", records)]
    assert texts.count("no bank conflict") == 1 and "2-way bank conflict" in texts and "4-way bank conflict" in texts


@pytest.mark.parametrize("kind", views.KINDS)
@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_each_view_exports_at_1280x720(qapp, tmp_path, records, kind, suffix):
    out = export_access_view(kind, tmp_path / f"v{suffix}", 1280, 720, PROJECTOR_DARK, records)
    data = out.read_bytes()
    if suffix == ".png":
        image = QImage(str(out))
        assert (image.width(), image.height()) == (1280, 720)
        colours = {image.pixel(x, y) for x in range(0, 1280, 37) for y in range(0, 720, 23)}
        assert len(colours) > 4  # drawn, not a blank page
    else:
        assert b"<svg" in data and b"NVIDIA H200" in data  # the footer names the GPU


def test_an_export_to_a_folder_is_refused_and_writes_nothing(qapp, tmp_path, records):
    from gemmviz.ui.export.exporters import ExportError

    with pytest.raises(ExportError):
        export_access_view("banks", tmp_path, records=records)
    with pytest.raises(ExportError, match="unknown view"):
        export_access_view("roofline", tmp_path / "x.png", records=records)
    assert list(tmp_path.iterdir()) == []


def test_the_widget_switches_views_and_warps(qtbot, records):
    w = AccessViews(records=records)
    qtbot.addWidget(w)
    assert [p.trace.variant for p in w.canvas.panels] == ["gpu-naive", "gpu-uncoalesced"]
    w.kind.setCurrentIndex(1)
    assert [p.trace.variant for p in w.canvas.panels] == ["gpu-tiled", "gpu-tiled-pad", "gpu-vectorize"]
    w.warp.setCurrentIndex(3)
    assert all(int(p.trace.warp[p.index]) == 3 for p in w.canvas.panels)
    assert "NVIDIA H200" in w.source.text() and w.source.text().startswith("access records: ")  # not the banner's
    w.set_records(None)
    assert w.canvas.panels == []


def test_the_replay_exports_a_step_and_its_widget_walks_the_steps(qtbot, tmp_path, records):
    from gemmviz.ui.accesses.replay import AccessReplay, export_replay

    trace = records.find("gpu-tiled", {"tile": 16})
    out = export_replay(trace, tmp_path / "r.png", step=2, width=1280, height=720, records=records)
    assert QImage(str(out)).width() == 1280
    w = AccessReplay(records=records)
    qtbot.addWidget(w)
    assert w.kernel.count() >= 4 and w.slider.maximum() > 10
    w.slider.setValue(3)
    assert w.canvas.state[3] == 3
    w.block.setCurrentIndex(1)
    assert w.canvas.state[3] == 0  # a new block starts at its first step


def test_the_accesses_tab_opens_the_records_beside_a_session_or_the_shipped_ones(qtbot, tmp_path, records, monkeypatch):
    from gemmviz.ui.accesses.tab import AccessTab
    from gemmviz.ui.theme import PROJECTOR_DARK

    tab = AccessTab()
    qtbot.addWidget(tab)
    assert tab.count() == 2 and "shipped" in tab.source
    mine = acc.AccessFile("NVIDIA H200", "2026-12-01", "test", [acc.keep_first(records.find("gpu-naive"), 40)])
    acc.save_file(mine, tmp_path / "s.accesses.json.gz")
    assert tab.show_session_file(tmp_path / "s.json") == str(tmp_path / "s.accesses.json.gz")
    assert [p.trace.variant for p in tab.views.canvas.panels] == ["gpu-naive"]
    (tmp_path / "t.accesses.json.gz").write_bytes(b"not gzip")
    assert "not loaded" in tab.show_session_file(tmp_path / "t.json")  # said, and the shipped records shown
    assert len(tab.views.canvas.panels) == 2
    monkeypatch.setattr(acc, "shipped_file", lambda: pytest.fail("the shipped records read again"))
    assert "shipped" in tab.show_session_file(tmp_path / "u.json")  # no records beside it: the ones read at start
    assert tab.views.records is tab.shipped and len(tab.views.canvas.panels) == 2
    tab.apply_theme(PROJECTOR_DARK)
    assert tab.views.canvas.theme is PROJECTOR_DARK


def test_the_accesses_tab_reads_its_records_when_first_shown(qtbot, tmp_path, records, monkeypatch):
    """Reading and checking the records (and building the replay) took about a third of the window's
    construction: they wait until the tab is shown; a session opened before then is applied at that point."""
    from gemmviz.ui.accesses.tab import AccessTab

    reads = []
    monkeypatch.setattr(acc, "shipped_file", lambda: reads.append(1) or records)
    tab = AccessTab()
    qtbot.addWidget(tab)
    mine = acc.AccessFile("NVIDIA H200", "2026-12-01", "test", [acc.keep_first(records.find("gpu-naive"), 40)])
    acc.save_file(mine, tmp_path / "s.accesses.json.gz")
    assert tab.show_session_file(tmp_path / "s.json") is None  # remembered, not read
    assert not tab.built and reads == [] and tab.count() == 2
    tab.show()
    qtbot.waitUntil(lambda: tab.built)
    assert reads == [1] and tab.source == str(tmp_path / "s.accesses.json.gz")
    assert [p.trace.variant for p in tab.views.canvas.panels] == ["gpu-naive"]
    assert tab.widget(0) is tab.views and tab.widget(1) is tab.replay


def test_the_requests_step_in_the_order_the_warp_issued_them(qtbot, records):
    """Request 1 and 2 are a warp's first two loads: k = 0 of A and of B; the uncoalesced kernel's A load costs
    a sector per lane, its B load one sector."""
    w = AccessViews(records=records)
    qtbot.addWidget(w)
    seen = []
    for n in (1, 2):
        w.request.setValue(n)
        seen.append([acc.request_lines(p.trace, p.index) for p in w.canvas.panels])
    (naive1, bad1), (naive2, bad2) = seen
    assert {naive1["matrix"], naive2["matrix"]} == {"A", "B"} and naive1["seq"] < naive2["seq"]
    assert sorted([len(bad1["sectors"]), len(bad2["sectors"])]) == [1, 32]


def test_the_replay_exports_as_an_animated_gif_a_frame_a_step(qapp, tmp_path, records):
    from PIL import Image

    from gemmviz.core.schedule.accesses import replay
    from gemmviz.ui.accesses.replay import export_replay_gif

    trace = records.find("gpu-tiled", {"tile": 16})
    n = export_replay_gif(trace, tmp_path / "r.gif", width=480, height=270, records=records)
    assert n == len(replay(trace)[1])
    with Image.open(tmp_path / "r.gif") as gif:
        assert gif.n_frames == n and gif.size == (480, 270)


@pytest.mark.parametrize("kind", views.KINDS)
def test_a_lesson_can_draw_a_view_into_its_own_rectangle(qapp, kind):
    from PySide6.QtGui import QPainter

    image = QImage(1280, 720, QImage.Format.Format_ARGB32)
    p = QPainter(image)
    source = views.draw_access_view(p, QRectF(0, 0, 1280, 720), kind, PROJECTOR_LIGHT)
    p.end()
    assert "NVIDIA H200" in source and "2026-12-01" in source
    assert len({image.pixel(x, y) for x in range(0, 1280, 31) for y in range(0, 720, 17)}) > 4


def test_the_replays_step_caption_is_in_the_windows_language(qtbot, records):
    """The Chinese Block replay read "k 0…15: 256 threads each read 16 values of A …": the schedule's English
    text, where its caption has a Chinese one."""
    from gemmviz.ui import i18n
    from gemmviz.ui.accesses.replay import AccessReplay, replay_texts

    app = QApplication.instance()
    i18n.install(app, "zh")
    try:
        w = AccessReplay(records=records)
        qtbot.addWidget(w)
        trace, sched, steps, index = w.canvas.state
        title, caption, *_ = replay_texts(trace, sched, steps, index, w.canvas.theme)
        assert "线程块" in title and CJK.search(caption) and "threads each read" not in caption
    finally:
        i18n.install(app, "en")
