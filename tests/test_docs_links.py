"""Every relative link in README.md, CONTRIBUTING.md and docs/**/*.md resolves: the file exists and, for
`#anchor`, the target Markdown file has a heading with that GitHub-style anchor."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered."""
    seen: dict[str, int] = {}
    out = set()
    for line in FENCE.sub("", page.read_text()).splitlines():
        if not line.startswith("#"):
            continue
        text = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links(page: Path) -> list[str]:
    return [t for t in LINK.findall(FENCE.sub("", page.read_text())) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_checker_sees_broken_links_and_anchors(tmp_path):
    page = tmp_path / "a.md"
    page.write_text("# Title here\n[x](missing.md) [y](#title-here) [z](#nope) [w](https://example.org)\n")
    assert links(page) == ["missing.md", "#title-here", "#nope"]
    assert anchors(page) == {"title-here"}


def test_the_readme_is_a_front_door():
    """A newcomer's first screen: at most about 150 lines, the system packages before the install, the test
    command with how long it takes, and the user guide linked."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 150
    assert text.index("apt-get install") < text.index("pip install .") < text.index("pytest")
    assert "minutes" in text[text.index("pytest") :] and "docs/guide/index.md" in text
