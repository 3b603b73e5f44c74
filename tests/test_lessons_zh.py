"""The Chinese lessons: the same steps, views and placeholders as the English ones, figures written as Chinese
writes them (1,374 亿, 502 秒, 1.52 倍), never '137 billion' inside a Chinese sentence."""

import re

import pytest

from gemmviz.cli.main import main
from gemmviz.core import numbers
from gemmviz.core.lesson.lessons import (
    LessonError,
    all_shipped_lessons,
    fill_text,
    find_lesson,
    lesson_session,
    parse_lesson,
    step_table,
)

LESSONS = all_shipped_lessons()
PLACEHOLDER = re.compile(r"\{\{\s*(.*?)\s*\}\}")
ENGLISH_FIGURES = re.compile(r"billion|slower|n/a|bytes|\d (ms|s|µs)\b")


def _same_shape(step):
    return (step.view, step.chart, step.series, step.sizes, step.at, step.baseline, step.animation, step.run)


@pytest.mark.parametrize("name", sorted(LESSONS))
def test_every_lesson_has_a_chinese_version_with_the_same_steps(name):
    en, zh = LESSONS[name]["en"], LESSONS[name]["zh"]
    assert (en.lang, zh.lang, zh.session) == ("en", "zh", en.session)
    assert len(zh.steps) == len(en.steps)
    for a, b in zip(en.steps, zh.steps):
        assert _same_shape(a) == _same_shape(b), b.title
        assert sorted(PLACEHOLDER.findall(a.text)) == sorted(PLACEHOLDER.findall(b.text)), b.title
        assert re.search(r"[\u4e00-\u9fff]", b.title + b.text), b.title  # written in Chinese, not copied


@pytest.mark.parametrize("name", sorted(LESSONS))
def test_chinese_figures_are_written_the_chinese_way(name):
    zh = LESSONS[name]["zh"]
    results = list(lesson_session(zh).results)
    for step in zh.steps:
        text = fill_text(step.text, results, "zh")
        assert not ENGLISH_FIGURES.search(text), text
        if step.view == "table":
            cells = [c for _, row in step_table(step, results, "zh").rows for c in row]
            assert all((c.ratio == "" or c.ratio.endswith("倍")) and not ENGLISH_FIGURES.search(c.time) for c in cells)


def test_the_seed000_figures_in_chinese():
    zh = find_lesson("seed000", "zh")
    results = list(lesson_session(zh).results)
    texts = [fill_text(s.text, results, "zh") for s in zh.steps]
    assert "4096³ 时为 1,374 亿次。" in texts[0]
    assert "4096³ 用 502 秒" in texts[1]
    titles = [s.title for s in zh.steps]
    assert "1.52 倍" in texts[titles.index("在这块 GPU 上：不是 12 倍")]
    dram = texts[titles.index("实测：大部分读取由缓存提供")]
    assert "10.4 GB" in dram and "16.9 GB" in dram


def test_numbers_per_language():
    assert [numbers.count(2 * n**3, "zh") for n in (16, 256, 1024, 4096, 8192)] == [
        "8,192",
        "3,355 万",
        "21.5 亿",  # three figures, as in English (2.15 billion): 42.9 亿 beside 2.68 亿, not 43 亿
        "1,374 亿",
        "1.1 万亿",
    ]
    assert numbers.count(2 * 4096**3) == "137 billion"
    assert [numbers.duration(ms, "zh") for ms in (0.0821, 16.998, 51700, 502121)] == [
        "82.1 微秒",
        "17.0 毫秒",
        "51.7 秒",
        "502 秒",
    ]
    assert [numbers.ratio(x, "zh") for x in (1.534, 12559.4, 1 / 181913)] == ["1.53 倍", "12,559 倍", "慢 181,913 倍"]
    assert (numbers.byte_size(550e9, "zh"), numbers.byte_size(512, "zh"), numbers.byte_size(512)) == (
        "550 GB",
        "512 字节",
        "512 bytes",
    )
    assert numbers.missing("zh") == "暂无（这些结果中没有）"
    with pytest.raises(ValueError, match="language"):
        numbers.duration(1.0, "ko")


