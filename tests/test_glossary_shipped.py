"""One term per concept in everything gemmviz ships in Chinese: the lessons, the exercises, the Qt catalogue and
every message or text in the package hold to core/glossary.py (a reader who meets two names for one thing thinks
they are two things)."""

from pathlib import Path

import pytest

from gemmviz.core.glossary import TERMS, zh_violations

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(
    [
        *(ROOT / "assets").rglob("*.toml"),
        *(ROOT / "assets" / "i18n").glob("*.ts"),
        *(p for p in (ROOT / "gemmviz").rglob("*.py") if p.name != "glossary.py"),
        ROOT / "tools" / "zh_CN.py",
    ]
)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_other_rendering_of_a_glossary_term(path):
    assert zh_violations(path.read_text(encoding="utf-8")) == []


def test_the_glossary_names_each_concept_once_and_rules_out_no_term_of_its_own():
    concepts = [t.concept for t in TERMS]
    assert len(concepts) == len(set(concepts))
    terms = {t.zh for t in TERMS}
    assert not [bad for t in TERMS for bad in t.zh_not if bad in terms]
