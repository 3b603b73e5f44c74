"""Issue 44: what a slide states, held against the recording it quotes.

Measured figures are placeholders (filled from the recording, never typed); a slide's "because" is data
(`because = [...]`, core/lesson/claims.py) that the recording must bear out; and the few figures typed into a
slide (the model's arithmetic, the host the recording names) are each worked out here from their source."""

import re

import pytest

from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.lesson.claims import claim_problems
from gemmviz.core.lesson.lessons import (
    LessonError,
    all_shipped_lessons,
    fill_text,
    lesson_gaps,
    lesson_session,
    parse_lesson,
)
from gemmviz.core.lesson.series import COUNTER_PLACEHOLDERS, parse_series
from gemmviz.core.problem import Problem

LESSONS = all_shipped_lessons()
N4096 = Problem(4096, 4096, 4096)


def _intensity(series: str) -> float:
    ref = parse_series(series)
    return VARIANTS[ref.variant].traffic_model(N4096, dict(ref.params)).intensity


def _logical_cpus(lesson) -> str:
    """The recording host's logical CPUs (os.cpu_count), where the slide names the CPU a Xeon as its record does."""
    env = lesson_session_env(lesson)
    assert "Xeon" in env["cpu"], env["cpu"]
    return str(env["cpu_count"])


def lesson_session_env(lesson) -> dict:
    from gemmviz.core.lesson.files import lesson_session_path
    from gemmviz.core.session.results import Session

    return Session.load(lesson_session_path(lesson.session, lesson.path, lesson.folder)).environment


# the figures typed into an English slide, by step title: each worked out from the model, the arithmetic or the
# recording's environment (a test fails on a typed figure missing here)
TYPED = {
    "The problem: C = A·B": lambda _l: {"2": "2"},  # 2·M·N·K: a multiply-add is two operations
    "V1: one GPU thread per element of C": lambda _l: {"8": "8", "0.25": f"{_intensity('gpu-naive[block=16]'):.2f}"},
    "V2: tiles in shared memory": lambda _l: {"16": "16"},  # TILE 16: each value read by TILE threads
    "Zero padding at an edge block": lambda _l: {"4": str(100 - 3 * 32), "6": str(70 - 2 * 32)},
    "Tile size: 8, 16 or 32": lambda _l: {"16": "16", "32": "32"},  # the tiles' names, each before its figure
    "What one warp really loads": lambda _l: {"16": "16"},  # a warp of a 16-wide block: 16 columns of B
    "The seed's table, measured": lambda lesson: {"16": _logical_cpus(lesson)},
    "The model: arithmetic intensity": lambda _l: {
        "0.25": f"{_intensity('gpu-naive[block=16]'):.2f}",
        "4": f"{_intensity('gpu-tiled[tile=16]'):.0f}",
    },
    "I = N/6: the best any kernel can do": lambda _l: {"683": f"{4096 / 6:.0f}"},
    "I = N/6: the ideal": lambda _l: {"683": f"{4096 / 6:.0f}"},
    "Arithmetic intensity": lambda _l: {
        "8": f"{_intensity('gpu-tiled[tile=32]'):.0f}",  # 8 bytes per multiply-add, and TILE 32's 8 FLOP/byte
        "0.25": f"{_intensity('gpu-naive[block=32]'):.2f}",
        "32": "32",
    },
}
# tokens that name things rather than state figures: sizes, tiles, formulas, hardware and kernel names
NAMES = re.compile(r"^(\d+³|\d+×\d+(×\d+)?|\d+N[³²]|N/6|[A-Z]+\d+|V\d|\d+-way|\d+-byte|RTX|\d{3,4})$|^(TILE|tile)$")


def _typed_figures(text: str) -> list[str]:
    plain = re.sub(r"\{\{.*?\}\}|N/6", " ", text)
    words = re.findall(r"TILE \d+|\d[\w.,×/³²-]*|[A-Z]+\d+|\d+N[³²]", plain)
    out = []
    for w in words:
        w = w.rstrip(".,:;")
        if w.startswith("TILE ") or NAMES.match(w):
            continue
        out.append(w)
    return out


