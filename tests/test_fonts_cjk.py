"""The bundled CJK font: every shipped Chinese character is in it, and with only DejaVu on the machine
(FONTCONFIG_FILE) the Chinese slides are drawn with fonts that have each of their characters, not boxes."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QFont, QRawFont

from gemmviz.core.lesson.lessons import all_shipped_lessons
from gemmviz.core.paths import asset_path
from gemmviz.ui.fonts import CJK_BOLD_FILE, CJK_FONT_FILE, pixel_font
from tests.checks.fonts import CJK

ROOT = Path(__file__).resolve().parents[1]


def shipped_chinese() -> set[str]:
    files = [*ROOT.glob("assets/lessons/*.zh.toml"), *ROOT.glob("assets/i18n/*.ts"), ROOT / "gemmviz/core/numbers.py"]
    assert len(files) >= 3
    return {c for f in files for c in CJK.findall(f.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("face", [CJK_FONT_FILE, CJK_BOLD_FILE])
def test_the_bundled_font_has_every_shipped_chinese_character(qapp, face):
    raw = QRawFont(str(asset_path("fonts", face)), 20, QFont.HintingPreference.PreferNoHinting)
    assert raw.isValid() and raw.familyName() == "gemmviz Noto Sans SC"
    assert (raw.weight() >= QFont.Weight.Bold) == (face == CJK_BOLD_FILE)
    missing = sorted(c for c in shipped_chinese() if not raw.supportsCharacter(ord(c)))
    assert not missing, f"rerun tools/cjk_font.py: the bundled font lacks {''.join(missing)}"
    assert (asset_path("fonts", "OFL.txt")).read_text(encoding="utf-8").count("SIL OPEN FONT LICENSE Version 1.1")


CHILD = r"""
import json, sys
from PySide6.QtGui import QColor, QFontDatabase, QImage, QPainter
from gemmviz.cli.app import qt_app
from gemmviz.core.lesson.lessons import all_shipped_lessons, lesson_session, step_table
from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.lesson.render import slide_for

def boxes(text):
    # characters drawn as the box of a missing glyph: each one's picture is that of a character no font has
    missing = picture("\ue000")  # a private-use character: in no font here
    return [c for c in set(text) if not c.isspace() and ord(c) > 0x2e7f and picture(c) == missing]

def picture(text):
    image = QImage(40 * len(text) + 10, 50, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    p = QPainter(image); p.setFont(pixel_font(30)); p.setPen(QColor("black")); p.drawText(5, 40, text); p.end()
    return image

from PySide6.QtWidgets import QApplication
before = QApplication(sys.argv[:1])
han = QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese)
tofu = boxes("分块")
tofu_picture = picture("分块")
app = qt_app()  # registers the bundled font
found = {"system_han": han, "tofu_before": tofu, "differs": picture("分块") != tofu_picture, "bad": {}}
for name, by_lang in all_shipped_lessons().items():
    lesson = by_lang["zh"]
    source = lesson_session(lesson)
    texts = [lesson.title]
    for i, step in enumerate(lesson.steps):
        slide = slide_for(lesson, i, source)
        texts += [slide.title, slide.text]
        if step.view == "table":
            texts += [c.time + c.ratio for _, row in step_table(step, list(source.results), "zh").rows for c in row]
    found["bad"][name] = sorted({c for t in texts for c in boxes(t)})
from gemmviz.cli.main import main  # the teacher's command, in this process whose fonts are DejaVu's alone
found["rc"] = main(["lesson", "seed001", "--lang", "zh", "--export", sys.argv[1], "--size", "640x360"])
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def dejavu_only(tmp_path_factory):
    """One fresh process with only DejaVu installed (FONTCONFIG_FILE, read as Qt starts: a process of its own is the
    point) that checks the lessons' characters and then exports seed001 in Chinese with `gemmviz lesson`; both
    tests below read what it found and wrote (it ran twice before, once for each)."""
    tmp_path = tmp_path_factory.mktemp("dejavu")
    conf = tmp_path / "fonts.conf"
    conf.write_text(
        f"<?xml version='1.0'?><fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir>"
        f"<cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>"
    )
    env = {**os.environ, "FONTCONFIG_FILE": str(conf), "QT_QPA_PLATFORM": "offscreen"}
    out = tmp_path / "slides"
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=ROOT,
    )
    return proc, out


