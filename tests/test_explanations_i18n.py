"""One explanation, many languages (issue 35 item 5): explanations decide what to say once, as messages (a key
and its parameters), and each language's template says it (core/messages.render). No branch on the language is
left in the code that writes them, and every message they make has a template in every language."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from gemmviz.core import messages
from gemmviz.core.messages import TEMPLATES, msg, render
from gemmviz.core.numbers import LANGUAGES
from tests.checks.messages import every_template_renders, load_every_message, messages_missing_a_language

ROOT = Path(__file__).resolve().parents[1] / "gemmviz"
HAN = re.compile("[\u4e00-\u9fff]")

# a branch on the language: lang == "zh", "en" != x, "zh" if …, if zh:, zh = lang == …, FOO_ZH, startswith("zh")
BRANCHES = re.compile(
    r"""[!=]=\s*["'](?:zh|en)["']"""
    r"""|["'](?:zh|en)["']\s*(?:[!=]=|if\b)"""
    r"""|\bif\s+(?:not\s+)?zh\b|\bzh\s*=\s*(?:lang|language)\b"""
    r"""|\w_ZH\b|startswith\(\s*["']zh"""
    r"""|\bin\s*\(\s*["']zh["']"""
)
# the language plumbing, where a branch on the language belongs
ALLOWED = {
    "core/messages.py": "the renderer: a language's template, its large counts",
    "ui/i18n.py": "picks and installs the window's language",
    "ui/text.py": "tr(): a string the catalogue lacks falls back to the registry's own translation",
    "ui/about.py": "a seed's English title is shown beside its Chinese one to readers of English only",
}


def _branches() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in ALLOWED:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if BRANCHES.search(line.split("#")[0]):
                found.setdefault(rel, []).append(f"{n}: {line.strip()}")
    return found


def test_no_language_branching_outside_the_language_plumbing():
    """A new explanation writes msg(key, **params) and a template per language (messages.define), never
    `if lang == "zh"`; a module that must branch on the language joins ALLOWED with its reason."""
    assert _branches() == {}


def test_the_guard_sees_a_branch():
    for line in (
        'x = "倍" if lang == "zh" else "×"',
        'sep = "、" if zh else ", "',
        'if lang != "en":',
        "LEVELS_ZH = {}",
        'zh = lang == "zh"',
        'if language() == "en":',
        'words = "zh" if a else "en"',
    ):
        assert BRANCHES.search(line), line
    assert not BRANCHES.search('define("k", en="a", zh="b")') and not BRANCHES.search('LANGUAGES = ("en", "zh")')
    assert all((ROOT / path).exists() for path in ALLOWED)


def _load_families() -> None:
    """Every core and backend module imported, so every define(...) has run (no list of families to extend)."""
    load_every_message()


def test_every_explanation_message_has_a_template_in_every_language():
    _load_families()
    assert len(TEMPLATES) > 300
    assert messages_missing_a_language() == {}


def test_every_explanation_template_renders_in_every_language():
    _load_families()
    assert every_template_renders() == len(TEMPLATES)


@pytest.fixture(scope="module")
def shipped_results():
    from gemmviz.core.session.results import Session
    from gemmviz.core.session.workspace import recorded_sessions

    return [r for path in recorded_sessions() for r in Session.load(path).results]


def _rendered(m, lang: str) -> str:
    text = render(m, lang)
    assert text and "{" not in text and "}" not in text.replace("{}", ""), (m, lang, text)
    return text


def _both(m) -> tuple[str, str]:
    assert m["key"] in TEMPLATES, m
    en, zh = _rendered(m, "en"), _rendered(m, "zh")
    neutral = TEMPLATES[m["key"]]["zh"] == TEMPLATES[m["key"]]["en"]  # a name, or the text a parameter holds
    assert (en == zh) if neutral else (HAN.search(zh) and not HAN.search(en)), (m, en, zh)
    return en, zh


