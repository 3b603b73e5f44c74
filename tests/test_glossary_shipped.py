"""One term per concept in what gemmviz ships in Chinese: every message template (imported from every core and
backend module that defines one, so a template built from pieces is checked whole), the Qt catalogue, and the
exercises' tasks and hints hold to core/glossary.py (a reader who meets two names for one thing thinks they are
two things). The lessons are checked with their figures filled in, beside their punctuation
(test_lessons_zh); the checker's English-to-Chinese term use in test_glossary."""

import importlib
import pkgutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import gemmviz.backends
import gemmviz.core
from gemmviz.core.glossary import TERMS, zh_violations
from gemmviz.core.messages import TEMPLATES
from gemmviz.core.paths import asset_path

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = sorted((ROOT / "assets" / "exercises").glob("*.toml"))


def test_every_message_template_and_the_catalogue_say_each_concept_as_the_glossary_does():
    for package in (gemmviz.core, gemmviz.backends):  # every module that defines messages
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)
    ts = asset_path("i18n", "gemmviz_zh_CN.ts")
    catalogue = [m.find("translation").text or "" for m in ET.parse(ts).getroot().iter("message")]
    said = {text: zh_violations(text) for text in catalogue + [t["zh"] for t in TEMPLATES.values() if "zh" in t]}
    assert {text: bad for text, bad in said.items() if bad} == {}


@pytest.mark.parametrize("path", EXERCISES, ids=lambda p: p.name)
def test_an_exercise_says_each_concept_as_the_glossary_does(path):
    assert zh_violations(path.read_text(encoding="utf-8")) == []


def test_the_glossary_names_each_concept_once_and_rules_out_no_term_of_its_own():
    concepts = [t.concept for t in TERMS]
    assert len(concepts) == len(set(concepts))
    terms = {t.zh for t in TERMS}
    assert not [bad for t in TERMS for bad in t.zh_not if bad in terms]
