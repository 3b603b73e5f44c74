"""The recorded microbenchmark (core/hardware/microbench.py): a validated loader, bad files refused in one line, and the
lesson placeholders {{latency …}} / {{microbench …}} filled from it with its source on the footer; without a
recording the slide says so (issue 31). The shipped recording itself is not required here."""

import json
from pathlib import Path

import pytest

from gemmviz.core.hardware import microbench as mb
from gemmviz.core.hardware.microbench import MicrobenchError, load_microbench, parse_microbench
from gemmviz.core.lesson.lessons import Step, fill_text, lesson_gaps, parse_lesson, session_source, step_quoted
from gemmviz.core.problem import ProblemError

DATA = Path(__file__).parent / "data"
FIXTURE = DATA / "microbench-fixture.json"


def _data() -> dict:
    return json.loads(FIXTURE.read_text())


def test_the_fixture_loads_with_every_figure():
    bench = load_microbench(FIXTURE)
    assert bench.gpu == "NVIDIA H200" and bench.date == "2026-12-02" and bench.source == "kernels/latency.cu"
    assert set(bench.figures) == set(mb.FIGURES)
    assert bench.origin == "H200, recorded 2026-12-02"


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.update(schema="gemmviz.session"), "schema must be"),
        (lambda d: d.update(schema_version=2), "schema_version 2"),
        (lambda d: d.pop("gpu"), "gpu must be"),
        (lambda d: d.update(created="yesterday"), "created must be an ISO date"),
        (lambda d: d["figures"].pop("dram_latency_cycles"), "lack dram_latency_cycles"),
        (lambda d: d["figures"].update(shared_load_latency_cycles="30"), "must be a number"),
        (lambda d: d["figures"].update(shared_load_latency_cycles=True), "must be a number"),
        (lambda d: d["figures"].update(naive_l1_hit_rate_pct=188), "outside 0…100"),
        (lambda d: d["figures"].update(register_file_kib_per_sm=0), "outside"),
        (lambda d: d.update(figures=[1, 2]), "figures must be an object"),
    ],
)
def test_a_bad_recording_is_refused_in_one_line(change, says):
    data = _data()
    change(data)
    with pytest.raises(MicrobenchError, match=says) as info:
        parse_microbench(data, "x.json")
    assert str(info.value).startswith("x.json: ") and "\n" not in str(info.value)


def test_bad_files_are_refused(tmp_path):
    (tmp_path / "a.json").write_text("{not json")
    with pytest.raises(MicrobenchError, match="not valid JSON"):
        load_microbench(tmp_path / "a.json")
    with pytest.raises(MicrobenchError, match="folder"):
        load_microbench(tmp_path)
    (tmp_path / "b.json").write_text(json.dumps([1]))
    with pytest.raises(MicrobenchError, match="JSON object"):
        load_microbench(tmp_path / "b.json")
    (tmp_path / "c.json").write_text(" " * (mb.MAX_FILE_BYTES + 10))
    with pytest.raises(MicrobenchError):
        load_microbench(tmp_path / "c.json")


def test_placeholders_fill_from_the_recording_in_both_languages():
    bench = load_microbench(FIXTURE)
    text = "{{latency shared}}, {{latency dram}}, {{microbench register_file_kib_per_sm}}, {{microbench naive_l1_hit_rate_pct}}"
    assert fill_text(text, [], "en", microbench=bench) == "31 cycles, 650 cycles, 256 KiB, 88%"
    assert fill_text(text, [], "zh", microbench=bench) == "31 个周期, 650 个周期, 256 KiB, 88%"


def test_without_a_recording_the_slide_says_so_and_the_gaps_name_it():
    lacking: list[str] = []
    filled = fill_text("shared: {{latency shared}}.", [], "en", lacking, microbench=None)
    assert filled == "shared: n/a (no recording shipped)." and lacking == ["{{latency shared}}"]
    assert "未附带" in fill_text("{{latency l1}}", [], "zh", microbench=None)
    step = Step("T", "{{latency l2}}.", "text", 1)
    assert step_quoted(step, "en", microbench=None) == "latencies: no recording shipped"


def test_unknown_figures_are_refused_when_the_lesson_is_read():
    with pytest.raises(ProblemError, match="latency takes one of register, shared, l1, l2, dram"):
        fill_text("{{latency l3}}", [], microbench=None)
    raw = 'title = "L"\n[[step]]\ntitle = "S"\ntext = "{{microbench cache_size}}."\nview = "text"\n'
    with pytest.raises(Exception, match="microbench takes one of"):
        parse_lesson(raw, "l")


def test_the_footer_names_the_recording_beside_what_the_step_quotes():
    bench = load_microbench(FIXTURE)
    step = Step("T", "Shared: {{latency shared}}.", "text", 1, quoted="seed 000, published")
    assert step_quoted(step, "en", microbench=bench) == "seed 000, published; latencies: H200, recorded 2026-12-02"
    assert step_quoted(step, "zh", microbench=bench).endswith("延迟：H200，记录于 2026-12-02")
    plain = Step("T", "No figures.", "text", 1)
    assert step_quoted(plain, "en", microbench=bench) == ""


def test_lesson_gaps_list_a_missing_recording(monkeypatch):
    monkeypatch.setattr("gemmviz.core.lesson.placeholders.shipped_microbench", lambda: None)
    raw = 'title = "L"\n[[step]]\ntitle = "S"\ntext = "Shared takes {{latency shared}}."\nview = "text"\n'
    lesson = parse_lesson(raw, "l")
    from gemmviz.core.session.results import Session

    source = session_source(Session.load(DATA / "h200-counters-sample.json"))
    assert any("{{latency shared}}" in gap for gap in lesson_gaps(lesson, source))


def test_a_broken_shipped_recording_is_logged_and_read_as_none(monkeypatch, tmp_path, caplog):
    bad = tmp_path / "h200-2099-01-01.json"
    bad.write_text('{"schema": "gemmviz-microbench"}')
    monkeypatch.setattr(mb, "asset_files", lambda folder, suffix: [bad])
    mb.shipped_microbench.cache_clear()
    try:
        assert mb.shipped_microbench() is None
        assert "schema_version" in caplog.text
    finally:
        mb.shipped_microbench.cache_clear()


def test_the_shipped_microbenchmark_loads_and_names_its_gpu():
    """The lessons' latency slide reads the shipped H200 recording (issue 31), not a fixture."""
    from gemmviz.core.hardware import microbench

    shipped = microbench.shipped_microbench()
    assert shipped is not None, "assets/microbench/ holds no recording the lessons can read"
    assert shipped.gpu == "NVIDIA H200"
    figures = shipped.figures
    assert figures["shared_load_latency_cycles"] < figures["l1_hit_latency_cycles"] < figures["l2_hit_latency_cycles"]
    assert figures["l2_hit_latency_cycles"] < figures["dram_latency_cycles"]
    assert figures["register_file_kib_per_sm"] == 256