def test_chinese_slides_render_with_only_dejavu_installed(dejavu_only):
    proc, out = dejavu_only
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["system_han"] == [] and found["tofu_before"], "the test machine's fonts were not limited to DejaVu"
    assert found["differs"]  # the same two characters, boxes before, glyphs after
    # every shipped lesson (a lesson added is checked too, no list to edit), none with a character drawn as a box
    assert set(found["bad"]) == set(all_shipped_lessons()) and not any(found["bad"].values()), found["bad"]
    assert found["rc"] == 0
    assert len(list(out.glob("step-*.png"))) == len(all_shipped_lessons()["seed001"]["zh"].steps)
    assert (out / "lesson.pdf").is_file()  # a PNG per step and the PDF


def pdf_fonts(pdf: bytes) -> dict[str, str]:
    """Each embedded font of a PDF (its BaseFont) and the characters its ToUnicode map gives back as text."""
    import zlib

    def obj(ref: bytes) -> bytes:
        return re.search(rb"\n" + ref + rb" 0 obj(.*?)endobj", pdf, re.S).group(1)

    def stream(body: bytes) -> bytes:
        raw = re.search(rb"stream\r?\n(.*)endstream", body, re.S).group(1)
        return zlib.decompress(raw) if b"/FlateDecode" in body else raw

    fonts = {}
    for m in re.finditer(rb"/BaseFont\s*/([^\s/>]+)(.*?)/ToUnicode\s+(\d+)\s+0\s+R", pdf, re.S):
        cmap = stream(obj(m.group(3)))
        chars = []
        for block in re.findall(rb"beginbfchar(.*?)endbfchar", cmap, re.S):
            chars += [chr(int(u, 16)) for u in re.findall(rb"<[0-9A-Fa-f]+>\s*<([0-9A-Fa-f]{4})>", block)]
        for block in re.findall(rb"beginbfrange(.*?)endbfrange", cmap, re.S):
            for lo, hi, dst in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]{4})>", block):
                chars += [chr(int(dst, 16) + i) for i in range(int(hi, 16) - int(lo, 16) + 1)]
        fonts[m.group(1).decode()] = "".join(chars)
    return fonts


def test_the_chinese_pdf_embeds_the_bundled_font_with_a_text_layer(dejavu_only):
    """lesson.pdf, written with only DejaVu installed: the bundled CJK font is embedded (FontFile2, a subset) and
    maps its glyphs back to the Chinese text (ToUnicode): searchable, and drawn the same on any reader."""
    proc, out = dejavu_only
    assert proc.returncode == 0, proc.stderr[-3000:]
    pdf = (out / "lesson.pdf").read_bytes()
    fonts = pdf_fonts(pdf)
    bundled = [name for name in fonts if "gemmvizNotoSansSC" in name]
    assert bundled, f"the bundled CJK font is not in the PDF: {sorted(fonts)}"
    assert pdf.count(b"/FontFile2") + pdf.count(b"/FontFile3") >= len(fonts)  # every font embedded
    text = "".join(fonts[name] for name in bundled)  # its regular face and, for bold titles, its bold one
    assert all(c in text for c in "算术强度模型线程块"), text  # the slides' Chinese, as text


def ink(text: str, px: int, bold: bool) -> int:
    from PySide6.QtGui import QColor, QImage, QPainter

    img = QImage(16 * px, 2 * px, QImage.Format.Format_Grayscale8)
    img.fill(QColor("white"))
    p = QPainter(img)
    p.setFont(pixel_font(px, bold))
    p.setPen(QColor("black"))
    p.drawText(px // 2, int(1.4 * px), text)
    p.end()
    row = img.bytesPerLine()
    data = bytes(img.constBits())
    return sum(sum(1 for v in data[y * row : y * row + img.width()] if v < 128) for y in range(img.height()))


@pytest.mark.parametrize("px", [24, 64, 96])
def test_bold_chinese_is_heavier_at_every_size_a_title_takes(qapp, px):
    """Qt emboldens a regular face only for glyphs it caches (under 64 px): a title at 1920×1080 drew as regular
    until the bold face shipped. Bold text covers visibly more of the page at small and large sizes alike."""
    from gemmviz.ui.fonts import install_cjk_fallback

    assert install_cjk_fallback(qapp) == "gemmviz Noto Sans SC"
    regular, bold = ink("分块矩阵乘法", px, False), ink("分块矩阵乘法", px, True)
    assert regular > 0 and bold > 1.3 * regular, (px, regular, bold)