@pytest.mark.parametrize("name", sorted(LESSONS))
def test_every_because_holds_against_the_recording(name):
    for lesson in LESSONS[name].values():
        results = list(lesson_session(lesson).results)
        for step in lesson.steps:
            assert claim_problems(step.because, results) == [], (lesson.path, step.title)


def test_the_padding_slide_says_the_cause_the_counters_show():
    """Issue 44: the slide blamed 2-way store conflicts; at TILE 32, with none, the padded kernel is slower too,
    and the counters show the cause: shared load instructions per multiply-add, 1.25 unpadded (A's four reads
    merge into one LDS.128), 2.00 padded. Per multiply-add, so that the two tiles the counters were recorded at
    compare (the count does not depend on TILE)."""
    for name in ("seed000", "seed000-20min"):
        for lang, lesson in LESSONS[name].items():
            step = next(s for s in lesson.steps if s.because)
            assert {c.counter for c in step.because} == {"shared_loads"}
            assert any(c.slower.params == (("tile", 32),) for c in step.because)  # no conflicts there
            results = list(lesson_session(lesson).results)
            text = fill_text(step.text, results, lang)
            assert "2.00" in text and "1.25" in text and ("per multiply-add" in text or "每次乘加" in text)
            assert ("19.5 ms" in text and "15.5 ms" in text) or ("19.5 毫秒" in text and "15.5 毫秒" in text)
            assert "LDS.128" in step.notes and "4.30" not in step.text


def test_a_claim_the_recording_contradicts_is_named_before_the_class():
    head = 'title = "L"\nsession = "h200-2026-12-02.json"\n[[step]]\ntitle = "T"\ntext = "Padding."\n'
    claim = (
        'because = [{{ slower = "{a}", than = "{b}", at = 4096, counter = "shared_loads", more = {more}, '
        'counted = ["gpu-tiled-pad[tile=32]", "gpu-tiled[tile=16]"] }}]\n'
    )
    holds = parse_lesson(head + claim.format(a="gpu-tiled-pad[tile=32]", b="gpu-tiled[tile=32]", more="true"), "x")
    assert lesson_gaps(holds, lesson_session(holds)) == []
    fewer = parse_lesson(head + claim.format(a="gpu-tiled-pad[tile=32]", b="gpu-tiled[tile=32]", more="false"), "x")
    (gap,) = lesson_gaps(fewer, lesson_session(fewer))
    assert "step 1 (T)" in gap and "shared_loads 4,294,967,296 against 2,684,354,560" in gap
    faster = parse_lesson(
        head.replace("Padding.", "Faster.")
        + claim.replace(
            'counted = ["gpu-tiled-pad[tile=32]", "gpu-tiled[tile=16]"]',
            'counted = ["gpu-tiled[tile=16]", "gpu-tiled-pad[tile=32]"]',
        ).format(a="gpu-tiled[tile=32]", b="gpu-tiled-pad[tile=32]", more="false"),
        "x",
    )
    gaps = lesson_gaps(faster, lesson_session(faster))
    assert any("takes 15.5 ms against 19.5 ms" in g for g in gaps), gaps
    unrecorded = parse_lesson(
        head + 'because = [{ slower = "gpu-tiled-pad[tile=16]", than = "gpu-tiled[tile=16]", at = 4096, '
        'counter = "shared_loads" }]\n',
        "x",
    )
    assert (
        "gpu-tiled-pad[tile=16]'s shared_loads at 4096³ is not recorded"
        in lesson_gaps(unrecorded, lesson_session(unrecorded))[0]
    )


