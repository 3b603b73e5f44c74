"""The last-wave lesson view: gpu-cpasync-any's small-size fix before and after on a slide, its figures
({{lastwave …}}) and its claim ("slower because more SM-time sat idle") from the recorded block traces shipped with
the package, worked out here from the shipped file with core/hardware/last_wave.py; what a slide says where no
recording is at hand; seed001's step and its Chinese twin."""

import gzip
import json
from dataclasses import replace

import pytest

from gemmviz.core.hardware import model_trace
from gemmviz.core.hardware.last_wave import last_wave
from gemmviz.core.hardware.model_trace import shipped_fix_file, small_size_fix
from gemmviz.core.lesson.claims import claim_problems, claim_tests
from gemmviz.core.lesson.lessons import (
    LessonError,
    all_shipped_lessons,
    fill_text,
    lesson_gaps,
    lesson_session,
    parse_lesson,
    step_quoted,
)
from gemmviz.core.lesson.views import CommonFields, StepProblem, lesson_view
from gemmviz.core.numbers import microseconds
from gemmviz.core.problem import Problem
from gemmviz.core.session.results import Session

P = Problem(1024, 1024, 1024)
LESSONS = all_shipped_lessons()
FIGURES = " ".join(
    f"{{{{lastwave {kind} {case} at 1024}}}}"
    for case in ("tiles", "split", "stream-k")
    for kind in ("idle", "time", "run", "used", "sms", "blocks")
)
STEP = (
    'title = "L"\n[[step]]\ntitle = "T"\ntext = "Idle: {{lastwave idle tiles at 1024}}."\nview = "last-wave"\n'
    'size = 1024\nbecause = [{ idle = "tiles", than = "split", at = 1024 }]\n'
)


def _step(lesson):
    (step,) = [s for s in lesson.steps if s.view == "last-wave"]
    return step


@pytest.fixture
def no_recording(monkeypatch):
    """No traces of the fix's builds are shipped (a lesson file read on its own, a package without them)."""
    monkeypatch.setattr(model_trace, "recorded_sessions", lambda: [])


def expected_cases() -> dict[str, tuple]:
    """Each case's (idle share, median ms, SMs of its last wave, SMs, blocks, traced run in ns), straight from the shipped file: its
    result of the case's build (tiles, schedule, blocks launched) through core/hardware/last_wave.last_wave."""
    path = shipped_fix_file(P)
    assert path is not None and path.name == "h100-2026-12-07-traces-small-1024.json.gz"
    session = Session.load(path)
    sms = session.environment["backends"]["cuda"]["sms"]
    out = {}
    for case in small_size_fix(P):
        (r,) = [
            r
            for r in session.results
            if r.variant == "gpu-cpasync-any"
            and (r.config["BM"], r.config["BN"], r.config.get("SCHED", 0))
            == (case.config["BM"], case.config["BN"], case.config.get("SCHED", 0))
            and len(r.block_trace or []) == case.launch.grid
        ]
        w = last_wave(r.block_trace, sms, case.launch.blocks_per_sm)
        out[case.name] = (w.idle_share, r.median_ms, w.last_sms, w.sms, w.blocks, w.duration_ns)
    return out


# ---- the view's kind -----------------------------------------------------------------------------------------
def test_the_step_parses():
    lesson = parse_lesson(STEP, "x", "my.toml")
    step = lesson.steps[0]
    assert (step.view, step.at, step.series, step.sizes) == ("last-wave", 1024, (), ())
    assert [(c.idle, c.than, c.at) for c in step.because] == [("tiles", "split", 1024)]
    assert parse_lesson(STEP.replace("size = 1024\n", ""), "x").steps[0].at == 1024  # the shipped size by default
    assert parse_lesson(STEP.replace("size = 1024", "size = 2048"), "x").steps[0].at == 2048


