"""The lesson's handout (issue 31): handout.pdf beside the slides, a page per step with its slide and its
speaker notes, and for each animated step a page of its key frames, both barriers among them, not only the
frame the slide freezes at."""

from dataclasses import replace

import pytest

pytest.importorskip("PySide6")

from gemmviz.core.lesson.lessons import lesson_session, shipped_lessons
from gemmviz.ui.lesson.handout import handout_page_image, handout_pages, handout_pdf, key_frames
from gemmviz.ui.lesson.views import frame_state
from tests.pdf_text import page_texts, words

LESSON = shipped_lessons()["seed000"]


def _with_notes():
    steps = tuple(replace(s, notes=s.notes or f"Speaker note {i + 1}: say why.") for i, s in enumerate(LESSON.steps))
    return replace(LESSON, steps=steps)


def test_key_frames_hold_both_barriers_and_the_store():
    for step in LESSON.steps:
        if step.animation is None:
            continue
        frames = key_frames(step)
        schedule = frame_state(step).schedule
        kinds = [schedule.steps[i].kind for i in frames]
        assert frames == sorted(set(frames)) and len(frames) <= 6
        assert frame_state(step).step in frames  # the slide's own frame too
        if step.animation.variant == "gpu-tiled":
            assert {"load", "sync", "compute", "sync2", "store"} <= set(kinds)
        assert kinds[-1] == "store"


def test_the_handout_has_a_page_per_slide_with_notes_and_key_frames_pages(qapp):
    lesson = _with_notes()
    pages = handout_pages(lesson)
    animated = [i for i, s in enumerate(lesson.steps) if s.animation is not None]
    assert [i for i, frames in pages if not frames] == list(range(len(lesson.steps)))
    assert [i for i, frames in pages if frames] == animated
    pdf = handout_pdf(lesson, lesson_session(lesson), 1280, 720)
    texts = [words(t) for t in page_texts(pdf)]
    assert len(texts) == len(pages)
    for (index, frames), text in zip(pages, texts, strict=True):
        if frames:
            assert "__syncthreads()" in text or lesson.steps[index].animation.variant != "gpu-tiled"
            assert words("key frames") in text
        else:
            assert words(lesson.steps[index].notes) in text and words(lesson.steps[index].title) in text
    image = handout_page_image(lesson, lesson_session(lesson), 1, 1280, 720)
    assert image.width() == 794 and not image.isNull()


def test_a_step_without_notes_says_so(qapp):
    lesson = replace(LESSON, steps=(replace(LESSON.steps[0], notes=""),))
    first = page_texts(handout_pdf(lesson, lesson_session(lesson), 640, 360))[0]
    assert words("(no notes for this step)") in words(first)