@pytest.mark.parametrize(
    "claim, words",
    [
        ('{ slower = "gpu-tiled", than = "gpu-naive", at = 4096, counter = "banks" }', "counter must be one of"),
        ('{ slower = "gpu-tiled", than = "nope", at = 4096, counter = "dram" }', "unknown variant"),
        ('{ slower = "gpu-tiled", than = "gpu-naive", at = 0, counter = "dram" }', "at is the size N"),
        ('{ slower = "gpu-tiled", than = "gpu-naive", at = 64, counter = "dram", more = 1 }', "more is true"),
        ('{ slower = "gpu-tiled", than = "gpu-naive", at = 64, counter = "dram", why = 1 }', "unknown key 'why'"),
        (
            '{ slower = "gpu-tiled", than = "gpu-naive", at = 64, counter = "dram", counted = ["cublas", "gpu-naive"] }',
            "the same two kernels",
        ),
    ],
)
def test_a_claim_of_the_wrong_form_is_refused_at_its_line(claim, words):
    text = 'title = "L"\n[[step]]\ntitle = "T"\ntext = "x."\nbecause = [' + claim + "]\n"
    with pytest.raises(LessonError, match=words) as err:
        parse_lesson(text, "x", "my.toml")
    assert str(err.value).startswith("my.toml:5:")


def test_every_counter_a_claim_may_name_is_one_the_profiler_records():
    from gemmviz.core.lesson.lessons import lesson_session

    results = list(lesson_session(LESSONS["seed000"]["en"]).results)
    recorded = {k for r in results if r.counters for k in r.counters}
    assert set(COUNTER_PLACEHOLDERS.values()) <= recorded


@pytest.mark.parametrize("name", sorted(LESSONS))
def test_each_figure_typed_on_a_slide_is_worked_out_from_its_source(name):
    """A figure typed into a slide that quotes nothing published is the model's arithmetic or the recording's
    own (the host's cores): each is listed in TYPED with how it is worked out, and must equal it."""
    lesson = LESSONS[name]["en"]
    for step in lesson.steps:
        if re.search(r"published", step.quoted):
            continue  # the seeds' and vendors' figures, named so on the footer
        figures = _typed_figures(step.text)
        expected = TYPED.get(step.title, lambda _l: {})(lesson)
        for figure in figures:
            assert figure in expected, (
                f"{lesson.path}, step {step.title!r}: {figure!r} is a figure typed on the slide; make it a "
                "placeholder ({{gflops VARIANT at N}}, ...) or list it in TYPED here, under the step's title, with "
                "how it is worked out (CONTRIBUTING: A lesson)"
            )
        for typed, value in expected.items():
            if typed in figures:
                assert typed == value, (lesson.path, step.title, typed, value)


def test_a_roofline_slide_names_the_ceilings_it_draws():
    """The roofs (and any {{ceiling …}} figure) are the shipped ceilings file's, measured on another day than the
    session the footer names: every roofline step's footer says which, in the lesson's language."""
    import json

    from gemmviz.core.lesson.lessons import shipped_lessons, step_quoted
    from gemmviz.core.paths import asset_files

    newest = json.loads(sorted(asset_files("ceilings", ".json"), key=lambda f: f.name)[-1].read_text())
    date = newest["date"][:10]
    for lang, said in (("en", f"ceilings: H200, measured {date}"), ("zh", f"性能上限：H200，测量于 {date}")):
        steps = [s for lesson in shipped_lessons(lang).values() for s in lesson.steps if s.view == "roofline"]
        assert steps and all(said in step_quoted(s, lang) for s in steps), lang


def test_no_footer_names_a_source_twice():
    """seed000's "shared memory is not 200×" slide named the ceilings' file in its `quoted` and again through
    the ceilings footer: in Chinese the line wrapped out of the frame. Each recording's date appears once."""
    from gemmviz.core.lesson.placeholders import step_quoted

    for name, by_lang in LESSONS.items():
        for lang, lesson in by_lang.items():
            results = list(lesson_session(lesson).results)
            for step in lesson.steps:
                quoted = step_quoted(step, lang, results=results)
                dates = re.findall(r"\d{4}-\d{2}-\d{2}", quoted)
                assert len(dates) == len(set(dates)), (name, lang, step.title, quoted)
