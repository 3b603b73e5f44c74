"""Make assets/fonts/gemmviz-NotoSansSC-{Regular,Bold}.otf: subsets of Noto Sans CJK SC (SIL OFL 1.1) so that
the shipped Chinese text renders on a machine with no CJK font.

It keeps every character of the shipped Chinese strings (the *.zh.toml lessons, the zh_CN translation of the
window, the Chinese words of core/numbers.py), the 3,755 common hanzi of GB2312 level 1 (so that most of a
teacher's own Chinese lesson renders too), CJK punctuation, full-width forms and ASCII. About 1.5 MB, where
the whole SC face is 16 MB, for each weight. The bold face is real, not synthesized: Qt emboldens a regular
face only for glyphs it caches, under 64 pixels, so a slide's title at 1920×1080 would lose its weight. Rerun
it when a test says a shipped character is missing:

    apt-get download fonts-noto-cjk && dpkg-deb -x fonts-noto-cjk_*.deb noto   # or any Noto Sans CJK SC
    pip install fonttools
    python tools/cjk_font.py noto/usr/share/fonts/opentype/noto/NotoSansCJK-{Regular,Bold}.ttc
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parents[1]
FONTS = ROOT / "assets" / "fonts"
FAMILY = "gemmviz Noto Sans SC"  # a name of its own: a system Noto Sans CJK SC, if any, stays what it is
CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")


def shipped_chinese() -> set[str]:
    """Every CJK character (and full-width punctuation) in the shipped Chinese strings."""
    files = [*ROOT.glob("assets/lessons/*.zh.toml"), *ROOT.glob("assets/i18n/*.ts"), ROOT / "gemmviz/core/numbers.py"]
    return {c for f in files for c in CJK.findall(f.read_text(encoding="utf-8"))}


def gb2312_level1() -> str:
    return "".join(
        bytes([hi, lo]).decode("gb2312")
        for hi in range(0xB0, 0xD8)
        for lo in range(0xA1, 0xFF)
        if not (hi == 0xD7 and lo > 0xF9)
    )


def kept_text() -> str:
    ranges = [(0x20, 0x7E), (0xA0, 0xFF), (0x3000, 0x303F), (0xFF01, 0xFF5E), (0x2010, 0x2027)]
    extra = "".join(chr(c) for a, b in ranges for c in range(a, b + 1)) + "×·³²¹⁰⁴⁵⁶⁷⁸⁹→←↑↓…"
    return "".join(sorted(shipped_chinese() | set(gb2312_level1()) | set(extra)))


def source_font(path: str) -> TTFont:
    if path.lower().endswith(".ttc"):
        for font in TTCollection(path).fonts:
            if font["name"].getDebugName(1) == "Noto Sans CJK SC":
                return font
        raise SystemExit(f"{path} has no Noto Sans CJK SC face")
    return TTFont(path)


def write_face(path: str, weight: str) -> Path:
    """Subset one weight of the source and name it as the bundled family's face of that weight."""
    font = source_font(path)
    options = subset.Options()
    options.layout_features = [*options.layout_features, "halt", "palt"]  # the defaults and CJK spacing
    options.hinting = False
    options.name_IDs = ["*"]
    sub = subset.Subsetter(options)
    sub.populate(text=kept_text())
    sub.subset(font)
    postscript = f"gemmvizNotoSansSC-{weight}"
    name = font["name"]
    for record in list(name.names):
        ids = (record.platformID, record.platEncID, record.langID)
        if record.nameID in (1, 3, 16):
            name.setName(FAMILY, record.nameID, *ids)
        elif record.nameID in (2, 17):
            name.setName(weight, record.nameID, *ids)
        elif record.nameID == 4:
            name.setName(f"{FAMILY} {weight}", 4, *ids)
        elif record.nameID == 6:
            name.setName(postscript, 6, *ids)
    font["CFF "].cff.fontNames = [postscript]
    out = FONTS / f"gemmviz-NotoSansSC-{weight}.otf"
    FONTS.mkdir(parents=True, exist_ok=True)
    font.save(out)
    print(f"wrote {out.relative_to(ROOT)}: {len(font.getGlyphOrder())} glyphs, {out.stat().st_size:,} bytes")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("regular", help="NotoSansCJK-Regular.ttc or NotoSansCJKsc-Regular.otf")
    parser.add_argument("bold", help="NotoSansCJK-Bold.ttc or NotoSansCJKsc-Bold.otf")
    args = parser.parse_args()
    write_face(args.regular, "Regular")
    write_face(args.bold, "Bold")


if __name__ == "__main__":
    main()
