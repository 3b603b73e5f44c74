"""Issue 44: every text of every handout page of every shipped lesson, in both languages, inside its chart,
its slide and its page; nothing over a slide's footer or the page's. The handout's legends were drawn twice too
large and cut ("gpu-tilec" three times on seed000-20min step 9), and step 10's legend ran into the footer."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter

from gemmviz.core.lesson.lessons import all_shipped_lessons, lesson_session
from gemmviz.ui.lesson import handout
from gemmviz.ui.lesson.render import has_view, slide_for, slide_layout
from gemmviz.ui.lesson.views import kept_widgets
from tests.text_recorder import TextRecorder

SIZE = (1280, 720)  # the slides' size the handout draws them at (the export's --size)
SLACK = 1.0  # px on the page: antialiasing and rounding


def _pages():
    """(lesson, its language) once per distinct set of steps: a cut's steps are its full lesson's, drawn alike."""
    seen, out = set(), []
    lessons = all_shipped_lessons()
    for name in sorted(lessons, key=len):  # the full lessons first: a cut adds only the steps they lack
        for lang, lesson in sorted(lessons[name].items()):
            fresh = [i for i, s in enumerate(lesson.steps) if (lang, s) not in seen]
            seen |= {(lang, s) for s in lesson.steps}
            if fresh:
                out.append(pytest.param(name, lang, fresh, id=f"{name}-{lang}"))
    return out


def _scaled(rect: QRectF, scale: float) -> QRectF:
    return QRectF(
        handout.MARGIN + rect.x() * scale,
        handout.MARGIN + rect.y() * scale,
        rect.width() * scale,
        rect.height() * scale,
    )


def _inside(outer: QRectF, box: QRectF) -> bool:
    return outer.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(box)


def _record(draw) -> list:
    device = TextRecorder(handout.PAGE_W, handout.PAGE_H)
    painter = QPainter(device)
    try:
        draw(painter)
    finally:
        painter.end()
    return device.texts


@pytest.mark.parametrize(("name", "lang", "steps"), _pages())
def test_every_text_of_the_handout_lies_inside_its_chart_slide_and_page(qapp, name, lang, steps):
    lesson = all_shipped_lessons()[name][lang]
    source = lesson_session(lesson)
    page = QRectF(0, 0, handout.PAGE_W, handout.PAGE_H)
    page_footer_top = handout.PAGE_H - handout.MARGIN  # the page's own footer line below
    w, h = SIZE
    scale = (handout.PAGE_W - 2 * handout.MARGIN) / w
    look = (True, False)
    with kept_widgets():
        for index, frames in handout.handout_pages(lesson):
            if index not in steps:
                continue
            draw = handout._frames_page if frames else handout._slide_page
            texts = _record(lambda p, d=draw, i=index: d(p, lesson, i, source, SIZE, look))
            where = (lesson.path, index + 1, "key frames" if frames else "slide")
            assert texts, where
            for text, box in texts:
                assert _inside(page, box), (*where, text, box)
                in_footer = box.top() >= page_footer_top
                assert in_footer or box.bottom() <= page_footer_top + SLACK, (*where, text, box)
            if frames:
                continue
            lay = slide_layout(w, h, slide_for(lesson, index, source), True, has_view(lesson.steps[index]))
            slide, view, footer = (_scaled(r, scale) for r in (QRectF(0, 0, w, h), lay.view, lay.footer))
            for text, box in texts:
                centre = box.center()
                if slide.contains(centre):
                    assert _inside(slide, box), (*where, "leaves the slide", text, box)
                if has_view(lesson.steps[index]) and view.contains(centre):
                    assert _inside(view, box), (*where, "leaves its chart", text, box)
                if not footer.contains(centre):
                    assert not footer.intersects(box.adjusted(SLACK, SLACK, -SLACK, -SLACK)), (
                        *where,
                        "over the footer",
                        text,
                        box,
                    )
