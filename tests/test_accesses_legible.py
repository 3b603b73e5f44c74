"""The Accesses tab drawn at its real size (not a 1080p picture scaled down): at 1280×720 and 1920×1080 in
projector mode every text the coalescing, bank and replay views paint is at least the projector's size (16 px
at 720p, 24 px at 1080p), whole (wrapped, never elided), inside its view and over no other; off the projector
the views use the window's type. Exports keep the 1080p layout (tests/test_access_views.py)."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QVBoxLayout, QWidget

from gemmviz.core.hardware import accesses as acc
from gemmviz.ui.accesses import views
from gemmviz.ui.accesses.tab import AccessTab
from gemmviz.ui.theme import LIGHT, PROJECTOR_DARK, PROJECTOR_LIGHT
from tests.legibility import ELLIPSIS, painted_texts

# (window, the height the tab gets in it: the main window's banners, tabs and controls take the rest, and the
# least room the tab had at 720p projector is about 480 px), the projector's minimum
SIZES = {"720p": ((1280, 720), 480, 16), "1080p": ((1920, 1080), 840, 24)}


@pytest.fixture(scope="module")
def records():
    return acc.shipped_file()


def _window(qtbot, size, tab_h, theme):
    top = QWidget()
    top.resize(*size)
    layout = QVBoxLayout(top)
    layout.setContentsMargins(0, 0, 0, 0)
    tab = AccessTab(theme)
    tab.setFixedHeight(tab_h)
    layout.addWidget(tab)
    layout.addStretch(1)
    qtbot.addWidget(top)
    top.show()
    qtbot.waitUntil(lambda: tab.views.canvas.height() > 100)
    return top, tab


def _problems(canvas, min_px):
    texts = painted_texts(canvas)
    bounds = QRectF(canvas.rect()).adjusted(-1.5, -1.5, 1.5, 1.5)
    out = [f"{d.px:.1f} px: {d.text!r}" for d in texts if d.px < min_px - 0.01]
    out += [f"elided: {d.text!r}" for d in texts if d.text.rstrip().endswith(ELLIPSIS)]
    out += [f"outside: {d.text!r} {d.rect.getRect()}" for d in texts if not bounds.contains(d.rect)]
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            common = a.rect.intersected(b.rect)
            if common.width() > 2 and common.height() > 2 and a.text != b.text:
                out.append(f"{a.text!r} over {b.text!r}")
    return texts, out


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("theme", [PROJECTOR_LIGHT, PROJECTOR_DARK], ids=["light", "dark"])
def test_every_access_view_is_legible_at_its_real_size_on_a_projector(qtbot, records, size, theme):
    window, tab_h, min_px = SIZES[size]
    _top, tab = _window(qtbot, window, tab_h, theme)
    seen = {}
    for index, kind in enumerate(views.KINDS):
        tab.setCurrentIndex(0)
        tab.views.kind.setCurrentIndex(index)
        qtbot.waitUntil(lambda kind=kind: tab.views.canvas.kind == kind)
        texts, problems = _problems(tab.views.canvas, min_px)
        assert problems == [], (kind, problems)
        seen[kind] = [d.text for d in texts]
    tab.setCurrentIndex(1)
    qtbot.waitUntil(lambda: tab.replay.canvas.isVisible())
    texts, problems = _problems(tab.replay.canvas, min_px)
    assert problems == []
    seen["replay"] = [d.text for d in texts]
    # the views still say what they are for: the figures of each kernel
    assert "2 sectors in 1 line" in seen["coalescing"] and "32 sectors in 32 lines" in seen["coalescing"]
    assert "no bank conflict" in seen["banks"] and "4-way bank conflict" in seen["banks"]
    assert any("the model's" in t for t in seen["replay"])


def test_the_views_are_drawn_at_the_themes_type_not_scaled(qtbot, records):
    """At 1080p projector the type is the theme's 20 pt (26.7 px), where it fits; off the projector the
    window's 10 pt (13.3 px): the same size as the controls beside the view."""
    _top, tab = _window(qtbot, (1920, 1080), 840, PROJECTOR_LIGHT)
    texts, _ = _problems(tab.views.canvas, 0)
    assert max(d.px for d in texts) > 26 and min(d.px for d in texts) >= 24
    tab.apply_theme(LIGHT)
    texts, problems = _problems(tab.views.canvas, 0)
    assert problems == []
    assert {round(d.px) for d in texts} <= {13, 15}  # 13.3 px, the first figure line 1.1× it


def test_too_small_for_the_floor_keeps_the_floor_and_squeezes_the_drawing(qapp, records):
    """A rectangle too short for any layout: the text stays at the floor given, never below it."""
    panels = views.default_panels("coalescing", records)
    lay = views.layout_view(QRectF(0, 0, 600, 120), "coalescing", panels, 26.7, 16)
    assert lay.px == 16 and lay.panel is None
    image = QImage(600, 120, QImage.Format.Format_ARGB32)
    p = QPainter(image)
    views.draw_view(p, QRectF(0, 0, 600, 120), "coalescing", panels, PROJECTOR_LIGHT, 26.7, 16)
    p.end()


def test_panels_too_narrow_side_by_side_stack_in_rows(qapp, records):
    """Three bank panels in a tall, narrow view: stacked (fewer columns), at a larger type than side by side."""
    panels = views.default_panels("banks", records)
    tall = views.layout_view(QRectF(0, 0, 700, 1400), "banks", panels, 26.7, 16)
    assert tall.cols < 3 and tall.px > 20
    wide = views.layout_view(QRectF(0, 0, 1886, 700), "banks", panels, 26.7, 24)
    assert wide.cols == 3 and wide.px == pytest.approx(26.7)
