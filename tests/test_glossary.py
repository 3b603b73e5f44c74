"""One term per concept (issue 43, item 5): the checker's texts (its verdicts, causes, findings and report lines,
in core/messages.py and core/exercise/) use the glossary's Chinese term (core/glossary.py) and none of the other
renderings it rules out (every template, the checker's among them: test_glossary_shipped); a report line in
Chinese is not half English."""

from __future__ import annotations

import re

import gemmviz.core.exercise.access_goals
import gemmviz.core.exercise.causes
import gemmviz.core.exercise.check
import gemmviz.core.exercise.record  # noqa: F401  (each defines its messages)
from gemmviz.core.glossary import TERMS, term, zh_violations
from gemmviz.core.messages import TEMPLATES, msg, render

# the checker's messages: its verdicts, causes and fixes, the emulator's findings, the report's own lines
CHECKER = (
    "goal.",
    "cause.",
    "fix.",
    "where.",
    "reason.",
    "speed.",
    "advice.",
    "emu.",
    "finding.",
    "access.",
    "report.",
    "tool.",
)
KEYS = sorted(k for k in TEMPLATES if k.startswith(CHECKER))


def test_the_checker_has_messages_to_hold():
    assert len(KEYS) > 100 and all("zh" in TEMPLATES[k] for k in KEYS if k.startswith("cause."))


def test_a_glossary_term_in_english_is_the_glossarys_term_in_chinese():
    """Where the English names a concept (in words: tile, not TILE or tile_A), the Chinese names it by the
    glossary's term."""
    missing = []
    for key in KEYS:
        en, zh = TEMPLATES[key]["en"], TEMPLATES[key].get("zh")
        for t in TERMS:
            if zh is not None and re.search(rf"(?<![\w]){re.escape(t.en)}(?![\w])", en) and t.zh not in zh:
                missing.append((key, t.en, t.zh))
    assert missing == []


def test_the_glossary_knows_what_the_issue_found_written_two_ways():
    assert term("bank conflict").zh == "bank 冲突" and "存储体冲突" in term("bank conflict").zh_not
    assert zh_violations("有 4 路存储体冲突") == [("存储体", "bank"), ("存储体冲突", "bank 冲突")]


def test_a_chinese_report_line_on_what_did_not_run_is_chinese():
    """ "未运行：timing, compute-sanitizer…" was half English: the note is a message now."""
    said = render(msg("report.not_run_gpu", why="PyCUDA", command="gemmviz exercise check k.cu"), "zh")
    assert "timing" not in said and "counters" not in said and "计时" in said and "未运行" in said
    plain = re.sub(r"`[^`]*`|\([^)]*\)|（[^）]*）|compute-sanitizer|Nsight Compute|CUDA|GPU", "", said)
    assert not re.search(r"[A-Za-z]{4,}", plain), said
