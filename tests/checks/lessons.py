"""Checks over every shipped lesson (`all_shipped_lessons`, `shipped_lessons`), read when called, so a scratch
lesson put beside the shipped ones is held to them too."""

import json
import re
from pathlib import Path

from gemmviz.core.lesson.lessons import fill_text, shipped_lessons

NOT_HERE = re.compile(r"measured here|本机|在这里实测|this host|on this machine", re.IGNORECASE)


def shipped_lessons_load_and_have_the_seed_lessons() -> None:
    lessons = shipped_lessons()
    assert {"seed000", "seed001"} <= set(lessons)
    for lesson in lessons.values():
        assert lesson.steps and all(1 <= len(s.text.split(". ")) <= 3 for s in lesson.steps)
    views = {s.view for s in lessons["seed000"].steps}
    assert {"chart", "animation", "roofline", "hardware"} <= views


def shipped_lessons_show_no_markup_and_name_quoted_figures() -> None:
    """No literal backticks on a slide; a step that quotes the seeds' published figures says so on its footer."""
    from gemmviz.core.lesson.lessons import all_shipped_lessons

    for name, by_lang in all_shipped_lessons().items():
        for step in (s for lesson in by_lang.values() for s in lesson.steps):
            assert "`" not in step.text and "`" not in step.title, (name, step.title)
            if "A100" in step.text and step.view == "text":
                assert "published" in step.quoted or "已发表" in step.quoted, (name, step.title)


def no_two_rows_of_a_lesson_table_share_a_colour() -> None:
    from gemmviz.core.charts.style import colour_of, series_styles
    from gemmviz.core.lesson.lessons import lesson_session, step_table

    for lesson in shipped_lessons().values():
        results = list(lesson_session(lesson).results)
        for step in (s for s in lesson.steps if s.view == "table"):
            names = [name for name, _cells in step_table(step, results).rows]
            styles = series_styles(names)
            triples = [(styles[n].colour, styles[n].marker, styles[n].dash) for n in names]
            assert len(set(triples)) == len(triples), (lesson.name, names)
            # a kernel's own colour, whatever its source or language (zh step 12's swatches differed from en)
            assert all(styles[n].colour == colour_of(n.split(",", 1)[0].split("，", 1)[0]) for n in names)


def one_set_of_ceilings_in_slides_and_docs() -> None:
    """Issues 20 and 31: slides, docs and README said 7.7× and 7.8×, 4,233 and 4,253 GB/s, ridge 15.7 and 15.8.
    Slides quote the shipped ceilings through {{ceiling …}} (never typed in), and docs/benchmarks.md's ceilings
    table, its ridge and its shared / DRAM ratio are the same file's figures."""
    from gemmviz.core.lesson.lessons import all_shipped_lessons
    from gemmviz.core.lesson.placeholders import step_quoted
    from gemmviz.core.paths import asset_files

    ceilings = json.loads(asset_files("ceilings", ".json")[-1].read_text(encoding="utf-8"))
    dram, shared, peak = ceilings["bandwidth_gbs"], ceilings["shared_gbs"], ceilings["fp32_peak_gflops"]
    step = next(s for s in shipped_lessons()["seed000"].steps if "{{ceiling shared}}" in s.text)
    filled = fill_text(step.text, [])
    assert f"{shared / 1000:.1f} TB/s" in filled and f"{dram / 1000:.2f} TB/s" in filled
    assert f"{shared / dram:.1f}×" in filled and ceilings["date"][:10] in step_quoted(step)  # the ceilings footer
    assert fill_text("{{ceiling ridge}}", []) == f"{peak / dram:.1f} FLOP/B"
    for by_lang in all_shipped_lessons().values():  # no TB/s or ridge figure typed into a slide
        for lesson in by_lang.values():
            for s in lesson.steps:
                if re.search(r"published|已发表", s.quoted) and "ceiling" not in s.text:
                    continue  # a published figure (an A100's), named so on the footer
                typed = re.sub(r"\{\{.*?\}\}", "X", s.text)
                assert not re.search(r"\d TB/s|ridge\D{0,12}\d|脊点\D{0,6}\d", typed), (lesson.path, s.title)
    docs = (Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    for name, key in (
        ("memory bandwidth", "bandwidth_gbs"),
        ("FP32 peak", "fp32_peak_gflops"),
        ("best FP32 GEMM", "fp32_gemm_gflops"),
        ("L2 read", "l2_gbs"),
        ("shared-memory read", "shared_gbs"),
        ("cuBLAS TF32 (tensor cores)", "tf32_gemm_gflops"),
    ):
        assert f"| {name} | {ceilings[key]:,.0f} " in docs, name
    assert f"= {peak / dram:.1f} FLOP/byte" in docs and f"Shared memory / DRAM: {shared / dram:.1f}×" in docs
    wrong = {f"{shared / dram + d:.1f}×" for d in (-0.1, 0.1)} | {
        f"{peak / dram + d:.1f} FLOP/byte" for d in (-0.1, 0.1)
    }
    assert not [w for w in wrong if w in docs]


def slides_say_at_most_30_words_and_every_step_has_notes() -> None:
    """Issue 31: 23–86 words of prose on a slide; the rest belongs in the speaker's notes."""
    from gemmviz.core.lesson.lessons import all_shipped_lessons, slide_words
    from gemmviz.core.lesson.rules import MAX_SLIDE_WORDS, notes_long_enough

    assert slide_words("A {{gflops cublas at 4096}} b.") == 3 and slide_words("共享内存 {{latency shared}}") == 3
    for by_lang in all_shipped_lessons().values():
        assert set(by_lang) == {"en", "zh"}
        for lesson in by_lang.values():
            for s in lesson.steps:
                assert slide_words(s.text) <= MAX_SLIDE_WORDS, (lesson.path, s.title, slide_words(s.text))
                assert notes_long_enough(s.notes), (lesson.path, s.title)  # the loader refuses it too


def no_measured_here_on_a_replay_in_either_language() -> None:
    """Issue 31: Chinese seed000 step 12 labelled replayed H200 figures 本机实测 ("measured on this machine"). A
    shipped lesson's words never claim it (they may be replayed), and a replayed table's rows say replayed."""
    from gemmviz.core.lesson.lessons import all_shipped_lessons, lesson_session, step_table

    for by_lang in all_shipped_lessons().values():
        for lang, lesson in by_lang.items():
            source = lesson_session(lesson)
            assert source.how == "replayed"
            for s in lesson.steps:
                for words in (s.title, s.text, s.notes, fill_text(s.text, list(source.results), lang)):
                    assert not NOT_HERE.search(words), (lesson.path, s.title)
                if s.view == "table":
                    for name, _cells in step_table(s, list(source.results), lang, source.how).rows:
                        assert not NOT_HERE.search(name) and "measured" not in name, (lesson.path, name)
                        assert any(w in name for w in ("replayed", "回放", "published", "已发表")) or not s.beside
    live = step_table(next(s for s in shipped_lessons("zh")["seed000"].steps if s.beside), [], "zh", "measured").rows[
        1
    ][0]
    assert live.endswith("本机实测")  # only a live run says it (a table's row, never a lesson's words)
