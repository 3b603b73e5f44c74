"""A tiny reader of the text layer of the PDFs Qt's QPdfWriter writes (enough for the tests, no dependency):
each page's content stream, inflated, its `/Fn size Tf` and `<hex> Tj` operators, the glyph codes mapped to
Unicode through each font's ToUnicode CMap. Qt places every glyph with its own Td; its spaces come back as
some whitespace and its ligatures as ligature characters, so compare with `words()`."""

from __future__ import annotations

import re
import unicodedata
import zlib

OBJECT = re.compile(rb"(\d+) 0 obj\b(.*?)\bendobj", re.S)
STREAM = re.compile(rb"stream\r?\n(.*?)\r?\nendstream", re.S)
REF = rb"(\d+) 0 R"


def words(text: str) -> str:
    """`text` without whitespace, ligatures spelt out (NFKC: ﬃ is ffi), for comparing with a slide's words."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def objects(data: bytes) -> dict[int, bytes]:
    return {int(n): body for n, body in OBJECT.findall(data)}


def stream(body: bytes) -> bytes:
    found = STREAM.search(body)
    if found is None:
        return b""
    raw = found.group(1)
    return zlib.decompress(raw) if b"/FlateDecode" in body[: found.start()] else raw


def _cmap(data: bytes) -> dict[int, str]:
    """A ToUnicode CMap's bfchar and bfrange entries (the forms Qt writes)."""
    out: dict[int, str] = {}

    def text(hexes: bytes) -> str:
        return bytes.fromhex(hexes.decode()).decode("utf-16-be", "replace")

    for block in re.findall(rb"beginbfchar(.*?)endbfchar", data, re.S):
        for src, dst in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
            out[int(src, 16)] = text(dst)
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", data, re.S):
        for lo, hi, rest in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(\[[^\]]*\]|<[0-9A-Fa-f]+>)", block):
            lo_i, hi_i = int(lo, 16), int(hi, 16)
            if rest.startswith(b"["):
                for i, dst in enumerate(re.findall(rb"<([0-9A-Fa-f]+)>", rest)):
                    out[lo_i + i] = text(dst)
            else:
                start = int(rest[1:-1], 16)
                for i in range(hi_i - lo_i + 1):
                    out[lo_i + i] = chr(start + i)
    return out


def fonts(objs: dict[int, bytes]) -> dict[int, dict[int, str]]:
    """Font object number -> its code-to-text map (the ToUnicode of the font or of its descendant)."""
    out = {}
    for n, body in objs.items():
        if b"/Type /Font" in body or b"/Type/Font" in body:
            ref = re.search(rb"/ToUnicode\s+" + REF, body)
            if ref:
                out[n] = _cmap(stream(objs[int(ref.group(1))]))
    return out


def page_texts(data: bytes) -> list[str]:
    """The text drawn on each page, in page order."""
    objs = objects(data)
    maps = fonts(objs)
    catalog_pages = [n for n, b in objs.items() if re.search(rb"/Type\s*/Pages\b", b)]
    kids = re.search(rb"/Kids\s*\[([^\]]*)\]", objs[catalog_pages[0]])
    pages = [int(k) for k in re.findall(REF, kids.group(1))]
    texts = []
    for n in pages:
        page = objs[n]
        resources = page
        ref = re.search(rb"/Resources\s+" + REF, page)
        if ref:
            resources = objs[int(ref.group(1))]
        font_dict = re.search(rb"/Font\s*<<(.*?)>>", resources, re.S)
        names = (
            {name.decode(): int(obj) for name, obj in re.findall(rb"/(\w+)\s+" + REF, font_dict.group(1))}
            if font_dict
            else {}
        )
        content = b"".join(
            stream(objs[int(c)])
            for c in re.findall(REF, re.search(rb"/Contents\s+(\[[^\]]*\]|\d+ 0 R)", page).group(1))
        )
        current: dict[int, str] = {}
        out = []
        for font, glyphs in re.findall(rb"/(\w+)\s+[\d.]+\s+Tf|<([0-9A-Fa-f]+)>\s*Tj", content):
            if font:
                current = maps.get(names.get(font.decode(), -1), {})
            else:
                for i in range(0, len(glyphs), 4):
                    out.append(current.get(int(glyphs[i : i + 4], 16), "\ufffd"))
        texts.append("".join(out))
    return texts
