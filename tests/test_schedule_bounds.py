"""The seed's bounds check (seed001 step 5): the tiled kernel's store under `row < M || col < N` instead of
`&&`. The schedule lists each wrong write (counted here by brute force), a lesson's animation may ask for it
(bounds = "or", refused where it means nothing), and the frame draws the writes in red, C's overwritten cells
inside it and the writes past its end under it, with a caption that counts them."""

import pytest

from gemmviz.core.lesson.lessons import LessonError, parse_lesson, shipped_lessons
from gemmviz.core.problem import ProblemError, parse_problem
from gemmviz.core.schedule.block import block_schedule, grid_totals

M = N = K = 40
TILE = 32


def _brute_force() -> tuple[list[tuple[int, int, int]], int, int]:
    """Every thread of block (1, 1) (rows 32..63, cols 32..63) outside C that `row < M || col < N` lets write."""
    wrong = [
        (r, c, r * N + c) for r in range(32, 64) for c in range(32, 64) if (r < M or c < N) and not (r < M and c < N)
    ]
    inside = sum(1 for _r, _c, i in wrong if i < M * N)
    return wrong, inside, len(wrong) - inside


def _store(bounds: str, variant: str = "gpu-tiled"):
    s = block_schedule(variant, parse_problem("40x40x40"), TILE, (1, 1), bounds=bounds)
    return s, s.steps[-1]


def test_the_or_check_lists_every_wrong_write_of_the_edge_block():
    wrong, inside, outside = _brute_force()
    assert (len(wrong), inside, outside) == (384, 168, 216)
    s, store = _store("or")
    assert store.kind == "store" and s.bounds == "or"
    assert [tuple(w) for w in store.wrong] == wrong
    assert store.delta.global_stores == 8 * 8 + 384  # the 64 threads inside C, and the wrong ones
    assert "64 right, 384 wrong writes (168 over other cells of C, 216 past its end)" in store.text
    for w in store.wrong:  # past both edges: nothing written
        assert not (w.row >= M and w.col >= N)
    assert all(not st.wrong for st in s.steps[:-1])


def test_the_and_check_writes_nothing_wrong_and_keeps_the_model():
    s, store = _store("and")
    assert store.wrong == () and store.delta.global_stores == 64
    assert "wrong" not in store.text
    assert block_schedule("gpu-tiled", parse_problem("40x40x40"), TILE, (1, 1)).steps[-1].text == store.text
    assert grid_totals("gpu-tiled", parse_problem("40x40x40"), TILE).global_stores == M * N


def test_an_inside_block_has_no_wrong_write_even_under_or():
    s = block_schedule("gpu-tiled", parse_problem("64"), TILE, (0, 0), bounds="or")
    assert s.steps[-1].wrong == ()


def test_the_naive_kernel_takes_the_option_too():
    _s, store = _store("or", "gpu-naive")
    assert len(store.wrong) == 384


@pytest.mark.parametrize(
    ("variant", "bounds", "why"),
    [
        ("gpu-tiled", "xor", 'bounds must be "and"'),
        ("gpu-blocktile2d", "or", "only for a kernel whose threads each store"),
        ("gpu-wgmma-tf32", "or", "only for a kernel whose threads each store"),
    ],
)
def test_a_bounds_the_kernel_cannot_show_is_refused(variant, bounds, why):
    with pytest.raises(ProblemError, match=why):
        block_schedule(variant, parse_problem("256"), TILE if variant == "gpu-tiled" else None, (0, 0), bounds)


STEP = 'title = "L"\n[[step]]\ntitle = "Edge"\ntext = "The edge block."\nview = "animation"\nanimation = {{ {a} }}\n'


def test_a_lesson_animation_takes_bounds():
    lesson = parse_lesson(
        STEP.format(a='variant = "gpu-tiled", mnk = "40", tile = 32, block = [1, 1], step = 8, bounds = "or"'), "x"
    )
    assert lesson.steps[0].animation.bounds == "or"
    plain = parse_lesson(STEP.format(a='variant = "gpu-tiled", mnk = "40", tile = 32'), "x")
    assert plain.steps[0].animation.bounds == "and"
    for a, why in (
        ('variant = "gpu-tiled", mnk = "40", tile = 32, bounds = "xor"', 'bounds must be "and"'),
        ('variant = "gpu-tiled", mnk = "40", tile = 32, bounds = 1', 'bounds must be "and" or "or"'),
        ('variant = "gpu-blocktile2d", mnk = "256", bounds = "or"', "only for a kernel whose threads each store"),
    ):
        with pytest.raises(LessonError, match=why):
            parse_lesson(STEP.format(a=a), "x")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_seed001_step_5_shows_the_wrong_writes(lang):
    step = next(s for s in shipped_lessons(lang)["seed001"].steps if s.animation and s.animation.bounds == "or")
    a = step.animation
    assert (a.variant, a.bounds, a.block) == ("gpu-tiled", "or", (1, 1))
    s = block_schedule(a.variant, a.problem, a.tile, a.block, a.bounds)
    assert s.steps[a.step].kind == "store" and len(s.steps[a.step].wrong) == 384