def test_the_results_explanations_render_in_both_languages(shipped_results):
    import json

    from gemmviz.core.charts.explain import comparison_of, how_measured_message, row_message, trace_message
    from gemmviz.core.hardware.roofline import Ceilings, explanation
    from gemmviz.core.measure.rigor import compare_message, flag_messages

    ceilings = Ceilings.from_dict(json.loads((ROOT.parent / "assets/ceilings/h200-2026-11-30.json").read_text()))
    made: dict[str, int] = {}

    def check(m) -> None:
        if m is not None:
            _both(m)
            made[m["key"]] = made.get(m["key"], 0) + 1

    timed = [r for r in shipped_results if r.samples_ms]
    for r in shipped_results:
        for m in explanation(r, ceilings) + explanation(r, None):
            check(m)
        for m in flag_messages(r):
            check(m)
        if r.samples_ms:
            check(how_measured_message(r))
        comp = comparison_of(r)
        if comp is not None:
            for m in (*comp.messages, *(row_message(row) for row in comp.rows)):
                check(m)
    for a, b in zip(timed, timed[1:], strict=False):
        check(compare_message(a, b)[2])
    from gemmviz.core.hardware.counters import trace_summary

    traced = [r for r in shipped_results if r.block_trace][:2]
    for r in traced:
        s = trace_summary(r.block_trace)
        check(trace_message(s))
        check(trace_message(s, s.sms_used + 4))
    # the shipped sessions reach every branch of the roofline and most of the counters' sentences
    assert {"roof.head", "roof.work", "roof.measured", "roof.allows", "roof.caches", "roof.issue"} <= set(made)
    assert len([k for k in made if k.startswith("counters.")]) >= 10
    assert {"rigor.within_noise", "rigor.beyond_noise"} & set(made)


def test_the_fixed_sentences_render_in_both_languages():
    _load_families()
    from gemmviz.core.charts.explain import device_summary
    from gemmviz.core.hardware.microbench import figure_text, footer_note
    from gemmviz.core.lesson.lessons import ceiling_text, how_words, step_quoted

    for key in ("explain.pair.invalid", "counters.no_conflicts", "microbench.absent", "trace.none", "access.wrong"):
        _both(msg(key))
    gpu = {
        "available": True,
        "name": "H200",
        "sms": 132,
        "compute_capability": "9.0",
        "memory_total_bytes": 1.5e11,
        "fp32_peak_gflops": 66908.0,
        "sm_clock_mhz": 1980,
    }
    assert device_summary(gpu) == "H200 · 132 SMs · cc 9.0 · 140 GiB · FP32 peak 66.9 TFLOP/s · SM clock 1980 MHz"
    assert (
        device_summary(gpu, "zh") == "H200 · 132 个 SM · cc 9.0 · 140 GiB · FP32 峰值 66.9 TFLOP/s · SM 时钟 1980 MHz"
    )
    assert HAN.search(device_summary({"available": False, "reason": "no driver"}, "zh"))
    assert (how_words("replayed", "en"), how_words("replayed", "zh"), how_words(None, "zh")) == (
        "replayed",
        "回放记录",
        "",
    )
    assert (figure_text(None, "x"), footer_note(None, "zh")) == ("n/a (no recording shipped)", "延迟：未附带测量记录")
    text = ceiling_text("shared/dram", "zh")
    assert text is None or text.endswith(" 倍")
    from gemmviz.core.lesson.lessons import Step

    step = Step(title="t", text="{{latency l1}}", view="chart", line=1, quoted="seed 001, A100")
    assert step_quoted(step, "en", None) == "seed 001, A100; latencies: no recording shipped"
    assert step_quoted(step, "zh", None) == "seed 001, A100；延迟：未附带测量记录"


def test_the_access_verdict_messages_render_in_both_languages():
    _load_families()
    parts = [
        msg("access.figure", value=8.5, figure="access.figure.global_ld_sectors_per_request", limit=4.0),
        msg("access.no_requests", figure="access.figure.shared_st_wavefronts_per_request"),
    ]
    where = msg("access.blocks", n=2, shape=[160, 160, 64])
    en, zh = _both(msg("access.detail", parts=parts, where=where))
    assert en == (
        "8.50 sectors per global load request (goal: at most 4.00); no wavefronts per shared store request: the "
        "kernel made none (in 2 traced blocks at 160×160×64)"
    )
    assert zh == (
        "每个全局加载请求的扇区数 8.50（目标：最多 4.00）；没有每个共享内存写入请求的波前数：核函数没有发出这类请求"
        "（记录了 160×160×64 下的 2 个线程块）"
    )