def test_chinese_sentences_are_counted_by_their_full_stops():
    four = 'title = "L"\nlang = "zh"\n[[step]]\ntitle = "T"\ntext = "一。二。三？四！"\n'
    with pytest.raises(LessonError, match="at most 3 sentences"):
        parse_lesson(four, "x")
    assert parse_lesson(four.replace("四！", ""), "x").lang == "zh"
    with pytest.raises(LessonError, match="lang must be one of"):
        parse_lesson(four.replace('"zh"', '"ko"'), "x")


def test_a_copied_lesson_keeps_its_language(tmp_path):
    copy = tmp_path / "my-copy.toml"
    copy.write_text(_shipped_text("seed001.zh.toml"), encoding="utf-8")
    lesson = find_lesson(str(copy), "en")  # a file says its own language
    assert (lesson.name, lesson.lang) == ("my-copy", "zh")


def _shipped_text(file_name):
    from gemmviz.core.paths import asset_path

    return asset_path("lessons", file_name).read_text(encoding="utf-8")


def test_find_lesson_by_language():
    assert find_lesson("seed000", "zh").title == "分块矩阵乘法为什么快"
    assert find_lesson("seed000").lang == "en"


def test_cli_lists_languages_and_exports_the_chinese_slides(tmp_path, capsys, monkeypatch):
    assert main(["lesson", "--list"]) == 0
    assert all(line.endswith("\ten, zh") for line in capsys.readouterr().out.splitlines())
    out = tmp_path / "zh"
    assert main(["lesson", "seed001", "--lang", "zh", "--export", str(out), "--size", "640x360"]) == 0
    assert len(list(out.glob("step-*.png"))) == len(LESSONS["seed001"]["zh"].steps)
    # --lang before the subcommand picks the same version: the slides and handout asked for are the Chinese
    # lesson's (drawn once above already; drawing them again showed nothing more and took 3 s)
    import gemmviz.ui.lesson.handout as handout
    import gemmviz.ui.lesson.render as render

    asked = []

    def export(*a, **k):  # as export_slides: the handout is made once the slides are drawn
        asked.append(a[0])
        assert [make() for make in k["extra"].values()] == [b"%PDF"]
        return [tmp_path / "lesson.pdf"]

    monkeypatch.setattr(render, "export_slides", export)
    monkeypatch.setattr(handout, "handout_pdf", lambda *a, **k: asked.append(a[0]) or b"%PDF")
    assert main(["--lang", "zh", "lesson", "seed001", "--export", str(tmp_path / "again"), "--size", "640x360"]) == 0
    assert [x.lang for x in asked] == ["zh", "zh"] and asked[0] == LESSONS["seed001"]["zh"]


HAN = r"[\u3400-\u9fff]"
STRAY = re.compile(rf"{HAN} +{HAN}|{HAN},|,{HAN}|{HAN};|;{HAN}")


@pytest.mark.parametrize("name", sorted(LESSONS))
def test_chinese_lessons_use_the_glossarys_terms_and_chinese_punctuation(name):
    """Issue 44: 存储体冲突 in a title beside bank 冲突 in the counters, 屋顶线模型 beside Roofline 模型, a
    space between two hanzi after a figure ("43 亿 降到") and ASCII commas in Chinese text."""
    from gemmviz.core.glossary import zh_violations
    from gemmviz.core.lesson.lessons import step_quoted

    zh = LESSONS[name]["zh"]
    results = list(lesson_session(zh).results)
    assert not zh_violations(zh.title + zh.summary)
    for step in zh.steps:
        for words in (step.title, fill_text(step.text, results, "zh"), step.notes, step_quoted(step, "zh")):
            assert not zh_violations(words), (step.title, zh_violations(words))
            assert not STRAY.search(words), (step.title, STRAY.search(words).group(0))