@pytest.mark.parametrize(
    "change, line, words",
    [
        (("size = 1024", "size = 10"), 6, "size: the last wave is shown at a size N of N³ from 64 to 4096"),
        (("size = 1024", 'size = "1024"'), 6, "size: the last wave is shown at a size N"),
        (("size = 1024", 'series = ["gpu-cpasync-any"]'), 6, "it names no series or sizes; its size is `size`"),
        (("size = 1024", "chart = 'gflops'"), 6, "'chart' is a key of a chart, hardware or accesses step"),
        (("size = 1024", "at = 1024"), 6, "'at' is a key of a chart step"),
        (('than = "split"', 'than = "tiles"'), 7, "idle and than name two different cases"),
        (('than = "split"', 'than = "splitk"'), 7, "cases of the small-size fix: tiles, split, stream-k"),
        (("at = 1024 }", "at = 9999 }"), 7, "because: at: the last wave is shown at a size N"),
        (("at = 1024 }", "why = 1 }"), 7, "unknown key 'why' in an idle claim"),
    ],
)
def test_a_bad_key_is_refused_at_its_line(change, line, words):
    with pytest.raises(LessonError, match=words) as err:
        parse_lesson(STEP.replace(*change), "x", "my.toml")
    assert str(err.value).startswith(f"my.toml:{line}:")


def test_the_kinds_check_raises_a_step_problem_naming_the_key():
    kind = lesson_view("last-wave")
    assert kind is not None and kind.keys == ("size",) and kind.footnote is not None
    assert kind.check({"size": 512}, CommonFields((), ())) == {"at": 512}
    with pytest.raises(StepProblem) as err:
        kind.check({"size": 0}, CommonFields((), ()))
    assert err.value.key == "size"
    with pytest.raises(StepProblem) as err:
        kind.check({}, CommonFields((), (1024,)))
    assert err.value.key == "sizes"


@pytest.mark.parametrize(
    "expr, words",
    [
        ("lastwave speed tiles at 1024", "lastwave takes one of idle, time, run, used, sms, blocks"),
        ("lastwave idle before at 1024", "the case is one of tiles, split, stream-k"),
        ("lastwave idle tiles at 8192", "from 64 to 4096"),
        ("lastwave idle tiles", "write {{lastwave FIGURE CASE at N}}"),
    ],
)
def test_a_bad_figure_is_refused_when_the_lesson_is_read(expr, words):
    with pytest.raises(LessonError, match=words):
        parse_lesson(STEP.replace("lastwave idle tiles at 1024", expr), "x", "my.toml")


# ---- the figures and the claim, from the shipped recording ----------------------------------------------------
def test_the_figures_are_what_last_wave_makes_of_the_shipped_traces():
    cases = expected_cases()
    filled = fill_text(FIGURES, []).split(" ")
    expected = []
    for idle, ms, used, sms, blocks, run_ns in cases.values():
        run = microseconds(run_ns / 1e3).split(" ")
        expected += [f"{idle:.0%}", *microseconds(ms * 1e3).split(" "), *run, str(used), str(sms), f"{blocks:,}"]
    assert filled == expected
    # the recording the issue quotes: half the SMs idle before, every SM busy after, and faster
    (tiles, split, streamk) = cases.values()
    assert tiles[2:4] == (64, 132) and tiles[0] > 0.5 > 0.1 > max(split[0], streamk[0])
    assert tiles[1] > max(split[1], streamk[1])
    assert fill_text("{{lastwave time tiles at 1024}}", [], "zh").endswith("微秒")


def test_the_claim_holds_and_says_what_it_tested():
    lesson = parse_lesson(STEP, "x")
    step = lesson.steps[0]
    assert claim_problems(step.because, []) == []
    (tested,) = claim_tests(step.because, [])
    idle, ms, *_ = expected_cases()["tiles"]
    assert "recorded on NVIDIA H100 80GB HBM3, 2026-12-07" in tested
    assert f"{idle:.0%} of SM-time idle against" in tested and "the last wave on 64 of 132 SMs" in tested
    assert microseconds(ms * 1e3) in tested
    assert step_quoted(step) == "block traces: H100, recorded 2026-12-07"