def test_the_renderers_specs():
    assert render(msg("counters.dram.cached", measured=3.2e9, model=10.4e9, ratio=0.3077), "en").startswith(
        "DRAM moved 3.20 GB, 30.8% of the 10.40 GB"
    )
    assert render(msg("counters.vector_loads", measured=12.34e6, model=50e6), "zh").startswith(
        "共享内存加载的线程束指令有 12.3 M 条，而逐个标量加载需要 50.0 M 条"
    )
    assert render(msg("roof.work", flops=137438953472), "en") == (
        "Work: 2·M·N·K = 137,438,953,472 floating-point operations (about 137 billion)."
    )
    assert (
        render(msg("roof.work", flops=137438953472), "zh")
        == "计算量：2·M·N·K = 137,438,953,472 次浮点运算（约 1,374 亿次）。"
    )
    assert render(msg("counters.row.ratio", ratio=0.019), "zh") == "（模型的 1.9%）"
    assert messages.SEPARATORS.keys() == set(LANGUAGES)


# a translation by regex in ui/: a table pairing patterns with templates to translate (a sentence core or a
# backend wrote in English, matched and said again), or a substitution whose replacement is translated
TRANSLATING = {"QT_TRANSLATE_NOOP", "tr", "translate"}
REGEX_LEFT: dict[str, str] = {}  # a table still to become messages, with the issue that removes it


def _called(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    return None


def _regex_translations(source: str) -> list[int]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Tuple | ast.List | ast.Dict):
            items = node.elts if not isinstance(node, ast.Dict) else [*node.keys, *node.values]
            called = {_called(x) for x in items if x is not None}
            if "compile" in called and called & TRANSLATING:
                found.append(node.lineno)
        if _called(node) in ("sub", "subn") and any(
            _called(n) in TRANSLATING for arg in node.args for n in ast.walk(arg) if isinstance(arg, ast.Lambda)
        ):
            found.append(node.lineno)
    return sorted(found)


def test_no_regex_translation_table_in_ui():
    """What core or a backend says is a message rendered in the window's language (messages.render), never an
    English sentence matched by a pattern and translated again."""
    found = {}
    for path in sorted((ROOT / "ui").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        lines = _regex_translations(path.read_text(encoding="utf-8"))
        if lines and rel not in REGEX_LEFT:
            found[rel] = lines
    assert found == {}
    assert all((ROOT / path).exists() for path in REGEX_LEFT)


def test_the_regex_guard_sees_a_table():
    table = """
_REASONS = (
    (re.compile(r"^no CUDA device: (?P<detail>.*)$"), QT_TRANSLATE_NOOP("", "no CUDA device: {detail}")),
)
words = _HOW.sub(lambda m: tr(m.group(1)), text)
"""
    assert _regex_translations(table) == [3, 5]
    assert _regex_translations('X = (re.compile("a"), "b")\ny = tr("c")\n') == []


def test_the_data_sources_lines_are_messages_in_both_languages():
    """A lesson's header and footer and an export's footer (issue 35 item 5): core writes messages, each language
    says them; the GPU's name and the dates stay as they are."""
    from gemmviz.core.lesson.lessons import NO_DATA, live_source, session_source
    from gemmviz.core.session.results import Session

    session = Session(environment={"gpu": "NVIDIA H200"}, created="2026-12-01T10:00:00", kind="published")
    replay = session_source(Session(environment={"gpu": "NVIDIA H200"}, created=""), replay=True)
    for source in (session_source(session), replay, live_source([], "NVIDIA H200", "2026-12-02"), NO_DATA):
        _both(source.label_message)
        _rendered(source.footer_message, "zh")
    assert render(session_source(session).label_message, "zh") == "已发表的数据：NVIDIA H200，2026-12-01"
    assert render(replay.label_message, "zh") == "回放：录制于 NVIDIA H200，无日期"
    assert replay.label == "Replayed: recorded on NVIDIA H200, undated"
    assert render(replay.footer_message, "zh").startswith("NVIDIA H200，无日期，回放 · gemmviz ")