def test_a_claim_the_traces_contradict_is_named():
    reversed_claim = parse_lesson(STEP.replace('idle = "tiles", than = "split"', 'idle = "split", than = "tiles"'), "x")
    problems = claim_problems(reversed_claim.steps[0].because, [])
    assert len(problems) == 3, problems
    assert "of its SM-time sat idle against" in problems[1] and "every one of the 132 SMs" in problems[2]


# ---- where no recording is at hand -----------------------------------------------------------------------------
def test_without_a_recording_the_figures_and_footer_say_so(no_recording):
    lesson = parse_lesson(STEP, "x")
    step = lesson.steps[0]
    assert fill_text(step.text, []) == "Idle: n/a (no recorded block traces)."
    assert fill_text(step.text, [], "zh") == "Idle: 暂无（没有记录的线程块轨迹）."
    assert step_quoted(step) == "block traces: none recorded, the model's drawn"
    source = lesson_session(LESSONS["seed001"]["en"])
    gaps = lesson_gaps(lesson, source)
    assert any("{{lastwave idle tiles at 1024}}: no block traces of the small-size fix's builds" in g for g in gaps)
    assert any("no block traces of its builds at 1024³ are recorded: not checked" in g for g in gaps), gaps


def test_a_damaged_recording_is_no_recording(monkeypatch, tmp_path):
    bad = tmp_path / "h100-2026-12-07-traces-small-1024.json.gz"
    bad.write_bytes(gzip.compress(json.dumps({"results": "nope"}).encode()))
    monkeypatch.setattr(model_trace, "recorded_sessions", lambda: [bad])
    assert fill_text("{{lastwave idle split at 1024}}", []) == "n/a (no recorded block traces)"
    bad.write_bytes(b"not gzip")
    assert fill_text("{{lastwave idle split at 1024}}", []) == "n/a (no recorded block traces)"


# ---- seed001 and its Chinese twin ---------------------------------------------------------------------------------
def test_seed001_has_the_step_after_the_gap_in_both_languages():
    en, zh = LESSONS["seed001"]["en"], LESSONS["seed001"]["zh"]
    views = [s.view for s in en.steps]
    assert views.index("last-wave") == views.index("gap") + 1
    a, b = _step(en), _step(zh)
    assert en.steps.index(a) == zh.steps.index(b) and a.because == b.because and a.at == b.at == 1024
    assert "128×128" in a.notes and "split-K" in a.notes and "Stream-K" in a.notes
    results = list(lesson_session(en).results)
    cases = expected_cases()
    idle, _ms, *_, run_ns = cases["tiles"]
    assert f"{idle:.0%} of SM-time idle" in fill_text(a.text, results) and fill_text(a.text, results).startswith("H100")
    # the slide's times are the traced runs the bars draw (not the medians: the words and the picture agree)
    for name in ("tiles", "split", "stream-k"):
        run = microseconds(cases[name][-1] / 1e3, "en")
        assert run in fill_text(a.text, results) and microseconds(cases[name][-1] / 1e3, "zh") in fill_text(
            b.text, results, "zh"
        )
    assert microseconds(run_ns / 1e3, "en") == "113 µs"
    assert step_quoted(b, "zh", results=results) == "线程块轨迹：H100，记录于 2026-12-07"


def test_traces_in_the_lessons_own_results_are_quoted_before_the_shipped_ones(no_recording):
    """A session of the three builds' traces (a teacher's own GPU run) fills the figures; the footer points to it."""
    from gemmviz.core.hardware.model_trace import model_result

    results = []
    for case in small_size_fix(P):
        r = model_result(P, case)  # a trace of each build (the model's here: what is tested is the choice)
        results.append(replace(r, backend="cuda", samples_ms=[0.05 if case.name != "tiles" else 0.1]))
    lesson = parse_lesson(STEP, "x")
    step = lesson.steps[0]
    idle = last_wave(results[0].block_trace, 132, small_size_fix(P)[0].launch.blocks_per_sm).idle_share
    assert fill_text(step.text, results) == f"Idle: {idle:.0%}."
    assert step_quoted(step, results=results) == "block traces: these results"
    assert claim_problems(step.because, results) == []


def test_words_that_only_read_like_a_figure_quote_nothing_and_break_no_footer():
    """A text with "{lastwave idle tiles at 0}" in single braces loaded, then its footer raised "M must be at
    least 1" (the CLI's export failed without a line); words are not placeholders and quote no figure."""
    text = (
        'title = "L"\n[[step]]\ntitle = "T"\ntext = "Write {lastwave idle tiles at 0}; say lastwave idle tiles at 1024."'
        '\nview = "text"\n'
    )
    step = parse_lesson(text, "x").steps[0]
    assert step_quoted(step) == ""
    assert fill_text(step.text, []) == step.text


def test_a_lessons_own_traces_are_said_to_be_its_own_not_a_gpu_called_question_mark():
    """Traces in the lesson's results (no session beside them): the claim's test and the view's sentence say they
    are the lesson's own, whose footer names the GPU, and name no unknown machine."""
    from gemmviz.core.hardware.fix_pick import recorded_pick
    from gemmviz.core.hardware.model_trace import fix_messages
    from gemmviz.core.messages import render

    results = Session.load(shipped_fix_file(P) or "").results
    step = parse_lesson(STEP, "x").steps[0]
    assert claim_problems(step.because, results) == []
    (tested,) = claim_tests(step.because, results)
    assert "recorded in the lesson's results" in tested and "?" not in tested
    pick = recorded_pick(P, results)
    assert pick is not None and pick.recorded_on == ""
    shown = [(s.case, s.last) for s in pick.shown]
    words = [render(m, lang) for lang in ("en", "zh") for m in fix_messages(P, shown, pick.recorded_on)]
    assert words[1] == "Block traces recorded in these results (their source names the GPU)."
    assert not any("?" in w or "None" in w for w in words)


def test_the_slide_names_the_gpu_of_the_recording_it_quotes(monkeypatch):
    """{{lastwave gpu …}}: the shipped recording's GPU (seed001's step names no machine in its words), this
    lesson's GPU for its own traces, and n/a where nothing is recorded."""
    results = Session.load(shipped_fix_file(P) or "").results
    assert fill_text("{{lastwave gpu tiles at 1024}}", []) == "H100"
    assert fill_text("{{lastwave gpu tiles at 1024}}", results) == "this lesson's GPU"
    assert fill_text("{{lastwave gpu tiles at 1024}}", results, "zh") == "本课的 GPU"
    for lang, lesson in LESSONS["seed001"].items():
        step = _step(lesson)
        assert "{{lastwave gpu tiles at 1024}}" in step.text and "H100" not in step.text
        assert fill_text(step.text, [], lang).startswith("H100")
    monkeypatch.setattr(model_trace, "recorded_sessions", lambda: [])
    assert fill_text("{{lastwave gpu tiles at 1024}}", []) == "n/a (no recorded block traces)"


def test_the_header_names_the_recording_the_view_draws(monkeypatch):
    """The slide's header names the shipped traces' GPU and date where the view draws them (not the lesson
    session's GPU over another GPU's figures); the lesson's own traces or none recorded: the lesson's source."""
    from gemmviz.core.lesson.views import lesson_view
    from gemmviz.core.messages import render

    kind = lesson_view("last-wave")
    assert kind is not None and kind.heading is not None
    step = _step(LESSONS["seed001"]["en"])
    head = kind.heading(step, [])
    assert head is not None and render(head, "en") == "Quoted: block traces recorded on H100, 2026-12-07"
    assert render(head, "zh") == "引用：线程块轨迹，录制于 H100，2026-12-07"
    assert kind.heading(step, Session.load(shipped_fix_file(P) or "").results) is None
    monkeypatch.setattr(model_trace, "recorded_sessions", lambda: [])
    assert kind.heading(step, []) is None
